//! Pure stride algebra: default strides, contiguity predicates, dense-stride inference, and
//! the view-compatibility rule. Functions over slices, apart from storage and kernels, so they
//! can be tested exhaustively. Strides are in elements, never bytes.

use crate::error::{Error, Result, fmt_list};

/// Row-major strides for `sizes` (`contiguous_strides` in the spec; a size-0 dim counts as 1):
/// `(2,0)` → `(1,1)`, `(3,0,2)` → `(2,2,1)`. Saturating (never wraps): sizes from user input
/// are checked by [`storage_nbytes_contiguous`] / [`checked_numel`] before a tensor is made.
pub fn contiguous_strides(sizes: &[usize]) -> Vec<usize> {
    let mut st = vec![0; sizes.len()];
    let mut acc = 1usize;
    for d in (0..sizes.len()).rev() {
        st[d] = acc;
        acc = acc.saturating_mul(sizes[d].max(1));
    }
    st
}

/// Channels-last strides for a 4-d `(N,C,H,W)` or 5-d `(N,C,D,H,W)` shape, using raw sizes
/// (products wrap as PyTorch's int64 ones do; they can only overflow for an empty shape):
/// `(2,0,4,5)` → `(0,1,0,0)`. Other ranks fall back to row-major strides.
pub fn channels_last_strides(sizes: &[usize]) -> Vec<usize> {
    let mut s = vec![0; sizes.len()];
    match sizes.len() {
        4 => {
            s[1] = 1;
            s[3] = sizes[1];
            s[2] = s[3].wrapping_mul(sizes[3]);
            s[0] = s[2].wrapping_mul(sizes[2]);
        }
        5 => {
            s[1] = 1;
            s[4] = sizes[1];
            s[3] = s[4].wrapping_mul(sizes[4]);
            s[2] = s[3].wrapping_mul(sizes[3]);
            s[0] = s[2].wrapping_mul(sizes[2]);
        }
        _ => return contiguous_strides(sizes),
    }
    s
}

/// Number of elements: the product of sizes (1 for 0-d).
///
/// Unchecked: only for the sizes of an existing tensor, whose numel was proven to fit in
/// `i64` when it was made ([`checked_numel`] / [`storage_nbytes_contiguous`] at every
/// constructor, `fit_geometry` at every view). Sizes from user input go through
/// [`checked_numel`].
pub fn numel(sizes: &[usize]) -> usize {
    sizes.iter().fold(1usize, |a, &s| a.wrapping_mul(s))
}

/// PyTorch's `safe_compute_numel`: the product of `sizes`, multiplied left to right as
/// unsigned 64-bit; an overflow at any step (even one followed by a 0) or a product above
/// `i64::MAX` is refused.
///
/// Error (RuntimeError): `numel: integer multiplication overflow`.
pub fn checked_numel(sizes: &[usize]) -> Result<usize> {
    let mut prod: u64 = 1;
    let mut overflow = false;
    for &s in sizes {
        let (p, o) = prod.overflowing_mul(s as u64);
        prod = p;
        overflow |= o;
    }
    if overflow || prod > i64::MAX as u64 {
        return Err(Error::runtime("numel: integer multiplication overflow"));
    }
    Ok(prod as usize)
}

/// PyTorch's `computeStorageNbytesContiguous`: the bytes a contiguous tensor of `sizes` needs
/// (`numel * itemsize`), multiplied left to right as unsigned 64-bit with a sticky overflow
/// flag (so `[2^40, 2^40, 0]` is refused although its numel is 0), at most `i64::MAX`.
///
/// Error (RuntimeError): `Storage size calculation overflowed with sizes=[4611686018427387905, 64]`.
pub fn storage_nbytes_contiguous(sizes: &[usize], itemsize: usize) -> Result<usize> {
    let mut prod: u64 = 1;
    let mut overflow = false;
    for &s in sizes {
        let (p, o) = prod.overflowing_mul(s as u64);
        prod = p;
        overflow |= o;
    }
    let (bytes, o) = prod.overflowing_mul(itemsize as u64);
    if overflow || o || bytes > i64::MAX as u64 {
        return Err(Error::runtime(format!(
            "Storage size calculation overflowed with sizes={}",
            fmt_list(sizes)
        )));
    }
    Ok(bytes as usize)
}

/// [`extent`] with checked arithmetic: `None` when `1 + sum((size - 1) * stride)` overflows.
pub fn checked_extent(sizes: &[usize], strides: &[usize]) -> Option<usize> {
    if sizes.contains(&0) {
        return Some(0);
    }
    sizes
        .iter()
        .zip(strides)
        .try_fold(1usize, |acc, (&s, &st)| {
            (s - 1).checked_mul(st).and_then(|x| acc.checked_add(x))
        })
}

fn contiguous_in_order(
    sizes: &[usize],
    strides: &[usize],
    order: impl Iterator<Item = usize>,
) -> bool {
    // `None` once the product of the sizes walked passes usize::MAX: no stride equals it
    let mut expected = Some(1usize);
    for d in order {
        if sizes[d] == 1 {
            continue;
        }
        if Some(strides[d]) != expected {
            return false;
        }
        expected = expected.and_then(|e| e.checked_mul(sizes[d]));
    }
    true
}

/// The fewest dims that walk the same elements in the same order as `(sizes, strides)`
/// (strides in elements): size-1 dims dropped, and each dim merged into the one before it
/// when `stride[d] == stride[d + 1] * size[d + 1]`. A contiguous tensor gives one dim; a 0-d
/// or one-element tensor gives none (TensorIterator's `coalesce_dimensions` for one operand).
/// Used to copy a tensor out in as few runs as possible.
pub fn coalesced(sizes: &[usize], strides: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let (mut sz, mut st): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
    for (&n, &s) in sizes.iter().zip(strides) {
        if n == 1 {
            continue;
        }
        match (sz.last_mut(), st.last()) {
            (Some(pn), Some(&ps)) if Some(ps) == s.checked_mul(n) => {
                *pn = pn.saturating_mul(n);
                *st.last_mut().expect("same length") = s;
            }
            _ => {
                sz.push(n);
                st.push(s);
            }
        }
    }
    (sz, st)
}

/// `is_contiguous()`: walking dims from last to first and skipping size-1 dims, each stride is
/// the product of the sizes to its right. Any tensor with a 0-size dim is contiguous.
pub fn is_contiguous(sizes: &[usize], strides: &[usize]) -> bool {
    numel(sizes) == 0 || contiguous_in_order(sizes, strides, (0..sizes.len()).rev())
}

/// `is_contiguous(memory_format=channels_last)`: only 4-d tensors; the same walk in the order
/// C, W, H, N, with no numel-0 shortcut.
pub fn is_channels_last_contiguous(sizes: &[usize], strides: &[usize]) -> bool {
    sizes.len() == 4 && contiguous_in_order(sizes, strides, [1, 3, 2, 0].into_iter())
}

/// `channels_last_3d` contiguity: only 5-d tensors, order C, W, H, D, N.
pub fn is_channels_last_3d_contiguous(sizes: &[usize], strides: &[usize]) -> bool {
    sizes.len() == 5 && contiguous_in_order(sizes, strides, [1, 4, 3, 2, 0].into_iter())
}

/// Non-overlapping and dense (NOD): the elements tile a contiguous block of memory in some
/// dim order, with no gaps and no element reached twice.
pub fn is_non_overlapping_and_dense(sizes: &[usize], strides: &[usize]) -> bool {
    if is_contiguous(sizes, strides)
        || is_channels_last_contiguous(sizes, strides)
        || is_channels_last_3d_contiguous(sizes, strides)
    {
        return true;
    }
    let n = sizes.len();
    if n == 1 {
        return sizes[0] < 2 || strides[0] == 1;
    }
    let mut perm: Vec<usize> = (0..n).collect();
    perm.sort_by(|&a, &b| {
        let (sa, sb) = (sizes[a] < 2, sizes[b] < 2);
        sa.cmp(&sb).then(strides[a].cmp(&strides[b]))
    });
    let mut require = 1usize;
    for d in perm {
        if sizes[d] < 2 {
            return true;
        }
        if strides[d] != require {
            return false;
        }
        // wraps as PyTorch's int64 product does (no real tensor is that big)
        require = require.wrapping_mul(sizes[d]);
    }
    true
}

/// Strides for a dense tensor laid out like `(sizes, strides)`: the insertion sort of
/// `infer_dense_strides` (ambiguous stride-0 comparisons don't move a dim).
pub fn infer_dense_strides(sizes: &[usize], strides: &[usize]) -> Vec<usize> {
    let n = sizes.len();
    if n == 0 {
        return vec![];
    }
    if n == 1 {
        return vec![1];
    }
    let cmp = |d0: usize, d1: usize| -> i32 {
        if strides[d0] == 0 || strides[d1] == 0 {
            return 0;
        }
        if strides[d0] < strides[d1] {
            return -1;
        }
        if strides[d0] > strides[d1] {
            return 1;
        }
        if sizes[d0] > sizes[d1] {
            return 1;
        }
        0
    };
    let mut perm: Vec<usize> = (0..n).rev().collect();
    for i in 1..n {
        let mut cur = i;
        for j in 1..=i {
            let prev = i - j;
            let c = cmp(perm[prev], perm[cur]);
            if c > 0 {
                perm.swap(prev, cur);
                cur = prev;
            } else if c < 0 {
                break;
            }
        }
    }
    let mut out = vec![0; n];
    let mut acc = 1usize;
    for &d in &perm {
        out[d] = acc;
        if sizes[d] > 1 {
            acc = acc.wrapping_mul(sizes[d]);
        }
    }
    out
}

/// Strides of `clone()`/`empty_like()` with the default `preserve_format`: identical strides
/// for a NOD input, otherwise [`infer_dense_strides`].
pub fn preserve_format_strides(sizes: &[usize], strides: &[usize]) -> Vec<usize> {
    if is_non_overlapping_and_dense(sizes, strides) {
        strides.to_vec()
    } else {
        infer_dense_strides(sizes, strides)
    }
}

/// Resolves one `-1` in a requested shape against `numel` (`infer_size_impl`), with
/// PyTorch's errors in PyTorch's order:
/// `only one dimension can be inferred`, `invalid shape dimension -2 at index 0 of shape [-2, 3]`,
/// `shape '[5, -1]' is invalid for input of size 24`, and
/// `cannot reshape tensor of 0 elements into shape [-1, 0] because the unspecified dimension size -1 can be any value and is ambiguous`.
pub fn infer_shape(shape: &[i64], numel: usize) -> Result<Vec<usize>> {
    let mut newsize: i64 = 1;
    let mut infer: Option<usize> = None;
    for (k, &s) in shape.iter().enumerate() {
        if s == -1 {
            if infer.is_some() {
                return Err(Error::runtime("only one dimension can be inferred"));
            }
            infer = Some(k);
        } else if s < -1 {
            return Err(Error::runtime(format!(
                "invalid shape dimension {s} at index {k} of shape {}",
                fmt_list(shape)
            )));
        } else {
            newsize = newsize.saturating_mul(s);
        }
    }
    let numel_i = numel as i64;
    let invalid = || {
        Error::runtime(format!(
            "shape '{}' is invalid for input of size {numel}",
            fmt_list(shape)
        ))
    };
    let mut out: Vec<usize> = shape.iter().map(|&s| s.max(0) as usize).collect();
    match infer {
        Some(k) => {
            if !((newsize > 0 && numel_i % newsize == 0) || numel_i == newsize) {
                return Err(invalid());
            }
            if newsize == 0 {
                return Err(Error::runtime(format!(
                    "cannot reshape tensor of 0 elements into shape {} because the unspecified dimension size -1 can be any value and is ambiguous",
                    fmt_list(shape)
                )));
            }
            out[k] = (numel_i / newsize) as usize;
        }
        None => {
            if numel_i != newsize {
                return Err(invalid());
            }
        }
    }
    Ok(out)
}

/// `computeStride`: strides that let `(old_sz, old_st)` be viewed as `new_sz` without a copy,
/// or `None` when some new dim would span two contiguous chunks of the old layout.
pub fn compute_stride(old_sz: &[usize], old_st: &[usize], new_sz: &[usize]) -> Option<Vec<usize>> {
    if old_sz.is_empty() {
        return Some(vec![1; new_sz.len()]);
    }
    let numel = numel(old_sz);
    if numel == 0 && old_sz == new_sz {
        return Some(old_st.to_vec());
    }
    let mut new_st = vec![0usize; new_sz.len()];
    if numel == 0 {
        for v in (0..new_sz.len()).rev() {
            new_st[v] = if v + 1 == new_sz.len() {
                1
            } else {
                new_sz[v + 1].max(1).wrapping_mul(new_st[v + 1])
            };
        }
        return Some(new_st);
    }
    let mut v = new_sz.len() as isize - 1;
    let mut base = old_st[old_sz.len() - 1];
    let mut t_numel = 1usize;
    let mut v_numel = 1usize;
    for t in (0..old_sz.len()).rev() {
        // ≤ numel (checked by the caller) for a non-empty tensor; wraps as int64 otherwise
        t_numel = t_numel.wrapping_mul(old_sz[t]);
        if t == 0 || (old_sz[t - 1] != 1 && old_st[t - 1] != t_numel.wrapping_mul(base)) {
            while v >= 0 && (v_numel < t_numel || new_sz[v as usize] == 1) {
                new_st[v as usize] = v_numel.wrapping_mul(base);
                v_numel = v_numel.wrapping_mul(new_sz[v as usize]);
                v -= 1;
            }
            if v_numel != t_numel {
                return None;
            }
            if t > 0 {
                base = old_st[t - 1];
                t_numel = 1;
                v_numel = 1;
            }
        }
    }
    if v != -1 {
        return None;
    }
    Some(new_st)
}

/// The last storage element a layout reaches, plus one (0 for an empty tensor): the storage
/// must hold `offset + extent` elements.
///
/// Unchecked, for existing tensors (whose extent was checked when they were made): it wraps
/// instead of failing for a layout no tensor can have; see [`checked_extent`].
pub fn extent(sizes: &[usize], strides: &[usize]) -> usize {
    if sizes.contains(&0) {
        return 0;
    }
    sizes
        .iter()
        .zip(strides)
        .map(|(&s, &st)| (s - 1).wrapping_mul(st))
        .fold(1usize, |a, x| a.wrapping_add(x))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn coalesced_merges_what_walks_in_order() {
        assert_eq!(coalesced(&[2, 3, 4], &[12, 4, 1]), (vec![24], vec![1]));
        assert_eq!(coalesced(&[2, 1, 4], &[4, 99, 1]), (vec![8], vec![1]));
        assert_eq!(
            coalesced(&[2, 3, 4], &[24, 4, 1]),
            (vec![2, 12], vec![24, 1])
        );
        assert_eq!(coalesced(&[3, 4], &[1, 3]), (vec![3, 4], vec![1, 3]));
        assert_eq!(coalesced(&[], &[]), (vec![], vec![]));
        assert_eq!(coalesced(&[1, 1], &[5, 7]), (vec![], vec![]));
        assert_eq!(coalesced(&[5, 2], &[0, 0]), (vec![10], vec![0]));
    }

    #[test]
    fn default_strides() {
        assert_eq!(contiguous_strides(&[2, 0]), vec![1, 1]);
        assert_eq!(contiguous_strides(&[0, 3]), vec![3, 1]);
        assert_eq!(contiguous_strides(&[3, 0, 2]), vec![2, 2, 1]);
        assert_eq!(channels_last_strides(&[2, 0, 4, 5]), vec![0, 1, 0, 0]);
        assert_eq!(channels_last_strides(&[0, 3, 0, 5]), vec![0, 1, 15, 3]);
    }

    #[test]
    fn contiguity() {
        assert!(is_contiguous(&[2, 1, 3], &[3, 99, 1]));
        assert!(is_contiguous(&[3, 1], &[1, 1]));
        assert!(!is_contiguous(&[3], &[0]));
        assert!(is_contiguous(&[1], &[0]));
        assert!(is_contiguous(&[], &[]));
        assert!(!is_contiguous(&[4, 3], &[1, 4]));
    }

    #[test]
    fn view_strides() {
        assert_eq!(
            compute_stride(&[3, 2], &[1, 3], &[1, 3, 2, 1]),
            Some(vec![3, 1, 3, 3])
        );
        assert_eq!(compute_stride(&[2, 1], &[3, 1], &[1, 2]), Some(vec![6, 3]));
        assert_eq!(compute_stride(&[1], &[7], &[1, 1]), Some(vec![7, 7]));
        assert_eq!(compute_stride(&[3, 2], &[1, 3], &[6]), None);
        assert_eq!(
            compute_stride(&[4, 3], &[6, 1], &[2, 2, 3]),
            Some(vec![12, 6, 1])
        );
        assert_eq!(
            compute_stride(&[3, 4], &[1, 0], &[3, 2, 2]),
            Some(vec![1, 0, 0])
        );
    }

    #[test]
    fn dense_strides() {
        assert_eq!(infer_dense_strides(&[4, 3], &[6, 2]), vec![3, 1]);
        assert_eq!(infer_dense_strides(&[3, 4], &[1, 0]), vec![4, 1]);
    }

    #[test]
    fn checked_size_arithmetic() {
        // texts from PyTorch 2.15 (`torch.zeros(2**62+1, 64)`, `torch.zeros(1,1).expand(2**40,2**40)`)
        assert_eq!(
            storage_nbytes_contiguous(&[(1 << 62) + 1, 64], 4)
                .unwrap_err()
                .message(),
            "Storage size calculation overflowed with sizes=[4611686018427387905, 64]"
        );
        assert!(storage_nbytes_contiguous(&[1 << 40, 1 << 40, 0], 4).is_err());
        assert_eq!(
            storage_nbytes_contiguous(&[i64::MAX as usize, 0], 4).unwrap(),
            0
        );
        assert!(storage_nbytes_contiguous(&[1 << 61], 4).is_err());
        assert_eq!(storage_nbytes_contiguous(&[1 << 60], 4).unwrap(), 1 << 62);
        assert_eq!(
            checked_numel(&[1 << 40, 1 << 40]).unwrap_err().message(),
            "numel: integer multiplication overflow"
        );
        assert!(checked_numel(&[usize::MAX]).is_err());
        assert_eq!(checked_numel(&[0, usize::MAX]).unwrap(), 0);
        assert_eq!(checked_numel(&[]).unwrap(), 1);
        assert_eq!(checked_extent(&[3, 4], &[4, 1]), Some(12));
        assert_eq!(checked_extent(&[usize::MAX, 2], &[2, 1]), None);
        assert_eq!(checked_extent(&[usize::MAX, 0], &[2, 1]), Some(0));
    }

    #[test]
    fn shape_inference_errors() {
        assert_eq!(
            infer_shape(&[5, -1], 24).unwrap_err().message(),
            "shape '[5, -1]' is invalid for input of size 24"
        );
        assert_eq!(infer_shape(&[-1], 0).unwrap(), vec![0]);
        assert!(
            infer_shape(&[-1, 0], 0)
                .unwrap_err()
                .message()
                .starts_with("cannot reshape")
        );
    }
}
