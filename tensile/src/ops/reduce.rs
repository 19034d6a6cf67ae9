//! Reductions: `sum`, `mean`, `prod`, `amax`, `amin`, `argmax`, `argmin`, `all`, `any`, `max`/`min`
//! (over everything, or along a dim with indices), `std`, `var`, `logsumexp`.
//!
//! This file holds PyTorch's semantics — which dims are reduced, output shapes, dtypes, and
//! errors in PyTorch's order; the work is done by the one reduction engine in
//! `kernels/reduce.rs`. Outputs are always fresh contiguous tensors, as PyTorch's are: the
//! result of `keepdim=false` is the `keepdim=true` result with the reduced dims squeezed, and
//! both have row-major strides.
//!
//! Dims: every `*_dims` method takes a list of dims (negative dims count from the end; a
//! repeated dim is an error; an empty list reduces every dim, as `dim=[]` does in PyTorch); a
//! 0-d tensor accepts the dims `0` and `-1`. Errors common to every reduction:
//! * `Dimension out of range (expected to be in range of [-2, 1], but got 2)` (IndexError);
//! * `dim 1 appears multiple times in the list of dims` (RuntimeError);
//! * an output too large to allocate: `DefaultCPUAllocator: can't allocate memory: …`.

use crate::args::{Int, IntoDims};
use crate::dim::{wrap_dim, wrap_dims};
use crate::dispatch;
use crate::dtype::{DEFAULT_FLOAT, DType};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernels::reduce::{
    self as k, ArgR, ExtremumR, HasAcc, LogicR, NormR, ProdR, Reducer, SumR, VarR,
};
use crate::tensor::Tensor;

/// The reduced-dims mask (one flag per input dim) and the output shape: PyTorch's
/// `make_dim_mask` and `get_reduction_shape`. `None` or an empty list reduces every dim.
pub(crate) fn reduction_shape(
    t: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
) -> Result<(Vec<bool>, Vec<usize>)> {
    let nd = t.dim();
    let mut mask = vec![false; nd];
    match dims {
        Some(ds) if !ds.is_empty() => {
            for w in wrap_dims(ds, nd)? {
                if nd > 0 {
                    mask[w] = true;
                }
            }
        }
        _ => mask.fill(true),
    }
    let shape = (0..nd)
        .filter_map(|d| {
            if mask[d] {
                keepdim.then_some(1)
            } else {
                Some(t.sizes[d])
            }
        })
        .collect();
    Ok((mask, shape))
}

/// Number of elements folded into each output.
fn reduced_count(t: &Tensor, mask: &[bool]) -> usize {
    (0..t.dim())
        .filter(|&d| mask[d])
        .map(|d| t.sizes[d])
        .product()
}

/// Allocates the contiguous outputs of a reduction (no zero fill: the engine writes every
/// element). Error: PyTorch's `DefaultCPUAllocator: can't allocate memory: …`.
fn alloc_out(shape: &[usize], dtype: DType) -> Result<Tensor> {
    Tensor::try_alloc(shape, &crate::layout::contiguous_strides(shape), dtype)
}

/// Runs the reduction engine ([`k::reduce`]) under the storage locks.
fn reduce<R: Reducer>(
    r: &R,
    t: &Tensor,
    mask: &[bool],
    values: Option<&Tensor>,
    indices: Option<&Tensor>,
) {
    let mut ops: Vec<&Tensor> = values.into_iter().chain(indices).collect();
    let n_out = ops.len();
    ops.push(t);
    let _locks = crate::iter::lock_operands(&ops, n_out);
    k::reduce(
        r,
        t.mem(),
        mask,
        values.map(Tensor::mem),
        indices.map(Tensor::mem),
    );
}

/// Runs `r` into a fresh value output of `shape`.
fn run_values<R: Reducer>(r: &R, t: &Tensor, mask: &[bool], shape: &[usize]) -> Result<Tensor> {
    let out = alloc_out(shape, <R::Out as Element>::DTYPE)?;
    reduce(r, t, mask, Some(&out), None);
    Ok(out)
}

/// `zero_numel_check_dims` for one dim (PyTorch checks the dim as the caller gave it).
fn zero_numel_check_dim(t: &Tensor, dim: i64, name: &str) -> Result<()> {
    if t.dim() == 0 {
        if dim != 0 && dim != -1 {
            return Err(Error::index(format!(
                "{name}: Expected reduction dim -1 or 0 for scalar but got {dim}"
            )));
        }
    } else if t.size_of(dim)? == 0 {
        return Err(Error::index(format!(
            "{name}: Expected reduction dim {dim} to have non-zero size."
        )));
    }
    Ok(())
}

/// `zero_numel_check_dims` for a list of dims, run when the input is empty.
fn zero_numel_check_dims(t: &Tensor, dims: &[i64], name: &str) -> Result<()> {
    if dims.is_empty() {
        return Err(Error::runtime(format!(
            "{name}: Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
        )));
    }
    for &d in dims {
        zero_numel_check_dim(t, d, name)?;
    }
    Ok(())
}

/// `sum` of `t` over `dims` (`None` or an empty list: every dim).
pub(crate) fn sum_impl(t: &Tensor, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
    let (mask, shape) = reduction_shape(t, dims, keepdim)?;
    dispatch!(t.dtype, T => run_values(
        &SumR::<T, <T as HasAcc>::SumAcc, <T as HasAcc>::SumOut>::new(None), t, &mask, &shape))
}

/// `mean` of `t` over `dims` (`None` or an empty list: every dim). Floats only.
pub(crate) fn mean_impl(t: &Tensor, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
    if !t.dtype.is_floating_point() {
        return Err(Error::not_implemented(format!(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {}",
            t.dtype.scalar_type_name()
        )));
    }
    let (mask, shape) = reduction_shape(t, dims, keepdim)?;
    let n = Some(reduced_count(t, &mask));
    // PyTorch's CPU mean is `sum(...).div_(n)`; float16 and bfloat16 sum and divide in float32
    // and round once at the end.
    match t.dtype {
        DType::Float16 => {
            run_values(&SumR::<half::f16, f32, f32>::new(n), t, &mask, &shape)?.to(DType::Float16)
        }
        DType::BFloat16 => {
            run_values(&SumR::<half::bf16, f32, f32>::new(n), t, &mask, &shape)?.to(DType::BFloat16)
        }
        DType::Float32 => run_values(&SumR::<f32, f32, f32>::new(n), t, &mask, &shape),
        _ => run_values(&SumR::<f64, f64, f64>::new(n), t, &mask, &shape),
    }
}

/// `prod` of `t` over `dim` (`None`: every dim).
pub(crate) fn prod_raw(t: &Tensor, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
    let d = dim.map(|d| [d]);
    let (mask, shape) = reduction_shape(t, d.as_ref().map(|d| &d[..]), keepdim)?;
    dispatch!(t.dtype, T => run_values(
        &ProdR::<T, <T as HasAcc>::ProdAcc, <T as HasAcc>::SumOut>::new(), t, &mask, &shape))
}

/// `amax`/`amin` (`MAX`) of `t` over `dims` (empty: every dim); `name` (`"amax()"`) names
/// the op in the errors.
pub(crate) fn extremum_raw<const MAX: bool>(
    t: &Tensor,
    dims: &[i64],
    keepdim: bool,
    name: &str,
) -> Result<Tensor> {
    if t.numel() == 0 {
        zero_numel_check_dims(t, dims, name)?;
    }
    let (mask, shape) = reduction_shape(t, Some(dims), keepdim)?;
    dispatch!(t.dtype, T => run_values(&ExtremumR::<T, MAX>::new(), t, &mask, &shape))
}

fn arg_impl<const MAX: bool>(t: &Tensor, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
    let name = if MAX { "argmax()" } else { "argmin()" };
    if t.dtype == DType::Bool {
        return Err(Error::not_implemented(format!(
            "{name}: does not support bool input"
        )));
    }
    let (mask, shape) = match dim {
        Some(d) => {
            let w = wrap_dim(d, t.dim())?;
            zero_numel_check_dim(t, w as i64, name)?;
            reduction_shape(t, Some(&[d]), keepdim)?
        }
        None => {
            if t.numel() == 0 {
                return Err(Error::index(format!(
                    "{name}: Expected reduction dim to be specified for input.numel() == 0."
                )));
            }
            let shape = if keepdim { vec![1; t.dim()] } else { vec![] };
            (vec![true; t.dim()], shape)
        }
    };
    let idx = alloc_out(&shape, DType::Int64)?;
    dispatch!(t.dtype, T => reduce(&ArgR::<T, MAX>::new(), t, &mask, None, Some(&idx)));
    Ok(idx)
}

/// `max(dim)`/`min(dim)` (`MAX`): the values and the int64 index of the first extremum.
pub(crate) fn max_min_dim_raw<const MAX: bool>(
    t: &Tensor,
    dim: i64,
    keepdim: bool,
) -> Result<(Tensor, Tensor)> {
    let name = if MAX { "max()" } else { "min()" };
    let w = wrap_dim(dim, t.dim())?;
    zero_numel_check_dim(t, w as i64, name)?;
    let (mask, shape) = reduction_shape(t, Some(&[dim]), keepdim)?;
    let values = alloc_out(&shape, t.dtype)?;
    let idx = alloc_out(&shape, DType::Int64)?;
    dispatch!(t.dtype, T => reduce(&ArgR::<T, MAX>::new(), t, &mask, Some(&values), Some(&idx)));
    Ok((values, idx))
}

fn logic_impl<const ALL: bool>(t: &Tensor, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
    // an explicit empty list of dims reduces nothing here (PyTorch's `allow_empty_dims`)
    let (mask, shape) = match dims {
        Some([]) => (vec![false; t.dim()], t.sizes.to_vec()),
        _ => reduction_shape(t, dims, keepdim)?,
    };
    // uint8 inputs keep uint8 outputs (PyTorch's backward compatibility with byte masks).
    if t.dtype == DType::UInt8 {
        run_values(&LogicR::<u8, u8, ALL>::new(), t, &mask, &shape)
    } else {
        dispatch!(t.dtype, T => run_values(&LogicR::<T, bool, ALL>::new(), t, &mask, &shape))
    }
}

/// `var`/`std` (`sqrt`) of `t` over `dims` (`None`: every dim) with `correction`.
pub(crate) fn var_raw(
    t: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    correction: f64,
    sqrt: bool,
) -> Result<Tensor> {
    var_raw_named(t, dims, keepdim, correction, sqrt, None)
}

/// [`var_raw`] for `var_mean` / `std_mean` (`name`: their error and warning texts).
pub(crate) fn var_raw_named(
    t: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    correction: f64,
    sqrt: bool,
    name: Option<&str>,
) -> Result<Tensor> {
    if !t.dtype.is_floating_point() {
        return Err(Error::not_implemented(match name {
            Some(n) => format!("{n} only support floating point and complex dtypes"),
            None => "std and var only support floating point and complex dtypes".into(),
        }));
    }
    let (mask, shape) = reduction_shape(t, dims, keepdim)?;
    let n_out: usize = shape.iter().product();
    let n = if n_out == 0 {
        0
    } else {
        reduced_count(t, &mask)
    };
    if n as f64 - correction <= 0.0 {
        let name = name.unwrap_or(if sqrt { "std" } else { "var" });
        crate::warnings::warn(&format!(
            "{name}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor (input numel divided by output numel)."
        ));
    }
    dispatch!(t.dtype, T => run_values(&VarR::<T>::new(correction, sqrt), t, &mask, &shape))
}

/// The dims of a `logsumexp` over every dim.
pub(crate) fn all_dims(t: &Tensor) -> Vec<i64> {
    (0..t.dim() as i64).collect()
}

/// `logsumexp` of `t` over `dims`, computed stably in `t`'s float dtype (integers in float32).
pub(crate) fn logsumexp_raw(t: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    // integral inputs are promoted to the default float dtype first
    let x = if t.dtype.is_floating_point() {
        t.alias()
    } else {
        t.to(DEFAULT_FLOAT)?
    };
    let (mask, shape) = reduction_shape(&x, Some(dims), keepdim)?;
    if dims.is_empty() && !keepdim && x.dim() > 0 {
        // PyTorch reduces every dim for `dim=[]` but squeezes none of the kept maxima, so its
        // in-place `add_` of the maxima fails
        return Err(Error::runtime(format!(
            "output with shape [] doesn't match the broadcast shape {}",
            crate::error::fmt_list(&vec![1; x.dim()])
        )));
    }
    if x.numel() == 0 {
        let e = x.exp()?;
        return sum_impl(&e, Some(dims), keepdim)?.log();
    }
    // PyTorch: maxes = amax(x, dims, keepdim=True); maxes[|maxes| == inf] = 0;
    // result = log(sum(exp(x - maxes))) + maxes — every step in x's dtype.
    let (_, keep_shape) = reduction_shape(&x, Some(dims), true)?;
    let m =
        dispatch!(x.dtype, T => run_values(&ExtremumR::<T, true>::new(), &x, &mask, &keep_shape))?;
    let inf = m.abs()?.eq(f64::INFINITY)?;
    let m = crate::where_cond(&inf, 0.0, &m)?;
    let s = sum_impl(&x.sub(&m)?.exp()?, Some(dims), keepdim)?.log()?;
    let m_out = m.view_with(
        shape.clone(),
        crate::layout::contiguous_strides(&shape),
        m.offset,
    );
    s.add(&m_out)
}

impl Tensor {
    /// `torch.argmax(self)`: int64 index of the first maximum (NaN counts as the maximum) in
    /// the flattened tensor, 0-d; [`Tensor::argmax_dim`] takes a dim.
    ///
    /// Errors, in order: bool input: `argmax(): does not support bool input`
    /// (NotImplementedError); the dim errors; `argmax(): Expected reduction dim 1 to have
    /// non-zero size.` and, with `dim = None` on an empty tensor, `argmax(): Expected reduction
    /// dim to be specified for input.numel() == 0.` (IndexError).
    pub fn argmax(&self) -> Result<Tensor> {
        arg_impl::<true>(self, None, false)
    }
    /// `torch.argmax(self, dim, keepdim)`: as [`Tensor::argmax`] along one dim; shapes as
    /// [`Tensor::sum_dim`].
    pub fn argmax_dim(&self, dim: impl Int, keepdim: bool) -> Result<Tensor> {
        arg_impl::<true>(self, Some(dim.to_i64()), keepdim)
    }
    /// `torch.argmax(self, dim=…, keepdim=…)` with `dim` optional: [`ArgmaxOpts`]
    /// (`dim: None, keepdim: true` gives the flat index with every dim kept as size 1).
    pub fn argmax_with(&self, opts: ArgmaxOpts) -> Result<Tensor> {
        arg_impl::<true>(self, opts.dim, opts.keepdim)
    }
    /// `torch.argmin(self)`: as [`Tensor::argmax`] for the first minimum
    /// (`argmin(): …` errors).
    pub fn argmin(&self) -> Result<Tensor> {
        arg_impl::<false>(self, None, false)
    }
    /// `torch.argmin(self, dim, keepdim)`: as [`Tensor::argmin`] along one dim; shapes as
    /// [`Tensor::sum_dim`].
    pub fn argmin_dim(&self, dim: impl Int, keepdim: bool) -> Result<Tensor> {
        arg_impl::<false>(self, Some(dim.to_i64()), keepdim)
    }
    /// `torch.argmin(self, dim=…, keepdim=…)` with `dim` optional: [`ArgmaxOpts`]
    /// (`dim: None, keepdim: true` gives the flat index with every dim kept as size 1).
    pub fn argmin_with(&self, opts: ArgmaxOpts) -> Result<Tensor> {
        arg_impl::<false>(self, opts.dim, opts.keepdim)
    }

    /// `torch.all(self)`: whether every element is non-zero (0-d bool; uint8 for a uint8
    /// input). True for an empty tensor.
    pub fn all(&self) -> Result<Tensor> {
        logic_impl::<true>(self, None, false)
    }
    /// `torch.all(self, dim, keepdim)`: [`Tensor::all_dim`] over one dim.
    pub fn all_dim(&self, dims: impl IntoDims, keepdim: bool) -> Result<Tensor> {
        logic_impl::<true>(self, Some(&dims.into_shape()[..]), keepdim)
    }
    /// `torch.any(self)`: whether some element is non-zero (0-d bool; uint8 for a uint8
    /// input). False for an empty tensor.
    pub fn any(&self) -> Result<Tensor> {
        logic_impl::<false>(self, None, false)
    }
    /// `torch.any(self, dim, keepdim)`: [`Tensor::any_dim`] over one dim.
    pub fn any_dim(&self, dims: impl IntoDims, keepdim: bool) -> Result<Tensor> {
        logic_impl::<false>(self, Some(&dims.into_shape()[..]), keepdim)
    }
}

/// `argmax`/`argmin`'s optional arguments (`dim=None, keepdim=False`), for
/// [`Tensor::argmax_with`] and [`Tensor::argmin_with`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ArgmaxOpts {
    /// The dim to reduce; `None` indexes the flattened tensor.
    pub dim: Option<i64>,
    /// Keep reduced dims as size 1.
    pub keepdim: bool,
}

/// `var`/`std`'s optional arguments (`dim=None, correction=1, keepdim=False`), for
/// [`Tensor::var_with`] and [`Tensor::std_with`].
#[derive(Clone, Debug, PartialEq)]
pub struct VarOpts {
    /// Dims to reduce (`None`: every dim).
    pub dim: Option<crate::args::IntList>,
    /// Divisor `N - correction` (default 1, the sample variance).
    pub correction: f64,
    /// Keep reduced dims as size 1.
    pub keepdim: bool,
}
impl Default for VarOpts {
    fn default() -> Self {
        VarOpts {
            dim: None,
            correction: 1.0,
            keepdim: false,
        }
    }
}

/// How PyTorch prints a norm order in its messages (`2`, `-1`, `1.5`, `inf`).
fn fmt_ord(p: f64) -> String {
    if p.is_infinite() {
        (if p > 0.0 { "inf" } else { "-inf" }).into()
    } else if p.fract() == 0.0 && p.abs() < 1e15 {
        format!("{}", p as i64)
    } else {
        format!("{p}")
    }
}

/// `torch.linalg.vector_norm(t, p, dim, keepdim, dtype=dtype)`, checks in PyTorch's order
/// (`linalg_vector_norm`'s meta function): the input dtype, an empty input with a norm that
/// has no identity (`p < 0` or `inf`), the `dtype` argument, then the dims. The forward:
/// the norm, in `dtype` when given.
pub(crate) fn vector_norm_fwd(
    t: &Tensor,
    p: f64,
    dims: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    if !t.dtype.is_floating_point() {
        return Err(Error::not_implemented(format!(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}",
            t.dtype.scalar_type_name()
        )));
    }
    if t.numel() == 0 && (p < 0.0 || p == f64::INFINITY) {
        let what = |w: &str| {
            Error::runtime(format!(
                "linalg.vector_norm cannot compute the {} norm on an empty {w} because the operation does not have an identity",
                fmt_ord(p)
            ))
        };
        match dims {
            None | Some([]) => return Err(what("tensor")),
            Some(ds) => {
                for &d in ds {
                    if t.size_of(d)? == 0 {
                        return Err(what("dimension"));
                    }
                }
            }
        }
    }
    check_norm_dtype(dtype, t.dtype, "linalg.vector_norm")?;
    let x = match dtype {
        Some(dt) if dt != t.dtype => t.to(dt)?,
        _ => t.alias(),
    };
    let dims = dims.unwrap_or(&[]);
    let (mask, shape) = reduction_shape(&x, Some(dims), keepdim)?;
    dispatch!(x.dtype, T => run_values(&NormR::<T>::new(p), &x, &mask, &shape))
}

/// PyTorch's `check_linalg_norm_dtype`: a `dtype=` argument must be floating and at least as
/// wide as the input's.
fn check_norm_dtype(dtype: Option<DType>, input: DType, name: &str) -> Result<()> {
    if let Some(dt) = dtype {
        if !dt.is_floating_point() {
            return Err(Error::runtime(format!(
                "{name}: dtype should be floating point or complex, but got {}",
                dt.scalar_type_name()
            )));
        }
        if crate::dtype::promote_types(input, dt) != dt {
            return Err(Error::runtime(format!(
                "{name}: the dtype of the input ({}) should be convertible without narrowing to the specified dtype ({})",
                input.scalar_type_name(),
                dt.scalar_type_name()
            )));
        }
    }
    Ok(())
}

/// `torch.linalg.matrix_norm(t, ord, dim)`'s checks for a string order (`'fro'` with more
/// than two dims, `'nuc'`), in PyTorch's order. A valid nuclear norm needs an SVD, which
/// tensile does not have: NotImplementedError.
pub(crate) fn matrix_norm_str(
    t: &Tensor,
    ord: &str,
    dims: &[i64],
    dtype: Option<DType>,
) -> Result<Tensor> {
    if t.dim() < 2 {
        return Err(Error::runtime(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.",
        ));
    }
    if !t.dtype.is_floating_point() {
        return Err(Error::not_implemented(format!(
            "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got {}",
            t.dtype.scalar_type_name()
        )));
    }
    if ord == "nuc" && matches!(t.dtype, DType::Float16 | DType::BFloat16) {
        return Err(Error::runtime(format!(
            "linalg.matrix_norm: Low precision dtypes not supported. Got {}",
            t.dtype.scalar_type_name()
        )));
    }
    if dims.len() != 2 {
        let got: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
        return Err(Error::runtime(format!(
            "linalg.matrix_norm: dim must be a 2-tuple. Got {}",
            got.join(" ")
        )));
    }
    // each dim wrapped on its own (PyTorch's `maybe_wrap_dims`), the first bad one reported
    let w = dims
        .iter()
        .map(|&d| wrap_dim(d, t.dim()))
        .collect::<Result<Vec<_>>>()?;
    if w[0] == w[1] {
        return Err(Error::runtime(format!(
            "linalg.matrix_norm: dims must be different. Got ({}, {})",
            w[0], w[1]
        )));
    }
    check_norm_dtype(dtype, t.dtype, "linalg.matrix_norm")?;
    Err(Error::not_implemented(
        "linalg.matrix_norm: ord='nuc' (the nuclear norm) needs a singular value decomposition, which tensile does not implement",
    ))
}

/// The order `p` of [`Tensor::norm_with`]: a number, or PyTorch's `'fro'` / `'nuc'`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NormP {
    /// A vector p-norm (`inf`, `-inf`, `0` included).
    Num(f64),
    /// `'fro'`: the 2-norm over the dims (at most two of them).
    Fro,
    /// `'nuc'`: the nuclear norm of matrices (not implemented: needs an SVD).
    Nuc,
}
impl From<f64> for NormP {
    fn from(p: f64) -> Self {
        NormP::Num(p)
    }
}
impl From<i32> for NormP {
    fn from(p: i32) -> Self {
        NormP::Num(p as f64)
    }
}

/// `Tensor.norm`'s optional arguments (`p='fro', dim=None, keepdim=False, dtype=None`), for
/// [`Tensor::norm_with`]; a number or a [`NormP`] alone is `p`.
#[derive(Clone, Debug, PartialEq)]
pub struct NormOpts {
    /// The order (default `'fro'`).
    pub p: NormP,
    /// Dims to reduce (`None`: every dim).
    pub dim: Option<crate::args::IntList>,
    /// Keep reduced dims as size 1.
    pub keepdim: bool,
    /// Compute in (and return) this float dtype (at least as wide as the input's).
    pub dtype: Option<DType>,
}
impl Default for NormOpts {
    fn default() -> Self {
        NormOpts {
            p: NormP::Fro,
            dim: None,
            keepdim: false,
            dtype: None,
        }
    }
}
impl From<NormP> for NormOpts {
    fn from(p: NormP) -> Self {
        NormOpts {
            p,
            ..Default::default()
        }
    }
}
impl From<f64> for NormOpts {
    fn from(p: f64) -> Self {
        NormP::from(p).into()
    }
}
impl From<i32> for NormOpts {
    fn from(p: i32) -> Self {
        NormP::from(p).into()
    }
}

/// `nansum`'s optional arguments (`dim=None, keepdim=False, dtype=None`), for
/// [`Tensor::nansum_with`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NansumOpts {
    /// Dims to reduce (`None` or an empty list: every dim).
    pub dim: Option<crate::args::IntList>,
    /// Keep reduced dims as size 1.
    pub keepdim: bool,
    /// Cast the input to this dtype first (the result's dtype).
    pub dtype: Option<DType>,
}

/// `nansum` of `t` over `dims` (`None` or an empty list: every dim), NaNs counted as zero,
/// in `dtype` when given (the input cast first).
pub(crate) fn nansum_fwd(
    t: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let x = match dtype {
        Some(dt) if dt != t.dtype => t.to(dt)?,
        _ => t.alias(),
    };
    let x = if x.dtype.is_floating_point() {
        crate::where_cond(&x.isnan()?, 0.0, &x)?
    } else {
        x
    };
    let r = sum_impl(&x, dims, keepdim)?;
    Ok(match dtype {
        Some(dt) if r.dtype != dt => r.to(dt)?,
        _ => r,
    })
}

/// `var_mean`/`std_mean` (`sqrt`) of `t` over `dims` (`None`: every dim): `(var, mean)`,
/// `name` (`"var_mean"`, `"std_mean"`) in the errors and warnings.
pub(crate) fn var_mean_fwd(
    t: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    correction: f64,
    sqrt: bool,
) -> Result<(Tensor, Tensor)> {
    let name = if sqrt { "std_mean" } else { "var_mean" };
    let v = var_raw_named(t, dims, keepdim, correction, sqrt, Some(name))?;
    Ok((v, mean_impl(t, dims, keepdim)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    fn t64(v: Vec<f64>, shape: &[usize]) -> Tensor {
        Tensor::from_vec(v, shape).unwrap()
    }

    /// `(rows, cols)` reduced along `dim` by `f` over the logical values, in f64.
    fn naive_2d(
        v: &[f64],
        rows: usize,
        cols: usize,
        dim: usize,
        f: impl Fn(&[f64]) -> f64,
    ) -> Vec<f64> {
        if dim == 0 {
            (0..cols)
                .map(|j| f(&(0..rows).map(|i| v[i * cols + j]).collect::<Vec<_>>()))
                .collect()
        } else {
            (0..rows).map(|i| f(&v[i * cols..(i + 1) * cols])).collect()
        }
    }

    fn close(got: &[f64], want: &[f64], rtol: f64) -> bool {
        got.len() == want.len()
            && got
                .iter()
                .zip(want)
                .all(|(g, w)| (g - w).abs() <= rtol * w.abs().max(1.0))
    }

    #[test]
    fn large_reductions_on_every_walk_match_the_definition() {
        // big enough for the parallel paths; odd sizes for remainders; transposed and expanded
        // layouts take the other walk
        let (r, c) = (1500, 1100);
        let base = Tensor::rand_with(
            [r, c],
            (&crate::Generator::new().manual_seed(7), DType::Float64),
        )
        .unwrap();
        let t = base.view_with(vec![c, r], vec![1, c], 0); // transposed view: (c, r)
        let tv = t.to_vec::<f64>();
        for x in [base.alias(), t.alias()] {
            let (rows, cols) = (x.size()[0], x.size()[1]);
            let v = x.to_vec::<f64>();
            for dim in [0usize, 1] {
                let sum = naive_2d(&v, rows, cols, dim, |s| s.iter().sum());
                assert!(close(
                    &x.sum_dim(dim as i64, false).unwrap().to_vec::<f64>(),
                    &sum,
                    1e-12
                ));
                let f32x = x.to(DType::Float32).unwrap();
                let v32 = f32x.to_vec::<f64>();
                let sum32 = naive_2d(&v32, rows, cols, dim, |s| s.iter().sum());
                assert!(close(
                    &f32x.sum_dim(dim as i64, false).unwrap().to_vec::<f64>(),
                    &sum32,
                    1e-6
                ));
                let amax = naive_2d(&v, rows, cols, dim, |s| {
                    s.iter().cloned().fold(f64::MIN, f64::max)
                });
                assert_eq!(x.amax_dim(dim as i64, false).unwrap().to_vec::<f64>(), amax);
                let arg = naive_2d(&v, rows, cols, dim, |s| {
                    s.iter()
                        .enumerate()
                        .fold((0, f64::MIN), |b, (i, &y)| if y > b.1 { (i, y) } else { b })
                        .0 as f64
                });
                assert_eq!(
                    x.argmax_dim(dim as i64, false).unwrap().to_vec::<f64>(),
                    arg
                );
                let var = naive_2d(&v, rows, cols, dim, |s| {
                    let m = s.iter().sum::<f64>() / s.len() as f64;
                    s.iter().map(|y| (y - m) * (y - m)).sum::<f64>() / (s.len() - 1) as f64
                });
                assert!(close(
                    &x.var_dim(dim as i64, false).unwrap().to_vec::<f64>(),
                    &var,
                    1e-10
                ));
            }
            let total: f64 = v.iter().sum();
            assert!(close(&x.sum().unwrap().to_vec::<f64>(), &[total], 1e-12));
            let (i, _) = v
                .iter()
                .enumerate()
                .fold((0, f64::MIN), |b, (i, &y)| if y > b.1 { (i, y) } else { b });
            assert_eq!(x.argmax().unwrap().item::<i64>().unwrap(), i as i64);
        }
        assert_eq!(tv.len(), r * c);
        // a broadcast (stride-0) input: (3, 400000) expanded from (3, 1)
        let col = t64(vec![1.5, -2.0, 0.25], &[3, 1]);
        let e = col.view_with(vec![3, 400_000], vec![1, 0], 0);
        assert_eq!(
            e.sum_dim(1, false).unwrap().to_vec::<f64>(),
            vec![600_000.0, -800_000.0, 100_000.0]
        );
        assert_eq!(e.sum_dim(0, true).unwrap().size(), &[1, 400_000]);
        assert!(
            e.sum_dim(0, false)
                .unwrap()
                .to_vec::<f64>()
                .iter()
                .all(|&y| y == -0.25)
        );
    }

    #[test]
    fn float32_sums_stay_accurate() {
        // 2^22 copies of 0.1f32: a naive running float32 sum is off by about 10%
        let n = 1 << 22;
        let x = Tensor::full_with([n], 0.1f32, DType::Float32).unwrap();
        let want = n as f64 * 0.1f32 as f64;
        let got = x.sum().unwrap().item::<f64>().unwrap();
        assert!((got - want).abs() / want < 1e-6, "{got} vs {want}");
        let col = x
            .view_with(vec![n / 4, 4], vec![4, 1], 0)
            .sum_dim(0, false)
            .unwrap()
            .to_vec::<f64>();
        assert!(
            col.iter()
                .all(|&g| (g - want / 4.0).abs() / (want / 4.0) < 2e-6),
            "{col:?}"
        );
        let m = x.mean().unwrap().item::<f64>().unwrap();
        assert!((m - 0.1f32 as f64).abs() < 1e-7);
    }

    #[test]
    fn index_rules() {
        // first occurrence on ties, NaN wins, flat index in logical order for permuted inputs
        let x = t64(vec![1.0, f64::NAN, 3.0, f64::NAN], &[4]);
        let (v, i) = x.max_dim(0, false).unwrap();
        assert!(v.item::<f64>().unwrap().is_nan() && i.item::<i64>().unwrap() == 1);
        let (v, i) = x.min_dim(0, false).unwrap();
        assert!(v.item::<f64>().unwrap().is_nan() && i.item::<i64>().unwrap() == 1);
        let y = t64(vec![3.0, 1.0, 1.0, 2.0], &[4]);
        let (v, i) = y.min_dim(0, true).unwrap();
        assert_eq!(
            (v.size(), v.to_vec::<f64>(), i.to_vec::<i64>()),
            (&[1usize][..], vec![1.0], vec![1])
        );
        // (2, 2) [[3, 1], [3, 2]] transposed: logical [[3, 3], [1, 2]] → first 3 at flat index 0
        let z = t64(vec![3.0, 1.0, 3.0, 2.0], &[2, 2]).view_with(vec![2, 2], vec![1, 2], 0);
        assert_eq!(z.argmax().unwrap().item::<i64>().unwrap(), 0);
        assert_eq!(z.argmin().unwrap().item::<i64>().unwrap(), 2);
        let k = z
            .argmax_with(ArgmaxOpts {
                dim: None,
                keepdim: true,
            })
            .unwrap();
        assert_eq!((k.size(), k.stride()), (&[1usize, 1][..], &[1usize, 1][..]));
    }

    #[test]
    fn pytorch_values() {
        // expected values computed by PyTorch 2.15
        let xs = Tensor::from_vec(
            vec![
                1.0f32, 2.0, 4.0, -3.0, 0.5, 0.25, 0.5, 0.5, 10.0, -2.0, 3.0, 7.0,
            ],
            [3, 4],
        )
        .unwrap();
        let tol = |g: Vec<f64>, w: &[f64]| assert!(close(&g, w, 1.3e-6), "{g:?} vs {w:?}");
        tol(
            xs.var_dim(0, false).unwrap().to_vec(),
            &[28.58333396911621, 4.020833492279053, 3.25, 25.75],
        );
        tol(
            xs.std_dim(1, false).unwrap().to_vec(),
            &[2.943920373916626, 0.125, 5.196152210235596],
        );
        tol(xs.var().unwrap().to_vec(), &[13.255208015441895]);
        tol(xs.std().unwrap().to_vec(), &[3.640770196914673]);
        tol(
            xs.logsumexp_dim(1, false).unwrap().to_vec(),
            &[4.170615196228027, 1.82940673828125, 10.049461364746094],
        );
        tol(xs.logsumexp().unwrap().to_vec(), &[10.052523612976074]);
        tol(xs.mean_dim(1, false).unwrap().to_vec(), &[1.0, 0.4375, 4.5]);
        let h = Tensor::from_vec(vec![1.5f32, 2.5, 3.5, 1.25, 7.5, 3.0], [6])
            .unwrap()
            .to(DType::Float16)
            .unwrap();
        assert_eq!(h.prod().unwrap().item::<f64>().unwrap(), 369.25);
        let h = Tensor::full_with([5000], 1.1, DType::Float16).unwrap();
        assert_eq!(h.sum().unwrap().item::<f64>().unwrap(), 5500.0);
        let b = Tensor::full_with([1000], 1.1, DType::BFloat16).unwrap();
        assert_eq!(b.mean().unwrap().item::<f64>().unwrap(), 1.1015625);
        let inf = t64(vec![f64::INFINITY, 1.0], &[2]);
        assert_eq!(
            inf.logsumexp_dim(0, false).unwrap().item::<f64>().unwrap(),
            f64::INFINITY
        );
        let ninf = t64(vec![f64::NEG_INFINITY, f64::NEG_INFINITY], &[2]);
        assert_eq!(
            ninf.logsumexp_dim(0, false).unwrap().item::<f64>().unwrap(),
            f64::NEG_INFINITY
        );
        // var of one element, and of an empty dim, is NaN; an empty output stays empty
        assert!(
            Tensor::ones_with([1], DType::Float32)
                .unwrap()
                .var()
                .unwrap()
                .item::<f64>()
                .unwrap()
                .is_nan()
        );
        let v = Tensor::ones_with([0, 3], DType::Float32)
            .unwrap()
            .var_dim(0, false)
            .unwrap();
        assert!(v.size() == [3] && v.to_vec::<f64>().iter().all(|y| y.is_nan()));
        assert_eq!(
            Tensor::ones_with([3, 0], DType::Float32)
                .unwrap()
                .var_dim(0, false)
                .unwrap()
                .size(),
            &[0]
        );
        // all/any with an empty dim list reduce nothing
        let a = Tensor::from_vec(vec![0i64, 2, 3, 0], [2, 2]).unwrap();
        let r = a.any_dim((), false).unwrap();
        assert_eq!(
            (r.size(), r.dtype(), r.to_vec::<i64>()),
            (&[2usize, 2][..], DType::Bool, vec![0, 1, 1, 0])
        );
        assert_eq!(a.sum_dim((), false).unwrap().size(), &[] as &[usize]);
    }

    /// Float products follow PyTorch's order exactly (values from PyTorch 2.15 on x86-64):
    /// runs shorter than four 256-bit vectors multiply left to right, longer ones through
    /// `4V` lane accumulators; columns fold row by row. In float16 the left-to-right
    /// product of the 32 values below overflows to inf before reaching a zero: NaN.
    #[test]
    fn float_products_follow_pytorch_order() {
        let x = t64(
            vec![
                -1.5, -3.5, -3.5, 1.5, 2.0, -2.0, -0.5, -1.0, 1.0, 2.5, 0.5, -2.0, -3.0, 3.5, -2.0,
                -3.5, 0.5, 2.0, -0.5, 4.0, 3.5, 0.0, -3.0, 3.5, 0.0, 0.5, -3.0, -3.0, 0.5, 4.0,
                2.0, 3.0,
            ],
            &[4, 2, 1, 4],
        )
        .to(DType::Float16)
        .unwrap();
        assert!(x.prod().unwrap().item::<f64>().unwrap().is_nan());
        let vals = |n: usize| -> Vec<f64> {
            (0..n)
                .map(|i| 0.5 + ((i * 37) % 23) as f64 / 16.0)
                .collect()
        };
        for (dt, want) in [
            (DType::Float16, 9576.0),
            (DType::BFloat16, 9792.0),
            (DType::Float32, 9574.376953125),
            (DType::Float64, 9574.37776311453),
        ] {
            let t = t64(vals(100), &[100]).to(dt).unwrap();
            assert_eq!(t.prod().unwrap().item::<f64>().unwrap(), want, "{dt:?}");
        }
        let cols = t64(vals(60), &[20, 3]).to(DType::Float16).unwrap();
        assert_eq!(
            cols.prod_dim(0, false).unwrap().to_vec::<f64>(),
            vec![11.328125, 5.07421875, 4.87890625]
        );
    }

    #[test]
    fn errors_in_pytorch_order() {
        let e = |r: Result<Tensor>| {
            let e = r.unwrap_err();
            (e.kind(), e.to_string())
        };
        let f = Tensor::ones_with([2, 3], DType::Float32).unwrap();
        assert_eq!(
            e(f.logsumexp_dim((), false)),
            (
                ErrorKind::RuntimeError,
                "output with shape [] doesn't match the broadcast shape [1, 1]".into()
            )
        );
        assert_eq!(f.logsumexp_dim((), true).unwrap().size(), &[1, 1]);
        let empty = Tensor::ones_with([0], DType::Float32).unwrap();
        assert_eq!(
            e(empty.max()),
            (
                ErrorKind::RuntimeError,
                "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.".into()
            )
        );
        assert_eq!(
            e(Tensor::ones_with([2, 0], DType::Float32)
                .unwrap()
                .amin_dim([-1], false)),
            (
                ErrorKind::IndexError,
                "amin(): Expected reduction dim -1 to have non-zero size.".into()
            )
        );
        assert_eq!(
            e(Tensor::ones_with([0], DType::Bool).unwrap().argmax()),
            (
                ErrorKind::NotImplementedError,
                "argmax(): does not support bool input".into()
            )
        );
        assert_eq!(
            e(Tensor::ones_with([3], DType::Int32).unwrap().mean_dim(5, false)),
            (
                ErrorKind::NotImplementedError,
                "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Int".into()
            )
        );
        assert_eq!(
            e(f.sum_dim([1, -1], false)),
            (
                ErrorKind::RuntimeError,
                "dim 1 appears multiple times in the list of dims".into()
            )
        );
        assert_eq!(
            e(f.prod_dim(2, false)),
            (
                ErrorKind::IndexError,
                "Dimension out of range (expected to be in range of [-2, 1], but got 2)".into()
            )
        );
    }

    /// `Tensor.norm`: `'fro'` over at most two dims is the vector 2-norm; over more, and
    /// `'nuc'`, it is `linalg.matrix_norm` with its errors; the empty-input rule of `inf`.
    #[test]
    fn norm_paths_and_errors() {
        let x = t64(vec![3.0, 4.0, 0.0, 0.0, 0.0, 0.0], &[2, 3]);
        assert_eq!(x.norm().unwrap().to_vec::<f64>(), vec![5.0]);
        let r = x.norm_with(NormOpts {
            p: NormP::Num(1.0),
            dim: Some([1i64].into_iter().collect()),
            keepdim: true,
            dtype: None,
        });
        assert_eq!(r.unwrap().to_vec::<f64>(), vec![7.0, 0.0]);
        let fro3 = NormOpts {
            dim: Some([0i64, 1, 1].into_iter().collect()),
            ..Default::default()
        };
        assert_eq!(
            x.norm_with(fro3).unwrap_err().message(),
            "linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 1"
        );
        let v = t64(vec![1.0], &[1]);
        assert_eq!(
            v.norm_with(NormP::Nuc).unwrap_err().message(),
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        );
        let e = Tensor::zeros_with([0, 3], DType::Float64).unwrap();
        assert_eq!(
            e.norm_with(f64::INFINITY).unwrap_err().message(),
            "linalg.vector_norm cannot compute the inf norm on an empty tensor because the operation does not have an identity"
        );
        let l = Tensor::from_vec(vec![1i64, 2], [2]).unwrap();
        assert_eq!(l.norm().unwrap_err().kind(), ErrorKind::NotImplementedError);
    }

    /// `nansum` counts NaN as zero; integers sum to int64.
    #[test]
    fn nansum_skips_nan() {
        let x = t64(vec![1.0, f64::NAN, 2.0], &[3]);
        assert_eq!(x.nansum().unwrap().to_vec::<f64>(), vec![3.0]);
        let i = Tensor::from_vec(vec![1i32, 2], [2]).unwrap();
        assert_eq!(i.nansum().unwrap().dtype(), DType::Int64);
    }
}
