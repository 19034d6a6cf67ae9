//! Fused scaled-dot-product attention over strided operands (float32 and float64), given as
//! slices with offsets and strides in elements.
//!
//! For every batch element and every block of query rows: `scores = Q_blk · Kᵀ` through the
//! `gemm` crate, then per row scale, mask (boolean or additive), causal cut and a softmax
//! whose fully masked rows give 0, then `out_blk = P · V` through `gemm` again. A causal
//! block only multiplies against the keys its last row can see, so the upper triangle is never
//! computed, and the `(L, S)` score matrix is never materialised beyond one block of rows.
//! Blocks run in parallel over the intra-op pool's threads when the work is large.

use crate::kernels::Ptr;
use crate::kernels::mm::{MmElem, mm};
use crate::kernels::vmath::exp_f32;

/// Query rows per block (one `ROWS×S` score buffer per task).
const ROWS: usize = 64;

/// Below this many multiply-adds the whole op runs on the calling thread.
const PAR_FLOPS: usize = 1 << 18;

/// The attention mask as the caller gives it: the slice of a boolean mask (`false` masks the
/// position out) or of an additive one.
#[derive(Clone, Copy)]
pub(crate) enum Mask<'a, T> {
    None,
    Bool(&'a [bool]),
    Add(&'a [T]),
}

/// The attention mask as the kernel reads it.
#[derive(Clone, Copy)]
enum MaskPtr<T> {
    None,
    /// `False` masks the position out.
    Bool(Ptr<bool>),
    /// Added to the scaled scores.
    Add(Ptr<T>),
}

/// Geometry of one call, strides and offsets in elements. `*_off[b]` is batch element `b`'s
/// first element in each operand; rows of `q`, `k`, `v`, `mask` and `out` are addressed by
/// the row/column strides (any may be 0 for a broadcast mask); `out`'s columns are
/// contiguous.
pub(crate) struct AttnGeom {
    pub l: usize,
    pub s: usize,
    pub e: usize,
    pub ev: usize,
    pub q_off: Vec<usize>,
    pub k_off: Vec<usize>,
    pub v_off: Vec<usize>,
    pub m_off: Vec<usize>,
    pub o_off: Vec<usize>,
    pub q_rs: usize,
    pub q_cs: usize,
    pub k_rs: usize,
    pub k_cs: usize,
    pub v_rs: usize,
    pub v_cs: usize,
    pub m_rs: usize,
    pub m_cs: usize,
    pub o_rs: usize,
    pub causal: bool,
}

/// The float types the kernel runs in.
pub(crate) trait AttnFloat: MmElem + PartialOrd {
    const NEG_INF: Self;
    fn from_f64(x: f64) -> Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    fn is_nan(self) -> bool;
    /// `exp` of every element of `xs`, in place (all elements are `<= 0` or NaN).
    fn exp_inplace(xs: &mut [Self]);
}

macro_rules! attn_float {
    ($t:ty) => {
        const NEG_INF: $t = <$t>::NEG_INFINITY;
        fn from_f64(x: f64) -> $t {
            x as $t
        }
        fn add(self, o: $t) -> $t {
            self + o
        }
        fn sub(self, o: $t) -> $t {
            self - o
        }
        fn mul(self, o: $t) -> $t {
            self * o
        }
        fn div(self, o: $t) -> $t {
            self / o
        }
        fn is_nan(self) -> bool {
            <$t>::is_nan(self)
        }
    };
}

impl AttnFloat for f32 {
    attn_float!(f32);
    fn exp_inplace(xs: &mut [f32]) {
        for x in xs.iter_mut() {
            *x = exp_f32(*x);
        }
    }
}

impl AttnFloat for f64 {
    attn_float!(f64);
    fn exp_inplace(xs: &mut [f64]) {
        for x in xs.iter_mut() {
            *x = x.exp();
        }
    }
}

/// Scale, mask and causal cut then softmax of one row of scores, in place: `row[..len]` are
/// the raw products of query row `i`; entries at `len..` are set to 0. A row whose every
/// score is `-inf` becomes all zeros (PyTorch's `_safe_softmax`); NaN propagates.
///
/// # Safety
/// `mask` (when not `None`) holds `len` elements at `mrow`, `mrow + m_cs`, ….
#[inline]
unsafe fn softmax_row<T: AttnFloat>(
    row: &mut [T],
    len: usize,
    scale: T,
    mask: MaskPtr<T>,
    mrow: usize,
    m_cs: usize,
) {
    let (live, dead) = row.split_at_mut(len);
    dead.fill(T::ZERO);
    match mask {
        MaskPtr::None => {
            for x in live.iter_mut() {
                *x = x.mul(scale);
            }
        }
        MaskPtr::Add(p) => {
            // SAFETY: the caller guarantees `len` mask elements at stride `m_cs`.
            let mp = unsafe { p.get().add(mrow) };
            if m_cs == 1 {
                // SAFETY: as above, contiguous.
                let m = unsafe { std::slice::from_raw_parts(mp, len) };
                for (x, &a) in live.iter_mut().zip(m) {
                    *x = x.mul(scale).add(a);
                }
            } else {
                for (j, x) in live.iter_mut().enumerate() {
                    // SAFETY: as above.
                    *x = x.mul(scale).add(unsafe { *mp.add(j * m_cs) });
                }
            }
        }
        MaskPtr::Bool(p) => {
            // SAFETY: as above.
            let mp = unsafe { p.get().add(mrow) };
            for (j, x) in live.iter_mut().enumerate() {
                // SAFETY: as above.
                let keep = unsafe { *mp.add(j * m_cs) };
                *x = if keep { x.mul(scale) } else { T::NEG_INF };
            }
        }
    }
    let mut max = T::NEG_INF;
    let mut nan = false;
    for &x in live.iter() {
        nan |= x.is_nan();
        if x > max {
            max = x;
        }
    }
    if !nan && max == T::NEG_INF {
        live.fill(T::ZERO);
        return;
    }
    for x in live.iter_mut() {
        *x = x.sub(max);
    }
    T::exp_inplace(live);
    let mut sum = T::ZERO;
    for &x in live.iter() {
        sum = sum.add(x);
    }
    let inv = T::ONE.div(sum);
    for x in live.iter_mut() {
        *x = x.mul(inv);
    }
}

/// The last element a `rows × cols` matrix at `off` with strides `(rs, cs)` reaches, plus
/// one (`off` for an empty matrix, which reaches nothing); `None` on overflow.
fn reach(off: usize, rows: usize, rs: usize, cols: usize, cs: usize) -> Option<usize> {
    if rows == 0 || cols == 0 {
        return Some(0);
    }
    off.checked_add((rows - 1).checked_mul(rs)?)?
        .checked_add((cols - 1).checked_mul(cs)?)?
        .checked_add(1)
}

/// Whether every batch element's matrices lie inside the slices, and the output rows that
/// the kernel writes (`L` rows of `Ev` contiguous elements per batch element) are pairwise
/// disjoint, so the tasks that write them in parallel never write the same element.
fn geometry_fits<T>(
    g: &AttnGeom,
    (q, k, v, out): (usize, usize, usize, usize),
    mask: &Mask<'_, T>,
) -> bool {
    let nb = g.q_off.len();
    let m_len = match mask {
        Mask::None => None,
        Mask::Bool(m) => Some(m.len()),
        Mask::Add(m) => Some(m.len()),
    };
    let fits = |offs: &[usize], len: usize, rows: usize, rs: usize, cols: usize, cs: usize| {
        offs.len() == nb
            && offs
                .iter()
                .all(|&o| reach(o, rows, rs, cols, cs).is_some_and(|r| r <= len))
    };
    if !(fits(&g.q_off, q, g.l, g.q_rs, g.e, g.q_cs)
        && fits(&g.k_off, k, g.s, g.k_rs, g.e, g.k_cs)
        && fits(&g.v_off, v, g.s, g.v_rs, g.ev, g.v_cs)
        && fits(&g.o_off, out, g.l, g.o_rs, g.ev, 1)
        && m_len.is_none_or(|m| fits(&g.m_off, m, g.l, g.m_rs, g.s, g.m_cs)))
    {
        return false;
    }
    if g.ev == 0 || g.l * nb <= 1 {
        return true;
    }
    let mut starts: Vec<usize> = g
        .o_off
        .iter()
        .flat_map(|&o| (0..g.l).map(move |i| o + i * g.o_rs))
        .collect();
    starts.sort_unstable();
    starts.windows(2).all(|w| w[1] - w[0] >= g.ev)
}

/// Runs attention for every batch element of `g` (`g.q_off.len()` of them): `q`, `k`, `v`
/// (and the mask) hold, at the offsets and strides of `g`, `L×E`, `S×E`, `S×Ev` (and `L×S`)
/// matrices for every batch element, and `out` the `L×Ev` output rows of stride `o_rs`, no
/// two of them sharing an element. A geometry outside the slices, or output rows that
/// overlap, is an internal error: it panics.
pub(crate) fn attention<T: AttnFloat>(
    g: &AttnGeom,
    q: &[T],
    k: &[T],
    v: &[T],
    mask: Mask<'_, T>,
    out: &mut [T],
    scale: f64,
) {
    assert!(
        geometry_fits(g, (q.len(), k.len(), v.len(), out.len()), &mask),
        "internal error: an attention geometry outside its operands"
    );
    let mp = match mask {
        Mask::None => MaskPtr::None,
        Mask::Bool(m) => MaskPtr::Bool(Ptr(m.as_ptr() as *mut bool)),
        Mask::Add(m) => MaskPtr::Add(Ptr(m.as_ptr() as *mut T)),
    };
    let ptr = |s: &[T]| Ptr(s.as_ptr() as *mut T);
    // SAFETY: the geometry fits the slices and the output rows are disjoint (checked above);
    // the inputs are only read, and `out` is this call's alone (`&mut`).
    unsafe { attention_raw(g, ptr(q), ptr(k), ptr(v), mp, Ptr(out.as_mut_ptr()), scale) }
}

/// [`attention`] over pointers.
///
/// # Safety
/// `q`, `k`, `v` (and the mask) address, at the offsets and strides of `g`, `L×E`, `S×E`,
/// `S×Ev` (and `L×S`) matrices for every batch element; `out` addresses `L×Ev` rows of
/// stride `o_rs`, no two of which share an element, that nothing else touches during the
/// call.
unsafe fn attention_raw<T: AttnFloat>(
    g: &AttnGeom,
    q: Ptr<T>,
    k: Ptr<T>,
    v: Ptr<T>,
    mask: MaskPtr<T>,
    out: Ptr<T>,
    scale: f64,
) {
    let nb = g.q_off.len();
    let blocks = g.l.div_ceil(ROWS);
    let scale = T::from_f64(scale);
    let task = |t: usize| {
        let (b, blk) = (t / blocks, t % blocks);
        let i0 = blk * ROWS;
        let i1 = (i0 + ROWS).min(g.l);
        let rows = i1 - i0;
        // keys any row of this block can see
        let s_eff = if g.causal { g.s.min(i1) } else { g.s };
        // SAFETY (whole block): offsets and strides from `g` stay inside the operands (the
        // caller's contract); `out` rows i0..i1 of batch element b are written by this task
        // only.
        unsafe {
            let o = out.get().add(g.o_off[b] + i0 * g.o_rs);
            if s_eff == 0 {
                for r in 0..rows {
                    std::slice::from_raw_parts_mut(o.add(r * g.o_rs), g.ev).fill(T::ZERO);
                }
                return;
            }
            let mut buf = vec![T::ZERO; rows * s_eff];
            mm::<T>(
                rows,
                s_eff,
                g.e,
                buf.as_mut_ptr(),
                s_eff as isize,
                1,
                false,
                q.get().add(g.q_off[b] + i0 * g.q_rs),
                g.q_rs as isize,
                g.q_cs as isize,
                k.get().add(g.k_off[b]),
                g.k_cs as isize,
                g.k_rs as isize,
                1,
            );
            for (r, row) in buf.chunks_exact_mut(s_eff).enumerate() {
                let i = i0 + r;
                let len = if g.causal { s_eff.min(i + 1) } else { s_eff };
                let mrow = g.m_off[b] + i * g.m_rs;
                softmax_row(row, len, scale, mask, mrow, g.m_cs);
            }
            mm::<T>(
                rows,
                g.ev,
                s_eff,
                o,
                g.o_rs as isize,
                1,
                false,
                buf.as_ptr(),
                s_eff as isize,
                1,
                v.get().add(g.v_off[b]),
                g.v_rs as isize,
                g.v_cs as isize,
                1,
            );
        }
    };
    let tasks = nb * blocks;
    let flops = nb * g.l * g.s * (g.e + g.ev);
    if tasks > 1 && flops >= PAR_FLOPS && crate::kernels::par::threads() > 1 {
        crate::kernels::par::for_each_task(tasks, &task);
    } else {
        (0..tasks).for_each(task);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fully_masked_row_is_zero() {
        let mut row = [1.0f32, 2.0, 3.0];
        let m = [false, false, false];
        let mp = MaskPtr::Bool(Ptr(m.as_ptr() as *mut bool));
        // SAFETY: three mask elements, contiguous.
        unsafe { softmax_row(&mut row, 3, 1.0, mp, 0, 1) };
        assert_eq!(row, [0.0; 3]);
    }
}
