//! One raw-pointer matrix product for the kernels that lay out their own operands
//! (convolution's columns, attention's score tiles, the recurrent layers' gates), and the one
//! call into the `gemm-f32`/`gemm-f64` kernels ([`gemm`]) that it and the strided batched
//! product ([`crate::kernels::gemm`]) share. The degenerate sizes are handled here once,
//! because the kernels leave `dst` untouched when `k == 0` where a product must give zeros.

pub(crate) use gemm_common::Parallelism;

use crate::kernels::{Ptr, par};

/// The element types [`mm`] multiplies: float32 and float64.
pub(crate) trait MmElem: Copy + Send + Sync + 'static {
    /// `0`.
    const ZERO: Self;
    /// `1`.
    const ONE: Self;
    /// The run-time-selected kernel (AVX-512, AVX2+FMA or scalar) of `gemm-f32`/`gemm-f64`:
    /// `(m, n, k, dst, dst_cs, dst_rs, read_dst, lhs, lhs_cs, lhs_rs, rhs, rhs_cs, rhs_rs,
    /// alpha, beta, conj_dst, conj_lhs, conj_rhs, parallelism)`, computing
    /// `dst = alpha·dst + beta·lhs·rhs` (`alpha·dst` only when `read_dst`). It expects the
    /// layout [`gemm`] normalizes to.
    #[allow(clippy::type_complexity)]
    fn kernel() -> unsafe fn(
        usize,
        usize,
        usize,
        *mut Self,
        isize,
        isize,
        bool,
        *const Self,
        isize,
        isize,
        *const Self,
        isize,
        isize,
        Self,
        Self,
        bool,
        bool,
        bool,
        Parallelism,
    );
}

impl MmElem for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    fn kernel() -> unsafe fn(
        usize,
        usize,
        usize,
        *mut f32,
        isize,
        isize,
        bool,
        *const f32,
        isize,
        isize,
        *const f32,
        isize,
        isize,
        f32,
        f32,
        bool,
        bool,
        bool,
        Parallelism,
    ) {
        gemm_f32::gemm::f32::get_gemm_fn()
    }
}

impl MmElem for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    fn kernel() -> unsafe fn(
        usize,
        usize,
        usize,
        *mut f64,
        isize,
        isize,
        bool,
        *const f64,
        isize,
        isize,
        *const f64,
        isize,
        isize,
        f64,
        f64,
        bool,
        bool,
        bool,
        Parallelism,
    ) {
        gemm_f64::gemm::f64::get_gemm_fn()
    }
}

/// `dst (m×n) = lhs (m×k) · rhs (k×n)`, or `dst += lhs · rhs` when `acc`; strides in
/// elements, column stride before row stride (the `gemm` crate's order), any sign. The
/// layout normalization of `gemm` 0.19's `gemm::gemm` (MIT/Apache-2.0), which this replaces:
/// the product is transposed when `dst` is column-oriented (the micro-kernels want `dst`'s
/// row stride to be the small one), and negative strides are flipped so every pointer is the
/// lowest address of its matrix.
///
/// # Safety
/// The three matrices lie inside live allocations with these sizes and strides; `dst` is
/// written by this call only and overlaps neither `lhs` nor `rhs`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gemm<T: MmElem>(
    m: usize,
    n: usize,
    k: usize,
    dst: *mut T,
    dst_cs: isize,
    dst_rs: isize,
    acc: bool,
    lhs: *const T,
    lhs_cs: isize,
    lhs_rs: isize,
    rhs: *const T,
    rhs_cs: isize,
    rhs_rs: isize,
    par: Parallelism,
) {
    // (dst = lhs·rhs) ⇔ (dstᵀ = rhsᵀ·lhsᵀ): swap the operands and each one's two strides
    let (
        m,
        n,
        mut dst,
        mut dst_cs,
        mut dst_rs,
        mut lhs,
        mut lhs_cs,
        mut lhs_rs,
        mut rhs,
        mut rhs_cs,
        mut rhs_rs,
    ) = if dst_cs.abs() < dst_rs.abs() {
        (
            n, m, dst, dst_rs, dst_cs, rhs, rhs_rs, rhs_cs, lhs, lhs_rs, lhs_cs,
        )
    } else {
        (
            m, n, dst, dst_cs, dst_rs, lhs, lhs_cs, lhs_rs, rhs, rhs_cs, rhs_rs,
        )
    };
    // a negative stride walks the same elements backwards from the other end: reversing the
    // rows of dst and lhs together (or the columns of dst and rhs, or the k dim of lhs and
    // rhs) leaves the product unchanged
    if dst_rs < 0 && m > 0 {
        dst = dst.wrapping_offset((m - 1) as isize * dst_rs);
        dst_rs = -dst_rs;
        lhs = lhs.wrapping_offset((m - 1) as isize * lhs_rs);
        lhs_rs = -lhs_rs;
    }
    if dst_cs < 0 && n > 0 {
        dst = dst.wrapping_offset((n - 1) as isize * dst_cs);
        dst_cs = -dst_cs;
        rhs = rhs.wrapping_offset((n - 1) as isize * rhs_cs);
        rhs_cs = -rhs_cs;
    }
    if lhs_cs < 0 && k > 0 {
        lhs = lhs.wrapping_offset((k - 1) as isize * lhs_cs);
        lhs_cs = -lhs_cs;
        rhs = rhs.wrapping_offset((k - 1) as isize * rhs_rs);
        rhs_rs = -rhs_rs;
    }
    // SAFETY: forwarded from the caller; the flips above address the same elements. The
    // kernel reads m·k and k·n elements at the given strides and writes (reading too when
    // `acc`) m·n elements of dst: dst = 1·dst + 1·(lhs·rhs) when acc, else dst = lhs·rhs.
    unsafe {
        T::kernel()(
            m,
            n,
            k,
            dst,
            dst_cs,
            dst_rs,
            acc,
            lhs,
            lhs_cs,
            lhs_rs,
            rhs,
            rhs_cs,
            rhs_rs,
            T::ONE,
            T::ONE,
            false,
            false,
            false,
            par,
        )
    }
}

/// `dst (m×n) = lhs (m×k) · rhs (k×n)`, or `dst += lhs · rhs` when `acc`; strides in
/// elements (row stride `_rs`, column stride `_cs`). With `k == 0` the product is zeros (so
/// `dst` is zero-filled unless `acc`); with `m == 0` or `n == 0` nothing is touched. Runs on
/// `threads` threads of the intra-op pool ([`par::run`]; 1: the calling thread only).
///
/// # Safety
/// The three matrices lie inside live allocations with these sizes and strides; `dst` is
/// written by this call only and overlaps neither `lhs` nor `rhs`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn mm<T: MmElem>(
    m: usize,
    n: usize,
    k: usize,
    dst: *mut T,
    dst_rs: isize,
    dst_cs: isize,
    acc: bool,
    lhs: *const T,
    lhs_rs: isize,
    lhs_cs: isize,
    rhs: *const T,
    rhs_rs: isize,
    rhs_cs: isize,
    threads: usize,
) {
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !acc {
            for i in 0..m {
                for j in 0..n {
                    // SAFETY: (i, j) lies inside dst (the caller's contract).
                    unsafe { *dst.offset(i as isize * dst_rs + j as isize * dst_cs) = T::ZERO };
                }
            }
        }
        return;
    }
    let (dst, lhs, rhs) = (Ptr(dst), Ptr(lhs as *mut T), Ptr(rhs as *mut T));
    let product = move |par| {
        // SAFETY: forwarded from the caller (who waits for this call, on whichever thread it
        // runs). `gemm` takes (dst, column stride, row stride, read dst?) and the same for
        // lhs and rhs.
        unsafe {
            gemm(
                m,
                n,
                k,
                dst.get(),
                dst_cs,
                dst_rs,
                acc,
                lhs.get() as *const T,
                lhs_cs,
                lhs_rs,
                rhs.get() as *const T,
                rhs_cs,
                rhs_rs,
                par,
            )
        }
    };
    if threads > 1 {
        // `gemm` splits over the current rayon pool: the intra-op pool
        par::run(|| product(Parallelism::Rayon(threads)));
    } else {
        product(Parallelism::None);
    }
}
