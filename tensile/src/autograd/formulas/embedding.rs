//! `embedding_bag` (`EmbeddingBagBackward0`, PyTorch's `_embedding_bag_backward`).
//! (`embedding` itself is a gather: `index::gathered("EmbeddingBackward0", …)`.)

use super::super::node::Save;
use super::super::record::{node_saving, record};
use super::pointwise::lam;
use crate::error::Result;
use crate::tensor::Tensor;

/// The bags of an `embedding_bag` call, as its forward read them.
pub(crate) struct Bags {
    /// Flattened indices.
    pub idx: Vec<i64>,
    /// `(start, end)` in `idx` of each bag.
    pub ranges: Vec<(usize, usize)>,
    /// The wrapped `padding_idx` (skipped entries).
    pub pad: Option<i64>,
    /// `"sum"`, `"mean"` or `"max"`.
    pub mode: &'static str,
}

/// `embedding_bag(input, weight, offsets, mode, per_sample_weights, padding_idx)`: inputs
/// `weight` and `per_sample_weights` (when given; `sum` mode only). Saves `weight`.
/// `sum`/`mean`: `gw = Aᵀ·g` with `A[b, idx[j]] += psw[j]` (`1/count` for `mean`); `max`:
/// each output element's gradient goes to the row that gave the maximum (the first one);
/// `gpsw[j] = g[bag(j)] · w[idx[j]]`. Padding entries get nothing.
pub(crate) fn embedding_bag(
    out: Tensor,
    weight: &Tensor,
    psw: Option<&Tensor>,
    bags: impl FnOnce() -> Bags,
) -> Result<Tensor> {
    let mut inputs = vec![weight];
    inputs.extend(psw);
    if !crate::autograd::api::any_requires_grad(&inputs) {
        return Ok(out);
    }
    let b = bags();
    let (rw, rp) = (
        weight.requires_grad(),
        psw.is_some_and(|p| p.requires_grad()),
    );
    let mut saved = vec![Save::Input(weight.alias())];
    if let Some(p) = psw {
        saved.push(Save::Input(p.alias()));
    }
    let has_psw = psw.is_some();
    record(out, &inputs, move || {
        node_saving(
            lam("EmbeddingBagBackward0", move |g, s| {
                let w = &s[0];
                let (num, dim) = (w.size()[0], w.size()[1]);
                let nb = b.ranges.len();
                let live = |j: usize| Some(b.idx[j]) != b.pad;
                let gw = if !rw {
                    None
                } else if b.mode == "max" {
                    let wv = w.try_to_vec::<f64>()?;
                    let gv = g.try_to_vec::<f64>()?;
                    let mut r = vec![0.0; num * dim];
                    for (bi, &(st, en)) in b.ranges.iter().enumerate() {
                        for e in 0..dim {
                            let mut best: Option<(usize, f64)> = None;
                            for j in (st..en).filter(|&j| live(j)) {
                                let v = wv[b.idx[j] as usize * dim + e];
                                if best.is_none_or(|(_, m)| v > m) {
                                    best = Some((b.idx[j] as usize, v));
                                }
                            }
                            if let Some((row, _)) = best {
                                r[row * dim + e] += gv[bi * dim + e];
                            }
                        }
                    }
                    Some(Tensor::from_vec(r, [num, dim])?)
                } else {
                    let pv = if has_psw {
                        Some(s[1].try_to_vec::<f64>()?)
                    } else {
                        None
                    };
                    let mut a = vec![0.0; nb * num];
                    for (bi, &(st, en)) in b.ranges.iter().enumerate() {
                        let count = (st..en).filter(|&j| live(j)).count();
                        for j in (st..en).filter(|&j| live(j)) {
                            let k = match (&pv, b.mode) {
                                (Some(p), _) => p[j],
                                (None, "mean") => 1.0 / count as f64,
                                _ => 1.0,
                            };
                            a[bi * num + b.idx[j] as usize] += k;
                        }
                    }
                    let a = Tensor::from_vec(a, [nb, num])?.to(g.dtype())?;
                    Some(a.transpose(0, 1)?.matmul(g)?)
                };
                let gp = if rp {
                    let wv = w.try_to_vec::<f64>()?;
                    let gv = g.try_to_vec::<f64>()?;
                    let mut r = vec![0.0; b.idx.len()];
                    for (bi, &(st, en)) in b.ranges.iter().enumerate() {
                        for j in (st..en).filter(|&j| live(j)) {
                            let row = b.idx[j] as usize * dim;
                            r[j] = (0..dim).map(|e| gv[bi * dim + e] * wv[row + e]).sum();
                        }
                    }
                    Some(Tensor::from_vec(r, s[1].size())?)
                } else {
                    None
                };
                let mut res = vec![gw];
                if has_psw {
                    res.push(gp);
                }
                Ok(res)
            }),
            saved,
        )
    })
}

/// `embedding(input, weight, padding_idx)` with a padding index (`EmbeddingBackward0`): the
/// rows of `g` are added into the rows of `weight` they came from (`index_add`), except the
/// positions whose index is `padding_idx` (wrapped), which give nothing. Saves `input`.
pub(crate) fn embedding_padded(
    out: Tensor,
    input: &Tensor,
    weight: &Tensor,
    padding_idx: i64,
) -> Result<Tensor> {
    let (num, dim) = (weight.size()[0], weight.size()[1]);
    let pad = if padding_idx < 0 {
        padding_idx + num as i64
    } else {
        padding_idx
    };
    record(out, &[weight], || {
        node_saving(
            lam("EmbeddingBackward0", move |g, s| {
                let idx = s[0].reshape([-1])?.to(crate::dtype::DType::Int64)?;
                let keep = idx.ne(pad)?.unsqueeze(1)?.to(g.dtype())?;
                let rows = g.reshape([-1, dim as i64])?.mul(&keep)?;
                let z = Tensor::zeros([num, dim])?.to(g.dtype())?;
                Ok(vec![Some(z.index_add(0, &idx, &rows)?)])
            }),
            vec![Save::Input(input.alias())],
        )
    })
}
