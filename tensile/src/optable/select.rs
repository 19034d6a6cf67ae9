//! The ops that return `(values, indices)` along one dim, the indices int64 and never
//! differentiable: one row each in [`SelectId`], whose derivative sends the gradient of the
//! values back through the indices ([`crate::autograd::formulas`]: `cummaxmin`,
//! `by_indices`, `value_selecting`). The forward functions are in [`crate::ops::scan`].

use crate::args::Int;
use crate::autograd::formulas::scan::cummaxmin;
use crate::dim::wrap_dim;
use crate::error::Result;
use crate::ops::scan::cum_extreme;
use crate::tensor::Tensor;

/// An op of the table that returns values and their indices along a dim (see
/// [`crate::OpId`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SelectId {
    /// [`Tensor::cummax`]
    Cummax,
    /// [`Tensor::cummin`]
    Cummin,
}

impl SelectId {
    /// Every op of the family, in table order.
    pub const ALL: &'static [SelectId] = &[SelectId::Cummax, SelectId::Cummin];

    /// PyTorch's name of the op.
    pub fn name(self) -> &'static str {
        match self {
            SelectId::Cummax => "cummax",
            SelectId::Cummin => "cummin",
        }
    }

    /// The methods of the op (`["cummax"]`).
    pub fn methods(self) -> &'static [&'static str] {
        match self {
            SelectId::Cummax => &["cummax"],
            SelectId::Cummin => &["cummin"],
        }
    }

    /// The row's derivative: records the node of `r = (values, indices) = self(x, dim)` (when
    /// grad mode is on and `x` requires grad; `dim` as given, `keepdim` as the op ran).
    pub(crate) fn record(
        self,
        r: (Tensor, Tensor),
        x: &Tensor,
        dim: i64,
        keepdim: bool,
    ) -> Result<(Tensor, Tensor)> {
        let _ = keepdim;
        match self {
            SelectId::Cummax => cummaxmin("CummaxBackward0", r, x, wrap_dim(dim, x.dim())?),
            SelectId::Cummin => cummaxmin("CumminBackward0", r, x, wrap_dim(dim, x.dim())?),
        }
    }
}

impl Tensor {
    /// `torch.cummax(self, dim)`: `(values, indices)`, the running maximum along `dim` and the
    /// int64 index where it was reached (ties: the later index; a NaN wins and holds until the
    /// next NaN). Shapes: `self`'s, contiguous; values keep `self`'s dtype. Errors as
    /// [`Tensor::cumsum`], except that a 0-d `self` with a dim other than 0/-1 gives
    /// `cummax(): Expected reduction dim -1 or 0 for scalar but got 2` (IndexError).
    pub fn cummax(&self, dim: impl Int) -> Result<(Tensor, Tensor)> {
        let r = cum_extreme(self, dim.to_i64(), true)?;
        SelectId::Cummax.record(r, self, dim.to_i64(), true)
    }
    /// `torch.cummin(self, dim)`: as [`Tensor::cummax`] for the running minimum.
    pub fn cummin(&self, dim: impl Int) -> Result<(Tensor, Tensor)> {
        let r = cum_extreme(self, dim.to_i64(), false)?;
        SelectId::Cummin.record(r, self, dim.to_i64(), true)
    }
}
