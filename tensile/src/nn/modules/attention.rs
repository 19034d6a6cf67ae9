//! `nn.MultiheadAttention`.

use super::common::{empty, into_param, named};
use super::linear::Linear;
use super::module::{Module, Training};
use crate::Tensor;
use crate::baddbmm;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::nn::dropout::{DropoutOpts, dropout_with};
use crate::nn::init;
use crate::optable::nn::{ScaledDotProductAttentionOpts, scaled_dot_product_attention_with};

/// The optional constructor arguments of `nn.MultiheadAttention` (`dropout=0.0, bias=True,
/// batch_first=False, dtype=torch.float32`; `add_bias_kv`, `add_zero_attn`, `kdim`, `vdim` are
/// not taken: keys and values have `embed_dim` features). From `batch_first` or the struct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MultiheadAttentionConfig {
    /// Dropout on the attention weights in training mode.
    pub dropout: f64,
    /// Learn `in_proj_bias` and `out_proj.bias`.
    pub bias: bool,
    /// Inputs and output `(N, L, E)` instead of `(L, N, E)`.
    pub batch_first: bool,
    /// The parameters' dtype.
    pub dtype: DType,
}
impl Default for MultiheadAttentionConfig {
    fn default() -> Self {
        MultiheadAttentionConfig {
            dropout: 0.0,
            bias: true,
            batch_first: false,
            dtype: DType::Float32,
        }
    }
}
impl From<bool> for MultiheadAttentionConfig {
    fn from(batch_first: bool) -> Self {
        MultiheadAttentionConfig {
            batch_first,
            ..Default::default()
        }
    }
}

/// The optional arguments of `MultiheadAttention.forward` (`key_padding_mask=None,
/// need_weights=True, attn_mask=None, average_attn_weights=True`).
#[derive(Clone, Copy, Debug)]
pub struct MhaForwardOpts<'a> {
    /// `(N, S)` (or `(S,)` unbatched): bool, `true` = ignore that key; or float, added.
    pub key_padding_mask: Option<&'a Tensor>,
    /// Also return the attention weights.
    pub need_weights: bool,
    /// `(L, S)` or `(N·num_heads, L, S)`: bool, `true` = not allowed to attend; or float,
    /// added to the scores.
    pub attn_mask: Option<&'a Tensor>,
    /// Average the returned weights over the heads (`(N, L, S)`), else `(N, num_heads, L, S)`.
    pub average_attn_weights: bool,
}
impl Default for MhaForwardOpts<'_> {
    fn default() -> Self {
        MhaForwardOpts {
            key_padding_mask: None,
            need_weights: true,
            attn_mask: None,
            average_attn_weights: true,
        }
    }
}

/// `nn.MultiheadAttention(embed_dim, num_heads, dropout=0.0, bias=True, batch_first=False)`.
///
/// Parameters (state-dict order): `in_proj_weight` `(3E, E)` (xavier_uniform_),
/// `in_proj_bias` `(3E,)` (zeros), `out_proj.weight` `(E, E)` (Linear's kaiming_uniform_),
/// `out_proj.bias` `(E,)` (zeros). The default generator is drawn in PyTorch's order
/// (`out_proj` is built, weight and bias, before `in_proj_weight` is filled), so a seeded
/// construction gives PyTorch's weights.
///
/// [`MultiheadAttention::forward_with`]: `query` `(L, N, E)`, `key`/`value` `(S, N, E)` (batch
/// first with `batch_first`; unbatched `(L, E)`/`(S, E)`) → `(attn_output (L, N, E),
/// Some(weights (N, L, S)))`, weights `(N, num_heads, L, S)` when not averaged, `None` when
/// not needed. PyTorch's `F.multi_head_attention_forward` math: in-projection, scores
/// `baddbmm(mask, q·√(1/head_dim), kᵀ)`, softmax, (dropout), `@ v`, out-projection;
/// `scaled_dot_product_attention` when the weights are not needed. The [`Module::forward`]
/// form is self-attention `forward(x, x, x)` returning the output only.
///
/// Errors: constructor AssertionError `embed_dim must be divisible by num_heads`, ValueError
/// `embed_dim and num_heads must be greater than 0, got embed_dim=0 and num_heads=2 instead`;
/// forward AssertionError `was expecting embedding dimension of 8, but got 6`,
/// `query should be unbatched 2D or batched 3D tensor but received 4-D query tensor`,
/// ``For batched (3-D) `query`, expected `key` and `value` to be 3-D but found 0-D and 3-D
/// tensors respectively``, then those of the ops.
#[derive(Debug)]
pub struct MultiheadAttention {
    /// `(3E, E)`: the query, key and value projections stacked.
    pub in_proj_weight: Tensor,
    /// `(3E,)`, or `None` with `bias=False`.
    pub in_proj_bias: Option<Tensor>,
    /// The output projection (a child named `out_proj`).
    pub out_proj: Linear,
    /// `E`.
    pub embed_dim: usize,
    /// Parallel attention heads (`E / num_heads` features each).
    pub num_heads: usize,
    /// The constructor's optional arguments.
    pub config: MultiheadAttentionConfig,
    training: Training,
}

fn float_mask(m: &Tensor, dtype: DType) -> Result<Tensor> {
    if m.dtype() == DType::Bool {
        Tensor::zeros_like_with(m, dtype)?.masked_fill(m, f64::NEG_INFINITY)
    } else {
        Ok(m.alias())
    }
}

impl MultiheadAttention {
    /// `nn.MultiheadAttention(embed_dim, num_heads)`.
    pub fn new(embed_dim: usize, num_heads: usize) -> Result<MultiheadAttention> {
        MultiheadAttention::with(embed_dim, num_heads, MultiheadAttentionConfig::default())
    }

    /// `nn.MultiheadAttention(embed_dim, num_heads, …)` with [`MultiheadAttentionConfig`].
    pub fn with(
        embed_dim: usize,
        num_heads: usize,
        config: impl Into<MultiheadAttentionConfig>,
    ) -> Result<MultiheadAttention> {
        let c = config.into();
        if embed_dim == 0 || num_heads == 0 {
            return Err(Error::value(format!(
                "embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and num_heads={num_heads} instead"
            )));
        }
        if !embed_dim.is_multiple_of(num_heads) {
            return Err(Error::assertion("embed_dim must be divisible by num_heads"));
        }
        let w = empty(&[3 * embed_dim, embed_dim], c.dtype)?;
        let b = if c.bias {
            Some(empty(&[3 * embed_dim], c.dtype)?)
        } else {
            None
        };
        let out_proj = Linear::with(
            embed_dim,
            embed_dim,
            super::linear::LinearConfig {
                bias: c.bias,
                dtype: c.dtype,
            },
        )?;
        init::xavier_uniform_(&w)?;
        if let Some(b) = &b {
            init::zeros_(b)?;
        }
        if let Some(ob) = &out_proj.bias {
            init::zeros_(ob)?;
        }
        Ok(MultiheadAttention {
            in_proj_weight: into_param(w)?,
            in_proj_bias: b.map(into_param).transpose()?,
            out_proj,
            embed_dim,
            num_heads,
            config: c,
            training: Training::default(),
        })
    }

    /// `mha(query, key, value)` with the defaults of [`MhaForwardOpts`] (weights returned,
    /// averaged over heads).
    pub fn forward_qkv(
        &self,
        query: &Tensor,
        key: &Tensor,
        value: &Tensor,
    ) -> Result<(Tensor, Option<Tensor>)> {
        self.forward_with(query, key, value, MhaForwardOpts::default())
    }

    /// `mha(query, key, value, key_padding_mask, need_weights, attn_mask,
    /// average_attn_weights)`; see [`MultiheadAttention`].
    pub fn forward_with(
        &self,
        query: &Tensor,
        key: &Tensor,
        value: &Tensor,
        opts: MhaForwardOpts,
    ) -> Result<(Tensor, Option<Tensor>)> {
        let qd = query.dim();
        if qd != 2 && qd != 3 {
            return Err(Error::assertion(format!(
                "query should be unbatched 2D or batched 3D tensor but received {qd}-D query tensor"
            )));
        }
        let unbatched = qd == 2;
        // `_mha_shape_check`
        if key.dim() != qd || value.dim() != qd {
            return Err(Error::assertion(format!(
                "For {} ({qd}-D) `query`, expected `key` and `value` to be {qd}-D but found {}-D and {}-D tensors respectively",
                if unbatched { "unbatched" } else { "batched" },
                key.dim(),
                value.dim()
            )));
        }
        let (mut q, mut k, mut v) = (query.alias(), key.alias(), value.alias());
        if self.config.batch_first && !unbatched {
            q = q.transpose(1, 0)?;
            k = k.transpose(1, 0)?;
            v = v.transpose(1, 0)?;
        }
        let mut kpm = opts.key_padding_mask.map(|m| m.alias());
        if unbatched {
            q = q.unsqueeze(1)?;
            k = k.unsqueeze(1)?;
            v = v.unsqueeze(1)?;
            if let Some(m) = &kpm {
                kpm = Some(m.unsqueeze(0)?);
            }
        }
        let (tgt_len, bsz, e) = (q.size()[0], q.size()[1], q.size()[2]);
        if e != self.embed_dim {
            return Err(Error::assertion(format!(
                "was expecting embedding dimension of {}, but got {e}",
                self.embed_dim
            )));
        }
        let src_len = k.size()[0];
        let (h, hd) = (self.num_heads, self.embed_dim / self.num_heads);
        // in-projection (`_in_projection_packed`)
        let ws = self.in_proj_weight.chunk(3)?;
        let bs = match &self.in_proj_bias {
            Some(b) => b.chunk(3)?.into_iter().map(Some).collect(),
            None => vec![None, None, None],
        };
        let q = q.linear_with(&ws[0], bs[0].as_ref())?;
        let k = k.linear_with(&ws[1], bs[1].as_ref())?;
        let v = v.linear_with(&ws[2], bs[2].as_ref())?;
        // masks (`_canonical_mask`), merged as PyTorch does
        let dtype = q.dtype();
        let mut attn_mask = match opts.attn_mask {
            Some(m) => {
                let m = float_mask(m, dtype)?;
                Some(if m.dim() == 2 { m.unsqueeze(0)? } else { m })
            }
            None => None,
        };
        if let Some(m) = kpm {
            let m = float_mask(&m, dtype)?
                .view([bsz, 1, 1, src_len])?
                .expand([bsz, h, 1, src_len])?
                .reshape([bsz * h, 1, src_len])?;
            attn_mask = Some(match attn_mask {
                None => m,
                Some(a) => a.add(&m)?,
            });
        }
        let q = q
            .contiguous()
            .view([tgt_len, bsz * h, hd])?
            .transpose(0, 1)?;
        let k = k
            .contiguous()
            .view([src_len, bsz * h, hd])?
            .transpose(0, 1)?;
        let v = v
            .contiguous()
            .view([src_len, bsz * h, hd])?
            .transpose(0, 1)?;
        let dropout_p = if self.is_training() {
            self.config.dropout
        } else {
            0.0
        };
        let (out, weights) = if opts.need_weights || dropout_p > 0.0 {
            let q_scaled = q.mul((1.0 / hd as f64).sqrt())?;
            let kt = k.transpose(-2, -1)?;
            let mut w = match &attn_mask {
                Some(m) => baddbmm(m, &q_scaled, &kt)?,
                None => q_scaled.bmm(&kt)?,
            };
            w = w.softmax(-1)?;
            if dropout_p > 0.0 {
                w = dropout_with(&w, DropoutOpts::from(dropout_p))?;
            }
            let o = w
                .bmm(&v)?
                .transpose(0, 1)?
                .contiguous()
                .view([tgt_len * bsz, self.embed_dim])?;
            let w = w.view([bsz, h, tgt_len, src_len])?;
            let w = if opts.average_attn_weights {
                w.mean_dim(1, false)?
            } else {
                w
            };
            (o, opts.need_weights.then_some(w))
        } else {
            let m = match attn_mask {
                Some(m) if m.size()[0] == 1 && m.dim() == 3 => Some(m.unsqueeze(0)?),
                Some(m) => Some(m.view([bsz as i64, h as i64, -1, src_len as i64])?),
                None => None,
            };
            let q = q.view([bsz, h, tgt_len, hd])?;
            let k = k.view([bsz, h, src_len, hd])?;
            let v = v.view([bsz, h, src_len, hd])?;
            let o = scaled_dot_product_attention_with(
                &q,
                &k,
                &v,
                ScaledDotProductAttentionOpts {
                    attn_mask: m.as_ref(),
                    ..Default::default()
                },
            )?;
            let o = o
                .permute([2, 0, 1, 3])?
                .contiguous()
                .view([bsz * tgt_len, self.embed_dim])?;
            (o, None)
        };
        let out = self
            .out_proj
            .forward(&out)?
            .view([tgt_len, bsz, out_dim(&self.out_proj)])?;
        let (out, weights) = if unbatched {
            (
                out.squeeze_dim(1)?,
                weights.map(|w| w.squeeze_dim(0)).transpose()?,
            )
        } else if self.config.batch_first {
            (out.transpose(1, 0)?, weights)
        } else {
            (out, weights)
        };
        Ok((out, weights))
    }
}

fn out_dim(l: &Linear) -> usize {
    l.out_features
}

impl Module for MultiheadAttention {
    module_common!("MultiheadAttention");
    /// Self-attention `mha(x, x, x, need_weights=False)[0]`.
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        Ok(self
            .forward_with(
                input,
                input,
                input,
                MhaForwardOpts {
                    need_weights: false,
                    ..Default::default()
                },
            )?
            .0)
    }
    fn local_parameters(&self) -> Vec<(String, Tensor)> {
        let mut v = vec![named("in_proj_weight", &self.in_proj_weight)];
        if let Some(b) = &self.in_proj_bias {
            v.push(named("in_proj_bias", b));
        }
        v
    }
    fn children(&self) -> Vec<(String, &dyn Module)> {
        vec![("out_proj".to_string(), &self.out_proj as &dyn Module)]
    }
}
