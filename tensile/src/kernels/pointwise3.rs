//! The inner loop of three-input pointwise ops (`lerp` with a tensor weight, `addcmul`,
//! `addcdiv`, `clamp` with two tensor bounds), for [`super::loops::Loop::run`].

use crate::element::Element;

/// [`ternary`] of `f` as a kernel for the engine's safe entry points: output `O`, inputs `T`.
pub(crate) fn ternary_kernel<T: Element, O: Element>(
    f: impl Fn(T, T, T) -> O + Sync,
) -> super::loops::TypedKernel<impl Fn(&[*mut u8; 4], &[isize; 4], usize) + Sync, 4> {
    // SAFETY: `ternary` reads three `T` inputs and writes an `O` output within `n` elements at
    // the strides given, and nothing else: `TypedKernel::new`'s contract.
    unsafe {
        super::loops::TypedKernel::new([O::DTYPE, T::DTYPE, T::DTYPE, T::DTYPE], move |p, s, n| {
            ternary(p, s, n, &f)
        })
    }
}

/// A kernel computing `out = f(a, b, c)` over one run.
///
/// # Safety
/// `p` holds an output of `O` and three inputs of `T`, each valid for `n` elements at the
/// element strides `s`; the caller holds the storage locks.
#[inline(always)]
pub(crate) unsafe fn ternary<T: Element, O: Element>(
    p: &[*mut u8; 4],
    s: &[isize; 4],
    n: usize,
    f: impl Fn(T, T, T) -> O,
) {
    #[cfg(target_arch = "x86_64")]
    if super::simd::has_avx2() {
        // SAFETY: the caller's contract; the CPU has AVX2.
        return unsafe { ternary_avx2(p, s, n, f) };
    }
    // SAFETY: the caller's contract.
    unsafe { ternary_body(p, s, n, f) }
}

/// [`ternary_body`] compiled for AVX2, so `f`, inlined here, vectorises.
///
/// # Safety
/// As [`ternary`]; the CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn ternary_avx2<T: Element, O: Element>(
    p: &[*mut u8; 4],
    s: &[isize; 4],
    n: usize,
    f: impl Fn(T, T, T) -> O,
) {
    // SAFETY: the caller's contract.
    unsafe { ternary_body(p, s, n, f) }
}

/// The loops of [`ternary`].
///
/// # Safety
/// As [`ternary`].
#[inline(always)]
unsafe fn ternary_body<T: Element, O: Element>(
    p: &[*mut u8; 4],
    s: &[isize; 4],
    n: usize,
    f: impl Fn(T, T, T) -> O,
) {
    let (o, a, b, c) = (
        p[0] as *mut O,
        p[1] as *const T,
        p[2] as *const T,
        p[3] as *const T,
    );
    // SAFETY: the caller's contract; each element is read before it is written, so an output
    // that is an input (in place) is read correctly.
    unsafe {
        if s == &[1, 1, 1, 1] {
            for i in 0..n {
                *o.add(i) = f(*a.add(i), *b.add(i), *c.add(i));
            }
        } else {
            for i in 0..n as isize {
                *o.offset(i * s[0]) = f(
                    *a.offset(i * s[1]),
                    *b.offset(i * s[2]),
                    *c.offset(i * s[3]),
                );
            }
        }
    }
}
