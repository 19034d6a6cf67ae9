//! Vectorisable float32 transcendentals: `exp`, `tanh`, `erf` and the activations built on
//! them (`sigmoid`, `silu`, `gelu`, `gelu` with the tanh approximation), written branch-free
//! (selects, bit tricks, polynomials) so loops over them vectorise, and run over contiguous
//! runs in functions compiled for AVX-512F or AVX2 when the CPU has them (run-time
//! detection, as in [`super::simd`]).
//!
//! Accuracy: `exp` is Cephes' `expf` (about 1 ulp); `tanh` is Cephes' `tanhf` (a polynomial
//! below 0.625, `1 - 2/(exp(2|x|)+1)` above); `erf` is PyTorch's own vectorised float `erf`
//! (Abramowitz–Stegun 7.1.26, absolute error below 1.5e-7), the one its `gelu` uses.

/// Defines `$name`, the function `$body` compiled three times (AVX-512F, AVX2, baseline) and
/// chosen at run time. `$body` must be `#[inline(always)]` so each copy is compiled for its
/// instruction set.
macro_rules! multiversion {
    ($vis:vis fn $name:ident = $body:ident ($($arg:ident : $ty:ty),*) $(-> $ret:ty)?) => {
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                if $crate::kernels::simd::has_avx512() {
                    #[target_feature(enable = "avx512f")]
                    fn with_avx512($($arg: $ty),*) $(-> $ret)? {
                        $body($($arg),*)
                    }
                    // SAFETY: the CPU has AVX-512F (checked just above).
                    return unsafe { with_avx512($($arg),*) };
                }
                if $crate::kernels::simd::has_avx2() {
                    #[target_feature(enable = "avx2")]
                    fn with_avx2($($arg: $ty),*) $(-> $ret)? {
                        $body($($arg),*)
                    }
                    // SAFETY: the CPU has AVX2 (checked just above).
                    return unsafe { with_avx2($($arg),*) };
                }
            }
            $body($($arg),*)
        }
    };
}
pub(crate) use multiversion;

/// `1.5 · 2^23`: adding it to a float of magnitude below `2^22` rounds it to an integer held
/// in the low mantissa bits.
const SHIFT: f32 = 12_582_912.0;

/// `e^x` (Cephes `expf`): `x = n·ln2 + r`, `|r| ≤ ln2/2`, a degree-6 polynomial for `e^r`,
/// scaled by `2^n` in two steps (so `2^n` below the normal range gives subnormals). NaN stays
/// NaN, `+inf` gives `+inf`, `-inf` gives 0.
#[inline(always)]
#[allow(clippy::excessive_precision, clippy::manual_clamp)]
pub(crate) fn exp_f32(x: f32) -> f32 {
    // NaN fails both comparisons and passes through
    let xc = if x < -104.0 {
        -104.0
    } else if x > 88.8 {
        88.8
    } else {
        x
    };
    let kf = xc * std::f32::consts::LOG2_E + SHIFT;
    let nf = kf - SHIFT;
    let r = xc - nf * 0.693_359_375 - nf * -2.121_944_4e-4;
    let r2 = r * r;
    let p = (((((1.987_569_15e-4 * r + 1.398_199_95e-3) * r + 8.333_451_9e-3) * r
        + 4.166_579_6e-2)
        * r
        + 1.666_666_5e-1)
        * r
        + 5.000_000_1e-1)
        * r2
        + r
        + 1.0;
    let n = (kf.to_bits() as i32).wrapping_sub(SHIFT.to_bits() as i32);
    let n1 = n >> 1;
    let n2 = n - n1;
    let s1 = f32::from_bits((n1.wrapping_add(127) << 23) as u32);
    let s2 = f32::from_bits((n2.wrapping_add(127) << 23) as u32);
    p * s1 * s2
}

/// `tanh(x)` (Cephes `tanhf`).
#[inline(always)]
#[allow(clippy::excessive_precision)]
pub(crate) fn tanh_f32(x: f32) -> f32 {
    let a = x.abs();
    let z = x * x;
    let small = ((((-5.704_988_727_45e-3 * z + 2.063_908_879_54e-2) * z - 5.373_971_555_31e-2)
        * z
        + 1.333_144_220_36e-1)
        * z
        - 3.333_328_194_22e-1)
        * z
        * x
        + x;
    let e = exp_f32(a + a);
    let big = (1.0 - 2.0 / (e + 1.0)).copysign(x);
    if a < 0.625 { small } else { big }
}

/// `erf(x)` as PyTorch's vectorised float kernel computes it (Abramowitz–Stegun 7.1.26):
/// `sign(x) · (1 - t·P(t)·e^{-x²})`, `t = 1/(1 + 0.3275911|x|)`.
#[inline(always)]
#[allow(clippy::excessive_precision)]
pub(crate) fn erf_f32(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (0.327_591_1 * a + 1.0);
    let r = (((1.061_405_429 * t - 1.453_152_027) * t + 1.421_413_741) * t - 0.284_496_736) * t
        + 0.254_829_592;
    let e = exp_f32(-(x * x));
    (1.0 - r * t * e).copysign(x)
}

/// `1/(1 + e^{-x})`.
#[inline(always)]
pub(crate) fn sigmoid_f32(x: f32) -> f32 {
    1.0 / (1.0 + exp_f32(-x))
}

/// `x/(1 + e^{-x})` (PyTorch's `silu`; `-inf` gives NaN, as there).
#[inline(always)]
pub(crate) fn silu_f32(x: f32) -> f32 {
    x / (1.0 + exp_f32(-x))
}

/// `x/2 · (1 + erf(x/√2))` (PyTorch's `GeluKernelImpl`, `approximate='none'`).
#[inline(always)]
pub(crate) fn gelu_f32(x: f32) -> f32 {
    x * 0.5 * (1.0 + erf_f32(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// `x/2 · (1 + tanh(√(2/π)·(x + 0.044715x³)))` (`approximate='tanh'`).
#[inline(always)]
pub(crate) fn gelu_tanh_f32(x: f32) -> f32 {
    const BETA: f32 = std::f32::consts::SQRT_2 * std::f32::consts::FRAC_2_SQRT_PI * 0.5;
    let inner = BETA * (x + 0.044715 * (x * x * x));
    0.5 * x * (1.0 + tanh_f32(inner))
}

/// The float32 functions this module runs over runs of elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VOp {
    Exp,
    Tanh,
    Sigmoid,
    Silu,
    Gelu,
}

impl VOp {
    /// The function on one element.
    #[inline(always)]
    pub(crate) fn scalar(self) -> fn(f32) -> f32 {
        match self {
            VOp::Exp => exp_f32,
            VOp::Tanh => tanh_f32,
            VOp::Sigmoid => sigmoid_f32,
            VOp::Silu => silu_f32,
            VOp::Gelu => gelu_f32,
        }
    }
}

#[inline(always)]
fn map_body(op: VOp, xs: &[f32], ys: &mut [f32]) {
    macro_rules! go {
        ($f:expr) => {
            for (y, &x) in ys.iter_mut().zip(xs) {
                *y = $f(x);
            }
        };
    }
    match op {
        VOp::Exp => go!(exp_f32),
        VOp::Tanh => go!(tanh_f32),
        VOp::Sigmoid => go!(sigmoid_f32),
        VOp::Silu => go!(silu_f32),
        VOp::Gelu => go!(gelu_f32),
    }
}

multiversion!(pub(crate) fn map_f32 = map_body(op: VOp, xs: &[f32], ys: &mut [f32]));

/// `g · (Φ(x) + x·φ(x))`, the input gradient of exact `gelu` (PyTorch's
/// `GeluBackwardKernelImpl` for float: `cdf = 0.5·(1 + erf(x/√2))`, `pdf = α·e^{-x²/2}`,
/// `α = 2/√π · 1/√2 · 1/2`).
#[inline(always)]
pub(crate) fn gelu_backward_f32(g: f32, x: f32) -> f32 {
    const ALPHA: f32 = std::f32::consts::FRAC_2_SQRT_PI * std::f32::consts::FRAC_1_SQRT_2 * 0.5;
    let cdf = 0.5 * (1.0 + erf_f32(x * std::f32::consts::FRAC_1_SQRT_2));
    let pdf = ALPHA * exp_f32(x * x * -0.5);
    g * (cdf + x * pdf)
}

#[inline(always)]
fn gelu_backward_body(gs: &[f32], xs: &[f32], ys: &mut [f32]) {
    for ((y, &g), &x) in ys.iter_mut().zip(gs).zip(xs) {
        *y = gelu_backward_f32(g, x);
    }
}
multiversion!(fn gelu_backward_slices = gelu_backward_body(gs: &[f32], xs: &[f32], ys: &mut [f32]));

/// [`gelu_backward_run`] as a kernel for the engine's safe entry points (float32 operands).
pub(crate) fn gelu_backward_kernel()
-> super::loops::TypedKernel<impl Fn(&[*mut u8; 3], &[isize; 3], usize) + Sync, 3> {
    // SAFETY: `gelu_backward_run` reads two float32 inputs and writes a float32 output within
    // `n` elements at the strides given, and nothing else: `TypedKernel::new`'s contract.
    unsafe {
        super::loops::TypedKernel::new([crate::dtype::DType::Float32; 3], |p, s, n| {
            gelu_backward_run(p, s, n)
        })
    }
}

/// Whether the contiguous runs of `n` floats at `a` and `b` share no byte.
fn disjoint(a: *const f32, b: *const f32, n: usize) -> bool {
    let (a, b) = (a as usize, b as usize);
    a + 4 * n <= b || b + 4 * n <= a
}

/// A kernel for [`super::loops::Loop::run`]: `out = gelu_backward(g, x)` over one run of
/// float32 (vectorised when the run is contiguous and the output overlaps no input).
///
/// # Safety
/// `p` holds a float32 output and two float32 inputs valid for `n` elements at the element
/// strides `s`; the caller holds the locks.
pub(crate) unsafe fn gelu_backward_run(p: &[*mut u8; 3], s: &[isize; 3], n: usize) {
    let (o, g, x) = (p[0] as *mut f32, p[1] as *const f32, p[2] as *const f32);
    if s[0] == 1 && s[1] == 1 && s[2] == 1 && disjoint(o, g, n) && disjoint(o, x, n) {
        // SAFETY: the caller's contract: n contiguous elements each; the output overlaps
        // neither input (checked).
        let (gs, xs, ys) = unsafe {
            (
                std::slice::from_raw_parts(g, n),
                std::slice::from_raw_parts(x, n),
                std::slice::from_raw_parts_mut(o, n),
            )
        };
        gelu_backward_slices(gs, xs, ys);
        return;
    }
    for i in 0..n as isize {
        // SAFETY: element i of each operand lies in its run (caller's contract).
        unsafe {
            *o.offset(i * s[0]) = gelu_backward_f32(*g.offset(i * s[1]), *x.offset(i * s[2]))
        };
    }
}

/// [`unary_run`] of `op` as a kernel for the engine's safe entry points (float32 operands).
pub(crate) fn unary_kernel(
    op: VOp,
) -> super::loops::TypedKernel<impl Fn(&[*mut u8; 2], &[isize; 2], usize) + Sync, 2> {
    // SAFETY: `unary_run` reads a float32 input and writes a float32 output within `n`
    // elements at the strides given, and nothing else: `TypedKernel::new`'s contract.
    unsafe {
        super::loops::TypedKernel::new([crate::dtype::DType::Float32; 2], move |p, s, n| {
            unary_run(op, p, s, n)
        })
    }
}

/// A kernel for [`super::loops::Loop::run`]: `out = op(a)` over one run of float32
/// (vectorised when the run is contiguous and the output does not overlap the input).
///
/// # Safety
/// `p` holds a float32 output and a float32 input valid for `n` elements at the element
/// strides `s`; the caller holds the storage locks.
pub(crate) unsafe fn unary_run(op: VOp, p: &[*mut u8; 2], s: &[isize; 2], n: usize) {
    let (o, a) = (p[0] as *mut f32, p[1] as *const f32);
    if s[0] == 1 && s[1] == 1 && disjoint(o, a, n) {
        // SAFETY: the caller's contract: n contiguous elements each, not overlapping
        // (checked).
        let (xs, ys) = unsafe {
            (
                std::slice::from_raw_parts(a, n),
                std::slice::from_raw_parts_mut(o, n),
            )
        };
        map_f32(op, xs, ys);
        return;
    }
    let f = op.scalar();
    for i in 0..n as isize {
        // SAFETY: the caller's contract: element i of each operand is valid.
        unsafe { *o.offset(i * s[0]) = f(*a.offset(i * s[1])) };
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn gelu_backward_matches_double() {
        for k in -400..400 {
            let x = k as f32 * 0.02;
            let xd = x as f64;
            let cdf = 0.5 * (1.0 + libm::erf(xd / std::f64::consts::SQRT_2));
            let pdf = (-0.5 * xd * xd).exp() / (2.0 * std::f64::consts::PI).sqrt();
            let want = 1.5 * (cdf + xd * pdf);
            let got = super::gelu_backward_f32(1.5, x) as f64;
            assert!((got - want).abs() <= 1e-6, "x={x}: {got} vs {want}");
        }
    }

    use super::*;

    fn grid() -> Vec<f32> {
        let mut v: Vec<f32> = (-20000..=20000).map(|i| i as f32 * 1e-3).collect();
        v.extend((-1000..=1000).map(|i| i as f32 * 0.1));
        v.extend([
            1e-30, -1e-30, 1e-8, -1e-8, 0.0, -0.0, 88.7, -87.5, -100.0, -103.5,
        ]);
        v
    }

    fn check(name: &str, f: impl Fn(f32) -> f32, want: impl Fn(f64) -> f64, rtol: f64, atol: f64) {
        let xs = grid();
        for &x in &xs {
            let (g, w) = (f(x) as f64, want(x as f64) as f32 as f64);
            let ok = if w.is_finite() {
                (g - w).abs() <= atol + rtol * w.abs()
            } else {
                g == w || (g.is_nan() && w.is_nan())
            };
            assert!(ok, "{name}({x}) = {g}, want {w}");
        }
    }

    #[test]
    fn accurate_to_float32() {
        check("exp", exp_f32, f64::exp, 3e-7, 1e-30);
        check("tanh", tanh_f32, f64::tanh, 4e-7, 1e-30);
        check(
            "sigmoid",
            sigmoid_f32,
            |x| 1.0 / (1.0 + (-x).exp()),
            4e-7,
            1e-30,
        );
        check("silu", silu_f32, |x| x / (1.0 + (-x).exp()), 4e-7, 1e-30);
        check("erf", erf_f32, libm::erf, 0.0, 5e-7);
        let gelu = |x: f64| x * 0.5 * (1.0 + libm::erf(x / 2f64.sqrt()));
        check("gelu", gelu_f32, gelu, 3e-7, 5e-7);
        let k = (2.0 / std::f64::consts::PI).sqrt();
        let gt = move |x: f64| 0.5 * x * (1.0 + (k * (x + 0.044715 * x * x * x)).tanh());
        check("gelu_tanh", gelu_tanh_f32, gt, 1e-6, 1e-7);
    }

    #[test]
    fn special_values() {
        assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp_f32(89.0), f32::INFINITY);
        assert_eq!(exp_f32(0.0), 1.0);
        assert!(exp_f32(f32::NAN).is_nan());
        assert_eq!(tanh_f32(f32::INFINITY), 1.0);
        assert_eq!(tanh_f32(f32::NEG_INFINITY), -1.0);
        assert!(tanh_f32(f32::NAN).is_nan());
        assert_eq!(sigmoid_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(sigmoid_f32(f32::INFINITY), 1.0);
        assert!(silu_f32(f32::NEG_INFINITY).is_nan());
        assert_eq!(gelu_f32(f32::INFINITY), f32::INFINITY);
        assert!(gelu_f32(f32::NAN).is_nan());
        // the vectorised loop and the scalar function agree
        let xs: Vec<f32> = (0..1000).map(|i| i as f32 * 0.037 - 18.0).collect();
        let mut ys = vec![0.0; xs.len()];
        for op in [VOp::Exp, VOp::Tanh, VOp::Sigmoid, VOp::Silu, VOp::Gelu] {
            map_f32(op, &xs, &mut ys);
            for (x, y) in xs.iter().zip(&ys) {
                assert_eq!(y.to_bits(), op.scalar()(*x).to_bits(), "{op:?}({x})");
            }
        }
    }
}
