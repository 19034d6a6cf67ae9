//! Explicitly vectorised float sums for the reduction engine, with the instruction set chosen
//! at run time (AVX-512F, else AVX2, else the portable loop the compiler vectorises for the
//! baseline target).
//!
//! * [`sum_f32`]/[`sum_f64`]: the sum of a contiguous run — 64 (32) independent lanes over
//!   blocks of [`BLOCK`] elements, blocks combined pairwise, so the rounding error grows with
//!   `log(n)` as with PyTorch's cascade sum;
//! * [`add_rows_f32`]/[`add_rows_f64`]: `acc[j] += x[j]`, one input row into a tile of
//!   accumulators (the vertical walk);
//! * [`f16_to_f32`]/[`f32_to_f16`]: float16 slices to and from float32 with the CPU's
//!   conversion instructions (AVX-512F, else F16C; the `half` crate's loop elsewhere), the
//!   way the reductions and the float32 kernels of the half types load and store a block.

/// Elements summed by the lanes before blocks are combined pairwise.
pub(crate) const BLOCK: usize = 4096;

/// Whether the CPU has AVX-512F (cached by the standard library after the first call).
#[cfg(target_arch = "x86_64")]
pub(crate) fn has_avx512() -> bool {
    std::is_x86_feature_detected!("avx512f")
}

/// Runs `$body` (a call of an `#[inline(always)]` loop) compiled for AVX-512F+FMA, else
/// AVX2+FMA when the CPU has them (checked at run time), else for the baseline target, and
/// returns its value. The loops' `mul_add` is then one fused instruction and the loops
/// vectorise; on the baseline target it is a call of libm's `fma` per element (the same
/// value, about 10× slower). `with_fma!(<T: Bound> a: A, b: B => body)`: the arguments
/// (and an optional type parameter) the body uses.
macro_rules! with_fma {
    ($(<$g:ident: $bound:path>)? $($arg:ident: $ty:ty),* => $body:expr) => {{
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx512f,avx2,fma")]
            fn k512$(<$g: $bound>)?($($arg: $ty),*) {
                $body
            }
            #[target_feature(enable = "avx2,fma")]
            fn k256$(<$g: $bound>)?($($arg: $ty),*) {
                $body
            }
            if $crate::kernels::simd::has_avx512() && std::is_x86_feature_detected!("fma") {
                // SAFETY: the CPU has AVX-512F and FMA (checked just above).
                return unsafe { k512$(::<$g>)?($($arg),*) };
            }
            if $crate::kernels::simd::has_avx2() && std::is_x86_feature_detected!("fma") {
                // SAFETY: the CPU has AVX2 and FMA (checked just above).
                return unsafe { k256$(::<$g>)?($($arg),*) };
            }
        }
        $body
    }};
}
pub(crate) use with_fma;

/// Whether the CPU has AVX2.
#[cfg(target_arch = "x86_64")]
pub(crate) fn has_avx2() -> bool {
    std::is_x86_feature_detected!("avx2")
}

macro_rules! float_sums {
    ($t:ty, $sum:ident, $block:ident, $rows:ident, $lanes:expr,
     $zero512:ident, $load512:ident, $add512:ident, $red512:ident,
     $zero256:ident, $load256:ident, $add256:ident, $store256:ident, $w256:expr, $rows4:ident) => {
        /// Portable block sum: independent lanes the compiler keeps in vector registers.
        #[inline(always)]
        fn portable_block(xs: &[$t]) -> $t {
            let mut acc = [0.0 as $t; 8];
            let chunks = xs.chunks_exact(8);
            let rem = chunks.remainder();
            for c in chunks {
                for l in 0..8 {
                    acc[l] += c[l];
                }
            }
            let mut s =
                ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
            for &x in rem {
                s += x;
            }
            s
        }

        /// Sum of at most [`BLOCK`] contiguous elements.
        pub(super) fn $block(xs: &[$t]) -> $t {
            #[cfg(target_arch = "x86_64")]
            {
                use std::arch::x86_64::*;
                if has_avx512() {
                    #[target_feature(enable = "avx512f")]
                    fn k(xs: &[$t]) -> $t {
                        let n = xs.len();
                        let p = xs.as_ptr();
                        let (mut a0, mut a1, mut a2, mut a3) =
                            ($zero512(), $zero512(), $zero512(), $zero512());
                        let mut i = 0;
                        while i + 4 * $lanes <= n {
                            // SAFETY: the four loads read 4·$lanes elements inside xs.
                            unsafe {
                                a0 = $add512(a0, $load512(p.add(i)));
                                a1 = $add512(a1, $load512(p.add(i + $lanes)));
                                a2 = $add512(a2, $load512(p.add(i + 2 * $lanes)));
                                a3 = $add512(a3, $load512(p.add(i + 3 * $lanes)));
                            }
                            i += 4 * $lanes;
                        }
                        while i + $lanes <= n {
                            // SAFETY: the load reads $lanes elements inside xs.
                            a0 = $add512(a0, unsafe { $load512(p.add(i)) });
                            i += $lanes;
                        }
                        let mut s = $red512($add512($add512(a0, a1), $add512(a2, a3)));
                        for &x in &xs[i..] {
                            s += x;
                        }
                        s
                    }
                    // SAFETY: the CPU has AVX-512F (checked just above).
                    return unsafe { k(xs) };
                }
                if has_avx2() {
                    #[target_feature(enable = "avx2")]
                    fn k(xs: &[$t]) -> $t {
                        let n = xs.len();
                        let p = xs.as_ptr();
                        let (mut a0, mut a1, mut a2, mut a3) =
                            ($zero256(), $zero256(), $zero256(), $zero256());
                        let mut i = 0;
                        while i + 4 * $w256 <= n {
                            // SAFETY: the four loads read 4·$w256 elements inside xs.
                            unsafe {
                                a0 = $add256(a0, $load256(p.add(i)));
                                a1 = $add256(a1, $load256(p.add(i + $w256)));
                                a2 = $add256(a2, $load256(p.add(i + 2 * $w256)));
                                a3 = $add256(a3, $load256(p.add(i + 3 * $w256)));
                            }
                            i += 4 * $w256;
                        }
                        let v = $add256($add256(a0, a1), $add256(a2, a3));
                        let mut lanes = [0.0 as $t; $w256];
                        // SAFETY: `lanes` holds exactly one vector.
                        unsafe { $store256(lanes.as_mut_ptr(), v) };
                        let mut s = lanes.iter().fold(0.0 as $t, |a, &b| a + b);
                        s += portable_block(&xs[i..]);
                        s
                    }
                    // SAFETY: the CPU has AVX2 (checked just above).
                    return unsafe { k(xs) };
                }
            }
            portable_block(xs)
        }

        /// Sum of a contiguous run, pairwise over blocks of [`BLOCK`] elements.
        pub(crate) fn $sum(xs: &[$t]) -> $t {
            if xs.len() > BLOCK {
                let half = (xs.len() / 2).next_multiple_of(64);
                return $sum(&xs[..half]) + $sum(&xs[half..]);
            }
            $block(xs)
        }

        /// `acc[j] += x[j]` for every `j` (the shorter length of the two).
        pub(crate) fn $rows(acc: &mut [$t], x: &[$t]) {
            #[inline(always)]
            fn body(acc: &mut [$t], x: &[$t]) {
                for (a, &v) in acc.iter_mut().zip(x) {
                    *a += v;
                }
            }
            #[cfg(target_arch = "x86_64")]
            {
                if has_avx512() {
                    #[target_feature(enable = "avx512f")]
                    fn k(acc: &mut [$t], x: &[$t]) {
                        body(acc, x)
                    }
                    // SAFETY: the CPU has AVX-512F (checked just above).
                    return unsafe { k(acc, x) };
                }
                if has_avx2() {
                    #[target_feature(enable = "avx2")]
                    fn k(acc: &mut [$t], x: &[$t]) {
                        body(acc, x)
                    }
                    // SAFETY: the CPU has AVX2 (checked just above).
                    return unsafe { k(acc, x) };
                }
            }
            body(acc, x)
        }

        /// `acc[j] += (x[0][j] + x[1][j]) + (x[2][j] + x[3][j])`: four rows at once (one pass
        /// over the accumulators instead of four).
        pub(crate) fn $rows4(acc: &mut [$t], x: [&[$t]; 4]) {
            #[inline(always)]
            fn body(acc: &mut [$t], x: [&[$t]; 4]) {
                let n = acc
                    .len()
                    .min(x[0].len())
                    .min(x[1].len())
                    .min(x[2].len())
                    .min(x[3].len());
                let (acc, x0, x1, x2, x3) = (
                    &mut acc[..n],
                    &x[0][..n],
                    &x[1][..n],
                    &x[2][..n],
                    &x[3][..n],
                );
                for j in 0..n {
                    acc[j] += (x0[j] + x1[j]) + (x2[j] + x3[j]);
                }
            }
            #[cfg(target_arch = "x86_64")]
            {
                if has_avx512() {
                    #[target_feature(enable = "avx512f")]
                    fn k(acc: &mut [$t], x: [&[$t]; 4]) {
                        body(acc, x)
                    }
                    // SAFETY: the CPU has AVX-512F (checked just above).
                    return unsafe { k(acc, x) };
                }
                if has_avx2() {
                    #[target_feature(enable = "avx2")]
                    fn k(acc: &mut [$t], x: [&[$t]; 4]) {
                        body(acc, x)
                    }
                    // SAFETY: the CPU has AVX2 (checked just above).
                    return unsafe { k(acc, x) };
                }
            }
            body(acc, x)
        }
    };
}

mod f32_sums {
    use super::BLOCK;
    #[cfg(target_arch = "x86_64")]
    use super::{has_avx2, has_avx512};
    float_sums!(
        f32,
        sum_f32,
        block_f32,
        add_rows_f32,
        16,
        _mm512_setzero_ps,
        _mm512_loadu_ps,
        _mm512_add_ps,
        _mm512_reduce_add_ps,
        _mm256_setzero_ps,
        _mm256_loadu_ps,
        _mm256_add_ps,
        _mm256_storeu_ps,
        8,
        add_rows4_f32
    );
}

mod f64_sums {
    use super::BLOCK;
    #[cfg(target_arch = "x86_64")]
    use super::{has_avx2, has_avx512};
    float_sums!(
        f64,
        sum_f64,
        block_f64,
        add_rows_f64,
        8,
        _mm512_setzero_pd,
        _mm512_loadu_pd,
        _mm512_add_pd,
        _mm512_reduce_add_pd,
        _mm256_setzero_pd,
        _mm256_loadu_pd,
        _mm256_add_pd,
        _mm256_storeu_pd,
        4,
        add_rows4_f64
    );
}

/// The float32 sum of a float16 (`T = f16`) or bfloat16 run: exactly [`sum_f32`] of the run
/// converted to float32 (the same pairwise split into blocks of [`BLOCK`], the same lanes),
/// with AVX-512F each vector converted in registers as it is loaded; elsewhere each block is
/// converted into a buffer first.
pub(crate) fn sum_half<T: HalfLoad>(xs: &[T]) -> f32 {
    if xs.len() > BLOCK {
        let half = (xs.len() / 2).next_multiple_of(64);
        return sum_half(&xs[..half]) + sum_half(&xs[half..]);
    }
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx512() {
            // SAFETY: the CPU has AVX-512F (checked just above).
            return unsafe { half_block512(xs) };
        }
    }
    let mut buf = [0f32; BLOCK];
    let b = &mut buf[..xs.len()];
    T::to_f32(xs, b);
    f32_sums::block_f32(b)
}

/// float16 and bfloat16: converted to float32 a slice at a time, or a vector at a time.
pub(crate) trait HalfLoad: Copy + 'static {
    /// `dst[i] = src[i]` in float32 (exact).
    fn to_f32(src: &[Self], dst: &mut [f32]);
    /// Sixteen elements from `p`, widened to float32.
    ///
    /// # Safety
    /// 16 elements are readable at `p`; the CPU has AVX-512F.
    #[cfg(target_arch = "x86_64")]
    unsafe fn load16(p: *const Self) -> std::arch::x86_64::__m512;
}

impl HalfLoad for half::f16 {
    fn to_f32(src: &[Self], dst: &mut [f32]) {
        f16_to_f32(src, dst)
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load16(p: *const Self) -> std::arch::x86_64::__m512 {
        use std::arch::x86_64::*;
        // SAFETY: the caller's contract (16 readable elements, AVX-512F).
        unsafe { _mm512_cvtph_ps(_mm256_loadu_si256(p as *const __m256i)) }
    }
}

impl HalfLoad for half::bf16 {
    fn to_f32(src: &[Self], dst: &mut [f32]) {
        crate::kernels::cast::bf16_to_f32_slice(src, dst)
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load16(p: *const Self) -> std::arch::x86_64::__m512 {
        use std::arch::x86_64::*;
        // SAFETY: the caller's contract (16 readable elements, AVX-512F); the 16 bits of a
        // bfloat16 are the high half of its float32.
        unsafe {
            _mm512_castsi512_ps(_mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(
                _mm256_loadu_si256(p as *const __m256i),
            )))
        }
    }
}

/// The AVX-512 block of [`sum_half`]: `block_f32`'s AVX-512 loop (four accumulators over
/// groups of 64, then one over groups of 16, then the rest in order) on converted vectors.
///
/// # Safety
/// The CPU has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn half_block512<T: HalfLoad>(xs: &[T]) -> f32 {
    use std::arch::x86_64::*;
    let n = xs.len();
    let p = xs.as_ptr();
    let (mut a0, mut a1, mut a2, mut a3) = (
        _mm512_setzero_ps(),
        _mm512_setzero_ps(),
        _mm512_setzero_ps(),
        _mm512_setzero_ps(),
    );
    let mut i = 0;
    while i + 64 <= n {
        // SAFETY: the four loads read 64 elements inside xs; AVX-512F (caller).
        unsafe {
            a0 = _mm512_add_ps(a0, T::load16(p.add(i)));
            a1 = _mm512_add_ps(a1, T::load16(p.add(i + 16)));
            a2 = _mm512_add_ps(a2, T::load16(p.add(i + 32)));
            a3 = _mm512_add_ps(a3, T::load16(p.add(i + 48)));
        }
        i += 64;
    }
    while i + 16 <= n {
        // SAFETY: the load reads 16 elements inside xs; AVX-512F (caller).
        a0 = _mm512_add_ps(a0, unsafe { T::load16(p.add(i)) });
        i += 16;
    }
    let mut s = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
    let mut t = [0f32; 16];
    let rest = &mut t[..n - i];
    T::to_f32(&xs[i..], rest);
    for &x in rest.iter() {
        s += x;
    }
    s
}

/// float16 to float32 over a slice (exact), 16 (AVX-512F) or 8 (F16C) elements per
/// instruction; `dst` and `src` have the same length (the shorter one bounds the copy).
pub(crate) fn f16_to_f32(src: &[half::f16], dst: &mut [f32]) {
    let n = src.len().min(dst.len());
    let (src, dst) = (&src[..n], &mut dst[..n]);
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        if has_avx512() {
            #[target_feature(enable = "avx512f")]
            fn k(src: &[half::f16], dst: &mut [f32]) -> usize {
                let m = src.len() & !15;
                let (s, d) = (src.as_ptr() as *const __m256i, dst.as_mut_ptr());
                for i in (0..m).step_by(16) {
                    // SAFETY: elements i..i+16 lie inside both slices (i + 16 <= m <= n).
                    unsafe {
                        _mm512_storeu_ps(
                            d.add(i),
                            _mm512_cvtph_ps(_mm256_loadu_si256(s.byte_add(2 * i))),
                        )
                    };
                }
                m
            }
            // SAFETY: the CPU has AVX-512F (checked just above).
            let m = unsafe { k(src, dst) };
            return tail_f16_to_f32(&src[m..], &mut dst[m..]);
        }
        if std::is_x86_feature_detected!("f16c") && std::is_x86_feature_detected!("avx") {
            #[target_feature(enable = "avx,f16c")]
            fn k(src: &[half::f16], dst: &mut [f32]) -> usize {
                let m = src.len() & !7;
                let (s, d) = (src.as_ptr() as *const __m128i, dst.as_mut_ptr());
                for i in (0..m).step_by(8) {
                    // SAFETY: elements i..i+8 lie inside both slices (i + 8 <= m <= n).
                    unsafe {
                        _mm256_storeu_ps(
                            d.add(i),
                            _mm256_cvtph_ps(_mm_loadu_si128(s.byte_add(2 * i))),
                        )
                    };
                }
                m
            }
            // SAFETY: the CPU has AVX and F16C (checked just above).
            let m = unsafe { k(src, dst) };
            return tail_f16_to_f32(&src[m..], &mut dst[m..]);
        }
    }
    tail_f16_to_f32(src, dst)
}

/// The portable float16 to float32 conversion (the `half` crate's).
fn tail_f16_to_f32(src: &[half::f16], dst: &mut [f32]) {
    use half::slice::HalfFloatSliceExt;
    src.convert_to_f32_slice(dst)
}

/// float32 to float16 over a slice, rounded to nearest even (NaN stays NaN), 16 (AVX-512F)
/// or 8 (F16C) elements per instruction; the same values as `half::f16::from_f32`.
pub(crate) fn f32_to_f16(src: &[f32], dst: &mut [half::f16]) {
    let n = src.len().min(dst.len());
    let (src, dst) = (&src[..n], &mut dst[..n]);
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        const RNE: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
        if has_avx512() {
            #[target_feature(enable = "avx512f")]
            fn k(src: &[f32], dst: &mut [half::f16]) -> usize {
                let m = src.len() & !15;
                let (s, d) = (src.as_ptr(), dst.as_mut_ptr() as *mut __m256i);
                for i in (0..m).step_by(16) {
                    // SAFETY: elements i..i+16 lie inside both slices (i + 16 <= m <= n).
                    unsafe {
                        _mm256_storeu_si256(
                            d.byte_add(2 * i),
                            _mm512_cvtps_ph::<RNE>(_mm512_loadu_ps(s.add(i))),
                        )
                    };
                }
                m
            }
            // SAFETY: the CPU has AVX-512F (checked just above).
            let m = unsafe { k(src, dst) };
            return tail_f32_to_f16(&src[m..], &mut dst[m..]);
        }
        if std::is_x86_feature_detected!("f16c") && std::is_x86_feature_detected!("avx") {
            #[target_feature(enable = "avx,f16c")]
            fn k(src: &[f32], dst: &mut [half::f16]) -> usize {
                let m = src.len() & !7;
                let (s, d) = (src.as_ptr(), dst.as_mut_ptr() as *mut __m128i);
                for i in (0..m).step_by(8) {
                    // SAFETY: elements i..i+8 lie inside both slices (i + 8 <= m <= n).
                    unsafe {
                        _mm_storeu_si128(
                            d.byte_add(2 * i),
                            _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_loadu_ps(s.add(i))),
                        )
                    };
                }
                m
            }
            // SAFETY: the CPU has AVX and F16C (checked just above).
            let m = unsafe { k(src, dst) };
            return tail_f32_to_f16(&src[m..], &mut dst[m..]);
        }
    }
    tail_f32_to_f16(src, dst)
}

/// The portable float32 to float16 conversion (the `half` crate's).
fn tail_f32_to_f16(src: &[f32], dst: &mut [half::f16]) {
    use half::slice::HalfFloatSliceExt;
    dst.convert_from_f32_slice(src)
}

pub(crate) use f32_sums::{add_rows_f32, add_rows4_f32, sum_f32};
pub(crate) use f64_sums::{add_rows_f64, add_rows4_f64, sum_f64};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_match_a_plain_loop() {
        for n in [
            0usize, 1, 7, 15, 16, 63, 64, 65, 100, 4095, 4096, 4097, 10000,
        ] {
            let xs: Vec<f32> = (0..n).map(|i| (i % 7) as f32 * 0.5).collect();
            let want: f64 = xs.iter().map(|&x| x as f64).sum();
            assert_eq!(sum_f32(&xs) as f64, want, "n = {n}");
            let ys: Vec<f64> = xs.iter().map(|&x| x as f64).collect();
            assert_eq!(sum_f64(&ys), want, "n = {n}");
            let mut acc = vec![1.0f32; n];
            add_rows_f32(&mut acc, &xs);
            assert!(acc.iter().zip(&xs).all(|(a, x)| *a == 1.0 + x));
            let mut acc = vec![1.0f32; n];
            add_rows4_f32(&mut acc, [&xs, &xs, &xs, &xs]);
            assert!(acc.iter().zip(&xs).all(|(a, x)| *a == 1.0 + 4.0 * x));
        }
    }

    #[test]
    fn half_sums_are_the_float32_sums_of_the_converted_run() {
        for n in [0usize, 1, 15, 16, 17, 64, 100, 4095, 4096, 4097, 10001] {
            let xs: Vec<f32> = (0..n)
                .map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.013)
                .collect();
            let h: Vec<half::f16> = xs.iter().map(|&x| half::f16::from_f32(x)).collect();
            let hf: Vec<f32> = h.iter().map(|x| x.to_f32()).collect();
            assert_eq!(sum_half(&h).to_bits(), sum_f32(&hf).to_bits(), "n = {n}");
            let b: Vec<half::bf16> = xs.iter().map(|&x| half::bf16::from_f32(x)).collect();
            let bf: Vec<f32> = b.iter().map(|x| x.to_f32()).collect();
            assert_eq!(sum_half(&b).to_bits(), sum_f32(&bf).to_bits(), "n = {n}");
        }
    }

    #[test]
    fn half_conversions_match_the_half_crate() {
        use half::f16;
        // every float16 bit pattern to float32 and back (NaNs compared as NaNs)
        let all: Vec<f16> = (0..=u16::MAX).map(f16::from_bits).collect();
        let mut wide = vec![0f32; all.len()];
        f16_to_f32(&all, &mut wide);
        for (h, w) in all.iter().zip(&wide) {
            assert!(h.to_f32().to_bits() == w.to_bits() || (h.is_nan() && w.is_nan()));
        }
        // float32 values around every float16 rounding point, odd lengths for the tails
        let xs: Vec<f32> = (0..200_001u32)
            .map(|i| f32::from_bits(0x3000_0000 + i * 7919) * if i % 2 == 0 { 1.0 } else { -1.0 })
            .chain([
                f32::INFINITY,
                f32::NEG_INFINITY,
                65520.0,
                65519.99,
                1e-8,
                -0.0,
            ])
            .collect();
        let mut back = vec![f16::ZERO; xs.len()];
        f32_to_f16(&xs, &mut back);
        for (x, b) in xs.iter().zip(&back) {
            assert_eq!(f16::from_f32(*x).to_bits(), b.to_bits(), "{x}");
        }
    }
}
