//! `torch.nn.functional` pooling: max, average, adaptive, power-average pooling and max
//! unpooling over 1, 2 and 3 spatial dims, with PyTorch's output sizes, checks, error texts
//! and output memory formats (a channels-last 4-d/5-d input gives a channels-last output).
//!
//! The 1-d ops are the 2-d ones on `input.unsqueeze(-2)` (`unsqueeze(-1)` for unpooling),
//! squeezed back, as in PyTorch. The forward code (the windows' kernel and the output layout) is
//! [`crate::ops::pool`]'s; the derivatives are `autograd/formulas/pool.rs`'s.

use crate::Tensor;
use crate::args::{IntList, IntoShape};
use crate::dtype::DType;
use crate::error::{Error, Result, fmt_list};
use crate::geometry::pool::Reduce;
use crate::geometry::pool::{self as gp, Win};
use crate::ops::pool::{max_unpool2d_core_impl, run_pool, suggests_cl};
use crate::tensor::Scalar;

op_ids! {
    /// A pooling op of `torch.nn.functional` (see [`crate::OpId`]).
    pub enum PoolId {
        /// [`max_pool1d_with`]
        MaxPool1d = "max_pool1d" ["max_pool1d", "max_pool1d_with", "max_pool1d_with_indices"],
        /// [`max_pool2d_with`]
        MaxPool2d = "max_pool2d" ["max_pool2d", "max_pool2d_with", "max_pool2d_with_indices"],
        /// [`max_pool3d_with`]
        MaxPool3d = "max_pool3d" ["max_pool3d", "max_pool3d_with", "max_pool3d_with_indices"],
        /// [`avg_pool1d_with`]
        AvgPool1d = "avg_pool1d" ["avg_pool1d", "avg_pool1d_with"],
        /// [`avg_pool2d_with`]
        AvgPool2d = "avg_pool2d" ["avg_pool2d", "avg_pool2d_with"],
        /// [`avg_pool3d_with`]
        AvgPool3d = "avg_pool3d" ["avg_pool3d", "avg_pool3d_with"],
        /// [`adaptive_avg_pool1d`]
        AdaptiveAvgPool1d = "adaptive_avg_pool1d" ["adaptive_avg_pool1d"],
        /// [`adaptive_avg_pool2d`]
        AdaptiveAvgPool2d = "adaptive_avg_pool2d" ["adaptive_avg_pool2d"],
        /// [`adaptive_max_pool1d_with_indices`]
        AdaptiveMaxPool1d = "adaptive_max_pool1d" ["adaptive_max_pool1d", "adaptive_max_pool1d_with_indices"],
        /// [`adaptive_max_pool2d_with_indices`]
        AdaptiveMaxPool2d = "adaptive_max_pool2d" ["adaptive_max_pool2d", "adaptive_max_pool2d_with_indices"],
        /// [`adaptive_avg_pool3d`]
        AdaptiveAvgPool3d = "adaptive_avg_pool3d" ["adaptive_avg_pool3d"],
        /// [`adaptive_max_pool3d_with_indices`]
        AdaptiveMaxPool3d = "adaptive_max_pool3d" ["adaptive_max_pool3d", "adaptive_max_pool3d_with_indices"],
        /// [`lp_pool1d_with`]
        LpPool1d = "lp_pool1d" ["lp_pool1d", "lp_pool1d_with"],
        /// [`lp_pool2d_with`]
        LpPool2d = "lp_pool2d" ["lp_pool2d", "lp_pool2d_with"],
        /// [`max_unpool1d_with`]
        MaxUnpool1d = "max_unpool1d" ["max_unpool1d", "max_unpool1d_with"],
        /// [`max_unpool2d_with`]
        MaxUnpool2d = "max_unpool2d" ["max_unpool2d", "max_unpool2d_with"],
    }
}

// ------------------------------------------------------------------ options

/// The optional arguments of `F.max_pool{1,2,3}d` (`stride=None, padding=0, dilation=1,
/// ceil_mode=False`), for the `max_pool*_with` forms: a list is `stride`, a tuple
/// `(stride, padding)`, `(stride, padding, dilation)` or `(stride, padding, dilation,
/// ceil_mode)`. One-element lists apply to every spatial dim; `stride: None` (or an empty
/// list) means `kernel_size`.
#[derive(Clone, Debug, PartialEq)]
pub struct MaxPoolOpts {
    pub stride: Option<IntList>,
    pub padding: IntList,
    pub dilation: IntList,
    pub ceil_mode: bool,
}
impl Default for MaxPoolOpts {
    fn default() -> Self {
        MaxPoolOpts {
            stride: None,
            padding: IntList::from_slice(&[0]),
            dilation: IntList::from_slice(&[1]),
            ceil_mode: false,
        }
    }
}
impl<S: IntoShape> From<S> for MaxPoolOpts {
    fn from(stride: S) -> Self {
        MaxPoolOpts {
            stride: Some(stride.into_shape()),
            ..Default::default()
        }
    }
}
impl<S: IntoShape, P: IntoShape> From<(S, P)> for MaxPoolOpts {
    fn from((s, p): (S, P)) -> Self {
        MaxPoolOpts {
            stride: Some(s.into_shape()),
            padding: p.into_shape(),
            ..Default::default()
        }
    }
}
impl<S: IntoShape, P: IntoShape, D: IntoShape> From<(S, P, D)> for MaxPoolOpts {
    fn from((s, p, d): (S, P, D)) -> Self {
        MaxPoolOpts {
            stride: Some(s.into_shape()),
            padding: p.into_shape(),
            dilation: d.into_shape(),
            ceil_mode: false,
        }
    }
}
impl<S: IntoShape, P: IntoShape, D: IntoShape> From<(S, P, D, bool)> for MaxPoolOpts {
    fn from((s, p, d, ceil_mode): (S, P, D, bool)) -> Self {
        MaxPoolOpts {
            stride: Some(s.into_shape()),
            padding: p.into_shape(),
            dilation: d.into_shape(),
            ceil_mode,
        }
    }
}

/// The optional arguments of `F.avg_pool{1,2,3}d` (`stride=None, padding=0, ceil_mode=False,
/// count_include_pad=True, divisor_override=None`; avg_pool1d has no `divisor_override`),
/// for the `avg_pool*_with` forms: a list is `stride`, a tuple `(stride, padding)` or
/// `(stride, padding, ceil_mode)`.
#[derive(Clone, Debug, PartialEq)]
pub struct AvgPoolOpts {
    pub stride: Option<IntList>,
    pub padding: IntList,
    pub ceil_mode: bool,
    pub count_include_pad: bool,
    pub divisor_override: Option<i64>,
}
impl Default for AvgPoolOpts {
    fn default() -> Self {
        AvgPoolOpts {
            stride: None,
            padding: IntList::from_slice(&[0]),
            ceil_mode: false,
            count_include_pad: true,
            divisor_override: None,
        }
    }
}
impl<S: IntoShape> From<S> for AvgPoolOpts {
    fn from(stride: S) -> Self {
        AvgPoolOpts {
            stride: Some(stride.into_shape()),
            ..Default::default()
        }
    }
}
impl<S: IntoShape, P: IntoShape> From<(S, P)> for AvgPoolOpts {
    fn from((s, p): (S, P)) -> Self {
        AvgPoolOpts {
            stride: Some(s.into_shape()),
            padding: p.into_shape(),
            ..Default::default()
        }
    }
}
impl<S: IntoShape, P: IntoShape> From<(S, P, bool)> for AvgPoolOpts {
    fn from((s, p, ceil_mode): (S, P, bool)) -> Self {
        AvgPoolOpts {
            stride: Some(s.into_shape()),
            padding: p.into_shape(),
            ceil_mode,
            ..Default::default()
        }
    }
}

/// The optional arguments of `F.lp_pool{1,2}d` (`stride=None, ceil_mode=False`): a list is
/// `stride`, a pair `(stride, ceil_mode)`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LpPoolOpts {
    pub stride: Option<IntList>,
    pub ceil_mode: bool,
}
impl<S: IntoShape> From<S> for LpPoolOpts {
    fn from(stride: S) -> Self {
        LpPoolOpts {
            stride: Some(stride.into_shape()),
            ceil_mode: false,
        }
    }
}
impl<S: IntoShape> From<(S, bool)> for LpPoolOpts {
    fn from((s, ceil_mode): (S, bool)) -> Self {
        LpPoolOpts {
            stride: Some(s.into_shape()),
            ceil_mode,
        }
    }
}

/// The optional arguments of `F.max_unpool{1,2}d` (`stride=None, padding=0,
/// output_size=None`): a list is `stride`, a tuple `(stride, padding)` or `(stride, padding,
/// output_size)`.
#[derive(Clone, Debug, PartialEq)]
pub struct MaxUnpoolOpts {
    pub stride: Option<IntList>,
    pub padding: IntList,
    pub output_size: Option<IntList>,
}
impl Default for MaxUnpoolOpts {
    fn default() -> Self {
        MaxUnpoolOpts {
            stride: None,
            padding: IntList::from_slice(&[0]),
            output_size: None,
        }
    }
}
impl<S: IntoShape> From<S> for MaxUnpoolOpts {
    fn from(stride: S) -> Self {
        MaxUnpoolOpts {
            stride: Some(stride.into_shape()),
            ..Default::default()
        }
    }
}
impl<S: IntoShape, P: IntoShape> From<(S, P)> for MaxUnpoolOpts {
    fn from((s, p): (S, P)) -> Self {
        MaxUnpoolOpts {
            stride: Some(s.into_shape()),
            padding: p.into_shape(),
            output_size: None,
        }
    }
}
impl<S: IntoShape, P: IntoShape, O: IntoShape> From<(S, P, O)> for MaxUnpoolOpts {
    fn from((s, p, o): (S, P, O)) -> Self {
        MaxUnpoolOpts {
            stride: Some(s.into_shape()),
            padding: p.into_shape(),
            output_size: Some(o.into_shape()),
        }
    }
}

/// An adaptive pooling's `output_size`: an int or list of ints ([`IntoShape`]), or a list of
/// `Option<i64>` whose `None` entries keep the input's size along that dim.
pub trait IntoOutputSize {
    /// The entries, `None` for "the input's size".
    fn into_output_size(self) -> Vec<Option<i64>>;
}
impl<S: IntoShape> IntoOutputSize for S {
    fn into_output_size(self) -> Vec<Option<i64>> {
        self.into_shape().into_iter().map(Some).collect()
    }
}
impl<const N: usize> IntoOutputSize for [Option<i64>; N] {
    fn into_output_size(self) -> Vec<Option<i64>> {
        self.to_vec()
    }
}
impl IntoOutputSize for &[Option<i64>] {
    fn into_output_size(self) -> Vec<Option<i64>> {
        self.to_vec()
    }
}
impl IntoOutputSize for Vec<Option<i64>> {
    fn into_output_size(self) -> Vec<Option<i64>> {
        self
    }
}

// ------------------------------------------------------------------ geometry rules

// ------------------------------------------------------------------ the engine

/// Whether a dtype is one the pooling kernels take (the float dtypes).
fn check_float(x: &Tensor, name: &str) -> Result<()> {
    check_dtype(x, name, x.dtype().is_floating_point())
}

/// The error of a kernel whose dispatch list lacks `x`'s dtype (`ok` false):
/// `"max_pool2d_with_indices" not implemented for 'Bool'` (NotImplementedError).
fn check_dtype(x: &Tensor, name: &str, ok: bool) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::not_implemented_for(name, x.dtype()))
    }
}

/// `(x as (N, C, …), batched)`: an unbatched input gets a leading 1.
fn batch(x: &Tensor, batched: bool) -> Result<Tensor> {
    if batched {
        Ok(x.alias())
    } else {
        x.unsqueeze(0)
    }
}

/// Drops the leading 1 of an unbatched result.
fn unbatch(t: Tensor, batched: bool) -> Result<Tensor> {
    if batched { Ok(t) } else { t.squeeze_dim(0) }
}

// ------------------------------------------------------------------ max pooling

/// `max_pool2d_with_indices` / `max_pool3d_with_indices`, recorded as
/// `MaxPool2DWithIndicesBackward0` / `MaxPool3DWithIndicesBackward0` (which needs the
/// indices, so they are computed whenever it records).
fn max_pool_nd(
    input: &Tensor,
    d: usize,
    kernel_size: &[i64],
    o: &MaxPoolOpts,
    with_idx: bool,
) -> Result<(Tensor, Tensor)> {
    let rec = crate::autograd::api::any_requires_grad(&[input]);
    if !rec {
        return max_pool_nd_impl(input, d, kernel_size, o, with_idx);
    }
    let r = {
        let _ng = crate::autograd::no_grad();
        max_pool_nd_impl(input, d, kernel_size, o, true)?
    };
    let name = if d == 2 {
        "MaxPool2DWithIndicesBackward0"
    } else {
        "MaxPool3DWithIndicesBackward0"
    };
    crate::autograd::formulas::pool::max_pool(name, r, input, d)
}

/// `max_pool2d_with_indices` / `max_pool3d_with_indices`: checks, then the windows.
fn max_pool_nd_impl(
    input: &Tensor,
    d: usize,
    kernel_size: &[i64],
    o: &MaxPoolOpts,
    with_idx: bool,
) -> Result<(Tensor, Tensor)> {
    let name = if d == 2 { "max_pool2d" } else { "max_pool3d" };
    let nd = input.dim();
    let cl = suggests_cl(input);
    let plan = gp::max_pool_plan(
        input.size(),
        d,
        kernel_size,
        o.stride.as_deref(),
        &o.padding,
        &o.dilation,
        o.ceil_mode,
        cl,
    )?;
    let sp = &input.size()[nd - d..];
    // max_pool{2,3}d_with_indices: every dtype but bool (AT_DISPATCH_ALL_TYPES_AND2)
    check_dtype(
        input,
        &format!("{name}_with_indices"),
        input.dtype() != DType::Bool,
    )?;
    let batched = nd == d + 2;
    let x = batch(input, batched)?;
    let wins = (0..d)
        .map(|j| plan.max_wins(j, sp[j]))
        .collect::<Result<Vec<Vec<Win>>>>()?;
    // an unbatched 3-d input runs as its batch-of-one view, in that view's format
    let cl = if d == 3 {
        suggests_cl(&x)
    } else {
        cl && batched
    };
    let (out, idx) = run_pool(&x, wins, Reduce::Max, with_idx, cl)?;
    let idx = match idx {
        Some(i) => unbatch(i, batched)?,
        None => Tensor::zeros_with([0usize], DType::Int64)?,
    };
    Ok((unbatch(out, batched)?, idx))
}

/// `F.max_pool1d(input, kernel_size)`; see [`max_pool1d_with`].
pub fn max_pool1d(input: &Tensor, kernel_size: impl IntoShape) -> Result<Tensor> {
    max_pool1d_with(input, kernel_size, MaxPoolOpts::default())
}

/// `F.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)`: the maximum
/// over windows of the last dim of a `(C, L)` or `(N, C, L)` float tensor: output length
/// `⌊(L + 2·padding - dilation·(kernel_size-1) - 1) / stride⌋ + 1` (rounded up in ceil mode,
/// where the last window must start inside the input or the left padding); NaN wins. dtype
/// and rank of `input`; contiguous output.
///
/// Errors (RuntimeError): `max_pool1d() Expected 2D or 3D input tensor, but got [..]`,
/// `max_pool1d() stride must be greater than zero, but got 0`, `max_pool1d() padding should
/// be at most half of kernel size, but got padding=2 and kernel_size=3`, `max_pool1d()
/// Invalid computed output size: 0`, and the `max_pool1d() kernel_size/stride/padding/dilation
/// must be ...` list-length errors; `max_pool1d: Expected 2D or 3D (batch mode) tensor with
/// optional 0 dim batch size for input, but got:[2, 0, 5]` (an empty dim other than a 3-d
/// input's batch); NotImplementedError `"max_pool1d_impl" not implemented for 'Long'` (the
/// float dtypes only; `return_indices` takes every dtype but bool).
///
/// Also PyTorch's allocator error (`... DefaultCPUAllocator: can't allocate memory ...`) when
/// the windows of an output length near 2^62 (possible with an empty batch) cannot be held.
pub fn max_pool1d_with(
    input: &Tensor,
    kernel_size: impl IntoShape,
    opts: impl Into<MaxPoolOpts>,
) -> Result<Tensor> {
    let o = opts.into();
    let ks = kernel_size.into_shape();
    let nd = input.dim();
    let stride: IntList = o.stride.clone().unwrap_or_default();
    let (k, s, p, dl, ow) = gp::max_pool1d_params(
        input.size(),
        &ks,
        &stride,
        &o.padding,
        &o.dilation,
        o.ceil_mode,
    )?;
    let l = input.size()[nd - 1];
    if crate::autograd::api::any_requires_grad(&[input]) {
        // PyTorch's max_pool1d takes the with-indices path when it records
        return Ok(max_pool1d_with_indices(input, &ks[..], o)?.0);
    }
    // `max_pool1d_impl`: every dim but a 3-d input's batch non-empty, then its float kernels
    if input.size()[nd - 2..].contains(&0) || (nd == 2 && input.size()[0] == 0) {
        return Err(Error::runtime(format!(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:{}",
            fmt_list(input.size())
        )));
    }
    check_float(input, "max_pool1d_impl")?;
    let batched = nd == 3;
    let x = batch(input, batched)?;
    let wins = vec![gp::max_wins(l, ow as usize, k, s, p, dl)?];
    let (out, _) = run_pool(&x, wins, Reduce::Max, false, false)?;
    unbatch(out, batched)
}

/// `F.max_pool1d(..., return_indices=True)` (`torch.max_pool1d_with_indices`): as
/// [`max_pool1d_with`], plus the int64 index (along `L`) of each maximum; computed as
/// `max_pool2d_with_indices` of `input.unsqueeze(-2)`, so its checks and errors are
/// [`max_pool2d_with_indices`]'s, and a channels-last-strided input keeps its layout.
pub fn max_pool1d_with_indices(
    input: &Tensor,
    kernel_size: impl IntoShape,
    opts: impl Into<MaxPoolOpts>,
) -> Result<(Tensor, Tensor)> {
    let o = opts.into();
    let ks = kernel_size.into_shape();
    let nd = input.dim();
    if nd != 2 && nd != 3 {
        return Err(Error::runtime(format!(
            "max_pool1d() Expected 2D or 3D input tensor, but got {}",
            fmt_list(input.size())
        )));
    }
    let one = |v: &[i64], def: i64| -> IntList {
        let mut l = IntList::from_slice(&[def]);
        l.extend_from_slice(v);
        l
    };
    let o2 = MaxPoolOpts {
        stride: o
            .stride
            .as_ref()
            .filter(|s| !s.is_empty())
            .map(|s| one(s, 1)),
        padding: one(&o.padding, 0),
        dilation: one(&o.dilation, 1),
        ceil_mode: o.ceil_mode,
    };
    let (v, i) = max_pool2d_with_indices(&input.unsqueeze(-2)?, one(&ks, 1), o2)?;
    Ok((v.squeeze_dim(-2)?, i.squeeze_dim(-2)?))
}

/// `F.max_pool2d(input, kernel_size)`; see [`max_pool2d_with`].
pub fn max_pool2d(input: &Tensor, kernel_size: impl IntoShape) -> Result<Tensor> {
    max_pool2d_with(input, kernel_size, MaxPoolOpts::default())
}

/// `F.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)`: the maximum
/// over `kH × kW` windows (dilated, zero-free padding that never wins) of a `(C, H, W)` or
/// `(N, C, H, W)` float tensor; each output dim as [`max_pool1d_with`]'s. NaN wins. dtype
/// of `input`; a channels-last input gives a channels-last output.
///
/// Errors (RuntimeError): `stride should not be zero`; `pad should be at most half of
/// effective kernel size, but got pad=2, kernel_size=2 and dilation=1`; `pad should be
/// smaller than or equal to half of kernel size, but got padW = 0, padH = 2, kW = 2, kH = 3`;
/// `Given input size: (1x5x4). Calculated output size: (1x3x0). Output size is too small`;
/// `non-empty 3D or 4D (batch mode) tensor expected for input`; `max_pool2d: kernel_size
/// must either be a single int, or a tuple of two ints` (and the same for stride, padding,
/// dilation).
///
/// Also PyTorch's allocator error (`... DefaultCPUAllocator: can't allocate memory ...`) when
/// the windows of an output length near 2^62 (possible with an empty batch) cannot be held.
pub fn max_pool2d_with(
    input: &Tensor,
    kernel_size: impl IntoShape,
    opts: impl Into<MaxPoolOpts>,
) -> Result<Tensor> {
    Ok(max_pool_nd(input, 2, &kernel_size.into_shape(), &opts.into(), false)?.0)
}

/// `F.max_pool2d(..., return_indices=True)` (`torch.max_pool2d_with_indices`): as
/// [`max_pool2d_with`], plus the int64 flat index `h·W + w` of each maximum within its
/// plane, in the output's layout.
pub fn max_pool2d_with_indices(
    input: &Tensor,
    kernel_size: impl IntoShape,
    opts: impl Into<MaxPoolOpts>,
) -> Result<(Tensor, Tensor)> {
    max_pool_nd(input, 2, &kernel_size.into_shape(), &opts.into(), true)
}

/// `F.max_pool3d(input, kernel_size)`; see [`max_pool3d_with`].
pub fn max_pool3d(input: &Tensor, kernel_size: impl IntoShape) -> Result<Tensor> {
    max_pool3d_with(input, kernel_size, MaxPoolOpts::default())
}

/// `F.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)`: as
/// [`max_pool2d_with`] over `(D, H, W)` of a `(C, D, H, W)` or `(N, C, D, H, W)` float
/// tensor; a channels-last-3d input gives a channels-last-3d output.
///
/// Errors (RuntimeError): as [`max_pool2d_with`] (`Given input size: (1x1x2x2). Calculated
/// output size: ...`, `pad should be smaller than or equal to half of kernel size, but got kT:
/// 1 kW: 1 kH: 1 padT: 1 padW: 0 padH: 0`); a 4-d input with channels-last strides:
/// `Unsupport memory format. Supports only ChannelsLast3d, Contiguous`.
///
/// Also PyTorch's allocator error (`... DefaultCPUAllocator: can't allocate memory ...`) when
/// the windows of an output length near 2^62 (possible with an empty batch) cannot be held.
pub fn max_pool3d_with(
    input: &Tensor,
    kernel_size: impl IntoShape,
    opts: impl Into<MaxPoolOpts>,
) -> Result<Tensor> {
    Ok(max_pool_nd(input, 3, &kernel_size.into_shape(), &opts.into(), false)?.0)
}

/// `F.max_pool3d(..., return_indices=True)` (`torch.max_pool3d_with_indices`): as
/// [`max_pool3d_with`], plus the int64 flat index `(d·H + h)·W + w` of each maximum.
pub fn max_pool3d_with_indices(
    input: &Tensor,
    kernel_size: impl IntoShape,
    opts: impl Into<MaxPoolOpts>,
) -> Result<(Tensor, Tensor)> {
    max_pool_nd(input, 3, &kernel_size.into_shape(), &opts.into(), true)
}

// ------------------------------------------------------------------ average pooling

/// `avg_pool2d` / `avg_pool3d`.
fn avg_pool_nd(input: &Tensor, d: usize, kernel_size: &[i64], o: &AvgPoolOpts) -> Result<Tensor> {
    let nd = input.dim();
    let cl = suggests_cl(input);
    let plan = gp::avg_pool_plan(
        input.size(),
        d,
        kernel_size,
        o.stride.as_deref(),
        &o.padding,
        o.ceil_mode,
        o.divisor_override,
        cl,
    )?;
    let sp = &input.size()[nd - d..];
    // avg_pool2d: the float dtypes and int64; avg_pool3d: float32, float64 and int64
    let dt = input.dtype();
    if !(dt == DType::Int64 || dt.is_floating_point())
        || (d == 3 && matches!(dt, DType::BFloat16 | DType::Float16))
    {
        let kn = if d == 2 {
            "avg_pool2d_out_frame"
        } else {
            "avg_pool3d_out_frame"
        };
        return Err(Error::not_implemented_for(kn, input.dtype()));
    }
    let batched = nd == d + 2;
    let wins = (0..d)
        .map(|j| plan.avg_wins(j, sp[j]))
        .collect::<Result<Vec<Vec<Win>>>>()?;
    let r = Reduce::Avg {
        divisor_override: o.divisor_override,
        count_include_pad: o.count_include_pad,
    };
    let rec = crate::autograd::api::any_requires_grad(&[input]);
    let out = {
        let _ng = rec.then(crate::autograd::no_grad);
        let x = batch(input, batched)?;
        // avg_pool3d's CPU kernel always writes a contiguous output
        let (out, _) = run_pool(&x, wins.clone(), r, false, d == 2 && cl && batched)?;
        unbatch(out, batched)?
    };
    if !rec {
        return Ok(out);
    }
    use crate::autograd::formulas::pool::{Divisor, avg_pool};
    let div = match (o.divisor_override, o.count_include_pad) {
        (Some(v), _) => Divisor::Fixed(v),
        (None, true) => Divisor::Padded,
        (None, false) => Divisor::Count,
    };
    let name = if d == 2 {
        "AvgPool2DBackward0"
    } else {
        "AvgPool3DBackward0"
    };
    avg_pool(name, out, input, wins, div)
}

/// `F.avg_pool1d(input, kernel_size)`; see [`avg_pool1d_with`].
pub fn avg_pool1d(input: &Tensor, kernel_size: impl IntoShape) -> Result<Tensor> {
    avg_pool1d_with(input, kernel_size, AvgPoolOpts::default())
}

/// `F.avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)`: the
/// mean over windows of the last dim of a `(C, L)` or `(N, C, L)` float tensor, computed as
/// `avg_pool2d` of `input.unsqueeze(-2)` (so its checks and errors are
/// [`avg_pool2d_with`]'s; `divisor_override` must be `None`). The divisor is the window
/// length counting padding (`count_include_pad`) or not; windows are cut at `L + padding`.
///
/// Errors: `avg_pool1d() argument 'kernel_size' should contain one int (got 2)`, and those of
/// [`avg_pool2d_with`] (`stride should not be zero`, `pad should be at most half of
/// effective kernel size, ...`).
pub fn avg_pool1d_with(
    input: &Tensor,
    kernel_size: impl IntoShape,
    opts: impl Into<AvgPoolOpts>,
) -> Result<Tensor> {
    let o = opts.into();
    let ks = kernel_size.into_shape();
    let nd = input.dim();
    if !(2..4).contains(&nd) {
        return Err(Error::runtime(format!(
            "Expected 2 to 3 dimensions, but got {nd}-dimensional tensor for argument #1 'self' (while checking arguments for avg_pool1d)"
        )));
    }
    let stride = o
        .stride
        .clone()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| ks.clone());
    for (name, v) in [
        ("kernel_size", &ks),
        ("stride", &stride),
        ("padding", &o.padding),
    ] {
        if v.len() != 1 {
            return Err(Error::runtime(format!(
                "avg_pool1d() argument '{name}' should contain one int (got {})",
                v.len()
            )));
        }
    }
    let o2 = AvgPoolOpts {
        stride: Some(IntList::from_slice(&[1, stride[0]])),
        padding: IntList::from_slice(&[0, o.padding[0]]),
        ceil_mode: o.ceil_mode,
        count_include_pad: o.count_include_pad,
        divisor_override: None,
    };
    avg_pool2d_with(&input.unsqueeze(-2)?, [1, ks[0]], o2)?.squeeze_dim(-2)
}

/// `F.avg_pool2d(input, kernel_size)`; see [`avg_pool2d_with`].
pub fn avg_pool2d(input: &Tensor, kernel_size: impl IntoShape) -> Result<Tensor> {
    avg_pool2d_with(input, kernel_size, AvgPoolOpts::default())
}

/// `F.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
/// divisor_override)`: the mean over `kH × kW` windows of a `(C, H, W)` or `(N, C, H, W)`
/// float tensor. Output dims as [`max_pool2d_with`]'s (dilation 1). Each window
/// `[o·s - p, o·s - p + k)` is cut at `size + p`; the divisor is `divisor_override`, or that
/// window's area (`count_include_pad`), or the area of its part inside the input; a window
/// wholly outside gives 0. dtype of `input` (accumulated in float for the half types); a
/// channels-last input gives a channels-last output.
///
/// Errors (RuntimeError): `stride should not be zero`; `pad should be at most half of
/// effective kernel size, but got pad=2, kernel_size=2 and dilation=1`; `divisor must be not
/// zero`; `Given input size: ... Output size is too small`; `Expected 3D or 4D (batch mode)
/// tensor with optional 0 dim batch size for input, but got:[..]`.
///
/// Also PyTorch's allocator error (`... DefaultCPUAllocator: can't allocate memory ...`) when
/// the windows of an output length near 2^62 (possible with an empty batch) cannot be held.
pub fn avg_pool2d_with(
    input: &Tensor,
    kernel_size: impl IntoShape,
    opts: impl Into<AvgPoolOpts>,
) -> Result<Tensor> {
    avg_pool_nd(input, 2, &kernel_size.into_shape(), &opts.into())
}

/// `F.avg_pool3d(input, kernel_size)`; see [`avg_pool3d_with`].
pub fn avg_pool3d(input: &Tensor, kernel_size: impl IntoShape) -> Result<Tensor> {
    avg_pool3d_with(input, kernel_size, AvgPoolOpts::default())
}

/// `F.avg_pool3d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
/// divisor_override)`: as [`avg_pool2d_with`] over `(D, H, W)` of a `(C, D, H, W)` or
/// `(N, C, D, H, W)` float tensor; the output is always contiguous (PyTorch's CPU kernel).
///
/// Errors (RuntimeError): as [`avg_pool2d_with`], and `input image (T: 1 H: 2 W: 2) smaller
/// than kernel size (kT: 2 kH: 1 kW: 1)`; NotImplementedError `"avg_pool3d_out_frame" not
/// implemented for 'BFloat16'` for a contiguous bfloat16 (or float16) input.
///
/// Also PyTorch's allocator error (`... DefaultCPUAllocator: can't allocate memory ...`) when
/// the windows of an output length near 2^62 (possible with an empty batch) cannot be held.
pub fn avg_pool3d_with(
    input: &Tensor,
    kernel_size: impl IntoShape,
    opts: impl Into<AvgPoolOpts>,
) -> Result<Tensor> {
    avg_pool_nd(input, 3, &kernel_size.into_shape(), &opts.into())
}

// ------------------------------------------------------------------ adaptive pooling

/// `F.adaptive_avg_pool1d(input, output_size)`: the mean over `output_size` adaptive windows
/// of the last dim of a `(C, L)` or `(N, C, L)` float tensor (output `o` averages
/// `[⌊o·L/out⌋, ⌈(o+1)·L/out⌉)`); computed as [`adaptive_avg_pool2d`] of
/// `input.unsqueeze(-2)` with output `(1, output_size)`.
///
/// Errors: `Expected 2 to 3 dimensions, but got 4-dimensional tensor for argument #1 'self'
/// (while checking arguments for adaptive_avg_pool1d)`;
/// `adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but
/// received {1, -1}`.
pub fn adaptive_avg_pool1d(input: &Tensor, output_size: impl IntoOutputSize) -> Result<Tensor> {
    let os = output_size.into_output_size();
    let nd = input.dim();
    if !(2..4).contains(&nd) {
        return Err(Error::runtime(format!(
            "Expected 2 to 3 dimensions, but got {nd}-dimensional tensor for argument #1 'self' (while checking arguments for adaptive_avg_pool1d)"
        )));
    }
    if os.len() != 1 {
        return Err(Error::runtime(format!(
            "adaptive_avg_pool1d() argument 'output_size' should contain one int (got {})",
            os.len()
        )));
    }
    let o = gp::adaptive_sizes(input.size(), &os)?[0];
    adaptive_avg_pool2d(&input.unsqueeze(-2)?, [1, o])?.squeeze_dim(-2)
}

/// `F.adaptive_avg_pool2d(input, output_size)`: the mean over adaptive windows of the last
/// two dims of a `(C, H, W)` or `(N, C, H, W)` float tensor; `output_size` an int, a pair,
/// or a pair of `Option<i64>` (`None` keeps that input size). An output of `(1, 1)` is
/// `input.mean((-1, -2), keepdim=True)` (channels-last strides for a channels-last input),
/// as in PyTorch; otherwise a channels-last input gives a channels-last output.
///
/// Errors (RuntimeError): `adaptive_avg_pool2d: output_size must be 2`;
/// `adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but
/// received {1, -1}`; `adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [..]`;
/// `adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but
/// input has sizes [1, 0, 2] with dimension 1 being empty`.
///
/// Also PyTorch's allocator error (`... DefaultCPUAllocator: can't allocate memory ...`) when
/// the windows of an output length near 2^62 (possible with an empty batch) cannot be held.
pub fn adaptive_avg_pool2d(input: &Tensor, output_size: impl IntoOutputSize) -> Result<Tensor> {
    adaptive_avg_pool_nd(input, 2, &output_size.into_output_size())
}

/// `F.adaptive_avg_pool3d(input, output_size)`: the mean over adaptive windows of the last
/// three dims of a `(C, D, H, W)` or `(N, C, D, H, W)` float tensor; `output_size` an int, a
/// triple, or a triple of `Option<i64>` (`None` keeps that input size). An output of
/// `(1, 1, 1)` is `input.mean((-1, -2, -3), keepdim=True)` (`MeanBackward1`; channels-last-3d
/// strides for a channels-last-3d input), as in PyTorch; otherwise the output is contiguous
/// (PyTorch's 3-d kernel has no channels-last path). Autograd: `AdaptiveAvgPool3DBackward0`.
///
/// Errors: ValueError `Input dimension should be at least 4` (a list `output_size` longer
/// than the input's dims); RuntimeError `adaptive_avg_pool3d: output_size must be 3`;
/// `adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but
/// received {2, -1,3}`; `adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got [..]`;
/// `adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch dimensions, but
/// input has sizes [2, 0, 4, 5, 6] with dimension 1 being empty`; NotImplementedError
/// `"adaptive_avg_pool3d_cpu" not implemented for 'Long'`.
pub fn adaptive_avg_pool3d(input: &Tensor, output_size: impl IntoOutputSize) -> Result<Tensor> {
    adaptive_avg_pool_nd(input, 3, &output_size.into_output_size())
}

/// `adaptive_avg_pool2d` (`d = 2`) and `adaptive_avg_pool3d` (`d = 3`), as PyTorch runs them.
fn adaptive_avg_pool_nd(input: &Tensor, d: usize, output_size: &[Option<i64>]) -> Result<Tensor> {
    let os = gp::adaptive_avg_pool_size(d, input.size(), output_size)?;
    let name = if d == 2 {
        "adaptive_avg_pool2d"
    } else {
        "adaptive_avg_pool3d"
    };
    let nd = input.dim();
    if os.iter().all(|&o| o == 1) {
        let dims: Vec<i64> = (1..=d as i64).map(|i| -i).collect();
        let out = input.mean_dim(dims, true)?;
        if suggests_cl(input) {
            let (n, c) = (input.size()[0], input.size()[1]);
            let mut size = vec![n, c];
            size.extend(std::iter::repeat_n(1, d));
            let mut stride = vec![c, 1];
            stride.extend(std::iter::repeat_n(c, d));
            if crate::autograd::api::any_requires_grad(&[input]) {
                // PyTorch's `as_strided_` on the mean (`AsStridedBackward1` there; the
                // out-of-place view here records `AsStridedBackward0`, same gradient)
                return out.as_strided_with(size, stride, out.storage_offset());
            }
            return Ok(out.view_with(size, stride, out.storage_offset()));
        }
        return Ok(out);
    }
    if nd != d + 1 && nd != d + 2 {
        return Err(Error::runtime(format!(
            "{name}(): Expected {}D or {}D tensor, but got {}",
            d + 1,
            d + 2,
            fmt_list(input.size())
        )));
    }
    // 2-d checks the pooled dims, 3-d every non-batch dim
    let first = if d == 2 { nd - 2 } else { 1 };
    for i in first..nd {
        if input.size()[i] == 0 {
            return Err(Error::runtime(format!(
                "{name}(): Expected input to have non-zero size for non-batch dimensions, but input has sizes {} with dimension {i} being empty",
                fmt_list(input.size())
            )));
        }
    }
    // the 2-d kernel (float dtypes only) is not reached for an empty output; the 3-d one is
    let out_numel: usize =
        input.size()[..nd - d].iter().product::<usize>() * os.iter().product::<i64>() as usize;
    if d == 2 {
        check_dtype(
            input,
            name,
            input.dtype().is_floating_point() || out_numel == 0,
        )?;
    } else {
        check_float(input, "adaptive_avg_pool3d_cpu")?;
    }
    let batched = nd == d + 2;
    // PyTorch's 3-d kernel writes contiguous outputs
    let cl = batched && d == 2 && suggests_cl(input);
    let sp = &input.size()[nd - d..];
    let wins = (0..d)
        .map(|i| gp::adaptive_wins(sp[i], os[i] as usize))
        .collect::<Result<Vec<_>>>()?;
    let r = Reduce::Avg {
        divisor_override: None,
        count_include_pad: false,
    };
    let rec = crate::autograd::api::any_requires_grad(&[input]);
    let out = {
        let _ng = rec.then(crate::autograd::no_grad);
        let x = batch(input, batched)?;
        let (out, _) = run_pool(&x, wins.clone(), r, false, cl)?;
        unbatch(out, batched)?
    };
    if !rec {
        return Ok(out);
    }
    use crate::autograd::formulas::pool::{Divisor, avg_pool};
    let node = if d == 2 {
        "AdaptiveAvgPool2DBackward0"
    } else {
        "AdaptiveAvgPool3DBackward0"
    };
    avg_pool(node, out, input, wins, Divisor::Count)
}

/// `F.adaptive_max_pool1d(input, output_size)`: the maximum over adaptive windows (as
/// [`adaptive_avg_pool1d`]'s) of the last dim; see [`adaptive_max_pool1d_with_indices`].
pub fn adaptive_max_pool1d(input: &Tensor, output_size: impl IntoOutputSize) -> Result<Tensor> {
    Ok(adaptive_max_pool1d_with_indices(input, output_size)?.0)
}

/// `F.adaptive_max_pool1d(input, output_size, return_indices=True)`: values and int64
/// indices (along `L`); computed as [`adaptive_max_pool2d_with_indices`] of
/// `input.unsqueeze(-2)`.
///
/// Errors: `adaptive_max_pool1d(): Expected input to have non-zero size for non-batch
/// dimensions, but input has sizes [2, 0] with dimension 1 being empty`; a negative size:
/// `Trying to create tensor with negative dimension -1: [2, 1, -1]`.
pub fn adaptive_max_pool1d_with_indices(
    input: &Tensor,
    output_size: impl IntoOutputSize,
) -> Result<(Tensor, Tensor)> {
    let os = output_size.into_output_size();
    let nd = input.dim();
    if !(2..4).contains(&nd) {
        return Err(Error::runtime(format!(
            "Expected 2 to 3 dimensions, but got {nd}-dimensional tensor for argument #1 'self' (while checking arguments for adaptive_max_pool1d)"
        )));
    }
    if os.len() != 1 {
        return Err(Error::runtime(format!(
            "adaptive_max_pool1d() argument 'output_size' should contain one int (got {})",
            os.len()
        )));
    }
    for i in 1..nd {
        if input.size()[i] == 0 {
            return Err(Error::runtime(format!(
                "adaptive_max_pool1d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes {} with dimension {i} being empty",
                fmt_list(input.size())
            )));
        }
    }
    let o = gp::adaptive_sizes(input.size(), &os)?[0];
    let (v, i) = adaptive_max_pool2d_with_indices(&input.unsqueeze(-2)?, [1, o])?;
    Ok((v.squeeze_dim(-2)?, i.squeeze_dim(-2)?))
}

/// `F.adaptive_max_pool2d(input, output_size)`; see [`adaptive_max_pool2d_with_indices`].
pub fn adaptive_max_pool2d(input: &Tensor, output_size: impl IntoOutputSize) -> Result<Tensor> {
    Ok(adaptive_max_pool2d_with_indices(input, output_size)?.0)
}

/// `F.adaptive_max_pool2d(input, output_size, return_indices=True)`: the maximum over
/// adaptive windows of the last two dims of a `(C, H, W)` or `(N, C, H, W)` float tensor
/// (NaN wins), and the int64 flat index `h·W + w` of each within its plane; `output_size`
/// as [`adaptive_avg_pool2d`]'s. A channels-last input gives channels-last outputs.
///
/// Errors (RuntimeError): `adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: [..]`;
/// `adaptive_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, but
/// input has sizes [..] with dimension 1 being empty`; a negative size: `Trying to create
/// tensor with negative dimension -1: [2, 3, -1, 1]`.
///
/// Also PyTorch's allocator error (`... DefaultCPUAllocator: can't allocate memory ...`) when
/// the windows of an output length near 2^62 (possible with an empty batch) cannot be held.
pub fn adaptive_max_pool2d_with_indices(
    input: &Tensor,
    output_size: impl IntoOutputSize,
) -> Result<(Tensor, Tensor)> {
    adaptive_max_pool_nd(input, 2, &output_size.into_output_size())
}

/// `F.adaptive_max_pool3d(input, output_size)`; see [`adaptive_max_pool3d_with_indices`].
pub fn adaptive_max_pool3d(input: &Tensor, output_size: impl IntoOutputSize) -> Result<Tensor> {
    Ok(adaptive_max_pool3d_with_indices(input, output_size)?.0)
}

/// `F.adaptive_max_pool3d(input, output_size, return_indices=True)`: the maximum over
/// adaptive windows of the last three dims of a `(C, D, H, W)` or `(N, C, D, H, W)` float
/// tensor (NaN wins), and the int64 flat index `(t·H + h)·W + w` of each within its volume;
/// `output_size` as [`adaptive_avg_pool3d`]'s. Outputs contiguous (PyTorch's 3-d kernel has
/// no channels-last path). Autograd: `AdaptiveMaxPool3DBackward0`.
///
/// Errors: ValueError `Input dimension should be at least 4`; RuntimeError
/// `adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: [..]`; `adaptive_max_pool3d():
/// Expected input to have non-zero size for non-batch dimensions, but input has sizes [..]
/// with dimension 1 being empty`; `adaptive_max_pool3d(): internal error: output_size.size()
/// must be 3`; `Trying to create tensor with negative dimension -1: [2, 3, 2, -1, 3]`;
/// NotImplementedError `"adaptive_max_pool3d_cpu" not implemented for 'Long'`.
pub fn adaptive_max_pool3d_with_indices(
    input: &Tensor,
    output_size: impl IntoOutputSize,
) -> Result<(Tensor, Tensor)> {
    adaptive_max_pool_nd(input, 3, &output_size.into_output_size())
}

/// `adaptive_max_pool2d` (`d = 2`) and `adaptive_max_pool3d` (`d = 3`) with indices.
fn adaptive_max_pool_nd(
    input: &Tensor,
    d: usize,
    output_size: &[Option<i64>],
) -> Result<(Tensor, Tensor)> {
    let os = gp::adaptive_max_pool_size(d, input.size(), output_size)?;
    let nd = input.dim();
    check_float(
        input,
        if d == 2 {
            "adaptive_max_pool2d"
        } else {
            "adaptive_max_pool3d_cpu"
        },
    )?;
    let batched = nd == d + 2;
    // PyTorch's 3-d kernel writes contiguous outputs
    let cl = batched && d == 2 && suggests_cl(input);
    let sp = &input.size()[nd - d..];
    let wins = (0..d)
        .map(|i| gp::adaptive_wins(sp[i], os[i] as usize))
        .collect::<Result<Vec<_>>>()?;
    let rec = crate::autograd::api::any_requires_grad(&[input]);
    let r = {
        let _ng = rec.then(crate::autograd::no_grad);
        let x = batch(input, batched)?;
        let (out, idx) = run_pool(&x, wins, Reduce::Max, true, cl)?;
        (
            unbatch(out, batched)?,
            unbatch(idx.expect("asked"), batched)?,
        )
    };
    if !rec {
        return Ok(r);
    }
    let node = if d == 2 {
        "AdaptiveMaxPool2DBackward0"
    } else {
        "AdaptiveMaxPool3DBackward0"
    };
    crate::autograd::formulas::pool::max_pool(node, r, input, d)
}

// ------------------------------------------------------------------ power-average pooling

/// `F.lp_pool1d` / `lp_pool2d` as PyTorch composes them.
fn lp_pool(
    input: &Tensor,
    d: usize,
    norm: Scalar,
    kernel_size: &[i64],
    o: &LpPoolOpts,
) -> Result<Tensor> {
    let norm_type = norm.to_f64();
    if norm_type == 0.0 {
        let shown = match norm {
            Scalar::Float(v) => format!("{v:?}"),
            _ => "0".to_string(),
        };
        return Err(Error::value(format!(
            "norm_type must be a non-zero value, but got {shown}"
        )));
    }
    let ks = if d == 2 && kernel_size.len() == 1 {
        vec![kernel_size[0]; 2]
    } else {
        kernel_size.to_vec()
    };
    if norm_type.is_infinite() {
        let mp = MaxPoolOpts {
            stride: o.stride.clone(),
            padding: IntList::from_slice(&[0]),
            dilation: IntList::from_slice(&[1]),
            ceil_mode: o.ceil_mode,
        };
        let a = if norm_type > 0.0 {
            input.abs()?
        } else {
            input.abs()?.neg()?
        };
        let m = if d == 1 {
            max_pool1d_with(&a, &ks[..], mp)?
        } else {
            max_pool2d_with(&a, &ks[..], mp)?
        };
        return if norm_type > 0.0 { Ok(m) } else { m.neg() };
    }
    let ap = AvgPoolOpts {
        stride: o.stride.clone(),
        padding: IntList::from_slice(&[0]),
        ceil_mode: o.ceil_mode,
        ..Default::default()
    };
    // `input.pow(norm_type)` with the Python number as given: an int keeps an integer input
    // integral (then only int64 pools), a float makes it float
    let p = input.pow(norm)?;
    let out = if d == 1 {
        avg_pool1d_with(&p, &ks[..], ap)?
    } else {
        avg_pool2d_with(&p, &ks[..], ap)?
    };
    // Python multiplies the kernel sizes exactly; a product past int64 fails as PyTorch's
    // scalar conversion does
    let area = ks
        .iter()
        .try_fold(1i64, |a, &k| a.checked_mul(k))
        .ok_or_else(|| Error::runtime("Overflow when unpacking long"))?;
    out.sign()?
        .mul(&out.abs()?.relu()?)?
        .mul(area)?
        .pow(1.0 / norm_type)
}

/// `F.lp_pool1d(input, norm_type, kernel_size)`; see [`lp_pool1d_with`].
pub fn lp_pool1d(
    input: &Tensor,
    norm_type: impl Into<Scalar>,
    kernel_size: impl IntoShape,
) -> Result<Tensor> {
    lp_pool1d_with(input, norm_type, kernel_size, LpPoolOpts::default())
}

/// `F.lp_pool1d(input, norm_type, kernel_size, stride, ceil_mode)`: `(Σ x^p)^(1/p)` over
/// windows of the last dim, as PyTorch composes it: `avg_pool1d(x.pow(p), k, stride, 0,
/// ceil_mode)`, then `(sign(out)·relu(|out|)·k).pow(1/p)`; `p = ±inf` is (minus) max pooling
/// of `|x|`. `norm_type` is a Python number: an int power keeps an integer `x` integral (so
/// only int64 pools, as [`avg_pool1d_with`]; a bool `x` becomes int64), a float power makes it
/// float32. Shapes as [`avg_pool1d_with`]; the result is float.
///
/// Errors: ValueError `norm_type must be a non-zero value, but got 0.0`; those of
/// [`avg_pool1d_with`].
///
/// Also `Overflow when unpacking long` (RuntimeError) when the kernel area passes int64.
pub fn lp_pool1d_with(
    input: &Tensor,
    norm_type: impl Into<Scalar>,
    kernel_size: impl IntoShape,
    opts: impl Into<LpPoolOpts>,
) -> Result<Tensor> {
    lp_pool(
        input,
        1,
        norm_type.into(),
        &kernel_size.into_shape(),
        &opts.into(),
    )
}

/// `F.lp_pool2d(input, norm_type, kernel_size)`; see [`lp_pool2d_with`].
pub fn lp_pool2d(
    input: &Tensor,
    norm_type: impl Into<Scalar>,
    kernel_size: impl IntoShape,
) -> Result<Tensor> {
    lp_pool2d_with(input, norm_type, kernel_size, LpPoolOpts::default())
}

/// `F.lp_pool2d(input, norm_type, kernel_size, stride, ceil_mode)`: as [`lp_pool1d_with`]
/// over `kH × kW` windows (`avg_pool2d`, times `kH·kW`).
///
/// Also `Overflow when unpacking long` (RuntimeError) when the kernel area passes int64.
pub fn lp_pool2d_with(
    input: &Tensor,
    norm_type: impl Into<Scalar>,
    kernel_size: impl IntoShape,
    opts: impl Into<LpPoolOpts>,
) -> Result<Tensor> {
    lp_pool(
        input,
        2,
        norm_type.into(),
        &kernel_size.into_shape(),
        &opts.into(),
    )
}

// ------------------------------------------------------------------ unpooling

/// `torch._C._nn.max_unpool2d(input, indices, output_size)`.
fn max_unpool2d_core(input: &Tensor, indices: &Tensor, os: &[i64]) -> Result<Tensor> {
    let rec = crate::autograd::api::any_requires_grad(&[input]);
    let out = {
        let _ng = rec.then(crate::autograd::no_grad);
        max_unpool2d_core_impl(input, indices, os)?
    };
    if !rec {
        return Ok(out);
    }
    crate::autograd::formulas::pool::max_unpool(out, input, indices)
}

/// `F.max_unpool1d(input, indices, kernel_size)`; see [`max_unpool1d_with`].
pub fn max_unpool1d(
    input: &Tensor,
    indices: &Tensor,
    kernel_size: impl IntoShape,
) -> Result<Tensor> {
    max_unpool1d_with(input, indices, kernel_size, MaxUnpoolOpts::default())
}

/// `F.max_unpool1d(input, indices, kernel_size, stride, padding, output_size)`: the inverse
/// of `max_pool1d`'s selection: a zero tensor of length `output_size` (default
/// `(L - 1)·stride + kernel_size - 2·padding`) per plane, with `input[..., l]` written at
/// `indices[..., l]`. `(C, L)` or `(N, C, L)` in, same rank and dtype out; computed as
/// [`max_unpool2d_with`] of `unsqueeze(-1)`.
///
/// Errors: ValueError `output_size should be a sequence containing 1 or 3 elements, but it
/// has a length of '2'`, `invalid output_size "[8, 4]" (dim 0 must be between 1 and 5)`;
/// RuntimeError `Found an invalid max index: 11 (output volumes are of size 2x5)`.
///
/// Also `Overflow when unpacking long` (RuntimeError) when the default output size
/// `(L - 1)·stride + kernel_size - 2·padding` passes int64.
pub fn max_unpool1d_with(
    input: &Tensor,
    indices: &Tensor,
    kernel_size: impl IntoShape,
    opts: impl Into<MaxUnpoolOpts>,
) -> Result<Tensor> {
    let o = opts.into();
    let (k, s, p) = gp::unpool_params(
        1,
        &kernel_size.into_shape(),
        o.stride.as_deref(),
        &o.padding,
    )?;
    let mut os = gp::unpool_output_size(input.size(), &k, &s, &p, o.output_size.as_deref())?;
    os.push(1);
    max_unpool2d_core(&input.unsqueeze(-1)?, &indices.unsqueeze(-1)?, &os)?.squeeze_dim(-1)
}

/// `F.max_unpool2d(input, indices, kernel_size)`; see [`max_unpool2d_with`].
pub fn max_unpool2d(
    input: &Tensor,
    indices: &Tensor,
    kernel_size: impl IntoShape,
) -> Result<Tensor> {
    max_unpool2d_with(input, indices, kernel_size, MaxUnpoolOpts::default())
}

/// `F.max_unpool2d(input, indices, kernel_size, stride, padding, output_size)`: a zero
/// `(…, H_out, W_out)` tensor (default `(H - 1)·stride + k - 2·padding` per dim) with each
/// `input` value written at its flat in-plane index from `indices` (int64, `input`'s shape,
/// as [`max_pool2d_with_indices`] gives them). `(C, H, W)` or `(N, C, H, W)` in; dtype of
/// `input`; channels-last in, channels-last out.
///
/// Errors: ValueError `output_size should be a sequence containing 2 or 4 elements, but it
/// has a length of '3'`, `invalid output_size "[8, 5]" (dim 0 must be between 2 and 4)`;
/// RuntimeError `Found an invalid max index: 28 (output volumes are of size 5x5)`,
/// `elements in indices should be type int64 but got: Float`, `Expected shape of indices to
/// be same as that of the input tensor ([..]) but got indices tensor with shape: [..]`.
///
/// Also `Overflow when unpacking long` (RuntimeError) when a default output size
/// `(H - 1)·stride + kernel_size - 2·padding` passes int64.
pub fn max_unpool2d_with(
    input: &Tensor,
    indices: &Tensor,
    kernel_size: impl IntoShape,
    opts: impl Into<MaxUnpoolOpts>,
) -> Result<Tensor> {
    let o = opts.into();
    let (k, s, p) = gp::unpool_params(
        2,
        &kernel_size.into_shape(),
        o.stride.as_deref(),
        &o.padding,
    )?;
    let os = gp::unpool_output_size(input.size(), &k, &s, &p, o.output_size.as_deref())?;
    max_unpool2d_core(input, indices, &os)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the fuzzer: output sizes given for an input with too few dims indexed the
    /// input's (empty) size eagerly and panicked.
    #[test]
    fn adaptive_sizes_on_low_dim_inputs_are_errors() {
        for shape in [&[][..], &[3][..], &[2, 3][..]] {
            let x = Tensor::zeros(shape).unwrap();
            assert!(adaptive_avg_pool2d(&x, [2, 2]).is_err());
            assert!(adaptive_max_pool2d(&x, [2, 2]).is_err());
            let e = adaptive_avg_pool2d(&x, [None, Some(2)]).unwrap_err();
            assert_eq!(e.message(), "Input dimension should be at least 3");
            assert_eq!(e.kind(), crate::ErrorKind::ValueError);
            assert!(adaptive_max_pool2d(&x, [Some(1), None]).is_err());
        }
        assert!(adaptive_avg_pool1d(&Tensor::zeros([3]).unwrap(), [2]).is_err());
        assert!(adaptive_max_pool1d(&Tensor::zeros([3]).unwrap(), [2]).is_err());
        let x = Tensor::zeros([1, 2, 3]).unwrap();
        assert_eq!(
            adaptive_avg_pool2d(&x, [None, Some(1)]).unwrap().size(),
            &[1, 2, 1]
        );
    }

    const P62: usize = 1 << 62;

    /// Output lengths near 2^62 beside an empty batch, and paddings near 2^61: the windows
    /// were collected infallibly (capacity overflow), the geometry overflowed i64, and a
    /// window's first tap was found by a loop of 2^61 steps.
    #[test]
    fn huge_geometry_is_an_error_or_exact() {
        // an empty batch: H = 2^62 windows cannot be held (PyTorch makes none)
        let empty = Tensor::zeros([0, 1, P62, 1]).unwrap();
        assert!(max_pool2d(&empty, 1).is_err());
        assert!(avg_pool2d(&empty, 1).is_err());
        let small = Tensor::zeros([0, 1, 1, 1]).unwrap();
        assert!(adaptive_avg_pool2d(&small, [P62 as i64, P62 as i64]).is_err());
        assert!(adaptive_max_pool2d(&small, [P62 as i64, P62 as i64]).is_err());
        // the kernel area 2^124: one window in ceil mode with a stride as large
        let x = Tensor::ones([1, 1, 1, 1]).unwrap();
        let o = LpPoolOpts {
            stride: Some(IntList::from_slice(&[1 << 62])),
            ceil_mode: true,
        };
        let e = lp_pool2d_with(&x, 2.0, [P62 as i64, P62 as i64], o).unwrap_err();
        assert_eq!(e.message(), "Overflow when unpacking long");
        // input + 2·pad passes i64
        let x = Tensor::zeros([1, 1, 1, 1])
            .unwrap()
            .expand([1, 1, i64::MAX, 1])
            .unwrap();
        let o = MaxPoolOpts {
            padding: IntList::from_slice(&[1 << 61, 0]),
            ..Default::default()
        };
        assert!(max_pool2d_with(&x, [1i64 << 62, 1], o).is_err());
        // a padding of 2^61 before a single input position: one window, at once
        let x = Tensor::full([1, 1, 1, 1], 3.0).unwrap();
        let o = MaxPoolOpts {
            padding: IntList::from_slice(&[1 << 61, 0]),
            ..Default::default()
        };
        let y = max_pool2d_with(&x, [1i64 << 62, 1], o).unwrap();
        assert_eq!(y.size(), &[1, 1, 1, 1]);
        assert_eq!(y.to_vec::<f32>(), [3.0]);
    }

    #[test]
    fn unpool_sizes_past_int64_are_errors() {
        // output_size 2^40 × 2^40 with an empty batch: its row-major strides pass int64,
        // PyTorch's `Stride calculation overflowed`
        let x = Tensor::zeros([0, 1, 1, 1]).unwrap();
        let i = Tensor::zeros_with([0, 1, 1, 1], DType::Int64).unwrap();
        let os = [1i64 << 40, 1 << 40];
        let o = MaxUnpoolOpts {
            stride: Some(IntList::from_slice(&[1 << 40])),
            padding: IntList::from_slice(&[0]),
            output_size: Some(IntList::from_slice(&os)),
        };
        let e = max_unpool2d_with(&x, &i, [1i64 << 40], o).unwrap_err();
        assert_eq!(e.message(), "Stride calculation overflowed");
        // the default size (1 - 1)·s + k - 2·p with k = i64::MAX and p = -2^62 passes int64
        let o = MaxUnpoolOpts {
            stride: Some(IntList::from_slice(&[1])),
            padding: IntList::from_slice(&[-(1i64 << 62)]),
            output_size: None,
        };
        let e = max_unpool2d_with(&x, &i, [i64::MAX], o).unwrap_err();
        assert_eq!(e.message(), "Overflow when unpacking long");
    }
}
