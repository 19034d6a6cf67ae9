//! The remaining pointwise math of `ops::math_binary`, `ops::math_ternary` and
//! `ops::unary_math` (derivatives.yaml's `copysign`, `float_power`, `nextafter`,
//! `logaddexp(2)`, `addcdiv`, `nan_to_num`).

use super::super::node::Save;
use super::super::record::{node_saving, record};
use super::pointwise::{binary_fn, lam, map_n};
use crate::error::Result;
use crate::ops::Operand;
use crate::tensor::Tensor;

/// `copysign`: `∂/∂self = result / self` (0 where `self` is 0), `∂/∂other = 0`.
pub(crate) fn d_copysign(a: f64, _: f64, r: f64) -> (f64, f64) {
    (if a == 0.0 { 0.0 } else { r / a }, 0.0)
}
/// `float_power` (as `pow`): `b·a^(b-1)` (0 where `b` is 0), `r·ln a` (0 where `a` is 0 and `b >= 0`).
pub(crate) fn d_float_power(a: f64, b: f64, r: f64) -> (f64, f64) {
    (
        if b == 0.0 { 0.0 } else { b * a.powf(b - 1.0) },
        if a == 0.0 && b >= 0.0 {
            0.0
        } else {
            r * a.ln()
        },
    )
}
/// `nextafter`: derivatives.yaml gives `self` the gradient unchanged and `other` zeros.
pub(crate) fn d_nextafter(_: f64, _: f64, _: f64) -> (f64, f64) {
    (1.0, 0.0)
}
/// `logaddexp`: `exp(a - r)`, `exp(b - r)`.
pub(crate) fn d_logaddexp(a: f64, b: f64, r: f64) -> (f64, f64) {
    ((a - r).exp(), (b - r).exp())
}
/// `logaddexp2`: `2^(a - r)`, `2^(b - r)`.
pub(crate) fn d_logaddexp2(a: f64, b: f64, r: f64) -> (f64, f64) {
    ((a - r).exp2(), (b - r).exp2())
}

/// Records `copysign`, `float_power`, `nextafter`, `logaddexp`, `logaddexp2` (names as
/// PyTorch: tensor-tensor, tensor-number, number-tensor); another op records nothing.
pub(crate) fn math2(name: &str, out: Tensor, a: Operand<'_>, b: Operand<'_>) -> Result<Tensor> {
    let (names, d): ((&'static str, &'static str, &'static str), _) = match name {
        "copysign" => (
            (
                "CopysignBackward0",
                "CopysignBackward1",
                "CopysignBackward0",
            ),
            d_copysign as fn(f64, f64, f64) -> (f64, f64),
        ),
        "float_power" => (
            ("PowBackward1", "PowBackward0", "PowBackward2"),
            d_float_power,
        ),
        "nextafter" => (
            (
                "NextafterBackward0",
                "NextafterBackward0",
                "NextafterBackward0",
            ),
            d_nextafter,
        ),
        "logaddexp" => (
            (
                "LogaddexpBackward0",
                "LogaddexpBackward0",
                "LogaddexpBackward0",
            ),
            d_logaddexp,
        ),
        "logaddexp2" => (
            (
                "Logaddexp2Backward0",
                "Logaddexp2Backward0",
                "Logaddexp2Backward0",
            ),
            d_logaddexp2,
        ),
        _ => return Ok(out),
    };
    binary_fn(names, out, a, b, d)
}

/// `addcdiv(x, t1, t2, value)` (`AddcdivBackward0`): `g`; `g·value/t2`; `-g·value·t1/t2²`.
pub(crate) fn addcdiv(
    out: Tensor,
    x: &Tensor,
    t1: &Tensor,
    t2: &Tensor,
    value: f64,
) -> Result<Tensor> {
    record(out, &[x, t1, t2], || {
        node_saving(
            lam("AddcdivBackward0", move |g, s| {
                Ok(vec![
                    Some(g.alias()),
                    Some(map_n(&[g, &s[1]], g.dtype(), |v| v[0] * value / v[1])?),
                    Some(map_n(&[g, &s[0], &s[1]], g.dtype(), |v| {
                        -v[0] * value * v[1] / (v[2] * v[2])
                    })?),
                ])
            }),
            vec![Save::Input(t1.alias()), Save::Input(t2.alias())],
        )
    })
}

/// `nan_to_num(x)` (`NanToNumBackward0`): `g` where `x` is finite, else 0.
pub(crate) fn nan_to_num(out: Tensor, x: &Tensor) -> Result<Tensor> {
    record(out, &[x], || {
        node_saving(
            lam("NanToNumBackward0", |g, s| {
                Ok(vec![Some(map_n(&[g, &s[0]], g.dtype(), |v| {
                    if v[1].is_finite() { v[0] } else { 0.0 }
                })?)])
            }),
            vec![Save::Input(x.alias())],
        )
    })
}
