//! The activation functions of `torch.nn.functional` that have no `Tensor` method, under
//! PyTorch's names, re-exported through [`crate::nn::functional`] (`F::softplus(&x)`,
//! `F::elu_with(&x, 0.5)`, `F::hardtanh_(&x)` for `inplace=True`).
//!
//! Each takes `input: &Tensor` and returns a tensor of `input`'s shape, laid out in `input`'s
//! dim order (TensorIterator's layout). The `NAME_` forms are `inplace=True`: they write the
//! result into `input` (through views, into the base) and return it; an expanded `input` is
//! refused with `unsupported operation: more than one element of the written-to tensor refers
//! to a single memory location. …`. Values are computed in double and rounded once to the
//! dtype (PyTorch computes float16/bfloat16 in float32 and rounds once). The kernels are
//! [`crate::ops::activation`]'s; the derivatives `autograd/formulas/activation.rs`'s and
//! `autograd/formulas/pointwise.rs`'s.

use crate::args::{Int, Number};
use crate::autograd::write_back;
use crate::dim::wrap_dim;
use crate::dtype::DType;
use crate::dtype::check_fill_range;
use crate::error::{Error, Result};
use crate::ops::activation::{clamp_act, elu_kernel, float_act, gelu_raw, mish_raw, softplus_raw};
use crate::ops::unary_math::{Layout, map, map2, map2_like, not_impl, round_to};
use crate::{Scalar, Tensor};

op_ids! {
    /// An activation of `torch.nn.functional` that has no `Tensor` method of the unary
    /// family (see [`crate::OpId`]).
    pub enum ActivationId {
        /// [`softplus_with`]
        Softplus = "softplus" ["softplus", "softplus_with"],
        /// [`leaky_relu_with`]
        LeakyRelu = "leaky_relu" ["leaky_relu", "leaky_relu_with", "leaky_relu_", "leaky_relu_with_"],
        /// [`elu_with`]
        Elu = "elu" ["elu", "elu_with", "elu_", "elu_with_"],
        /// [`selu`]
        Selu = "selu" ["selu", "selu_"],
        /// [`celu_with`]
        Celu = "celu" ["celu", "celu_with", "celu_", "celu_with_"],
        /// [`hardswish`]
        Hardswish = "hardswish" ["hardswish", "hardswish_"],
        /// [`hardsigmoid`]
        Hardsigmoid = "hardsigmoid" ["hardsigmoid", "hardsigmoid_"],
        /// [`hardtanh_with`]
        Hardtanh = "hardtanh" ["hardtanh", "hardtanh_with", "hardtanh_", "hardtanh_with_"],
        /// [`relu6`]
        Relu6 = "relu6" ["relu6", "relu6_"],
        /// [`threshold`]
        Threshold = "threshold" ["threshold", "threshold_"],
        /// [`mish`]
        Mish = "mish" ["mish", "mish_"],
        /// [`logsigmoid`]
        Logsigmoid = "logsigmoid" ["logsigmoid"],
        /// [`softsign`]
        Softsign = "softsign" ["softsign"],
        /// [`tanhshrink`]
        Tanhshrink = "tanhshrink" ["tanhshrink"],
        /// [`gelu_with`]
        Gelu = "gelu" ["gelu_with"],
        /// [`glu_with`]
        Glu = "glu" ["glu", "glu_with"],
        /// [`prelu`]
        Prelu = "prelu" ["prelu"],
    }
}

macro_rules! opts_one {
    ($(#[$m:meta])* $name:ident, $field:ident, $default:expr) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $name {
            #[doc = concat!("PyTorch's `", stringify!($field), "` (default ", stringify!($default), ").")]
            pub $field: f64,
        }
        impl Default for $name {
            fn default() -> Self {
                $name { $field: $default }
            }
        }
        impl<T: Number> From<T> for $name {
            fn from(v: T) -> Self {
                $name { $field: v.to_scalar().to_f64() }
            }
        }
    };
}

opts_one!(
    /// `F.leaky_relu`'s optional argument: a number (`negative_slope`) or the struct.
    LeakyReluOpts, negative_slope, 0.01
);
opts_one!(
    /// `F.elu`'s optional argument: a number (`alpha`) or the struct.
    EluOpts, alpha, 1.0
);
opts_one!(
    /// `F.celu`'s optional argument: a number (`alpha`) or the struct.
    CeluOpts, alpha, 1.0
);

/// `F.softplus`'s optional arguments (`beta=1.0, threshold=20.0`): a number (beta), a pair
/// `(beta, threshold)`, or the struct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SoftplusOpts {
    /// Scale of the input inside the log (default 1).
    pub beta: f64,
    /// Above `input * beta > threshold` the function is the identity (default 20).
    pub threshold: f64,
}
impl Default for SoftplusOpts {
    fn default() -> Self {
        SoftplusOpts {
            beta: 1.0,
            threshold: 20.0,
        }
    }
}
impl<T: Number> From<T> for SoftplusOpts {
    fn from(beta: T) -> Self {
        SoftplusOpts {
            beta: beta.to_scalar().to_f64(),
            ..Default::default()
        }
    }
}
impl From<(f64, f64)> for SoftplusOpts {
    fn from((beta, threshold): (f64, f64)) -> Self {
        SoftplusOpts { beta, threshold }
    }
}

/// `F.hardtanh`'s optional arguments (`min_val=-1.0, max_val=1.0`): a number (min_val), a
/// pair `(min_val, max_val)`, or the struct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HardtanhOpts {
    /// Lower bound (default -1).
    pub min_val: f64,
    /// Upper bound (default 1).
    pub max_val: f64,
}
impl Default for HardtanhOpts {
    fn default() -> Self {
        HardtanhOpts {
            min_val: -1.0,
            max_val: 1.0,
        }
    }
}
impl<T: Number> From<T> for HardtanhOpts {
    fn from(min_val: T) -> Self {
        HardtanhOpts {
            min_val: min_val.to_scalar().to_f64(),
            ..Default::default()
        }
    }
}
impl From<(f64, f64)> for HardtanhOpts {
    fn from((min_val, max_val): (f64, f64)) -> Self {
        HardtanhOpts { min_val, max_val }
    }
}

/// `F.gelu`'s optional argument `approximate` (`"none"`, the default, or `"tanh"`): a string
/// or the struct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeluOpts<'a> {
    /// `"none"` (erf-based) or `"tanh"`.
    pub approximate: &'a str,
}
impl Default for GeluOpts<'_> {
    fn default() -> Self {
        GeluOpts {
            approximate: "none",
        }
    }
}
impl<'a> From<&'a str> for GeluOpts<'a> {
    fn from(approximate: &'a str) -> Self {
        GeluOpts { approximate }
    }
}

/// `F.glu`'s optional argument `dim` (default -1): an int or the struct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GluOpts {
    /// The dim that is halved.
    pub dim: i64,
}
impl Default for GluOpts {
    fn default() -> Self {
        GluOpts { dim: -1 }
    }
}
impl<T: Int> From<T> for GluOpts {
    fn from(dim: T) -> Self {
        GluOpts { dim: dim.to_i64() }
    }
}

/// `F.softplus(input)`: `log(1 + exp(x))`, the identity above `x > 20`. See
/// [`softplus_with`].
pub fn softplus(input: &Tensor) -> Result<Tensor> {
    softplus_with(input, SoftplusOpts::default())
}
/// `F.softplus(input, beta, threshold)`: `log(1 + exp(beta*x)) / beta`, or `x` where
/// `beta*x > threshold`. Floats only: `"softplus_cpu" not implemented for 'Long'`.
pub fn softplus_with(input: &Tensor, opts: impl Into<SoftplusOpts>) -> Result<Tensor> {
    let o: SoftplusOpts = opts.into();
    let r = softplus_raw(input, o.beta, o.threshold)?;
    crate::autograd::formulas::pointwise::act(
        "SoftplusBackward0",
        r,
        input,
        crate::autograd::formulas::pointwise::d_softplus(o.beta, o.threshold),
    )
}

/// `F.leaky_relu(input)`: `x` for `x > 0`, else `0.01*x`. See [`leaky_relu_with`].
pub fn leaky_relu(input: &Tensor) -> Result<Tensor> {
    leaky_relu_with(input, LeakyReluOpts::default())
}
/// `F.leaky_relu(input, negative_slope)`: `x > 0 ? x : negative_slope*x` (NaN stays NaN).
/// Floats only: `"leaky_relu_cpu" not implemented for 'Long'` (NotImplementedError).
pub fn leaky_relu_with(input: &Tensor, opts: impl Into<LeakyReluOpts>) -> Result<Tensor> {
    let s = opts.into().negative_slope;
    let r = float_act(
        input,
        "leaky_relu_cpu",
        move |x| if x > 0.0 { x } else { x * s },
    )?;
    crate::autograd::formulas::pointwise::act("LeakyReluBackward0", r, input, move |x| {
        if x > 0.0 { 1.0 } else { s }
    })
}
/// `F.leaky_relu(input, inplace=True)` (`F.leaky_relu_`).
pub fn leaky_relu_(input: &Tensor) -> Result<Tensor> {
    write_back(input, leaky_relu)
}
/// `F.leaky_relu(input, negative_slope, inplace=True)`.
pub fn leaky_relu_with_(input: &Tensor, opts: impl Into<LeakyReluOpts>) -> Result<Tensor> {
    let o = opts.into();
    write_back(input, |input| leaky_relu_with(input, o))
}

/// `F.elu(input)` (alpha 1). See [`elu_with`].
pub fn elu(input: &Tensor) -> Result<Tensor> {
    elu_with(input, EluOpts::default())
}
/// `F.elu(input, alpha)`: `x > 0 ? x : alpha*(exp(x)-1)`. Floats only: `"elu_cpu" not
/// implemented for 'Long'`.
pub fn elu_with(input: &Tensor, opts: impl Into<EluOpts>) -> Result<Tensor> {
    let alpha = opts.into().alpha;
    let r = elu_kernel(input, alpha, 1.0, 1.0)?;
    crate::autograd::formulas::activation::elu_family("EluBackward0", r, input, alpha, 1.0, 1.0)
}
/// `F.elu(input, inplace=True)` (`F.elu_`).
pub fn elu_(input: &Tensor) -> Result<Tensor> {
    write_back(input, elu)
}
/// `F.elu(input, alpha, inplace=True)`.
pub fn elu_with_(input: &Tensor, opts: impl Into<EluOpts>) -> Result<Tensor> {
    let o = opts.into();
    write_back(input, |input| elu_with(input, o))
}

// PyTorch's literals (more digits than a double holds).
#[allow(clippy::excessive_precision)]
const SELU_ALPHA: f64 = 1.673_263_242_354_377_284_817_042_991_671_7;
#[allow(clippy::excessive_precision)]
const SELU_SCALE: f64 = 1.050_700_987_355_480_493_419_334_985_294_6;

/// `F.selu(input)` (`torch.selu`): `scale * (x > 0 ? x : alpha*(exp(x)-1))` with PyTorch's
/// constants (alpha ≈ 1.6733, scale ≈ 1.0507). Floats only: `"elu_cpu" not implemented for
/// 'Long'`.
pub fn selu(input: &Tensor) -> Result<Tensor> {
    let (neg, pos) = (SELU_ALPHA * SELU_SCALE, SELU_SCALE);
    let r = elu_kernel(input, SELU_ALPHA, SELU_SCALE, 1.0)?;
    crate::autograd::formulas::activation::elu_family("EluBackward0", r, input, neg, pos, 1.0)
}
/// `F.selu(input, inplace=True)` (`torch.selu_`).
pub fn selu_(input: &Tensor) -> Result<Tensor> {
    write_back(input, selu)
}

/// `F.celu(input)` (alpha 1). See [`celu_with`].
pub fn celu(input: &Tensor) -> Result<Tensor> {
    celu_with(input, CeluOpts::default())
}
/// `F.celu(input, alpha)` (`torch.celu`): `max(0, x) + min(0, alpha*(exp(x/alpha)-1))`.
/// Errors: `ZeroDivisionError: alpha cannot be 0 for CELU` (alpha 0), then `"elu_cpu" not
/// implemented for 'Long'` for integers and bool.
pub fn celu_with(input: &Tensor, opts: impl Into<CeluOpts>) -> Result<Tensor> {
    let alpha = opts.into().alpha;
    if alpha == 0.0 {
        return Err(Error::runtime(
            "ZeroDivisionError: alpha cannot be 0 for CELU",
        ));
    }
    let r = elu_kernel(input, alpha, 1.0, 1.0 / alpha)?;
    crate::autograd::formulas::activation::elu_family(
        "CeluBackward0",
        r,
        input,
        alpha,
        1.0,
        1.0 / alpha,
    )
}
/// `F.celu(input, inplace=True)` (`torch.celu_`).
pub fn celu_(input: &Tensor) -> Result<Tensor> {
    write_back(input, celu)
}
/// `F.celu(input, alpha, inplace=True)`.
pub fn celu_with_(input: &Tensor, opts: impl Into<CeluOpts>) -> Result<Tensor> {
    let o = opts.into();
    write_back(input, |input| celu_with(input, o))
}

/// `F.hardswish(input)`: `x * min(max(x+3, 0), 6) / 6` (NaN stays NaN). Floats only:
/// `"hardswish_cpu" not implemented for 'Long'`.
pub fn hardswish(input: &Tensor) -> Result<Tensor> {
    let r = crate::ops::activation::hardswish_raw(input)?;
    crate::autograd::formulas::activation::hardswish(r, input)
}
/// `F.hardswish(input, inplace=True)` (`F.hardswish_`).
pub fn hardswish_(input: &Tensor) -> Result<Tensor> {
    write_back(input, hardswish)
}

/// `F.hardsigmoid(input)`: `min(max(x+3, 0), 6) / 6` (NaN stays NaN). Floats only:
/// `"hardsigmoid_cpu" not implemented for 'Long'`.
pub fn hardsigmoid(input: &Tensor) -> Result<Tensor> {
    let r = crate::ops::activation::hardsigmoid_raw(input)?;
    crate::autograd::formulas::activation::hardsigmoid(r, input)
}
/// `F.hardsigmoid(input, inplace=True)` (`F.hardsigmoid_`).
pub fn hardsigmoid_(input: &Tensor) -> Result<Tensor> {
    write_back(input, hardsigmoid)
}

/// `F.hardtanh(input)`: clamp to `[-1, 1]`. See [`hardtanh_with`].
pub fn hardtanh(input: &Tensor) -> Result<Tensor> {
    hardtanh_with(input, HardtanhOpts::default())
}
/// `F.hardtanh(input, min_val, max_val)`: `input` clamped to `[min_val, max_val]` (NaN stays
/// NaN). Integer inputs keep their dtype: the bounds act as in double and the result
/// truncates (`hardtanh(int, -0.5, 2.5)` clamps to `[0, 2]`). Errors, in order:
/// `min_val cannot be greater than max_val` (ValueError); `Bool inputs not supported for
/// hardtanh` (NotImplementedError).
pub fn hardtanh_with(input: &Tensor, opts: impl Into<HardtanhOpts>) -> Result<Tensor> {
    let HardtanhOpts { min_val, max_val } = opts.into();
    if min_val > max_val {
        return Err(Error::value("min_val cannot be greater than max_val"));
    }
    let r = clamp_act(input, min_val, max_val)?;
    crate::autograd::formulas::activation::hardtanh(r, input, min_val, max_val)
}
/// `F.hardtanh(input, inplace=True)` (`F.hardtanh_`).
pub fn hardtanh_(input: &Tensor) -> Result<Tensor> {
    hardtanh_with_(input, HardtanhOpts::default())
}
/// `F.hardtanh(input, min_val, max_val, inplace=True)`. Errors as [`hardtanh_with`], then
/// the in-place ones.
pub fn hardtanh_with_(input: &Tensor, opts: impl Into<HardtanhOpts>) -> Result<Tensor> {
    let o = opts.into();
    if o.min_val > o.max_val {
        return Err(Error::value("min_val cannot be greater than max_val"));
    }
    write_back(input, |input| hardtanh_with(input, o))
}

/// `F.relu6(input)`: `hardtanh(input, 0, 6)`; integers keep their dtype. Error: `Bool
/// inputs not supported for hardtanh`.
pub fn relu6(input: &Tensor) -> Result<Tensor> {
    let r = clamp_act(input, 0.0, 6.0)?;
    crate::autograd::formulas::activation::hardtanh(r, input, 0.0, 6.0)
}
/// `F.relu6(input, inplace=True)`.
pub fn relu6_(input: &Tensor) -> Result<Tensor> {
    write_back(input, relu6)
}

/// `F.threshold(input, threshold, value)` (`torch.threshold`): `x <= threshold ? value : x`
/// (NaN stays). Both numbers are converted to `input`'s dtype first (integers truncate).
/// Errors: `"threshold_cpu" not implemented for 'Bool'`; `value cannot be converted to type
/// uint8_t without overflow` (a number outside the dtype's range).
pub fn threshold(
    input: &Tensor,
    threshold: impl Into<Scalar>,
    value: impl Into<Scalar>,
) -> Result<Tensor> {
    let (th, val) = (threshold.into(), value.into());
    let dt = input.dtype;
    if dt == DType::Bool {
        return Err(not_impl("threshold_cpu", dt));
    }
    check_fill_range(dt, th)?;
    check_fill_range(dt, val)?;
    if dt.is_floating_point() {
        let (th, val) = (round_to(dt, th.to_f64()), round_to(dt, val.to_f64()));
        let r = map::<f64, f64>(input, dt, false, Layout::Iter, move |x| {
            if x <= th { val } else { x }
        })?;
        return crate::autograd::formulas::activation::threshold(r, input, th);
    }
    let (th, val) = (th.to_f64().trunc() as i64, val.to_f64().trunc() as i64);
    map::<i64, i64>(input, dt, false, Layout::Iter, move |x| {
        if x <= th { val } else { x }
    })
}
/// `F.threshold(input, threshold, value, inplace=True)` (`torch.threshold_`).
pub fn threshold_(
    input: &Tensor,
    threshold: impl Into<Scalar>,
    value: impl Into<Scalar>,
) -> Result<Tensor> {
    let (th, val) = (threshold.into(), value.into());
    write_back(input, |input| self::threshold(input, th, val))
}

/// `F.mish(input)`: `x * tanh(softplus(x))`. Floats only: `"mish_cpu" not implemented for
/// 'Long'`.
pub fn mish(input: &Tensor) -> Result<Tensor> {
    let r = mish_raw(input)?;
    crate::autograd::formulas::pointwise::act(
        "MishBackward0",
        r,
        input,
        crate::autograd::formulas::pointwise::d_mish,
    )
}
/// `F.mish(input, inplace=True)`.
pub fn mish_(input: &Tensor) -> Result<Tensor> {
    write_back(input, mish)
}

/// `F.logsigmoid(input)`: `log(1/(1+exp(-x)))`, computed as `min(x,0) - log1p(exp(-|x|))`.
/// The result is contiguous whatever `input`'s layout.
/// Floats only: `"log_sigmoid_cpu" not implemented for 'Long'`.
pub fn logsigmoid(input: &Tensor) -> Result<Tensor> {
    if !input.dtype.is_floating_point() {
        return Err(not_impl("log_sigmoid_cpu", input.dtype));
    }
    let r = crate::ops::activation::logsigmoid_raw(input)?;
    crate::autograd::formulas::activation::logsigmoid(r, input)
}

/// `F.softsign(input)`: `input / (input.abs() + 1)`, as PyTorch composes it (integers give
/// float32 by true division). Error for bool: `"abs_cpu" not implemented for 'Bool'`.
pub fn softsign(input: &Tensor) -> Result<Tensor> {
    input.div(&input.abs()?.add(1)?)
}

/// `F.tanhshrink(input)`: `input - input.tanh()`, as PyTorch composes it (integers give
/// float32). Errors: those of `tanh` and `sub`.
pub fn tanhshrink(input: &Tensor) -> Result<Tensor> {
    input.sub(&input.tanh()?)
}

/// `F.gelu(input, approximate=…)`: `"none"` is [`Tensor::gelu`]; `"tanh"` is
/// `x/2 * (1 + tanh(sqrt(2/π) * (x + 0.044715 x³)))`. Errors: `approximate argument must be
/// either none or tanh.`; `"GeluKernelImpl" not implemented for 'Long'` for integers and bool.
pub fn gelu_with<'a>(input: &Tensor, opts: impl Into<GeluOpts<'a>>) -> Result<Tensor> {
    let approximate = opts.into().approximate;
    let r = gelu_raw(input, approximate)?;
    if approximate == "tanh" {
        return crate::autograd::formulas::pointwise::act(
            "GeluBackward0",
            r,
            input,
            crate::autograd::formulas::pointwise::d_gelu_tanh,
        );
    }
    Ok(r)
}

/// `F.glu(input)` (dim -1). See [`glu_with`].
pub fn glu(input: &Tensor) -> Result<Tensor> {
    glu_with(input, GluOpts::default())
}
/// `F.glu(input, dim)`: with `a, b` the two halves of `input` along `dim`, `a * sigmoid(b)`.
/// Shape: `input`'s with `dim` halved. Errors, in order: `glu does not support scalars
/// because halving size must be even` (0-d); the dim range error; `Halving dimension must be
/// even, but dimension 2 is size 3`; `"glu_cpu" not implemented for 'Long'` (integers, bool).
pub fn glu_with(input: &Tensor, opts: impl Into<GluOpts>) -> Result<Tensor> {
    if input.dim() == 0 {
        return Err(Error::runtime(
            "glu does not support scalars because halving size must be even",
        ));
    }
    let d = wrap_dim(opts.into().dim, input.dim())?;
    let n = input.sizes[d];
    if !n.is_multiple_of(2) {
        return Err(Error::runtime(format!(
            "Halving dimension must be even, but dimension {d} is size {n}"
        )));
    }
    let dt = input.dtype;
    if !dt.is_floating_point() {
        return Err(not_impl("glu_cpu", dt));
    }
    let r = {
        let _ng = crate::autograd::no_grad();
        let a = input.narrow(d, 0, n / 2)?;
        let b = input.narrow(d, n / 2, n / 2)?;
        map2::<f64, f64>(&a, &b, dt, |a, b| a / (1.0 + (-b).exp()))?
    };
    crate::autograd::formulas::activation::glu(r, input, d)
}

/// `F.prelu(input, weight)` (`torch.prelu`, `Tensor.prelu`): `x > 0 ? x : w*x`, with `weight`
/// one value or one per channel (dim 1 of `input`; 1 for a 1-D input). Shape: `input`'s.
/// Errors, in order: `prelu: Type promoting not supported. Got Float and Double`; `Not allow
/// zero-dim input tensor.` (0-d input, several weights); `Mismatch of parameter numbers and
/// input channel size. Found parameter numbers = 2 and channel size = 1.`; `prelu: Expected
/// `weight` to be a scalar or 1D tensor, but got: ndim = 2`; `"prelu_cpu" not implemented
/// for 'Long'` (integers, bool).
pub fn prelu(input: &Tensor, weight: &Tensor) -> Result<Tensor> {
    if input.dtype != weight.dtype {
        return Err(Error::runtime(format!(
            "prelu: Type promoting not supported. Got {} and {}",
            input.dtype.scalar_type_name(),
            weight.dtype.scalar_type_name()
        )));
    }
    let nd = input.dim();
    let wn = weight.numel();
    if wn != 1 {
        if nd == 0 {
            return Err(Error::runtime("Not allow zero-dim input tensor."));
        }
        let channels = if nd > 1 { input.sizes[1] } else { 1 };
        if channels != wn {
            return Err(Error::runtime(format!(
                "Mismatch of parameter numbers and input channel size. Found parameter numbers = {wn} and channel size = {channels}."
            )));
        }
    }
    if weight.dim() > 1 {
        return Err(Error::runtime(format!(
            "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {}",
            weight.dim()
        )));
    }
    let w = if nd != weight.dim() {
        let mut shape = vec![1i64; nd];
        if nd > 1 {
            shape[1] = wn as i64;
        }
        weight.reshape(shape)?
    } else {
        weight.alias()
    };
    if !input.dtype.is_floating_point() {
        return Err(not_impl("prelu_cpu", input.dtype));
    }
    // `_prelu_kernel` writes into `empty_like(self)`
    let r = map2_like::<f64, f64>(input, input, &w, input.dtype, |x, w| {
        if x > 0.0 { x } else { w * x }
    })?;
    crate::autograd::formulas::activation::prelu(r, input, &w)
}

impl Tensor {
    /// `self.prelu(weight)`: see [`prelu`].
    pub fn prelu(&self, weight: &Tensor) -> Result<Tensor> {
        prelu(self, weight)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hardtanh_on_integers_truncates_the_bounds() {
        let t = Tensor::from_vec(vec![-3i32, -1, 0, 1, 2, 5], [6]).unwrap();
        let r = hardtanh_with(&t, (-0.5, 2.5)).unwrap();
        assert_eq!(r.dtype(), DType::Int32);
        assert_eq!(r.to_vec::<i64>(), [0, 0, 0, 1, 2, 2]);
        let u = Tensor::from_vec(vec![0i64, 3], [2])
            .unwrap()
            .to(DType::UInt8)
            .unwrap();
        assert_eq!(hardtanh(&u).unwrap().to_vec::<i64>(), [0, 1]);
    }

    #[test]
    fn threshold_converts_its_numbers_to_the_dtype() {
        let t = Tensor::from_vec(vec![-1i32, 0, 1], [3]).unwrap();
        // -0.5 truncates to 0: x <= 0 is replaced
        assert_eq!(threshold(&t, -0.5, 9.0).unwrap().to_vec::<i64>(), [9, 9, 1]);
        let u = t.to(DType::UInt8).unwrap();
        assert_eq!(
            threshold(&u, 1.5, -2.0).unwrap_err().to_string(),
            "value cannot be converted to type uint8_t without overflow"
        );
    }

    #[test]
    fn hardswish_is_pytorchs_float_kernel() {
        // (x, torch.nn.functional.hardswish(x)) from torch 2.15, float32: inputs where the
        // double formula rounded once gives another float
        let cases: [(u32, u32); 6] = [
            (0xbf94e2b8, 0xbeb65188),
            (0x3e978c20, 0x3e267fe5),
            (0xbcc45a00, 0xbc42c865),
            (0xc00f0106, 0xbe91f8a9),
            (0xc025a284, 0xbe35f53c),
            (0x40b61f66, 0x40b61f65),
        ];
        let xs: Vec<f32> = cases.iter().map(|c| f32::from_bits(c.0)).collect();
        let r = hardswish(&Tensor::from_vec(xs, [6]).unwrap())
            .unwrap()
            .to_vec::<f32>();
        for (got, (x, want)) in r.iter().zip(cases) {
            assert_eq!(got.to_bits(), want, "hardswish of bits {x:#x}");
        }
    }

    #[test]
    fn hardswish_keeps_nan() {
        let t = Tensor::from_vec(vec![f64::NAN, -4.0, 1.0, 4.0], [4]).unwrap();
        let r = hardswish(&t).unwrap().to_vec::<f64>();
        assert!(r[0].is_nan());
        assert_eq!(&r[1..], [-0.0, 1.0 * 4.0 / 6.0, 4.0]);
    }
}
