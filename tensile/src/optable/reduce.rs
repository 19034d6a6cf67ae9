//! The reductions that record a gradient: one row each in [`ReduceId`] (one result:
//! `sum`, `mean`, `prod`, `amax`, `var`, `logsumexp`, `norm`, `median`, …) or [`MomentsId`]
//! (`var_mean`, `std_mean`: two results, one node). The forward functions are in
//! [`crate::ops::reduce`] and [`crate::ops::sort`] (`median`); the derivative of a row, in
//! [`crate::autograd::formulas`], is picked by a `match` on its id. `max(dim)`/`min(dim)`,
//! which also return indices, are rows of [`crate::optable::select`].
//!
//! "This module's docs", in the methods' docs, are these (the reductions' semantics are in
//! `ops/reduce.rs`). Dims: every `*_dims` method takes a list of dims (negative dims count
//! from the end; a repeated dim is an error; an empty list reduces every dim, as `dim=[]` does
//! in PyTorch); a 0-d tensor accepts the dims `0` and `-1`. Errors common to every reduction:
//! * `Dimension out of range (expected to be in range of [-2, 1], but got 2)` (IndexError);
//! * `dim 1 appears multiple times in the list of dims` (RuntimeError);
//! * an output too large to allocate: `DefaultCPUAllocator: can't allocate memory: …`.

use crate::args::{Int, IntoDims};
use crate::autograd::formulas::{moments, norm, reduce};
use crate::autograd::no_grad;
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::reduce::{
    NansumOpts, NormOpts, NormP, VarOpts, all_dims, extremum_raw, logsumexp_raw, matrix_norm_str,
    max_min_dim_raw, mean_impl, nansum_fwd, prod_raw, sum_impl, var_mean_fwd, var_raw,
    vector_norm_fwd,
};
use crate::ops::sort::median_all;
use crate::optable::select::SelectId;
use crate::tensor::Tensor;

op_ids! {
    /// A reduction of the table with one result (see [`crate::OpId`]).
    pub enum ReduceId {
        /// [`Tensor::sum`]
        Sum = "sum" ["sum", "sum_dim"],
        /// [`Tensor::nansum`]
        Nansum = "nansum" ["nansum", "nansum_dim", "nansum_with"],
        /// [`Tensor::mean`]
        Mean = "mean" ["mean", "mean_dim"],
        /// [`Tensor::prod`]
        Prod = "prod" ["prod", "prod_dim"],
        /// [`Tensor::amax`]
        Amax = "amax" ["amax", "amax_dim"],
        /// [`Tensor::amin`]
        Amin = "amin" ["amin", "amin_dim"],
        /// [`Tensor::max`] (of every element)
        Max = "max" ["max"],
        /// [`Tensor::min`] (of every element)
        Min = "min" ["min"],
        /// [`Tensor::var`]
        Var = "var" ["var", "var_dim", "var_with"],
        /// [`Tensor::std`]
        Std = "std" ["std", "std_dim", "std_with"],
        /// [`Tensor::logsumexp`]
        Logsumexp = "logsumexp" ["logsumexp", "logsumexp_dim"],
        /// [`Tensor::norm`]
        Norm = "norm" ["norm", "norm_with"],
        /// `at::norm(self, p, dim, keepdim)` as PyTorch's composites call it
        /// (`pairwise_distance`): [`vector_norm_dim`]
        NormDim = "norm.ScalarOpt_dim" [],
        /// [`Tensor::median`] (of every element)
        Median = "median" ["median"],
        /// [`Tensor::nanmedian`] (of every element)
        Nanmedian = "nanmedian" ["nanmedian"],
    }
}

impl ReduceId {
    /// The row's derivative: records the node of `r = self(x)` over `over` (when grad mode is
    /// on and `x` requires grad).
    pub(crate) fn record(self, r: Tensor, x: &Tensor, over: Over<'_>) -> Result<Tensor> {
        let Over {
            dims,
            keepdim,
            param,
        } = over;
        let listed = dims.map(|d| (d, keepdim));
        let given = dims.unwrap_or(&[]);
        match self {
            ReduceId::Sum => reduce::sum(r, x, listed, false),
            ReduceId::Nansum => reduce::sum(r, x, listed, true),
            ReduceId::Mean => reduce::mean(r, x, listed),
            ReduceId::Prod => reduce::prod(r, x, dims.and_then(|d| d.first().copied()), keepdim),
            ReduceId::Amax => reduce::extremum(r, x, given, keepdim, "AmaxBackward0"),
            ReduceId::Amin => reduce::extremum(r, x, given, keepdim, "AminBackward0"),
            ReduceId::Max => reduce::extremum(r, x, given, keepdim, "MaxBackward1"),
            ReduceId::Min => reduce::extremum(r, x, given, keepdim, "MinBackward1"),
            ReduceId::Var => reduce::var(r, x, dims, keepdim, param, false),
            ReduceId::Std => reduce::var(r, x, dims, keepdim, param, true),
            ReduceId::Logsumexp => reduce::logsumexp(r, x, given, keepdim),
            ReduceId::Norm => {
                norm::vector_norm("LinalgVectorNormBackward0", r, x, param, given, keepdim)
            }
            ReduceId::NormDim => norm::vector_norm("NormBackward1", r, x, param, given, keepdim),
            ReduceId::Median => reduce::evenly_distribute(r, x, "MedianBackward0"),
            ReduceId::Nanmedian => reduce::evenly_distribute(r, x, "NanmedianBackward0"),
        }
    }
}

/// What a reduction's derivative reads besides its input and its result.
#[derive(Clone, Copy)]
pub(crate) struct Over<'a> {
    /// The reduced dims as the method received them (`None`: the method without dims).
    dims: Option<&'a [i64]>,
    /// Whether the reduced dims are kept (size 1).
    keepdim: bool,
    /// `var`/`std`: the correction (the divisor is `N - correction`); `norm`: the order `p`;
    /// unused by the other rows.
    param: f64,
}

impl<'a> Over<'a> {
    /// Every dim (the method without dims), not kept.
    pub(crate) const ALL: Over<'a> = Over {
        dims: None,
        keepdim: false,
        param: 0.0,
    };

    /// `dims` as given (`None`: every dim), kept as size 1 or not.
    pub(crate) fn new(dims: Option<&'a [i64]>, keepdim: bool) -> Over<'a> {
        Over {
            dims,
            keepdim,
            param: 0.0,
        }
    }

    /// The row's parameter (`var`/`std`'s correction, `norm`'s `p`).
    pub(crate) fn param(self, param: f64) -> Over<'a> {
        Over { param, ..self }
    }
}

op_ids! {
    /// `var_mean` or `std_mean` (see [`crate::OpId`]): two results, one node.
    pub enum MomentsId {
        /// [`var_mean`]
        VarMean = "var_mean" [],
        /// [`std_mean`]
        StdMean = "std_mean" [],
    }
}

impl MomentsId {
    /// Whether the op is `std_mean` (the forward function's and the formula's flag).
    fn sqrt(self) -> bool {
        match self {
            MomentsId::VarMean => false,
            MomentsId::StdMean => true,
        }
    }

    /// Runs the op on `x` (under no grad) and records its node (`VarMeanBackward0`,
    /// `StdMeanBackward0`).
    fn call(self, x: &Tensor, opts: VarOpts) -> Result<(Tensor, Tensor)> {
        let VarOpts {
            dim,
            correction,
            keepdim,
        } = opts;
        let dims = dim.as_deref();
        let (v, m) = unrecorded(|| var_mean_fwd(x, dims, keepdim, correction, self.sqrt()))?;
        moments::var_mean(v, m, x, dims, keepdim, correction, self.sqrt())
    }
}

/// Runs a forward function under no grad (the ops whose forward is composed of other ops:
/// nothing of it is recorded but the row's node).
fn unrecorded<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    let _ng = no_grad();
    f()
}

/// `prod` over every dim or along `dim`.
fn prod_impl(t: &Tensor, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
    let r = unrecorded(|| prod_raw(t, dim, keepdim))?;
    let d = dim.map(|d| [d]);
    ReduceId::Prod.record(r, t, Over::new(d.as_ref().map(|d| &d[..]), keepdim))
}

/// `amax`/`amin`/`max`/`min` (`MAX`; the row `id`) over `dims`; `name` names the op in the
/// forward's errors.
fn extremum_impl<const MAX: bool>(
    id: ReduceId,
    t: &Tensor,
    dims: &[i64],
    keepdim: bool,
    name: &str,
) -> Result<Tensor> {
    let r = unrecorded(|| extremum_raw::<MAX>(t, dims, keepdim, name))?;
    id.record(r, t, Over::new(Some(dims), keepdim))
}

/// `max(dim)` / `min(dim)` (`MAX`): values and indices.
fn max_min_dim<const MAX: bool>(t: &Tensor, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    let r = unrecorded(|| max_min_dim_raw::<MAX>(t, dim, keepdim))?;
    let id = if MAX {
        SelectId::MaxDim
    } else {
        SelectId::MinDim
    };
    id.record(r, t, dim, keepdim)
}

/// `var` / `std` (`sqrt`) over `dims` (`None`: every dim) with `correction`.
fn var_impl(
    t: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    correction: f64,
    sqrt: bool,
) -> Result<Tensor> {
    let r = unrecorded(|| var_raw(t, dims, keepdim, correction, sqrt))?;
    let id = if sqrt { ReduceId::Std } else { ReduceId::Var };
    id.record(r, t, Over::new(dims, keepdim).param(correction))
}

/// `logsumexp` over `dims`.
fn logsumexp_impl(t: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    let r = unrecorded(|| logsumexp_raw(t, dims, keepdim))?;
    ReduceId::Logsumexp.record(r, t, Over::new(Some(dims), keepdim))
}

/// `linalg.vector_norm(t, p, dims, keepdim, dtype=dtype)`, recorded as `norm`
/// (`LinalgVectorNormBackward0`).
fn vector_norm_full(
    t: &Tensor,
    p: f64,
    dims: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let r = unrecorded(|| vector_norm_fwd(t, p, dims, keepdim, dtype))?;
    ReduceId::Norm.record(r, t, Over::new(dims, keepdim).param(p))
}

/// `at::norm(t, p, dims, keepdim)` (the `norm.ScalarOpt_dim` overload PyTorch's C++
/// composites call, e.g. `pairwise_distance`): the values of `linalg.vector_norm` over
/// `dims`, recorded as `NormBackward1`. Shapes, dtypes and errors: [`Tensor::norm_with`]'s.
pub(crate) fn vector_norm_dim(t: &Tensor, p: f64, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    let r = unrecorded(|| vector_norm_fwd(t, p, Some(dims), keepdim, None))?;
    ReduceId::NormDim.record(r, t, Over::new(Some(dims), keepdim).param(p))
}

/// `nansum` over `dims` (`None`: every dim), in `dtype` when given.
fn nansum_impl(
    t: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let r = unrecorded(|| nansum_fwd(t, dims, keepdim, dtype))?;
    ReduceId::Nansum.record(r, t, Over::new(dims, keepdim))
}

impl Tensor {
    /// `torch.sum(self)`: the sum of every element, as a 0-d tensor.
    ///
    /// dtype: integers and bool sum in int64 and return int64 (wrapping on overflow); floats
    /// keep their dtype (float16 and bfloat16 accumulate in float32). An empty tensor sums to 0.
    pub fn sum(&self) -> Result<Tensor> {
        let r = sum_impl(self, None, false)?;
        ReduceId::Sum.record(r, self, Over::ALL)
    }
    /// `torch.sum(self, dim, keepdim)`: [`Tensor::sum_dim`] over one dim.
    pub fn sum_dim(&self, dims: impl IntoDims, keepdim: bool) -> Result<Tensor> {
        let dims = dims.into_shape();
        let r = sum_impl(self, Some(&dims[..]), keepdim)?;
        ReduceId::Sum.record(r, self, Over::new(Some(&dims[..]), keepdim))
    }

    /// `torch.mean(self)`: the mean of every element (0-d). NaN for an empty tensor.
    ///
    /// Floats only: other dtypes give NotImplementedError `mean(): could not infer output
    /// dtype. Input dtype must be either a floating point or complex dtype. Got: Long`.
    pub fn mean(&self) -> Result<Tensor> {
        let r = mean_impl(self, None, false)?;
        ReduceId::Mean.record(r, self, Over::ALL)
    }
    /// `torch.mean(self, dim, keepdim)`: [`Tensor::mean_dim`] over one dim.
    pub fn mean_dim(&self, dims: impl IntoDims, keepdim: bool) -> Result<Tensor> {
        let dims = dims.into_shape();
        let r = mean_impl(self, Some(&dims[..]), keepdim)?;
        ReduceId::Mean.record(r, self, Over::new(Some(&dims[..]), keepdim))
    }

    /// `torch.prod(self)`: the product of every element (0-d); 1 for an empty tensor.
    ///
    /// dtype: integers and bool multiply in int64 and return int64; floats keep their dtype
    /// (float16 and bfloat16 round after every multiplication, as PyTorch's do).
    pub fn prod(&self) -> Result<Tensor> {
        prod_impl(self, None, false)
    }
    /// `torch.prod(self, dim, keepdim)`: the product along one dim. Shapes as
    /// [`Tensor::sum_dim`], dtype as [`Tensor::prod`], dim errors as this module's docs.
    pub fn prod_dim(&self, dim: impl Int, keepdim: bool) -> Result<Tensor> {
        prod_impl(self, Some(dim.to_i64()), keepdim)
    }

    /// `torch.amax(self)`: the largest element (0-d), same dtype; NaN if any element is NaN.
    ///
    /// Error for an empty tensor (RuntimeError): `amax(): Expected reduction dim to be
    /// specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.`
    pub fn amax(&self) -> Result<Tensor> {
        extremum_impl::<true>(ReduceId::Amax, self, &[], false, "amax()")
    }
    /// `torch.amax(self, dim, keepdim)`: [`Tensor::amax_dim`] over one dim.
    pub fn amax_dim(&self, dims: impl IntoDims, keepdim: bool) -> Result<Tensor> {
        extremum_impl::<true>(
            ReduceId::Amax,
            self,
            &dims.into_shape()[..],
            keepdim,
            "amax()",
        )
    }
    /// `torch.amin(self)`: as [`Tensor::amax`], the smallest element (`amin(): …` errors).
    pub fn amin(&self) -> Result<Tensor> {
        extremum_impl::<false>(ReduceId::Amin, self, &[], false, "amin()")
    }
    /// `torch.amin(self, dim, keepdim)`: [`Tensor::amin_dim`] over one dim.
    pub fn amin_dim(&self, dims: impl IntoDims, keepdim: bool) -> Result<Tensor> {
        extremum_impl::<false>(
            ReduceId::Amin,
            self,
            &dims.into_shape()[..],
            keepdim,
            "amin()",
        )
    }

    /// `torch.max(self)`: the largest element (0-d), NaN if any is NaN.
    ///
    /// Error for an empty tensor (RuntimeError): `max(): Expected reduction dim to be
    /// specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.`
    pub fn max(&self) -> Result<Tensor> {
        extremum_impl::<true>(ReduceId::Max, self, &[], false, "max()")
    }
    /// `torch.min(self)`: as [`Tensor::max`], the smallest element.
    pub fn min(&self) -> Result<Tensor> {
        extremum_impl::<false>(ReduceId::Min, self, &[], false, "min()")
    }

    /// `torch.max(self, dim, keepdim)`: `(values, indices)` along `dim`. `values` has
    /// `self`'s dtype, `indices` int64: the index of the first maximum (ties go to the lower
    /// index; a NaN counts as the maximum, the first NaN wins).
    ///
    /// Shapes as [`Tensor::sum_dim`]. Errors: the dim errors; a size-0 `dim` (IndexError,
    /// wrapped dim): `max(): Expected reduction dim 1 to have non-zero size.`
    pub fn max_dim(&self, dim: impl Int, keepdim: bool) -> Result<(Tensor, Tensor)> {
        max_min_dim::<true>(self, dim.to_i64(), keepdim)
    }
    /// `torch.min(self, dim, keepdim)`: as [`Tensor::max_dim`] for the first minimum
    /// (`min(): …` errors).
    pub fn min_dim(&self, dim: impl Int, keepdim: bool) -> Result<(Tensor, Tensor)> {
        max_min_dim::<false>(self, dim.to_i64(), keepdim)
    }
    /// `torch.var(self)`: the sample variance of every element (PyTorch's default
    /// `correction=1`: the sum of squared deviations divided by `N - 1`), 0-d, same dtype.
    /// NaN when `N <= 1` (PyTorch also warns `var(): degrees of freedom is <= 0. Correction
    /// should be strictly less than the reduction factor (input numel divided by output
    /// numel).`, sent to [`crate::warnings`]).
    ///
    /// Floats only: other dtypes give NotImplementedError `std and var only support floating
    /// point and complex dtypes` (before any dim error).
    pub fn var(&self) -> Result<Tensor> {
        var_impl(self, None, false, 1.0, false)
    }
    /// `torch.var(self, dim, keepdim)`: [`Tensor::var_dim`] over one dim.
    pub fn var_dim(&self, dims: impl IntoDims, keepdim: bool) -> Result<Tensor> {
        var_impl(self, Some(&dims.into_shape()[..]), keepdim, 1.0, false)
    }
    /// `torch.var(self, dim, correction=c, keepdim=k)`: the variance with `N - correction` as
    /// the divisor (`correction = 0` is the population variance); `dim: None` reduces every
    /// dim. [`VarOpts`]: `x.var_with(VarOpts { correction: 0.0, ..Default::default() })`.
    /// Shapes and errors as [`Tensor::var_dim`].
    pub fn var_with(&self, opts: impl Into<VarOpts>) -> Result<Tensor> {
        let VarOpts {
            dim,
            correction,
            keepdim,
        } = opts.into();
        var_impl(self, dim.as_deref(), keepdim, correction, false)
    }
    /// `torch.std(self)`: the square root of [`Tensor::var`] (`std(): …` warning).
    pub fn std(&self) -> Result<Tensor> {
        var_impl(self, None, false, 1.0, true)
    }
    /// `torch.std(self, dim, keepdim)`: [`Tensor::std_dim`] over one dim.
    pub fn std_dim(&self, dims: impl IntoDims, keepdim: bool) -> Result<Tensor> {
        var_impl(self, Some(&dims.into_shape()[..]), keepdim, 1.0, true)
    }
    /// `torch.std(self, dim, correction=c, keepdim=k)`: the square root of
    /// [`Tensor::var_with`].
    pub fn std_with(&self, opts: impl Into<VarOpts>) -> Result<Tensor> {
        let VarOpts {
            dim,
            correction,
            keepdim,
        } = opts.into();
        var_impl(self, dim.as_deref(), keepdim, correction, true)
    }

    /// `torch.logsumexp(self, tuple(range(self.dim())))`: `log(Σ exp(x))` over every element,
    /// computed stably as PyTorch does (`m = amax(x)`, with ±∞ maxima replaced by 0, then
    /// `log(Σ exp(x - m)) + m`, every step in `self`'s dtype). 0-d output; `-inf` for an empty
    /// tensor. Integer and bool inputs give float32.
    pub fn logsumexp(&self) -> Result<Tensor> {
        logsumexp_impl(self, &all_dims(self), false)
    }
    /// `torch.logsumexp(self, dim, keepdim)`: [`Tensor::logsumexp_dim`] over one dim.
    pub fn logsumexp_dim(&self, dims: impl IntoDims, keepdim: bool) -> Result<Tensor> {
        logsumexp_impl(self, &dims.into_shape()[..], keepdim)
    }
}

impl Tensor {
    /// `torch.norm(self)` / `self.norm()`: the Frobenius (2-) norm of every element, 0-d, same
    /// float dtype (`linalg.vector_norm(self, 2)`, `LinalgVectorNormBackward0`).
    ///
    /// Error for a non-float input (NotImplementedError): `linalg.vector_norm: Expected a
    /// floating point or complex tensor as input. Got Long`.
    pub fn norm(&self) -> Result<Tensor> {
        self.norm_with(NormOpts::default())
    }

    /// `self.norm(p, dim, keepdim, dtype=…)` ([`NormOpts`]; a number alone is `p`). As
    /// PyTorch's `torch.norm`: a number `p`, or `'fro'` with no dim or at most two dims, is
    /// `torch.linalg.vector_norm(self, p, dim, keepdim, dtype=dtype)` (`'fro'` is `p = 2`);
    /// otherwise `torch.linalg.matrix_norm` (`'nuc'`; `'fro'` over 3+ dims only errors).
    ///
    /// Shapes: `dim` reduced (kept as size 1 with `keepdim`); dtype: the input's, or `dtype`.
    /// Errors, in order (vector norms): `linalg.vector_norm: Expected a floating point or
    /// complex tensor as input. Got Long` (NotImplementedError); on an empty input with
    /// `p < 0` or `inf`: `linalg.vector_norm cannot compute the inf norm on an empty tensor
    /// because the operation does not have an identity` (`… on an empty dimension …` when a
    /// reduced dim has size 0); `linalg.vector_norm: the dtype of the input (Double) should be
    /// convertible without narrowing to the specified dtype (Float)`; the dim errors of this
    /// module. Matrix norms: `linalg.matrix_norm: The input tensor A must have at least 2
    /// dimensions.`, `linalg.matrix_norm: Expected a floating point or complex tensor as
    /// input. Got Long`, `linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 2`,
    /// `linalg.matrix_norm: dims must be different. Got (0, 0)`; a valid `'nuc'` gives
    /// NotImplementedError (tensile has no SVD).
    pub fn norm_with(&self, opts: impl Into<NormOpts>) -> Result<Tensor> {
        let NormOpts {
            p,
            dim,
            keepdim,
            dtype,
        } = opts.into();
        match p {
            NormP::Num(p) => vector_norm_full(self, p, dim.as_deref(), keepdim, dtype),
            NormP::Fro if dim.as_ref().is_none_or(|d| d.len() <= 2) => {
                vector_norm_full(self, 2.0, dim.as_deref(), keepdim, dtype)
            }
            _ => {
                let dims: Vec<i64> = match dim {
                    Some(d) => d.to_vec(),
                    None => (0..self.dim() as i64).collect(),
                };
                let ord = if p == NormP::Nuc { "nuc" } else { "fro" };
                matrix_norm_str(self, ord, &dims, dtype)
            }
        }
    }

    /// `torch.nansum(self)`: the sum of every element, NaNs counted as zero (0-d). dtype as
    /// [`Tensor::sum`] (integers and bool give int64). Gradient: `NansumBackward0` (zero where
    /// the input is NaN).
    pub fn nansum(&self) -> Result<Tensor> {
        nansum_impl(self, None, false, None)
    }
    /// `torch.nansum(self, dim, keepdim)`: [`Tensor::nansum`] over `dims`; shapes and dim
    /// errors as [`Tensor::sum_dim`].
    pub fn nansum_dim(&self, dims: impl IntoDims, keepdim: bool) -> Result<Tensor> {
        let dims = dims.into_shape();
        nansum_impl(self, Some(&dims[..]), keepdim, None)
    }
    /// `torch.nansum(self, dim=…, keepdim=…, dtype=…)` ([`NansumOpts`]): with `dtype`, the
    /// input is cast to it first and the result has it.
    pub fn nansum_with(&self, opts: NansumOpts) -> Result<Tensor> {
        nansum_impl(self, opts.dim.as_deref(), opts.keepdim, opts.dtype)
    }
}

impl Tensor {
    /// `torch.median(self)`: the lower median of all elements (the `(n-1)/2`-th smallest), 0-d,
    /// `self`'s dtype; NaN when any element is NaN; NaN cast to the dtype for an empty input
    /// (`-2147483648` for int32).
    ///
    /// Error: `"median_cpu" not implemented for 'Bool'` (NotImplementedError).
    pub fn median(&self) -> Result<Tensor> {
        let r = median_all(self, false)?;
        ReduceId::Median.record(r, self, Over::ALL)
    }

    /// `torch.nanmedian(self)`: as [`Tensor::median`], ignoring NaNs (NaN only when every
    /// element is NaN).
    pub fn nanmedian(&self) -> Result<Tensor> {
        let r = median_all(self, true)?;
        ReduceId::Nanmedian.record(r, self, Over::ALL)
    }
}

/// `torch.var_mean(input)`: `(var, mean)` of every element (`correction=1`), two 0-d tensors
/// of `input`'s float dtype; one `VarMeanBackward0` node (gradients flow from both).
///
/// Errors: non-float input (NotImplementedError) `var_mean only support floating point and
/// complex dtypes`; `N <= correction` warns `var_mean(): degrees of freedom is <= 0. …` and
/// gives NaN.
pub fn var_mean(input: &Tensor) -> Result<(Tensor, Tensor)> {
    MomentsId::VarMean.call(input, VarOpts::default())
}
/// `torch.var_mean(input, dim, correction=c, keepdim=k)` ([`VarOpts`]): shapes as
/// [`Tensor::var_with`], errors as [`var_mean`] then the dim errors.
pub fn var_mean_with(input: &Tensor, opts: impl Into<VarOpts>) -> Result<(Tensor, Tensor)> {
    MomentsId::VarMean.call(input, opts.into())
}
/// `torch.std_mean(input)`: `(std, mean)`, as [`var_mean`] with the square root
/// (`StdMeanBackward0`; `std_mean only support floating point and complex dtypes`).
pub fn std_mean(input: &Tensor) -> Result<(Tensor, Tensor)> {
    MomentsId::StdMean.call(input, VarOpts::default())
}
/// `torch.std_mean(input, dim, correction=c, keepdim=k)` ([`VarOpts`]).
pub fn std_mean_with(input: &Tensor, opts: impl Into<VarOpts>) -> Result<(Tensor, Tensor)> {
    MomentsId::StdMean.call(input, opts.into())
}
