//! `softmax` and `log_softmax` over one dim.

use crate::args::Int;
use crate::dim::wrap_dim;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

fn softmax_impl(t: &Tensor, dim: i64, log: bool) -> Result<Tensor> {
    let d = wrap_dim(dim, t.dim())?;
    if !t.dtype.is_floating_point() {
        let last = if d + 1 == t.dim().max(1) {
            "_lastdim"
        } else {
            ""
        };
        let name = format!("{}softmax{last}_kernel_impl", if log { "log_" } else { "" });
        return Err(Error::not_implemented(format!(
            "\"{name}\" not implemented for '{}'",
            t.dtype.scalar_type_name()
        )));
    }
    let sizes = t.size().to_vec();
    let (outer, len, inner) = if sizes.is_empty() {
        (1, 1, 1)
    } else {
        (
            sizes[..d].iter().product::<usize>(),
            sizes[d],
            sizes[d + 1..].iter().product::<usize>(),
        )
    };
    let mut x: Vec<f64> = t.to_vec::<f64>();
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| (o * len + k) * inner + i;
            let mut m = f64::NEG_INFINITY;
            for k in 0..len {
                m = m.max(x[at(k)]);
            }
            if m.is_infinite() {
                m = 0.0;
            }
            let mut sum = 0.0;
            for k in 0..len {
                sum += (x[at(k)] - m).exp();
            }
            for k in 0..len {
                let idx = at(k);
                x[idx] = if log {
                    x[idx] - m - sum.ln()
                } else {
                    (x[idx] - m).exp() / sum
                };
            }
        }
    }
    let out = Tensor::from_vec(x, &sizes)?;
    if t.dtype == DType::Float64 {
        Ok(out)
    } else {
        out.to(t.dtype)
    }
}

impl Tensor {
    /// `torch.softmax(self, dim)`: `exp(x - max) / sum(exp(x - max))` along `dim`.
    ///
    /// Shape: same as `self`, contiguous output. Floats only (integers give
    /// `"softmax_lastdim_kernel_impl" not implemented for 'Long'`); dim errors as `wrap_dim`.
    pub fn softmax(&self, dim: impl Int) -> Result<Tensor> {
        softmax_impl(self, dim.to_i64(), false)
    }

    /// `torch.log_softmax(self, dim)`: `x - max - log(sum(exp(x - max)))` along `dim`.
    /// Shapes and errors as [`Tensor::softmax`].
    pub fn log_softmax(&self, dim: impl Int) -> Result<Tensor> {
        softmax_impl(self, dim.to_i64(), true)
    }
}
