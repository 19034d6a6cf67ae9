//! The forward kernels of the activations of `torch.nn.functional` (their functions, in-place
//! forms and recording are `crate::optable::activation`'s): float-only maps computed in double
//! and rounded once, `hardtanh`'s clamp, and the float32 kernels (the half types computing in
//! float32) of `softplus`, the tanh `gelu`, the ELU family, `mish` and `hardtanh`, on the
//! vectorised library `crate::kernels::vmath`. Records nothing.

use crate::Tensor;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::special::log1pexp;
use crate::kernels::vmath::VOp;
use crate::ops::unary_math::{Layout, map, map_vop, not_impl};

/// `std::max` as C++ computes it (`a < b ? b : a`): NaN in `a` propagates.
pub(crate) fn cmax(a: f64, b: f64) -> f64 {
    if a < b { b } else { a }
}

/// `std::min` as C++ computes it (`b < a ? b : a`): NaN in `a` propagates.
pub(crate) fn cmin(a: f64, b: f64) -> f64 {
    if b < a { b } else { a }
}

/// A float-only activation: `f` over a float `input` (same dtype); integers and bool give
/// `"NAME" not implemented for 'Long'` (NotImplementedError).
pub(crate) fn float_act(
    input: &Tensor,
    name: &str,
    f: impl Fn(f64) -> f64 + Sync,
) -> Result<Tensor> {
    if !input.dtype.is_floating_point() {
        return Err(not_impl(name, input.dtype));
    }
    map::<f64, f64>(input, input.dtype, false, Layout::Iter, f)
}

/// A float-only activation computed as PyTorch's kernels compute it: float32 and the half
/// types in float (`op` on the vector library, the half types converted to float and back),
/// float64 in double (`f`). Errors as [`float_act`] (`name` in the message).
fn float_or_double(
    input: &Tensor,
    name: &str,
    op: VOp,
    f: impl Fn(f64) -> f64 + Sync,
) -> Result<Tensor> {
    if matches!(
        input.dtype,
        DType::Float32 | DType::Float16 | DType::BFloat16
    ) {
        return map_vop(input, Layout::Iter, op);
    }
    float_act(input, name, f)
}

/// `F.hardswish`'s kernel: [`VOp::Hardswish`] (PyTorch's float kernel, bit for bit), float64
/// in double. Floats only (`"hardswish_cpu" not implemented for 'Long'`).
pub(crate) fn hardswish_raw(input: &Tensor) -> Result<Tensor> {
    float_or_double(input, "hardswish_cpu", VOp::Hardswish, |x| {
        x * cmin(cmax(x + 3.0, 0.0), 6.0) / 6.0
    })
}

/// `F.hardsigmoid`'s kernel: [`VOp::Hardsigmoid`], float64 in double. Floats only
/// (`"hardsigmoid_cpu" not implemented for 'Long'`).
pub(crate) fn hardsigmoid_raw(input: &Tensor) -> Result<Tensor> {
    float_or_double(input, "hardsigmoid_cpu", VOp::Hardsigmoid, |x| {
        cmin(cmax(x + 3.0, 0.0), 6.0) / 6.0
    })
}

/// `F.softplus`'s kernel: `log1p(exp(x·beta))/beta`, `x` above `threshold/beta`; float32 in
/// float (PyTorch's float kernel), other floats in double. Floats only.
pub(crate) fn softplus_raw(input: &Tensor, beta: f64, threshold: f64) -> Result<Tensor> {
    if input.dtype == DType::Float32 {
        // PyTorch's float kernel: beta and threshold as float, computed in float
        let op = VOp::Softplus {
            beta: beta as f32,
            threshold: threshold as f32,
        };
        return map_vop(input, Layout::Iter, op);
    }
    float_act(input, "softplus_cpu", move |x| {
        if x * beta > threshold {
            x
        } else {
            (x * beta).exp().ln_1p() / beta
        }
    })
}

/// The ELU family's kernel (PyTorch's `elu_kernel`): `x < 0 ? expm1(x·input_scale)·negcoef :
/// x·scale`, `negcoef = alpha·scale`. Float32 and the half types compute in float with the
/// coefficients rounded to float (the vectorised library's `expm1`); float64 in double.
/// Floats only (`"elu_cpu" not implemented for 'Long'`).
pub(crate) fn elu_kernel(
    input: &Tensor,
    alpha: f64,
    scale: f64,
    input_scale: f64,
) -> Result<Tensor> {
    let op = VOp::Elu {
        neg: alpha as f32 * scale as f32,
        pos: scale as f32,
        scale: input_scale as f32,
    };
    let (negcoef, poscoef) = (alpha * scale, scale);
    float_or_double(input, "elu_cpu", op, move |x| {
        if x < 0.0 {
            (x * input_scale).exp_m1() * negcoef
        } else {
            x * poscoef
        }
    })
}

/// `hardtanh`'s kernel (`clamp` with scalar bounds) into `empty_like(input)` (a dense
/// input's strides kept, size-1 dims' included).
pub(crate) fn clamp_act(input: &Tensor, lo: f64, hi: f64) -> Result<Tensor> {
    let dt = input.dtype;
    if dt == DType::Bool {
        return Err(Error::not_implemented(
            "Bool inputs not supported for hardtanh",
        ));
    }
    if dt == DType::Float32 {
        let op = VOp::Hardtanh {
            lo: lo as f32,
            hi: hi as f32,
        };
        return map_vop(input, Layout::Preserve, op);
    }
    if dt.is_floating_point() {
        return map::<f64, f64>(input, dt, false, Layout::Preserve, move |x| {
            if x < lo {
                lo
            } else if x > hi {
                hi
            } else {
                x
            }
        });
    }
    // For integers, clamping in double then truncating equals clamping to the truncated
    // bounds (truncation is monotone and keeps integers).
    let (lo, hi) = (lo.trunc() as i64, hi.trunc() as i64);
    map::<i64, i64>(input, dt, false, Layout::Preserve, move |x| {
        x.max(lo).min(hi)
    })
}

/// `F.gelu`'s kernel, exact (`input.gelu()`) or `tanh`-approximated.
pub(crate) fn gelu_raw(input: &Tensor, approximate: &str) -> Result<Tensor> {
    match approximate {
        "none" => input.gelu(),
        "tanh" if input.dtype == DType::Float32 => map_vop(input, Layout::Iter, VOp::GeluTanh),
        "tanh" => {
            let k = (2.0 / std::f64::consts::PI).sqrt();
            float_act(input, "GeluKernelImpl", move |x| {
                0.5 * x * (1.0 + (k * (x + 0.044715 * x * x * x)).tanh())
            })
        }
        _ => Err(Error::runtime(
            "approximate argument must be either none or tanh.",
        )),
    }
}

/// The forward function of `F.logsigmoid(input)` for a floating `input`:
/// `min(x, 0) - log1p(exp(-|x|))`, in double for float64, on the vectorised float library for
/// float32 and the half types; written into `empty_like(input, memory_format=contiguous)`, as
/// PyTorch writes it.
pub(crate) fn logsigmoid_raw(input: &Tensor) -> Result<Tensor> {
    if input.dtype == DType::Float64 {
        map::<f64, f64>(input, input.dtype, false, Layout::Contiguous, |x| {
            cmin(x, 0.0) - (-x.abs()).exp().ln_1p()
        })
    } else {
        map_vop(input, Layout::Contiguous, VOp::Logsigmoid)
    }
}

/// `F.mish`'s kernel: `x * tanh(softplus(x))`, floats only (`"mish_cpu" not implemented for
/// 'Long'`).
/// Float32 and the half types run the vectorised library's float `mish`.
pub(crate) fn mish_raw(input: &Tensor) -> Result<Tensor> {
    if matches!(
        input.dtype,
        DType::Float32 | DType::Float16 | DType::BFloat16
    ) {
        return map_vop(input, Layout::Iter, VOp::Mish);
    }
    float_act(input, "mish_cpu", |x| x * log1pexp(x).tanh())
}
