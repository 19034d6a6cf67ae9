//! Ops of the `attention` family, for the conformance runner.
use super::{Arg, Out, kw_arg, kw_bool, kw_f64};
use tensile::nn::functional as F;

pub fn call(op: &str, args: &[Arg], kw: &serde_json::Value) -> Option<tensile::Result<Out>> {
    match op {
        "scaled_dot_product_attention" => {
            let mask = kw_arg(kw, "attn_mask");
            let opts = F::ScaledDotProductAttentionOpts {
                attn_mask: mask.as_ref().map(|a| a.tensor()),
                dropout_p: kw_f64(kw, "dropout_p").unwrap_or(0.0),
                is_causal: kw_bool(kw, "is_causal").unwrap_or(false),
                scale: kw_f64(kw, "scale"),
                enable_gqa: kw_bool(kw, "enable_gqa").unwrap_or(false),
            };
            Some(
                F::scaled_dot_product_attention_with(
                    args[0].tensor(),
                    args[1].tensor(),
                    args[2].tensor(),
                    opts,
                )
                .map(Out::Tensor),
            )
        }
        _ => None,
    }
}
