//! The affine step of PyTorch's `uniform_(from, to)` over uniforms in `[0, 1)`:
//! `fma(x, to − from, from)` (the multiply-add PyTorch's AVX2 build fuses), a value equal to
//! `to` becoming `from`. Compiled with FMA when the CPU has it, so the loop is one fused
//! instruction per lane instead of a call of libm's `fma`.

/// `d[i] = fma(d[i], to − from, from)`, then `from` where that equals `to`, in float.
pub(crate) fn affine_f32(d: &mut [f32], from: f32, to: f32) {
    super::simd::with_fma!(d: &mut [f32], from: f32, to: f32 => affine_loop_f32(d, from, to))
}

/// [`affine_f32`] in double.
pub(crate) fn affine_f64(d: &mut [f64], from: f64, to: f64) {
    super::simd::with_fma!(d: &mut [f64], from: f64, to: f64 => affine_loop_f64(d, from, to))
}

#[inline(always)]
fn affine_loop_f32(d: &mut [f32], from: f32, to: f32) {
    let range = to - from;
    for v in d.iter_mut() {
        let y = v.mul_add(range, from);
        *v = if y == to { from } else { y };
    }
}

#[inline(always)]
fn affine_loop_f64(d: &mut [f64], from: f64, to: f64) {
    let range = to - from;
    for v in d.iter_mut() {
        let y = v.mul_add(range, from);
        *v = if y == to { from } else { y };
    }
}
