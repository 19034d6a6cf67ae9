//! The inner loop of the autograd formulas' elementwise maps (`map_n` in
//! `autograd::formulas::pointwise`): `out = f(inputs…)` with every operand presented as
//! float64 by [`super::loops::Loop::run`]'s conversion blocks, so one loop serves every dtype
//! and broadcast or strided operands are read in place (no float64 copies of whole tensors).

/// [`map_f64`] as a kernel for the engine's safe entry points, every operand float64.
pub(crate) fn map_f64_kernel<'k, const N: usize>(
    f: &'k (dyn Fn(&[f64]) -> f64 + Sync),
) -> super::loops::TypedKernel<impl Fn(&[*mut u8; N], &[isize; N], usize) + Sync + 'k, N> {
    // SAFETY: `map_f64` reads inputs and writes the output as float64 within `n` elements at
    // the strides given, and nothing else: `TypedKernel::new`'s contract.
    unsafe {
        super::loops::TypedKernel::new([crate::dtype::DType::Float64; N], move |p, s, n| {
            map_f64::<N>(p, s, n, f)
        })
    }
}

/// `out[i] = f(&[in_1[i], …, in_{N-1}[i]])` over one run of `n` elements.
///
/// # Safety
/// `p[0]` is a float64 output and `p[1..]` float64 inputs, each valid for `n` elements at the
/// element strides `s`; the caller holds the storage locks.
pub(crate) unsafe fn map_f64<const N: usize>(
    p: &[*mut u8; N],
    s: &[isize; N],
    n: usize,
    f: &(dyn Fn(&[f64]) -> f64 + Sync),
) {
    let mut v = [0f64; N];
    for i in 0..n as isize {
        for k in 1..N {
            // SAFETY: element `i` of input `k` lies in its run (caller's contract).
            v[k] = unsafe { *(p[k] as *const f64).offset(i * s[k]) };
        }
        // SAFETY: element `i` of the output lies in its run (caller's contract).
        unsafe { *(p[0] as *mut f64).offset(i * s[0]) = f(&v[1..]) };
    }
}
