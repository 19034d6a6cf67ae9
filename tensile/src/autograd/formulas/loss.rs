//! Losses (spec §9.6), reduction `none` / `mean` / `sum`: `g` scaled by `1/N` for `mean`.

use super::super::node::Save;
use super::super::record::{node_saving, record};
use super::pointwise::{lam, map_n};
use crate::error::Result;
use crate::tensor::Tensor;

/// The reduction of a loss, as its backward needs it.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Red {
    None,
    Mean,
    Sum,
}

/// A pointwise loss `l(x, y)` with derivative `d(x, y)` w.r.t. `x` (the target gets `-d`).
fn pointwise_loss(
    name: &'static str,
    out: Tensor,
    x: &Tensor,
    y: &Tensor,
    red: Red,
    d: impl Fn(f64, f64) -> f64 + Send + Sync + 'static,
) -> Result<Tensor> {
    record(out, &[x, y], || {
        node_saving(
            lam(name, move |g, s| {
                let n = crate::broadcast::infer_size(s[0].size(), s[1].size())?
                    .iter()
                    .product::<usize>() as f64;
                let k = if red == Red::Mean { 1.0 / n } else { 1.0 };
                let gx = map_n(&[g, &s[0], &s[1]], g.dtype(), |v| v[0] * k * d(v[1], v[2]))?;
                let gy = map_n(&[g, &s[0], &s[1]], g.dtype(), |v| -v[0] * k * d(v[1], v[2]))?;
                Ok(vec![Some(gx), Some(gy)])
            }),
            vec![Save::Input(x.alias()), Save::Input(y.alias())],
        )
    })
}

/// `mse_loss` (`MseLossBackward0`): `2(x - y)`.
pub(crate) fn mse(out: Tensor, x: &Tensor, y: &Tensor, red: Red) -> Result<Tensor> {
    pointwise_loss("MseLossBackward0", out, x, y, red, |a, b| 2.0 * (a - b))
}

/// `smooth_l1_loss(beta)` (`SmoothL1LossBackward0`): `(x - y)/beta` where `|x - y| < beta`,
/// else `sgn(x - y)`.
pub(crate) fn smooth_l1(
    out: Tensor,
    x: &Tensor,
    y: &Tensor,
    red: Red,
    beta: f64,
) -> Result<Tensor> {
    pointwise_loss("SmoothL1LossBackward0", out, x, y, red, move |a, b| {
        let z = a - b;
        if z.abs() < beta {
            z / beta
        } else if z > 0.0 {
            1.0
        } else if z < 0.0 {
            -1.0
        } else {
            0.0
        }
    })
}
