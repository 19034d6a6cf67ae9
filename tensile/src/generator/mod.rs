//! `torch.Generator` on the CPU (`CPUGeneratorImpl`) and the default generator behind
//! `torch.manual_seed`: the stream every random op draws from (core, as PyTorch's
//! `CPUGeneratorImpl` is ATen's core; the random ops are `crate::ops::random`'s, the public
//! paths are `crate::random`'s).

mod engine;

use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::Tensor;
use crate::dtype::DType;
use crate::error::{Error, Result};
use engine::{Mt19937, STATE_BYTES};

/// PyTorch's default seed (`default_rng_seed_val`): the seed of a new `torch.Generator()` and
/// of the default generator before any `manual_seed`.
pub const DEFAULT_SEED: u64 = 67280421310721;

/// Words a bulk uniform fill takes from the engine at a time (a stack buffer).
const BULK: usize = 512;

/// A float uniform in [0, 1) from one word: its low 24 bits times 2⁻²⁴.
#[inline(always)]
fn unit_f32(w: u32) -> f32 {
    (w & ((1 << 24) - 1)) as f32 * (1.0 / (1u32 << 24) as f32)
}

/// A double uniform in [0, 1) from `random64()`: its low 53 bits times 2⁻⁵³.
#[inline(always)]
fn unit_f64(w: u64) -> f64 {
    (w & ((1u64 << 53) - 1)) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// What a generator holds (`CPUGeneratorImpl`): the mt19937 engine and the two cached normal
/// samples (the second Box–Muller value of the last scalar normal draw; only the double one
/// is used by CPU kernels).
pub(crate) struct GenState {
    engine: Mt19937,
    next_double_normal: Option<f64>,
    next_float_normal: Option<f32>,
}

impl GenState {
    fn new(seed: u64) -> GenState {
        GenState {
            engine: Mt19937::new(seed),
            next_double_normal: None,
            next_float_normal: None,
        }
    }

    /// `generator->random()`: the next 32-bit word.
    #[inline]
    pub(crate) fn random(&mut self) -> u32 {
        self.engine.next_u32()
    }

    /// `generator->random64()`: two words, the first one high.
    #[inline]
    pub(crate) fn random64(&mut self) -> u64 {
        let hi = self.random() as u64;
        let lo = self.random() as u64;
        (hi << 32) | lo
    }

    /// `uniform_real_distribution<float>(from, to)`: 24 bits of one word, then
    /// `x * (to - from) + from` in float, fused into one fma as PyTorch's AVX2/AVX512 kernels
    /// compile it.
    #[inline]
    pub(crate) fn uniform_f32(&mut self, from: f32, to: f32) -> f32 {
        let x = unit_f32(self.random());
        if from == 0.0 && to == 1.0 {
            // fma(x, 1, 0) is x: skip libm's `fmaf` call (the baseline target has no FMA)
            return x;
        }
        x.mul_add(to - from, from)
    }

    /// `uniform_real_distribution<double>(from, to)`: 53 bits of two words, fused as the
    /// float one.
    #[inline]
    pub(crate) fn uniform_f64(&mut self, from: f64, to: f64) -> f64 {
        let x = unit_f64(self.random64());
        if from == 0.0 && to == 1.0 {
            // fma(x, 1, 0) is x: skip libm's `fma` call
            return x;
        }
        x.mul_add(to - from, from)
    }

    /// `out.len()` calls of `uniform_f32(0, 1)` at once (the same words, in order): the
    /// words are taken in bulk and converted in a loop the compiler vectorises.
    pub(crate) fn fill_uniform_f32(&mut self, out: &mut [f32]) {
        let mut words = [0u32; BULK];
        for o in out.chunks_mut(BULK) {
            let w = &mut words[..o.len()];
            self.engine.fill(w);
            for (o, &w) in o.iter_mut().zip(w.iter()) {
                *o = unit_f32(w);
            }
        }
    }

    /// `out.len()` calls of `uniform_f64(0, 1)` at once (two words each, the first high),
    /// as [`GenState::fill_uniform_f32`].
    pub(crate) fn fill_uniform_f64(&mut self, out: &mut [f64]) {
        let mut words = [0u32; BULK];
        for o in out.chunks_mut(BULK / 2) {
            let w = &mut words[..2 * o.len()];
            self.engine.fill(w);
            for (o, w) in o.iter_mut().zip(w.chunks_exact(2)) {
                *o = unit_f64((w[0] as u64) << 32 | w[1] as u64);
            }
        }
    }

    /// `normal_distribution<double>(mean, std)`: the cached sample if there is one (and the
    /// cache is emptied), else Box–Muller on two uniform doubles `u1, u2`:
    /// `r = sqrt(-2 log1p(-u2))`, `θ = 2π u1`, caching `r sin θ` and returning `r cos θ`;
    /// then `val * std + mean` (one fma, as compiled in PyTorch's AVX2 kernel).
    pub(crate) fn normal_f64(&mut self, mean: f64, std: f64) -> f64 {
        if let Some(v) = self.next_double_normal.take() {
            return v.mul_add(std, mean);
        }
        let u1 = self.uniform_f64(0.0, 1.0);
        let u2 = self.uniform_f64(0.0, 1.0);
        let r = (-2.0 * (-u2).ln_1p()).sqrt();
        let theta = 2.0 * std::f64::consts::PI * u1;
        self.next_double_normal = Some(r * theta.sin());
        (r * theta.cos()).mul_add(std, mean)
    }
}

/// `torch.Generator()` on the CPU: PyTorch's mt19937 engine and its cached normal samples,
/// behind a lock (PyTorch's `generator->mutex_`): every random op locks it once for all its
/// draws, so concurrent ops on one generator each get a contiguous part of the stream.
///
/// A `Generator` is a handle: `clone()` gives another handle to the same generator (as
/// Python's `g2 = g`). Every random op takes one as its `generator=` option; without one it
/// draws from the default generator ([`default_generator`], reseeded by [`manual_seed`]).
///
/// ```
/// use tensile::{Generator, Tensor};
/// let g = Generator::new().manual_seed(0);
/// let a = Tensor::rand_with([3], &g).unwrap();
/// g.manual_seed(0);
/// assert_eq!(Tensor::rand_with([3], &g).unwrap().to_vec::<f32>(), a.to_vec::<f32>());
/// ```
#[derive(Clone)]
pub struct Generator {
    inner: Arc<Mutex<GenState>>,
}

impl std::fmt::Debug for Generator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Generator")
            .field("initial_seed", &self.initial_seed())
            .finish()
    }
}

impl Default for Generator {
    fn default() -> Self {
        Generator::new()
    }
}

impl PartialEq for Generator {
    /// The same generator (two handles of one `torch.Generator`).
    fn eq(&self, other: &Generator) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Generator {
    /// `torch.Generator()`: a new CPU generator seeded with PyTorch's default seed
    /// 67280421310721 ([`DEFAULT_SEED`]).
    pub fn new() -> Generator {
        Generator {
            inner: Arc::new(Mutex::new(GenState::new(DEFAULT_SEED))),
        }
    }

    /// Locks the generator for a run of draws.
    pub(crate) fn lock(&self) -> MutexGuard<'_, GenState> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `g.manual_seed(seed)`: restarts the engine from `seed` (the engine uses its low 32
    /// bits; [`Generator::initial_seed`] returns all 64) and drops both cached normal
    /// samples. Returns the generator (another handle to it), as PyTorch does, so
    /// `Generator::new().manual_seed(s)` makes a seeded one. A negative Python seed is its
    /// two's complement (`-1` is `u64::MAX`).
    pub fn manual_seed(&self, seed: u64) -> Generator {
        let mut s = self.lock();
        s.engine.init(seed);
        s.next_double_normal = None;
        s.next_float_normal = None;
        drop(s);
        self.clone()
    }

    /// `g.seed()`: reseeds from a non-deterministic 53-bit seed (as PyTorch's
    /// `getNonDeterministicRandom`) and returns it.
    pub fn seed(&self) -> u64 {
        let s = nondeterministic_seed();
        self.manual_seed(s);
        s
    }

    /// `g.initial_seed()`: the seed the generator was last seeded with.
    pub fn initial_seed(&self) -> u64 {
        self.lock().engine.seed
    }

    /// `g.get_state()`: the whole state as a 5056-element uint8 tensor (PyTorch's
    /// `CPUGeneratorImplState` byte for byte: the engine, the seed and both cached normal
    /// samples), for [`Generator::set_state`].
    pub fn get_state(&self) -> Tensor {
        let s = self.lock();
        let b = engine::encode_state(&s.engine, s.next_double_normal, s.next_float_normal);
        drop(s);
        Tensor::from_vec(b, [STATE_BYTES]).expect("a 5056-byte state tensor")
    }

    /// `g.set_state(state)`: restores a state from [`Generator::get_state`] (or from
    /// PyTorch's `get_state()`, same bytes), cached normal samples included. Returns the
    /// generator.
    ///
    /// Errors: TypeError `RNG state must be a torch.ByteTensor` (a dtype other than uint8);
    /// RuntimeError `Expected a CPUGeneratorImplState of size 5056 but found the input RNG
    /// state size to be 10`; RuntimeError `Invalid mt19937 state` (an inconsistent engine).
    pub fn set_state(&self, state: &Tensor) -> Result<Generator> {
        if state.dtype() != DType::UInt8 {
            return Err(Error::type_error("RNG state must be a torch.ByteTensor"));
        }
        if state.numel() != STATE_BYTES {
            return Err(Error::runtime(format!(
                "Expected a CPUGeneratorImplState of size {STATE_BYTES} but found the input RNG state size to be {}",
                state.numel()
            )));
        }
        let bytes = state.to_vec::<u8>();
        let (engine, dn, fnorm) = engine::decode_state(&bytes).map_err(Error::runtime)?;
        let mut s = self.lock();
        s.engine = engine;
        s.next_double_normal = dn;
        s.next_float_normal = fnorm;
        drop(s);
        Ok(self.clone())
    }
}

/// `c10::detail::getNonDeterministicRandom()` on the CPU: a 53-bit seed from the process's
/// random hasher keys (the OS's randomness) mixed with the time.
fn nondeterministic_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.finish() & 0x1F_FFFF_FFFF_FFFF
}

/// `torch.default_generator`: the process-wide generator that every random op without a
/// `generator=` draws from (module constructors, `nn.init` and the dropouts included).
/// Unseeded, it starts from [`DEFAULT_SEED`]. Returns a handle to it.
///
/// On a [`DataLoader`](crate::data::DataLoader) worker thread it is that worker's own
/// generator, seeded `base_seed + worker_id` (as each PyTorch worker process reseeds its
/// default generator).
pub fn default_generator() -> Generator {
    if let Some(g) = THREAD_DEFAULT.with(|d| d.borrow().clone()) {
        return g;
    }
    static DEFAULT: OnceLock<Generator> = OnceLock::new();
    DEFAULT.get_or_init(Generator::new).clone()
}

thread_local! {
    /// A worker thread's own default generator (see [`default_generator`]).
    static THREAD_DEFAULT: std::cell::RefCell<Option<Generator>> =
        const { std::cell::RefCell::new(None) };
}

/// Makes `g` the calling thread's default generator (`None`: the process-wide one again);
/// for the data loader's worker threads.
pub(crate) fn set_thread_default_generator(g: Option<Generator>) {
    THREAD_DEFAULT.with(|d| *d.borrow_mut() = g);
}

/// The generator an op draws from: `generator`, or the default one.
pub(crate) fn or_default(generator: Option<&Generator>) -> Generator {
    generator.cloned().unwrap_or_else(default_generator)
}

/// `torch.manual_seed(seed)`: reseeds the default generator (see [`Generator::manual_seed`])
/// and returns it.
pub fn manual_seed(seed: u64) -> Generator {
    default_generator().manual_seed(seed)
}

/// `torch.seed()`: reseeds the default generator non-deterministically; returns the seed.
pub fn seed() -> u64 {
    default_generator().seed()
}

/// `torch.initial_seed()`: the default generator's seed.
pub fn initial_seed() -> u64 {
    default_generator().initial_seed()
}

/// `torch.get_rng_state()`: the default generator's state (a 5056-element uint8 tensor, see
/// [`Generator::get_state`]).
pub fn get_rng_state() -> Tensor {
    default_generator().get_state()
}

/// `torch.set_rng_state(state)`: restores the default generator's state. Errors as
/// [`Generator::set_state`].
pub fn set_rng_state(state: &Tensor) -> Result<()> {
    default_generator().set_state(state).map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_and_states() {
        let g = Generator::new();
        assert_eq!(g.initial_seed(), DEFAULT_SEED);
        let g = g.manual_seed(1 << 40 | 3);
        assert_eq!(g.initial_seed(), (1 << 40) | 3);
        // only the low 32 bits reach the engine
        let a: Vec<u32> = (0..5).map(|_| g.lock().random()).collect();
        g.manual_seed(3);
        let b: Vec<u32> = (0..5).map(|_| g.lock().random()).collect();
        assert_eq!(a, b);
        // a state restores the engine and the cached normal sample
        let _ = g.lock().normal_f64(0.0, 1.0);
        let st = g.get_state();
        let draw = || {
            let mut s = g.lock();
            (s.normal_f64(0.0, 1.0), s.random())
        };
        let want = draw();
        g.manual_seed(9);
        g.set_state(&st).unwrap();
        assert_eq!(draw(), want);
        let s = g.seed();
        assert!(s < 1 << 53 && g.initial_seed() == s);
    }

    #[test]
    fn set_state_refusals() {
        let g = Generator::new();
        let e = g.set_state(&Tensor::zeros([5056]).unwrap()).unwrap_err();
        assert_eq!(e.message(), "RNG state must be a torch.ByteTensor");
        let e = g
            .set_state(&Tensor::zeros_with([10], DType::UInt8).unwrap())
            .unwrap_err();
        assert_eq!(
            e.message(),
            "Expected a CPUGeneratorImplState of size 5056 but found the input RNG state size to be 10"
        );
        let e = g
            .set_state(&Tensor::zeros_with([5056], DType::UInt8).unwrap())
            .unwrap_err();
        assert_eq!(e.message(), "Invalid mt19937 state");
    }
}
