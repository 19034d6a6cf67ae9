//! One raw-pointer matrix product for the kernels that lay out their own operands
//! (convolution's columns, attention's score tiles, the recurrent layers' gates), and the one
//! call into the `gemm-f32`/`gemm-f64` kernels ([`gemm`]) that it and the strided batched
//! product ([`crate::kernels::gemm`]) share. The degenerate sizes are handled here once,
//! because the kernels leave `dst` untouched when `k == 0` where a product must give zeros.

pub(crate) use gemm_common::Parallelism;

use crate::kernels::{Ptr, par};

/// A `gemm-f32`/`gemm-f64` kernel: `(m, n, k, dst, dst_cs, dst_rs, read_dst, lhs, lhs_cs,
/// lhs_rs, rhs, rhs_cs, rhs_rs, alpha, beta, conj_dst, conj_lhs, conj_rhs, parallelism)`,
/// computing `dst = alpha·dst + beta·lhs·rhs` (`alpha·dst` only when `read_dst`). It expects
/// the layout [`gemm`] normalizes to.
pub(crate) type GemmFn<T> = unsafe fn(
    usize,
    usize,
    usize,
    *mut T,
    isize,
    isize,
    bool,
    *const T,
    isize,
    isize,
    *const T,
    isize,
    isize,
    T,
    T,
    bool,
    bool,
    bool,
    Parallelism,
);

/// The element types [`mm`] multiplies: float32 and float64.
pub(crate) trait MmElem: Copy + Send + Sync + 'static {
    /// `0`.
    const ZERO: Self;
    /// `1`.
    const ONE: Self;
    /// The run-time-selected kernel (AVX-512, AVX2+FMA or scalar) of `gemm-f32`/`gemm-f64`.
    fn kernel() -> GemmFn<Self>;
}

impl MmElem for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    fn kernel() -> GemmFn<Self> {
        gemm_f32::gemm::f32::get_gemm_fn()
    }
}

impl MmElem for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    fn kernel() -> GemmFn<Self> {
        gemm_f64::gemm::f64::get_gemm_fn()
    }
}

/// `dst (m×n) = lhs (m×k) · rhs (k×n)`, or `dst += lhs · rhs` when `acc`; strides in
/// elements, column stride before row stride (the `gemm` crate's order), any sign. The
/// layout normalization of `gemm` 0.19's `gemm::gemm` (MIT/Apache-2.0), which this replaces:
/// when `dst`'s column stride is the smaller one (row-major `dst`) the product is computed
/// transposed, since the micro-kernels want the row stride to be the small one; and negative
/// strides are flipped so every pointer is the lowest address of its matrix.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `gemm` against the plain triple loop, for every orientation of `dst` and with
    /// negative strides on each operand (the layouts it normalizes).
    #[test]
    fn gemm_matches_the_plain_product_for_every_layout() {
        let (m, n, k) = (5usize, 7usize, 3usize);
        let a: Vec<f64> = (0..m * k).map(|i| (i as f64 * 0.37).sin()).collect();
        let b: Vec<f64> = (0..k * n).map(|i| (i as f64 * 0.71).cos()).collect();
        for &(dst_row_major, flip_a, flip_b, acc) in &[
            (true, false, false, false),
            (false, false, false, false),
            (true, true, false, true),
            (false, false, true, false),
            (false, true, true, true),
        ] {
            let (drs, dcs) = if dst_row_major {
                (n as isize, 1)
            } else {
                (1, m as isize)
            };
            let mut dst = vec![1.0f64; m * n];
            // a read backwards: element (i, p) at the far end minus its offset
            let (a_ptr, ars, acs) = if flip_a {
                (a.as_ptr().wrapping_add(m * k - 1), -(k as isize), -1)
            } else {
                (a.as_ptr(), k as isize, 1)
            };
            let (b_ptr, brs, bcs) = if flip_b {
                (b.as_ptr().wrapping_add(k * n - 1), -(n as isize), -1)
            } else {
                (b.as_ptr(), n as isize, 1)
            };
            // SAFETY: the matrices lie inside the vectors at these strides; dst is ours.
            unsafe {
                gemm(
                    m,
                    n,
                    k,
                    dst.as_mut_ptr(),
                    dcs,
                    drs,
                    acc,
                    a_ptr,
                    acs,
                    ars,
                    b_ptr,
                    bcs,
                    brs,
                    Parallelism::None,
                )
            };
            for i in 0..m {
                for j in 0..n {
                    let (ii, jj) = (
                        if flip_a { m - 1 - i } else { i },
                        if flip_b { n - 1 - j } else { j },
                    );
                    let mut w = (0..k)
                        .map(|p| {
                            let pa = if flip_a { k - 1 - p } else { p };
                            let pb = if flip_b { k - 1 - p } else { p };
                            a[ii * k + pa] * b[pb * n + jj]
                        })
                        .sum::<f64>();
                    if acc {
                        w += 1.0;
                    }
                    let got = dst[(i as isize * drs + j as isize * dcs) as usize];
                    assert!(
                        (got - w).abs() < 1e-12,
                        "{dst_row_major} {flip_a} {flip_b} {acc}: ({i},{j}) {got} vs {w}"
                    );
                }
            }
        }
    }
}
