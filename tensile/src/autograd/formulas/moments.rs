//! Two-output moment reductions (PyTorch's `var_mean_backward`, `std_mean_backward`):
//! `var_mean` (`VarMeanBackward0`) and `std_mean` (`StdMeanBackward0`). The input gradient is
//! the sum of the variance's (or standard deviation's) and the mean's, each present only when
//! that output got a gradient.

use super::super::node::{Formula, Save};
use super::super::record::{node_saving, record_multi};
use super::reduce::{expand_back, wrap_dims};
use crate::error::Result;
use crate::tensor::Tensor;

/// `var_mean` / `std_mean` over `dims` (every dim when `dims` is empty), `keepdim`, with
/// `correction`. Saves the input and output 0 (`var` or `std`).
///
/// * `var`: `g · 2 (x - mean(x)) / (N - correction)`;
/// * `std`: the same with `g / (2 std)` for `g` (0 where `std` is 0), as PyTorch's
///   `std_backward`;
/// * `mean`: `g / N` expanded back.
struct VarMean {
    std: bool,
    sizes: Vec<usize>,
    dims: Vec<usize>,
    keepdim: bool,
    correction: f64,
}

impl Formula for VarMean {
    fn name(&self) -> &str {
        if self.std {
            "StdMeanBackward0"
        } else {
            "VarMeanBackward0"
        }
    }

    fn apply(&self, grads: &[Option<Tensor>], saved: &[Tensor]) -> Result<Vec<Option<Tensor>>> {
        let x = &saved[0];
        // a 0-d input reduces its "dim 0" of one element
        let n: usize = self
            .dims
            .iter()
            .filter_map(|&d| self.sizes.get(d))
            .product();
        let n = n as f64;
        let di: Vec<i64> = self.dims.iter().map(|&d| d as i64).collect();
        let mut acc: Option<Tensor> = None;
        if let Some(g) = &grads[0] {
            let g = if self.std {
                let r = &saved[1];
                let q = g.div(&r.mul(2.0)?)?;
                crate::where_cond(&r.eq(0.0)?, 0.0, &q)?
            } else {
                g.alias()
            };
            let ge = expand_back(&g, &self.sizes, &self.dims, self.keepdim)?;
            let xc = if self.sizes.is_empty() {
                x.sub(x)?
            } else {
                x.sub(&x.mean_dim(di.clone(), true)?)?
            };
            acc = Some(ge.mul(&xc)?.mul(2.0 / (n - self.correction))?);
        }
        if let Some(g) = &grads[1] {
            let gm = expand_back(g, &self.sizes, &self.dims, self.keepdim)?.div(n)?;
            acc = Some(match acc {
                Some(a) => a.add(&gm)?,
                None => gm,
            });
        }
        Ok(vec![acc])
    }
}

/// Records `(v, m) = var_mean(x, dims, correction, keepdim)` (or `std_mean` when `std`).
pub(crate) fn var_mean(
    v: Tensor,
    m: Tensor,
    x: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    correction: f64,
    std: bool,
) -> Result<(Tensor, Tensor)> {
    let sizes = x.size().to_vec();
    let ds = wrap_dims(x, dims.unwrap_or(&[]));
    let mut outs = record_multi(vec![v, m], &[x], || {
        node_saving(
            VarMean {
                std,
                sizes,
                dims: ds,
                keepdim,
                correction,
            },
            vec![Save::Input(x.alias()), Save::Output(0)],
        )
    })?;
    let m = outs.pop().expect("two outputs");
    Ok((outs.pop().expect("two outputs"), m))
}

#[cfg(test)]
mod tests {
    use crate::Tensor;

    /// Both outputs contribute: d/dx (var + mean) over a row is `2 (x - mean)/(N-1) + 1/N`.
    #[test]
    fn var_mean_grad_sums_both_outputs() {
        let x = Tensor::from_vec(vec![1.0f64, 2.0, 4.0], [3])
            .unwrap()
            .requires_grad_(true)
            .unwrap();
        let (v, m) = crate::var_mean(&x).unwrap();
        assert_eq!(v.grad_fn().unwrap().name(), "VarMeanBackward0");
        v.add(&m).unwrap().backward().unwrap();
        let g = x.grad().unwrap().try_to_vec::<f64>().unwrap();
        let mean = 7.0 / 3.0;
        for (gi, xi) in g.iter().zip([1.0, 2.0, 4.0]) {
            assert!((gi - ((xi - mean) + 1.0 / 3.0)).abs() < 1e-12);
        }
    }

    /// Only the mean used: the variance output's missing gradient counts as zero.
    #[test]
    fn std_mean_grad_from_mean_only() {
        let x = Tensor::from_vec(vec![1.0f64, 2.0, 4.0, 5.0], [2, 2])
            .unwrap()
            .requires_grad_(true)
            .unwrap();
        let (s, m) = crate::std_mean_with(
            &x,
            crate::VarOpts {
                dim: Some([1i64].into_iter().collect()),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(s.grad_fn().unwrap().name(), "StdMeanBackward0");
        m.sum().unwrap().backward().unwrap();
        assert_eq!(x.grad().unwrap().try_to_vec::<f64>().unwrap(), vec![0.5; 4]);
    }
}
