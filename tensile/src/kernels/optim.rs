//! The update loops of `torch.optim`'s single-tensor (for-loop) SGD and Adam/AdamW, one
//! element at a time in PyTorch's order of operations and with its roundings
//! (`shared/spec/autograd-semantics.md` §10.2–10.4):
//!
//! * every Python hyperparameter (a double) is rounded once to the element type where the
//!   kernel receives it (`T::from_f64`, round to nearest), and the `bc*`/`step_size` scalars
//!   are computed in double precision by the caller;
//! * `a.add(b, alpha=s)` is `fma(b, s, a)`: one rounding (ATen's vectorised `fmadd`);
//! * `lerp(m, g, w)` is `fma(w, g - m, m)` for `|w| < 0.5`, else `fma(w - 1, g - m, g)`;
//! * `v.addcmul_(g, g, value=c)` is `fma(c * g, g, v)` (the product `c * g` rounded first);
//! * `p.addcdiv_(m, d, value=s)` is `p + (s * m) / d`, three roundings, no fma;
//! * `sqrt(v) / bc2_sqrt` is a true division.
//!
//! PyTorch fuses none of these ops; each runs over the whole tensor before the next. They are
//! elementwise, so one pass per element computes the same values.
//!
//! The one known difference: `torch.sqrt` of this PyTorch build (AVX512 capability) is not
//! correctly rounded (about 1 result in 5 on uniform `[0, 1)` float32 inputs is 1 ulp off
//! the IEEE square root), while `sqrt` here is IEEE's. Adam's parameters can then differ
//! from PyTorch's by an ulp (see `tests/optim.rs`, which counts them).

/// The element types the optimizers update (float32 and float64).
pub(crate) trait OptFloat: Copy + PartialOrd + std::ops::Neg<Output = Self> {
    const ONE: Self;
    const HALF: Self;
    /// A Python float handed to a kernel of this type (`static_cast`: round to nearest).
    fn from_f64(x: f64) -> Self;
    fn fma(a: Self, b: Self, c: Self) -> Self;
    fn add(self, b: Self) -> Self;
    fn sub(self, b: Self) -> Self;
    fn mul(self, b: Self) -> Self;
    fn div(self, b: Self) -> Self;
    fn sqrt(self) -> Self;
    fn abs(self) -> Self;
    fn is_nan(self) -> bool;
}

macro_rules! opt_float {
    ($t:ty) => {
        impl OptFloat for $t {
            const ONE: Self = 1.0;
            const HALF: Self = 0.5;
            #[inline(always)]
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn fma(a: Self, b: Self, c: Self) -> Self {
                a.mul_add(b, c)
            }
            #[inline(always)]
            fn add(self, b: Self) -> Self {
                self + b
            }
            #[inline(always)]
            fn sub(self, b: Self) -> Self {
                self - b
            }
            #[inline(always)]
            fn mul(self, b: Self) -> Self {
                self * b
            }
            #[inline(always)]
            fn div(self, b: Self) -> Self {
                self / b
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
        }
    };
}
opt_float!(f32);
opt_float!(f64);

/// SGD's hyperparameters for one step (Python doubles; rounded in the loop).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SgdScalars {
    pub lr: f64,
    pub momentum: f64,
    pub dampening: f64,
    pub weight_decay: f64,
    pub nesterov: bool,
    pub maximize: bool,
}

/// One SGD step of one parameter (`_single_tensor_sgd`'s loop body). `buf` is the momentum
/// buffer (`Some` iff `momentum != 0`); `first` says it does not exist yet (it is then set to
/// the gradient, without dampening).
pub(crate) fn sgd<T: OptFloat>(
    p: &mut [T],
    g: &[T],
    buf: Option<&mut [T]>,
    first: bool,
    s: &SgdScalars,
) {
    super::simd::with_fma!(<T: OptFloat> p: &mut [T], g: &[T], buf: Option<&mut [T]>, first: bool, s: &SgdScalars
        => sgd_loop(p, g, buf, first, s))
}

#[inline(always)]
fn sgd_loop<T: OptFloat>(p: &mut [T], g: &[T], buf: Option<&mut [T]>, first: bool, s: &SgdScalars) {
    let wd = T::from_f64(s.weight_decay);
    let m = T::from_f64(s.momentum);
    let one_minus_d = 1.0 - s.dampening;
    let d = T::from_f64(one_minus_d);
    let neg_lr = T::from_f64(-s.lr);
    let mut buf = buf;
    for i in 0..p.len() {
        let mut gi = if s.maximize { -g[i] } else { g[i] };
        if s.weight_decay != 0.0 {
            gi = T::fma(p[i], wd, gi); // grad.add(param, alpha=wd)
        }
        if let Some(b) = buf.as_deref_mut() {
            if first {
                b[i] = gi; // grad.clone()
            } else {
                let bm = b[i].mul(m); // buf.mul_(momentum)
                b[i] = if one_minus_d == 1.0 {
                    bm.add(gi) // add_(grad) with alpha 1
                } else {
                    T::fma(gi, d, bm) // add_(grad, alpha=1-dampening)
                };
            }
            gi = if s.nesterov {
                T::fma(b[i], m, gi) // grad.add(buf, alpha=momentum)
            } else {
                b[i]
            };
        }
        p[i] = T::fma(gi, neg_lr, p[i]); // param.add_(grad, alpha=-lr)
    }
}

/// Adam's scalars for one step: the hyperparameters and the double-precision bias
/// corrections of this step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AdamScalars {
    pub lr: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    pub weight_decay: f64,
    pub maximize: bool,
    pub decoupled: bool,
    /// `lr / (1 - beta1**t)`.
    pub step_size: f64,
    /// `(1 - beta2**t) ** 0.5`.
    pub bc2_sqrt: f64,
}

/// `torch.lerp(a, b, w)` for a scalar weight, as ATen computes it (`lerp` in `Lerp.h`);
/// [`adam_body`] has it inlined with the branch hoisted (this is the reference its test uses).
#[cfg(test)]
fn lerp<T: OptFloat>(a: T, b: T, w: T) -> T {
    let diff = b.sub(a);
    if w.abs() < T::HALF {
        T::fma(w, diff, a)
    } else {
        T::fma(w.sub(T::ONE), diff, b)
    }
}

/// `torch.maximum`: NaN if either is NaN.
#[inline(always)]
fn maximum<T: OptFloat>(a: T, b: T) -> T {
    if a.is_nan() {
        a
    } else if b.is_nan() {
        b
    } else if a > b {
        a
    } else {
        b
    }
}

/// One Adam/AdamW step of one parameter (`_single_tensor_adam`'s loop body after
/// `step_t += 1`): `m` = `exp_avg`, `v` = `exp_avg_sq`, `vmax` = `max_exp_avg_sq` (amsgrad).
pub(crate) fn adam<T: OptFloat>(
    p: &mut [T],
    g: &[T],
    m: &mut [T],
    v: &mut [T],
    vmax: Option<&mut [T]>,
    s: &AdamScalars,
) {
    super::simd::with_fma!(<T: OptFloat> p: &mut [T], g: &[T], m: &mut [T], v: &mut [T], vmax: Option<&mut [T]>, s: &AdamScalars
        => adam_loop(p, g, m, v, vmax, s))
}

#[inline(always)]
fn adam_loop<T: OptFloat>(
    p: &mut [T],
    g: &[T],
    m: &mut [T],
    v: &mut [T],
    vmax: Option<&mut [T]>,
    s: &AdamScalars,
) {
    // The step's branches are the same for every element. Those that change values are
    // const parameters of the body (so the loop vectorises); `maximize` and AdamW's decay
    // are multiplications by ±1 and by 1 when off, which give the same bits.
    let l2 = s.weight_decay != 0.0 && !s.decoupled;
    let far = T::from_f64(1.0 - s.beta1).abs() >= T::HALF;
    let mut none: [T; 0] = [];
    let ams = vmax.is_some();
    let mx = vmax.unwrap_or(&mut none);
    match (l2, far, ams) {
        (false, false, false) => adam_body::<T, false, false, false>(p, g, m, v, mx, s),
        (false, false, true) => adam_body::<T, false, false, true>(p, g, m, v, mx, s),
        (false, true, false) => adam_body::<T, false, true, false>(p, g, m, v, mx, s),
        (false, true, true) => adam_body::<T, false, true, true>(p, g, m, v, mx, s),
        (true, false, false) => adam_body::<T, true, false, false>(p, g, m, v, mx, s),
        (true, false, true) => adam_body::<T, true, false, true>(p, g, m, v, mx, s),
        (true, true, false) => adam_body::<T, true, true, false>(p, g, m, v, mx, s),
        (true, true, true) => adam_body::<T, true, true, true>(p, g, m, v, mx, s),
    }
}

/// The Adam loop for one combination of the step's flags: `L2` (Adam's
/// `grad.add(param, alpha=wd)`), `FAR` (lerp's weight `1 - beta1` is at least 0.5, so it
/// computes from the far end), `AMS` (amsgrad: `vmax` holds `max_exp_avg_sq`; else empty).
#[inline(always)]
fn adam_body<T: OptFloat, const L2: bool, const FAR: bool, const AMS: bool>(
    p: &mut [T],
    g: &[T],
    m: &mut [T],
    v: &mut [T],
    vmax: &mut [T],
    s: &AdamScalars,
) {
    let decay = if s.decoupled && s.weight_decay != 0.0 {
        T::from_f64(1.0 - s.lr * s.weight_decay)
    } else {
        T::ONE
    };
    let sign = if s.maximize { -T::ONE } else { T::ONE };
    let wd = T::from_f64(s.weight_decay);
    let w1 = T::from_f64(1.0 - s.beta1);
    let w1m = w1.sub(T::ONE);
    let b2 = T::from_f64(s.beta2);
    let c2 = T::from_f64(1.0 - s.beta2);
    let bc2 = T::from_f64(s.bc2_sqrt);
    let eps = T::from_f64(s.eps);
    let neg_step = T::from_f64(-s.step_size);
    let n = p.len();
    let (g, m, v) = (&g[..n], &mut m[..n], &mut v[..n]);
    let vmax = if AMS { &mut vmax[..n] } else { vmax };
    for i in 0..n {
        let mut gi = g[i].mul(sign); // maximize: -grad
        let pi = p[i].mul(decay); // AdamW: param.mul_(1 - lr * weight_decay)
        if L2 {
            gi = T::fma(pi, wd, gi); // grad.add(param, alpha=weight_decay)
        }
        // exp_avg.lerp_(grad, 1 - beta1), as `lerp` (the branch is the weight's)
        let diff = gi.sub(m[i]);
        let mi = if FAR {
            T::fma(w1m, diff, gi)
        } else {
            T::fma(w1, diff, m[i])
        };
        m[i] = mi;
        let vb = v[i].mul(b2); // exp_avg_sq.mul_(beta2)
        let vi = T::fma(c2.mul(gi), gi, vb); // .addcmul_(grad, grad, value=1 - beta2)
        v[i] = vi;
        let vv = if AMS {
            vmax[i] = maximum(vmax[i], vi);
            vmax[i]
        } else {
            vi
        };
        let den = vv.sqrt().div(bc2).add(eps); // (sqrt(v) / bc2_sqrt).add_(eps)
        p[i] = pi.add(neg_step.mul(mi).div(den)); // param.addcdiv_(m, den, value=-step_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lerp_takes_the_far_branch_from_one_half() {
        // w = 0.7: computed from the end, b - (b - a) * (1 - w) with one rounding
        let (a, b, w) = (1.0f32, 3.0f32, 0.7f32);
        assert_eq!(lerp(a, b, w), (w - 1.0).mul_add(b - a, b));
        assert_eq!(lerp(a, b, 0.25f32), 0.25f32.mul_add(b - a, a));
    }

    #[test]
    fn maximum_propagates_nan() {
        assert!(maximum(f32::NAN, 1.0).is_nan());
        assert!(maximum(1.0, f32::NAN).is_nan());
        assert_eq!(maximum(1.0f32, 2.0), 2.0);
    }

    #[test]
    fn sgd_first_step_sets_the_buffer_to_the_gradient() {
        let mut p = [1.0f32, 2.0];
        let mut b = [0.0f32; 2];
        let s = SgdScalars {
            lr: 0.5,
            momentum: 0.9,
            dampening: 0.5,
            weight_decay: 0.0,
            nesterov: false,
            maximize: false,
        };
        sgd(&mut p, &[2.0, 4.0], Some(&mut b), true, &s);
        assert_eq!(b, [2.0, 4.0]);
        assert_eq!(p, [0.0, 0.0]);
        sgd(&mut p, &[2.0, 4.0], Some(&mut b), false, &s);
        assert_eq!(b, [2.0f32 * 0.9 + 1.0, 4.0f32 * 0.9 + 2.0]);
    }
}
