//! Advanced-indexing geometry (PyTorch's `make_info` and `AdvancedIndex`): the index
//! tensors' broadcast shape, whether the indexed dims are adjacent, where their broadcast
//! dims go in the result, the result's shape and the source's restrided strides, the bounds
//! rule of one index value, and the row-major offsets the index kernels
//! (`crate::kernels::advindex`) walk. Sizes and strides are in elements.

use crate::error::{Error, Result, fmt_list, try_vec};

/// The common shape of the index tensors of `shapes` (`expand_outplace`'s `infer_size` fold,
/// shapes aligned at the right).
///
/// Error (IndexError): `shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]`.
pub fn broadcast_index_shapes(shapes: &[&[usize]]) -> Result<Vec<usize>> {
    let n = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1usize; n];
    for s in shapes {
        for (i, &x) in s.iter().enumerate() {
            let o = &mut out[n - s.len() + i];
            if *o == 1 {
                *o = x;
            } else if x != 1 && x != *o {
                let all: Vec<String> = shapes.iter().map(|s| fmt_list(s)).collect();
                return Err(Error::index(format!(
                    "shape mismatch: indexing tensors could not be broadcast together with shapes {}",
                    all.join(", ")
                )));
            }
        }
    }
    Ok(out)
}

/// `hasContiguousSubspace`: whether the indexed dims (`true` entries) form one run.
pub fn has_contiguous_subspace(defined: &[bool]) -> bool {
    let first = defined.iter().position(|&d| d);
    let last = defined.iter().rposition(|&d| d);
    match (first, last) {
        (Some(a), Some(b)) => defined[a..=b].iter().all(|&d| d),
        _ => true,
    }
}

/// `transposeToFront`'s permutation: the indexed dims first, then the others, each group in
/// its original order.
pub fn front_permutation(defined: &[bool]) -> Vec<usize> {
    let idx = (0..defined.len()).filter(|&d| defined[d]);
    idx.chain((0..defined.len()).filter(|&d| !defined[d]))
        .collect()
}

/// `(before, k)` of adjacent indexed dims: the unindexed dims before them, and their count.
pub fn placement(defined: &[bool]) -> (usize, usize) {
    let before = defined.iter().take_while(|&&d| !d).count();
    (before, defined.iter().filter(|&&d| d).count())
}

/// The result shape: `src[..before] ++ b ++ src[before + k..]` (the `k` indexed dims replaced
/// by the broadcast index shape `b`).
pub fn result_shape(src: &[usize], before: usize, k: usize, b: &[usize]) -> Vec<usize> {
    let mut r = src[..before].to_vec();
    r.extend_from_slice(b);
    r.extend_from_slice(&src[before + k..]);
    r
}

/// The source's strides restrided to the result shape ([`result_shape`]): its own strides
/// outside the indexed dims, 0 along the `b_len` broadcast dims.
pub fn restrided(src_strides: &[usize], before: usize, k: usize, b_len: usize) -> Vec<usize> {
    let mut st = src_strides[..before].to_vec();
    st.extend(std::iter::repeat_n(0, b_len));
    st.extend_from_slice(&src_strides[before + k..]);
    st
}

/// `AdvancedIndex`'s check that an indexed dim of size 0 is indexed by an empty index
/// (`src` the sizes with the indexed dims adjacent at `before..before + k`).
///
/// Error (IndexError): `index is out of bounds for dimension with size 0`.
pub fn check_indexed_empty(src: &[usize], before: usize, k: usize, b: &[usize]) -> Result<()> {
    if src[before..before + k].contains(&0) && !b.contains(&0) {
        return Err(Error::index(
            "index is out of bounds for dimension with size 0",
        ));
    }
    Ok(())
}

/// One index value `x` into a dim of `size`, counted from the end when negative, as a
/// position; `dim` is the dim PyTorch names (the index's ordinal, or the item's position).
///
/// Error (IndexError): `index 7 is out of bounds for dimension 1 with size 4`.
pub fn wrap_index(x: i64, size: usize, dim: usize) -> Result<usize> {
    // in i128: `-size` of any size fits
    let (x, size) = (x as i128, size as i128);
    if x < -size || x >= size {
        return Err(Error::index(format!(
            "index {x} is out of bounds for dimension {dim} with size {size}"
        )));
    }
    Ok(if x < 0 { x + size } else { x } as usize)
}

/// Element offsets of every position of `sizes` in row-major order, for the given strides,
/// from `base`.
///
/// Errors: the allocator's, when the positions can't be counted or held (callers return
/// before this for an empty result, whose outer dims may still be huge).
pub fn row_major_offsets(sizes: &[usize], strides: &[usize], base: usize) -> Result<Vec<usize>> {
    let n = crate::layout::checked_numel(sizes)?;
    let mut out = try_vec(n)?;
    if n == 0 {
        return Ok(out);
    }
    let nd = sizes.len();
    let mut pos = vec![0usize; nd];
    let mut off = base;
    for _ in 0..n {
        out.push(off);
        for d in (0..nd).rev() {
            pos[d] += 1;
            off += strides[d];
            if pos[d] < sizes[d] {
                break;
            }
            off -= strides[d] * sizes[d];
            pos[d] = 0;
        }
    }
    Ok(out)
}

/// The number of trailing dims of `sizes` that both stride lists lay out row-major packed
/// (innermost stride 1), so that those dims span one contiguous block in each.
pub fn packed_tail(sizes: &[usize], a: &[usize], b: &[usize]) -> usize {
    let (na, nb) = (a.len(), b.len());
    let mut expect = 1usize;
    let mut n = 0;
    for (i, &sz) in sizes.iter().enumerate().rev() {
        let j = sizes.len() - 1 - i;
        if sz != 1 && (a[na - 1 - j] != expect || b[nb - 1 - j] != expect) {
            break;
        }
        expect *= sz;
        n += 1;
    }
    n
}

/// `is_expandable_to(shape, desired)`: whether `shape` broadcasts to `desired`.
pub fn expandable(shape: &[usize], desired: &[usize]) -> bool {
    if shape.len() > desired.len() {
        return false;
    }
    let off = desired.len() - shape.len();
    shape
        .iter()
        .enumerate()
        .all(|(i, &s)| s == desired[off + i] || s == 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn geometry() {
        assert_eq!(
            broadcast_index_shapes(&[&[2, 1], &[3], &[]]).unwrap(),
            vec![2, 3]
        );
        assert_eq!(
            broadcast_index_shapes(&[&[2], &[3]]).unwrap_err().message(),
            "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]"
        );
        assert!(has_contiguous_subspace(&[false, true, true, false]));
        assert!(!has_contiguous_subspace(&[true, false, true]));
        assert_eq!(front_permutation(&[false, true, false, true]), [1, 3, 0, 2]);
        assert_eq!(placement(&[false, true, true, false]), (1, 2));
        assert_eq!(result_shape(&[2, 3, 4, 5], 1, 2, &[7, 8]), [2, 7, 8, 5]);
        assert_eq!(
            row_major_offsets(&[2, 2], &[1, 3], 1).unwrap(),
            [1, 4, 2, 5]
        );
        assert_eq!(restrided(&[60, 20, 5, 1], 1, 2, 1), [60, 0, 1]);
        assert_eq!(packed_tail(&[2, 3, 4], &[12, 4, 1], &[24, 4, 1]), 2);
        assert_eq!(
            wrap_index(7, 4, 1).unwrap_err().message(),
            "index 7 is out of bounds for dimension 1 with size 4"
        );
        assert_eq!(wrap_index(-4, 4, 1).unwrap(), 0);
        assert_eq!(
            check_indexed_empty(&[2, 0], 1, 1, &[3])
                .unwrap_err()
                .message(),
            "index is out of bounds for dimension with size 0"
        );
    }

    /// PyTorch's placement rule (`torch.zeros(2, 3, 4, 5)[:, idx, :, idx2]` with `idx` of
    /// shape (6,) and `idx2` of shape (6,) is `(6, 2, 4)`; `[:, idx, idx2]` is `(2, 6, 5)`).
    #[test]
    fn placement_matches_pytorch() {
        let src = [2usize, 3, 4, 5];
        // separated: the broadcast dims first, then the other dims in order
        let defined = [false, true, false, true];
        assert!(!has_contiguous_subspace(&defined));
        let perm = front_permutation(&defined);
        let moved: Vec<usize> = perm.iter().map(|&d| src[d]).collect();
        let d2: Vec<bool> = perm.iter().map(|&d| defined[d]).collect();
        let (before, k) = placement(&d2);
        assert_eq!(result_shape(&moved, before, k, &[6]), [6, 2, 4]);
        // adjacent: in place
        let defined = [false, true, true, false];
        let (before, k) = placement(&defined);
        assert_eq!(result_shape(&src, before, k, &[6]), [2, 6, 5]);
    }

    proptest! {
        /// The offsets enumerate exactly the addresses `base + Σ i_d·stride_d` in row-major
        /// order, and a packed tail spans contiguous blocks in both layouts.
        #[test]
        fn offsets_enumerate_the_layout(
            dims in proptest::collection::vec((0usize..4, 0usize..9), 0..4), base in 0usize..5,
        ) {
            let (sizes, strides): (Vec<usize>, Vec<usize>) = dims.into_iter().unzip();
            let got = row_major_offsets(&sizes, &strides, base).unwrap();
            let n: usize = sizes.iter().product();
            prop_assert_eq!(got.len(), n);
            for (q, &off) in got.iter().enumerate() {
                let mut rem = q;
                let mut want = base;
                for d in (0..sizes.len()).rev() {
                    want += (rem % sizes[d]) * strides[d];
                    rem /= sizes[d];
                }
                prop_assert_eq!(off, want);
            }
            let dense = crate::layout::contiguous_strides(&sizes);
            let t = packed_tail(&sizes, &dense, &strides);
            prop_assert!(t <= sizes.len());
            let nd = sizes.len();
            let mut expect = 1;
            for d in (nd - t..nd).rev() {
                prop_assert!(sizes[d] == 1 || strides[d] == expect);
                expect *= sizes[d];
            }
        }

        /// The result has `src.len() − k + b.len()` dims, and the permutation to the front is
        /// a permutation that makes the indexed dims adjacent.
        #[test]
        fn placement_is_consistent(defined in proptest::collection::vec(any::<bool>(), 0..7), b in proptest::collection::vec(0usize..4, 0..3)) {
            let perm = front_permutation(&defined);
            let mut sorted = perm.clone();
            sorted.sort_unstable();
            prop_assert_eq!(sorted, (0..defined.len()).collect::<Vec<_>>());
            let moved: Vec<bool> = perm.iter().map(|&d| defined[d]).collect();
            prop_assert!(has_contiguous_subspace(&moved));
            let d = if has_contiguous_subspace(&defined) { defined.clone() } else { moved };
            let (before, k) = placement(&d);
            let src: Vec<usize> = (0..d.len()).map(|i| i + 2).collect();
            prop_assert_eq!(result_shape(&src, before, k, &b).len(), src.len() - k + b.len());
            prop_assert_eq!(restrided(&src, before, k, b.len()).len(), src.len() - k + b.len());
        }
    }
}
