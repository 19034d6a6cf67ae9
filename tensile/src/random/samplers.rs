//! The samplers of `ATen/native/Distributions.{h,cpp}` behind `torch._standard_gamma`,
//! `torch._sample_dirichlet` and `torch.binomial`, and the reparameterisation gradients
//! `torch._standard_gamma_grad` and `torch._dirichlet_grad`.
//!
//! Each CPU kernel is a serial TensorIterator loop over a new contiguous output, so elements
//! are drawn in row-major order, each with PyTorch's arithmetic: the kernels are templates
//! over `scalar_t` (float or double) with a double accumulator, and which operations run in
//! `scalar_t` and which in double (and the float literals such as `1.0f / 3.0f` promoted to
//! double) is followed here operation by operation, so float32 results agree bit for bit.

use std::ops::{Add, Div, Mul, Sub};

use crate::Tensor;
use crate::dtype::DType;
use crate::error::{Error, ErrorKind, Result};
use crate::generator::{GenState, or_default};
use crate::random::GeneratorOpts;

/// `scalar_t` of the kernels: `f32` or `f64`, with the C++ math functions of that type
/// (`std::log(float)` is `logf`, …).
trait Sc:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
{
    fn of(v: f64) -> Self;
    fn d(self) -> f64;
    fn ln(self) -> Self;
    fn ln_1p(self) -> Self;
    fn floor(self) -> Self;
    fn sqrt(self) -> Self;
    fn powf(self, e: Self) -> Self;
    fn is_nan(self) -> bool;
}

macro_rules! sc {
    ($($t:ty),*) => {$(
        impl Sc for $t {
            #[inline(always)] fn of(v: f64) -> Self { v as $t }
            #[inline(always)] fn d(self) -> f64 { self as f64 }
            #[inline(always)] fn ln(self) -> Self { <$t>::ln(self) }
            #[inline(always)] fn ln_1p(self) -> Self { <$t>::ln_1p(self) }
            #[inline(always)] fn floor(self) -> Self { <$t>::floor(self) }
            #[inline(always)] fn sqrt(self) -> Self { <$t>::sqrt(self) }
            #[inline(always)] fn powf(self, e: Self) -> Self { <$t>::powf(self, e) }
            #[inline(always)] fn is_nan(self) -> bool { <$t>::is_nan(self) }
        }
    )*};
}
sc!(f32, f64);

/// An `AT_DISPATCH_FLOATING_TYPES` refusal: `"gamma_cpu" not implemented for 'Long'`.
fn floating_only(name: &str, dtype: DType) -> Result<()> {
    if matches!(dtype, DType::Float32 | DType::Float64) {
        return Ok(());
    }
    Err(Error::not_implemented_for(name, dtype))
}

/// TensorIterator's common-dtype check of its inputs: `Found dtype Double but expected Float`.
fn same_dtype(expected: DType, t: &Tensor) -> Result<()> {
    if t.dtype() == expected {
        return Ok(());
    }
    Err(Error::runtime(format!(
        "Found dtype {} but expected {}",
        t.dtype().scalar_type_name(),
        expected.scalar_type_name()
    )))
}

/// The tensors broadcast together, each as row-major float64 values (exact for float32).
fn broadcast_values(ts: &[&Tensor]) -> Result<(Vec<usize>, Vec<Vec<f64>>)> {
    let _g = crate::autograd::no_grad();
    let b = crate::broadcast_tensors(ts)?;
    let shape = b[0].size().to_vec();
    let vals = b
        .iter()
        .map(|t| t.try_contiguous()?.try_to_vec::<f64>())
        .collect::<Result<_>>()?;
    Ok((shape, vals))
}

// ------------------------------------------------------------------ gamma

/// `sample_gamma<scalar_t, double>` (Marsaglia–Tsang, with the `alpha < 1` boost): one
/// uniform double for the boost, then per try normal doubles (the generator's cached one
/// first) until `1 + c·x > 0` and one uniform double.
///
/// Deviation: where PyTorch loops forever (a NaN `alpha`, or `alpha <= -2/3` so that `d` is
/// not positive) this returns NaN.
fn sample_gamma<F: Sc>(g: &mut GenState, alpha: F) -> f64 {
    let mut alpha = alpha;
    let mut scale = 1.0f64;
    if alpha < F::of(1.0) {
        if alpha == F::of(0.0) {
            return 0.0;
        }
        let e = F::of(1.0) / alpha;
        scale *= (1.0 - g.uniform_f64(0.0, 1.0)).powf(e.d());
        alpha = alpha + F::of(1.0);
    }
    // `alpha - 1.0f / 3.0f` in scalar_t, then held in double
    let d = (alpha - F::of((1.0f32 / 3.0f32) as f64)).d();
    if d.is_nan() || d <= 0.0 {
        return f64::NAN;
    }
    let c = 1.0 / (9.0 * d).sqrt();
    let k = 0.0331f32 as f64;
    loop {
        let (mut x, mut y);
        loop {
            x = g.normal_f64(0.0, 1.0);
            y = 1.0 + c * x;
            if y > 0.0 {
                break;
            }
        }
        let v = y * y * y;
        let u = 1.0 - g.uniform_f64(0.0, 1.0);
        let xx = x * x;
        if u < 1.0 - k * xx * xx {
            return scale * d * v;
        }
        if u.ln() < 0.5 * xx + d * (1.0 - v + v.ln()) {
            return scale * d * v;
        }
    }
}

/// `torch._standard_gamma(alpha)` from the default generator; see [`standard_gamma_with`].
pub fn standard_gamma(alpha: &Tensor) -> Result<Tensor> {
    standard_gamma_with(alpha, GeneratorOpts::default())
}

/// `torch._standard_gamma(alpha, generator=)` (`_s_gamma_cpu`): a new contiguous tensor of
/// `alpha`'s shape and dtype (float32 or float64), each element (row-major) a Gamma(α, 1)
/// sample, at least the dtype's smallest normal number (`finfo.tiny`).
///
/// Draws (PyTorch's `sample_gamma`, in double): for `α < 1` one uniform double `u` and the
/// factor `(1 − u)^(1/α)`, with `α + 1` going on; then Marsaglia–Tsang tries, each standard
/// normal doubles (`normal_distribution<double>`, which uses the generator's cached second
/// Box–Muller value) until `1 + c·x > 0`, and one uniform double. `α = 0` draws nothing.
///
/// Differentiable: the gradient with respect to `alpha` is `grad ·`
/// [`standard_gamma_grad`]`(alpha, result)` (PyTorch's `StandardGammaBackward0`).
///
/// Errors: NotImplementedError `"gamma_cpu" not implemented for 'Long'` (every dtype but
/// float32/float64). A NaN or `α <= −2/3` gives NaN (PyTorch never returns).
pub fn standard_gamma_with<'g>(
    alpha: &Tensor,
    opts: impl Into<GeneratorOpts<'g>>,
) -> Result<Tensor> {
    let dt = alpha.dtype();
    floating_only("gamma_cpu", dt)?;
    let av = {
        let _g = crate::autograd::no_grad();
        alpha.try_contiguous()?.try_to_vec::<f64>()?
    };
    let rng = or_default(opts.into().generator);
    let mut s = rng.lock();
    let mut vals = crate::error::try_vec::<f64>(av.len())?;
    for &a in &av {
        vals.push(if dt == DType::Float32 {
            let v = sample_gamma(&mut s, a as f32) as f32;
            // std::max(numeric_limits<float>::min(), v)
            (if v < f32::MIN_POSITIVE {
                f32::MIN_POSITIVE
            } else {
                v
            }) as f64
        } else {
            let v = sample_gamma(&mut s, a);
            if v < f64::MIN_POSITIVE {
                f64::MIN_POSITIVE
            } else {
                v
            }
        });
    }
    drop(s);
    let out = Tensor::from_vec(vals, alpha.size())?.to(dt)?;
    crate::autograd::formulas::distributions::standard_gamma(out, alpha)
}

/// `digamma_one<scalar_t, double>` (Cephes): the recurrence up to 10 with `x` in `scalar_t`
/// and the sum in double, then the asymptotic series; the result in `scalar_t`. (The
/// reflection for negative `x` is computed in double; only positive arguments reach it here.)
fn digamma_one<F: Sc>(x: F) -> F {
    #[allow(clippy::excessive_precision)]
    const PSI_10: f64 = 2.251_752_589_066_721_1;
    if x == F::of(0.0) {
        return F::of(f64::INFINITY);
    }
    let mut x = x;
    let mut additional = 0.0f64;
    if x < F::of(0.0) {
        if x == x.floor() {
            return F::of(f64::INFINITY);
        }
        let pi = std::f64::consts::PI;
        additional = -F::of(pi).d() / (F::of(pi) * x).d().tan();
        x = F::of(1.0) - x;
    }
    let mut result = 0.0f64;
    while x < F::of(10.0) {
        result -= (F::of(1.0) / x).d();
        x = x + F::of(1.0);
    }
    if x == F::of(10.0) {
        return F::of(result + PSI_10 + additional);
    }
    const A: [f64; 7] = [
        8.333_333_333_333_333e-2,
        -2.109_279_609_279_609_3e-2,
        7.575_757_575_757_576e-3,
        -4.166_666_666_666_667e-3,
        3.968_253_968_253_968e-3,
        -8.333_333_333_333_333e-3,
        8.333_333_333_333_333e-2,
    ];
    let mut y = 0.0;
    if x.d() < 1.0e17f32 as f64 {
        let xx = (x * x).d();
        let z = 1.0 / xx;
        let mut p = 0.0;
        for a in A {
            p = p * z + a;
        }
        y = z * p;
    }
    F::of(result + x.ln().d() - (F::of(0.5) / x).d() - y + additional)
}

/// `standard_gamma_grad_one<scalar_t, double>`: `−(∂/∂α cdf(x; α)) / pdf(x; α)` for a
/// standard Gamma sample `x`, in double: a Taylor series for `x < 0.8`, Rice's saddle point
/// expansion for `α > 8`, else a bivariate rational approximation.
fn standard_gamma_grad_one(alpha: f64, x: f64) -> f64 {
    if x < 0.8f32 as f64 {
        let mut numer = 1.0;
        let mut denom = alpha;
        let mut series1 = numer / denom;
        let mut series2 = numer / (denom * denom);
        for i in 1..=5 {
            numer *= -x / i as f64;
            denom += 1.0;
            series1 += numer / denom;
            series2 += numer / (denom * denom);
        }
        let pow_x_alpha = x.powf(alpha);
        let gamma_pdf = x.powf(alpha - 1.0) * (-x).exp();
        let gamma_cdf = pow_x_alpha * series1;
        let gamma_cdf_alpha = (x.ln() - digamma_one(alpha)) * gamma_cdf - pow_x_alpha * series2;
        let result = -gamma_cdf_alpha / gamma_pdf;
        return if result.is_nan() { 0.0 } else { result };
    }
    if alpha > 8.0 {
        if (0.9f32 as f64) * alpha <= x && x <= (1.1f32 as f64) * alpha {
            let numer_1 = 1.0 + 24.0 * alpha * (1.0 + 12.0 * alpha);
            let numer_2 = 1440.0 * (alpha * alpha) + 6.0 * x * (53.0 - 120.0 * x)
                - 65.0 * x * x / alpha
                + alpha * (107.0 + 3600.0 * x);
            let denom = 1_244_160.0 * (alpha * alpha) * (alpha * alpha);
            return numer_1 * numer_2 / denom;
        }
        let denom = (8.0 * alpha).sqrt();
        let term2 = denom / (alpha - x);
        let term3 = (x - alpha - alpha * (x / alpha).ln()).powf(-1.5);
        let term23 = if x < alpha {
            term2 - term3
        } else {
            term2 + term3
        };
        let term1 = (x / alpha).ln() * term23
            - (2.0 / alpha).sqrt() * (alpha + x) / ((alpha - x) * (alpha - x));
        let stirling = 1.0 + 1.0 / (12.0 * alpha) * (1.0 + 1.0 / (24.0 * alpha));
        let numer = x * term1;
        return -stirling * numer / denom;
    }
    let u = (x / alpha).ln();
    let v = alpha.ln();
    #[allow(clippy::excessive_precision)]
    const COEF_UV: [[f64; 8]; 3] = [
        [
            0.16009398,
            -0.094634809,
            0.025146376,
            -0.0030648343,
            1.0,
            0.32668115,
            0.10406089,
            0.0014179084,
        ],
        [
            0.53487893,
            0.1298071,
            0.065735949,
            -0.0015649758,
            0.16639465,
            0.020070113,
            -0.0035938915,
            -0.00058392623,
        ],
        [
            0.040121004,
            -0.0065914022,
            -0.0026286047,
            -0.0013441777,
            0.017050642,
            -0.0021309326,
            0.00085092367,
            -1.5247877e-07,
        ],
    ];
    let mut cv = [0.0f64; 8];
    for (i, c) in cv.iter_mut().enumerate() {
        *c = COEF_UV[0][i] + u * (COEF_UV[1][i] + u * COEF_UV[2][i]);
    }
    let p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]));
    let q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]));
    (p / q).exp()
}

/// `torch._standard_gamma_grad(alpha, x)` (`_standard_gamma_grad_cpu`): the reparameterised
/// derivative `dx/dα` of standard Gamma samples `x` of concentrations `alpha`, elementwise over
/// their broadcast shape, in `alpha`'s dtype (computed in double, rounded once). Not
/// differentiable.
///
/// Errors: NotImplementedError `"_standard_gamma_grad_cpu" not implemented for 'Long'`;
/// RuntimeError `Found dtype Double but expected Float` (mixed dtypes); broadcasting's.
pub fn standard_gamma_grad(alpha: &Tensor, x: &Tensor) -> Result<Tensor> {
    let dt = alpha.dtype();
    floating_only("_standard_gamma_grad_cpu", dt)?;
    same_dtype(dt, x)?;
    let (shape, v) = broadcast_values(&[alpha, x])?;
    let vals: Vec<f64> = v[0]
        .iter()
        .zip(&v[1])
        .map(|(&a, &x)| standard_gamma_grad_one(a, x))
        .collect();
    Tensor::from_vec(vals, &shape[..])?.to(dt)
}

// ------------------------------------------------------------------ dirichlet

/// `torch._sample_dirichlet(alpha)` from the default generator; see [`sample_dirichlet_with`].
pub fn sample_dirichlet(alpha: &Tensor) -> Result<Tensor> {
    sample_dirichlet_with(alpha, GeneratorOpts::default())
}

/// `torch._sample_dirichlet(alpha, generator=)` (`_s_dirichlet_cpu`): Dirichlet samples over
/// `alpha`'s last dim, a new contiguous tensor of `alpha`'s shape and dtype (float32/float64).
///
/// Draws: a standard Gamma sample per element in row-major order, each computed in double
/// from the concentration as a double ([`standard_gamma_with`]'s draws, the double
/// arithmetic) and at least `f64::MIN_POSITIVE`; then each divided by its row's sum
/// (`sum(-1, keepdim)` in double) and clamped to `[finfo.tiny, nextafter(1, 0)]` of the dtype.
///
/// Differentiable through [`Dirichlet`](crate::distributions::Dirichlet)'s `rsample` only
/// (PyTorch's `_Dirichlet` function); this op itself records nothing.
///
/// Errors: NotImplementedError `"dirichlet" not implemented for 'Long'`.
pub fn sample_dirichlet_with<'g>(
    alpha: &Tensor,
    opts: impl Into<GeneratorOpts<'g>>,
) -> Result<Tensor> {
    let dt = alpha.dtype();
    floating_only("dirichlet", dt)?;
    let _ng = crate::autograd::no_grad();
    let av = alpha.try_contiguous()?.try_to_vec::<f64>()?;
    let rng = or_default(opts.into().generator);
    let mut s = rng.lock();
    let mut gam = crate::error::try_vec::<f64>(av.len())?;
    for &a in &av {
        let v = sample_gamma(&mut s, a);
        gam.push(if v < f64::MIN_POSITIVE {
            f64::MIN_POSITIVE
        } else {
            v
        });
    }
    drop(s);
    let gamma = Tensor::from_vec(gam, alpha.size())?;
    let shape: Vec<i64> = alpha.size().iter().map(|&d| d as i64).collect();
    let sum = gamma
        .sum_dim(-1, true)?
        .expand(&shape)?
        .contiguous()
        .try_to_vec::<f64>()?;
    let gv = gamma.to_vec::<f64>();
    let vals: Vec<f64> = gv
        .iter()
        .zip(&sum)
        .map(|(&g, &t)| {
            let r = g / t;
            if dt == DType::Float32 {
                let max = f32::from_bits(1.0f32.to_bits() - 1);
                let v = r as f32;
                let v = if v < f32::MIN_POSITIVE {
                    f32::MIN_POSITIVE
                } else {
                    v
                };
                (if max < v { max } else { v }) as f64
            } else {
                let max = f64::from_bits(1.0f64.to_bits() - 1);
                let v = if r < f64::MIN_POSITIVE {
                    f64::MIN_POSITIVE
                } else {
                    r
                };
                if max < v { max } else { v }
            }
        })
        .collect();
    Tensor::from_vec(vals, alpha.size())?.to(dt)
}

/// `_beta_grad_alpha_small` in `scalar_t` (digamma's accumulation in double).
fn beta_grad_alpha_small<F: Sc>(x: F, alpha: F, beta: F) -> F {
    let one = F::of(1.0);
    let factor = digamma_one(alpha) - digamma_one(alpha + beta) - x.ln();
    let mut numer = one;
    let mut series = numer / alpha * (factor + one / alpha);
    for i in 1..=10 {
        let ci = F::of(i as f64);
        numer = numer * ((ci - beta) * x / ci);
        let denom = alpha + ci;
        series = series + numer / denom * (factor + one / denom);
    }
    let result = x * (one - x).powf(F::of(0.0) - beta) * series;
    if result.is_nan() { F::of(0.0) } else { result }
}

/// `_beta_grad_beta_small` in `scalar_t`.
fn beta_grad_beta_small<F: Sc>(x: F, alpha: F, beta: F) -> F {
    let one = F::of(1.0);
    let factor = digamma_one(alpha + beta) - digamma_one(beta);
    let (mut numer, mut betas, mut dbetas) = (one, one, F::of(0.0));
    let mut series = factor / alpha;
    for i in 1..=8 {
        let ci = F::of(i as f64);
        numer = numer * (F::of(0.0) - x / ci);
        dbetas = dbetas * (beta - ci) + betas;
        betas = betas * (beta - ci);
        series = series + numer / (alpha + ci) * (dbetas + factor * betas);
    }
    let result = F::of(0.0) - (one - x).powf(one - beta) * series;
    if result.is_nan() { F::of(0.0) } else { result }
}

/// `_beta_grad_alpha_mid` in double.
fn beta_grad_alpha_mid(x: f64, alpha: f64, beta: f64) -> f64 {
    let total = alpha + beta;
    let mean = alpha / total;
    let std = (alpha * beta / (total + 1.0)).sqrt() / total;
    if mean - 0.1 * std <= x && x <= mean + 0.1 * std {
        let poly = 47.0 * x * (beta * beta) * (beta * beta)
            + alpha
                * ((43.0 + 20.0 * (16.0 + 27.0 * beta) * x) * (beta * beta) * beta
                    + alpha
                        * (3.0 * (59.0 + 180.0 * beta - 90.0 * x) * (beta * beta)
                            + alpha
                                * ((453.0 + 1620.0 * beta * (1.0 - x) - 455.0 * x) * beta
                                    + alpha * (8.0 * (1.0 - x) * (135.0 * beta - 11.0)))));
        let prefactor_num = (1.0 + 12.0 * alpha) * (1.0 + 12.0 * beta) / (total * total);
        let prefactor_den = 12960.0 * alpha * alpha * alpha * beta * beta * (1.0 + 12.0 * total);
        return prefactor_num / (1.0 - x) * poly / prefactor_den;
    }
    let prefactor = -x / (2.0 * alpha * beta / total).sqrt();
    let stirling = (1.0 + 1.0 / (12.0 * alpha) + 1.0 / (288.0 * alpha * alpha))
        * (1.0 + 1.0 / (12.0 * beta) + 1.0 / (288.0 * beta * beta))
        / (1.0 + 1.0 / (12.0 * total) + 1.0 / (288.0 * total * total));
    let term1_num =
        2.0 * (alpha * alpha) * (x - 1.0) + alpha * beta * (x - 1.0) - x * (beta * beta);
    let axbx = alpha * (x - 1.0) + beta * x;
    let term1_den = (2.0 * alpha / beta).sqrt() * total.powf(1.5) * axbx * axbx;
    let term1 = term1_num / term1_den;
    let term2 = 0.5 * (alpha / (total * x)).ln();
    let term3_num = (8.0 * alpha * beta / total).sqrt();
    let term3_den = beta * x + alpha * (x - 1.0);
    let term3 = term3_num / term3_den;
    let term4_base = beta * (beta / (total * (1.0 - x))).ln() + alpha * (alpha / (total * x)).ln();
    let term4 = term4_base.powf(-1.5);
    let term1234 = term1 + term2 * (term3 + if x < mean { term4 } else { -term4 });
    stirling * prefactor * term1234
}

/// `dirichlet_grad_one<scalar_t, double>`: `−(∂/∂α cdf(x; α, β)) / pdf(x; α, β) / (1 − x)`
/// with `β = total − α`.
fn dirichlet_grad_one<F: Sc>(x: F, alpha: F, total: F) -> f64 {
    let (x_, alpha_, total_) = (x.d(), alpha.d(), total.d());
    let beta = total - alpha;
    let beta_ = total_ - alpha_;
    let boundary = total * x * (F::of(1.0) - x);
    if x <= F::of(0.5) && boundary < F::of(2.5) {
        return beta_grad_alpha_small(x, alpha, beta).d();
    }
    if x >= F::of(0.5) && boundary < F::of(0.75) {
        return -beta_grad_beta_small(F::of(1.0) - x, beta, alpha).d();
    }
    if alpha > F::of(6.0) && beta > F::of(6.0) {
        return beta_grad_alpha_mid(x_, alpha_, beta_);
    }
    #[allow(clippy::excessive_precision)]
    const C: [[[[f64; 4]; 3]; 3]; 2] = [
        [
            [
                [1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
                [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
                [
                    -0.03276231906,
                    0.004474107445,
                    0.002429354597,
                    -0.0001557569013,
                ],
            ],
            [
                [0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
                [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
                [
                    0.02155310298,
                    0.004170831599,
                    0.001292462449,
                    6.976601077e-05,
                ],
            ],
            [
                [
                    -0.05980841433,
                    0.008441916499,
                    0.01085618172,
                    0.002319392565,
                ],
                [
                    0.02911413504,
                    0.01400243777,
                    -0.002721828457,
                    0.000751041181,
                ],
                [
                    0.005900514878,
                    -0.001936558688,
                    -9.495446725e-06,
                    5.385558597e-05,
                ],
            ],
        ],
        [
            [
                [1.0, -0.02924021934, -0.04438342661, 0.007285809825],
                [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
                [
                    -0.03301322327,
                    0.004845219414,
                    0.00231480583,
                    -0.0002307248149,
                ],
            ],
            [
                [0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
                [
                    0.1014815858,
                    -0.06589186703,
                    0.01272886114,
                    -0.0007316646956,
                ],
                [
                    -0.007258481865,
                    0.001096195486,
                    0.0003934994223,
                    -4.12701925e-05,
                ],
            ],
            [
                [
                    0.06469649321,
                    -0.0236701437,
                    0.002902096474,
                    -5.896963079e-05,
                ],
                [
                    0.001925008108,
                    -0.002869809258,
                    0.0008000589141,
                    -6.063713228e-05,
                ],
                [
                    -0.0003477407336,
                    6.959756487e-05,
                    1.097287507e-05,
                    -1.650964693e-06,
                ],
            ],
        ],
    ];
    let u = x_.ln();
    let a = alpha_.ln() - u;
    let b = total_.ln() - a;
    let pow_u = [1.0, u, u * u];
    let pow_a = [1.0, a, a * a];
    let (mut p, mut q) = (0.0, 0.0);
    for i in 0..3 {
        for j in 0..3 {
            let ua = pow_u[i] * pow_a[j];
            let c0 = &C[0][i][j];
            let c1 = &C[1][i][j];
            p += ua * (c0[0] + b * (c0[1] + b * (c0[2] + b * c0[3])));
            q += ua * (c1[0] + b * (c1[1] + b * (c1[2] + b * c1[3])));
        }
    }
    // digamma_one<scalar_t, double> of the double values: converted to scalar_t first
    let approx = x_ * (digamma_one(F::of(total_)) - digamma_one(F::of(alpha_))).d() / beta_;
    p / q * approx
}

/// `torch._dirichlet_grad(x, alpha, total)` (`_dirichlet_grad_cpu`): the reparameterised
/// derivative of Beta samples `x` with respect to their concentration `alpha` (`total` the
/// sum of both concentrations), elementwise over the broadcast shape, in `x`'s dtype. Not
/// differentiable.
///
/// Errors: NotImplementedError `"_dirichlet_grad_cpu" not implemented for 'Long'`;
/// RuntimeError `Found dtype Double but expected Float`; broadcasting's.
pub fn dirichlet_grad(x: &Tensor, alpha: &Tensor, total: &Tensor) -> Result<Tensor> {
    let dt = x.dtype();
    floating_only("_dirichlet_grad_cpu", dt)?;
    same_dtype(dt, alpha)?;
    same_dtype(dt, total)?;
    let (shape, v) = broadcast_values(&[x, alpha, total])?;
    let vals: Vec<f64> = (0..v[0].len())
        .map(|i| {
            let (x, a, t) = (v[0][i], v[1][i], v[2][i]);
            if dt == DType::Float32 {
                dirichlet_grad_one(x as f32, a as f32, t as f32) as f32 as f64
            } else {
                dirichlet_grad_one(x, a, t)
            }
        })
        .collect();
    Tensor::from_vec(vals, &shape[..])?.to(dt)
}

// ------------------------------------------------------------------ binomial

/// `stirling_approx_tail<double>`.
fn stirling_approx_tail(k: f64) -> f64 {
    #[allow(clippy::excessive_precision)]
    const TAIL: [f64; 10] = [
        0.0810614667953272,
        0.0413406959554092,
        0.0276779256849983,
        0.02079067210376509,
        0.0166446911898211,
        0.0138761288230707,
        0.0118967099458917,
        0.0104112652619720,
        0.00925546218271273,
        0.00833056343336287,
    ];
    if k < 10.0 {
        return TAIL[k as usize];
    }
    let kp1sq = (k + 1.0) * (k + 1.0);
    (1.0 / 12.0 - (1.0 / 360.0 - 1.0 / 1260.0 / kp1sq) / kp1sq) / (k + 1.0)
}

/// `binomial_inversion<scalar_t, double>`: geometric waiting times until their sum passes
/// `count`, one uniform double each.
fn binomial_inversion<F: Sc>(g: &mut GenState, count: F, prob: F) -> F {
    let mut geom_sum = 0.0f64;
    let mut num_geom = F::of(0.0);
    let logprob = (F::of(0.0) - prob).ln_1p().d();
    loop {
        let u = g.uniform_f64(0.0, 1.0);
        let geom = (u.ln() / logprob).ceil();
        geom_sum += geom;
        if geom_sum > count.d() {
            break;
        }
        num_geom = num_geom + F::of(1.0);
    }
    num_geom
}

/// `btrs<scalar_t, double>` (Hörmann's transformed rejection with squeeze): pairs of
/// uniform doubles until one is accepted.
fn btrs<F: Sc>(g: &mut GenState, count: F, prob: F) -> F {
    let one = F::of(1.0);
    let stddev = (count * prob * (one - prob)).sqrt().d();
    let b = 1.15 + 2.53 * stddev;
    let a = -0.0873 + 0.0248 * b + 0.01 * prob.d();
    let c = (count * prob).d() + 0.5;
    let v_r = 0.92 - 4.2 / b;
    let r = (prob / (one - prob)).d();
    let alpha = (2.83 + 5.1 / b) * stddev;
    let m = ((count + one) * prob).floor().d();
    let cd = count.d();
    loop {
        let u = g.uniform_f64(0.0, 1.0) - 0.5;
        let mut v = g.uniform_f64(0.0, 1.0);
        let us = 0.5 - u.abs();
        let k = F::of(((2.0 * a / us + b) * u + c).floor());
        if k < F::of(0.0) || k > count {
            continue;
        }
        if us >= 0.07 && v <= v_r {
            return k;
        }
        v = (v * alpha / (a / (us * us) + b)).ln();
        let kd = k.d();
        let upperbound = (m + 0.5) * ((m + 1.0) / (r * (cd - m + 1.0))).ln()
            + (count + one).d() * ((cd - m + 1.0) / (count - k + one).d()).ln()
            + (kd + 0.5) * (r * (count - k + one).d() / (k + one).d()).ln()
            + stirling_approx_tail(m)
            + stirling_approx_tail(cd - m)
            - stirling_approx_tail(kd)
            - stirling_approx_tail((count - k).d());
        if v <= upperbound {
            return k;
        }
    }
}

/// `sample_binomial<scalar_t, double>`.
///
/// Deviation: a non-finite `count` gives NaN where PyTorch's inversion loops forever.
fn sample_binomial<F: Sc>(g: &mut GenState, count: F, prob: F) -> F {
    let (zero, one) = (F::of(0.0), F::of(1.0));
    if count <= zero || prob <= zero {
        zero
    } else if prob >= one {
        count
    } else if !count.d().is_finite() {
        F::of(f64::NAN)
    } else if prob <= F::of(0.5) {
        if (count * prob).d() >= 10.0 {
            btrs(g, count, prob)
        } else {
            binomial_inversion(g, count, prob)
        }
    } else if prob > F::of(0.5) {
        let qprob = F::of(1.0 - prob.d());
        if (count * qprob).d() >= 10.0 {
            count - btrs(g, count, qprob)
        } else {
            count - binomial_inversion(g, count, qprob)
        }
    } else {
        F::of(f64::NAN)
    }
}

/// `torch.binomial(count, prob)` from the default generator; see [`binomial_with`].
pub fn binomial(count: &Tensor, prob: &Tensor) -> Result<Tensor> {
    binomial_with(count, prob, GeneratorOpts::default())
}

/// `torch.binomial(count, prob, generator=)` (`_s_binomial_cpu`): a new contiguous tensor of
/// the broadcast shape and `count`'s dtype (float32/float64), each element (row-major) a
/// Binomial(count, prob) sample. Never records gradients (PyTorch's derivative is zero).
///
/// Draws (PyTorch's `sample_binomial`): none for `count <= 0`, `prob <= 0` or `prob >= 1`;
/// with `p = min(prob, 1 − prob)`, if `count·p >= 10` Hörmann's BTRS on pairs of uniform
/// doubles, else inversion: uniform doubles, one per geometric waiting time, until their sum
/// passes `count`. A NaN `prob` gives NaN.
///
/// Errors: ValueError `binomial only supports floating-point dtypes for count, got: Long`
/// (and `for prob`); NotImplementedError `"binomial_cpu" not implemented for 'Half'`;
/// RuntimeError `Found dtype Double but expected Float`; broadcasting's. A non-finite
/// `count` gives NaN (PyTorch never returns).
pub fn binomial_with<'g>(
    count: &Tensor,
    prob: &Tensor,
    opts: impl Into<GeneratorOpts<'g>>,
) -> Result<Tensor> {
    for (name, t) in [("count", count), ("prob", prob)] {
        if !t.dtype().is_floating_point() {
            return Err(Error::new(
                ErrorKind::ValueError,
                format!(
                    "binomial only supports floating-point dtypes for {name}, got: {}",
                    t.dtype().scalar_type_name()
                ),
            ));
        }
    }
    let dt = count.dtype();
    floating_only("binomial_cpu", dt)?;
    same_dtype(dt, prob)?;
    let (shape, v) = broadcast_values(&[count, prob])?;
    let rng = or_default(opts.into().generator);
    let mut s = rng.lock();
    let mut vals = crate::error::try_vec::<f64>(v[0].len())?;
    for (&c, &p) in v[0].iter().zip(&v[1]) {
        vals.push(if dt == DType::Float32 {
            sample_binomial(&mut s, c as f32, p as f32) as f64
        } else {
            sample_binomial(&mut s, c, p)
        });
    }
    drop(s);
    Tensor::from_vec(vals, &shape[..])?.to(dt)
}

#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    //! Values printed by torch 2.15 for the same seeds and inputs (Python's shortest repr, so
    //! equality is bit for bit), covering every branch of the samplers and gradients.
    use super::*;
    use crate::random::Generator;

    fn g(seed: u64) -> Generator {
        Generator::new().manual_seed(seed)
    }

    /// `torch.tensor(v).to(dt)`: the values rounded to float32 first, as the Python made them.
    fn t(v: &[f64], dt: DType) -> Tensor {
        let v32: Vec<f32> = v.iter().map(|&x| x as f32).collect();
        Tensor::from_vec(v32, [v.len()]).unwrap().to(dt).unwrap()
    }

    fn vals(x: &Tensor) -> Vec<f64> {
        x.to(DType::Float64).unwrap().to_vec::<f64>()
    }

    #[test]
    fn standard_gamma_is_pytorchs_bit_for_bit() {
        // alpha < 1 (boost), = 1, > 1, large, and 0 (no draw, clamped to tiny); twice over
        let a = [0.01, 0.5, 0.999, 1.0, 2.5, 10.0, 1000.0, 0.0];
        let a: Vec<f64> = a.iter().chain(a.iter()).copied().collect();
        let want32 = [
            0.002865959657356143,
            0.3128827214241028,
            0.09819529950618744,
            0.529666006565094,
            0.7161319255828857,
            14.527050971984863,
            989.37255859375,
            1.1754943508222875e-38,
            1.1754943508222875e-38,
            0.7077929377555847,
            0.8131114840507507,
            1.1910184621810913,
            1.8344122171401978,
            9.640267372131348,
            1022.8953857421875,
            1.1754943508222875e-38,
        ];
        let want64 = [
            0.0028659593017737518,
            0.3128827216734808,
            0.09819530121849036,
            0.529666038751428,
            0.716131865763769,
            14.527050305183502,
            989.3725619690049,
            2.2250738585072014e-308,
            1.82747562651121e-43,
            0.7077929617028166,
            0.8131114769187642,
            1.19101845799129,
            1.834412108026835,
            9.64026680955158,
            1022.8953753501579,
            2.2250738585072014e-308,
        ];
        for (dt, want) in [(DType::Float32, &want32), (DType::Float64, &want64)] {
            let rng = g(42);
            let x = standard_gamma_with(&t(&a, dt), &rng).unwrap();
            assert_eq!(x.dtype(), dt);
            assert_eq!(vals(&x), want.to_vec(), "{dt:?}");
            // the generator's position after: torch.rand(2)
            let after = Tensor::rand_with([2], &rng).unwrap().to_vec::<f32>();
            assert_eq!(after, [0.20180100202560425f32, 0.20178300142288208]);
        }
    }

    #[test]
    fn binomial_is_pytorchs_bit_for_bit() {
        // count 0, inversion (p <= 0.5 and p > 0.5), BTRS (p <= 0.5 and p > 0.5), p = 1
        let c = [0., 3., 10., 50., 100., 1000., 25., 7., 1e6];
        let p = [0.3, 0.5, 0.02, 0.5, 0.97, 0.001, 0.6, 1.0, 0.4];
        for dt in [DType::Float32, DType::Float64] {
            let rng = g(7);
            let x = binomial_with(&t(&c, dt), &t(&p, dt), &rng).unwrap();
            assert_eq!(
                vals(&x),
                [0.0, 1.0, 1.0, 23.0, 98.0, 0.0, 21.0, 7.0, 401109.0],
                "{dt:?}"
            );
            let after = Tensor::rand_with([2], &rng).unwrap().to_vec::<f32>();
            assert_eq!(after, [0.37420207262039185f32, 0.19525814056396484]);
        }
    }

    #[test]
    fn sample_dirichlet_is_pytorchs_bit_for_bit() {
        let a = [0.01, 0.5, 2.0, 30., 40., 0.3];
        let a32 = t(&a, DType::Float32).view([2, 3]).unwrap();
        let x = sample_dirichlet_with(&a32, &g(3)).unwrap();
        assert_eq!(
            vals(&x),
            [
                0.005209534894675016,
                0.10170802474021912,
                0.8930824398994446,
                0.44820353388786316,
                0.5431463718414307,
                0.008650087751448154
            ]
        );
        let a64 = t(&a, DType::Float64).view([2, 3]).unwrap();
        let x = sample_dirichlet_with(&a64, &g(3)).unwrap();
        assert_eq!(
            vals(&x),
            [
                0.005209534847897932,
                0.1017080271678675,
                0.8930824379842346,
                0.4482035438219249,
                0.5431463681289691,
                0.008650088049106107
            ]
        );
    }

    #[test]
    fn gamma_and_dirichlet_grads_are_pytorchs() {
        // series (x < 0.8), rational (alpha <= 8), saddle point inside and outside 10%
        let ga = [0.5, 3.0, 3.0, 20., 20., 20., 5., 1.5];
        let gx = [0.3, 0.5, 2.0, 20.5, 10., 30., 4., 3.];
        let w32 = [
            1.009801983833313,
            0.37617212533950806,
            0.8565640449523926,
            1.0208611488342285,
            0.6988779306411743,
            1.2265979051589966,
            0.9227530360221863,
            1.5474979877471924,
        ];
        let w64 = [
            1.0098020057832882,
            0.376172130854377,
            0.856564023915415,
            1.0208611545299011,
            0.6988779184588811,
            1.2265978621587852,
            0.9227530487303212,
            1.5474979718411446,
        ];
        for (dt, w) in [(DType::Float32, &w32), (DType::Float64, &w64)] {
            let r = standard_gamma_grad(&t(&ga, dt), &t(&gx, dt)).unwrap();
            assert_eq!(vals(&r), w.to_vec(), "{dt:?}");
        }
        // small x, x near 1, both concentrations large (inside and outside 0.1 std), rational
        let dx = [0.1, 0.95, 0.45, 0.30, 0.5, 0.6, 0.2];
        let da = [0.5, 2.0, 10., 10., 2.0, 3.0, 1.0];
        let dtot = [1.5, 2.3, 22., 22., 5., 4.5, 9.];
        let w32 = [
            0.5116856098175049,
            0.5748666524887085,
            0.04667758196592331,
            0.03778190538287163,
            0.2603848874568939,
            0.23954178392887115,
            0.1804349571466446,
        ];
        let w64 = [
            0.5116855813814293,
            0.5748659758044957,
            0.046677583457757396,
            0.03778190695941048,
            0.26038491551328324,
            0.2395417632778803,
            0.1804349086910223,
        ];
        for (dt, w) in [(DType::Float32, &w32), (DType::Float64, &w64)] {
            let r = dirichlet_grad(&t(&dx, dt), &t(&da, dt), &t(&dtot, dt)).unwrap();
            assert_eq!(vals(&r), w.to_vec(), "{dt:?}");
        }
    }

    #[test]
    fn refusals() {
        let i = Tensor::from_vec(vec![1i64, 2], [2]).unwrap();
        assert_eq!(
            standard_gamma(&i).unwrap_err().to_string(),
            "\"gamma_cpu\" not implemented for 'Long'"
        );
        let h = Tensor::from_vec(vec![1f32, 2.], [2])
            .unwrap()
            .to(DType::Float16)
            .unwrap();
        assert_eq!(
            sample_dirichlet(&h).unwrap_err().to_string(),
            "\"dirichlet\" not implemented for 'Half'"
        );
        let f = Tensor::from_vec(vec![1f32, 2.], [2]).unwrap();
        assert_eq!(
            binomial(&i, &f).unwrap_err().to_string(),
            "binomial only supports floating-point dtypes for count, got: Long"
        );
        assert_eq!(
            binomial(&f, &i).unwrap_err().to_string(),
            "binomial only supports floating-point dtypes for prob, got: Long"
        );
        let d = f.to(DType::Float64).unwrap();
        assert_eq!(
            binomial(&f, &d).unwrap_err().to_string(),
            "Found dtype Double but expected Float"
        );
    }
}
