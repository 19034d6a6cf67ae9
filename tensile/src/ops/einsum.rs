//! Products built on `matmul`: `einsum` (PyTorch's pairwise left-to-right contraction
//! through `bmm`), `tensordot` (through `mm`), `outer` and `kron` (through `mul`).

use std::collections::VecDeque;

use crate::args::{Int, IntList, IntoDims};
use crate::dim::{wrap_dim, wrap_dims};
use crate::error::{Error, Result};
use crate::geometry::einsum::{self as subscripts, ELLIPSIS, Subscripts, TOTAL_LABELS};
use crate::tensor::Tensor;

/// `(left * right).sum(sum_dims, keepdim=True)` for operands of equal rank (size-1 dims
/// broadcast) through one `bmm` (PyTorch's `sumproduct_pair`): dims in both operands and the
/// output are the batch, dims in one operand only are the rows (left) and columns (right),
/// summed dims the inner dim. When every right-only dim (a dim of size 1 in both operands
/// counts as right-only, as in PyTorch) comes before the first left-only one, the operands
/// swap sides, so that the `bmm` result is already in output order (PyTorch 2.15's layouts:
/// `'aij,ajk->aki'` with `a = 1` swaps, `'aij,ajk->aik'` and `'aij,ajk->kia'` do not).
fn sumproduct_pair(left: &Tensor, right: &Tensor, sum_dims: &[usize]) -> Result<Tensor> {
    if left.dim() != right.dim() {
        return Err(Error::runtime("number of dimensions must match"));
    }
    if sum_dims.is_empty() {
        return left.mul(right);
    }
    let dim = left.dim();
    let is_sum = |i: usize| sum_dims.contains(&i);
    let (mut left, mut right) = (left.alias(), right.alias());
    let (mut lro, mut lo, mut ro) = (Vec::new(), Vec::new(), Vec::new());
    let (mut lro_size, mut lo_size, mut ro_size, mut sum_size) = (1usize, 1usize, 1usize, 1usize);
    for i in 0..dim {
        let sl = left.size()[i] != 1;
        let sr = right.size()[i] != 1;
        if is_sum(i) {
            if sl && sr {
                if left.size()[i] != right.size()[i] {
                    return Err(Error::runtime("non-broadcast dimensions must match"));
                }
                sum_size *= left.size()[i];
            } else if sl {
                left = left.sum_dim(i as i64, true)?;
            } else if sr {
                right = right.sum_dim(i as i64, true)?;
            }
        } else if sl && sr {
            if left.size()[i] != right.size()[i] {
                return Err(Error::runtime("non-broadcast dimensions must match"));
            }
            lro.push(i);
            lro_size *= left.size()[i];
        } else if sl {
            lo.push(i);
            lo_size *= left.size()[i];
        } else {
            ro.push(i);
            ro_size *= right.size()[i];
        }
    }
    if !lo.is_empty() && !ro.is_empty() && ro[ro.len() - 1] < lo[0] {
        std::mem::swap(&mut left, &mut right);
        std::mem::swap(&mut lo, &mut ro);
        std::mem::swap(&mut lo_size, &mut ro_size);
    }
    let mut out_size: Vec<usize> = Vec::with_capacity(dim);
    out_size.extend(lro.iter().map(|&d| left.size()[d]));
    out_size.extend(lo.iter().map(|&d| left.size()[d]));
    out_size.extend(sum_dims.iter().map(|_| 1));
    out_size.extend(ro.iter().map(|&d| right.size()[d]));
    let cat = |parts: &[&[usize]]| -> Vec<i64> {
        parts
            .iter()
            .flat_map(|p| p.iter().map(|&d| d as i64))
            .collect()
    };
    let lperm = cat(&[&lro, &lo, sum_dims, &ro]);
    let rperm = cat(&[&lro, sum_dims, &ro, &lo]);
    let mut operm = vec![0i64; dim];
    for (i, &d) in lro.iter().chain(&lo).chain(sum_dims).chain(&ro).enumerate() {
        operm[d] = i as i64;
    }
    let l = left
        .permute(lperm)?
        .reshape([lro_size, lo_size, sum_size])?;
    let r = right
        .permute(rperm)?
        .reshape([lro_size, sum_size, ro_size])?;
    l.bmm(&r)?.view(&out_size[..])?.permute(operm)
}

/// `torch.einsum(equation, *operands)`: Einstein summation. Subscripts are letters (`a-z`,
/// `A-Z`), spaces are ignored, `...` stands for broadcast dims; without `->` the output is
/// the ellipsis dims then the letters seen once, in alphabetical order (capitals first).
/// A letter repeated within an operand takes its diagonal.
///
/// Computed as PyTorch computes it without `opt_einsum`: operands aligned to
/// `output dims + contracted dims`, then contracted left to right in pairs through `bmm`,
/// each dim summed as soon as no later operand has it. A single operand gives a view when
/// nothing is summed (`"ij->ji"`, `"ii->i"`). dtype: the operands' (sums of integer dims
/// alone promote as `sum` does).
///
/// Errors (RuntimeError): `einsum(): must provide at least one operand`; `einsum(): subscript
/// j has size 3 for operand 1 which does not broadcast with previously seen size 4`;
/// `einsum(): subscript i is repeated for operand 0 but the sizes don't match, 1 != 3`;
/// `einsum(): dimension 0 covered by ellipsis in operand 1has size 2 which does not
/// broadcast with previously seen ellipsis with size 4 for the respective dimension`;
/// `einsum(): the number of subscripts in the equation (2) does not match the number of
/// dimensions (3) for operand 0 and no ellipsis was given`; `einsum(): fewer operands were
/// provided than specified in the equation` (and `more`); `einsum(): invalid subscript given
/// at index 2 in the equation string, subscripts must be in [a-zA-Z]`; `einsum(): output
/// subscript k does not appear in the equation for any input operand`; `einsum(): output
/// subscript i appears more than once in the output`; the ellipsis errors.
pub fn einsum<T: AsRef<Tensor>>(equation: &str, operands: &[T]) -> Result<Tensor> {
    let operands: Vec<&Tensor> = operands.iter().map(|t| t.as_ref()).collect();
    let ndims: Vec<usize> = operands.iter().map(|t| t.dim()).collect();
    let Subscripts {
        op_labels,
        label_perm_index,
        ell_num_dim,
        ell_index,
        out_num_dim,
        perm_len: perm_index,
    } = subscripts::parse(equation, &ndims)?;
    let num_ops = operands.len();
    let mut label_size = [1usize; TOTAL_LABELS];
    let mut ell_sizes = vec![1usize; ell_num_dim];
    let mut dim_counts = vec![0u64; perm_index];
    let mut ops: VecDeque<Tensor> = VecDeque::with_capacity(num_ops);
    for (i, operand) in operands.iter().enumerate() {
        let mut op = operand.alias();
        let mut permutation = vec![-1i64; perm_index];
        let mut dim = 0usize;
        for &s in &op_labels[i] {
            if s == ELLIPSIS {
                let ndim = operand.dim() + 1 - op_labels[i].len();
                for j in ell_num_dim - ndim..ell_num_dim {
                    let sz = op.size()[dim];
                    if sz != 1 {
                        if !(ell_sizes[j] == 1 || ell_sizes[j] == sz) {
                            return Err(Error::runtime(format!(
                                "einsum(): dimension {dim} covered by ellipsis in operand {i}has size {sz} which does not broadcast with previously seen ellipsis with size {} for the respective dimension",
                                ell_sizes[j]
                            )));
                        }
                        ell_sizes[j] = sz;
                        dim_counts[ell_index + j] += 1;
                    }
                    permutation[ell_index + j] = dim as i64;
                    dim += 1;
                }
            } else if permutation[label_perm_index[s] as usize] == -1 {
                let sz = op.size()[dim];
                if sz != 1 {
                    if !(label_size[s] == 1 || label_size[s] == sz) {
                        return Err(Error::runtime(format!(
                            "einsum(): subscript {} has size {sz} for operand {i} which does not broadcast with previously seen size {}",
                            subscripts::subscript_to_label(s),
                            label_size[s]
                        )));
                    }
                    label_size[s] = sz;
                    dim_counts[label_perm_index[s] as usize] += 1;
                }
                permutation[label_perm_index[s] as usize] = dim as i64;
                dim += 1;
            } else {
                let prev = permutation[label_perm_index[s] as usize];
                let (a, b) = (op.size()[dim], op.size()[prev as usize]);
                if a != b {
                    return Err(Error::runtime(format!(
                        "einsum(): subscript {} is repeated for operand {i} but the sizes don't match, {a} != {b}",
                        subscripts::subscript_to_label(s)
                    )));
                }
                op = op.diagonal_with((0, prev, dim as i64))?.movedim(-1, prev)?;
            }
        }
        for val in permutation.iter_mut() {
            if *val == -1 {
                op = op.unsqueeze(dim as i64)?;
                *val = dim as i64;
                dim += 1;
            }
        }
        ops.push_back(op.permute(permutation)?);
    }

    while ops.len() > 1 {
        let a = ops.pop_front().expect("two operands");
        let b = ops.pop_front().expect("two operands");
        let mut sum_dims = Vec::new();
        let (mut a_sum, mut b_sum) = (Vec::new(), Vec::new());
        for (d, count) in dim_counts.iter_mut().enumerate().skip(out_num_dim) {
            if a.size()[d] != 1 && b.size()[d] != 1 {
                *count -= 1;
                if *count == 1 {
                    sum_dims.push(d);
                    *count = 0;
                }
            } else if *count == 1 {
                if a.size()[d] != 1 {
                    a_sum.push(d as i64);
                    *count = 0;
                } else if b.size()[d] != 1 {
                    b_sum.push(d as i64);
                    *count = 0;
                }
            }
        }
        let a = if a_sum.is_empty() {
            a
        } else {
            a.sum_dim(a_sum, true)?
        };
        let b = if b_sum.is_empty() {
            b
        } else {
            b.sum_dim(b_sum, true)?
        };
        ops.push_front(sumproduct_pair(&a, &b, &sum_dims)?);
    }
    let result = ops.pop_front().expect("one operand");
    if perm_index > out_num_dim {
        if num_ops > 1 {
            let sizes: Vec<usize> = result.size()[..out_num_dim].to_vec();
            return result.view(&sizes[..]);
        }
        let dims: Vec<i64> = (out_num_dim as i64..perm_index as i64).collect();
        return result.sum_dim(dims, false);
    }
    Ok(result)
}

/// `tensordot`'s `dims`: a count `n` (the last `n` dims of `a` against the first `n` of
/// `b`) or two lists of dims. Made with `.into()` from an [`Int`] or a pair of dim lists
/// (`([1, 0], [0, 1])`).
#[derive(Clone, Debug, PartialEq)]
pub enum TensordotDims {
    /// Contract the last `n` dims of `a` with the first `n` of `b`.
    Count(i64),
    /// Contract `a`'s dims `.0[k]` with `b`'s dims `.1[k]`.
    Lists(IntList, IntList),
}
impl<T: Int> From<T> for TensordotDims {
    fn from(n: T) -> Self {
        TensordotDims::Count(n.to_i64())
    }
}
impl<A: IntoDims, B: IntoDims> From<(A, B)> for TensordotDims {
    fn from((a, b): (A, B)) -> Self {
        TensordotDims::Lists(a.into_shape(), b.into_shape())
    }
}

/// `torch.tensordot(a, b, dims)`: sums the products over the paired dims; the output's dims
/// are `a`'s free dims then `b`'s, in order. Computed as PyTorch does: paired dims where one
/// side has size 1 are summed first, then both operands are permuted and reshaped to one `mm`.
///
/// Errors (RuntimeError): `tensordot expects dims >= 0, but got dims=-1`; `tensordot expects
/// dims < ndim_a or ndim_b, but got dims=3` (an int `dims` above either operand's rank); `both dimension
/// lists should have same length`; `both inputs should have same dtype`; IndexError
/// `Dimension out of range (…)`; `contracted dimensions need to match, but first has size 3
/// in dim 1 and second has size 4 in dim 0`; `dim 0 appears multiple times in the list of
/// dims`; and `mm`'s dtype errors.
pub fn tensordot(a: &Tensor, b: &Tensor, dims: impl Into<TensordotDims>) -> Result<Tensor> {
    let (d1, d2): (Vec<i64>, Vec<i64>) = match dims.into() {
        TensordotDims::Count(n) => {
            if n < 0 {
                return Err(Error::runtime(format!(
                    "tensordot expects dims >= 0, but got dims={n}"
                )));
            }
            if n > a.dim().min(b.dim()) as i64 {
                return Err(Error::runtime(format!(
                    "tensordot expects dims < ndim_a or ndim_b, but got dims={n}"
                )));
            }
            ((-n..0).collect(), (0..n).collect())
        }
        TensordotDims::Lists(x, y) => (x.to_vec(), y.to_vec()),
    };
    if d1.len() != d2.len() {
        return Err(Error::runtime(
            "both dimension lists should have same length",
        ));
    }
    if a.dtype() != b.dtype() {
        return Err(Error::runtime("both inputs should have same dtype"));
    }
    let mut csize = 1usize;
    let (mut t1, mut t2) = (a.alias(), b.alias());
    for (&x, &y) in d1.iter().zip(&d2) {
        let s1 = a.size_of(x)?;
        let s2 = b.size_of(y)?;
        if s2 == 1 {
            t1 = t1.sum_dim(x, true)?.to(a.dtype())?;
        } else if s1 == 1 {
            t2 = t2.sum_dim(y, true)?.to(b.dtype())?;
        } else {
            if s1 != s2 {
                return Err(Error::runtime(format!(
                    "contracted dimensions need to match, but first has size {s1} in dim {x} and second has size {s2} in dim {y}"
                )));
            }
            csize *= s1;
        }
    }
    let c1 = wrap_dims(&d1, a.dim())?;
    let c2 = wrap_dims(&d2, b.dim())?;
    let (mut p1, mut p2) = (Vec::new(), Vec::new());
    let mut rsizes = Vec::new();
    let (mut size1, mut size2) = (1usize, 1usize);
    for i in 0..a.dim() {
        if !c1.contains(&i) {
            p1.push(i as i64);
            size1 *= t1.size()[i];
            rsizes.push(t1.size()[i]);
        }
    }
    p1.extend(&d1);
    p2.extend(&d2);
    for i in 0..b.dim() {
        if !c2.contains(&i) {
            p2.push(i as i64);
            size2 *= t2.size()[i];
            rsizes.push(t2.size()[i]);
        }
    }
    let m1 = t1.permute(p1)?.reshape([size1, csize])?;
    let m2 = t2.permute(p2)?.reshape([csize, size2])?;
    m1.mm(&m2)?.reshape(&rsizes[..])
}

impl Tensor {
    /// `torch.outer(self, vec2)`: the `(n, m)` matrix `self[i] * vec2[j]` of two 1-d tensors
    /// (`self.reshape(n, 1) * vec2`, so dtypes promote as `mul`).
    ///
    /// Errors (RuntimeError): `outer: Expected 1-D argument self, but got 2-D`, `outer:
    /// Expected 1-D argument vec2, but got 2-D`.
    pub fn outer(&self, vec2: &Tensor) -> Result<Tensor> {
        for (t, name) in [(self, "self"), (vec2, "vec2")] {
            if t.dim() != 1 {
                return Err(Error::runtime(format!(
                    "outer: Expected 1-D argument {name}, but got {}-D",
                    t.dim()
                )));
            }
        }
        self.reshape([self.numel(), 1])?.mul(vec2)
    }

    /// `torch.kron(self, other)`: the Kronecker product. Both are viewed with their dims
    /// interleaved (`self` as `(a0, 1, a1, 1, …)`, `other` as `(1, b0, 1, b1, …)`, the
    /// shorter one padded with leading 1s), multiplied (dtypes promote as `mul`) and viewed
    /// as `(a0*b0, a1*b1, …)` (`_unsafe_view`: autograd `UnsafeViewBackward0`).
    ///
    /// Error (RuntimeError): `view size is not compatible with input tensor's size and stride
    /// (at least one dimension spans across two contiguous subspaces). Use .reshape(...)
    /// instead.` for an operand that cannot be viewed that way (as PyTorch).
    pub fn kron(&self, other: &Tensor) -> Result<Tensor> {
        let maxdim = self.dim().max(other.dim());
        let (pa, pb) = (maxdim - self.dim(), maxdim - other.dim());
        let mut ar = vec![1usize; 2 * maxdim];
        let mut br = vec![1usize; 2 * maxdim];
        let mut rr = vec![1usize; maxdim];
        for i in 0..maxdim {
            if i >= pa {
                ar[2 * i] = self.size()[i - pa];
            }
            if i >= pb {
                br[2 * i + 1] = other.size()[i - pb];
            }
            // wrapping: a product that overflows makes the `mul` below fail first (its
            // output's storage size), so the wrapped value is never used
            rr[i] = ar[2 * i].wrapping_mul(br[2 * i + 1]);
        }
        let a = self.view(&ar[..])?;
        let b = other.view(&br[..])?;
        let rr: Vec<i64> = rr.iter().map(|&s| s as i64).collect();
        crate::optable::view::unsafe_view(&a.mul(&b)?, &rr)
    }
}

/// `torch.linalg.cross(input, other, dim)`: the cross product of 3-vectors along `dim`,
/// batch dims broadcast. Output fresh, contiguous, the broadcast shape, `input`'s dtype.
pub(crate) fn cross(input: &Tensor, other: &Tensor, dim: i64) -> Result<Tensor> {
    if input.dim() != other.dim() {
        return Err(Error::runtime(
            "linalg.cross: inputs must have the same number of dimensions.",
        ));
    }
    let (sa, sb) = (input.size_of(dim)?, other.size_of(dim)?);
    if sa != 3 || sb != 3 {
        return Err(Error::runtime(format!(
            "linalg.cross: inputs dimension {dim} must have length 3. Got {sa} and {sb}"
        )));
    }
    let shape = crate::broadcast::infer_size(input.size(), other.size())?;
    if input.dtype() == crate::DType::Bool {
        return Err(Error::not_implemented(
            "\"cross\" not implemented for 'Bool'",
        ));
    }
    if input.dtype() != other.dtype() {
        return Err(Error::runtime(format!(
            "expected scalar type {} but found {}",
            input.dtype().scalar_type_name(),
            other.dtype().scalar_type_name()
        )));
    }
    let d = wrap_dim(dim, input.dim())? as i64;
    let shape: Vec<i64> = shape.iter().map(|&s| s as i64).collect();
    let a = input.expand(&shape)?;
    let b = other.expand(&shape)?;
    let x = |t: &Tensor, i: i64| t.select(d, i);
    let c = |i: i64, j: i64| -> Result<Tensor> {
        x(&a, i)?.mul(&x(&b, j)?)?.sub(&x(&a, j)?.mul(&x(&b, i)?)?)
    };
    crate::stack_with(&[c(1, 2)?, c(2, 0)?, c(0, 1)?], d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: Vec<f32>, s: &[usize]) -> Tensor {
        Tensor::from_vec(v, s).unwrap()
    }

    #[test]
    fn einsum_matmul_and_layout() {
        let a = t((0..6).map(|x| x as f32).collect(), &[2, 3]);
        let b = t((0..12).map(|x| x as f32).collect(), &[3, 4]);
        let r = einsum("ij,jk->ki", &[&a, &b]).unwrap();
        assert_eq!(r.size(), &[4, 2]);
        // the right operand's own dim leads the output: the bmm is taken the other way round
        assert_eq!(r.stride(), &[2, 1]);
        assert_eq!(
            r.to_vec::<f32>(),
            a.matmul(&b).unwrap().t().unwrap().to_vec::<f32>()
        );
        let tr = einsum("ii", &[&t(vec![1., 2., 3., 4.], &[2, 2])]).unwrap();
        assert_eq!(tr.to_vec::<f32>(), vec![5.0]);
        let v = einsum("ij->ji", &[&a]).unwrap();
        assert!(v.shares_storage(&a));
    }

    #[test]
    fn tensordot_counts() {
        let a = t((0..6).map(|x| x as f32).collect(), &[2, 3]);
        let b = t((0..6).map(|x| x as f32).collect(), &[3, 2]);
        let r = tensordot(&a, &b, 1).unwrap();
        assert_eq!(r.to_vec::<f32>(), a.mm(&b).unwrap().to_vec::<f32>());
        let e = tensordot(&a, &b, -1).unwrap_err();
        assert_eq!(
            e.to_string(),
            "tensordot expects dims >= 0, but got dims=-1"
        );
        // checked before the dim lists are made: a huge count is an error, not an allocation
        for n in [3i64, 1 << 40] {
            let e = tensordot(&a, &b, n).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("tensordot expects dims < ndim_a or ndim_b, but got dims={n}")
            );
        }
    }
}
