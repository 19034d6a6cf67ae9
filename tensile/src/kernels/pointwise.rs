//! Inner loops that turn a scalar function into a kernel for [`super::loops::Loop::run`].
//!
//! Each loop is specialised for the layouts that dominate real programs — all operands
//! contiguous, and one operand broadcast (stride 0) — so the compiler can vectorise them;
//! anything else takes the general strided loop.

use crate::element::Element;

/// [`unary`] of `f` as a kernel for the engine's safe entry points: output `O`, input `A`.
pub(crate) fn unary_kernel<A: Element, O: Element>(
    f: impl Fn(A) -> O + Sync,
) -> super::loops::TypedKernel<impl Fn(&[*mut u8; 2], &[isize; 2], usize) + Sync, 2> {
    // SAFETY: `unary` reads an `A` input and writes an `O` output within `n` elements at the
    // strides given, and nothing else: `TypedKernel::new`'s contract.
    unsafe {
        super::loops::TypedKernel::new([O::DTYPE, A::DTYPE], move |p, s, n| unary(p, s, n, &f))
    }
}

/// [`binary`] of `f` as a kernel for the engine's safe entry points: output `O`, inputs `T`.
pub(crate) fn binary_kernel<T: Element, O: Element>(
    f: impl Fn(T, T) -> O + Sync,
) -> super::loops::TypedKernel<impl Fn(&[*mut u8; 3], &[isize; 3], usize) + Sync, 3> {
    // SAFETY: `binary` reads two `T` inputs and writes an `O` output within `n` elements at
    // the strides given, and nothing else: `TypedKernel::new`'s contract.
    unsafe {
        super::loops::TypedKernel::new([O::DTYPE, T::DTYPE, T::DTYPE], move |p, s, n| {
            binary(p, s, n, &f)
        })
    }
}

/// [`binary_kernel`] with PyTorch's CPU loop split (`vectorized_loop` in its `Loops.h`): in a
/// run where every operand is contiguous (or one input is a broadcast scalar, stride 0), the
/// first `n - n % block` elements take `vec_f`, PyTorch's vectorized lambda over whole blocks
/// of `2 * Vectorized<T>::size()` elements (64 bytes with AVX2), and the rest `scalar_f`, its
/// scalar lambda; a run with other strides takes `scalar_f` throughout (`basic_loop`). For
/// the ops whose two lambdas round differently; the runs are TensorIterator's inner loops when
/// no operand is converted through a buffer.
pub(crate) fn binary_split_kernel<T: Element, O: Element>(
    block: usize,
    vec_f: impl Fn(T, T) -> O + Sync,
    scalar_f: impl Fn(T, T) -> O + Sync,
) -> super::loops::TypedKernel<impl Fn(&[*mut u8; 3], &[isize; 3], usize) + Sync, 3> {
    // SAFETY: each `binary` call reads two `T` inputs and writes an `O` output within the run
    // of `n` elements at the strides given: the first the leading `nv <= n` elements, the
    // second the `n - nv` after them, whose pointers are offset by `nv` elements along each
    // operand's stride. Nothing else is touched: `TypedKernel::new`'s contract.
    unsafe {
        super::loops::TypedKernel::new([O::DTYPE, T::DTYPE, T::DTYPE], move |p, s, n| {
            let vectorized = s[0] == 1 && matches!((s[1], s[2]), (1, 1) | (0, 1) | (1, 0));
            let nv = if vectorized { n - n % block } else { 0 };
            binary(p, s, nv, &vec_f);
            let size = [
                std::mem::size_of::<O>(),
                std::mem::size_of::<T>(),
                std::mem::size_of::<T>(),
            ];
            let q: [*mut u8; 3] = std::array::from_fn(|k| {
                p[k].wrapping_offset(nv as isize * s[k] * size[k] as isize)
            });
            binary(&q, s, n - nv, &scalar_f);
        })
    }
}

/// A kernel computing `out = f(a)` over one run.
///
/// # Safety
/// `p` holds an output of `O` and an input of `A`, each valid for `n` elements at the element
/// strides `s`; the caller holds the storage locks.
#[inline(always)]
pub(crate) unsafe fn unary<A: Element, O: Element>(
    p: &[*mut u8; 2],
    s: &[isize; 2],
    n: usize,
    f: impl Fn(A) -> O,
) {
    #[cfg(target_arch = "x86_64")]
    if super::simd::has_avx2() {
        // SAFETY: the caller's contract; the CPU has AVX2.
        return unsafe { unary_avx2(p, s, n, f) };
    }
    // SAFETY: the caller's contract.
    unsafe { unary_body(p, s, n, f) }
}

/// [`unary_body`] compiled for AVX2 (which includes SSE4.1's rounding instructions), so the
/// scalar function `f`, inlined here, vectorises 8 floats wide.
///
/// # Safety
/// As [`unary`]; the CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn unary_avx2<A: Element, O: Element>(
    p: &[*mut u8; 2],
    s: &[isize; 2],
    n: usize,
    f: impl Fn(A) -> O,
) {
    // SAFETY: the caller's contract.
    unsafe { unary_body(p, s, n, f) }
}

/// The loops of [`unary`].
///
/// # Safety
/// As [`unary`].
#[inline(always)]
unsafe fn unary_body<A: Element, O: Element>(
    p: &[*mut u8; 2],
    s: &[isize; 2],
    n: usize,
    f: impl Fn(A) -> O,
) {
    let (o, a) = (p[0] as *mut O, p[1] as *const A);
    // SAFETY: the caller's contract; reads of element i happen before the write of element i,
    // so an output that is the input (in place) is read correctly.
    unsafe {
        if o as *const u8 == a as *const u8 && s[0] == 1 && s[1] == 1 && A::DTYPE == O::DTYPE {
            // In place: one pointer, so the compiler's overlap check (which an exact alias
            // fails) doesn't push the loop onto the scalar path.
            let io = o as *mut A;
            for i in 0..n {
                *(io.add(i) as *mut O) = f(*io.add(i));
            }
        } else if s[0] == 1 && s[1] == 1 {
            for i in 0..n {
                *o.add(i) = f(*a.add(i));
            }
        } else if s[1] == 0 {
            let v = f(*a);
            for i in 0..n as isize {
                *o.offset(i * s[0]) = v;
            }
        } else {
            for i in 0..n as isize {
                *o.offset(i * s[0]) = f(*a.offset(i * s[1]));
            }
        }
    }
}

/// A kernel computing `out = f(a, b)` over one run.
///
/// # Safety
/// As [`unary`], with two inputs of `T`.
#[inline(always)]
pub(crate) unsafe fn binary<T: Element, O: Element>(
    p: &[*mut u8; 3],
    s: &[isize; 3],
    n: usize,
    f: impl Fn(T, T) -> O,
) {
    #[cfg(target_arch = "x86_64")]
    if super::simd::has_avx2() {
        // SAFETY: the caller's contract; the CPU has AVX2.
        return unsafe { binary_avx2(p, s, n, f) };
    }
    // SAFETY: the caller's contract.
    unsafe { binary_body(p, s, n, f) }
}

/// [`binary_body`] compiled for AVX2, as [`unary_avx2`].
///
/// # Safety
/// As [`binary`]; the CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn binary_avx2<T: Element, O: Element>(
    p: &[*mut u8; 3],
    s: &[isize; 3],
    n: usize,
    f: impl Fn(T, T) -> O,
) {
    // SAFETY: the caller's contract.
    unsafe { binary_body(p, s, n, f) }
}

/// The loops of [`binary`].
///
/// # Safety
/// As [`binary`].
#[inline(always)]
unsafe fn binary_body<T: Element, O: Element>(
    p: &[*mut u8; 3],
    s: &[isize; 3],
    n: usize,
    f: impl Fn(T, T) -> O,
) {
    let (o, a, b) = (p[0] as *mut O, p[1] as *const T, p[2] as *const T);
    // SAFETY: the caller's contract; each element is read before it is written.
    unsafe {
        // In place (`a.add_(b)`): the output *is* the first input. Written as a loop over one
        // pointer, so the compiler's overlap check (which an exact alias fails) doesn't push
        // it onto the scalar path.
        if o as *const u8 == a as *const u8 && s[0] == 1 && s[1] == 1 && T::DTYPE == O::DTYPE {
            let io = o as *mut T;
            match s[2] {
                1 => {
                    for i in 0..n {
                        *o.add(i) = f(*io.add(i), *b.add(i));
                    }
                }
                0 => {
                    let bv = *b;
                    for i in 0..n {
                        *o.add(i) = f(*io.add(i), bv);
                    }
                }
                sb => {
                    for i in 0..n {
                        *o.add(i) = f(*io.add(i), *b.offset(i as isize * sb));
                    }
                }
            }
            return;
        }
        match (s[0], s[1], s[2]) {
            (1, 1, 1) => {
                for i in 0..n {
                    *o.add(i) = f(*a.add(i), *b.add(i));
                }
            }
            (1, 1, 0) => {
                let bv = *b;
                for i in 0..n {
                    *o.add(i) = f(*a.add(i), bv);
                }
            }
            (1, 0, 1) => {
                let av = *a;
                for i in 0..n {
                    *o.add(i) = f(av, *b.add(i));
                }
            }
            _ => {
                for i in 0..n as isize {
                    *o.offset(i * s[0]) = f(*a.offset(i * s[1]), *b.offset(i * s[2]));
                }
            }
        }
    }
}

/// [`select`] as a kernel for the engine's safe entry points: output and the two values of
/// `T`, the condition bool.
pub(crate) fn select_kernel<T: Element>()
-> super::loops::TypedKernel<impl Fn(&[*mut u8; 4], &[isize; 4], usize) + Sync, 4> {
    // SAFETY: `select` reads a bool condition and two `T` inputs and writes a `T` output
    // within `n` elements at the strides given, and nothing else: `TypedKernel::new`'s
    // contract.
    unsafe {
        super::loops::TypedKernel::new(
            [T::DTYPE, crate::dtype::DType::Bool, T::DTYPE, T::DTYPE],
            |p, s, n| select::<T>(p, s, n),
        )
    }
}

/// A kernel computing `out = if c { a } else { b }` over one run (`torch.where`).
///
/// # Safety
/// As [`unary`], with a bool condition and two inputs of `T`.
#[inline(always)]
pub(crate) unsafe fn select<T: Element>(p: &[*mut u8; 4], s: &[isize; 4], n: usize) {
    let (o, c, a, b) = (
        p[0] as *mut T,
        p[1] as *const bool,
        p[2] as *const T,
        p[3] as *const T,
    );
    // SAFETY: the caller's contract.
    unsafe {
        for i in 0..n as isize {
            *o.offset(i * s[0]) = if *c.offset(i * s[1]) {
                *a.offset(i * s[2])
            } else {
                *b.offset(i * s[3])
            };
        }
    }
}
