//! Row gathers (`index_select`, `embedding`) over contiguous operands' bytes
//! (`crate::iter::dense`).

use crate::kernels::loops::GRAIN;
use crate::kernels::par;

/// `out[o, j, :] = src[o, idx[j], :]` for a contiguous `src` viewed as `(outer, dim, inner)`
/// and a contiguous `out` viewed as `(outer, idx.len(), inner)`, both of one dtype of `esize`
/// bytes, given as bytes; rows are copied in parallel above the grain size. Every
/// `idx[j] < dim` (checked by the op); a shorter slice is an internal error (it panics).
pub(crate) fn index_select_rows(
    src: &[u8],
    out: &mut [u8],
    idx: &[usize],
    (outer, dim, inner): (usize, usize, usize),
    esize: usize,
) {
    let n = idx.len();
    let bytes = inner * esize;
    if outer * n * bytes == 0 {
        return;
    }
    let out = &mut out[..outer * n * bytes];
    let copy_row = |(r, o): (usize, &mut [u8])| {
        let (oi, j) = (r / n, r % n);
        o.copy_from_slice(&src[(oi * dim + idx[j]) * bytes..][..bytes]);
    };
    if outer * n * inner < 2 * GRAIN || par::threads() <= 1 {
        out.chunks_mut(bytes).enumerate().for_each(copy_row);
    } else {
        let rows = out.len() / bytes.max(1);
        let per = par::rows_per_block(rows, inner.max(1));
        par::for_each_block(out, per * bytes, &|b, ob| {
            ob.chunks_mut(bytes)
                .enumerate()
                .for_each(|(i, r)| copy_row((b * per + i, r)))
        });
    }
}
