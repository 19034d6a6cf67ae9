//! Scans along one dim: `cumsum`, `cumprod`, `cummax`, `cummin`, `logcumsumexp`, and `diff`.
//!
//! A scan runs over rows: the input is viewed with the scanned dim last and made contiguous,
//! each row is scanned in PyTorch's accumulate type (int64 for integers, double for float32
//! and float64, float for float16/bfloat16, as its CPU `cpu_cum_base_kernel` does), and the
//! result is moved back: outputs are fresh and contiguous, as PyTorch's are.

use crate::args::Int;
use crate::dim::wrap_dim;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The rows of `t` along (wrapped) dim `d`: the dim moved last, contiguous.
fn rows(t: &Tensor, d: usize) -> Result<(Tensor, usize)> {
    let moved = if t.dim() == 0 {
        t.reshape([1])?
    } else {
        t.movedim(d as i64, -1)?.try_contiguous()?
    };
    let n = moved.size().last().copied().unwrap_or(1);
    Ok((moved, n))
}

/// Puts scanned rows (shape of `moved`) back into `t`'s shape, contiguous.
fn unrows(vals: Tensor, moved: &Tensor, t: &Tensor, d: usize) -> Result<Tensor> {
    let r = vals.view(moved.size())?;
    if t.dim() == 0 {
        return r.reshape(());
    }
    let c = r.movedim(-1, d as i64)?.try_contiguous()?;
    // row-major strides for size-1 dims too, as a fresh PyTorch output has
    let strides = crate::layout::contiguous_strides(c.size());
    Ok(c.view_with(c.sizes.clone(), strides, c.offset))
}

/// The accumulate rounding of a float dtype (float for the half types, double otherwise).
fn acc_round(dtype: DType) -> fn(f64) -> f64 {
    match dtype {
        DType::Float16 | DType::BFloat16 => |x| x as f32 as f64,
        _ => |x| x,
    }
}

/// `cumsum`/`cumprod` of a contiguous, non-empty float32/float64 `x` of at least one dim,
/// scanned in place on the typed data (viewed as `(outer, size(d), inner)`, accumulated in
/// double): a fresh contiguous tensor, or `None` for other inputs.
fn cum_contiguous(x: &Tensor, d: usize, prod: bool) -> Result<Option<Tensor>> {
    if x.dim() == 0 || x.numel() == 0 || !x.is_contiguous() {
        return Ok(None);
    }
    let sizes = x.size();
    let n = sizes[d];
    let inner: usize = sizes[d + 1..].iter().product();
    let outer = x.numel() / (n * inner);
    if !matches!(x.dtype(), DType::Float32 | DType::Float64) {
        return Ok(None);
    }
    // `x` and the new output are contiguous: their slices are their values
    let (out, ()) = crate::iter::dense_new(sizes, x.dtype(), &[x], |mut s| {
        match x.dtype() {
            DType::Float64 => {
                crate::kernels::rows::cum_f64::<f64>(s.input(0)?, s.out(0)?, outer, n, inner, prod)
            }
            _ => {
                crate::kernels::rows::cum_f64::<f32>(s.input(0)?, s.out(0)?, outer, n, inner, prod)
            }
        }
        Ok(())
    })?;
    Ok(Some(out))
}

/// `cumsum`/`cumprod` of `t` cast to `dtype`, along `dim`: a fresh contiguous tensor.
pub(crate) fn cum(t: &Tensor, dim: i64, dtype: DType, prod: bool) -> Result<Tensor> {
    let d = wrap_dim(dim, t.dim())?;
    let x = t.to(dtype)?;
    if let Some(out) = cum_contiguous(&x, d, prod)? {
        return Ok(out);
    }
    let (moved, n) = rows(&x, d)?;
    let out = if dtype.is_floating_point() {
        let r = acc_round(dtype);
        let mut v = moved.try_to_vec::<f64>()?;
        for row in v.chunks_mut(n.max(1)) {
            let mut acc = if prod { 1.0 } else { 0.0 };
            for e in row.iter_mut() {
                acc = r(if prod { acc * *e } else { acc + *e });
                *e = acc;
            }
        }
        Tensor::from_vec(v, [moved.numel()])?.to(dtype)?
    } else {
        let mut v = moved.try_to_vec::<i64>()?;
        for row in v.chunks_mut(n.max(1)) {
            let mut acc: i64 = if prod { 1 } else { 0 };
            for e in row.iter_mut() {
                acc = if prod {
                    acc.wrapping_mul(*e)
                } else {
                    acc.wrapping_add(*e)
                };
                *e = acc;
            }
        }
        Tensor::from_vec(v, [moved.numel()])?.to(dtype)?
    };
    unrows(out, &moved, t, d)
}

/// The dtype `cumsum`/`cumprod` returns: `dtype=` when given, else int64 for integer and
/// bool inputs, else the input's.
pub(crate) fn cum_dtype(t: &Tensor, dtype: Option<DType>) -> DType {
    dtype.unwrap_or(if t.dtype().is_integral(true) {
        DType::Int64
    } else {
        t.dtype()
    })
}

/// The checks of `cumsum_`/`cumprod_` (computed in `t`'s dtype, no promotion), in PyTorch's
/// order: the dim, a `dtype=` other than `t`'s, a bool `t`.
pub(crate) fn cum_inplace_check(
    t: &Tensor,
    dim: i64,
    dtype: Option<DType>,
    prod: bool,
) -> Result<()> {
    let name = if prod { "cumprod" } else { "cumsum" };
    wrap_dim(dim, t.dim())?;
    if let Some(d) = dtype
        && d != t.dtype()
    {
        return Err(Error::runtime(format!(
            "Bad in-place call: input tensor dtype {} and output tensor dtype {} should match",
            t.dtype().name(),
            d.name()
        )));
    }
    // the kernel's dispatch (no bool) is not reached for a 0-d or empty tensor
    if t.dtype() == DType::Bool && t.dim() > 0 && t.numel() > 0 {
        return Err(Error::not_implemented(format!(
            "\"{name}_out_cpu\" not implemented for 'Bool'"
        )));
    }
    Ok(())
}

/// `cummax`/`cummin`: values and int64 indices. A NaN wins and stays until a later NaN;
/// ties go to the later index (PyTorch's `>=` / `<=`).
pub(crate) fn cum_extreme(t: &Tensor, dim: i64, max: bool) -> Result<(Tensor, Tensor)> {
    // PyTorch runs `zero_numel_check_dims` first, whose 0-d check has its own message.
    if t.dim() == 0 && dim != 0 && dim != -1 {
        let name = if max { "cummax" } else { "cummin" };
        return Err(Error::index(format!(
            "{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}"
        )));
    }
    let d = wrap_dim(dim, t.dim())?;
    let (moved, n) = rows(t, d)?;
    let n_all = moved.numel();
    let mut idx = crate::error::try_filled(0i64, n_all)?;
    let vals = crate::dispatch!(t.dtype(), T => {
        let mut v = moved.try_to_vec::<T>()?;
        // `x != x`: NaN (never for integers and bool)
        #[allow(clippy::eq_op)]
        let nan = |x: T| x != x;
        let better = |x: T, out: T| nan(x) || (!nan(out) && if max { x >= out } else { x <= out });
        for_rows(&mut v, &mut idx, n, |row, irow| {
            let (mut out, mut at) = (row[0], 0i64);
            for (i, (e, ix)) in row.iter_mut().zip(irow.iter_mut()).enumerate() {
                if better(*e, out) {
                    out = *e;
                    at = i as i64;
                }
                *e = out;
                *ix = at;
            }
        });
        Tensor::from_vec(v, [n_all])?
    });
    Ok((
        unrows(vals, &moved, t, d)?,
        unrows(Tensor::from_vec(idx, [n_all])?, &moved, t, d)?,
    ))
}

/// Runs `f` on every row of `n` elements of `v` with the matching row of `w` (rows of a
/// non-empty `v`; `n` ≥ 1), in parallel over blocks of rows above the grain size. Each row is
/// scanned by one task, so the result is the serial one.
fn for_rows<A: Send, B: Send>(
    v: &mut [A],
    w: &mut [B],
    n: usize,
    f: impl Fn(&mut [A], &mut [B]) + Sync + Send,
) {
    use rayon::prelude::*;
    let n = n.max(1);
    if v.is_empty() {
        return;
    }
    let per = (crate::kernels::loops::GRAIN / n).max(1);
    if v.len() >= 2 * crate::kernels::loops::GRAIN
        && v.len() / n >= 2
        && crate::kernels::par::threads() > 1
    {
        crate::kernels::par::run(|| {
            v.par_chunks_mut(n)
                .zip(w.par_chunks_mut(n))
                .with_min_len(per)
                .for_each(|(a, b)| f(a, b))
        });
    } else {
        v.chunks_mut(n)
            .zip(w.chunks_mut(n))
            .for_each(|(a, b)| f(a, b));
    }
}

/// PyTorch's `_log_add_exp_helper`: `max + log1p(exp(min - max))`, except that equal
/// infinities give `x` itself.
fn log_add_exp(x: f64, y: f64) -> f64 {
    let min = if y < x { y } else { x };
    let max = if x < y { y } else { x };
    if min != max || min.is_finite() {
        max + (min - max).exp().ln_1p()
    } else {
        x
    }
}

/// `logcumsumexp`'s forward along `dim`: PyTorch's pairwise `log_add_exp`, accumulated in
/// double (float for the half types); a fresh contiguous tensor. Floats only.
pub(crate) fn logcumsumexp_fwd(t: &Tensor, dim: i64) -> Result<Tensor> {
    let d = wrap_dim(dim, t.dim())?;
    if !t.dtype().is_floating_point() {
        return Err(Error::not_implemented_for(
            "logcumsumexp_out_cpu",
            t.dtype(),
        ));
    }
    let (moved, n) = rows(t, d)?;
    let r = acc_round(t.dtype());
    let mut v = moved.try_to_vec::<f64>()?;
    let mut unit = vec![(); v.len()];
    for_rows(&mut v, &mut unit, n, |row, _: &mut [()]| {
        let mut acc = f64::NEG_INFINITY;
        for e in row.iter_mut() {
            acc = r(log_add_exp(*e, acc));
            *e = acc;
        }
    });
    let out = Tensor::from_vec(v, [moved.numel()])?.to(t.dtype())?;
    unrows(out, &moved, t, d)
}

impl Tensor {
    /// `torch.diff(self)`: the first difference along the last dim; see [`Tensor::diff_with`].
    pub fn diff(&self) -> Result<Tensor> {
        self.diff_with(DiffOpts::default())
    }

    /// `torch.diff(self, n, dim, prepend, append)`: `prepend` and `append` are joined to `self`
    /// along `dim` (`cat`), then `n` times `x[1:] - x[:-1]` (`!=` for bool) along `dim`; `n`
    /// larger than the size gives an empty dim; `n = 0` gives a copy of `self` (prepend and append
    /// ignored; autograd `CopyBackwards`, as PyTorch's `zeros_like(self).copy_(self)`).
    ///
    /// Errors, in PyTorch's order: `diff expects input to be at least one-dimensional`;
    /// `order must be non-negative but got -1`; with `prepend`/`append`: the dim error, `diff
    /// expects prepend or append to be the same dimension as input`, `diff expects the shape of
    /// tensor to prepend or append to match that of input except along the differencing
    /// dimension; input.size(0) = 2, but got tensor.size(0) = 3`; then the dim error; `cat`'s and `sub`'s errors.
    pub fn diff_with<'a>(&self, opts: impl Into<DiffOpts<'a>>) -> Result<Tensor> {
        let DiffOpts {
            n,
            dim,
            prepend,
            append,
        } = opts.into();
        if self.dim() == 0 {
            return Err(Error::runtime(
                "diff expects input to be at least one-dimensional",
            ));
        }
        if n < 0 {
            return Err(Error::runtime(format!(
                "order must be non-negative but got {n}"
            )));
        }
        for p in prepend.iter().chain(append.iter()) {
            let wd = wrap_dim(dim, self.dim())?;
            if p.dim() != self.dim() {
                return Err(Error::runtime(
                    "diff expects prepend or append to be the same dimension as input",
                ));
            }
            for i in (0..self.dim()).filter(|&i| i != wd) {
                if p.size()[i] != self.size()[i] {
                    return Err(Error::runtime(format!(
                        "diff expects the shape of tensor to prepend or append to match that of input except along the differencing dimension; input.size({i}) = {}, but got tensor.size({i}) = {}",
                        self.size()[i],
                        p.size()[i]
                    )));
                }
            }
        }
        // n = 0 is a copy of `self` alone (its layout preserved), before any dim is wrapped:
        // PyTorch's `zeros_like(self).copy_(self)` (so the node is `CopyBackwards`)
        if n == 0 {
            let r = Tensor::zeros_like(self)?;
            r.copy_(self)?;
            return Ok(r);
        }
        let d = wrap_dim(dim, self.dim())?;
        let mut x = if prepend.is_some() || append.is_some() {
            let parts: Vec<&Tensor> = prepend
                .into_iter()
                .chain(std::iter::once(self))
                .chain(append)
                .collect();
            crate::cat_with(&parts, d)?
        } else {
            self.alias()
        };
        let steps = (n as usize).min(x.size()[d]);
        for _ in 0..steps {
            let len = x.size()[d] - 1;
            let hi = x.narrow(d, 1, len)?;
            let lo = x.narrow(d, 0, len)?;
            x = if x.dtype() == DType::Bool {
                hi.logical_xor(&lo)?
            } else {
                hi.sub(&lo)?
            };
        }
        Ok(x)
    }
}

/// `diff`'s optional arguments (`n=1, dim=-1, prepend=None, append=None`), for
/// [`Tensor::diff_with`]: an integer is `n`, a pair `(n, dim)`, or the struct.
#[derive(Clone, Copy, Debug)]
pub struct DiffOpts<'a> {
    /// How many times to difference (default 1).
    pub n: i64,
    /// The dim (default -1).
    pub dim: i64,
    /// Values joined before `self` along `dim`.
    pub prepend: Option<&'a Tensor>,
    /// Values joined after `self` along `dim`.
    pub append: Option<&'a Tensor>,
}
impl Default for DiffOpts<'_> {
    fn default() -> Self {
        DiffOpts {
            n: 1,
            dim: -1,
            prepend: None,
            append: None,
        }
    }
}
impl<T: Int> From<T> for DiffOpts<'_> {
    fn from(n: T) -> Self {
        DiffOpts {
            n: n.to_i64(),
            ..Default::default()
        }
    }
}
impl<A: Int, B: Int> From<(A, B)> for DiffOpts<'_> {
    fn from((n, dim): (A, B)) -> Self {
        DiffOpts {
            n: n.to_i64(),
            dim: dim.to_i64(),
            ..Default::default()
        }
    }
}
