//! Ops that write into a copy of `self` at indexed positions (spec §9.5): `scatter`,
//! `scatter_reduce`, `index_copy`, `index_fill`, `index_reduce`, `index_put` (and
//! `x[idx] = v`), `masked_scatter`, and `take` (whose backward is such a write).
//!
//! PyTorch's formulas (`derivatives.yaml`; `scatter_reduce_backward`,
//! `index_reduce_backward`, `masked_scatter_backward`, `take_backward` of
//! `FunctionsManual.cpp`), computed with tensile's own ops. The overwritten positions of
//! `self` get no gradient; a written source element gets the gradient of where it landed.
//! `scatter_reduce` and `index_reduce` share one formula ([`reduce_backward`]) over an
//! [`Axis`]: `gather`/`scatter_*` along `dim` or `index_select`/`index_*` along `dim`.

use super::super::node::Save;
use super::super::record::{node, node_saving, record};
use super::pointwise::lam;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// How a reduce op addresses `self` from `src`: element-wise along `dim` (`scatter_reduce`,
/// with an `index` shaped like `src`) or slice-wise (`index_reduce`, a 1-d `index`).
#[derive(Clone)]
pub(crate) struct Axis {
    /// `true`: `index_*` ops (slices); `false`: `scatter`/`gather` (elements).
    pub slices: bool,
    pub dim: i64,
    pub index: Tensor,
}

impl Axis {
    /// The values of `t` (shaped like `self`) at each source position: `gather` /
    /// `index_select`.
    fn pick(&self, t: &Tensor) -> Result<Tensor> {
        if self.slices {
            t.index_select(self.dim, &self.index)
        } else {
            t.gather(self.dim, &self.index)
        }
    }
    /// `base` with every source value added at its target: `scatter_add` / `index_add`.
    fn add_into(&self, base: &Tensor, src: &Tensor) -> Result<Tensor> {
        if self.slices {
            base.index_add(self.dim, &self.index, src)
        } else {
            base.scatter_add(self.dim, &self.index, src)
        }
    }
    /// The forward op itself: `scatter_reduce` / `index_reduce`.
    fn reduce(
        &self,
        base: &Tensor,
        src: &Tensor,
        reduce: &str,
        include_self: bool,
    ) -> Result<Tensor> {
        if self.slices {
            base.index_reduce_with(self.dim, &self.index, src, reduce, include_self)
        } else {
            base.scatter_reduce_with(self.dim, &self.index, src, reduce, include_self)
        }
    }
    /// `t` with every target position zeroed: `scatter(…, 0)` / `index_fill(…, 0)`.
    fn zero_targets(&self, t: &Tensor) -> Result<Tensor> {
        if self.slices {
            t.index_fill(self.dim, &self.index, 0.0)
        } else {
            t.scatter(self.dim, &self.index, 0.0)
        }
    }
}

/// `scatter_reduce_backward` / `index_reduce_backward` (PyTorch's `FunctionsManual.cpp`):
/// the gradients of `self` and `src` of `result = reduce(self, src)`.
///
/// * `sum`: `g`; `pick(g)`.
/// * `prod`: `self`: `g · R(self with 0→1) / (self with 0→1)`; `src`: where `src` is the only
///   zero sent to its target, `pick(g · R(self, src with that 0→1))`, else
///   `pick(g · result) / (src with 0→1)`.
/// * `mean`: `N` = the number of contributors of each target (self counted when
///   `include_self`, at least 1): `g / N`; `pick(g) / pick(N)`.
/// * `amax`/`amin`: the gradient is shared evenly by every contributor equal to the result.
///
/// Without `include_self` the targets' `self` gradient is then zeroed.
pub(crate) fn reduce_backward(
    ax: &Axis,
    g: &Tensor,
    self_: &Tensor,
    src: &Tensor,
    result: &Tensor,
    reduce: &str,
    include_self: bool,
) -> Result<(Tensor, Tensor)> {
    let dt = self_.dtype();
    let (gs, gsrc) = match reduce {
        "sum" => (g.alias(), ax.pick(g)?),
        "prod" => {
            let masked_self = self_.masked_fill(&self_.eq(0.0)?, 1.0)?;
            let masked_self_result = ax.reduce(&masked_self, src, reduce, include_self)?;
            let gs = g.mul(&masked_self_result)?.div(&masked_self)?;
            let src_zero = src.eq(0.0)?;
            let zeros_sent =
                ax.pick(&ax.add_into(&Tensor::zeros_like(self_)?, &src_zero.to(dt)?)?)?;
            let single_zero = src_zero.logical_and(&zeros_sent.eq(1.0)?)?;
            let masked_src = src.masked_fill(&single_zero, 1.0)?;
            let masked_src_result = ax.reduce(self_, &masked_src, reduce, include_self)?;
            let a = ax.pick(&g.mul(&masked_src_result)?)?;
            let b = ax
                .pick(&g.mul(result)?)?
                .div(&src.masked_fill(&src_zero, 1.0)?)?;
            (gs, crate::where_cond(&single_zero, &a, &b)?)
        }
        "mean" => {
            let n = if include_self {
                Tensor::ones_like(g)?
            } else {
                Tensor::zeros_like(g)?
            };
            let n = ax.add_into(&n, &Tensor::ones_like(src)?.to(g.dtype())?)?;
            let n = n.masked_fill(&n.eq(0.0)?, 1.0)?;
            (g.div(&n)?, ax.pick(g)?.div(&ax.pick(&n)?)?)
        }
        "amax" | "amin" | "max" | "min" => {
            let value = ax.pick(result)?;
            let self_is = self_.eq(result)?.to(dt)?;
            let src_is = src.eq(&value)?.to(dt)?;
            let n = ax.add_into(&self_is, &src_is)?;
            let distributed = g.div(&n)?;
            (
                self_is.mul(&distributed)?,
                src_is.mul(&ax.pick(&distributed)?)?,
            )
        }
        r => {
            return Err(Error::runtime(format!(
                "Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got {r}."
            )));
        }
    };
    let gs = if include_self {
        gs
    } else {
        ax.zero_targets(&gs)?
    };
    Ok((gs, gsrc))
}

/// `scatter_reduce(self, dim, index, src, reduce, include_self)` (`ScatterReduceBackward0`,
/// saving `self`, `src` and the result) and `index_reduce(…)` (`IndexReduceBackward0`):
/// [`reduce_backward`].
pub(crate) fn reduce_op(
    out: Tensor,
    x: &Tensor,
    ax: Axis,
    src: &Tensor,
    reduce: &str,
    include_self: bool,
) -> Result<Tensor> {
    let reduce = reduce.to_string();
    let name = if ax.slices {
        "IndexReduceBackward0"
    } else {
        "ScatterReduceBackward0"
    };
    record(out, &[x, src], || {
        node_saving(
            lam(name, move |g, s| {
                let (a, b) = reduce_backward(&ax, g, &s[0], &s[1], &s[2], &reduce, include_self)?;
                Ok(vec![Some(a), Some(b)])
            }),
            vec![
                Save::Input(x.alias()),
                Save::Input(src.alias()),
                Save::Output(0),
            ],
        )
    })
}

/// `scatter(self, dim, index, src)` (`ScatterBackward0`): `g.scatter(dim, index, 0)`;
/// `g.gather(dim, index)`. With a number `value` (`src == None`, `ScatterBackward1`): the
/// first only. The legacy `reduce=` forms have no derivative in PyTorch: their node
/// (`NotImplemented`) fails at backward with `derivative for aten::scatter is not
/// implemented`.
pub(crate) fn scatter(
    out: Tensor,
    x: &Tensor,
    dim: i64,
    index: &Tensor,
    src: Option<&Tensor>,
    legacy_reduce: bool,
) -> Result<Tensor> {
    let idx = index.alias();
    let mut ins = vec![x];
    if let Some(s) = src {
        ins.push(s);
    }
    let has_src = src.is_some();
    record(out, &ins, || {
        if legacy_reduce {
            return node(lam("NotImplemented", |_, _| {
                Err(Error::runtime(
                    "derivative for aten::scatter is not implemented",
                ))
            }));
        }
        node(lam(
            if has_src {
                "ScatterBackward0"
            } else {
                "ScatterBackward1"
            },
            move |g, _| {
                let mut r = vec![Some(g.scatter(dim, &idx, 0.0)?)];
                if has_src {
                    r.push(Some(g.gather(dim, &idx)?));
                }
                Ok(r)
            },
        ))
    })
}

/// `take(self, index)` (`TakeBackward0`, saving `self` as PyTorch does): `g` added at the
/// (wrapped) flat positions of a zero tensor shaped like `self`
/// (`zeros_like(self).put_(index, g, accumulate=True)`).
pub(crate) fn take(out: Tensor, x: &Tensor, index: &Tensor) -> Result<Tensor> {
    let idx = index.alias();
    record(out, &[x], || {
        node_saving(
            lam("TakeBackward0", move |g, s| {
                let size = s[0].size().to_vec();
                let n: usize = size.iter().product();
                let flat = idx.reshape(-1)?.remainder(n as i64)?;
                let z = Tensor::zeros_with([n], g.dtype())?;
                Ok(vec![Some(
                    z.index_add(0, &flat, &g.reshape(-1)?)?.reshape(&size[..])?,
                )])
            }),
            vec![Save::Input(x.alias())],
        )
    })
}

/// `g` with the slices `index` along `dim` zeroed (0-d `g`: zero when `index` is not empty).
fn fill_zero(g: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
    g.index_fill(dim, index, 0.0)
}

/// `index_copy(self, dim, index, source)` (`IndexCopyBackward0`, saving `source` as
/// PyTorch does): `g.index_fill(dim, index, 0)`; `g.index_select(dim, index)` (one element
/// for a 0-d `source`).
pub(crate) fn index_copy(
    out: Tensor,
    x: &Tensor,
    dim: i64,
    index: &Tensor,
    src: &Tensor,
) -> Result<Tensor> {
    let idx = index.alias();
    record(out, &[x, src], || {
        node_saving(
            lam("IndexCopyBackward0", move |g, saved| {
                let zero_d = saved[0].dim() == 0;
                let s = if g.dim() == 0 {
                    g.alias()
                } else {
                    g.index_select(dim, &idx.reshape(-1)?)?
                };
                let s = if zero_d {
                    s.reshape(Vec::<i64>::new())?
                } else {
                    s
                };
                Ok(vec![Some(fill_zero(g, dim, &idx)?), Some(s)])
            }),
            vec![Save::Input(src.alias())],
        )
    })
}

/// `index_fill(self, dim, index, value)`: a number `value` (`IndexFillBackward0`):
/// `g.index_fill(dim, index, 0)`; a tensor `value` (`IndexFillBackward1`) also gets
/// `g.index_select(dim, unique(index)).sum()` (each filled slice counted once; a negative
/// index fails at backward, as in PyTorch).
pub(crate) fn index_fill(
    out: Tensor,
    x: &Tensor,
    dim: i64,
    index: &Tensor,
    value: Option<&Tensor>,
) -> Result<Tensor> {
    let idx = index.alias();
    let mut ins = vec![x];
    if let Some(v) = value {
        ins.push(v);
    }
    let has_v = value.is_some();
    record(out, &ins, || {
        node(lam(
            if has_v {
                "IndexFillBackward1"
            } else {
                "IndexFillBackward0"
            },
            move |g, _| {
                let gx = fill_zero(g, dim, &idx)?;
                let mut r = vec![Some(gx.alias())];
                if has_v {
                    // PyTorch's `index_select(dim, _unique(index))`: a negative index then
                    // fails here as in PyTorch (`INDICES element is out of DATA bounds…`)
                    let u = idx.reshape(-1)?.unique()?;
                    let picked = if g.dim() == 0 {
                        g.alias()
                    } else {
                        g.index_select(dim, &u)?
                    };
                    r.push(Some(picked.sum()?));
                }
                Ok(r)
            },
        ))
    })
}

/// `masked_scatter(self, mask, source)` (`MaskedScatterBackward0`): `g.masked_fill(mask,
/// 0)`; `source`: `g.masked_select(mask)` padded with zeros to `source.numel()`, shaped like
/// `source` (`masked_scatter_backward`).
pub(crate) fn masked_scatter(
    out: Tensor,
    x: &Tensor,
    mask: &Tensor,
    src: &Tensor,
) -> Result<Tensor> {
    let m = mask.alias();
    let src_size = src.size().to_vec();
    record(out, &[x, src], || {
        node(lam("MaskedScatterBackward0", move |g, _| {
            let numel: usize = src_size.iter().product();
            let sel = g.masked_select(&m)?;
            let diff = numel - sel.numel().min(numel);
            let sel = if diff > 0 {
                crate::cat(&[sel, Tensor::zeros_with([diff], g.dtype())?])?
            } else {
                sel
            };
            Ok(vec![
                Some(g.masked_fill(&m, 0.0)?),
                Some(sel.reshape(&src_size[..])?),
            ])
        }))
    })
}

/// `index_put(self, indices, values, accumulate)` (`IndexPutBackward0`): `self`: `g` when
/// accumulating, else `g.index_put(indices, zeros_like(values))`; `values`: `g[indices]`
/// (summed to `values`' shape by the engine).
pub(crate) fn index_put(
    out: Tensor,
    x: &Tensor,
    indices: &[Option<Tensor>],
    values: &Tensor,
    accumulate: bool,
) -> Result<Tensor> {
    let ids: Vec<Option<Tensor>> = indices
        .iter()
        .map(|i| i.as_ref().map(|t| t.alias()))
        .collect();
    let vshape = values.size().to_vec();
    let vdtype = values.dtype();
    record(out, &[x, values], || {
        node(lam("IndexPutBackward0", move |g, _| {
            let gx = if accumulate {
                g.alias()
            } else {
                let z = Tensor::zeros_with(&vshape[..], vdtype)?.to(g.dtype())?;
                g.index_put_with(ids.clone(), &z, false)?
            };
            let gv = crate::ops::advindex::index_op(g, &ids)?;
            Ok(vec![Some(gx), Some(gv)])
        }))
    })
}

#[cfg(test)]
mod tests {
    use crate::Tensor;
    use crate::index::TensorIndex;

    fn leaf(v: &[f64], shape: &[usize]) -> Tensor {
        let t = Tensor::from_vec(v.to_vec(), shape).unwrap();
        t.requires_grad_(true).unwrap();
        t
    }
    fn it(v: &[i64]) -> Tensor {
        Tensor::from_vec(v.to_vec(), [v.len()]).unwrap()
    }
    fn name(t: &Tensor) -> String {
        t.grad_fn().unwrap().name().to_string()
    }
    fn grad(t: &Tensor) -> Vec<f64> {
        t.grad().unwrap().to_vec::<f64>()
    }

    /// `x[idx] = v` records as PyTorch's `__setitem__` does: a tensor value is an
    /// `index_put_` (`IndexPutBackward0`), a number with one int64 index an `index_fill_`,
    /// with one mask a `masked_fill_`; the overwritten elements get no gradient.
    #[test]
    fn setitem_records_pytorchs_node() {
        let a = leaf(&[1.0; 12], &[4, 3]);
        let v = leaf(&[1.0, 2.0, 3.0], &[3]);
        let x = a.mul(1.0).unwrap();
        x.index_set_(&[TensorIndex::Tensor(it(&[0, 2]))], &v)
            .unwrap();
        assert_eq!(name(&x), "IndexPutBackward0");
        x.sum().unwrap().backward().unwrap();
        assert_eq!(grad(&a), [0., 0., 0., 1., 1., 1., 0., 0., 0., 1., 1., 1.]);
        assert_eq!(grad(&v), [2.0, 2.0, 2.0]);
        let x = a.mul(1.0).unwrap();
        x.index_set_(&[TensorIndex::Tensor(it(&[0, 2]))], 1.0)
            .unwrap();
        assert_eq!(name(&x), "IndexFillBackward0");
        let m = Tensor::from_vec(vec![true, false, true, false], [4]).unwrap();
        let x = a.mul(1.0).unwrap();
        x.index_set_(&[TensorIndex::Tensor(m)], 1.0).unwrap();
        assert_eq!(name(&x), "MaskedFillBackward0");
    }

    /// `index_put(accumulate=True)`: `self` keeps its whole gradient; duplicate indices
    /// send their gradient to the value once per use.
    #[test]
    fn index_put_accumulate_keeps_self_gradient() {
        let a = leaf(&[0.0; 4], &[4]);
        let v = leaf(&[1.0, 2.0], &[2]);
        let y = a
            .index_put_with([&it(&[1, 1])], &v, crate::IndexPutOpts { accumulate: true })
            .unwrap();
        assert_eq!(name(&y), "IndexPutBackward0");
        let g = Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0], [4]).unwrap();
        y.backward_with(Some(&g), false).unwrap();
        assert_eq!(grad(&a), [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(grad(&v), [2.0, 2.0]);
    }

    /// `scatter_reduce` `amax`: ties share the gradient evenly (PyTorch:
    /// `x.grad = [[.5, .5, 1], [1, 1, 1]]`, `src.grad = [[.5, .5], [0, 0]]`); `prod` with a
    /// single zero sent to a target gives that zero the product of the others.
    #[test]
    fn scatter_reduce_ties_and_zeros() {
        let x = leaf(&[1., 5., 2., 3., 0., 4.], &[2, 3]);
        let s = leaf(&[5., 1., 2., 2.], &[2, 2]);
        let i = Tensor::from_vec(vec![1i64, 0, 2, 2], [2, 2]).unwrap();
        let y = x.scatter_reduce(1, &i, &s, "amax").unwrap();
        assert_eq!(name(&y), "ScatterReduceBackward0");
        y.sum().unwrap().backward().unwrap();
        assert_eq!(grad(&x), [0.5, 0.5, 1., 1., 1., 1.]);
        assert_eq!(grad(&s), [0.5, 0.5, 0., 0.]);
        let x = leaf(&[1., 5., 2., 3., 0., 4.], &[2, 3]);
        let s = leaf(&[0., 3., 0., 2.], &[2, 2]);
        let y = x.scatter_reduce(1, &i, &s, "prod").unwrap();
        y.sum().unwrap().backward().unwrap();
        assert_eq!(grad(&x), [3., 0., 1., 1., 1., 0.]);
        assert_eq!(grad(&s), [5., 1., 8., 0.]);
        // mean without self: self's targets get nothing, sources share by count
        let x = leaf(&[1., 5., 2., 3., 0., 4.], &[2, 3]);
        let s = leaf(&[5., 1., 2., 2.], &[2, 2]);
        let y = x
            .scatter_reduce_with(
                1,
                &i,
                &s,
                "mean",
                crate::ScatterReduceOpts {
                    include_self: false,
                },
            )
            .unwrap();
        y.sum().unwrap().backward().unwrap();
        assert_eq!(grad(&x), [0., 0., 1., 1., 1., 0.]);
        assert_eq!(grad(&s), [1., 1., 0.5, 0.5]);
    }

    /// `scatter(…, reduce=…)` has no derivative in PyTorch: the error comes at backward.
    #[test]
    fn legacy_scatter_reduce_is_not_differentiable() {
        let x = leaf(&[1.0; 4], &[4]);
        let y = x
            .scatter_with(
                0,
                &it(&[1]),
                2.0,
                crate::ScatterOpts {
                    reduce: Some("add"),
                },
            )
            .unwrap();
        assert_eq!(name(&y), "NotImplemented");
        let e = y.sum().unwrap().backward().unwrap_err();
        assert_eq!(
            e.message(),
            "derivative for aten::scatter is not implemented"
        );
    }

    /// `take`: negative indices wrap and duplicates accumulate (PyTorch: `[[3, 0, 0], [0, 0,
    /// 3]]` for indices `[-1, 5, 0]` and gradient `[1, 2, 3]`); `index_fill` with a tensor
    /// value sums each filled slice once.
    #[test]
    fn take_and_index_fill_value() {
        let x = leaf(&[1., 5., 2., 3., 0., 4.], &[2, 3]);
        let y = x.take(&it(&[-1, 5, 0])).unwrap();
        assert_eq!(name(&y), "TakeBackward0");
        let g = Tensor::from_vec(vec![1., 2., 3.], [3]).unwrap();
        y.backward_with(Some(&g), false).unwrap();
        assert_eq!(grad(&x), [3., 0., 0., 0., 0., 3.]);
        let v = leaf(&[2.0], &[]);
        let y = x.index_fill(1, &it(&[0, 2, 2]), &v).unwrap();
        assert_eq!(name(&y), "IndexFillBackward1");
        let g = Tensor::from_vec(vec![0., 1., 2., 3., 4., 5.], [2, 3]).unwrap();
        y.backward_with(Some(&g), false).unwrap();
        assert_eq!(grad(&v), [10.0]);
    }

    /// The in-place forms on a non-leaf rebase it onto the op's own node (PyTorch:
    /// `ScatterBackward0`, `IndexCopyBackward0`, `IndexAddBackward0`, `ScatterAddBackward0`,
    /// `IndexPutBackward0`, `MaskedScatterBackward0`), bump the version once, and are refused
    /// on a leaf that requires grad.
    #[test]
    fn inplace_forms_record_their_node() {
        let a = leaf(&[1.0; 6], &[2, 3]);
        let s = leaf(&[2.0; 6], &[2, 3]);
        let i2 = Tensor::from_vec(vec![0i64, 2], [1, 2]).unwrap();
        type Op<'a> = Box<dyn Fn(&Tensor) -> crate::Result<Tensor> + 'a>;
        let cases: Vec<(&str, Op)> = vec![
            (
                "ScatterBackward0",
                Box::new(|x| x.scatter_(1, &i2, &s.narrow(1, 0, 2)?)),
            ),
            (
                "ScatterAddBackward0",
                Box::new(|x| x.scatter_add_(1, &i2, &s.narrow(1, 0, 2)?)),
            ),
            (
                "IndexCopyBackward0",
                Box::new(|x| x.index_copy_(1, &it(&[2, 0]), &s.narrow(1, 0, 2)?)),
            ),
            (
                "IndexAddBackward0",
                Box::new(|x| x.index_add_(1, &it(&[2, 0]), &s.narrow(1, 0, 2)?)),
            ),
            (
                "IndexPutBackward0",
                Box::new(|x| x.index_put_([&it(&[1])], &s.select(0, 0)?)),
            ),
            (
                "MaskedScatterBackward0",
                Box::new(|x| {
                    x.masked_scatter_(&Tensor::from_vec(vec![true, false, true], [3])?, &s)
                }),
            ),
        ];
        for (node, f) in &cases {
            let x = a.mul(1.0).unwrap();
            let v = x.version();
            f(&x).unwrap();
            assert_eq!(name(&x), *node);
            assert_eq!(x.version(), v + 1, "{node}");
            let e = f(&a).unwrap_err();
            assert_eq!(
                e.message(),
                "a leaf Variable that requires grad is being used in an in-place operation."
            );
        }
    }

    /// A saved `self` of `scatter_reduce` modified in place makes backward fail (spec §3.4).
    #[test]
    fn scatter_reduce_checks_saved_versions() {
        let a = leaf(&[1., 2., 3.], &[3]);
        let x = a.mul(1.0).unwrap();
        let s = leaf(&[4.], &[1]);
        let y = x.scatter_reduce(0, &it(&[1]), &s, "prod").unwrap();
        x.add_(1.0).unwrap();
        let e = y.sum().unwrap().backward().unwrap_err();
        assert!(
            e.message().starts_with("one of the variables needed for gradient computation has been modified by an inplace operation"),
            "{}",
            e.message()
        );
    }
}
