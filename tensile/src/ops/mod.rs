//! Tensor operations, one file per family. Each op's semantics (shapes, dtypes, errors) live
//! in its family's file; the work is done by the pointwise engine ([`crate::iter`]) and the
//! kernels.

pub(crate) mod activation;
pub(crate) mod advindex;
pub(crate) mod attention;
pub(crate) mod binary;
pub(crate) mod cat;
pub(crate) mod cholesky;
pub(crate) mod conv;
pub(crate) mod copy;
pub(crate) mod creation;
pub(crate) mod distance;
pub(crate) mod einsum;
pub(crate) mod gather_scatter;
pub(crate) mod index_ops;
pub(crate) mod linalg;
pub(crate) mod loss;
pub(crate) mod map;
pub(crate) mod masked;
pub(crate) mod math_binary;
pub(crate) mod math_scalar;
pub(crate) mod math_ternary;
pub(crate) mod matmul;
pub(crate) mod nn;
pub(crate) mod norm;
pub(crate) mod operators;
pub(crate) mod optim;
pub(crate) mod pool;
pub(crate) mod random;
pub(crate) mod random_dist;
pub(crate) mod reduce;
pub(crate) mod resample;
pub(crate) mod rnn;
pub(crate) mod scan;
pub(crate) mod shape;
pub(crate) mod softmax;
pub(crate) mod sort;
pub(crate) mod ternary;
pub(crate) mod unary;
pub(crate) mod unary_math;

use crate::tensor::{Scalar, Tensor};

/// The second operand of a binary op: a tensor, or a plain number (PyTorch's "Python scalar",
/// which has the lowest priority in type promotion).
///
/// Made with `.into()` from `&Tensor`, from any Rust integer or float type (`usize` and
/// `half::f16`/`bf16` included), `bool`, or a [`Scalar`].
#[derive(Clone, Copy, Debug)]
pub enum Operand<'a> {
    /// A tensor operand.
    Tensor(&'a Tensor),
    /// A number operand.
    Scalar(Scalar),
}

impl<'a> From<&'a Tensor> for Operand<'a> {
    fn from(t: &'a Tensor) -> Operand<'a> {
        Operand::Tensor(t)
    }
}

/// Every Rust number is a Python-scalar operand ([`Number`](crate::args::Number)).
impl<T: crate::args::Number> From<T> for Operand<'_> {
    fn from(x: T) -> Self {
        Operand::Scalar(x.to_scalar())
    }
}

impl Operand<'_> {
    /// The operand as a tensor: a scalar becomes a 0-d wrapped number.
    pub(crate) fn to_tensor(self) -> Tensor {
        match self {
            Operand::Tensor(t) => t.alias(),
            Operand::Scalar(s) => Tensor::wrapped_scalar(s),
        }
    }

    /// The operand as a tensor, borrowed when it is one (no reference-count traffic).
    pub(crate) fn as_tensor(&self) -> std::borrow::Cow<'_, Tensor> {
        match self {
            Operand::Tensor(t) => std::borrow::Cow::Borrowed(*t),
            Operand::Scalar(s) => std::borrow::Cow::Owned(Tensor::wrapped_scalar(*s)),
        }
    }
}
