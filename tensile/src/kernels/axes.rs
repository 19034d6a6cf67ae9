//! The copy engine of the shape ops that rearrange elements along axes (`repeat`, `tile`,
//! `repeat_interleave`, the `reflect`/`replicate`/`circular` pads, `roll`, nearest
//! interpolation, …): every output element at multi-index `o` is the source element at
//! `(map_0[o_0], …, map_{n-1}[o_{n-1}])`.
//!
//! The maps are turned into moves once per call, not per element: the innermost dims are
//! folded into one table of source offsets (up to [`FOLD`] entries), the table is cut into
//! runs of consecutive source elements, and each output row is either those runs as
//! `memcpy`s (when runs are long enough to pay) or a gather through the table. The outer dims
//! are walked by an odometer; blocks of rows run in parallel above the grain size. Operands
//! are slices (`crate::iter::dense`); elements move as unsigned words of their size.

use crate::kernels::loops::GRAIN;
use crate::kernels::par;
use crate::kernels::rows::{Word, as_words};

/// The inner dims are folded into one offset table while it stays this short.
const FOLD: usize = 4096;
/// ... and while the innermost table is shorter than this (a longer row needs no folding).
const LONG_ROW: usize = 256;

/// `out[o] = src[Σ_d maps[d][o_d] · strides[d]]` for a contiguous `out` of sizes
/// `maps[d].len()` and a `src` addressed by element `strides` (the tensor's own, from its
/// first element), both of one dtype of `esize` bytes, given as bytes. Every `maps[d][i] <
/// size(d)` of the source (checked by the op; an offset past `src` is an internal error and
/// panics). A 0-d source (`maps` empty) copies its one element.
pub(crate) fn gather_axes(
    src: &[u8],
    strides: &[usize],
    maps: &[&[usize]],
    out: &mut [u8],
    esize: usize,
) {
    let done = match esize {
        1 => {
            gather_typed::<u8>(src, strides, maps, out);
            Some(())
        }
        2 => as_words::<u16>(src, out).map(|(s, o)| gather_typed(s, strides, maps, o)),
        4 => as_words::<u32>(src, out).map(|(s, o)| gather_typed(s, strides, maps, o)),
        8 => as_words::<u64>(src, out).map(|(s, o)| gather_typed(s, strides, maps, o)),
        _ => None,
    };
    if done.is_none() {
        // unaligned or odd-sized elements: the same walk over bytes, each element `esize`
        // bytes wide (a byte map per element)
        let bmaps: Vec<Vec<usize>> = maps.iter().map(|m| m.to_vec()).collect();
        let mut strides_b: Vec<usize> = strides.iter().map(|s| s * esize).collect();
        let mut bm: Vec<&[usize]> = bmaps.iter().map(|m| &m[..]).collect();
        let bytes: Vec<usize> = (0..esize).collect();
        bm.push(&bytes);
        strides_b.push(1);
        gather_typed::<u8>(src, &strides_b, &bm, out);
    }
}

/// [`gather_axes`] over elements of the word `T`.
fn gather_typed<T: Word + Send + Sync>(
    src: &[T],
    strides: &[usize],
    maps: &[&[usize]],
    out: &mut [T],
) {
    let nd = maps.len();
    if nd == 0 {
        if let (Some(o), Some(s)) = (out.first_mut(), src.first()) {
            *o = *s;
        }
        return;
    }
    if out.is_empty() {
        return;
    }
    // fold the innermost dims into one table of source offsets
    let mut table: Vec<usize> = maps[nd - 1].iter().map(|&m| m * strides[nd - 1]).collect();
    let mut k = nd - 1; // dims before k are the outer ones
    while k > 0 && table.len() < LONG_ROW && maps[k - 1].len() * table.len() <= FOLD {
        let st = strides[k - 1];
        table = maps[k - 1]
            .iter()
            .flat_map(|&m| table.iter().map(move |&o| m * st + o))
            .collect();
        k -= 1;
    }
    let n = table.len();
    // runs of consecutive source elements: (output position, source offset, length)
    let mut runs: Vec<(usize, usize, usize)> = Vec::new();
    for (j, &off) in table.iter().enumerate() {
        match runs.last_mut() {
            Some((_, s, len)) if *s + *len == off => *len += 1,
            _ => runs.push((j, off, 1)),
        }
    }
    let by_runs = runs.len() * 8 <= n;
    let outer = &maps[..k];
    let ostr = &strides[..k];
    let rows = out.len() / n;
    // rows from `r0` into `dst` (whole rows), the outer index walked by an odometer
    let block = |r0: usize, dst: &mut [T]| {
        let mut pos = vec![0usize; k];
        let mut rem = r0;
        for d in (0..k).rev() {
            pos[d] = rem % outer[d].len();
            rem /= outer[d].len();
        }
        let mut base: usize = (0..k).map(|d| outer[d][pos[d]] * ostr[d]).sum();
        for row in dst.chunks_exact_mut(n) {
            if by_runs {
                for &(j, off, len) in &runs {
                    row[j..j + len].copy_from_slice(&src[base + off..base + off + len]);
                }
            } else {
                let s = &src[base..];
                for (o, &off) in row.iter_mut().zip(&table) {
                    *o = s[off];
                }
            }
            // next outer index
            for d in (0..k).rev() {
                base -= outer[d][pos[d]] * ostr[d];
                pos[d] += 1;
                if pos[d] < outer[d].len() {
                    base += outer[d][pos[d]] * ostr[d];
                    break;
                }
                pos[d] = 0;
                base += outer[d][0] * ostr[d];
            }
        }
    };
    in_row_blocks(&mut out[..rows * n], n, &block);
}

/// Runs `block(first_row, rows)` over `out` cut into blocks of whole rows of `n` elements:
/// one block below twice the grain size or on one thread, else up to four per thread, in
/// parallel.
fn in_row_blocks<T: Send>(out: &mut [T], n: usize, block: &(dyn Fn(usize, &mut [T]) + Sync)) {
    let rows = out.len() / n.max(1);
    if rows > 1 && out.len() >= 2 * GRAIN && par::threads() > 1 {
        let tasks = (out.len() / GRAIN).min(par::threads() * 4).min(rows);
        let per = rows.div_ceil(tasks);
        par::for_each_block(out, per * n, &|t, dst| block(t * per, dst));
    } else {
        block(0, out);
    }
}

/// `tril`/`triu`: `out` (contiguous, of `sizes`, the last two dims the matrices' rows and
/// columns) is `src` (addressed by element `strides` from its first element) with the
/// elements off the kept triangle zeroed (all bits 0: `0`, `+0.0`, `false`): row `i` keeps
/// columns `j` with `j - i <= k` (`lower`) or `j - i >= k`. Each row is one copy and one
/// zero fill; blocks of rows run in parallel above the grain size. Both operands are of one
/// dtype of `esize` bytes, given as bytes; at least two dims.
pub(crate) fn triangle(
    src: &[u8],
    strides: &[usize],
    sizes: &[usize],
    out: &mut [u8],
    esize: usize,
    (k, lower): (i64, bool),
) {
    let done =
        match esize {
            1 => {
                triangle_typed::<u8>(src, strides, sizes, out, (k, lower));
                Some(())
            }
            2 => as_words::<u16>(src, out)
                .map(|(s, o)| triangle_typed(s, strides, sizes, o, (k, lower))),
            4 => as_words::<u32>(src, out)
                .map(|(s, o)| triangle_typed(s, strides, sizes, o, (k, lower))),
            8 => as_words::<u64>(src, out)
                .map(|(s, o)| triangle_typed(s, strides, sizes, o, (k, lower))),
            _ => None,
        };
    assert!(
        done.is_some(),
        "internal error: triangle of unaligned {esize}-byte elements"
    );
}

/// [`triangle`] over elements of the word `T` (its zero is all bits 0).
fn triangle_typed<T: Word + Default + Send + Sync>(
    src: &[T],
    strides: &[usize],
    sizes: &[usize],
    out: &mut [T],
    (k, lower): (i64, bool),
) {
    let nd = sizes.len();
    let c = sizes[nd - 1];
    if out.is_empty() || c == 0 {
        return;
    }
    let cs = strides[nd - 1];
    let block = |r0: usize, dst: &mut [T]| {
        // the row dims: all but the last, walked by an odometer
        let mut pos = vec![0usize; nd - 1];
        let mut rem = r0;
        for d in (0..nd - 1).rev() {
            pos[d] = rem % sizes[d];
            rem /= sizes[d];
        }
        let mut base: usize = (0..nd - 1).map(|d| pos[d] * strides[d]).sum();
        for row in dst.chunks_exact_mut(c) {
            let i = pos[nd - 2] as i64;
            let clampc = |v: i64| v.clamp(0, c as i64) as usize;
            let (a, b) = if lower {
                (0, clampc(i.saturating_add(k).saturating_add(1)))
            } else {
                (clampc(i.saturating_add(k)), c)
            };
            row[..a].fill(T::default());
            row[b..].fill(T::default());
            if cs == 1 {
                row[a..b].copy_from_slice(&src[base + a..base + b]);
            } else {
                for (j, o) in (a..b).zip(&mut row[a..b]) {
                    *o = src[base + j * cs];
                }
            }
            for d in (0..nd - 1).rev() {
                pos[d] += 1;
                base += strides[d];
                if pos[d] < sizes[d] {
                    break;
                }
                base -= sizes[d] * strides[d];
                pos[d] = 0;
            }
        }
    };
    in_row_blocks(out, c, &block);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference: one offset per output element.
    fn naive(src: &[u32], strides: &[usize], maps: &[&[usize]]) -> Vec<u32> {
        let n: usize = maps.iter().map(|m| m.len()).product();
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let mut rem = i;
            let mut off = 0;
            for d in (0..maps.len()).rev() {
                off += maps[d][rem % maps[d].len()] * strides[d];
                rem /= maps[d].len();
            }
            out.push(src[off]);
        }
        out
    }

    #[test]
    fn moves_match_the_element_rule() {
        let src: Vec<u32> = (0..4000).collect();
        let bytes: Vec<u8> = src.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let cases: Vec<(Vec<usize>, Vec<Vec<usize>>)> = vec![
            // repeat (runs), reflect pad (runs and singles), repeat_interleave (gather)
            (
                vec![40, 1],
                vec![
                    (0..40).chain(0..40).collect(),
                    (0..20).chain(0..20).collect(),
                ],
            ),
            (
                vec![50, 1],
                vec![vec![2, 1, 0, 1, 2, 3, 4, 3], (0..40).rev().collect()],
            ),
            (
                vec![1, 60],
                vec![(0..60).flat_map(|i| [i, i]).collect(), vec![0, 1, 2]],
            ),
            (
                vec![3, 600, 1],
                vec![vec![1, 0], (0..6).collect(), vec![2, 1, 0, 1, 2]],
            ),
            (vec![7], vec![vec![5, 5, 5, 0]]),
        ];
        for (strides, maps) in cases {
            let m: Vec<&[usize]> = maps.iter().map(|v| &v[..]).collect();
            let want = naive(&src, &strides, &m);
            let mut out = vec![0u8; want.len() * 4];
            gather_axes(&bytes, &strides, &m, &mut out, 4);
            let got: Vec<u32> = out
                .chunks_exact(4)
                .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            assert_eq!(got, want, "strides {strides:?}");
            // the byte walk of odd element sizes gives the same bytes
            let mut out3 = vec![0u8; want.len() * 4];
            gather_typed::<u8>(
                &bytes,
                &strides.iter().map(|s| s * 4).chain([1]).collect::<Vec<_>>(),
                &m.iter()
                    .copied()
                    .chain([&[0usize, 1, 2, 3][..]])
                    .collect::<Vec<_>>(),
                &mut out3,
            );
            assert_eq!(out3, out);
        }
    }
}
