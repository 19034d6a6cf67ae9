//! `torch.linalg` functions that are products over one dim (`vecdot`), built on the
//! pointwise engine and the reductions.

use crate::args::Int;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// `torch.linalg.vecdot(x, y, dim=-1)`: the dot product of `x` and `y` along `dim`, after
/// broadcasting them together (Python array API `vecdot`; real dtypes, so no conjugation).
///
/// Shapes: `x` and `y` broadcast to `S`; the result is `S` without dim `dim` (wrapped against
/// `S`). Dtypes: floats only, both the same dtype; the result has it (float16/bfloat16 sums
/// accumulate in float32 as `sum` does).
///
/// Errors, in PyTorch's order:
/// * `x` not floating (NotImplementedError): `linalg.vecdot: Expected a floating point or
///   complex tensor as input. Got Long`;
/// * dtypes differ (RuntimeError): `linalg.vecdot: Expected x and y to have the same dtype, but
///   found x of type Float and y of type Double instead`;
/// * the shapes do not broadcast: `The size of tensor a (2) must match the size of tensor b (3)
///   at non-singleton dimension 0`;
/// * `dim` out of range for `S` (IndexError): `Dimension out of range (expected to be in range
///   of [-2, 1], but got 2)`.
pub fn vecdot(x: &Tensor, y: &Tensor, dim: impl Int) -> Result<Tensor> {
    if !x.dtype().is_floating_point() {
        return Err(Error::not_implemented(format!(
            "linalg.vecdot: Expected a floating point or complex tensor as input. Got {}",
            x.dtype().scalar_type_name()
        )));
    }
    if x.dtype() != y.dtype() {
        return Err(Error::runtime(format!(
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type {} and y of type {} instead",
            x.dtype().scalar_type_name(),
            y.dtype().scalar_type_name()
        )));
    }
    x.mul(y)?.sum_dim([dim.to_i64()], false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DType;

    #[test]
    fn vecdot_broadcasts_and_checks_as_pytorch() {
        let x = Tensor::ones([2, 3]).unwrap();
        let y = Tensor::from_slice(&[1.0f32, 2.0, 3.0], [3]).unwrap();
        assert_eq!(vecdot(&x, &y, -1).unwrap().to_vec::<f32>(), vec![6.0, 6.0]);
        assert_eq!(vecdot(&x, &y, 0).unwrap().size(), &[3]);
        assert_eq!(
            vecdot(&x, &y, 2).unwrap_err().message(),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
        );
        let l = x.to(DType::Int64).unwrap();
        assert_eq!(
            vecdot(&l, &y, -1).unwrap_err().message(),
            "linalg.vecdot: Expected a floating point or complex tensor as input. Got Long"
        );
        assert_eq!(
            vecdot(&y, &l, -1).unwrap_err().message(),
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type Float and y of type Long instead"
        );
    }
}
