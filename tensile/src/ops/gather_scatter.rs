//! `gather`, `scatter` (src / value / legacy `reduce=`), `scatter_add`, `scatter_reduce`,
//! `take` and `take_along_dim`, with PyTorch's check order and error texts
//! (indexing-semantics §5.1–5.4, §5.7). Results are fresh and contiguous; the in-place forms
//! write through views into the base and return an alias of `self`.
//!
//! The values move along the dim in [`crate::kernels::scatter`] (float16 and bfloat16 are
//! computed in float32 and rounded back after every step, as PyTorch's scalar kernels do),
//! over the operands' own strides; the dtype is chosen once per call.
//!
//! The methods of `gather`, `scatter`, `scatter_add`, `scatter_reduce` and `take` and their
//! recording are in [`crate::optable::scatter`]; here are their forward functions
//! (`take_along_dim`, which only calls `gather`, stays here).

use crate::args::Int;
use crate::dim::wrap_dim;
use crate::dtype::DType;
use crate::error::{Error, Result, fmt_list};
use crate::kernels::scatter::{Reduce, first_out_of_range, gather_along, scatter_along};
use crate::layout::contiguous_strides;
use crate::ops::Operand;
use crate::tensor::{Scalar, Tensor};

/// Sizes with a 0-d tensor read as `(1,)` (PyTorch's `ensure_nonempty_size`).
pub(crate) fn nonempty(sizes: &[usize]) -> Vec<usize> {
    if sizes.is_empty() {
        vec![1]
    } else {
        sizes.to_vec()
    }
}

/// A scalar converted to `dt` as PyTorch's checked `Scalar::to<T>()` does (`value cannot be
/// converted to type int8_t without overflow`), as a 0-d tensor.
pub(crate) fn scalar_as(value: Scalar, dt: DType) -> Result<Tensor> {
    let t = Tensor::empty_with((), dt)?;
    t.fill_(value)?;
    Ok(t)
}

/// The value of a one-element tensor as a [`Scalar`] of its kind (`item()`).
pub(crate) fn item_scalar(t: &Tensor) -> Result<Scalar> {
    Ok(match t.dtype {
        DType::Bool => Scalar::Bool(t.item::<bool>()?),
        d if d.is_floating_point() => Scalar::Float(t.item::<f64>()?),
        _ => Scalar::Int(t.item::<i64>()?),
    })
}

/// `t`'s strides (elements) as an operand of rank `rank`: a 0-d tensor repeats its value
/// (strides 0).
pub(crate) fn strides_in(t: &Tensor, rank: usize) -> Result<Vec<usize>> {
    if t.dim() == 0 {
        Ok(vec![0; rank])
    } else if t.dim() == rank {
        Ok(t.strides.to_vec())
    } else {
        Err(Error::runtime("internal error: operand rank along a dim"))
    }
}

/// `index` as a contiguous int64 tensor (a no-op for a contiguous int64 one).
pub(crate) fn index_i64(index: &Tensor) -> Result<Tensor> {
    let i = if index.dtype == DType::Int64 {
        index.alias()
    } else {
        index.to(DType::Int64)?
    };
    contiguous_unrecorded(&i)
}

/// `t` itself when contiguous, else a contiguous copy (not recorded for autograd).
pub(crate) fn contiguous_unrecorded(t: &Tensor) -> Result<Tensor> {
    if t.is_contiguous() {
        Ok(t.alias())
    } else {
        t.contiguous_copy()
    }
}

/// `index` as an int64 tensor: itself (any strides: an expanded index is not copied) when
/// it is int64, else a contiguous int64 copy.
pub(crate) fn index_i64_strided(index: &Tensor) -> Result<Tensor> {
    if index.dtype == DType::Int64 {
        Ok(index.alias())
    } else {
        index.to(DType::Int64)?.contiguous_copy()
    }
}

/// The first value of an int64 `index` outside `[0, size)`, in row-major order. A strided
/// index is checked through its distinct elements (a dim of stride 0 read once: the first
/// bad position in row-major order has coordinate 0 there), copied contiguous first when
/// they are not.
pub(crate) fn first_bad(index: &Tensor, size: usize) -> Result<Option<i64>> {
    let distinct;
    let index = if index.is_contiguous() {
        index
    } else {
        let sizes: Vec<usize> = (index.sizes.iter().zip(index.strides.iter()))
            .map(|(&n, &st)| if st == 0 { n.min(1) } else { n })
            .collect();
        distinct =
            contiguous_unrecorded(&index.view_with(sizes, index.strides.to_vec(), index.offset))?;
        &distinct
    };
    crate::iter::dense(&[], &[index], |s| {
        Ok(first_out_of_range(s.input::<i64>(0)?, size))
    })
}

/// `this`'s values as a fresh contiguous tensor with `src` scattered along `d` at `index`
/// (int64, every value checked in `[0, size)` by the caller) by `r`
/// ([`crate::kernels::scatter::scatter_along`]): `ishape` is the shape the index is walked
/// in (of `this`'s non-empty rank) and `istr` its strides (elements), `src` is of the same
/// rank or 0-d and addressed through its strides; `alpha` (a 0-d tensor of `this`'s dtype)
/// scales `src`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn scatter_copy(
    this: &Tensor,
    d: usize,
    index: &Tensor,
    (ishape, istr): (&[usize], &[usize]),
    src: &Tensor,
    r: Reduce,
    include_self: bool,
    alpha: Option<&Tensor>,
) -> Result<Tensor> {
    let out = this.contiguous_copy()?;
    scatter_into(&out, d, index, (ishape, istr), src, r, include_self, alpha)?;
    Ok(out)
}

/// [`scatter_copy`] into `out`, a fresh contiguous tensor (seen by nobody else) holding
/// `self`'s values.
#[allow(clippy::too_many_arguments)]
pub(crate) fn scatter_into(
    out: &Tensor,
    d: usize,
    index: &Tensor,
    (ishape, istr): (&[usize], &[usize]),
    src: &Tensor,
    r: Reduce,
    include_self: bool,
    alpha: Option<&Tensor>,
) -> Result<()> {
    let oshape = nonempty(&out.sizes);
    let sstr = strides_in(src, oshape.len())?;
    macro_rules! go {
        ($T:ty, $C:ty) => {{
            let a = alpha
                .map(|a| a.try_to_vec::<$C>().map(|v| v[0]))
                .transpose()?;
            crate::iter::dense(&[out], &[index, src], |mut s| {
                let o = s.out::<$T>(0)?;
                let (i, v) = (s.input::<i64>(0)?, s.input::<$T>(1)?);
                scatter_along::<$T, $C>(
                    o,
                    &oshape,
                    (i, istr),
                    (v, &sstr),
                    ishape,
                    d,
                    (r, include_self, a),
                );
                Ok(())
            })?
        }};
    }
    match out.dtype {
        DType::Float16 => go!(half::f16, f32),
        DType::BFloat16 => go!(half::bf16, f32),
        dt => crate::dispatch!(@compute dt, T => go!(T, T)),
    }
    Ok(())
}

fn is_index_dtype(dt: DType) -> bool {
    matches!(dt, DType::Int64 | DType::Int32)
}

/// What is scattered: a tensor or a scalar value.
#[derive(Clone, Copy)]
enum Src<'a> {
    Tensor(&'a Tensor),
    Value(Scalar),
}

/// The checks of `scatter`/`scatter_add`/`scatter_reduce` and the scatter itself; returns the
/// new values of `self` (fresh, contiguous). `reduce_check` validates the reduce string after
/// the shape checks (as PyTorch's meta function does).
fn scatter_impl(
    this: &Tensor,
    dim: i64,
    index: &Tensor,
    src: Src<'_>,
    reduce_check: impl FnOnce() -> Result<(Reduce, bool)>,
) -> Result<Tensor> {
    let d = wrap_dim(dim, this.dim())?;
    if index.numel() != 0 && !is_index_dtype(index.dtype) {
        return Err(Error::runtime(
            "scatter(): Expected dtype int32/int64 for index",
        ));
    }
    if let Src::Tensor(s) = src
        && s.dtype != this.dtype
    {
        return Err(Error::runtime(
            "scatter(): Expected self.dtype to be equal to src.dtype",
        ));
    }
    let bool_mean = |r: Reduce, kernel: &str| {
        if r == Reduce::Mean && this.dtype == DType::Bool {
            Err(Error::not_implemented(format!(
                "\"{kernel}\" not implemented for 'Bool'"
            )))
        } else {
            Ok(())
        }
    };
    if index.numel() == 0 {
        let (r, _) = reduce_check()?;
        bool_mean(r, "div_floor_cpu")?;
        return this.contiguous_copy();
    }
    let sd = nonempty(&this.sizes);
    let id = nonempty(&index.sizes);
    if sd.len() != id.len() {
        return Err(Error::runtime(
            "Index tensor must have the same number of dimensions as self tensor",
        ));
    }
    let mut wrong = (0..sd.len()).any(|k| k != d && id[k] > sd[k]);
    if !wrong && let Src::Tensor(s) = src {
        for (k, &ik) in id.iter().enumerate() {
            let ss = if s.dim() == 0 {
                1
            } else {
                s.sizes[wrap_dim(k as i64, s.dim())?]
            };
            if ik > ss {
                wrong = true;
                break;
            }
        }
    }
    if wrong {
        return Err(Error::runtime(match src {
            Src::Tensor(s) => format!(
                "Expected index {} to be no larger than self {} apart from dimension {d} and to be no larger size than src {}",
                fmt_list(&index.sizes),
                fmt_list(&this.sizes),
                fmt_list(&s.sizes)
            ),
            Src::Value(_) => format!(
                "Expected index {} to be no larger than self {} apart from dimension {d}",
                fmt_list(&index.sizes),
                fmt_list(&this.sizes)
            ),
        }));
    }
    if let Src::Tensor(s) = src
        && nonempty(&s.sizes).len() != sd.len()
    {
        return Err(Error::runtime(
            "Index tensor must have the same number of dimensions as src tensor",
        ));
    }
    let (r, include_self) = reduce_check()?;
    let index = index_i64_strided(index)?;
    if let Some(v) = first_bad(&index, sd[d])? {
        return Err(Error::runtime(format!(
            "index {v} is out of bounds for dimension {d} with size {}",
            sd[d]
        )));
    }
    bool_mean(r, "scatter_gather_tensor_cpu_reduce_mean")?;
    let src_t = match src {
        Src::Tensor(s) => s.alias(),
        Src::Value(v) => scalar_as(v, this.dtype)?,
    };
    let istr = strides_in(&index, sd.len())?;
    scatter_copy(this, d, &index, (&id, &istr), &src_t, r, include_self, None)
}

fn legacy_reduce(reduce: Option<&str>) -> Result<(Reduce, bool)> {
    match reduce {
        None => Ok((Reduce::Assign, true)),
        Some("add") => Ok((Reduce::Sum, true)),
        Some("multiply") => Ok((Reduce::Prod, true)),
        Some(_) => Err(Error::runtime(
            "reduce argument must be either add or multiply.",
        )),
    }
}

/// The `reduce` of `scatter_reduce` (`max`/`min` are accepted aliases of `amax`/`amin`).
fn new_reduce(reduce: &str) -> Result<Reduce> {
    Ok(match reduce {
        "sum" => Reduce::Sum,
        "prod" => Reduce::Prod,
        "mean" => Reduce::Mean,
        "amax" | "max" => Reduce::Max,
        "amin" | "min" => Reduce::Min,
        _ => {
            return Err(Error::runtime(format!(
                "reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
            )));
        }
    })
}

fn src_of<'a>(src: &'a Operand<'a>) -> Src<'a> {
    match src {
        Operand::Tensor(t) => Src::Tensor(t),
        Operand::Scalar(s) => Src::Value(*s),
    }
}

/// Options of [`Tensor::scatter_with`]: PyTorch's legacy `reduce` (`"add"` or `"multiply"`;
/// `None`, the default, assigns).
#[derive(Clone, Copy, Debug, Default)]
pub struct ScatterOpts<'a> {
    /// `"add"` or `"multiply"`, or `None` to assign.
    pub reduce: Option<&'a str>,
}

impl<'a> From<&'a str> for ScatterOpts<'a> {
    fn from(reduce: &'a str) -> Self {
        ScatterOpts {
            reduce: Some(reduce),
        }
    }
}

impl<'a> From<Option<&'a str>> for ScatterOpts<'a> {
    fn from(reduce: Option<&'a str>) -> Self {
        ScatterOpts { reduce }
    }
}

/// Options of [`Tensor::scatter_reduce_with`]: `include_self` (default `true`).
#[derive(Clone, Copy, Debug)]
pub struct ScatterReduceOpts {
    /// Whether `self`'s value at a target takes part in the reduction (default `true`).
    pub include_self: bool,
}

impl Default for ScatterReduceOpts {
    fn default() -> Self {
        ScatterReduceOpts { include_self: true }
    }
}

impl From<bool> for ScatterReduceOpts {
    fn from(include_self: bool) -> Self {
        ScatterReduceOpts { include_self }
    }
}

/// Options of [`Tensor::take_along_dim_with`]: the `dim` (default `None`: the flattened input).
#[derive(Clone, Copy, Debug, Default)]
pub struct TakeAlongDimOpts {
    /// The dim along which to take, or `None` for the flattened input.
    pub dim: Option<i64>,
}

impl<I: Int> From<I> for TakeAlongDimOpts {
    fn from(dim: I) -> Self {
        TakeAlongDimOpts {
            dim: Some(dim.to_i64()),
        }
    }
}

impl<I: Int> From<Option<I>> for TakeAlongDimOpts {
    fn from(dim: Option<I>) -> Self {
        TakeAlongDimOpts {
            dim: dim.map(|d| d.to_i64()),
        }
    }
}

/// The forward function of `torch.gather(self, dim, index)`: the checks (errors as
/// [`Tensor::gather`]), then `self`'s elements at `index` along `dim`, fresh and contiguous.
pub(crate) fn gather_fwd(x: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
    let d = wrap_dim(dim, x.dim())?;
    if index.numel() == 0 {
        return Tensor::try_alloc_contiguous(&index.sizes, x.dtype);
    }
    if !is_index_dtype(index.dtype) {
        return Err(Error::runtime(
            "gather(): Expected dtype int32/int64 for index",
        ));
    }
    let sd = nonempty(&x.sizes);
    let id = nonempty(&index.sizes);
    if sd.len() != id.len() {
        return Err(Error::runtime(
            "Index tensor must have the same number of dimensions as input tensor",
        ));
    }
    if let Some(k) = (0..sd.len()).find(|&k| k != d && id[k] > sd[k]) {
        return Err(Error::runtime(format!(
            "Size does not match at dimension {k} expected index {} to be no larger than self {} apart from dimension {d}",
            fmt_list(&index.sizes),
            fmt_list(&x.sizes)
        )));
    }
    let index = index_i64(index)?;
    if let Some(v) = first_bad(&index, sd[d])? {
        return Err(Error::runtime(format!(
            "index {v} is out of bounds for dimension {d} with size {}",
            sd[d]
        )));
    }
    let (xstr, istr) = (strides_in(x, sd.len())?, strides_in(&index, sd.len())?);
    crate::dispatch!(x.dtype, T => {
        let (out, ()) = crate::iter::dense_new(&index.sizes, x.dtype, &[x, &index], |mut s| {
            let o = s.out::<T>(0)?;
            let (xv, iv) = (s.input::<T>(0)?, s.input::<i64>(1)?);
            gather_along(o, (xv, &xstr, sd[d]), (iv, &istr), &id, d);
            Ok(())
        })?;
        Ok(out)
    })
}

/// The forward function of `torch.scatter(self, dim, index, src, reduce=…)` (`src` a tensor
/// or a number, `reduce` the legacy `"add"`/`"multiply"` or `None`): the new values of
/// `self`, fresh and contiguous (errors as [`Tensor::scatter`] and [`Tensor::scatter_with`]).
pub(crate) fn scatter_fwd(
    x: &Tensor,
    dim: i64,
    index: &Tensor,
    src: Operand<'_>,
    reduce: Option<&str>,
) -> Result<Tensor> {
    scatter_impl(x, dim, index, src_of(&src), || legacy_reduce(reduce))
}

/// The forward function of `torch.scatter_add(self, dim, index, src)` (errors as
/// [`Tensor::scatter`]).
pub(crate) fn scatter_add_fwd(
    x: &Tensor,
    dim: i64,
    index: &Tensor,
    src: &Tensor,
) -> Result<Tensor> {
    scatter_impl(x, dim, index, Src::Tensor(src), || Ok((Reduce::Sum, true)))
}

/// The forward function of `torch.scatter_reduce(self, dim, index, src, reduce,
/// include_self)` (errors as [`Tensor::scatter_reduce`]).
pub(crate) fn scatter_reduce_fwd(
    x: &Tensor,
    dim: i64,
    index: &Tensor,
    src: &Tensor,
    reduce: &str,
    include_self: bool,
) -> Result<Tensor> {
    scatter_impl(x, dim, index, Src::Tensor(src), || {
        Ok((new_reduce(reduce)?, include_self))
    })
}

/// The forward function of `torch.take(self, index)`: `self` read as if flattened at
/// `index` (negative indices wrap), shaped like `index`, contiguous (errors as
/// [`Tensor::take`]).
pub(crate) fn take_fwd(x: &Tensor, index: &Tensor) -> Result<Tensor> {
    if index.dtype != DType::Int64 {
        return Err(Error::runtime(format!(
            "take(): Expected a long tensor for index, but got {}",
            index.dtype.scalar_type_name()
        )));
    }
    let n = x.numel();
    let index = contiguous_unrecorded(index)?;
    if n == 0 && index.numel() != 0 {
        return Err(Error::index("take(): tried to take from an empty tensor"));
    }
    // negative indices wrap: a bound check over `[-n, n)`, then a wrapped copy if any is
    // negative
    let (bad, neg) = crate::iter::dense(&[], &[&index], |s| {
        let v = s.input::<i64>(0)?;
        let bad = |v: i64| v >= n as i64 || v < -(n as i64);
        let (b, neg) = v
            .iter()
            .fold((false, false), |(b, ng), &v| (b | bad(v), ng | (v < 0)));
        Ok((
            if b {
                v.iter().copied().find(|&v| bad(v))
            } else {
                None
            },
            neg,
        ))
    })?;
    if let Some(v) = bad {
        return Err(Error::index(format!(
            "out of range: tried to access index {v} on a tensor of {n} elements."
        )));
    }
    let index = if neg {
        let w: Vec<i64> = index
            .try_to_vec::<i64>()?
            .into_iter()
            .map(|v| if v < 0 { v + n as i64 } else { v })
            .collect();
        Tensor::from_vec(w, index.sizes.to_vec())?
    } else {
        index
    };
    let flat = contiguous_unrecorded(x)?;
    let m = index.numel();
    crate::dispatch!(x.dtype, T => {
        let (out, ()) = crate::iter::dense_new(&index.sizes, x.dtype, &[&flat, &index], |mut s| {
            let o = s.out::<T>(0)?;
            let (xv, iv) = (s.input::<T>(0)?, s.input::<i64>(1)?);
            gather_along(o, (xv, &[1], n), (iv, &[1]), &[m], 0);
            Ok(())
        })?;
        Ok(out)
    })
}

impl Tensor {
    /// A fresh contiguous copy (`clone(memory_format=torch.contiguous_format)`).
    pub(crate) fn contiguous_copy(&self) -> Result<Tensor> {
        crate::ops::copy::copy_with_strides(self, &contiguous_strides(&self.sizes), self.dtype)
    }

    /// `torch.take_along_dim(self, indices)` (`dim=None`): `self` flattened, gathered at
    /// `indices` flattened (`self.view(-1).gather(0, indices.view(-1))`): a 1-d contiguous
    /// result. Errors as [`Tensor::gather`] (`index 12 is out of bounds for dimension 0 with
    /// size 12`).
    pub fn take_along_dim(&self, indices: &Tensor) -> Result<Tensor> {
        self.take_along_dim_with(indices, TakeAlongDimOpts::default())
    }

    /// `torch.take_along_dim(self, indices, dim)`: like [`Tensor::gather`] along `dim`, but
    /// `self` and `indices` broadcast in every dim except `dim`; the result has the broadcast
    /// shape with `indices.size(dim)` along `dim`, contiguous. As PyTorch 2.15 does, index
    /// values are reduced modulo `self.size(dim)` (Python-style), so none is out of range.
    ///
    /// Errors: `torch.take_along_dim(): input and indices should have the same number of
    /// dimensions, but got 2 dimensions for input, and 1 dimensions for indices`;
    /// `torch.take_along_dim(): dtype of indices should be Long but got Float`;
    /// `Dimension out of range (…)` (IndexError); the broadcast error `The size of tensor a
    /// (3) must match the size of tensor b (2) at non-singleton dimension 0`.
    pub fn take_along_dim_with(
        &self,
        indices: &Tensor,
        opts: impl Into<TakeAlongDimOpts>,
    ) -> Result<Tensor> {
        let Some(dim) = opts.into().dim else {
            let flat = self.reshape(-1)?;
            return flat.gather(0, &indices.reshape(-1)?);
        };
        if self.dim() != indices.dim() {
            return Err(Error::runtime(format!(
                "torch.take_along_dim(): input and indices should have the same number of dimensions, but got {} dimensions for input, and {} dimensions for indices",
                self.dim(),
                indices.dim()
            )));
        }
        if indices.dtype != DType::Int64 {
            return Err(Error::runtime(format!(
                "torch.take_along_dim(): dtype of indices should be Long but got {}",
                indices.dtype.scalar_type_name()
            )));
        }
        let d = wrap_dim(dim, self.dim())?;
        let mut ss = self.sizes.to_vec();
        if !ss.is_empty() {
            ss[d] = indices.sizes[d];
        }
        let shape_i = crate::broadcast::infer_size(&ss, &indices.sizes)?;
        let mut is = indices.sizes.to_vec();
        if !is.is_empty() {
            is[d] = self.sizes[d];
        }
        let shape_s = crate::broadcast::infer_size(&is, &self.sizes)?;
        let ib = indices.expand(shape_i.clone())?;
        let sb = self.expand(shape_s.clone())?;
        let size = nonempty(&self.sizes)[d] as i64;
        let wrapped: Vec<i64> = ib
            .try_to_vec::<i64>()?
            .into_iter()
            .map(|v| if size == 0 { v } else { v.rem_euclid(size) })
            .collect();
        let ib = Tensor::from_vec(wrapped, shape_i)?;
        sb.gather(d as i64, &ib)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_along_dim_reduces_indices_modulo_the_size() {
        let x = Tensor::from_vec(vec![0.0f64, 1.0, 2.0, 3.0], [4]).unwrap();
        let i = Tensor::from_vec(vec![5i64, 9, -5, -9, 100], [5]).unwrap();
        assert_eq!(
            x.take_along_dim_with(&i, 0).unwrap().to_vec::<f64>(),
            [1.0, 1.0, 3.0, 3.0, 0.0]
        );
    }
}
