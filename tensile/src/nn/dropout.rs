//! The dropouts of `torch.nn.functional`: `dropout`, `dropout1d/2d/3d` (whole channels),
//! `alpha_dropout` and `feature_alpha_dropout` (SELU-preserving). With `p = 0`,
//! `training = false` or an empty input each returns the input itself (an alias, as PyTorch
//! does); otherwise the mask is drawn from the default generator, as PyTorch's `_dropout_impl`
//! draws it (`F.dropout` takes no generator): `noise = empty_like(input).bernoulli_(1 - p)`
//! (one uniform double per element, in memory order), or of shape `(N, C, 1, …)` for the
//! channel forms, so `tensile::manual_seed(s)` gives PyTorch's masks.

use crate::Tensor;
use crate::error::{Error, Result};

/// The dropouts' optional arguments (`p=0.5, training=True, inplace=False`), for
/// `dropout_with` and the others: `p`, a pair `(p, training)`, a triple, or the struct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DropoutOpts {
    /// Probability of an element (or channel) being zeroed, in `[0, 1]` (default 0.5).
    pub p: f64,
    /// Apply dropout (default true); `false` returns the input itself.
    pub training: bool,
    /// Write the result into the input (PyTorch's `inplace=True`).
    pub inplace: bool,
}
impl Default for DropoutOpts {
    fn default() -> Self {
        DropoutOpts {
            p: 0.5,
            training: true,
            inplace: false,
        }
    }
}
impl From<f64> for DropoutOpts {
    fn from(p: f64) -> Self {
        DropoutOpts {
            p,
            ..Default::default()
        }
    }
}
impl From<(f64, bool)> for DropoutOpts {
    fn from((p, training): (f64, bool)) -> Self {
        DropoutOpts {
            p,
            training,
            ..Default::default()
        }
    }
}
impl From<(f64, bool, bool)> for DropoutOpts {
    fn from((p, training, inplace): (f64, bool, bool)) -> Self {
        DropoutOpts {
            p,
            training,
            inplace,
        }
    }
}

/// PyTorch's `_dropout_impl`: identity when `p == 0`, not training or empty; `input * 0` when
/// `p == 1` (no draws); else `noise = bernoulli_(1 - p)` of the input's layout (or a
/// contiguous `(N, C, 1, …)` for `feature`), then `input * noise / (1 - p)` (dropout) or the
/// affine map that keeps the SELU statistics (alpha dropout).
fn dropout_impl(input: &Tensor, o: DropoutOpts, feature: bool, alpha: bool) -> Result<Tensor> {
    if o.p < 0.0 || o.p > 1.0 || o.p.is_nan() {
        return Err(Error::value(format!(
            "dropout probability has to be between 0 and 1, but got {:?}",
            o.p
        )));
    }
    if o.p == 0.0 || !o.training || input.numel() == 0 {
        return Ok(input.alias());
    }
    let multiply = |noise: &Tensor| -> Result<Tensor> {
        if o.inplace {
            input.mul_(noise)
        } else {
            input.mul(noise)
        }
    };
    if o.p == 1.0 {
        return multiply(&Tensor::zeros_with((), input.dtype)?);
    }
    let noise = if feature {
        if input.dim() < 2 {
            return Err(Error::runtime(
                "Feature dropout requires at least 2 dimensions in the input",
            ));
        }
        let mut s = vec![1; input.dim()];
        s[0] = input.sizes[0];
        s[1] = input.sizes[1];
        Tensor::empty_with(&s[..], input.dtype)?
    } else {
        Tensor::empty_like(input)?
    };
    let b = {
        let _ng = crate::autograd::no_grad();
        noise.bernoulli_with_(1.0 - o.p)?;
        if alpha {
            const ALPHA: f64 = 1.7580993408473766;
            let a = 1.0 / ((ALPHA * ALPHA * o.p + 1.0) * (1.0 - o.p)).sqrt();
            let b = noise.add(-1)?.mul_(ALPHA * a)?.add_(ALPHA * a * o.p)?;
            noise.mul_(a)?;
            Some(b)
        } else {
            noise.div_(1.0 - o.p)?;
            None
        }
    };
    let r = multiply(&noise)?;
    match b {
        Some(b) => r.add_(&b),
        None => Ok(r),
    }
}

/// `F.dropout(input)` (`p=0.5`, training); see [`dropout_with`].
pub fn dropout(input: &Tensor) -> Result<Tensor> {
    dropout_with(input, DropoutOpts::default())
}

/// `F.dropout(input, p, training, inplace)`: each element zeroed with probability `p`, the
/// others scaled by `1/(1-p)`; `p = 0`, `training = false` or an empty input return `input`
/// itself (an alias). The mask comes from the default generator (see the module docs).
///
/// Shape, dtype and layout: `input`'s (floats when masking).
///
/// Errors: ValueError `dropout probability has to be between 0 and 1, but got 1.5`.
pub fn dropout_with(input: &Tensor, opts: impl Into<DropoutOpts>) -> Result<Tensor> {
    dropout_impl(input, opts.into(), false, false)
}

/// `F.alpha_dropout(input)` (`p=0.5`, training=False: the identity); see
/// [`alpha_dropout_with`].
pub fn alpha_dropout(input: &Tensor) -> Result<Tensor> {
    alpha_dropout_with(
        input,
        DropoutOpts {
            training: false,
            ..Default::default()
        },
    )
}

/// `F.alpha_dropout(input, p, training, inplace)`: dropped elements set to SELU's negative
/// saturation and an affine map keeping mean and variance; identity (an alias) when `p = 0`
/// or not training. Errors as [`dropout_with`].
pub fn alpha_dropout_with(input: &Tensor, opts: impl Into<DropoutOpts>) -> Result<Tensor> {
    dropout_impl(input, opts.into(), false, true)
}

/// `F.feature_alpha_dropout(input)` (`p=0.5`, training=False: the identity); see
/// [`feature_alpha_dropout_with`].
pub fn feature_alpha_dropout(input: &Tensor) -> Result<Tensor> {
    feature_alpha_dropout_with(
        input,
        DropoutOpts {
            training: false,
            ..Default::default()
        },
    )
}

/// `F.feature_alpha_dropout(input, p, training, inplace)`: as [`alpha_dropout_with`] with one
/// draw per `(sample, channel)` of an `(N, C, *)` input.
pub fn feature_alpha_dropout_with(input: &Tensor, opts: impl Into<DropoutOpts>) -> Result<Tensor> {
    dropout_impl(input, opts.into(), true, true)
}

/// Channel dropout of an `(N, C, *)` input with `rank` spatial dims, or of an unbatched
/// `(C, *)` one (`unbatched_rank` dims), as `F.dropout1d/2d/3d` do.
fn channel_dropout(
    input: &Tensor,
    o: DropoutOpts,
    name: &str,
    batched_rank: usize,
) -> Result<Tensor> {
    if o.p < 0.0 || o.p > 1.0 || o.p.is_nan() {
        return Err(Error::value(format!(
            "dropout probability has to be between 0 and 1, but got {:?}",
            o.p
        )));
    }
    let d = input.dim();
    if name == "dropout1d" && d != 2 && d != 3 {
        return Err(Error::runtime(format!(
            "dropout1d: Expected 2D or 3D input, but received a {d}D input. Note that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs)."
        )));
    }
    // dropout2d treats a 3-d input as batched (PyTorch warns); dropout1d/3d unsqueeze an
    // unbatched one.
    let unbatched = d + 1 == batched_rank && name != "dropout2d";
    if unbatched {
        let r = dropout_impl(&input.unsqueeze(0)?, o, true, false)?;
        if r.shares_storage(input) && !o.inplace {
            return Ok(input.alias());
        }
        return r.squeeze_dim(0);
    }
    dropout_impl(input, o, true, false)
}

/// `F.dropout1d(input)` (`p=0.5`, training); see [`dropout1d_with`].
pub fn dropout1d(input: &Tensor) -> Result<Tensor> {
    dropout1d_with(input, DropoutOpts::default())
}
/// `F.dropout1d(input, p, training, inplace)`: whole channels of an `(N, C, L)` or `(C, L)`
/// input zeroed with probability `p`, the rest scaled by `1/(1-p)`; identity (an alias) when
/// `p = 0` or not training.
///
/// Errors: ValueError `dropout probability has to be between 0 and 1, but got 1.5`;
/// RuntimeError `dropout1d: Expected 2D or 3D input, but received a 4D input. …`.
pub fn dropout1d_with(input: &Tensor, opts: impl Into<DropoutOpts>) -> Result<Tensor> {
    channel_dropout(input, opts.into(), "dropout1d", 3)
}
/// `F.dropout2d(input)` (`p=0.5`, training); see [`dropout2d_with`].
pub fn dropout2d(input: &Tensor) -> Result<Tensor> {
    dropout2d_with(input, DropoutOpts::default())
}
/// `F.dropout2d(input, p, training, inplace)`: channel dropout of `(N, C, H, W)` (a 3-d input
/// counts as `(N, C, L)`, as PyTorch does with a warning). Errors as [`dropout_with`].
pub fn dropout2d_with(input: &Tensor, opts: impl Into<DropoutOpts>) -> Result<Tensor> {
    channel_dropout(input, opts.into(), "dropout2d", 4)
}
/// `F.dropout3d(input)` (`p=0.5`, training); see [`dropout3d_with`].
pub fn dropout3d(input: &Tensor) -> Result<Tensor> {
    dropout3d_with(input, DropoutOpts::default())
}
/// `F.dropout3d(input, p, training, inplace)`: channel dropout of `(N, C, D, H, W)` or
/// unbatched `(C, D, H, W)`. Errors as [`dropout_with`].
pub fn dropout3d_with(input: &Tensor, opts: impl Into<DropoutOpts>) -> Result<Tensor> {
    channel_dropout(input, opts.into(), "dropout3d", 5)
}
