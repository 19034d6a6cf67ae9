//! The ops that return `(values, indices)` along one dim, the indices int64 and never
//! differentiable: one row each in [`SelectId`], whose derivative sends the gradient of the
//! values back through the indices ([`crate::autograd::formulas`]: `cummaxmin`,
//! `by_indices`, `value_selecting`). The forward functions are in [`crate::ops::scan`]
//! (`cummax`, `cummin`), [`crate::ops::sort`] (`sort`, `topk`, `kthvalue`, `median(dim)`,
//! `nanmedian(dim)`) and [`crate::ops::reduce`] (`max(dim)`, `min(dim)`, whose methods are
//! with the reductions in [`crate::optable::reduce`]).

use crate::args::Int;
use crate::autograd::formulas::index::by_indices;
use crate::autograd::formulas::reduce::value_selecting;
use crate::autograd::formulas::scan::cummaxmin;
use crate::dim::wrap_dim;
use crate::error::Result;
use crate::ops::scan::cum_extreme;
use crate::ops::sort::{
    KthvalueOpts, SortOpts, TopkOpts, kthvalue_fwd, median_dim_fwd, sort_impl, topk_impl,
};
use crate::tensor::Tensor;

op_ids! {
    /// An op of the table that returns values and their indices along a dim (see
    /// [`crate::OpId`]).
    pub enum SelectId {
        /// [`Tensor::cummax`]
        Cummax = "cummax" ["cummax"],
        /// [`Tensor::cummin`]
        Cummin = "cummin" ["cummin"],
        /// [`Tensor::sort_with`]
        Sort = "sort" ["sort", "sort_with", "argsort", "argsort_with", "msort"],
        /// [`Tensor::sort_with`] given `stable` (PyTorch's `sort.stable` overload)
        SortStable = "sort.stable" ["sort_with", "argsort_with"],
        /// [`Tensor::topk_with`]
        Topk = "topk" ["topk", "topk_with"],
        /// [`Tensor::kthvalue_with`]
        Kthvalue = "kthvalue" ["kthvalue", "kthvalue_with"],
        /// [`Tensor::median_dim`]
        MedianDim = "median" ["median_dim"],
        /// [`Tensor::nanmedian_dim`]
        NanmedianDim = "nanmedian" ["nanmedian_dim"],
        /// [`Tensor::max_dim`]
        MaxDim = "max" ["max_dim"],
        /// [`Tensor::min_dim`]
        MinDim = "min" ["min_dim"],
    }
}

impl SelectId {
    /// The row's derivative: records the node of `r = (values, indices) = self(x, dim)` (when
    /// grad mode is on and `x` requires grad; `dim` as given, `keepdim` as the op ran: true
    /// for the ops that keep `dim`).
    pub(crate) fn record(
        self,
        r: (Tensor, Tensor),
        x: &Tensor,
        dim: i64,
        keepdim: bool,
    ) -> Result<(Tensor, Tensor)> {
        let wrapped = || wrap_dim(dim, x.dim());
        match self {
            SelectId::Cummax => cummaxmin("CummaxBackward0", r, x, wrapped()?),
            SelectId::Cummin => cummaxmin("CumminBackward0", r, x, wrapped()?),
            SelectId::Sort => by_indices("SortBackward0", r, x, dim, keepdim),
            SelectId::SortStable => by_indices("SortBackward1", r, x, dim, keepdim),
            SelectId::Topk => by_indices("TopkBackward0", r, x, dim, keepdim),
            SelectId::Kthvalue => value_selecting("KthvalueBackward0", r, x, wrapped()?, keepdim),
            SelectId::MedianDim => value_selecting("MedianBackward1", r, x, wrapped()?, keepdim),
            SelectId::NanmedianDim => {
                value_selecting("NanmedianBackward1", r, x, wrapped()?, keepdim)
            }
            SelectId::MaxDim => by_indices("MaxBackward0", r, x, dim, keepdim),
            SelectId::MinDim => by_indices("MinBackward0", r, x, dim, keepdim),
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

impl Tensor {
    /// `torch.sort(self)`: `(values, indices)` sorted ascending along the last dim; see
    /// [`Tensor::sort_with`].
    pub fn sort(&self) -> Result<(Tensor, Tensor)> {
        self.sort_with(SortOpts::default())
    }

    /// `torch.sort(self, dim, descending, stable)`: `(values, indices)`, every lane along
    /// `dim` sorted, NaN the largest value (last ascending, first descending). The sort is
    /// always stable (equal values, `-0.0` and `0.0` included, keep their input order in both
    /// directions), which is one of the orders PyTorch allows for `stable=False`. Shapes:
    /// `self`'s; values keep `self`'s dtype, indices are int64; both laid out like `self`
    /// (its strides when non-overlapping and dense, else dense strides in the same dim order).
    /// Every dtype, bool included. A 0-d input accepts dim 0 or -1.
    ///
    /// Error (IndexError): `Dimension out of range (expected to be in range of [-2, 1], but got 2)`.
    pub fn sort_with(&self, opts: impl Into<SortOpts>) -> Result<(Tensor, Tensor)> {
        let o = opts.into();
        let r = sort_impl(self, o.dim, o.descending)?;
        let id = if o.stable.is_some() {
            SelectId::SortStable
        } else {
            SelectId::Sort
        };
        id.record(r, self, o.dim, true)
    }

    /// `torch.argsort(self)`: the int64 indices of [`Tensor::sort`].
    pub fn argsort(&self) -> Result<Tensor> {
        self.argsort_with(SortOpts::default())
    }

    /// `torch.argsort(self, dim, descending, stable)`: the indices of
    /// [`Tensor::sort_with`] (same layout and errors).
    pub fn argsort_with(&self, opts: impl Into<SortOpts>) -> Result<Tensor> {
        Ok(self.sort_with(opts)?.1)
    }

    /// `torch.msort(self)`: the values of `sort(self, dim=0)`. Errors: a 0-d input is sorted
    /// as one element.
    pub fn msort(&self) -> Result<Tensor> {
        Ok(self.sort_with(0)?.0)
    }

    /// `torch.topk(self, k)`: the `k` largest along the last dim; see [`Tensor::topk_with`].
    pub fn topk(&self, k: impl Int) -> Result<(Tensor, Tensor)> {
        self.topk_with(k, TopkOpts::default())
    }

    /// `torch.topk(self, k, dim, largest, sorted)`: `(values, indices)`, the `k` largest
    /// (`largest`) or smallest values of every lane along `dim`, NaN the largest value, in
    /// order (largest first, or smallest first); tied values are taken lowest index first.
    /// The result is always sorted (`sorted=False` leaves the order to the implementation).
    /// Shapes: `self`'s with `dim` of size `k`, contiguous; values keep the dtype, indices are
    /// int64. A 0-d input takes k 0 or 1 and gives itself and index 0.
    ///
    /// Errors: the dim error (IndexError); `selected index k out of range` (RuntimeError) for
    /// `k < 0` or `k >` the dim's size; `topk does not support bool dtypes on CPU`
    /// (NotImplementedError).
    pub fn topk_with(&self, k: impl Int, opts: impl Into<TopkOpts>) -> Result<(Tensor, Tensor)> {
        let o = opts.into();
        let r = topk_impl(self, k.to_i64(), o.dim, o.largest)?;
        SelectId::Topk.record(r, self, o.dim, true)
    }

    /// `torch.kthvalue(self, k)`: the k-th smallest along the last dim; see
    /// [`Tensor::kthvalue_with`].
    pub fn kthvalue(&self, k: impl Int) -> Result<(Tensor, Tensor)> {
        self.kthvalue_with(k, KthvalueOpts::default())
    }

    /// `torch.kthvalue(self, k, dim, keepdim)`: `(values, indices)`, the k-th smallest value
    /// (1-based; NaN the largest) of every lane along `dim` and its int64 index (tied values:
    /// the lowest index). Shapes: `self`'s without `dim` (size 1 with `keepdim`), contiguous.
    ///
    /// Errors, in order: the dim error (IndexError); `kthvalue(): Expected reduction dim 1 to
    /// have non-zero size.` (IndexError); `kthvalue(): selected number k out of range for
    /// dimension 1` (RuntimeError, the wrapped dim); `"kthvalue_cpu" not implemented for
    /// 'Bool'` (NotImplementedError; a 0-d bool input is copied).
    pub fn kthvalue_with(
        &self,
        k: impl Int,
        opts: impl Into<KthvalueOpts>,
    ) -> Result<(Tensor, Tensor)> {
        let KthvalueOpts { dim, keepdim } = opts.into();
        let r = kthvalue_fwd(self, k.to_i64(), dim, keepdim)?;
        SelectId::Kthvalue.record(r, self, dim, keepdim)
    }

    /// `torch.median(self, dim, keepdim)`: `(values, indices)`, the lower median of every lane
    /// along `dim` and its int64 index: the first NaN of a lane holding one; tied values give
    /// the lowest index. Shapes: `self`'s without `dim` (size 1 with `keepdim`), contiguous.
    ///
    /// Errors, in order: the dim error (IndexError); `median(): Expected reduction dim 0 to
    /// have non-zero size.` (IndexError); `"median_out" not implemented for 'Bool'`.
    pub fn median_dim(&self, dim: impl Int, keepdim: bool) -> Result<(Tensor, Tensor)> {
        let r = median_dim_fwd(self, dim.to_i64(), keepdim, false)?;
        SelectId::MedianDim.record(r, self, dim.to_i64(), keepdim)
    }

    /// `torch.nanmedian(self, dim, keepdim)`: as [`Tensor::median_dim`], the lower median of
    /// each lane's non-NaN values (a NaN when a lane has no other); errors name `median()`.
    pub fn nanmedian_dim(&self, dim: impl Int, keepdim: bool) -> Result<(Tensor, Tensor)> {
        let r = median_dim_fwd(self, dim.to_i64(), keepdim, true)?;
        SelectId::NanmedianDim.record(r, self, dim.to_i64(), keepdim)
    }
}
