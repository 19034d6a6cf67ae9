//! Mask ops and the non-zero family: `masked_fill`, `masked_select`, `masked_scatter` (and
//! in-place forms), `nonzero` (and `as_tuple`), `argwhere`, `count_nonzero`, and the
//! one-argument `torch.where(condition)` (indexing-semantics §5.8–5.9). The mask ops' methods
//! and their recording are in [`crate::optable::masked`]; here are their forward functions.

use crate::args::IntoDims;
use crate::broadcast::infer_size;
use crate::dtype::DType;
use crate::error::{Error, Result, fmt_list};
use crate::ops::Operand;
use crate::ops::copy::copy_unchecked;
use crate::ops::gather_scatter::{item_scalar, scalar_as};
use crate::tensor::{Scalar, Tensor};

/// Storage offsets (elements) of the logical positions of a view, in row-major order.
pub(crate) fn storage_offsets(sizes: &[usize], strides: &[usize], offset: usize) -> Vec<usize> {
    let n: usize = sizes.iter().product();
    let mut out = Vec::with_capacity(n);
    let mut c = vec![0usize; sizes.len()];
    let mut cur = offset;
    for _ in 0..n {
        out.push(cur);
        for d in (0..c.len()).rev() {
            c[d] += 1;
            cur += strides[d];
            if c[d] < sizes[d] {
                break;
            }
            cur -= strides[d] * sizes[d];
            c[d] = 0;
        }
    }
    out
}

/// Row-major coordinates of the `true` entries of `flags` in a tensor of shape `sizes`,
/// column-major: entry `(i, j)` (coordinate `j` of the `i`-th hit) at `j * n + i`.
pub(crate) fn nonzero_coords(flags: &[bool], sizes: &[usize]) -> (usize, Vec<i64>) {
    let hits: Vec<usize> = flags
        .iter()
        .enumerate()
        .filter_map(|(i, &f)| f.then_some(i))
        .collect();
    let n = hits.len();
    let nd = sizes.len();
    let mut out = vec![0i64; n * nd];
    for (i, &h) in hits.iter().enumerate() {
        let mut rem = h;
        for j in (0..nd).rev() {
            out[j * n + i] = (rem % sizes[j]) as i64;
            rem /= sizes[j];
        }
    }
    (n, out)
}

/// The fill value of `masked_fill`: a number, or a 0-d tensor (`masked_fill_ only supports a
/// 0-dimensional value tensor, but got tensor with 1 dimension(s).`).
fn mask_value(value: Operand<'_>) -> Result<Scalar> {
    match value {
        Operand::Scalar(s) => Ok(s),
        Operand::Tensor(t) => {
            if t.dim() != 0 {
                return Err(Error::runtime(format!(
                    "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                    t.dim()
                )));
            }
            item_scalar(t)
        }
    }
}

fn check_fill_mask(mask: &Tensor) -> Result<()> {
    if mask.dtype != DType::Bool {
        return Err(Error::runtime(format!(
            "masked_fill_ only supports boolean masks, but got mask with dtype {}",
            crate::dtype::type_meta_name(mask.dtype)
        )));
    }
    Ok(())
}

/// `torch.where(condition)`: the tuple of `condition.ndim` int64 index columns of its
/// non-zero elements, as [`Tensor::nonzero_as_tuple`] (a 0-d condition gives one column).
/// (`where` is a Rust keyword; `where_cond` is the three-argument form.)
pub fn where_cond_only(condition: &Tensor) -> Result<Vec<Tensor>> {
    condition.nonzero_as_tuple()
}

/// The forward function of `torch.masked_fill(self, mask, value)`: `self` broadcast with
/// `mask` into a contiguous copy, then [`Tensor::masked_fill_`] on it. Errors, in order: the
/// broadcast error, the value's, the mask's.
pub(crate) fn masked_fill_fwd(x: &Tensor, mask: &Tensor, value: Operand<'_>) -> Result<Tensor> {
    let shape = infer_size(&mask.sizes, &x.sizes)?;
    let v = mask_value(value)?;
    check_fill_mask(mask)?;
    let out = x.detach().expand(shape)?.contiguous_copy()?;
    out.masked_fill_(mask, v)?;
    Ok(out)
}

/// The forward function of `torch.masked_select(self, mask)`: the selected elements, 1-d.
pub(crate) fn masked_select_fwd(x: &Tensor, mask: &Tensor) -> Result<Tensor> {
    if mask.dtype != DType::Bool {
        return Err(Error::runtime(
            "masked_select: expected BoolTensor for mask",
        ));
    }
    let shape = infer_size(&mask.sizes, &x.sizes)?;
    // both contiguous in the broadcast shape (copies only where they are not)
    let dense = |t: &Tensor| -> Result<Tensor> {
        let e = t.detach().expand(shape.clone())?;
        if e.is_contiguous() {
            Ok(e)
        } else {
            e.contiguous_copy()
        }
    };
    let (m, v) = (dense(mask)?, dense(x)?);
    crate::dispatch!(x.dtype, T => {
        let sel = crate::iter::dense(&[], &[&v, &m], |s| {
            Ok(crate::kernels::compact::masked_select(
                s.input::<T>(0)?,
                s.input::<bool>(1)?,
            ))
        })?;
        let n = sel.len();
        Tensor::from_vec(sel, [n])
    })
}

/// The forward function of `torch.masked_scatter(self, mask, source)`: `self` broadcast with
/// `mask` into a contiguous copy, then the in-place scatter into it.
pub(crate) fn masked_scatter_fwd(x: &Tensor, mask: &Tensor, source: &Tensor) -> Result<Tensor> {
    let shape = infer_size(&mask.sizes, &x.sizes)?;
    let out = x.detach().expand(shape.clone())?.contiguous_copy()?;
    out.masked_scatter_raw_(&mask.expand(shape)?, source)?;
    Ok(out)
}

impl Tensor {
    /// `self.masked_fill_(mask, value)` unrecorded (no in-place checks, no version bump).
    pub(crate) fn masked_fill_raw_(&self, mask: &Tensor, value: Operand<'_>) -> Result<Tensor> {
        let v = mask_value(value)?;
        check_fill_mask(mask)?;
        let shape = infer_size(&self.sizes, &mask.sizes)?;
        if shape[..] != self.sizes[..] {
            return Err(Error::runtime(format!(
                "output with shape {} doesn't match the broadcast shape {}",
                fmt_list(&self.sizes),
                fmt_list(&shape)
            )));
        }
        let fill = scalar_as(v, self.dtype)?;
        if crate::iter::check_overlap(self, &[]).is_ok() {
            // the pointwise engine, then a copy back (self's elements are distinct)
            let r = crate::where_cond(&mask.expand(self.sizes.to_vec())?, &fill, self)?;
            copy_unchecked(self, &r);
            return Ok(self.alias());
        } else {
            crate::warnings::warn(
                "Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before performing this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar",
            );
        }
        let flags = mask.expand(self.sizes.to_vec())?.try_to_vec::<bool>()?;
        let offs: Vec<usize> = storage_offsets(&self.sizes, &self.strides, self.offset)
            .into_iter()
            .zip(flags)
            .filter_map(|(o, f)| f.then_some(o))
            .collect();
        let (Some(&lo), Some(&hi)) = (offs.iter().min(), offs.iter().max()) else {
            return Ok(self.alias());
        };
        // one view over the storage range written, updated and copied back
        let span = self.as_strided_with([hi - lo + 1], [1], lo)?;
        crate::dispatch!(self.dtype, T => {
            let mut vals = span.try_to_vec::<T>()?;
            let f = fill.try_to_vec::<T>()?[0];
            for o in offs {
                vals[o - lo] = f;
            }
            copy_unchecked(&span, &Tensor::from_vec(vals, [hi - lo + 1])?);
        });
        Ok(self.alias())
    }

    /// `self.masked_scatter_(mask, source)` unrecorded (no in-place checks, no version bump).
    pub(crate) fn masked_scatter_raw_(&self, mask: &Tensor, source: &Tensor) -> Result<Tensor> {
        crate::iter::check_overlap(self, &[])?;
        if self.dtype != source.dtype {
            return Err(Error::runtime(format!(
                "masked_scatter: expected self and source to have same dtypes but got{} and {}",
                self.dtype.scalar_type_name(),
                source.dtype.scalar_type_name()
            )));
        }
        if mask.dtype != DType::Bool {
            if mask.dtype == DType::UInt8 {
                crate::warnings::warn(
                    "masked_scatter_ received a mask with dtype torch.uint8, this behavior is now deprecated,please use a mask with dtype torch.bool instead.",
                );
            }
            return Err(Error::runtime(format!(
                "masked_scatter_ only supports boolean masks, but got mask with dtype {}",
                mask.dtype.scalar_type_name()
            )));
        }
        let flags = mask.expand(self.sizes.to_vec())?.try_to_vec::<bool>()?;
        let ones = flags.iter().filter(|&&f| f).count();
        if source.numel() < ones {
            return Err(Error::runtime(
                "Number of elements of source < number of ones in mask",
            ));
        }
        let new = crate::dispatch!(self.dtype, T => {
            let mut v = self.try_to_vec::<T>()?;
            let s = source.try_to_vec::<T>()?;
            let mut k = 0;
            for (x, &f) in v.iter_mut().zip(&flags) {
                if f {
                    *x = s[k];
                    k += 1;
                }
            }
            Tensor::from_vec(v, self.sizes.to_vec())?
        });
        self.copy_raw_(&new)?;
        Ok(self.alias())
    }

    /// `torch.nonzero(self)`: the coordinates of the non-zero elements (`!= 0`: NaN counts,
    /// `-0.0` does not), in row-major order of `self`'s logical indices.
    ///
    /// Shapes: int64 `(N, self.ndim)` with strides `(1, N)` (column-major, as PyTorch); a 0-d
    /// input gives `(1, 0)` or `(0, 0)`. Errors: none.
    pub fn nonzero(&self) -> Result<Tensor> {
        let (n, coords) = if self.dim() == 0 {
            nonzero_coords(&self.try_to_vec::<bool>()?, &self.sizes)
        } else if self.dtype == DType::Bool && self.is_contiguous() {
            crate::iter::dense(&[], &[self], |s| {
                Ok(crate::kernels::compact::nonzero(
                    s.input::<bool>(0)?,
                    &self.sizes,
                ))
            })?
        } else {
            crate::kernels::compact::nonzero(&self.try_to_vec::<bool>()?, &self.sizes)
        };
        let nd = self.dim();
        let flat = Tensor::from_vec(coords, [n * nd])?;
        flat.as_strided_with([n, nd], [1, n], 0)
    }

    /// `torch.nonzero(self, as_tuple=True)`: the columns of [`Tensor::nonzero`], one 1-d int64
    /// tensor per dim (views of one column-major buffer, like PyTorch's `unbind(1)`); a 0-d
    /// input is read as 1-d, giving one column.
    pub fn nonzero_as_tuple(&self) -> Result<Vec<Tensor>> {
        let t = if self.dim() == 0 {
            self.unsqueeze(0)?
        } else {
            self.alias()
        };
        t.nonzero()?.unbind_with(1)
    }

    /// `torch.argwhere(self)`: the same as [`Tensor::nonzero`] (shape `(N, ndim)`, strides
    /// `(1, N)`).
    pub fn argwhere(&self) -> Result<Tensor> {
        self.nonzero()
    }

    /// `torch.count_nonzero(self)`: the number of non-zero elements, a 0-d int64.
    pub fn count_nonzero(&self) -> Result<Tensor> {
        self.ne(0)?.sum()
    }

    /// `torch.count_nonzero(self, dim)`: the count along `dim` (an int or a list of dims),
    /// which are removed; int64. Errors: `Dimension out of range (…)` (IndexError); `dim 0
    /// appears multiple times in the list of dims`.
    pub fn count_nonzero_dim(&self, dim: impl IntoDims) -> Result<Tensor> {
        self.ne(0)?.sum_dim(dim, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_and_coords() {
        assert_eq!(storage_offsets(&[2, 3], &[1, 2], 5), [5, 7, 9, 6, 8, 10]);
        assert_eq!(storage_offsets(&[2, 2], &[0, 1], 0), [0, 1, 0, 1]);
        let (n, c) = nonzero_coords(&[false, true, true, false, false, true], &[2, 3]);
        assert_eq!((n, c), (3, vec![0, 0, 1, 1, 2, 2]));
    }

    #[test]
    fn nonzero_is_column_major() {
        let x = Tensor::from_vec(vec![0.0f32, 1.0, f32::NAN, -0.0], [2, 2]).unwrap();
        let nz = x.nonzero().unwrap();
        assert_eq!(
            (nz.size(), nz.stride()),
            (&[2usize, 2][..], &[1usize, 2][..])
        );
        assert_eq!(nz.to_vec::<i64>(), [0, 1, 1, 0]);
    }

    #[test]
    fn masked_fill_on_an_expanded_self_writes_the_storage() {
        let base = Tensor::from_vec(vec![1i64, 2, 3], [3]).unwrap();
        let e = base.expand([2, 3]).unwrap();
        let m = Tensor::from_vec(vec![false, false, false, true, false, false], [2, 3]).unwrap();
        e.masked_fill_(&m, 9).unwrap();
        assert_eq!(base.to_vec::<i64>(), [9, 2, 3]);
    }

    #[test]
    fn masked_fill_in_place_broadcasts_into_self() {
        let x = Tensor::zeros([3, 4]).unwrap();
        let big = Tensor::ones_with([2, 3, 4], DType::Bool).unwrap();
        assert_eq!(
            x.masked_fill_(&big, 1.0).unwrap_err().to_string(),
            "output with shape [3, 4] doesn't match the broadcast shape [2, 3, 4]"
        );
        let short = Tensor::ones_with([3], DType::Bool).unwrap();
        assert_eq!(
            x.masked_fill_(&short, 1.0).unwrap_err().to_string(),
            "The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1"
        );
        // out of place, the mask is "tensor a" and a larger mask grows the result
        assert_eq!(x.masked_fill(&big, 1.0).unwrap().size(), &[2, 3, 4]);
    }
}
