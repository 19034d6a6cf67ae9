//! Pooling (derivatives.yaml: `max_pool2d_with_indices`, `max_pool3d_with_indices`,
//! `avg_pool2d`, `avg_pool3d`, `_adaptive_avg_pool2d`, `adaptive_max_pool2d`,
//! `max_unpool2d`). The 1-d poolings and `lp_pool` are composite in PyTorch (`unsqueeze`,
//! the 2-d op, `squeeze`; `pow`, `avg_pool`, …) and in tensile, so they get these nodes
//! under `SqueezeBackward1` / `PowBackward0` without formulas of their own.
//!
//! * max poolings: `g` scattered (summed) to the argmax `indices` of each plane;
//! * average poolings (plain and adaptive): `g` divided by each output's divisor (as
//!   PyTorch's kernels divide), then summed back into each pooled dim's windows, one tap at a
//!   time ([`window_adjoint`]: `index_select` + `index_add`, memory linear in the outputs);
//! * max unpooling: `g` gathered at the indices.

use super::super::node::Save;
use super::super::record::{node_saving, record, record_multi};
use super::pointwise::lam;
use crate::dtype::DType;
use crate::error::Result;
use crate::geometry::pool::Win;
use crate::tensor::Tensor;

/// The adjoint of summing windows along dim `d` of `g` (`wins[o]` the input positions of
/// output `o`, `input` the input length): output `o`'s gradient added at each position of its
/// window, one `index_select` + `index_add` per window tap (recorded ops, so the result is
/// differentiable again). Memory `O(outputs · taps)`, whatever the input length.
fn window_adjoint(g: &Tensor, d: i64, wins: &[Win], input: usize) -> Result<Tensor> {
    let mut sizes = g.size().to_vec();
    let du = d as usize;
    sizes[du] = input;
    let mut r = Tensor::zeros_with(sizes, g.dtype())?;
    let taps = wins.iter().map(Win::len).max().unwrap_or(0);
    for t in 0..taps {
        let (outs, ins): (Vec<i64>, Vec<i64>) = wins
            .iter()
            .enumerate()
            .filter(|(_, w)| t < w.len())
            .map(|(o, w)| (o as i64, (w.lo + t * w.step.max(1)) as i64))
            .unzip();
        let n = outs.len();
        let src = g.index_select(d, &Tensor::from_vec(outs, [n])?)?;
        r = r.index_add(d, &Tensor::from_vec(ins, [n])?, &src)?;
    }
    Ok(r)
}

/// The adjoint of `y = M_1 ⊗ … ⊗ M_k x` over the last `k` dims of `x`: `g` (of the output's
/// shape) times each `M_j` (`(out_j, in_j)`, float64, cast to `g`'s dtype) along dim `j`.
pub(crate) fn separable_backward(g: &Tensor, mats: &[Tensor]) -> Result<Tensor> {
    let k = mats.len();
    let nd = g.dim() as i64;
    let mut r = g.alias();
    for (j, m) in mats.iter().enumerate() {
        let d = nd - k as i64 + j as i64;
        let m = m.to(g.dtype())?;
        r = r.transpose(d, -1)?.matmul(&m)?.transpose(d, -1)?;
    }
    Ok(r)
}

/// `g` of `(lead…, out…)` scattered (summed) into zeros of `in_sizes` at `idx` (flat
/// positions within the last `k` dims, one per output element).
pub(crate) fn scatter_to_indices(
    g: &Tensor,
    idx: &Tensor,
    in_sizes: &[usize],
    k: usize,
) -> Result<Tensor> {
    let nd = in_sizes.len();
    let lead: usize = in_sizes[..nd - k].iter().product();
    let plane: usize = in_sizes[nd - k..].iter().product();
    let z = Tensor::zeros_with([lead, plane], g.dtype())?;
    if g.numel() == 0 {
        return z.reshape(in_sizes);
    }
    let gf = g.reshape([lead as i64, -1])?;
    let i = idx.reshape([lead as i64, -1])?;
    z.scatter_add(1, &i, &gf)?.reshape(in_sizes)
}

/// `max_pool{2,3}d_with_indices` and `adaptive_max_pool2d` (`name`): records `(out,
/// indices)` on `x` (`k` pooled dims); saves `x` and the indices, as PyTorch.
pub(crate) fn max_pool(
    name: &'static str,
    (out, idx): (Tensor, Tensor),
    x: &Tensor,
    k: usize,
) -> Result<(Tensor, Tensor)> {
    let mut v = record_multi(vec![out, idx], &[x], || {
        node_saving(
            lam(name, move |g, s| {
                Ok(vec![Some(scatter_to_indices(g, &s[1], s[0].size(), k)?)])
            }),
            vec![Save::Input(x.alias()), Save::Output(1)],
        )
    })?;
    let i = v.pop().expect("two outputs");
    Ok((v.pop().expect("two outputs"), i))
}

/// How an average pooling divides each window's sum.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Divisor {
    /// `divisor_override`.
    Fixed(i64),
    /// The window's size cut at `input + padding` (`count_include_pad=True`).
    Padded,
    /// The number of input positions in the window (`count_include_pad=False`, adaptive).
    Count,
}

/// `avg_pool{2,3}d` (`AvgPool2DBackward0`, `AvgPool3DBackward0`) and
/// `_adaptive_avg_pool2d` (`AdaptiveAvgPool2DBackward0`): `wins[j]` the windows of pooled
/// dim `j` (the last `wins.len()` dims of `x`); saves `x`, as PyTorch.
pub(crate) fn avg_pool(
    name: &'static str,
    out: Tensor,
    x: &Tensor,
    wins: Vec<Vec<Win>>,
    div: Divisor,
) -> Result<Tensor> {
    record(out, &[x], || {
        node_saving(
            lam(name, move |g, s| {
                let sizes = s[0].size();
                let k = wins.len();
                let nd = sizes.len();
                // `gout / divide_factor` per output, as PyTorch's backward kernels divide
                let g = match div {
                    Divisor::Fixed(d) => g.div(d as f64)?,
                    _ => {
                        let mut f = Tensor::ones_with([1usize], DType::Float64)?;
                        for (j, w) in wins.iter().enumerate() {
                            let v: Vec<f64> = w
                                .iter()
                                .map(|w| match div {
                                    Divisor::Padded => w.padded as f64,
                                    _ => w.len() as f64,
                                })
                                .collect();
                            let mut shape = vec![1i64; j + 1];
                            shape[j] = v.len() as i64;
                            let col = Tensor::from_vec(v, [w.len()])?.view(shape)?;
                            f = if j == 0 {
                                col
                            } else {
                                f.unsqueeze(-1)?.mul(&col)?
                            };
                        }
                        g.div(&f.to(g.dtype())?)?
                    }
                };
                let mut r = g;
                for (j, w) in wins.iter().enumerate() {
                    let d = (nd - k + j) as i64;
                    r = window_adjoint(&r, d, w, sizes[nd - k + j])?;
                }
                Ok(vec![Some(r)])
            }),
            vec![Save::Input(x.alias())],
        )
    })
}

/// `max_unpool2d` (`MaxUnpool2DBackward0`): `g` gathered at `indices` (flat positions in
/// the output planes); saves the indices.
pub(crate) fn max_unpool(out: Tensor, x: &Tensor, indices: &Tensor) -> Result<Tensor> {
    record(out, &[x], || {
        node_saving(
            lam("MaxUnpool2DBackward0", move |g, s| {
                let idx = &s[0];
                let nd = idx.dim();
                let lead: usize = idx.size()[..nd - 2].iter().product();
                if idx.numel() == 0 {
                    return Ok(vec![Some(Tensor::zeros_with(idx.size(), g.dtype())?)]);
                }
                let gf = g.reshape([lead as i64, -1])?;
                let r = gf.gather(1, &idx.reshape([lead as i64, -1])?)?;
                Ok(vec![Some(r.reshape(idx.size())?)])
            }),
            vec![Save::Input(indices.alias())],
        )
    })
}

/// Finite differences for the formula tests of this family (conv, pool, resample).
#[cfg(test)]
pub(crate) mod fd {
    use crate::Tensor;

    /// A float64 tensor of `shape` with varied values (deterministic), optionally
    /// non-contiguous (a transposed copy viewed back).
    pub fn vals(shape: &[usize], seed: f64, noncontig: bool) -> Tensor {
        let n: usize = shape.iter().product();
        let v: Vec<f64> = (0..n)
            .map(|i| ((i as f64 + seed) * 1.618).sin() * 2.0 + (i as f64 * 0.1).cos() * 0.3)
            .collect();
        let t = Tensor::from_vec(v, shape).unwrap();
        if noncontig && shape.len() >= 2 {
            let d = shape.len() as i64;
            t.transpose(d - 2, d - 1)
                .unwrap()
                .contiguous()
                .transpose(d - 2, d - 1)
                .unwrap()
        } else {
            t
        }
    }

    /// Checks the gradients of `sum(f(xs) * g)` with respect to every `xs[i]` against
    /// central differences (float64, gradcheck's tolerances).
    pub fn check(xs: &[Tensor], f: impl Fn(&[Tensor]) -> crate::Result<Tensor>) {
        let leaves: Vec<Tensor> = xs
            .iter()
            .map(|x| {
                let l = x.detach();
                l.requires_grad_(true).unwrap();
                l
            })
            .collect();
        let y = f(&leaves).unwrap();
        let g = vals(y.size(), 0.5, false);
        y.backward_with(Some(&g), false).unwrap();
        let eps = 1e-6;
        for (k, x) in xs.iter().enumerate() {
            let an = leaves[k].grad().unwrap().contiguous().to_vec::<f64>();
            let base = x.contiguous().to_vec::<f64>();
            for i in 0..base.len() {
                let at = |d: f64| {
                    let mut v = base.clone();
                    v[i] += d;
                    let mut ins: Vec<Tensor> = xs.to_vec();
                    ins[k] = Tensor::from_vec(v, x.size()).unwrap();
                    let _ng = crate::no_grad();
                    let y = f(&ins).unwrap();
                    y.mul(&g).unwrap().sum().unwrap().item::<f64>().unwrap()
                };
                let num = (at(eps) - at(-eps)) / (2.0 * eps);
                assert!(
                    (num - an[i]).abs() <= 1e-5 + 1e-3 * num.abs(),
                    "input {k} element {i}: numeric {num} analytic {}",
                    an[i]
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fd::{check, vals};
    use crate::nn::functional as F;

    #[test]
    fn max_pool_scatters_to_argmax_and_names_nodes() {
        let x = vals(&[2, 2, 5, 4], 0.0, true);
        check(std::slice::from_ref(&x), |v| {
            F::max_pool2d_with(&v[0], 2, (1, 1, 1, true))
        });
        check(std::slice::from_ref(&x), |v| {
            F::max_pool2d_with(&v[0], [3, 2], ([2, 1], [1, 0], [1, 2]))
        });
        let l = x.detach();
        l.requires_grad_(true).unwrap();
        let y = F::max_pool2d(&l, 2).unwrap();
        assert_eq!(y.grad_fn().unwrap().name(), "MaxPool2DWithIndicesBackward0");
        // 1-d: unsqueeze, max_pool2d_with_indices, squeeze (PyTorch's composite)
        let y = F::max_pool1d(&l.select(0, 0).unwrap(), 2).unwrap();
        assert_eq!(y.grad_fn().unwrap().name(), "SqueezeBackward1");
        let x3 = vals(&[1, 2, 3, 4, 3], 1.0, false);
        check(&[x3], |v| F::max_pool3d_with(&v[0], 2, (1, 1)));
        // unbatched
        check(&[vals(&[2, 5, 5], 2.0, false)], |v| F::max_pool2d(&v[0], 2));
    }

    #[test]
    fn avg_pool_divisors_and_ceil_mode() {
        let x = vals(&[1, 2, 5, 6], 0.0, true);
        // count_include_pad, ceil_mode windows that end past the input, divisor_override
        for (ceil, incl, div) in [
            (false, true, None),
            (true, true, None),
            (true, false, None),
            (false, false, Some(3)),
        ] {
            let o = F::AvgPoolOpts {
                stride: Some([2].into_iter().collect()),
                padding: [1].into_iter().collect(),
                ceil_mode: ceil,
                count_include_pad: incl,
                divisor_override: div,
            };
            check(std::slice::from_ref(&x), |v| {
                F::avg_pool2d_with(&v[0], 3, o.clone())
            });
        }
        check(&[vals(&[2, 3, 7], 1.0, false)], |v| {
            F::avg_pool1d_with(&v[0], 3, (2, 1, true))
        });
        check(&[vals(&[1, 2, 3, 4, 5], 1.0, false)], |v| {
            F::avg_pool3d_with(&v[0], 2, (1, 1))
        });
    }

    #[test]
    fn adaptive_pools_and_unpool() {
        let x = vals(&[2, 2, 5, 7], 0.0, true);
        check(std::slice::from_ref(&x), |v| {
            F::adaptive_avg_pool2d(&v[0], [3, 4])
        });
        check(std::slice::from_ref(&x), |v| {
            F::adaptive_max_pool2d(&v[0], [2, 3])
        });
        check(&[vals(&[2, 7], 1.0, false)], |v| {
            F::adaptive_avg_pool1d(&v[0], 3)
        });
        check(&[vals(&[2, 3, 7], 1.0, false)], |v| {
            F::adaptive_max_pool1d(&v[0], 4)
        });
        let (_, idx) = F::max_pool2d_with_indices(&x, 2, 2).unwrap();
        let small = vals(idx.size(), 3.0, false);
        check(&[small], |v| {
            F::max_unpool2d_with(&v[0], &idx, 2, (2, 0, [5, 7]))
        });
        let l = x.detach();
        l.requires_grad_(true).unwrap();
        assert_eq!(
            F::adaptive_avg_pool2d(&l, [3, 4])
                .unwrap()
                .grad_fn()
                .unwrap()
                .name(),
            "AdaptiveAvgPool2DBackward0"
        );
    }

    #[test]
    fn lp_pool_composes() {
        let x = vals(&[1, 2, 4, 6], 0.0, false)
            .abs()
            .unwrap()
            .add(0.5)
            .unwrap();
        check(&[x], |v| F::lp_pool2d(&v[0], 2.0, 2));
    }
}
