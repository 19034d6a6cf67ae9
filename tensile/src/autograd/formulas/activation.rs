//! Activations of `optable::activation` (PyTorch's `derivatives.yaml` entries `elu`, `celu`,
//! `hardswish`, `hardsigmoid`, `hardtanh`, `threshold`, `log_sigmoid`, `glu`,
//! `_prelu_kernel`). The older ones (`softplus`, `leaky_relu`, `elu`, `hardtanh`, `mish`,
//! `gelu(approximate='tanh')`) record through [`super::pointwise::act`] with their
//! derivatives in `pointwise.rs`.
//!
//! Composite activations record nothing here: `softsign` is `x / (|x| + 1)` (`DivBackward0`),
//! `tanhshrink` is `x - tanh(x)` (`SubBackward0`), as PyTorch composes them.

use super::super::node::Save;
use super::super::record::{node_saving, record};
use super::pointwise::{act, lam, map_n};
use crate::error::Result;
use crate::tensor::Tensor;

/// The ELU family's kernel `x <= 0 ? negcoef·expm1(x·input_scale) : poscoef·x`
/// (`elu`, `selu` → `EluBackward0`; `celu` → `CeluBackward0`): PyTorch's
/// `elu_backward(is_result=false)`, `x <= 0 ? input_scale·negcoef·exp(x·input_scale) :
/// poscoef` (NaN takes the `poscoef` branch).
pub(crate) fn elu_family(
    name: &'static str,
    out: Tensor,
    x: &Tensor,
    negcoef: f64,
    poscoef: f64,
    input_scale: f64,
) -> Result<Tensor> {
    act(name, out, x, move |x| {
        if x <= 0.0 {
            input_scale * negcoef * (x * input_scale).exp()
        } else {
            poscoef
        }
    })
}

/// `hardswish` (`HardswishBackward0`): 0 below -3, `x/3 + 1/2` on `[-3, 3]`, 1 above.
pub(crate) fn hardswish(out: Tensor, x: &Tensor) -> Result<Tensor> {
    act("HardswishBackward0", out, x, |x| {
        if x < -3.0 {
            0.0
        } else if x <= 3.0 {
            x / 3.0 + 0.5
        } else {
            1.0
        }
    })
}

/// `hardsigmoid` (`HardsigmoidBackward0`): `1/6` strictly inside `(-3, 3)`, else 0.
pub(crate) fn hardsigmoid(out: Tensor, x: &Tensor) -> Result<Tensor> {
    act("HardsigmoidBackward0", out, x, |x| {
        if x > -3.0 && x < 3.0 { 1.0 / 6.0 } else { 0.0 }
    })
}

/// `hardtanh(min, max)` and `relu6` (= `hardtanh(0, 6)`) (`HardtanhBackward0`), PyTorch's
/// `hardtanh_backward` scalar form: 0 where `x <= min` or `x >= max`, else `g` (NaN passes
/// `g`; PyTorch's vectorized form, run on whole blocks of 2 SIMD vectors, gives 0 there).
pub(crate) fn hardtanh(out: Tensor, x: &Tensor, lo: f64, hi: f64) -> Result<Tensor> {
    act("HardtanhBackward0", out, x, move |x| {
        if x <= lo || x >= hi { 0.0 } else { 1.0 }
    })
}

/// `threshold(th, value)` (`ThresholdBackward0`): 0 where `x <= th`, else `g` (`th` as the
/// forward compared it, rounded to the dtype).
pub(crate) fn threshold(out: Tensor, x: &Tensor, th: f64) -> Result<Tensor> {
    act("ThresholdBackward0", out, x, move |x| {
        if x <= th { 0.0 } else { 1.0 }
    })
}

/// `logsigmoid` (`LogSigmoidBackward0`): `σ(-x) = 1 / (1 + eˣ)`.
pub(crate) fn logsigmoid(out: Tensor, x: &Tensor) -> Result<Tensor> {
    act("LogSigmoidBackward0", out, x, |x| 1.0 / (1.0 + x.exp()))
}

/// `glu(dim)` (`GluBackward0`): with `a, b` the halves of `x` along `dim` and `σ =
/// sigmoid(b)`: `g·σ` for `a`, `g·a·σ·(1-σ)` for `b`, concatenated along `dim`.
pub(crate) fn glu(out: Tensor, x: &Tensor, dim: usize) -> Result<Tensor> {
    record(out, &[x], || {
        node_saving(
            lam("GluBackward0", move |g, s| {
                let h = s[0].size()[dim] / 2;
                let a = s[0].narrow(dim, 0, h)?;
                let b = s[0].narrow(dim, h, h)?;
                let sb = b.sigmoid()?;
                let ga = g.mul(&sb)?;
                let gb = map_n(&[g, &a, &sb], g.dtype(), |v| {
                    v[0] * v[1] * v[2] * (1.0 - v[2])
                })?;
                Ok(vec![Some(crate::cat_with(&[ga, gb], dim as i64)?)])
            }),
            vec![Save::Input(x.alias())],
        )
    })
}

/// `prelu(x, w)` (`PreluKernelBackward0`, PyTorch's `_prelu_kernel`; `w` already reshaped
/// to broadcast against `x`, that reshape recorded as `ViewBackward0`): `x > 0 ? g : w·g`
/// for `x`, `x > 0 ? 0 : x·g` for `w` (summed to `w`'s shape by the engine).
pub(crate) fn prelu(out: Tensor, x: &Tensor, w: &Tensor) -> Result<Tensor> {
    record(out, &[x, w], || {
        node_saving(
            lam("PreluKernelBackward0", |g, s| {
                let gx = map_n(&[g, &s[0], &s[1]], g.dtype(), |v| {
                    if v[1] > 0.0 { v[0] } else { v[2] * v[0] }
                })?;
                let gw = map_n(&[g, &s[0]], g.dtype(), |v| {
                    if v[1] > 0.0 { 0.0 } else { v[1] * v[0] }
                })?;
                Ok(vec![Some(gx), Some(gw)])
            }),
            vec![Save::Input(x.alias()), Save::Input(w.alias())],
        )
    })
}

#[cfg(test)]
mod tests {
    use crate::Tensor;
    use crate::nn::functional as F;

    fn leaf(v: &[f64], shape: &[usize]) -> Tensor {
        let t = Tensor::from_vec(v.to_vec(), shape).unwrap();
        t.requires_grad_(true).unwrap();
        t
    }

    fn grad_of(x: &Tensor, y: &Tensor) -> Vec<f64> {
        y.sum().unwrap().backward().unwrap();
        x.grad().unwrap().to_vec::<f64>()
    }

    #[test]
    fn hardswish_edges_follow_pytorch() {
        // torch: x.grad of hardswish at [-4, -3, 0, 3, 4] = [0, -0.5, 0.5, 1.5, 1]
        let x = leaf(&[-4.0, -3.0, 0.0, 3.0, 4.0], &[5]);
        let y = F::hardswish(&x).unwrap();
        assert_eq!(y.grad_fn().unwrap().name(), "HardswishBackward0");
        assert_eq!(grad_of(&x, &y), [0.0, -0.5, 0.5, 1.5, 1.0]);
    }

    #[test]
    fn hardsigmoid_relu6_threshold_are_open_at_the_bounds() {
        let x = leaf(&[-3.0, 0.0, 3.0, 6.0], &[4]);
        let y = F::hardsigmoid(&x).unwrap();
        assert_eq!(grad_of(&x, &y), [0.0, 1.0 / 6.0, 0.0, 0.0]);
        let x = leaf(&[0.0, 1.0, 6.0], &[3]);
        let y = F::relu6(&x).unwrap();
        assert_eq!(y.grad_fn().unwrap().name(), "HardtanhBackward0");
        assert_eq!(grad_of(&x, &y), [0.0, 1.0, 0.0]);
        // x <= threshold gets no gradient
        let x = leaf(&[0.5, 1.0, 2.0], &[3]);
        let y = F::threshold(&x, 1.0, 7.0).unwrap();
        assert_eq!(y.grad_fn().unwrap().name(), "ThresholdBackward0");
        assert_eq!(grad_of(&x, &y), [0.0, 0.0, 1.0]);
    }

    #[test]
    fn selu_and_celu_names_and_slopes() {
        let x = leaf(&[-1.0, 2.0], &[2]);
        let y = F::selu(&x).unwrap();
        assert_eq!(y.grad_fn().unwrap().name(), "EluBackward0");
        let g = grad_of(&x, &y);
        // torch: [0.6467686, 1.0507010]
        assert!((g[0] - 0.646_768_603_034_814).abs() < 1e-12);
        assert!((g[1] - 1.050_700_987_355_480_5).abs() < 1e-15);
        let x = leaf(&[-1.0, 2.0], &[2]);
        let y = F::celu_with(&x, 2.0).unwrap();
        assert_eq!(y.grad_fn().unwrap().name(), "CeluBackward0");
        let g = grad_of(&x, &y);
        assert!((g[0] - (-0.5f64).exp()).abs() < 1e-15 && g[1] == 1.0);
    }

    #[test]
    fn glu_and_prelu_gradients() {
        // glu([a, b]) = a·σ(b)
        let x = leaf(&[1.0, 2.0, 0.0, -1.0], &[1, 4]);
        let y = F::glu(&x).unwrap();
        assert_eq!(y.grad_fn().unwrap().name(), "GluBackward0");
        let g = grad_of(&x, &y);
        let s = |v: f64| 1.0 / (1.0 + (-v).exp());
        let want = [
            s(0.0),
            s(-1.0),
            s(0.0) * (1.0 - s(0.0)),
            2.0 * s(-1.0) * (1.0 - s(-1.0)),
        ];
        for (a, b) in g.iter().zip(want) {
            assert!((a - b).abs() < 1e-15);
        }
        // prelu: the weight (one per channel) is reshaped (ViewBackward0) and gets Σ x·g
        // over the non-positive inputs of its channel
        let x = leaf(&[-1.0, 2.0, -3.0, 4.0], &[2, 2]);
        let w = leaf(&[0.25, 0.5], &[2]);
        let y = F::prelu(&x, &w).unwrap();
        let f = y.grad_fn().unwrap();
        assert_eq!(f.name(), "PreluKernelBackward0");
        assert_eq!(
            f.next_functions()[1].as_ref().unwrap().0.name(),
            "ViewBackward0"
        );
        assert_eq!(grad_of(&x, &y), [0.25, 1.0, 0.25, 1.0]);
        assert_eq!(w.grad().unwrap().to_vec::<f64>(), [-4.0, 0.0]);
    }
}
