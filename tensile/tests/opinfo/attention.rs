//! Attention: `F.scaled_dot_product_attention`.

use super::{Args, Dom, OpInfo, P, Sample, Sig};
use tensile::nn::functional as F;
use tensile::{Result, Tensor};

/// `F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False,
/// scale=None, enable_gqa=False)`.
fn sdpa(a: &Args) -> Result<Tensor> {
    let opts = F::ScaledDotProductAttentionOpts {
        attn_mask: a.kw_tensor("attn_mask"),
        dropout_p: a.kw_f64("dropout_p").unwrap_or(0.0),
        is_causal: a.kw_bool("is_causal").unwrap_or(false),
        scale: a.kw_f64("scale"),
        enable_gqa: a.kw_bool("enable_gqa").unwrap_or(false),
    };
    F::scaled_dot_product_attention_with(a.t(0), a.t(1), a.t(2), opts)
}

const fn t(shape: &'static [usize]) -> P {
    P::T(Dom::Any, shape)
}

pub static OPS: &[OpInfo] = &[
    OpInfo::new("scaled_dot_product_attention", Sig::Other, sdpa)
        .grad(&[
            Sample::new(&[t(&[1, 2, 3]), t(&[1, 4, 3]), t(&[1, 4, 2])]).no_bcast(),
            Sample::new(&[t(&[1, 3, 2]), t(&[1, 3, 2]), t(&[1, 3, 2])])
                .kw(&[("is_causal", P::Bool(true))])
                .named("scaled_dot_product_attention (causal)")
                .no_bcast(),
        ])
        .bench("F.scaled_dot_product_attention"),
];
