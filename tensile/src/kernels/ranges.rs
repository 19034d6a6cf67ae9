//! The point kernels of `linspace` for float32 and float64: PyTorch's CPU kernel computes
//! each point as one fused multiply-add (its AVX2/AVX-512 builds contract `start + step·idx`),
//! so these loops are compiled with FMA where the CPU has it (run-time detection); without
//! it `mul_add` is the same exact operation in software. The first half is counted from
//! `start`, the second back from `end` (checked bit for bit against PyTorch 2.15 for lengths
//! 7 to 100001, one and two threads): `linspace(-1, 1, 7)[3]` is `1 - (2/6)·3 = -2.98e-8`.

/// Defines `$name(out, start, end)`: `out[idx] = start + step·idx` for `idx < len/2` and
/// `end - step·(len-1-idx)` above, `step = (end - start) / (len - 1)`, each one fused
/// multiply-add in `$t`. `out` holds at least two points.
macro_rules! linspace_kernel {
    ($name:ident, $body:ident, $t:ty) => {
        #[inline(always)]
        fn $body(out: &mut [$t], start: $t, end: $t) {
            let steps = out.len();
            let step = (end - start) / (steps - 1) as $t;
            let half = steps / 2;
            let (lo, hi) = out.split_at_mut(half);
            for (idx, o) in lo.iter_mut().enumerate() {
                *o = step.mul_add(idx as $t, start);
            }
            for (j, o) in hi.iter_mut().enumerate() {
                *o = (-step).mul_add((steps - half - j - 1) as $t, end);
            }
        }

        /// See the module docs: `linspace`'s points in this dtype, fused multiply-adds.
        pub(crate) fn $name(out: &mut [$t], start: $t, end: $t) {
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("fma")
                && std::arch::is_x86_feature_detected!("avx2")
            {
                #[target_feature(enable = "avx2,fma")]
                fn with_fma(out: &mut [$t], start: $t, end: $t) {
                    $body(out, start, end)
                }
                // SAFETY: the CPU has AVX2 and FMA (checked just above).
                return unsafe { with_fma(out, start, end) };
            }
            $body(out, start, end)
        }
    };
}
linspace_kernel!(linspace_f32, linspace_f32_body, f32);
linspace_kernel!(linspace_f64, linspace_f64_body, f64);
