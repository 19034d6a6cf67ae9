//! Stream compaction over a boolean mask (`masked_select`, `nonzero`, `argwhere`): the mask
//! is cut into blocks of whole rows, the `true` entries of every block are counted in
//! parallel, a prefix sum gives every block its place in the output, and the blocks are
//! written in parallel, each in row-major order. The result is the serial one at every thread
//! count.

use crate::kernels::Ptr;
use crate::kernels::loops::GRAIN;
use crate::kernels::par;

/// The number of `true` entries of `flags` (bytes 0/1).
fn count(flags: &[bool]) -> usize {
    // a byte sum per 255-element chunk: no overflow, and the loop vectorises
    flags
        .chunks(255)
        .map(|c| c.iter().fold(0u8, |a, &f| a + f as u8) as usize)
        .sum()
}

/// Runs `f(b)` for every `b` in `0..nb`, split over the threads when there are several
/// blocks and threads.
fn each_block(nb: usize, f: &(dyn Fn(usize) + Sync)) {
    let t = par::threads().min(nb);
    if t > 1 {
        par::for_each_task(t, &|p| (nb * p / t..nb * (p + 1) / t).for_each(f));
    } else {
        (0..nb).for_each(f);
    }
}

/// The blocks of `flags` read as rows of `w` elements: whole rows, about `GRAIN` elements
/// each (the last shorter). Returns the block length and the number of `true` entries of each
/// block, counted in parallel.
fn blocks(flags: &[bool], w: usize) -> (usize, Vec<usize>) {
    let span = (GRAIN / w.max(1)).max(1) * w.max(1);
    let nb = flags.len().div_ceil(span).max(1);
    let mut counts = vec![0usize; nb];
    let cp = Ptr(counts.as_mut_ptr());
    each_block(nb, &|b| {
        let c = count(&flags[(b * span).min(flags.len())..((b + 1) * span).min(flags.len())]);
        // SAFETY: `b < nb`, `counts` has `nb` entries and each block writes its own.
        unsafe { *cp.get().add(b) = c };
    });
    (span, counts)
}

/// Runs `write(start, end, first output position)` over the blocks of [`blocks`] that hold
/// a `true` entry (`start..end` the block's elements), in parallel.
fn write_blocks(
    len: usize,
    (span, counts): (usize, &[usize]),
    write: &(dyn Fn(usize, usize, usize) + Sync),
) {
    let mut starts = Vec::with_capacity(counts.len());
    let mut total = 0;
    for &c in counts {
        starts.push(total);
        total += c;
    }
    each_block(counts.len(), &|b| {
        if counts[b] != 0 {
            write(b * span, ((b + 1) * span).min(len), starts[b]);
        }
    });
}

/// `masked_select` over contiguous operands of one shape: the elements of `x` where `mask`
/// is `true`, in row-major order, as a new vector. Different lengths panic (an internal
/// error of the op).
pub(crate) fn masked_select<T: Copy + Send + Sync>(x: &[T], mask: &[bool]) -> Vec<T> {
    assert_eq!(x.len(), mask.len(), "masked_select: lengths");
    let (span, counts) = blocks(mask, 1);
    let total: usize = counts.iter().sum();
    let mut out: Vec<T> = Vec::with_capacity(total);
    let op = Ptr(out.as_mut_ptr());
    write_blocks(mask.len(), (span, &counts), &|a, b, k0| {
        let (xs, ms) = (&x[a..b], &mask[a..b]);
        // the stores stop at the block's last `true`: before it, a `false` entry's store lands
        // on a slot a later `true` overwrites, all inside this block's part of the output
        let Some(last) = ms.iter().rposition(|&f| f) else {
            return;
        };
        let mut k = k0;
        for (&v, &f) in xs[..=last].iter().zip(&ms[..=last]) {
            // SAFETY: `k` stays below `k0` + this block's count (see above), which is at most
            // `total`, the capacity; blocks write disjoint ranges.
            unsafe { op.get().add(k).write(v) };
            k += f as usize;
        }
    });
    // SAFETY: every position below `total` was written by exactly one block (the counts are
    // the blocks' numbers of `true` entries).
    unsafe { out.set_len(total) };
    out
}

/// `nonzero` of a contiguous mask of shape `sizes` (rank ≥ 1; a shape that does not match
/// `flags` panics): the row-major coordinates of its `true` entries, column-major
/// (coordinate `d` of hit `i` at `d * n + i`, `n` the number of hits), and `n`.
pub(crate) fn nonzero(flags: &[bool], sizes: &[usize]) -> (usize, Vec<i64>) {
    let nd = sizes.len();
    assert!(
        nd >= 1 && sizes.iter().product::<usize>() == flags.len(),
        "nonzero: shape"
    );
    let w = sizes[nd - 1];
    if flags.is_empty() {
        return (0, Vec::new());
    }
    let (span, counts) = blocks(flags, w);
    let n: usize = counts.iter().sum();
    let mut out = vec![0i64; n * nd];
    let op = Ptr(out.as_mut_ptr());
    write_blocks(flags.len(), (span, &counts), &|a, b, k0| {
        let mut k = k0;
        let mut coord = vec![0i64; nd];
        for (r, row) in flags[a..b].chunks(w).enumerate() {
            if !row.iter().any(|&f| f) {
                continue;
            }
            // the coordinates of the row's outer dims
            let mut rem = a / w + r;
            for d in (0..nd - 1).rev() {
                coord[d] = (rem % sizes[d]) as i64;
                rem /= sizes[d];
            }
            for (c, &f) in row.iter().enumerate() {
                if f {
                    for (d, &v) in coord[..nd - 1].iter().enumerate() {
                        // SAFETY: `k < n` (this block's hits are `k0..k0 + count`) and
                        // `d < nd`: inside `out`; blocks write disjoint hits.
                        unsafe { *op.get().add(d * n + k) = v };
                    }
                    // SAFETY: as above.
                    unsafe { *op.get().add((nd - 1) * n + k) = c as i64 };
                    k += 1;
                }
            }
        }
    });
    (n, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compaction_keeps_row_major_order() {
        let n = 7 * GRAIN + 21;
        let x: Vec<u32> = (0..n as u32).collect();
        let m: Vec<bool> = (0..n).map(|i| (i * 7919) % 13 < 5).collect();
        let want: Vec<u32> = x.iter().zip(&m).filter(|p| *p.1).map(|p| *p.0).collect();
        assert_eq!(masked_select(&x, &m), want);
        let (k, c) = nonzero(&m, &[n / 7, 7]);
        assert_eq!(k, want.len());
        for (i, &h) in want.iter().enumerate() {
            assert_eq!((c[i], c[k + i]), (h as i64 / 7, h as i64 % 7));
        }
        let m: Vec<bool> = (0..15).map(|i| i % 4 == 1).collect();
        let (k, c) = nonzero(&m, &[3, 5]);
        assert_eq!(k, 4);
        // hits 1, 5, 9, 13 of a 3 x 5 mask: (0, 1), (1, 0), (1, 4), (2, 3)
        assert_eq!(c, [0, 1, 1, 2, 1, 0, 4, 3]);
    }
}
