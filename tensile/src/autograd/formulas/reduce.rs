//! Reductions (spec §9.3): the gradient expanded back over the reduced dims.

use super::super::node::Save;
use super::super::record::{node, node_saving, record, record_multi};
use super::pointwise::{lam, map_n};
#[allow(unused_imports)]
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// `g` with the reduced `dims` put back (size 1) when `keepdim` was false, expanded to
/// `sizes`.
pub(crate) fn expand_back(
    g: &Tensor,
    sizes: &[usize],
    dims: &[usize],
    keepdim: bool,
) -> Result<Tensor> {
    if sizes.is_empty() {
        // a 0-d input (its dim 0 "reduced"): the gradient is 0-d too
        return g.reshape(Vec::<i64>::new());
    }
    let mut g = g.alias();
    if !keepdim {
        let mut ds = dims.to_vec();
        ds.sort_unstable();
        for d in ds {
            g = g.unsqueeze(d as i64)?;
        }
    }
    g.expand(sizes)
}

/// The reduced dims, wrapped (an empty list means every dim, as PyTorch's `dim=[]`).
pub(crate) fn wrap_dims(x: &Tensor, dims: &[i64]) -> Vec<usize> {
    let n = x.dim() as i64;
    if dims.is_empty() {
        return (0..x.dim()).collect();
    }
    dims.iter()
        .map(|&d| (if d < 0 { d + n.max(1) } else { d }) as usize)
        .filter(|&d| d < x.dim().max(1))
        .collect()
}

/// `sum()` (`SumBackward0`), `sum(dims, keepdim)` (`SumBackward1`), `nansum`
/// (`NansumBackward0`: zero where the input is NaN).
pub(crate) fn sum(
    out: Tensor,
    x: &Tensor,
    dims: Option<(&[i64], bool)>,
    nan: bool,
) -> Result<Tensor> {
    if !crate::autograd::api::any_requires_grad(&[x]) {
        return Ok(out);
    }
    let sizes: Vec<usize> = x.size().to_vec();
    let (ds, keep) = match dims {
        None => ((0..x.dim()).collect::<Vec<_>>(), false),
        Some((d, k)) => (wrap_dims(x, d), k),
    };
    let name = match (nan, dims.is_some()) {
        (true, _) => "NansumBackward0",
        (false, false) => "SumBackward0",
        (false, true) => "SumBackward1",
    };
    record(out, &[x], || {
        if nan {
            node_saving(
                lam(name, move |g, s| {
                    let e = expand_back(g, &sizes, &ds, keep)?;
                    Ok(vec![Some(map_n(&[&e, &s[0]], g.dtype(), |v| {
                        if v[1].is_nan() { 0.0 } else { v[0] }
                    })?)])
                }),
                vec![Save::Input(x.alias())],
            )
        } else {
            node(lam(name, move |g, _| {
                Ok(vec![Some(expand_back(g, &sizes, &ds, keep)?)])
            }))
        }
    })
}

/// `mean()` (`MeanBackward0`), `mean(dims, keepdim)` (`MeanBackward1`): `g / N`.
pub(crate) fn mean(out: Tensor, x: &Tensor, dims: Option<(&[i64], bool)>) -> Result<Tensor> {
    if !crate::autograd::api::any_requires_grad(&[x]) {
        return Ok(out);
    }
    let sizes: Vec<usize> = x.size().to_vec();
    let (ds, keep) = match dims {
        None => ((0..x.dim()).collect::<Vec<_>>(), false),
        Some((d, k)) => (wrap_dims(x, d), k),
    };
    let n: usize = ds
        .iter()
        .map(|&d| sizes.get(d).copied().unwrap_or(1))
        .product();
    let name = if dims.is_some() {
        "MeanBackward1"
    } else {
        "MeanBackward0"
    };
    record(out, &[x], || {
        node(lam(name, move |g, _| {
            Ok(vec![Some(expand_back(
                &g.div(n as f64)?,
                &sizes,
                &ds,
                keep,
            )?)])
        }))
    })
}

/// `x`'s flat indices grouped by reduction slice (`dims` reduced).
fn groups(sizes: &[usize], dims: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = sizes.iter().product();
    let mut keep_strides = vec![0usize; sizes.len()];
    let mut acc = 1;
    for d in (0..sizes.len()).rev() {
        if !dims.contains(&d) {
            keep_strides[d] = acc;
            acc *= sizes[d];
        }
    }
    let mut out = vec![Vec::new(); acc.max(1)];
    let mut idx = vec![0usize; sizes.len()];
    for i in 0..n {
        let key: usize = idx.iter().zip(&keep_strides).map(|(a, b)| a * b).sum();
        out[key].push(i);
        for d in (0..sizes.len()).rev() {
            idx[d] += 1;
            if idx[d] < sizes[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

fn wrap_opt(x: &Tensor, dims: Option<&[i64]>) -> Vec<usize> {
    match dims {
        None => (0..x.dim()).collect(),
        Some(d) => wrap_dims(x, d),
    }
}

fn t64(v: Vec<f64>, sizes: &[usize], like: &Tensor) -> Result<Tensor> {
    Tensor::from_vec(v, sizes)?.to(like.dtype())
}

/// `prod()` (`ProdBackward0`) / `prod(dim, keepdim)` (`ProdBackward1`): spec §9.3's zero rule.
pub(crate) fn prod(out: Tensor, x: &Tensor, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
    if !crate::autograd::api::any_requires_grad(&[x]) {
        return Ok(out);
    }
    let sizes = x.size().to_vec();
    let dims = match dim {
        None => (0..x.dim()).collect::<Vec<_>>(),
        Some(d) => wrap_dims(x, &[d]),
    };
    let keep = dim.is_some() && keepdim;
    let name = if dim.is_some() {
        "ProdBackward1"
    } else {
        "ProdBackward0"
    };
    record(out, &[x], || {
        node_saving(
            lam(name, move |g, s| {
                let ge = expand_back(g, &sizes, &dims, keep)?.try_to_vec::<f64>()?;
                let xv = s[0].try_to_vec::<f64>()?;
                let mut r = vec![0.0; xv.len()];
                for grp in groups(&sizes, &dims) {
                    let zeros = grp.iter().filter(|&&i| xv[i] == 0.0).count();
                    let nz: f64 = grp
                        .iter()
                        .filter(|&&i| xv[i] != 0.0)
                        .map(|&i| xv[i])
                        .product();
                    let all: f64 = grp.iter().map(|&i| xv[i]).product();
                    for &i in &grp {
                        r[i] = ge[i]
                            * match zeros {
                                0 => all / xv[i],
                                1 if xv[i] == 0.0 => nz,
                                _ => 0.0,
                            };
                    }
                }
                Ok(vec![Some(t64(r, &sizes, g)?)])
            }),
            vec![Save::Input(x.alias())],
        )
    })
}

/// `amax`/`amin(dims)` (`AmaxBackward0`, `AminBackward0`): `g` split evenly among the
/// elements equal to the result (a NaN result gives NaN); `max()`/`min()` (`MaxBackward1`,
/// `MinBackward1`): the same, a NaN result split among the NaN elements.
pub(crate) fn extremum(
    out: Tensor,
    x: &Tensor,
    dims: &[i64],
    keepdim: bool,
    name: &'static str,
) -> Result<Tensor> {
    if !crate::autograd::api::any_requires_grad(&[x]) {
        return Ok(out);
    }
    let sizes = x.size().to_vec();
    let ds = wrap_dims(x, dims);
    let full = name.ends_with('1');
    record(out, &[x], || {
        node_saving(
            lam(name, move |g, s| {
                let ge = expand_back(g, &sizes, &ds, keepdim)?.try_to_vec::<f64>()?;
                let re = expand_back(&s[1], &sizes, &ds, keepdim)?.try_to_vec::<f64>()?;
                let xv = s[0].try_to_vec::<f64>()?;
                let mut r = vec![0.0; xv.len()];
                for grp in groups(&sizes, &ds) {
                    let hit =
                        |i: usize| xv[i] == re[i] || (full && re[i].is_nan() && xv[i].is_nan());
                    let cnt = grp.iter().filter(|&&i| hit(i)).count() as f64;
                    for &i in &grp {
                        r[i] = if hit(i) {
                            ge[i] / cnt
                        } else if cnt == 0.0 {
                            f64::NAN
                        } else {
                            0.0
                        };
                    }
                }
                Ok(vec![Some(t64(r, &sizes, g)?)])
            }),
            vec![Save::Input(x.alias()), Save::Output(0)],
        )
    })
}

/// `median()` (`MedianBackward0`), `nanmedian()` (`NanmedianBackward0`), PyTorch's
/// `evenly_distribute_backward`: `g / count` on the elements equal to the result (a NaN
/// result: on the NaN elements), zero elsewhere. Saves `x` and the result.
pub(crate) fn evenly_distribute(out: Tensor, x: &Tensor, name: &'static str) -> Result<Tensor> {
    record(out, &[x], || {
        node_saving(
            lam(name, |g, s| {
                let (x, r) = (&s[0], &s[1]);
                let mask = if r.isnan()?.item::<bool>()? {
                    x.isnan()?
                } else {
                    x.eq(r)?
                };
                let share = g.div(&mask.sum()?)?;
                let z = Tensor::zeros_with(x.size(), g.dtype())?;
                Ok(vec![Some(z.masked_fill(&mask, &share)?)])
            }),
            vec![Save::Input(x.alias()), Save::Output(0)],
        )
    })
}

/// `median(dim)` (`MedianBackward1`), `nanmedian(dim)` (`NanmedianBackward1`), `kthvalue`
/// (`KthvalueBackward0`), PyTorch's `value_selecting_reduction_backward`: all of `g` to the
/// returned index, `zeros(x.shape).scatter(dim, indices, g)` (`g` and the indices unsqueezed
/// at `dim` without `keepdim`). `dim` is wrapped. Saves the indices (output 1); the indices
/// output is integer, so not differentiable.
pub(crate) fn value_selecting(
    name: &'static str,
    (values, indices): (Tensor, Tensor),
    x: &Tensor,
    dim: usize,
    keepdim: bool,
) -> Result<(Tensor, Tensor)> {
    let sizes = x.size().to_vec();
    let mut v = record_multi(vec![values, indices], &[x], || {
        node_saving(
            lam(name, move |g, s| {
                if sizes.is_empty() {
                    // a 0-d input: the value is the input itself
                    return Ok(vec![Some(g.reshape(Vec::<i64>::new())?)]);
                }
                let d = dim as i64;
                let (g, idx) = if keepdim {
                    (g.alias(), s[0].alias())
                } else {
                    (g.unsqueeze(d)?, s[0].unsqueeze(d)?)
                };
                let z = Tensor::zeros_with(&sizes[..], g.dtype())?;
                Ok(vec![Some(z.scatter(d, &idx, &g)?)])
            }),
            vec![Save::Output(1)],
        )
    })?;
    let i = v.pop().expect("two outputs");
    let val = v.pop().expect("two outputs");
    Ok((val, i))
}

/// `logsumexp(dims)` (`LogsumexpBackward0`): `g·exp(x - r)`.
pub(crate) fn logsumexp(out: Tensor, x: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    if !crate::autograd::api::any_requires_grad(&[x]) {
        return Ok(out);
    }
    let sizes = x.size().to_vec();
    let ds = wrap_dims(x, dims);
    record(out, &[x], || {
        node_saving(
            lam("LogsumexpBackward0", move |g, s| {
                let ge = expand_back(g, &sizes, &ds, keepdim)?;
                let re = expand_back(&s[1], &sizes, &ds, keepdim)?;
                Ok(vec![Some(map_n(&[&ge, &s[0], &re], g.dtype(), |v| {
                    v[0] * (v[1] - v[2]).exp()
                })?)])
            }),
            vec![Save::Input(x.alias()), Save::Output(0)],
        )
    })
}

/// `softmax(d)` (`SoftmaxBackward0`): `r·(g - Σ_d g·r)`; `log_softmax(d)`
/// (`LogSoftmaxBackward0`): `g - exp(r)·Σ_d g`.
pub(crate) fn softmax(out: Tensor, x: &Tensor, dim: i64, log: bool) -> Result<Tensor> {
    if !crate::autograd::api::any_requires_grad(&[x]) {
        return Ok(out);
    }
    let d = if x.dim() == 0 {
        0
    } else {
        wrap_dims(x, &[dim])[0]
    } as i64;
    let zero_d = x.dim() == 0;
    record(out, &[x], || {
        node_saving(
            lam(
                if log {
                    "LogSoftmaxBackward0"
                } else {
                    "SoftmaxBackward0"
                },
                move |g, s| {
                    let r = &s[0];
                    let sum = |t: &Tensor| {
                        if zero_d {
                            Ok(t.alias())
                        } else {
                            t.sum_dim(d, true)
                        }
                    };
                    if g.dtype() == DType::Float32 && r.dtype() == DType::Float32 {
                        // float32 as PyTorch's `(log_)softmax_backward_data` kernels: in float
                        let res = if log {
                            g.sub(&r.exp()?.mul(&sum(g)?)?)?
                        } else {
                            r.mul(&g.sub(&sum(&g.mul(r)?)?)?)?
                        };
                        return Ok(vec![Some(res)]);
                    }
                    let res = if log {
                        let sg = sum(g)?;
                        map_n(&[g, r, &sg], g.dtype(), |v| v[0] - v[1].exp() * v[2])?
                    } else {
                        let sg = sum(&map_n(&[g, r], g.dtype(), |v| v[0] * v[1])?)?;
                        map_n(&[g, r, &sg], g.dtype(), |v| v[1] * (v[0] - v[2]))?
                    };
                    Ok(vec![Some(res)])
                },
            ),
            vec![Save::Output(0)],
        )
    })
}

/// `var`/`std(dims, correction)` (`VarBackward0`/`StdBackward0`): `g·2(x-mean)/(N-c)`;
/// `g·(x-mean)/((N-c)·r)`, 0 where `r == 0`.
pub(crate) fn var(
    out: Tensor,
    x: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    correction: f64,
    std: bool,
) -> Result<Tensor> {
    if !crate::autograd::api::any_requires_grad(&[x]) {
        return Ok(out);
    }
    let sizes = x.size().to_vec();
    let ds = wrap_opt(x, dims);
    let ds = if ds.is_empty() && dims.is_some_and(|d| d.is_empty()) {
        (0..x.dim()).collect()
    } else {
        ds
    };
    record(out, &[x], || {
        node_saving(
            lam(
                if std { "StdBackward0" } else { "VarBackward0" },
                move |g, s| {
                    let ge = expand_back(g, &sizes, &ds, keepdim)?.try_to_vec::<f64>()?;
                    let re = expand_back(&s[1], &sizes, &ds, keepdim)?.try_to_vec::<f64>()?;
                    let xv = s[0].try_to_vec::<f64>()?;
                    let mut r = vec![0.0; xv.len()];
                    for grp in groups(&sizes, &ds) {
                        let n = grp.len() as f64;
                        let mean = grp.iter().map(|&i| xv[i]).sum::<f64>() / n;
                        for &i in &grp {
                            r[i] = if std {
                                if re[i] == 0.0 {
                                    0.0
                                } else {
                                    ge[i] * (xv[i] - mean) / ((n - correction) * re[i])
                                }
                            } else {
                                ge[i] * 2.0 * (xv[i] - mean) / (n - correction)
                            };
                        }
                    }
                    Ok(vec![Some(t64(r, &sizes, g)?)])
                },
            ),
            vec![Save::Input(x.alias()), Save::Output(0)],
        )
    })
}

/// `cumsum(d)` (`CumsumBackward0`): the reversed cumsum of `g`; `cumprod(d)`
/// (`CumprodBackward0`): the exact derivative, valid with zeros.
pub(crate) fn cum(out: Tensor, x: &Tensor, dim: i64, prod: bool) -> Result<Tensor> {
    if !crate::autograd::api::any_requires_grad(&[x]) {
        return Ok(out);
    }
    let sizes = x.size().to_vec();
    let zero_d = x.dim() == 0;
    let d = if zero_d { 0 } else { wrap_dims(x, &[dim])[0] };
    record(out, &[x], || {
        if !prod {
            return node(lam("CumsumBackward0", move |g, _| {
                if zero_d {
                    return Ok(vec![Some(g.alias())]);
                }
                Ok(vec![Some(
                    g.flip(d as i64)?.cumsum(d as i64)?.flip(d as i64)?,
                )])
            }));
        }
        node_saving(
            lam("CumprodBackward0", move |g, s| {
                let gv = g.try_contiguous()?.try_to_vec::<f64>()?;
                let xv = s[0].try_to_vec::<f64>()?;
                let mut r = vec![0.0; xv.len()];
                let ds: Vec<usize> = if zero_d { vec![] } else { vec![d] };
                for grp in groups(&sizes, &ds) {
                    let n = grp.len();
                    for i in 0..n {
                        let mut acc = 0.0;
                        for j in i..n {
                            let mut p = 1.0;
                            for k in 0..=j {
                                if k != i {
                                    p *= xv[grp[k]];
                                }
                            }
                            acc += gv[grp[j]] * p;
                        }
                        r[grp[i]] = acc;
                    }
                }
                Ok(vec![Some(t64(r, &sizes, g)?)])
            }),
            vec![Save::Input(x.alias())],
        )
    })
}

#[cfg(test)]
mod median_tests {
    use crate::Tensor;

    fn leaf(v: &[f64], shape: &[usize]) -> Tensor {
        let t = Tensor::from_vec(v.to_vec(), shape).unwrap();
        t.requires_grad_(true).unwrap();
        t
    }

    /// Full `median`/`nanmedian`: `g` split evenly among the elements equal to the result;
    /// a NaN result splits it among the NaNs (torch 2.15's values).
    #[test]
    fn full_median_splits_evenly() {
        let nan = f64::NAN;
        let cases: [(&[f64], bool, &[f64]); 3] = [
            (
                &[1.0, 3.0, 2.0, 2.0, 5.0],
                false,
                &[0.0, 0.0, 0.5, 0.5, 0.0],
            ),
            (&[1.0, nan, 3.0, nan], false, &[0.0, 0.5, 0.0, 0.5]),
            (&[1.0, nan, 2.0, 2.0, nan], true, &[0.0, 0.0, 0.5, 0.5, 0.0]),
        ];
        for (v, nan_aware, want) in cases {
            let x = leaf(v, &[v.len()]);
            let m = if nan_aware { x.nanmedian() } else { x.median() }.unwrap();
            let n = if nan_aware {
                "NanmedianBackward0"
            } else {
                "MedianBackward0"
            };
            assert_eq!(m.grad_fn().unwrap().name(), n);
            m.backward().unwrap();
            assert_eq!(x.grad().unwrap().to_vec::<f64>(), want);
        }
    }

    /// `median(dim)` / `kthvalue`: all of `g` to the returned index, with and without
    /// `keepdim` (torch: `[4,1,3,2]`'s lower median is 2 at index 3).
    #[test]
    fn value_selecting_scatters_to_the_index() {
        let x = leaf(&[4.0, 1.0, 3.0, 2.0, 0.0, 5.0, 5.0, 1.0], &[2, 4]);
        let (v, i) = x.median_dim(1, false).unwrap();
        assert_eq!(v.grad_fn().unwrap().name(), "MedianBackward1");
        assert_eq!(i.to_vec::<i64>(), [3, 3]);
        let g = Tensor::from_vec(vec![1.0, 2.0], [2]).unwrap();
        v.backward_with(Some(&g), false).unwrap();
        assert_eq!(
            x.grad().unwrap().to_vec::<f64>(),
            [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 2.0]
        );
        let x = leaf(&[4.0, 1.0, 3.0, 2.0, 0.0, 5.0, 5.0, 1.0], &[2, 4]);
        let (v, _) = x.kthvalue_with(2, (0, true)).unwrap();
        assert_eq!(v.grad_fn().unwrap().name(), "KthvalueBackward0");
        v.backward_with(
            Some(&Tensor::ones_like(&v).unwrap().mul(3.0).unwrap()),
            false,
        )
        .unwrap();
        assert_eq!(
            x.grad().unwrap().to_vec::<f64>(),
            [3.0, 0.0, 0.0, 3.0, 0.0, 3.0, 3.0, 0.0]
        );
        let x = leaf(&[1.0, f64::NAN, 2.0], &[3]);
        let (v, _) = x.nanmedian_dim(0, true).unwrap();
        assert_eq!(v.grad_fn().unwrap().name(), "NanmedianBackward1");
    }
}
