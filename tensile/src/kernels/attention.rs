//! Fused scaled-dot-product attention over raw strided operands (float32 and float64).
//!
//! For every batch element and every block of query rows: `scores = Q_blk · Kᵀ` through the
//! `gemm` crate, then per row scale, mask (boolean or additive), causal cut and a softmax
//! whose fully masked rows give 0, then `out_blk = P · V` through `gemm` again. A causal
//! block only multiplies against the keys its last row can see, so the upper triangle is never
//! computed, and the `(L, S)` score matrix is never materialised beyond one block of rows.
//! Blocks run in parallel over rayon's threads when the work is large.

use rayon::prelude::*;

use crate::kernels::Ptr;

/// Query rows per block (one `ROWS×S` score buffer per task).
const ROWS: usize = 64;

/// Below this many multiply-adds the whole op runs on the calling thread.
const PAR_FLOPS: usize = 1 << 18;

/// The attention mask as the kernel reads it.
#[derive(Clone, Copy)]
pub(crate) enum MaskPtr<T> {
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
pub(crate) trait AttnFloat: Copy + Send + Sync + 'static + PartialOrd {
    const ZERO: Self;
    const ONE: Self;
    const NEG_INF: Self;
    fn from_f64(x: f64) -> Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    fn is_nan(self) -> bool;
    /// `exp` of every element of `xs`, in place (all elements are `<= 0` or NaN).
    fn exp_inplace(xs: &mut [Self]);
    /// `C = A·B` (`m×k` by `k×n`) into `c` with row stride `rsc`, column stride 1.
    ///
    /// # Safety
    /// The pointers address matrices of these sizes and strides; `c` is written by this call
    /// only.
    #[allow(clippy::too_many_arguments)]
    unsafe fn gemm(
        m: usize,
        k: usize,
        n: usize,
        a: *const Self,
        rsa: isize,
        csa: isize,
        b: *const Self,
        rsb: isize,
        csb: isize,
        c: *mut Self,
        rsc: isize,
    );
}

macro_rules! attn_float {
    ($t:ty) => {
        const ZERO: $t = 0.0;
        const ONE: $t = 1.0;
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
        unsafe fn gemm(
            m: usize,
            k: usize,
            n: usize,
            a: *const $t,
            rsa: isize,
            csa: isize,
            b: *const $t,
            rsb: isize,
            csb: isize,
            c: *mut $t,
            rsc: isize,
        ) {
            if m == 0 || n == 0 {
                return;
            }
            if k == 0 {
                for i in 0..m {
                    // SAFETY: row i of c holds n elements (caller's contract).
                    unsafe { std::slice::from_raw_parts_mut(c.offset(i as isize * rsc), n) }
                        .fill(0.0);
                }
                return;
            }
            // SAFETY: forwarded from the caller; `gemm` reads m·k and k·n elements at the
            // given strides and writes m·n elements of c (c = a·b, c not read).
            unsafe {
                gemm::gemm(
                    m,
                    n,
                    k,
                    c,
                    1,
                    rsc,
                    false,
                    a,
                    csa,
                    rsa,
                    b,
                    csb,
                    rsb,
                    0.0,
                    1.0,
                    false,
                    false,
                    false,
                    gemm::Parallelism::None,
                )
            }
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

/// `exp(x)` for `x <= 0` (or NaN), branch-free so the row loop vectorises: Cephes' `expf`
/// (range reduction by `ln 2` in two parts, degree-6 polynomial, exponent by bit
/// arithmetic), about 1 ulp; results below `exp(-87)` (≈ 1.6e-38) are flushed to 0, `-inf`
/// gives 0 and NaN stays NaN.
#[inline(always)]
pub(crate) fn exp_f32(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const C1: f32 = 0.693_359_4;
    const C2: f32 = -2.121_944_4e-4;
    const MAGIC: f32 = 12_582_912.0; // 1.5 · 2^23: adding it rounds to an integer
    let xc = if x < -87.0 { -87.0 } else { x };
    let t = xc * LOG2E + MAGIC;
    let n = t - MAGIC;
    let ni = (t.to_bits() as i32).wrapping_sub(MAGIC.to_bits() as i32);
    let r = xc - n * C1 - n * C2;
    let p = ((((1.987_569_1e-4 * r + 1.398_199_9e-3) * r + 8.333_452e-3) * r + 4.166_579_6e-2) * r
        + 1.666_666_5e-1)
        * r
        + 0.5;
    let y = p * r * r + r + 1.0;
    let scale = f32::from_bits((ni.wrapping_add(127) as u32) << 23);
    let out = y * scale;
    if x < -87.0 { 0.0 } else { out }
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

/// Runs attention for every batch element of `g` (`g.q_off.len()` of them).
///
/// # Safety
/// `q`, `k`, `v` (and the mask) address, at the offsets and strides of `g`, `L×E`, `S×E`,
/// `S×Ev` (and `L×S`) matrices for every batch element; `out` addresses `L×Ev` rows of
/// stride `o_rs` that no two batch elements share and nothing else touches during the call.
pub(crate) unsafe fn attention<T: AttnFloat>(
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
            T::gemm(
                rows,
                g.e,
                s_eff,
                q.get().add(g.q_off[b] + i0 * g.q_rs),
                g.q_rs as isize,
                g.q_cs as isize,
                k.get().add(g.k_off[b]),
                g.k_cs as isize,
                g.k_rs as isize,
                buf.as_mut_ptr(),
                s_eff as isize,
            );
            for (r, row) in buf.chunks_exact_mut(s_eff).enumerate() {
                let i = i0 + r;
                let len = if g.causal { s_eff.min(i + 1) } else { s_eff };
                let mrow = g.m_off[b] + i * g.m_rs;
                softmax_row(row, len, scale, mask, mrow, g.m_cs);
            }
            T::gemm(
                rows,
                s_eff,
                g.ev,
                buf.as_ptr(),
                s_eff as isize,
                1,
                v.get().add(g.v_off[b]),
                g.v_rs as isize,
                g.v_cs as isize,
                o,
                g.o_rs as isize,
            );
        }
    };
    let tasks = nb * blocks;
    let flops = nb * g.l * g.s * (g.e + g.ev);
    if tasks > 1 && flops >= PAR_FLOPS && rayon::current_num_threads() > 1 {
        (0..tasks).into_par_iter().for_each(task);
    } else {
        (0..tasks).for_each(task);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_f32_matches_std() {
        let mut x = -90.0f32;
        while x <= 0.0 {
            let (got, want) = (exp_f32(x), x.exp());
            if x >= -87.0 {
                assert!(
                    (got - want).abs() <= 2.5e-7 * want,
                    "exp({x}) = {got}, want {want}"
                );
            } else {
                assert_eq!(got, 0.0);
            }
            x += 0.0137;
        }
        assert_eq!(exp_f32(0.0), 1.0);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert!(exp_f32(f32::NAN).is_nan());
    }

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
