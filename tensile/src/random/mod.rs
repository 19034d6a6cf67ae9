//! PyTorch's CPU random streams: [`Generator`] (`torch.Generator`, an mt19937 engine with
//! PyTorch's cached normal sample, behind a lock), the default generator behind
//! [`manual_seed`], and every random op of PyTorch's CPU backend, drawing the same numbers
//! as PyTorch 2.15 for the same seed.
//!
//! * [`Generator`], [`default_generator`], [`manual_seed`], [`seed`], [`initial_seed`],
//!   [`get_rng_state`], [`set_rng_state`];
//! * factories: [`Tensor::rand`], [`Tensor::randn`], [`Tensor::randint`],
//!   [`Tensor::randperm`], [`Tensor::normal`], [`Tensor::rand_like`], [`Tensor::randn_like`],
//!   [`Tensor::randint_like`] (each with a `_with` form taking [`RandOpts`]: `generator`,
//!   `dtype`);
//! * samplers: [`Tensor::bernoulli`], [`Tensor::multinomial`], [`normal`] (tensor mean or
//!   std), [`poisson`], [`binomial`], [`standard_gamma`] (differentiable, with
//!   [`standard_gamma_grad`]), [`sample_dirichlet`] (with [`dirichlet_grad`]);
//! * in-place fills: [`Tensor::uniform_`], [`Tensor::normal_`], [`Tensor::random_`],
//!   [`Tensor::exponential_`], [`Tensor::geometric_`], [`Tensor::cauchy_`],
//!   [`Tensor::log_normal_`], [`Tensor::bernoulli_`].
//!
//! `torch.nn.init` (`crate::nn::init`) and the dropouts (`crate::nn::functional::dropout`)
//! draw from these streams too.
//!
//! How each op consumes the stream (PyTorch's `TransformationHelper.h`,
//! `DistributionsHelper.h`, `cpu/DistributionTemplates.h`): a serial kernel draws once per
//! element in TensorIterator order (memory order for a non-contiguous target); a float
//! uniform takes 24 bits of one 32-bit word, a double 53 bits of two (`random64()`, first
//! word high); the transforms that PyTorch's vectorised CPU builds compile into fused
//! multiply-adds are fused here too, and float32 `normal_` of 16 or more contiguous elements
//! reproduces the AVX2 kernel's single-precision `log`/`sincos`.

//!
//! Where the code is: the generator and its mt19937 engine are core (`src/generator/`); the
//! in-place fills and `poisson` are ops of the table (`optable/random.rs`, their forward code
//! in `ops/random.rs` and `ops/random_dist.rs`); this module holds the factories and samplers
//! written with them (`ops.rs`, `samplers.rs`, and `stl.rs`, libstdc++'s selection for
//! `multinomial`).

mod ops;
mod samplers;
mod stl;

pub(crate) use crate::generator::set_thread_default_generator;
pub use crate::generator::{
    DEFAULT_SEED, Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed,
    set_rng_state,
};
pub use crate::optable::random::{
    BernoulliOpts, CauchyOpts, ExponentialOpts, GeneratorOpts, LogNormalOpts, MultinomialOpts,
    NormalOpts, RandOpts, RandomOpts, UniformOpts, poisson, poisson_with,
};
pub use ops::{normal, normal_with};
pub use samplers::{
    binomial, binomial_with, dirichlet_grad, sample_dirichlet, sample_dirichlet_with,
    standard_gamma, standard_gamma_grad, standard_gamma_with,
};
