//! The scans along one dim that return one tensor: `cumsum`, `cumprod`, `logcumsumexp` (one
//! row each in [`ScanId`]: forward function in [`crate::ops::scan`], derivative in
//! [`crate::autograd::formulas`]), with their `dtype=` and in-place forms. `cummax` and
//! `cummin`, which also return indices, are rows of [`crate::optable::select`].

use crate::args::Int;
use crate::autograd::formulas::{reduce, scan};
use crate::autograd::write_back;
use crate::dim::wrap_dim;
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::scan::{cum, cum_dtype, cum_inplace_check, logcumsumexp_fwd};
use crate::tensor::Tensor;

op_ids! {
    /// A scan of the table (see [`crate::OpId`]): `self.f(dim)`, same shape as `self`.
    pub enum ScanId {
        /// [`Tensor::cumsum`]
        Cumsum = "cumsum" ["cumsum", "cumsum_with", "cumsum_", "cumsum_with_"],
        /// [`Tensor::cumprod`]
        Cumprod = "cumprod" ["cumprod", "cumprod_with", "cumprod_", "cumprod_with_"],
        /// [`Tensor::logcumsumexp`]
        Logcumsumexp = "logcumsumexp" ["logcumsumexp"],
    }
}

impl ScanId {
    /// The row's forward function (`cumsum`/`cumprod` in their default dtype).
    fn forward(self, x: &Tensor, dim: i64) -> Result<Tensor> {
        match self {
            ScanId::Cumsum => cum(x, dim, cum_dtype(x, None), false),
            ScanId::Cumprod => cum(x, dim, cum_dtype(x, None), true),
            ScanId::Logcumsumexp => logcumsumexp_fwd(x, dim),
        }
    }

    /// The row's derivative: records the node of `r = self(x, dim)` (when grad mode is on and
    /// `x` requires grad).
    fn derivative(self, r: Tensor, x: &Tensor, dim: i64) -> Result<Tensor> {
        match self {
            ScanId::Cumsum => reduce::cum(r, x, dim, false),
            ScanId::Cumprod => reduce::cum(r, x, dim, true),
            ScanId::Logcumsumexp => scan::logcumsumexp(r, x, wrap_dim(dim, x.dim())?),
        }
    }

    /// Runs the scan on `x` and records its node.
    pub(crate) fn call(self, x: &Tensor, dim: i64) -> Result<Tensor> {
        let r = self.forward(x, dim)?;
        self.derivative(r, x, dim)
    }
}

/// `cumsum`/`cumprod` of `x` in `dtype` (`x` already in it), recorded as PyTorch records
/// `CumsumBackward0`/`CumprodBackward0` for every form, `dtype=` and in place included.
fn cum_recorded(x: &Tensor, dim: i64, dtype: DType, prod: bool) -> Result<Tensor> {
    let r = cum(x, dim, dtype, prod)?;
    reduce::cum(r, x, dim, prod)
}

/// `cumsum(dtype=)`/`cumprod(dtype=)`: the input cast to `dtype` (recorded as the cast), then
/// the scan, recorded.
fn cum_with(t: &Tensor, dim: i64, dtype: DType, prod: bool) -> Result<Tensor> {
    cum_recorded(&t.to(dtype)?, dim, dtype, prod)
}

/// `cumsum_`/`cumprod_`: computed in `t`'s dtype (no promotion), written back, and recorded.
fn cum_(t: &Tensor, dim: i64, dtype: Option<DType>, prod: bool) -> Result<Tensor> {
    cum_inplace_check(t, dim, dtype, prod)?;
    write_back(t, |t| cum_recorded(t, dim, t.dtype(), prod))
}

impl Tensor {
    /// `torch.cumsum(self, dim)`: running sums along `dim`. Shape: `self`'s, contiguous. dtype:
    /// int64 for integer and bool inputs (integers wrap), floats keep theirs (accumulated in
    /// double, or float for float16/bfloat16). A 0-d input accepts dim 0 or -1.
    ///
    /// Error (IndexError): `Dimension out of range (expected to be in range of [-2, 1], but got 2)`.
    pub fn cumsum(&self, dim: impl Int) -> Result<Tensor> {
        ScanId::Cumsum.call(self, dim.to_i64())
    }
    /// `torch.cumsum(self, dim, dtype=…)`: the input cast to `dtype` first.
    pub fn cumsum_with(&self, dim: impl Int, dtype: DType) -> Result<Tensor> {
        cum_with(self, dim.to_i64(), dtype, false)
    }
    /// `torch.cumprod(self, dim)`: running products; dtypes, shapes and errors as
    /// [`Tensor::cumsum`].
    pub fn cumprod(&self, dim: impl Int) -> Result<Tensor> {
        ScanId::Cumprod.call(self, dim.to_i64())
    }
    /// `torch.cumprod(self, dim, dtype=…)`.
    pub fn cumprod_with(&self, dim: impl Int, dtype: DType) -> Result<Tensor> {
        cum_with(self, dim.to_i64(), dtype, true)
    }
    /// `self.cumsum_(dim)`: in place, in `self`'s dtype. Errors: the dim error;
    /// `"cumsum_out_cpu" not implemented for 'Bool'` (NotImplementedError) for a bool tensor
    /// with dims and elements (a 0-d or empty one is left as it is, as PyTorch's kernel is
    /// not reached).
    pub fn cumsum_(&self, dim: impl Int) -> Result<Tensor> {
        cum_(self, dim.to_i64(), None, false)
    }
    /// `self.cumsum_(dim, dtype=…)`: `dtype` must be `self`'s (`Bad in-place call: input
    /// tensor dtype float32 and output tensor dtype int64 should match`).
    pub fn cumsum_with_(&self, dim: impl Int, dtype: DType) -> Result<Tensor> {
        cum_(self, dim.to_i64(), Some(dtype), false)
    }
    /// `self.cumprod_(dim)`: as [`Tensor::cumsum_`].
    pub fn cumprod_(&self, dim: impl Int) -> Result<Tensor> {
        cum_(self, dim.to_i64(), None, true)
    }
    /// `self.cumprod_(dim, dtype=…)`: as [`Tensor::cumsum_with_`].
    pub fn cumprod_with_(&self, dim: impl Int, dtype: DType) -> Result<Tensor> {
        cum_(self, dim.to_i64(), Some(dtype), true)
    }
    /// `torch.logcumsumexp(self, dim)`: `log(cumsum(exp(self)))` computed stably (PyTorch's
    /// pairwise `log_add_exp`, accumulated in double, float for the half types). Floats only:
    /// `"logcumsumexp_out_cpu" not implemented for 'Long'` (NotImplementedError); dim errors as
    /// [`Tensor::cumsum`].
    pub fn logcumsumexp(&self, dim: impl Int) -> Result<Tensor> {
        ScanId::Logcumsumexp.call(self, dim.to_i64())
    }
}

#[cfg(test)]
mod tests {
    use crate::{DType, Tensor};

    /// PyTorch 2.15: `x = torch.tensor([1., 2., 3.], requires_grad=True)`;
    /// `x.cumsum(0, dtype=torch.float64).sum().backward()` and `(x * 1).cumsum_(0).sum()
    /// .backward()` both give `x.grad = [3., 2., 1.]` (float32), through `CumsumBackward0`;
    /// `cumprod` likewise (`x.cumprod(0, dtype=torch.float64)`: grad `[9., 4., 2.]`).
    #[test]
    fn dtype_and_in_place_forms_record_the_scan() {
        let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], [3]).unwrap();
        x.requires_grad_(true).unwrap();
        let y = x.cumsum_with(0, DType::Float64).unwrap();
        assert_eq!(y.dtype(), DType::Float64);
        assert_eq!(y.grad_fn().unwrap().name(), "CumsumBackward0");
        y.sum().unwrap().backward().unwrap();
        let g = x.grad().unwrap();
        assert_eq!(g.dtype(), DType::Float32);
        assert_eq!(g.to_vec::<f32>(), vec![3.0, 2.0, 1.0]);

        let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], [3]).unwrap();
        x.requires_grad_(true).unwrap();
        let a = x.mul(1.0).unwrap();
        a.cumsum_(0).unwrap();
        assert_eq!(a.grad_fn().unwrap().name(), "CumsumBackward0");
        a.sum().unwrap().backward().unwrap();
        assert_eq!(x.grad().unwrap().to_vec::<f32>(), vec![3.0, 2.0, 1.0]);

        let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], [3]).unwrap();
        x.requires_grad_(true).unwrap();
        let y = x.cumprod_with(0, DType::Float64).unwrap();
        assert_eq!(y.grad_fn().unwrap().name(), "CumprodBackward0");
        y.sum().unwrap().backward().unwrap();
        assert_eq!(x.grad().unwrap().to_vec::<f32>(), vec![9.0, 4.0, 2.0]);
    }
}
