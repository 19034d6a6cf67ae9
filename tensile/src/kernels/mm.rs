//! One raw-pointer matrix product for the kernels that lay out their own operands
//! (convolution's columns, attention's score tiles, the recurrent layers' gates): the `gemm`
//! crate, with the degenerate sizes handled here once, because `gemm` leaves `dst` untouched
//! when `k == 0` where a product must give zeros.

use crate::kernels::{Ptr, par};

/// The element types [`mm`] multiplies: float32 and float64.
pub(crate) trait MmElem: Copy + Send + Sync + 'static {
    /// `0`.
    const ZERO: Self;
    /// `1`.
    const ONE: Self;
}

impl MmElem for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
}

impl MmElem for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
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
        // lhs and rhs, then dst = beta·lhs·rhs (+ alpha·dst when read).
        unsafe {
            gemm::gemm(
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
                T::ONE,
                T::ONE,
                false,
                false,
                false,
                par,
            )
        }
    };
    if threads > 1 {
        // `gemm` splits over the current rayon pool: the intra-op pool
        par::run(|| product(gemm::Parallelism::Rayon(threads)));
    } else {
        product(gemm::Parallelism::None);
    }
}
