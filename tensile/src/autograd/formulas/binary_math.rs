//! Pointwise formulas of `ops::math_ternary` and `ops::unary_math` (derivatives.yaml's
//! `addcdiv`, `nan_to_num`); the binary math functions' derivatives are the rows of
//! `optable::binary`.

use super::super::node::Save;
use super::super::record::{Built, node_saving, record};
use super::pointwise::{lam, map_n};
use crate::error::Result;
use crate::tensor::Tensor;

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

/// `nan_to_num(x)` (`NanToNumBackward0`, the input saved): `g` where `x` is finite, else 0.
pub(crate) fn nan_to_num(x: &Tensor) -> Built {
    node_saving(
        lam("NanToNumBackward0", |g, s| {
            Ok(vec![Some(map_n(&[g, &s[0]], g.dtype(), |v| {
                if v[1].is_finite() { v[0] } else { 0.0 }
            })?)])
        }),
        vec![Save::Input(x.alias())],
    )
}
