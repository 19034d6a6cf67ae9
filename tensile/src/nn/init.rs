//! `torch.nn.init` and PyTorch's CPU random generator.
//!
//! [`Generator`] is PyTorch's `CPUGeneratorImpl`: a 32-bit Mersenne Twister (`mt19937`) seeded
//! with the low 32 bits of the seed, plus the cached second Box–Muller sample. `uniform_`
//! reproduces PyTorch's `uniform_` bit for bit for float32 and float64 (float32 takes the low 24
//! bits of one draw, float64 the low 53 bits of two draws, then `fma(x, to - from, from)` as
//! PyTorch's vectorised-build kernel contracts it), so
//! `manual_seed(s)` followed by `Linear::new(64, 128)` gives PyTorch's weights exactly. `normal_`
//! follows PyTorch's two paths (16-element Box–Muller blocks for contiguous tensors of 16 or
//! more elements, the cached scalar Box–Muller otherwise) and consumes the same draws; float32
//! values may differ from PyTorch's in the last bits because PyTorch vectorises `log`, `sin`
//! and `cos` (avx_mathfun) where tensile calls libm.
//!
//! Design: one process-wide default generator behind a mutex, like PyTorch's
//! `torch.default_generator`; [`manual_seed`] reseeds it, and every module constructor draws
//! its initial parameters from it. The `_with_` forms of the init functions take an explicit
//! `&mut Generator` instead (PyTorch's `generator=` argument). Unseeded, the default generator
//! starts from PyTorch's default seed 67280421310721.
//!
//! The init functions modify the tensor in place under `no_grad` (so they work on parameters
//! that require grad) and return an alias of it, as PyTorch's do.

use std::sync::{Mutex, MutexGuard};

use crate::autograd::no_grad;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

const MT_N: usize = 624;
const MT_M: usize = 397;

/// PyTorch's default seed of `torch.default_generator` (`default_rng_seed_val`).
pub const DEFAULT_SEED: u64 = 67280421310721;

/// `torch.Generator()` on the CPU: PyTorch's `mt19937` engine and its cached normal samples.
#[derive(Clone)]
pub struct Generator {
    state: Box<[u32; MT_N]>,
    index: usize,
    seed: u64,
    next_double_normal: Option<f64>,
}

impl std::fmt::Debug for Generator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Generator")
            .field("seed", &self.seed)
            .finish()
    }
}

impl Default for Generator {
    fn default() -> Self {
        Generator::new()
    }
}

impl Generator {
    /// `torch.Generator()`: seeded with PyTorch's default seed 67280421310721.
    pub fn new() -> Generator {
        Generator::with_seed(DEFAULT_SEED)
    }

    /// `torch.Generator().manual_seed(seed)` as a constructor.
    pub fn with_seed(seed: u64) -> Generator {
        let mut g = Generator {
            state: Box::new([0; MT_N]),
            index: MT_N,
            seed,
            next_double_normal: None,
        };
        g.manual_seed(seed);
        g
    }

    /// `g.manual_seed(seed)`: restarts the engine (`mt19937(seed & 0xffffffff)`) and drops the
    /// cached normal sample.
    pub fn manual_seed(&mut self, seed: u64) -> &mut Generator {
        self.seed = seed;
        self.state[0] = (seed & 0xffff_ffff) as u32;
        for i in 1..MT_N {
            let prev = self.state[i - 1];
            self.state[i] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        self.index = MT_N;
        self.next_double_normal = None;
        self
    }

    /// `g.initial_seed()`: the last seed given.
    pub fn initial_seed(&self) -> u64 {
        self.seed
    }

    fn twist(&mut self) {
        const UPPER: u32 = 0x8000_0000;
        const LOWER: u32 = 0x7fff_ffff;
        const MATRIX_A: u32 = 0x9908_b0df;
        for i in 0..MT_N {
            let y = (self.state[i] & UPPER) | (self.state[(i + 1) % MT_N] & LOWER);
            let mut v = self.state[(i + MT_M) % MT_N] ^ (y >> 1);
            if y & 1 != 0 {
                v ^= MATRIX_A;
            }
            self.state[i] = v;
        }
        self.index = 0;
    }

    /// One 32-bit output of the engine (PyTorch's `generator->random()`).
    pub fn random(&mut self) -> u32 {
        if self.index >= MT_N {
            self.twist();
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^= y >> 18;
        y
    }

    /// Two 32-bit outputs as one 64-bit number, the first in the high half (PyTorch's
    /// `generator->random64()`).
    pub fn random64(&mut self) -> u64 {
        let hi = self.random() as u64;
        let lo = self.random() as u64;
        (hi << 32) | lo
    }

    /// PyTorch's `uniform_real_distribution<float>(from, to)`: `x * (to - from) + from` in
    /// float, which PyTorch's AVX2/AVX512 kernel builds contract into one fused multiply-add.
    fn uniform_f32(&mut self, from: f32, to: f32) -> f32 {
        let x = (self.random() & ((1 << 24) - 1)) as f32 * (1.0f32 / (1 << 24) as f32);
        x.mul_add(to - from, from)
    }

    /// PyTorch's `uniform_real_distribution<double>(from, to)` (fused as the float one).
    fn uniform_f64(&mut self, from: f64, to: f64) -> f64 {
        let x = (self.random64() & ((1u64 << 53) - 1)) as f64 * (1.0 / (1u64 << 53) as f64);
        x.mul_add(to - from, from)
    }

    /// PyTorch's `normal_distribution<double>(mean, std)`: Box–Muller with the second sample
    /// cached in the generator.
    fn normal_f64(&mut self, mean: f64, std: f64) -> f64 {
        if let Some(v) = self.next_double_normal.take() {
            return v * std + mean;
        }
        let u1 = self.uniform_f64(0.0, 1.0);
        let u2 = self.uniform_f64(0.0, 1.0);
        let r = (-2.0 * (-u2).ln_1p()).sqrt();
        let theta = 2.0 * std::f64::consts::PI * u1;
        self.next_double_normal = Some(r * theta.sin());
        r * theta.cos() * std + mean
    }
}

static DEFAULT_GENERATOR: Mutex<Option<Generator>> = Mutex::new(None);

/// A guard on the process-wide default generator (`torch.default_generator`); hold it only
/// briefly (module constructors lock it).
pub fn default_generator() -> DefaultGeneratorGuard {
    let mut g = DEFAULT_GENERATOR.lock().unwrap_or_else(|p| p.into_inner());
    if g.is_none() {
        *g = Some(Generator::new());
    }
    DefaultGeneratorGuard(g)
}

/// The locked default generator (derefs to [`Generator`]).
pub struct DefaultGeneratorGuard(MutexGuard<'static, Option<Generator>>);

impl std::ops::Deref for DefaultGeneratorGuard {
    type Target = Generator;
    fn deref(&self) -> &Generator {
        self.0.as_ref().expect("initialised in default_generator")
    }
}
impl std::ops::DerefMut for DefaultGeneratorGuard {
    fn deref_mut(&mut self) -> &mut Generator {
        self.0.as_mut().expect("initialised in default_generator")
    }
}

/// `torch.manual_seed(seed)`: reseeds the default generator, from which module constructors
/// and the init functions without an explicit generator draw.
pub fn manual_seed(seed: u64) {
    default_generator().manual_seed(seed);
}

/// `torch.initial_seed()`: the default generator's seed.
pub fn initial_seed() -> u64 {
    default_generator().initial_seed()
}

// ------------------------------------------------------------------ filling

fn check_float(t: &Tensor, what: &str) -> Result<()> {
    if !t.dtype().is_floating_point() {
        return Err(Error::not_implemented(format!(
            "\"{what}\" not implemented for '{}'",
            t.dtype().scalar_type_name()
        )));
    }
    Ok(())
}

/// Writes `vals` (row-major over `t`'s shape) into `t` under no_grad.
fn write_f64(t: &Tensor, vals: Vec<f64>) -> Result<Tensor> {
    let _g = no_grad();
    let src = Tensor::from_vec(vals, t.size())?.to(t.dtype())?;
    t.copy_(&src)?;
    Ok(t.alias())
}

fn write_f32(t: &Tensor, vals: Vec<f32>) -> Result<Tensor> {
    let _g = no_grad();
    let src = Tensor::from_vec(vals, t.size())?.to(t.dtype())?;
    t.copy_(&src)?;
    Ok(t.alias())
}

fn fill_uniform(t: &Tensor, a: f64, b: f64, g: &mut Generator) -> Result<Tensor> {
    check_float(t, "check_uniform_bounds")?;
    if a > b {
        return Err(Error::runtime(format!(
            "uniform_ expects to return a [from, to) range, but found from={a} > to={b}"
        )));
    }
    let n = t.numel();
    // a value that rounds up to `to` in the tensor's dtype becomes `from` (PyTorch's clamp)
    let fix = |v: f64, from: f64, to: f64| if v == to { from } else { v };
    match t.dtype() {
        DType::Float64 => write_f64(t, (0..n).map(|_| fix(g.uniform_f64(a, b), a, b)).collect()),
        DType::Float32 => {
            let (f, to) = (a as f32, b as f32);
            write_f32(
                t,
                (0..n)
                    .map(|_| {
                        let v = g.uniform_f32(f, to);
                        if v == to { f } else { v }
                    })
                    .collect(),
            )
        }
        dt => {
            // float16 / bfloat16: drawn in float (their opmath type), rounded, clamped
            let round = |v: f32| -> f64 {
                if dt == DType::Float16 {
                    half::f16::from_f32(v).to_f64()
                } else {
                    half::bf16::from_f32(v).to_f64()
                }
            };
            let (fs, ts) = (round(a as f32), round(b as f32));
            write_f64(
                t,
                (0..n)
                    .map(|_| fix(round(g.uniform_f32(a as f32, b as f32)), fs, ts))
                    .collect(),
            )
        }
    }
}

/// PyTorch's `normal_fill_16` on 8 pairs.
fn normal_fill_16<F: NormalFloat>(d: &mut [F], mean: F, std: F) {
    for j in 0..8 {
        let u1 = F::one() - d[j];
        let u2 = d[j + 8];
        let radius = (u1.ln() * F::from_f64(-2.0)).sqrt();
        let theta = F::two_pi() * u2;
        d[j] = (radius * theta.cos()).mul_add(std, mean);
        d[j + 8] = (radius * theta.sin()).mul_add(std, mean);
    }
}

trait NormalFloat:
    Copy + std::ops::Sub<Output = Self> + std::ops::Mul<Output = Self> + Default
{
    fn one() -> Self;
    fn two_pi() -> Self;
    fn from_f64(v: f64) -> Self;
    fn ln(self) -> Self;
    fn sqrt(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn mul_add(self, a: Self, b: Self) -> Self;
}
macro_rules! normal_float {
    ($t:ty) => {
        impl NormalFloat for $t {
            fn one() -> Self {
                1.0
            }
            fn two_pi() -> Self {
                (2.0f32 as f64 * std::f64::consts::PI) as $t
            }
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn sin(self) -> Self {
                <$t>::sin(self)
            }
            fn cos(self) -> Self {
                <$t>::cos(self)
            }
            fn mul_add(self, a: Self, b: Self) -> Self {
                <$t>::mul_add(self, a, b)
            }
        }
    };
}
normal_float!(f32);
normal_float!(f64);

/// PyTorch's `normal_fill`: uniforms for every element, Box–Muller per block of 16, the last
/// 16 redrawn when the size is not a multiple of 16.
fn normal_fill<F: NormalFloat>(
    n: usize,
    mean: f64,
    std: f64,
    mut uniform: impl FnMut() -> F,
) -> Vec<F> {
    let (m, s) = (F::from_f64(mean), F::from_f64(std));
    let mut data: Vec<F> = (0..n).map(|_| uniform()).collect();
    let mut i = 0;
    while i + 16 <= n {
        normal_fill_16(&mut data[i..i + 16], m, s);
        i += 16;
    }
    if !n.is_multiple_of(16) {
        let tail = &mut data[n - 16..];
        for v in tail.iter_mut() {
            *v = uniform();
        }
        normal_fill_16(tail, m, s);
    }
    data
}

fn fill_normal(t: &Tensor, mean: f64, std: f64, g: &mut Generator) -> Result<Tensor> {
    check_float(t, "normal_kernel_cpu")?;
    if std < 0.0 {
        return Err(Error::runtime(format!(
            "normal expects std >= 0.0, but found std {std}"
        )));
    }
    let n = t.numel();
    if n >= 16 && t.is_contiguous() {
        match t.dtype() {
            DType::Float64 => write_f64(t, normal_fill(n, mean, std, || g.uniform_f64(0.0, 1.0))),
            _ => write_f32(t, normal_fill(n, mean, std, || g.uniform_f32(0.0, 1.0))),
        }
    } else {
        write_f64(t, (0..n).map(|_| g.normal_f64(mean, std)).collect())
    }
}

// ------------------------------------------------------------------ fans and gains

/// `nn.init._calculate_fan_in_and_fan_out(tensor)`: `(size(1)·rf, size(0)·rf)` with `rf` the
/// product of the dims after the second.
///
/// Error: ValueError `Fan in and fan out can not be computed for tensor with fewer than 2
/// dimensions`.
pub fn calculate_fan_in_and_fan_out(t: &Tensor) -> Result<(usize, usize)> {
    if t.dim() < 2 {
        return Err(Error::value(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions",
        ));
    }
    let s = t.size();
    let rf: usize = s[2..].iter().product();
    Ok((s[1] * rf, s[0] * rf))
}

/// `nn.init.calculate_gain(nonlinearity, param)`: 1 for `linear`, the convolutions and
/// `sigmoid`; 5/3 for `tanh`; √2 for `relu`; `√(2 / (1 + slope²))` for `leaky_relu` (`param`
/// the slope, default 0.01); 3/4 for `selu`.
///
/// Error: ValueError `Unsupported nonlinearity foo`.
pub fn calculate_gain(nonlinearity: &str, param: Option<f64>) -> Result<f64> {
    match nonlinearity {
        "linear" | "conv1d" | "conv2d" | "conv3d" | "conv_transpose1d" | "conv_transpose2d"
        | "conv_transpose3d" | "sigmoid" => Ok(1.0),
        "tanh" => Ok(5.0 / 3.0),
        "relu" => Ok(2.0f64.sqrt()),
        "leaky_relu" => {
            let slope = param.unwrap_or(0.01);
            Ok((2.0 / (1.0 + slope.powi(2))).sqrt())
        }
        "selu" => Ok(3.0 / 4.0),
        _ => Err(Error::value(format!(
            "Unsupported nonlinearity {nonlinearity}"
        ))),
    }
}

fn correct_fan(t: &Tensor, mode: &str) -> Result<usize> {
    let m = mode.to_lowercase();
    if m != "fan_in" && m != "fan_out" {
        return Err(Error::value(format!(
            "Mode {mode} not supported, please use one of ['fan_in', 'fan_out']"
        )));
    }
    let (fi, fo) = calculate_fan_in_and_fan_out(t)?;
    Ok(if m == "fan_in" { fi } else { fo })
}

/// PyTorch warns `Initializing zero-element tensors is a no-op` and returns.
fn zero_element(t: &Tensor) -> bool {
    if t.numel() == 0 {
        crate::warnings::warn("Initializing zero-element tensors is a no-op");
        true
    } else {
        false
    }
}

// ------------------------------------------------------------------ public init functions

/// `nn.init.uniform_(tensor, a, b)`: fills `tensor` from U(a, b) drawn from the default
/// generator (bit for bit PyTorch's values for float32/float64). Returns an alias of `tensor`.
///
/// Errors: NotImplementedError for integer dtypes; RuntimeError `uniform_ expects to return a
/// [from, to) range, but found from=1 > to=0`.
pub fn uniform_(tensor: &Tensor, a: f64, b: f64) -> Result<Tensor> {
    fill_uniform(tensor, a, b, &mut default_generator())
}

/// `nn.init.uniform_(tensor, a, b, generator=g)`; see [`uniform_`].
pub fn uniform_with_(tensor: &Tensor, a: f64, b: f64, generator: &mut Generator) -> Result<Tensor> {
    fill_uniform(tensor, a, b, generator)
}

/// `nn.init.normal_(tensor, mean, std)`: fills `tensor` from N(mean, std²) drawn from the
/// default generator (PyTorch's draws; float32 values within a few ulp of PyTorch's, see the
/// module docs). Returns an alias of `tensor`.
///
/// Errors: NotImplementedError for integer dtypes; RuntimeError `normal expects std >= 0.0,
/// but found std -1`.
pub fn normal_(tensor: &Tensor, mean: f64, std: f64) -> Result<Tensor> {
    fill_normal(tensor, mean, std, &mut default_generator())
}

/// `nn.init.normal_(tensor, mean, std, generator=g)`; see [`normal_`].
pub fn normal_with_(
    tensor: &Tensor,
    mean: f64,
    std: f64,
    generator: &mut Generator,
) -> Result<Tensor> {
    fill_normal(tensor, mean, std, generator)
}

/// `nn.init.constant_(tensor, val)`: fills with `val` under no_grad; returns an alias.
pub fn constant_(tensor: &Tensor, val: f64) -> Result<Tensor> {
    let _g = no_grad();
    tensor.fill_(val)?;
    Ok(tensor.alias())
}

/// `nn.init.zeros_(tensor)`: fills with 0 under no_grad; returns an alias.
pub fn zeros_(tensor: &Tensor) -> Result<Tensor> {
    let _g = no_grad();
    tensor.zero_()?;
    Ok(tensor.alias())
}

/// `nn.init.ones_(tensor)`: fills with 1 under no_grad; returns an alias.
pub fn ones_(tensor: &Tensor) -> Result<Tensor> {
    constant_(tensor, 1.0)
}

/// The optional arguments of `nn.init.kaiming_uniform_` / `kaiming_normal_` (`a=0,
/// mode='fan_in', nonlinearity='leaky_relu'`). From `a` alone or the tuple `(a, mode,
/// nonlinearity)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KaimingOpts<'a> {
    /// The negative slope of the rectifier after this layer (only for `leaky_relu`).
    pub a: f64,
    /// `"fan_in"` (preserves the forward pass's variance) or `"fan_out"` (the backward's).
    pub mode: &'a str,
    /// An `nn.functional` name, see [`calculate_gain`].
    pub nonlinearity: &'a str,
}
impl Default for KaimingOpts<'_> {
    fn default() -> Self {
        KaimingOpts {
            a: 0.0,
            mode: "fan_in",
            nonlinearity: "leaky_relu",
        }
    }
}
impl From<f64> for KaimingOpts<'_> {
    fn from(a: f64) -> Self {
        KaimingOpts {
            a,
            ..Default::default()
        }
    }
}
impl<'a> From<(f64, &'a str, &'a str)> for KaimingOpts<'a> {
    fn from((a, mode, nonlinearity): (f64, &'a str, &'a str)) -> Self {
        KaimingOpts {
            a,
            mode,
            nonlinearity,
        }
    }
}

fn kaiming_std(t: &Tensor, o: &KaimingOpts) -> Result<f64> {
    let fan = correct_fan(t, o.mode)?;
    let gain = calculate_gain(o.nonlinearity, Some(o.a))?;
    Ok(gain / (fan as f64).sqrt())
}

/// `nn.init.kaiming_uniform_(tensor)`: U(-bound, bound) with `bound = √3 · gain / √fan`
/// (defaults `a=0, mode='fan_in', nonlinearity='leaky_relu'`); see [`kaiming_uniform_with_`].
pub fn kaiming_uniform_(tensor: &Tensor) -> Result<Tensor> {
    kaiming_uniform_with_(tensor, KaimingOpts::default(), None)
}

/// `nn.init.kaiming_uniform_(tensor, a, mode, nonlinearity, generator)`: U(-bound, bound),
/// `bound = √3 · calculate_gain(nonlinearity, a) / √fan` (`fan` the fan in or out of
/// [`calculate_fan_in_and_fan_out`]); `generator` `None` is the default generator. A tensor
/// with no elements is left as it is (with PyTorch's warning).
///
/// Errors: ValueError `Mode fan_x not supported, please use one of ['fan_in', 'fan_out']`,
/// `Fan in and fan out can not be computed for tensor with fewer than 2 dimensions`,
/// `Unsupported nonlinearity foo`.
pub fn kaiming_uniform_with_<'a>(
    tensor: &Tensor,
    opts: impl Into<KaimingOpts<'a>>,
    generator: Option<&mut Generator>,
) -> Result<Tensor> {
    if zero_element(tensor) {
        return Ok(tensor.alias());
    }
    let std = kaiming_std(tensor, &opts.into())?;
    let bound = 3.0f64.sqrt() * std;
    match generator {
        Some(g) => fill_uniform(tensor, -bound, bound, g),
        None => fill_uniform(tensor, -bound, bound, &mut default_generator()),
    }
}

/// `nn.init.kaiming_normal_(tensor)`: N(0, (gain / √fan)²) with the defaults of
/// [`KaimingOpts`]; see [`kaiming_normal_with_`].
pub fn kaiming_normal_(tensor: &Tensor) -> Result<Tensor> {
    kaiming_normal_with_(tensor, KaimingOpts::default(), None)
}

/// `nn.init.kaiming_normal_(tensor, a, mode, nonlinearity, generator)`: N(0, std²) with
/// `std = calculate_gain(nonlinearity, a) / √fan`. Errors as [`kaiming_uniform_with_`].
pub fn kaiming_normal_with_<'a>(
    tensor: &Tensor,
    opts: impl Into<KaimingOpts<'a>>,
    generator: Option<&mut Generator>,
) -> Result<Tensor> {
    if zero_element(tensor) {
        return Ok(tensor.alias());
    }
    let std = kaiming_std(tensor, &opts.into())?;
    match generator {
        Some(g) => fill_normal(tensor, 0.0, std, g),
        None => fill_normal(tensor, 0.0, std, &mut default_generator()),
    }
}

fn xavier_std(t: &Tensor, gain: f64) -> Result<f64> {
    let (fi, fo) = calculate_fan_in_and_fan_out(t)?;
    Ok(gain * (2.0 / (fi + fo) as f64).sqrt())
}

/// `nn.init.xavier_uniform_(tensor)` (`gain=1`); see [`xavier_uniform_with_`].
pub fn xavier_uniform_(tensor: &Tensor) -> Result<Tensor> {
    xavier_uniform_with_(tensor, 1.0, None)
}

/// `nn.init.xavier_uniform_(tensor, gain, generator)`: U(-a, a) with
/// `a = √3 · gain · √(2 / (fan_in + fan_out))`.
///
/// Error: ValueError `Fan in and fan out can not be computed for tensor with fewer than 2
/// dimensions`.
pub fn xavier_uniform_with_(
    tensor: &Tensor,
    gain: f64,
    generator: Option<&mut Generator>,
) -> Result<Tensor> {
    let std = xavier_std(tensor, gain)?;
    let a = 3.0f64.sqrt() * std;
    match generator {
        Some(g) => fill_uniform(tensor, -a, a, g),
        None => fill_uniform(tensor, -a, a, &mut default_generator()),
    }
}

/// `nn.init.xavier_normal_(tensor)` (`gain=1`); see [`xavier_normal_with_`].
pub fn xavier_normal_(tensor: &Tensor) -> Result<Tensor> {
    xavier_normal_with_(tensor, 1.0, None)
}

/// `nn.init.xavier_normal_(tensor, gain, generator)`: N(0, std²) with
/// `std = gain · √(2 / (fan_in + fan_out))`. Errors as [`xavier_uniform_with_`].
pub fn xavier_normal_with_(
    tensor: &Tensor,
    gain: f64,
    generator: Option<&mut Generator>,
) -> Result<Tensor> {
    let std = xavier_std(tensor, gain)?;
    match generator {
        Some(g) => fill_normal(tensor, 0.0, std, g),
        None => fill_normal(tensor, 0.0, std, &mut default_generator()),
    }
}
