//! The random fills as ops of the table: `uniform_`, `normal_`, `random_`, `exponential_`,
//! `geometric_`, `cauchy_`, `log_normal_`, `bernoulli_` (in place) and `poisson`, with their
//! options and recording. The forward code is [`crate::ops::random`]'s. Each in-place fill
//! returns an alias of `self` and records a node whose gradient for the previous value is zero
//! (PyTorch's derivatives of the random ops are zero: `UniformBackward0`, …); a leaf requiring
//! grad is refused before anything is drawn, as for every in-place op. The factories and
//! samplers written with these methods (`rand`, `randn`, `randint`, `randperm`, `bernoulli`,
//! `multinomial`, `normal` of tensors) are `crate::random`'s.

use crate::Operand;
use crate::autograd::formulas::pointwise::zero_node;
use crate::dtype::DType;
use crate::error::Result;
use crate::generator::Generator;
use crate::ops::random::{
    bernoulli_scalar_fill, bernoulli_tensor_fill, cauchy_fill, exponential_fill, geometric_fill,
    log_normal_fill, normal_fill, poisson as poisson_fwd, random_fill, random_from_to_fill,
    uniform_fill,
};
use crate::{Scalar, Tensor};

op_ids! {
    /// A random op of the table (see [`crate::OpId`]).
    pub enum RandomId {
        /// [`Tensor::uniform_with_`]
        Uniform = "uniform_" ["uniform_", "uniform_with_"],
        /// [`Tensor::normal_with_`]
        Normal = "normal_" ["normal_", "normal_with_"],
        /// [`Tensor::random_with_`]
        Random = "random_" ["random_", "random_with_"],
        /// [`Tensor::exponential_with_`]
        Exponential = "exponential_" ["exponential_", "exponential_with_"],
        /// [`Tensor::geometric_with_`]
        Geometric = "geometric_" ["geometric_", "geometric_with_"],
        /// [`Tensor::cauchy_with_`]
        Cauchy = "cauchy_" ["cauchy_", "cauchy_with_"],
        /// [`Tensor::log_normal_with_`]
        LogNormal = "log_normal_" ["log_normal_", "log_normal_with_"],
        /// [`Tensor::bernoulli_with_`]
        Bernoulli = "bernoulli_" ["bernoulli_", "bernoulli_with_"],
        /// [`poisson_with`]
        Poisson = "poisson" ["poisson", "poisson_with"],
    }
}

impl RandomId {
    /// The node an in-place fill records (PyTorch's `grad_fn` name; its gradient is zero).
    fn node_name(self) -> &'static str {
        match self {
            RandomId::Uniform => "UniformBackward0",
            RandomId::Normal => "NormalBackward0",
            RandomId::Random => "RandomBackward0",
            RandomId::Exponential => "ExponentialBackward0",
            RandomId::Geometric => "GeometricBackward0",
            RandomId::Cauchy => "CauchyBackward0",
            RandomId::LogNormal => "LogNormalBackward0",
            RandomId::Bernoulli => "BernoulliBackward0",
            RandomId::Poisson => "PoissonBackward0",
        }
    }
}

/// The optional arguments of the random factories (`torch.rand`, `randn`, `randint`,
/// `randperm`, `normal(mean, std, size)` and the `*_like` forms): `generator=` and `dtype=`.
/// A [`Generator`] reference, a [`DType`] or the pair `(&g, dtype)` converts into it.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandOpts<'a> {
    /// `generator=`: the generator to draw from (`None`: the default generator).
    pub generator: Option<&'a Generator>,
    /// `dtype=`: `None` is the factory's default (float32; int64 for `randint`/`randperm`;
    /// the input's dtype for the `*_like` forms).
    pub dtype: Option<DType>,
}
impl From<DType> for RandOpts<'_> {
    fn from(dtype: DType) -> Self {
        RandOpts {
            generator: None,
            dtype: Some(dtype),
        }
    }
}
impl<'a> From<&'a Generator> for RandOpts<'a> {
    fn from(g: &'a Generator) -> Self {
        RandOpts {
            generator: Some(g),
            dtype: None,
        }
    }
}
impl<'a> From<(&'a Generator, DType)> for RandOpts<'a> {
    fn from((g, dtype): (&'a Generator, DType)) -> Self {
        RandOpts {
            generator: Some(g),
            dtype: Some(dtype),
        }
    }
}

/// The lone optional argument `generator=` (of `geometric_`, `poisson`, `normal(mean_t,
/// std_t)`): a [`Generator`] reference converts into it.
#[derive(Clone, Copy, Debug, Default)]
pub struct GeneratorOpts<'a> {
    /// The generator to draw from (`None`: the default generator).
    pub generator: Option<&'a Generator>,
}
impl<'a> From<&'a Generator> for GeneratorOpts<'a> {
    fn from(g: &'a Generator) -> Self {
        GeneratorOpts { generator: Some(g) }
    }
}

/// Implements `From<&Generator>` (the generator alone) and `From<(a, b, &Generator)>`-style
/// tuples for an options struct with a `generator` field and `Default`.
macro_rules! with_generator {
    ($t:ident) => {
        impl<'a> From<&'a Generator> for $t<'a> {
            fn from(g: &'a Generator) -> Self {
                $t {
                    generator: Some(g),
                    ..Default::default()
                }
            }
        }
    };
}

/// `uniform_`'s optional arguments (`from=0, to=1, generator=None`): the pair `(from, to)`,
/// the triple `(from, to, &g)`, or a generator.
#[derive(Clone, Copy, Debug)]
pub struct UniformOpts<'a> {
    /// The lower bound (inclusive; default 0).
    pub from: f64,
    /// The upper bound (exclusive; default 1).
    pub to: f64,
    /// `generator=`.
    pub generator: Option<&'a Generator>,
}
impl Default for UniformOpts<'_> {
    fn default() -> Self {
        UniformOpts {
            from: 0.0,
            to: 1.0,
            generator: None,
        }
    }
}
impl From<(f64, f64)> for UniformOpts<'_> {
    fn from((from, to): (f64, f64)) -> Self {
        UniformOpts {
            from,
            to,
            generator: None,
        }
    }
}
impl<'a> From<(f64, f64, &'a Generator)> for UniformOpts<'a> {
    fn from((from, to, g): (f64, f64, &'a Generator)) -> Self {
        UniformOpts {
            from,
            to,
            generator: Some(g),
        }
    }
}
with_generator!(UniformOpts);

/// `normal_`'s optional arguments (`mean=0, std=1, generator=None`): `(mean, std)`,
/// `(mean, std, &g)`, or a generator.
#[derive(Clone, Copy, Debug)]
pub struct NormalOpts<'a> {
    /// The mean (default 0).
    pub mean: f64,
    /// The standard deviation (default 1).
    pub std: f64,
    /// `generator=`.
    pub generator: Option<&'a Generator>,
}
impl Default for NormalOpts<'_> {
    fn default() -> Self {
        NormalOpts {
            mean: 0.0,
            std: 1.0,
            generator: None,
        }
    }
}
impl From<(f64, f64)> for NormalOpts<'_> {
    fn from((mean, std): (f64, f64)) -> Self {
        NormalOpts {
            mean,
            std,
            generator: None,
        }
    }
}
impl<'a> From<(f64, f64, &'a Generator)> for NormalOpts<'a> {
    fn from((mean, std, g): (f64, f64, &'a Generator)) -> Self {
        NormalOpts {
            mean,
            std,
            generator: Some(g),
        }
    }
}
with_generator!(NormalOpts);

/// `random_`'s optional arguments: PyTorch's three forms `random_()` (both `None`),
/// `random_(to)` (an integer converts into `to`) and `random_(from, to)` (a pair), plus
/// `random_(from, None)` (`from` alone: up to the dtype's largest value).
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomOpts<'a> {
    /// The lower bound (inclusive); `None` with `to` set means 0.
    pub from: Option<i64>,
    /// The upper bound (exclusive); `None` means the dtype's largest value (inclusive).
    pub to: Option<i64>,
    /// `generator=`.
    pub generator: Option<&'a Generator>,
}
impl From<i64> for RandomOpts<'_> {
    fn from(to: i64) -> Self {
        RandomOpts {
            from: None,
            to: Some(to),
            generator: None,
        }
    }
}
impl From<(i64, i64)> for RandomOpts<'_> {
    fn from((from, to): (i64, i64)) -> Self {
        RandomOpts {
            from: Some(from),
            to: Some(to),
            generator: None,
        }
    }
}
impl<'a> From<(i64, i64, &'a Generator)> for RandomOpts<'a> {
    fn from((from, to, g): (i64, i64, &'a Generator)) -> Self {
        RandomOpts {
            from: Some(from),
            to: Some(to),
            generator: Some(g),
        }
    }
}
with_generator!(RandomOpts);

/// `exponential_`'s optional arguments (`lambd=1, generator=None`): a number is `lambd`.
#[derive(Clone, Copy, Debug)]
pub struct ExponentialOpts<'a> {
    /// The rate λ (default 1).
    pub lambd: f64,
    /// `generator=`.
    pub generator: Option<&'a Generator>,
}
impl Default for ExponentialOpts<'_> {
    fn default() -> Self {
        ExponentialOpts {
            lambd: 1.0,
            generator: None,
        }
    }
}
impl From<f64> for ExponentialOpts<'_> {
    fn from(lambd: f64) -> Self {
        ExponentialOpts {
            lambd,
            generator: None,
        }
    }
}
impl<'a> From<(f64, &'a Generator)> for ExponentialOpts<'a> {
    fn from((lambd, g): (f64, &'a Generator)) -> Self {
        ExponentialOpts {
            lambd,
            generator: Some(g),
        }
    }
}
with_generator!(ExponentialOpts);

/// `cauchy_`'s optional arguments (`median=0, sigma=1, generator=None`): `(median, sigma)`,
/// `(median, sigma, &g)`, or a generator.
#[derive(Clone, Copy, Debug)]
pub struct CauchyOpts<'a> {
    /// The location (default 0).
    pub median: f64,
    /// The scale (default 1).
    pub sigma: f64,
    /// `generator=`.
    pub generator: Option<&'a Generator>,
}
impl Default for CauchyOpts<'_> {
    fn default() -> Self {
        CauchyOpts {
            median: 0.0,
            sigma: 1.0,
            generator: None,
        }
    }
}
impl From<(f64, f64)> for CauchyOpts<'_> {
    fn from((median, sigma): (f64, f64)) -> Self {
        CauchyOpts {
            median,
            sigma,
            generator: None,
        }
    }
}
impl<'a> From<(f64, f64, &'a Generator)> for CauchyOpts<'a> {
    fn from((median, sigma, g): (f64, f64, &'a Generator)) -> Self {
        CauchyOpts {
            median,
            sigma,
            generator: Some(g),
        }
    }
}
with_generator!(CauchyOpts);

/// `log_normal_`'s optional arguments (`mean=1, std=2, generator=None`): `(mean, std)`,
/// `(mean, std, &g)`, or a generator.
#[derive(Clone, Copy, Debug)]
pub struct LogNormalOpts<'a> {
    /// The mean of the underlying normal (default 1).
    pub mean: f64,
    /// The standard deviation of the underlying normal (default 2).
    pub std: f64,
    /// `generator=`.
    pub generator: Option<&'a Generator>,
}
impl Default for LogNormalOpts<'_> {
    fn default() -> Self {
        LogNormalOpts {
            mean: 1.0,
            std: 2.0,
            generator: None,
        }
    }
}
impl From<(f64, f64)> for LogNormalOpts<'_> {
    fn from((mean, std): (f64, f64)) -> Self {
        LogNormalOpts {
            mean,
            std,
            generator: None,
        }
    }
}
impl<'a> From<(f64, f64, &'a Generator)> for LogNormalOpts<'a> {
    fn from((mean, std, g): (f64, f64, &'a Generator)) -> Self {
        LogNormalOpts {
            mean,
            std,
            generator: Some(g),
        }
    }
}
with_generator!(LogNormalOpts);

/// The optional arguments of `bernoulli` / `bernoulli_` (`p`, `generator=None`): a number or
/// a tensor converts into `p`, a pair adds the generator. `p: None` is PyTorch's default:
/// the input's own probabilities for `bernoulli`, 0.5 for `bernoulli_`.
#[derive(Clone, Copy, Debug, Default)]
pub struct BernoulliOpts<'a> {
    /// The probability: a number for every element, or (`bernoulli_` only) a tensor of
    /// probabilities broadcast to `self`.
    pub p: Option<Operand<'a>>,
    /// `generator=`.
    pub generator: Option<&'a Generator>,
}
impl From<f64> for BernoulliOpts<'_> {
    fn from(p: f64) -> Self {
        BernoulliOpts {
            p: Some(Operand::Scalar(Scalar::Float(p))),
            generator: None,
        }
    }
}
impl<'a> From<&'a Tensor> for BernoulliOpts<'a> {
    fn from(p: &'a Tensor) -> Self {
        BernoulliOpts {
            p: Some(Operand::Tensor(p)),
            generator: None,
        }
    }
}
impl<'a> From<(f64, &'a Generator)> for BernoulliOpts<'a> {
    fn from((p, g): (f64, &'a Generator)) -> Self {
        BernoulliOpts {
            p: Some(Operand::Scalar(Scalar::Float(p))),
            generator: Some(g),
        }
    }
}
impl<'a> From<(&'a Tensor, &'a Generator)> for BernoulliOpts<'a> {
    fn from((p, g): (&'a Tensor, &'a Generator)) -> Self {
        BernoulliOpts {
            p: Some(Operand::Tensor(p)),
            generator: Some(g),
        }
    }
}
with_generator!(BernoulliOpts);

/// `multinomial`'s optional arguments (`replacement=False, generator=None`): a bool is
/// `replacement`.
#[derive(Clone, Copy, Debug, Default)]
pub struct MultinomialOpts<'a> {
    /// Draw with replacement (default false).
    pub replacement: bool,
    /// `generator=`.
    pub generator: Option<&'a Generator>,
}
impl From<bool> for MultinomialOpts<'_> {
    fn from(replacement: bool) -> Self {
        MultinomialOpts {
            replacement,
            generator: None,
        }
    }
}
impl<'a> From<(bool, &'a Generator)> for MultinomialOpts<'a> {
    fn from((replacement, g): (bool, &'a Generator)) -> Self {
        MultinomialOpts {
            replacement,
            generator: Some(g),
        }
    }
}
with_generator!(MultinomialOpts);

/// The in-place random op `id` on `t`: autograd's checks (a leaf requiring grad is refused
/// before anything is drawn), `run` (the forward fill), then a zero-gradient node for the old
/// value.
fn in_place(t: &Tensor, id: RandomId, run: impl FnOnce() -> Result<()>) -> Result<Tensor> {
    crate::autograd::inplace(
        t,
        &[],
        || {
            run()?;
            Ok(t.alias())
        },
        |old| zero_node(id.node_name(), old),
    )
}

impl Tensor {
    /// `self.uniform_()`: values uniform in [0, 1) from the default generator; see
    /// [`Tensor::uniform_with_`].
    pub fn uniform_(&self) -> Result<Tensor> {
        self.uniform_with_(UniformOpts::default())
    }
    /// `self.uniform_(from, to, generator=)`: every element (in memory order for a
    /// non-contiguous `self`) gets `x·(to − from) + from`, one fma, with `x` 24 bits of one
    /// word in float (float32, float16, bfloat16) or 53 bits of two words (float64), as
    /// PyTorch's AVX2/AVX512 kernel computes it; a value that rounds to `to` in the dtype
    /// becomes `from`.
    ///
    /// Errors: NotImplementedError `"check_uniform_bounds" not implemented for 'Long'`;
    /// RuntimeError `from is out of bounds for float` / `to is out of bounds for c10::Half`;
    /// `uniform_ expects to return a [from, to) range, but found from=3 > to=2`;
    /// `uniform_ expects to-from <= std::numeric_limits<Float>::max(), but found to=… and
    /// from=… which result in to-from to exceed the limit`.
    pub fn uniform_with_<'a>(&self, opts: impl Into<UniformOpts<'a>>) -> Result<Tensor> {
        let o = opts.into();
        in_place(self, RandomId::Uniform, || {
            uniform_fill(self, o.from, o.to, o.generator)
        })
    }
    /// `self.normal_()`: standard normal values from the default generator; see
    /// [`Tensor::normal_with_`].
    pub fn normal_(&self) -> Result<Tensor> {
        self.normal_with_(NormalOpts::default())
    }
    /// `self.normal_(mean, std, generator=)`, PyTorch's two algorithms:
    ///
    /// * 16 or more elements, contiguous: a uniform [0, 1) per element in order (float for
    ///   float32/16/bf16, double for float64), then Box–Muller per block of 16
    ///   (`r = √(−2 ln(1 − d[j]))`, `θ = 2π d[j+8]`, `d[j] = fma(r cos θ, std, mean)`,
    ///   `d[j+8] = fma(r sin θ, std, mean)`); when the size is not a multiple of 16 the last
    ///   16 elements are redrawn and transformed again. Float types use the AVX2 kernel's
    ///   single-precision `log`/`sincos` (bit for bit PyTorch's values on AVX2/AVX512 CPUs).
    /// * otherwise: element by element in memory order, `normal_distribution<double>`: the
    ///   generator's cached sample when it holds one, else Box–Muller on two uniform doubles,
    ///   caching the second value (the cache survives across calls and dtypes and is cleared
    ///   by `manual_seed`).
    ///
    /// Errors: RuntimeError `normal expects std >= 0.0, but found std -1`; then, for a tensor
    /// with elements, NotImplementedError `"normal_kernel_cpu" not implemented for 'Long'`.
    pub fn normal_with_<'a>(&self, opts: impl Into<NormalOpts<'a>>) -> Result<Tensor> {
        let o = opts.into();
        in_place(self, RandomId::Normal, || {
            normal_fill(self, o.mean, o.std, o.generator)
        })
    }
    /// `self.random_()`: integers uniform over the dtype's range from the default generator;
    /// see [`Tensor::random_with_`].
    pub fn random_(&self) -> Result<Tensor> {
        self.random_with_(RandomOpts::default())
    }
    /// `self.random_(from, to, generator=)`, PyTorch's forms:
    ///
    /// * `random_()`: int64 `random64() % 2⁶³`; float64 `random64() % (2⁵³ + 1)`; float32,
    ///   float16, bfloat16 `random() % (2^digits + 1)`; other integers `random() % (max + 1)`;
    ///   bool `random() & 1`.
    /// * `random_(to)` = `random_(0, to)`; `random_(from, to)`: `w % (to − from) + from` with
    ///   `w = random64()` when the range is 2²⁸ or more, else `random()`. On float dtypes
    ///   `from` and `to` first move inward to values the dtype holds (`update_from` /
    ///   `update_to`).
    /// * `from` alone: `[from, max]` (max = 2^digits for floats); `from = i64::MIN`: the
    ///   whole int64 range.
    ///
    /// Errors: RuntimeError `random_ expects 'from' to be less than 'to', but got from=3 >=
    /// to=3`; `random_ expects 'from' casted to dtype to be less than 'to' casted to dtype,
    /// but got from=… >= to=…`; `from is out of bounds for unsigned char` / `to - 1 is out of
    /// bounds for c10::Half`; `random_full_64_bits_range_kernel_cpu handles only int64,
    /// double, float and bfloat16`. Bounds beyond 2^digits of a float dtype warn.
    pub fn random_with_<'a>(&self, opts: impl Into<RandomOpts<'a>>) -> Result<Tensor> {
        let o = opts.into();
        in_place(self, RandomId::Random, || match (o.from, o.to) {
            (None, None) => random_fill(self, o.generator),
            (from, to) => random_from_to_fill(self, from.unwrap_or(0), to, o.generator),
        })
    }
    /// `self.exponential_()` (λ = 1); see [`Tensor::exponential_with_`].
    pub fn exponential_(&self) -> Result<Tensor> {
        self.exponential_with_(ExponentialOpts::default())
    }
    /// `self.exponential_(lambd, generator=)`: `−1/λ · log1p(−u)` in double per element
    /// (memory order), `u` a uniform double, cast to the dtype.
    ///
    /// Errors: RuntimeError `exponential_ expects lambda > 0.0, but found lambda=0`;
    /// `Exponential distribution is a continuous probability distribution. dtype must be a
    /// floating point but you specified Long`.
    pub fn exponential_with_<'a>(&self, opts: impl Into<ExponentialOpts<'a>>) -> Result<Tensor> {
        let o = opts.into();
        in_place(self, RandomId::Exponential, || {
            exponential_fill(self, o.lambd, o.generator)
        })
    }
    /// `self.geometric_(p)` from the default generator; see [`Tensor::geometric_with_`].
    pub fn geometric_(&self, p: f64) -> Result<Tensor> {
        self.geometric_with_(p, GeneratorOpts::default())
    }
    /// `self.geometric_(p, generator=)`: `ceil(ln u / log1p(−p))` in double per element
    /// (memory order), cast to the dtype (integer dtypes too).
    ///
    /// Errors: RuntimeError `geometric_ expects p to be in (0, 1), but got p=0`;
    /// NotImplementedError `"geometric_cpu" not implemented for 'Bool'`.
    pub fn geometric_with_<'a>(
        &self,
        p: f64,
        opts: impl Into<GeneratorOpts<'a>>,
    ) -> Result<Tensor> {
        let o = opts.into();
        in_place(self, RandomId::Geometric, || {
            geometric_fill(self, p, o.generator)
        })
    }
    /// `self.cauchy_()` (median 0, sigma 1); see [`Tensor::cauchy_with_`].
    pub fn cauchy_(&self) -> Result<Tensor> {
        self.cauchy_with_(CauchyOpts::default())
    }
    /// `self.cauchy_(median, sigma, generator=)`: `median + sigma·tan(π(u − ½))` in double
    /// per element (memory order), cast to the dtype.
    ///
    /// Errors: RuntimeError `cauchy_ expects sigma > 0.0, but found sigma=0`; `Cauchy
    /// distribution is a continuous probability distribution. dtype must be a floating point
    /// but you specified long int`.
    pub fn cauchy_with_<'a>(&self, opts: impl Into<CauchyOpts<'a>>) -> Result<Tensor> {
        let o = opts.into();
        in_place(self, RandomId::Cauchy, || {
            cauchy_fill(self, o.median, o.sigma, o.generator)
        })
    }
    /// `self.log_normal_()` (mean 1, std 2); see [`Tensor::log_normal_with_`].
    pub fn log_normal_(&self) -> Result<Tensor> {
        self.log_normal_with_(LogNormalOpts::default())
    }
    /// `self.log_normal_(mean, std, generator=)`: `exp` of a `normal_distribution<double>`
    /// draw per element (memory order; the generator's cached normal sample is used and
    /// refilled), cast to the dtype.
    ///
    /// Errors: RuntimeError `log_normal_ expects std > 0.0, but found std=0`;
    /// NotImplementedError `"log_normal_cpu" not implemented for 'Long'`.
    pub fn log_normal_with_<'a>(&self, opts: impl Into<LogNormalOpts<'a>>) -> Result<Tensor> {
        let o = opts.into();
        in_place(self, RandomId::LogNormal, || {
            log_normal_fill(self, o.mean, o.std, o.generator)
        })
    }
    /// `self.bernoulli_()` (p = 0.5); see [`Tensor::bernoulli_with_`].
    pub fn bernoulli_(&self) -> Result<Tensor> {
        self.bernoulli_with_(BernoulliOpts::default())
    }
    /// `self.bernoulli_(p, generator=)`: 1 with probability `p`, else 0, in any dtype. A
    /// number `p`: one uniform double `u` per element (memory order), `u < p`. A tensor `p`
    /// (broadcast to `self`): per element a uniform double when `p` is float64, else a
    /// 24-bit uniform float, compared with the element's probability.
    ///
    /// Errors: RuntimeError `bernoulli_ expects p to be in [0, 1], but got p=1.1`; a tensor
    /// `p` outside [0, 1]: `Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could
    /// this error message be improved?  If so, please report an enhancement request to
    /// PyTorch.)`; NotImplementedError `"bernoulli_tensor_cpu_p_" not implemented for
    /// 'Long'`; `p`'s broadcast error; the overlap error for an expanded `self`.
    pub fn bernoulli_with_<'a>(&self, opts: impl Into<BernoulliOpts<'a>>) -> Result<Tensor> {
        let o = opts.into();
        in_place(self, RandomId::Bernoulli, || match o.p {
            None => bernoulli_scalar_fill(self, 0.5, o.generator),
            Some(Operand::Scalar(p)) => bernoulli_scalar_fill(self, p.to_f64(), o.generator),
            Some(Operand::Tensor(p)) => bernoulli_tensor_fill(self, p, o.generator),
        })
    }
}

/// `torch.poisson(rates)` from the default generator; see [`poisson_with`].
pub fn poisson(rates: &Tensor) -> Result<Tensor> {
    poisson_with(rates, GeneratorOpts::default())
}

/// `torch.poisson(rates, generator=)`: a new contiguous tensor of `rates`' shape and dtype,
/// each element (row-major) a Poisson sample of its rate, PyTorch's `sample_poisson`: for a
/// rate of 10 or more Hörmann's transformed rejection on pairs of uniform doubles; 0 for a
/// rate of 0 (no draw); else uniform doubles multiplied until the product is at most
/// `exp(−rate)`.
///
/// Errors: NotImplementedError `"poisson_cpu" not implemented for 'Long'`; RuntimeError
/// `invalid Poisson rate, expected rate to be non-negative`.
pub fn poisson_with<'g>(rates: &Tensor, opts: impl Into<GeneratorOpts<'g>>) -> Result<Tensor> {
    poisson_fwd(rates, opts.into().generator)
}
