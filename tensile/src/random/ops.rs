//! The random ops of PyTorch's CPU backend: the factories (`rand`, `randn`, `randint`,
//! `randperm`, `normal`, the `*_like` forms), the samplers (`bernoulli`, `multinomial`,
//! `poisson`, `normal` of tensors) and the in-place fills (`uniform_`, `normal_`, `random_`,
//! `exponential_`, `geometric_`, `cauchy_`, `log_normal_`, `bernoulli_`).
//!
//! Each draws from its `generator=` option or from the default generator, locking it once
//! for all its draws, and consumes the stream exactly as PyTorch 2.15's CPU kernel does, in
//! PyTorch's element order (a serial kernel fills a non-contiguous target in memory order).
//! In-place ops return an alias of `self`; under autograd the previous value gets a zero
//! gradient (as PyTorch's derivatives of the random ops are zero), and a leaf requiring grad
//! is refused as for every in-place op.

use super::dist::{self, Filled};
use super::generator::{Generator, or_default};
use crate::Operand;
use crate::args::{Int, IntoShape, new_sizes};
use crate::dtype::DType;
use crate::dtype::type_meta_name;
use crate::error::fmt_g;
use crate::error::{Error, Result};
use crate::{Scalar, Tensor};

// ------------------------------------------------------------------ options

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

// ------------------------------------------------------------------ checks and names

/// `std::numeric_limits<T>::lowest()` and `max()` as doubles.
fn limits(dtype: DType) -> (f64, f64) {
    match dtype {
        DType::Bool => (0.0, 1.0),
        DType::UInt8 => (0.0, 255.0),
        DType::Int8 => (-128.0, 127.0),
        DType::Int16 => (-32768.0, 32767.0),
        DType::Int32 => (i32::MIN as f64, i32::MAX as f64),
        DType::Int64 => (i64::MIN as f64, i64::MAX as f64),
        DType::Float16 => (-65504.0, 65504.0),
        DType::BFloat16 => (-3.3895313892515355e38, 3.3895313892515355e38),
        DType::Float32 => (f32::MIN as f64, f32::MAX as f64),
        DType::Float64 => (f64::MIN, f64::MAX),
    }
}

/// C++'s `!(a >= b)`: `a < b`, or either is NaN.
fn fails_ge(a: f64, b: f64) -> bool {
    a.partial_cmp(&b)
        .is_none_or(|o| o == std::cmp::Ordering::Less)
}

/// C++'s `!(a > b)`: `a <= b`, or either is NaN.
fn fails_gt(a: f64, b: f64) -> bool {
    a.partial_cmp(&b)
        .is_none_or(|o| o != std::cmp::Ordering::Greater)
}

/// An `AT_DISPATCH` refusal: `"NAME" not implemented for 'Long'`.
fn not_for(name: &str, dtype: DType) -> Error {
    Error::not_implemented(format!(
        "\"{name}\" not implemented for '{}'",
        dtype.scalar_type_name()
    ))
}

/// The random in-place op `name` on `t`: autograd's checks (a leaf requiring grad is
/// refused before anything is drawn), `run`, then a zero-gradient node for the old value.
fn in_place(t: &Tensor, name: &'static str, run: impl FnOnce() -> Result<()>) -> Result<Tensor> {
    crate::autograd::inplace(
        t,
        &[],
        || {
            run()?;
            Ok(t.alias())
        },
        |old| crate::autograd::formulas::pointwise::zero_node(name, old),
    )
}

/// `assert_no_internal_overlap` (TensorIterator's check on its output).
fn no_overlap(t: &Tensor) -> Result<()> {
    crate::iter::check_overlap(t, &[])
}

/// Writes row-major values into `t` without autograd (the caller is inside [`in_place`]).
/// Runs `f` on `t`'s elements as one mutable slice (`t` contiguous, of `T`'s dtype), under
/// its write lock: a serial kernel's one pass, as PyTorch's.
fn with_out<T: crate::element::Element, R>(t: &Tensor, f: impl FnOnce(&mut [T]) -> R) -> R {
    let _locks = crate::iter::lock_operands(&[t], 1);
    crate::kernels::cast::with_slice_mut::<T, R>(t.mem(), f)
}

/// Writes `f(0), f(1), …` straight into a contiguous `t` of dtype `T`.
fn direct<T: crate::element::Element>(
    t: &Tensor,
    mut f: impl FnMut(usize) -> Result<T>,
) -> Result<()> {
    with_out::<T, _>(t, |d| {
        for (i, v) in d.iter_mut().enumerate() {
            *v = f(i)?;
        }
        Ok(())
    })
}

/// A serial kernel of float values (already rounded to `t`'s dtype) into `t`: in one pass
/// when `t` is a contiguous float32 or float64 tensor, else through [`dist::serial`].
fn serial_put_f64(t: &Tensor, mut f: impl FnMut(usize) -> Result<f64>) -> Result<()> {
    if t.is_contiguous() {
        match t.dtype() {
            DType::Float64 => return direct::<f64>(t, f),
            DType::Float32 => return direct::<f32>(t, |i| Ok(f(i)? as f32)),
            _ => {}
        }
    }
    let vals = dist::serial(t, f)?;
    put(t, vals)
}

/// [`serial_put_f64`] for float values of the float kernels (float32 and the half types).
fn serial_put_f32(t: &Tensor, f: impl FnMut(usize) -> Result<f32>) -> Result<()> {
    if t.is_contiguous() && t.dtype() == DType::Float32 {
        return direct::<f32>(t, f);
    }
    let vals = dist::serial(t, f)?;
    put(t, vals)
}

/// [`serial_put_f64`] for int64 draws, cast as `static_cast<scalar_t>(int64_t)` ([`put_i64`]).
fn serial_put_i64(t: &Tensor, mut f: impl FnMut(usize) -> Result<i64>) -> Result<()> {
    if t.is_contiguous() {
        match t.dtype() {
            DType::Int64 => return direct::<i64>(t, f),
            DType::Int32 => return direct::<i32>(t, |i| Ok(f(i)? as i32)),
            DType::Float64 => return direct::<f64>(t, |i| Ok(f(i)? as f64)),
            DType::Float32 => return direct::<f32>(t, |i| Ok(f(i)? as f32)),
            _ => {}
        }
    }
    let vals = dist::serial(t, f)?;
    put_i64(t, vals)
}

/// [`serial_put_f64`] for 0/1 draws.
fn serial_put_bool(t: &Tensor, mut f: impl FnMut(usize) -> Result<bool>) -> Result<()> {
    if t.is_contiguous() {
        match t.dtype() {
            DType::Float32 => return direct::<f32>(t, |i| Ok(f(i)? as u8 as f32)),
            DType::Float64 => return direct::<f64>(t, |i| Ok(f(i)? as u8 as f64)),
            DType::Bool => return direct::<bool>(t, f),
            DType::Int64 => return direct::<i64>(t, |i| Ok(f(i)? as i64)),
            _ => {}
        }
    }
    let vals = dist::serial(t, f)?;
    put(t, vals)
}

fn put<T: crate::element::Element>(t: &Tensor, vals: Vec<T>) -> Result<()> {
    let src = Tensor::from_vec(vals, t.size())?;
    t.copy_raw_(&src)?;
    Ok(())
}

/// A serial kernel of one uniform double per element into a contiguous float32 or float64
/// `t`, a chunk at a time: the chunk's uniforms are drawn in bulk (the same words, in order)
/// and `f(u, y)` maps them to values `y` in double, then rounded to `t`'s dtype.
fn from_uniform_f64(
    t: &Tensor,
    s: &mut super::generator::GenState,
    f: impl Fn(&[f64], &mut [f64]),
) -> Result<()> {
    const CHUNK: usize = 256;
    let (mut u, mut y) = ([0f64; CHUNK], [0f64; CHUNK]);
    if t.dtype() == DType::Float64 {
        return with_out::<f64, _>(t, |d| {
            for d in d.chunks_mut(CHUNK) {
                let u = &mut u[..d.len()];
                s.fill_uniform_f64(u);
                f(u, d);
            }
            Ok(())
        });
    }
    with_out::<f32, _>(t, |d| {
        for d in d.chunks_mut(CHUNK) {
            let (u, y) = (&mut u[..d.len()], &mut y[..d.len()]);
            s.fill_uniform_f64(u);
            f(u, y);
            for (d, &y) in d.iter_mut().zip(y.iter()) {
                *d = y as f32;
            }
        }
        Ok(())
    })
}

// ------------------------------------------------------------------ fill kernels

/// `uniform_impl_` + `uniform_kernel`.
pub(crate) fn uniform_fill(
    t: &Tensor,
    from: f64,
    to: f64,
    generator: Option<&Generator>,
) -> Result<()> {
    let dt = t.dtype();
    if !dt.is_floating_point() {
        return Err(not_for("check_uniform_bounds", dt));
    }
    let (min, max) = limits(dt);
    let tm = type_meta_name(dt);
    if !(from >= min && from <= max) {
        return Err(Error::runtime(format!("from is out of bounds for {tm}")));
    }
    if !(to >= min && to <= max) {
        return Err(Error::runtime(format!("to is out of bounds for {tm}")));
    }
    if fails_ge(to, from) {
        return Err(Error::runtime(format!(
            "uniform_ expects to return a [from, to) range, but found from={} > to={}",
            fmt_g(from),
            fmt_g(to)
        )));
    }
    if fails_ge(max, to - from) {
        return Err(Error::runtime(format!(
            "uniform_ expects to-from <= std::numeric_limits<{}>::max(), but found to={} and from={} which result in to-from to exceed the limit",
            dt.scalar_type_name(),
            fmt_g(to),
            fmt_g(from)
        )));
    }
    if t.numel() == 0 {
        return Ok(());
    }
    no_overlap(t)?;
    let rng = or_default(generator);
    let mut s = rng.lock();
    if t.is_contiguous() && matches!(dt, DType::Float32 | DType::Float64) {
        // the serial kernel's draws and values, a chunk at a time: bulk uniforms in [0, 1),
        // then the affine step (skipped for [0, 1), where it is the identity)
        let unit = from == 0.0 && to == 1.0;
        return match dt {
            DType::Float64 => with_out::<f64, _>(t, |d| {
                for c in d.chunks_mut(4096) {
                    s.fill_uniform_f64(c);
                    if !unit {
                        crate::kernels::uniform::affine_f64(c, from, to);
                    }
                }
                Ok(())
            }),
            _ => with_out::<f32, _>(t, |d| {
                for c in d.chunks_mut(4096) {
                    s.fill_uniform_f32(c);
                    if !unit {
                        crate::kernels::uniform::affine_f32(c, from as f32, to as f32);
                    }
                }
                Ok(())
            }),
        };
    }
    if dt == DType::Float64 {
        serial_put_f64(t, |_| {
            let v = s.uniform_f64(from, to);
            Ok(if v == to { from } else { v })
        })
    } else {
        // opmath float; the value is cast to the dtype, and one that rounds up to `to`
        // becomes `from`
        let (f, tt) = (from as f32, to as f32);
        let (fs, ts) = (dist::f32_as(dt, f), dist::f32_as(dt, tt));
        serial_put_f32(t, |_| {
            let v = dist::f32_as(dt, s.uniform_f32(f, tt));
            Ok(if v == ts { fs } else { v })
        })
    }
}

/// `normal_impl_` + `normal_kernel`: the vectorised fill for 16 or more contiguous elements,
/// else serial `normal_distribution<double>` draws (which use and refill the generator's
/// cached sample).
pub(crate) fn normal_fill(
    t: &Tensor,
    mean: f64,
    std: f64,
    generator: Option<&Generator>,
) -> Result<()> {
    if fails_ge(std, 0.0) {
        return Err(Error::runtime(format!(
            "normal expects std >= 0.0, but found std {}",
            fmt_g(std)
        )));
    }
    let n = t.numel();
    if n == 0 {
        return Ok(());
    }
    let dt = t.dtype();
    if !dt.is_floating_point() {
        return Err(not_for("normal_kernel_cpu", dt));
    }
    let rng = or_default(generator);
    let mut s = rng.lock();
    if n >= 16 && t.is_contiguous() {
        match dt {
            DType::Float32 => {
                return with_out::<f32, _>(t, |d| {
                    dist::normal_fill_f32_into(&mut s, d, mean, std);
                    Ok(())
                });
            }
            DType::Float64 => {
                return with_out::<f64, _>(t, |d| {
                    dist::normal_fill_f64_into(&mut s, d, mean, std);
                    Ok(())
                });
            }
            _ => {}
        }
        let filled = dist::normal_fill_dtype(&mut s, dt, n, mean, std)?;
        drop(s);
        match filled {
            Filled::F64(v) => put(t, v),
            Filled::F32(v) => put(t, v),
        }
    } else {
        no_overlap(t)?;
        serial_put_f64(t, |_| Ok(dist::f64_as(dt, s.normal_f64(mean, std))))
    }
}

/// `update_from<scalar_t>`: `from` moved up to the next value of a float dtype that does not
/// round below it.
fn update_from(dt: DType, from: i64) -> i64 {
    let fp1 = dist::i64_round_trip(dt, from.wrapping_add(1));
    if fp1 < from {
        let f = from.wrapping_add(1).unsigned_abs();
        let n = 63 - f.leading_zeros().min(63) as i64;
        return fp1.wrapping_add(1i64 << (n - dist::digits(dt) as i64 + 1));
    }
    from
}

/// `update_to<scalar_t>`: `to` moved down so that `to - 1` does not round up to `to`.
fn update_to(dt: DType, to: i64) -> i64 {
    let tm1 = dist::i64_round_trip(dt, to.wrapping_sub(1));
    if tm1 >= to {
        let t = to.wrapping_sub(1).unsigned_abs();
        let n = 63 - t.leading_zeros().min(63) as i64;
        return tm1.wrapping_sub(1i64 << (n - dist::digits(dt) as i64 + 1));
    }
    to
}

/// `check_from_to_in_range`, with its precision warning for the float dtypes.
fn check_from_to_in_range(dt: DType, from: i64, to_inc: i64) -> Result<()> {
    let (min, max) = limits(dt);
    let tm = type_meta_name(dt);
    for (v, name) in [(from, "from"), (to_inc, "to - 1")] {
        if !((v as f64) >= min && (v as f64) <= max) {
            return Err(Error::runtime(format!("{name} is out of bounds for {tm}")));
        }
    }
    if dt.is_floating_point() {
        let d = dist::digits(dt);
        for (v, name) in [(from, "from"), (to_inc, "to - 1")] {
            if (v as i128) < -(1i128 << d) || (v as i128) > (1i128 << d) {
                crate::warnings::warn(&format!(
                    "{name} is out of bounds [-(2^{d}), 2^{d}]. Due to precision limitations {tm} can support discrete uniform distribution only within this range. This warning will become an error in version 1.7 release, please fix the code in advance"
                ));
            }
        }
    }
    Ok(())
}

/// Writes int64 draws into `t` as `static_cast<scalar_t>(int64_t)` does (the half types
/// through float).
fn put_i64(t: &Tensor, vals: Vec<i64>) -> Result<()> {
    match t.dtype() {
        DType::Float64 => put(t, vals.into_iter().map(|v| v as f64).collect::<Vec<_>>()),
        DType::Float32 | DType::Float16 | DType::BFloat16 => {
            put(t, vals.into_iter().map(|v| v as f32).collect::<Vec<_>>())
        }
        _ => put(t, vals),
    }
}

/// `random_from_to_impl` + `random_from_to_kernel`: `[from, to)`, or `[from, max]` when `to`
/// is `None` (the whole int64 range when `from` is `i64::MIN`).
pub(crate) fn random_from_to_fill(
    t: &Tensor,
    from: i64,
    to: Option<i64>,
    generator: Option<&Generator>,
) -> Result<()> {
    let dt = t.dtype();
    let float = dt.is_floating_point();
    let (from, range) = if let Some(to) = to {
        if from >= to {
            return Err(Error::runtime(format!(
                "random_ expects 'from' to be less than 'to', but got from={from} >= to={to}"
            )));
        }
        let (mut from, mut to) = (from, to);
        if float {
            from = update_from(dt, from);
            to = update_to(dt, to);
            if from >= to {
                return Err(Error::runtime(format!(
                    "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but got from={from} >= to={to}"
                )));
            }
        }
        check_from_to_in_range(dt, from, to - 1)?;
        (from, (to as u64).wrapping_sub(from as u64))
    } else if from != i64::MIN {
        let mut from = from;
        let to_inc = if float {
            let to_inc = 1i64 << dist::digits(dt);
            from = update_from(dt, from);
            if from >= to_inc {
                return Err(Error::runtime(format!(
                    "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to dtype, but got from={from} > to_inc={to_inc}"
                )));
            }
            to_inc
        } else {
            limits(dt).1 as i64
        };
        check_from_to_in_range(dt, from, to_inc)?;
        (
            from,
            (to_inc as u64).wrapping_sub(from as u64).wrapping_add(1),
        )
    } else {
        // [int64 min, int64 max]: one random64() per element, as int64
        if t.numel() == 0 {
            return Ok(());
        }
        match dt {
            DType::Int64 | DType::Float64 | DType::Float32 | DType::BFloat16 => {}
            DType::Float16 | DType::Bool => {
                return Err(not_for("random_full_64_bits_range_kernel_cpu", dt));
            }
            _ => {
                return Err(Error::runtime(
                    "random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16",
                ));
            }
        }
        no_overlap(t)?;
        let rng = or_default(generator);
        let mut s = rng.lock();
        return serial_put_i64(t, |_| Ok(s.random64() as i64));
    };
    if t.numel() == 0 {
        return Ok(());
    }
    no_overlap(t)?;
    let rng = or_default(generator);
    let mut s = rng.lock();
    let big = range >= 1 << 28;
    if !big {
        // a 32-bit word modulo a range below 2^28: the same value as PyTorch's 64-bit `%`
        let r = range as u32;
        return serial_put_i64(t, |_| {
            Ok(((s.random() % r) as u64).wrapping_add(from as u64) as i64)
        });
    }
    serial_put_i64(t, |_| {
        Ok((s.random64() % range).wrapping_add(from as u64) as i64)
    })
}

/// `random_impl` + `random_kernel` (`random_()` without bounds): `uniform_int_distribution`.
pub(crate) fn random_fill(t: &Tensor, generator: Option<&Generator>) -> Result<()> {
    if t.numel() == 0 {
        return Ok(());
    }
    no_overlap(t)?;
    let dt = t.dtype();
    let rng = or_default(generator);
    let mut s = rng.lock();
    serial_put_i64(t, |_| {
        Ok(match dt {
            DType::Int64 => (s.random64() % (1u64 << 63)) as i64,
            DType::Float64 => (s.random64() % ((1u64 << 53) + 1)) as i64,
            DType::Bool => (s.random() & 1) as i64,
            _ => {
                let m: u64 = match dt {
                    DType::Float32 => (1 << 24) + 1,
                    DType::Float16 => (1 << 11) + 1,
                    DType::BFloat16 => (1 << 8) + 1,
                    _ => limits(dt).1 as u64 + 1,
                };
                (s.random() as u64 % m) as i64
            }
        })
    })
}

/// A serial kernel over one uniform double per element, `f(u)` cast to the dtype.
fn serial_f64(t: &Tensor, generator: Option<&Generator>, f: impl Fn(f64) -> f64) -> Result<()> {
    no_overlap(t)?;
    let dt = t.dtype();
    let rng = or_default(generator);
    let mut s = rng.lock();
    serial_put_f64(t, |_| Ok(dist::f64_as(dt, f(s.uniform_f64(0.0, 1.0)))))
}

/// `exponential_impl_` + `exponential_kernel`.
pub(crate) fn exponential_fill(
    t: &Tensor,
    lambd: f64,
    generator: Option<&Generator>,
) -> Result<()> {
    if fails_gt(lambd, 0.0) {
        return Err(Error::runtime(format!(
            "exponential_ expects lambda > 0.0, but found lambda={}",
            fmt_g(lambd)
        )));
    }
    if t.numel() == 0 {
        return Ok(());
    }
    if !t.dtype().is_floating_point() {
        return Err(Error::runtime(format!(
            "Exponential distribution is a continuous probability distribution. dtype must be a floating point but you specified {}",
            t.dtype().scalar_type_name()
        )));
    }
    let scale = -1.0 / lambd;
    if t.is_contiguous() && matches!(t.dtype(), DType::Float32 | DType::Float64) {
        // the same draws and values as the serial kernel below, a chunk at a time through
        // the vectorised transform
        no_overlap(t)?;
        let rng = or_default(generator);
        let mut s = rng.lock();
        return from_uniform_f64(t, &mut s, |u, y| {
            crate::kernels::log1p::exponential(u, scale, y)
        });
    }
    serial_f64(t, generator, |u| scale * (-u).ln_1p())
}

/// `geometric_impl_` + `geometric_kernel`.
pub(crate) fn geometric_fill(t: &Tensor, p: f64, generator: Option<&Generator>) -> Result<()> {
    if !(0.0 < p && p < 1.0) {
        return Err(Error::runtime(format!(
            "geometric_ expects p to be in (0, 1), but got p={}",
            fmt_g(p)
        )));
    }
    if t.numel() == 0 {
        return Ok(());
    }
    if t.dtype() == DType::Bool {
        return Err(not_for("geometric_cpu", DType::Bool));
    }
    serial_f64(t, generator, |u| (u.ln() / (-p).ln_1p()).ceil())
}

/// `cauchy_impl_` + `cauchy_kernel` (in double: `median + sigma·tan(π(u − ½))`, one fma).
pub(crate) fn cauchy_fill(
    t: &Tensor,
    median: f64,
    sigma: f64,
    generator: Option<&Generator>,
) -> Result<()> {
    if fails_gt(sigma, 0.0) {
        return Err(Error::runtime(format!(
            "cauchy_ expects sigma > 0.0, but found sigma={}",
            fmt_g(sigma)
        )));
    }
    if !t.dtype().is_floating_point() {
        return Err(Error::runtime(format!(
            "Cauchy distribution is a continuous probability distribution. dtype must be a floating point but you specified {}",
            type_meta_name(t.dtype())
        )));
    }
    if t.numel() == 0 {
        return Ok(());
    }
    serial_f64(t, generator, |u| {
        sigma.mul_add((std::f64::consts::PI * (u - 0.5)).tan(), median)
    })
}

/// `log_normal_impl_` + `log_normal_kernel`: `exp` of a `normal_distribution<double>` draw.
pub(crate) fn log_normal_fill(
    t: &Tensor,
    mean: f64,
    std: f64,
    generator: Option<&Generator>,
) -> Result<()> {
    if fails_gt(std, 0.0) {
        return Err(Error::runtime(format!(
            "log_normal_ expects std > 0.0, but found std={}",
            fmt_g(std)
        )));
    }
    if t.numel() == 0 {
        return Ok(());
    }
    let dt = t.dtype();
    if !dt.is_floating_point() {
        return Err(not_for("log_normal_cpu", dt));
    }
    no_overlap(t)?;
    let rng = or_default(generator);
    let mut s = rng.lock();
    serial_put_f64(t, |_| Ok(dist::f64_as(dt, s.normal_f64(mean, std).exp())))
}

/// `bernoulli_impl_(self, double p)`: one uniform double per element, `u < p`.
pub(crate) fn bernoulli_scalar_fill(
    t: &Tensor,
    p: f64,
    generator: Option<&Generator>,
) -> Result<()> {
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::runtime(format!(
            "bernoulli_ expects p to be in [0, 1], but got p={}",
            fmt_g(p)
        )));
    }
    if t.numel() == 0 {
        return Ok(());
    }
    no_overlap(t)?;
    let rng = or_default(generator);
    let mut s = rng.lock();
    if t.is_contiguous() && matches!(t.dtype(), DType::Float32 | DType::Float64) {
        // the serial kernel's draws, a chunk of uniforms at a time
        return from_uniform_f64(t, &mut s, |u, y| {
            for (y, &u) in y.iter_mut().zip(u) {
                *y = (u < p) as u8 as f64;
            }
        });
    }
    serial_put_bool(t, |_| Ok(s.uniform_f64(0.0, 1.0) < p))
}

/// `bernoulli_impl_(self, Tensor p)`: `p` broadcast to `self`; a float64 probability draws a
/// uniform double, any other float type a 24-bit uniform float.
pub(crate) fn bernoulli_tensor_fill(
    t: &Tensor,
    p: &Tensor,
    generator: Option<&Generator>,
) -> Result<()> {
    if t.numel() == 0 {
        return Ok(());
    }
    no_overlap(t)?;
    if !p.dtype().is_floating_point() {
        return Err(not_for("bernoulli_tensor_cpu_p_", p.dtype()));
    }
    let pv = p.expand(t.size())?.try_contiguous()?.try_to_vec::<f64>()?;
    if pv.iter().any(|&x| !(0.0..=1.0).contains(&x)) {
        return Err(Error::runtime(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)",
        ));
    }
    let double = p.dtype() == DType::Float64;
    let rng = or_default(generator);
    let mut s = rng.lock();
    serial_put_bool(t, |i| {
        Ok(if double {
            s.uniform_f64(0.0, 1.0) < pv[i]
        } else {
            s.uniform_f32(0.0, 1.0) < pv[i] as f32
        })
    })
}

// ------------------------------------------------------------------ Tensor methods

impl Tensor {
    /// `torch.rand(size)`: float32 values uniform in [0, 1), drawn from the default
    /// generator; see [`Tensor::rand_with`].
    pub fn rand(size: impl IntoShape) -> Result<Tensor> {
        Tensor::rand_with(size, RandOpts::default())
    }
    /// `torch.rand(size, generator=, dtype=)`: a new contiguous tensor filled by
    /// `uniform_(0, 1)`, PyTorch's values bit for bit: a float32, float16 or bfloat16 element
    /// takes 24 bits of one 32-bit word (`x · 2⁻²⁴`, then rounded to the dtype; a half value
    /// that rounds up to 1 becomes 0), a float64 element 53 bits of two words.
    ///
    /// Errors: RuntimeError `Trying to create tensor with negative dimension -1: [2, -1]`;
    /// the allocator's errors; NotImplementedError `"check_uniform_bounds" not implemented
    /// for 'Long'` for a non-float dtype.
    pub fn rand_with<'a>(size: impl IntoShape, opts: impl Into<RandOpts<'a>>) -> Result<Tensor> {
        let o = opts.into();
        let t = Tensor::empty_for_overwrite(size, o.dtype.unwrap_or(DType::Float32))?;
        t.uniform_with_(UniformOpts {
            generator: o.generator,
            ..Default::default()
        })?;
        Ok(t)
    }
    /// `torch.randn(size)`: float32 standard normal values from the default generator; see
    /// [`Tensor::randn_with`].
    pub fn randn(size: impl IntoShape) -> Result<Tensor> {
        Tensor::randn_with(size, RandOpts::default())
    }
    /// `torch.randn(size, generator=, dtype=)`: a new contiguous tensor filled by
    /// `normal_(0, 1)` (see [`Tensor::normal_with_`] for PyTorch's two algorithms).
    ///
    /// Errors: as [`Tensor::rand_with`]; NotImplementedError `"normal_kernel_cpu" not
    /// implemented for 'Long'` for a non-float dtype with at least one element.
    pub fn randn_with<'a>(size: impl IntoShape, opts: impl Into<RandOpts<'a>>) -> Result<Tensor> {
        let o = opts.into();
        let t = Tensor::empty_for_overwrite(size, o.dtype.unwrap_or(DType::Float32))?;
        t.normal_with_(NormalOpts {
            generator: o.generator,
            ..Default::default()
        })?;
        Ok(t)
    }
    /// `torch.randint(low, high, size)`: int64 values uniform in `[low, high)` from the
    /// default generator (`torch.randint(high, size)` is `randint(0, high, size)`); see
    /// [`Tensor::randint_with`].
    pub fn randint(low: impl Int, high: impl Int, size: impl IntoShape) -> Result<Tensor> {
        Tensor::randint_with(low, high, size, RandOpts::default())
    }
    /// `torch.randint(low, high, size, generator=, dtype=)`: a new contiguous tensor filled
    /// by `random_(low, high)` (see [`Tensor::random_with_`]; dtype default int64).
    ///
    /// Errors: as [`Tensor::random_with_`] (`random_ expects 'from' to be less than 'to',
    /// but got from=0 >= to=0`, …) and [`Tensor::empty`].
    pub fn randint_with<'a>(
        low: impl Int,
        high: impl Int,
        size: impl IntoShape,
        opts: impl Into<RandOpts<'a>>,
    ) -> Result<Tensor> {
        let o = opts.into();
        let t = Tensor::empty_for_overwrite(size, o.dtype.unwrap_or(DType::Int64))?;
        t.random_with_(RandomOpts {
            from: Some(low.to_i64()),
            to: Some(high.to_i64()),
            generator: o.generator,
        })?;
        Ok(t)
    }
    /// `torch.randperm(n)`: a random permutation of `0..n` (int64) from the default
    /// generator; see [`Tensor::randperm_with`].
    pub fn randperm(n: impl Int) -> Result<Tensor> {
        Tensor::randperm_with(n, RandOpts::default())
    }
    /// `torch.randperm(n, generator=, dtype=)`: shape `(n,)`, dtype default int64. For `n`
    /// below 2³²/20, PyTorch's Fisher–Yates: `0..n`, then for each `i < n - 1` element `i`
    /// swapped with element `i + random() % (n - i)` (`n - 1` words); above it the
    /// inside-out shuffle with `random64() % (i + 1)`.
    ///
    /// Errors: RuntimeError `Trying to create tensor with negative dimension -1: [-1]`;
    /// `value cannot be converted to type uint8_t without overflow` (`n - 1` not in the
    /// dtype); `n cannot be greater than 2049 for Half type.` (likewise `2^24+1 for Float
    /// type.`, `2^53+1 for Double type.`); NotImplementedError `"randperm" not implemented
    /// for 'Bool'`.
    pub fn randperm_with<'a>(n: impl Int, opts: impl Into<RandOpts<'a>>) -> Result<Tensor> {
        let o = opts.into();
        let n = n.to_i64();
        let dt = o.dtype.unwrap_or(DType::Int64);
        new_sizes(n)?;
        crate::dtype::check_fill_range(dt, Scalar::Int(if n > 0 { n - 1 } else { n }))?;
        let limit = match dt {
            DType::Float16 => Some(((1i64 << 11) + 1, "2049 for Half")),
            DType::Float32 => Some(((1i64 << 24) + 1, "2^24+1 for Float")),
            DType::Float64 => Some(((1i64 << 53) + 1, "2^53+1 for Double")),
            _ => None,
        };
        if let Some((max, what)) = limit
            && n > max
        {
            return Err(Error::runtime(format!(
                "n cannot be greater than {what} type."
            )));
        }
        if dt == DType::Bool {
            return Err(not_for("randperm", dt));
        }
        let n = n as usize;
        let mut r = crate::error::try_vec::<i64>(n)?;
        let rng = or_default(o.generator);
        let mut s = rng.lock();
        if (n as u64) < u32::MAX as u64 / 20 {
            r.extend(0..n as i64);
            for i in 0..n.saturating_sub(1) {
                let z = s.random() as usize % (n - i);
                r.swap(i, i + z);
            }
        } else {
            r.resize(n, 0);
            for i in 0..n {
                let z = (s.random64() % (i as u64 + 1)) as usize;
                r[i] = r[z];
                r[z] = i as i64;
            }
        }
        drop(s);
        Tensor::from_vec(r, [n])?.to(dt)
    }
    /// `torch.rand_like(x)`: [`Tensor::rand_with`] of `x`'s size and dtype, with `x`'s
    /// strides when it is dense (`empty_like`), so a permuted `x` gets its values in memory
    /// order.
    pub fn rand_like(x: &Tensor) -> Result<Tensor> {
        Tensor::rand_like_with(x, RandOpts::default())
    }
    /// `torch.rand_like(x, generator=, dtype=)`. Errors as [`Tensor::rand_with`].
    pub fn rand_like_with<'a>(x: &Tensor, opts: impl Into<RandOpts<'a>>) -> Result<Tensor> {
        let o = opts.into();
        let t = Tensor::empty_like_with(x, o.dtype.unwrap_or(x.dtype()))?;
        uniform_fill(&t, 0.0, 1.0, o.generator)?;
        Ok(t)
    }
    /// `torch.randn_like(x)`: [`Tensor::randn_with`] with `x`'s layout (`empty_like`): a
    /// non-contiguous one is drawn element by element in memory order.
    pub fn randn_like(x: &Tensor) -> Result<Tensor> {
        Tensor::randn_like_with(x, RandOpts::default())
    }
    /// `torch.randn_like(x, generator=, dtype=)`. Errors as [`Tensor::randn_with`].
    pub fn randn_like_with<'a>(x: &Tensor, opts: impl Into<RandOpts<'a>>) -> Result<Tensor> {
        let o = opts.into();
        let t = Tensor::empty_like_with(x, o.dtype.unwrap_or(x.dtype()))?;
        normal_fill(&t, 0.0, 1.0, o.generator)?;
        Ok(t)
    }
    /// `torch.randint_like(x, low, high)` (`randint_like(x, high)` is `low = 0`): values in
    /// `[low, high)` with `x`'s size, dtype and layout.
    pub fn randint_like(x: &Tensor, low: impl Int, high: impl Int) -> Result<Tensor> {
        Tensor::randint_like_with(x, low, high, RandOpts::default())
    }
    /// `torch.randint_like(x, low, high, generator=, dtype=)`. Errors as
    /// [`Tensor::random_with_`].
    pub fn randint_like_with<'a>(
        x: &Tensor,
        low: impl Int,
        high: impl Int,
        opts: impl Into<RandOpts<'a>>,
    ) -> Result<Tensor> {
        let o = opts.into();
        let t = Tensor::empty_like_with(x, o.dtype.unwrap_or(x.dtype()))?;
        random_from_to_fill(&t, low.to_i64(), Some(high.to_i64()), o.generator)?;
        Ok(t)
    }
    /// `torch.normal(mean, std, size)`: a new float32 tensor filled by `normal_(mean, std)`
    /// (for tensor means or stds see [`crate::normal`]); see [`Tensor::normal_with`].
    pub fn normal(mean: f64, std: f64, size: impl IntoShape) -> Result<Tensor> {
        Tensor::normal_with(mean, std, size, RandOpts::default())
    }
    /// `torch.normal(mean, std, size, generator=, dtype=)`.
    ///
    /// Errors: as [`Tensor::empty`]; `normal expects std >= 0.0, but found std -1`;
    /// NotImplementedError `"normal_kernel_cpu" not implemented for 'Long'`.
    pub fn normal_with<'a>(
        mean: f64,
        std: f64,
        size: impl IntoShape,
        opts: impl Into<RandOpts<'a>>,
    ) -> Result<Tensor> {
        let o = opts.into();
        let t = Tensor::empty_for_overwrite(size, o.dtype.unwrap_or(DType::Float32))?;
        normal_fill(&t, mean, std, o.generator)?;
        Ok(t)
    }

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
        in_place(self, "UniformBackward0", || {
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
        in_place(self, "NormalBackward0", || {
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
        in_place(self, "RandomBackward0", || match (o.from, o.to) {
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
        in_place(self, "ExponentialBackward0", || {
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
        in_place(self, "GeometricBackward0", || {
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
        in_place(self, "CauchyBackward0", || {
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
        in_place(self, "LogNormalBackward0", || {
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
        in_place(self, "BernoulliBackward0", || match o.p {
            None => bernoulli_scalar_fill(self, 0.5, o.generator),
            Some(Operand::Scalar(p)) => bernoulli_scalar_fill(self, p.to_f64(), o.generator),
            Some(Operand::Tensor(p)) => bernoulli_tensor_fill(self, p, o.generator),
        })
    }
    /// `torch.bernoulli(self)`: 0/1 draws with the probabilities in `self`; see
    /// [`Tensor::bernoulli_with`].
    pub fn bernoulli(&self) -> Result<Tensor> {
        self.bernoulli_with(BernoulliOpts::default())
    }
    /// `torch.bernoulli(self, generator=)` / `torch.bernoulli(self, p, generator=)`: a new
    /// contiguous tensor of `self`'s shape and dtype, filled by `bernoulli_(self)` (tensor
    /// probabilities, row-major) or by `bernoulli_(p)` for a number `p`.
    ///
    /// Errors: as [`Tensor::bernoulli_with_`]; TypeError for a tensor `p` (PyTorch's
    /// `bernoulli` takes a number).
    pub fn bernoulli_with<'a>(&self, opts: impl Into<BernoulliOpts<'a>>) -> Result<Tensor> {
        let o = opts.into();
        let out = Tensor::empty_with(self.size(), self.dtype())?;
        let _ng = crate::autograd::no_grad();
        match o.p {
            None => bernoulli_tensor_fill(&out, self, o.generator)?,
            Some(Operand::Scalar(p)) => bernoulli_scalar_fill(&out, p.to_f64(), o.generator)?,
            Some(Operand::Tensor(_)) => {
                return Err(Error::type_error(
                    "bernoulli() received an invalid combination of arguments: p must be a float (a tensor p is bernoulli_'s)",
                ));
            }
        }
        Ok(out)
    }
    /// `torch.multinomial(self, num_samples)` (without replacement) from the default
    /// generator; see [`Tensor::multinomial_with`].
    pub fn multinomial(&self, num_samples: impl Int) -> Result<Tensor> {
        self.multinomial_with(num_samples, MultinomialOpts::default())
    }
    /// `torch.multinomial(self, num_samples, replacement, generator=)`: int64 category
    /// indices, shape `(num_samples,)` for a 1-D `self` of weights, `(rows, num_samples)` for
    /// 2-D. PyTorch's algorithms: without replacement, or for one sample, `q =
    /// empty_like(self).exponential_(1)` (one uniform double per weight, in memory order) and
    /// the indices of the largest `self / q` (`argmax`, or `topk`); with replacement, per row
    /// the normalised cumulative sums (in float for float32) and, per sample, a uniform
    /// double located by binary search.
    ///
    /// Errors (RuntimeError): `prob_dist must be 1 or 2 dim`; `multinomial only supports
    /// floating-point dtypes for input, got: Long`; `cannot sample n_sample <= 0 samples`;
    /// `cannot sample n_sample > prob_dist.size(-1) samples without replacement`;
    /// `probability tensor contains either `inf`, `nan` or element < 0`; `invalid
    /// multinomial distribution (sum of probabilities <= 0)`; with replacement `invalid
    /// multinomial distribution (encountering probability entry < 0)` / `(encountering
    /// probability entry = infinity or NaN)`.
    pub fn multinomial_with<'a>(
        &self,
        num_samples: impl Int,
        opts: impl Into<MultinomialOpts<'a>>,
    ) -> Result<Tensor> {
        multinomial(self, num_samples.to_i64(), opts.into())
    }
}

fn multinomial(p: &Tensor, n: i64, o: MultinomialOpts) -> Result<Tensor> {
    let _ng = crate::autograd::no_grad();
    if p.dim() == 0 || p.dim() > 2 {
        return Err(Error::runtime("prob_dist must be 1 or 2 dim"));
    }
    if !p.dtype().is_floating_point() {
        return Err(Error::runtime(format!(
            "multinomial only supports floating-point dtypes for input, got: {}",
            p.dtype().scalar_type_name()
        )));
    }
    if n <= 0 {
        return Err(Error::runtime("cannot sample n_sample <= 0 samples"));
    }
    let k = p.size()[p.dim() - 1];
    if !o.replacement && n as u64 > k as u64 {
        return Err(Error::runtime(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement",
        ));
    }
    if k > 1 << 24 {
        return Err(Error::runtime("number of categories cannot exceed 2^24"));
    }
    let rows = if p.dim() == 2 { p.size()[0] } else { 1 };
    let n = n as usize;
    let shape: Vec<usize> = if p.dim() == 2 { vec![rows, n] } else { vec![n] };
    let result = Tensor::empty_with(&shape[..], DType::Int64)?;
    if result.numel() == 0 {
        return Ok(result);
    }
    if !o.replacement || n == 1 {
        // PyTorch's checks, as reductions in the input's dtype: `max < inf & min >= 0`
        // (a NaN fails), then no row summing to 0
        let bad_sum = k == 0 || {
            let _g = crate::autograd::no_grad();
            let valid = p.max()?.lt(f64::INFINITY)?.logical_and(&p.min()?.ge(0)?)?;
            if !valid.item::<bool>()? {
                return Err(Error::runtime(
                    "probability tensor contains either `inf`, `nan` or element < 0",
                ));
            }
            p.sum_dim(-1, false)?.eq(0)?.any()?.item::<bool>()?
        };
        if bad_sum {
            return Err(Error::runtime(
                "invalid multinomial distribution (sum of probabilities <= 0)",
            ));
        }
        let q = Tensor::empty_like(p)?;
        exponential_fill(&q, 1.0, o.generator)?;
        let q = p.div(&q)?;
        if n == 1 {
            return q.argmax_dim(-1, true);
        }
        // topk's indices, ties resolved as PyTorch's libstdc++ selection resolves them
        let qv = q.try_contiguous()?.try_to_vec::<f64>()?;
        let mut idx = crate::error::try_vec::<i64>(result.numel())?;
        for row in qv.chunks(k) {
            idx.extend(super::stl::topk_indices(row, n));
        }
        return Tensor::from_vec(idx, &shape[..]);
    }
    // with replacement: per row, cumulative sums in the accumulation type
    let pv = p.try_contiguous()?.try_to_vec::<f64>()?;
    let double = p.dtype() == DType::Float64;
    let rng = or_default(o.generator);
    let mut s = rng.lock();
    let mut out = crate::error::try_vec::<i64>(result.numel())?;
    let mut cum = vec![0f64; k];
    for r in 0..rows {
        let row = &pv[r * k..(r + 1) * k];
        let mut sum64 = 0f64;
        let mut sum32 = 0f32;
        for (j, &v) in row.iter().enumerate() {
            if fails_ge(v, 0.0) {
                return Err(Error::runtime(
                    "invalid multinomial distribution (encountering probability entry < 0)",
                ));
            }
            if !v.is_finite() {
                return Err(Error::runtime(
                    "invalid multinomial distribution (encountering probability entry = infinity or NaN)",
                ));
            }
            if double {
                sum64 += v;
                cum[j] = sum64;
            } else {
                sum32 += v as f32;
                cum[j] = sum32 as f64;
            }
        }
        let sum = if double { sum64 } else { sum32 as f64 };
        if fails_gt(sum, 0.0) {
            return Err(Error::runtime(
                "invalid multinomial distribution (sum of probabilities <= 0)",
            ));
        }
        for c in cum.iter_mut() {
            *c = if double {
                *c / sum
            } else {
                (*c as f32 / sum as f32) as f64
            };
        }
        cum[k - 1] = 1.0;
        for _ in 0..n {
            let u = s.uniform_f64(0.0, 1.0);
            let (mut left, mut right) = (0usize, k);
            while right > left {
                let mid = left + (right - left) / 2;
                if cum[mid] < u {
                    left = mid + 1;
                } else {
                    right = mid;
                }
            }
            out.push(left as i64);
        }
    }
    drop(s);
    Tensor::from_vec(out, &shape[..])
}

// ------------------------------------------------------------------ free functions

/// `torch.normal(mean, std)` with a tensor mean, a tensor std, or both (the other a number);
/// see [`normal_with`]. For two numbers and a size see [`Tensor::normal`].
pub fn normal<'a, 'b>(mean: impl Into<Operand<'a>>, std: impl Into<Operand<'b>>) -> Result<Tensor> {
    normal_with(mean, std, GeneratorOpts::default())
}

/// `torch.normal(mean, std, generator=)`, PyTorch's `normal_out_impl`:
///
/// * tensor mean, number std: a contiguous tensor of mean's shape and dtype filled by
///   `normal_(0, std)`, then `+ mean`;
/// * number mean, tensor std: std's shape and dtype, `normal_(0, 1)`, `· std`, `+ mean`;
/// * both tensors: their broadcast shape, mean's dtype, `normal_(0, 1)`, `· std`, `+ mean`.
///
/// The draws are [`Tensor::normal_with_`]'s (vectorised from 16 elements). The result does
/// not require grad (PyTorch's gradient of `normal` is zero).
///
/// Errors: RuntimeError `normal expects std >= 0.0, but found std -1`; `normal expects all
/// elements of std >= 0.0`; the broadcast error; NotImplementedError `"normal_kernel_cpu" not
/// implemented for 'Long'`; TypeError for two numbers.
pub fn normal_with<'a, 'b, 'g>(
    mean: impl Into<Operand<'a>>,
    std: impl Into<Operand<'b>>,
    opts: impl Into<GeneratorOpts<'g>>,
) -> Result<Tensor> {
    let generator = opts.into().generator;
    let _ng = crate::autograd::no_grad();
    let check_std = |s: &Tensor| -> Result<()> {
        if s.numel() > 0 && !s.min()?.ge(0)?.item::<bool>()? {
            return Err(Error::runtime("normal expects all elements of std >= 0.0"));
        }
        Ok(())
    };
    match (mean.into(), std.into()) {
        (Operand::Tensor(m), Operand::Scalar(s)) => {
            let s = s.to_f64();
            if fails_ge(s, 0.0) {
                return Err(Error::runtime(format!(
                    "normal expects std >= 0.0, but found std {}",
                    fmt_g(s)
                )));
            }
            let out = Tensor::empty_with(m.size(), m.dtype())?;
            normal_fill(&out, 0.0, s, generator)?;
            out.add_(m)?;
            Ok(out)
        }
        (Operand::Scalar(m), Operand::Tensor(s)) => {
            check_std(s)?;
            let out = Tensor::empty_with(s.size(), s.dtype())?;
            normal_fill(&out, 0.0, 1.0, generator)?;
            out.mul_(s)?;
            out.add_(&Tensor::full_with((), m, out.dtype())?)?;
            Ok(out)
        }
        (Operand::Tensor(m), Operand::Tensor(s)) => {
            check_std(s)?;
            let shape = crate::broadcast::infer_size(m.size(), s.size())?;
            let out = Tensor::empty_with(&shape[..], m.dtype())?;
            normal_fill(&out, 0.0, 1.0, generator)?;
            out.mul_(s)?;
            out.add_(m)?;
            Ok(out)
        }
        (Operand::Scalar(_), Operand::Scalar(_)) => Err(Error::type_error(
            "normal() received an invalid combination of arguments: two numbers need a size (Tensor::normal(mean, std, size))",
        )),
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
    let dt = rates.dtype();
    let out = Tensor::empty_with(rates.size(), dt)?;
    if !dt.is_floating_point() {
        return Err(not_for("poisson_cpu", dt));
    }
    let rv = rates.try_contiguous()?.try_to_vec::<f64>()?;
    let rng = or_default(opts.into().generator);
    let mut s = rng.lock();
    let mut vals = crate::error::try_vec::<f64>(rv.len())?;
    for &lambda in &rv {
        if fails_ge(lambda, 0.0) {
            return Err(Error::runtime(
                "invalid Poisson rate, expected rate to be non-negative",
            ));
        }
        vals.push(dist::f64_as(dt, dist::sample_poisson(&mut s, lambda)));
    }
    drop(s);
    put(&out, vals)?;
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::excessive_precision)] // the values as Python prints them
mod tests {
    //! Values printed by torch 2.15 (CPU, AVX512 machine) for the same seeds.
    use super::*;

    fn g(seed: u64) -> Generator {
        Generator::new().manual_seed(seed)
    }

    #[test]
    fn randn_is_pytorchs_bit_for_bit() {
        // torch.manual_seed(0); torch.randn(37): the vectorised float path, its last block
        // redrawn (the AVX2 kernel's log/sincos)
        let v = Tensor::randn_with([37], &g(0)).unwrap().to_vec::<f32>();
        let tail: Vec<u32> = v[31..].iter().map(|x| x.to_bits()).collect();
        assert_eq!(
            tail,
            [
                0xbfcb189e, 0x3f9a033c, 0x3dad2087, 0xbf999e2b, 0xbb9cd1ae, 0xbf04a08d
            ]
        );
        let v = Tensor::randn_with([20], (&g(0), DType::Float64))
            .unwrap()
            .to_vec::<f64>();
        let tail: Vec<u64> = v[17..].iter().map(|x| x.to_bits()).collect();
        assert_eq!(
            tail,
            [0x3ff0bff5e8d733a2, 0x3fc3bff1c51bd9a4, 0xbfe7ff1c81c48b11]
        );
        // the scalar path caches its second value across calls and dtypes
        let rng = g(3);
        let a = Tensor::randn_with([1], &rng)
            .unwrap()
            .item::<f32>()
            .unwrap();
        let b = Tensor::randn_with([1], (&rng, DType::Float64)).unwrap();
        assert_eq!(a, 0.8032760620117188);
        assert_eq!(b.item::<f64>().unwrap(), 0.17483339327910358);
    }

    #[test]
    fn integer_draws() {
        assert_eq!(
            Tensor::randperm_with(10, &g(5)).unwrap().to_vec::<i64>(),
            [1, 4, 9, 6, 3, 5, 0, 2, 8, 7]
        );
        // a range of 2^28 or more takes random64()
        assert_eq!(
            Tensor::randint_with(-5, 1i64 << 40, [4], &g(5))
                .unwrap()
                .to_vec::<i64>(),
            [425420136978, 1029994667309, 989387375290, 622604916187]
        );
        let e = Tensor::randperm_with(300, DType::UInt8).unwrap_err();
        assert_eq!(
            e.message(),
            "value cannot be converted to type uint8_t without overflow"
        );
        let e = Tensor::randint(3, 3, [2]).unwrap_err();
        assert_eq!(
            e.message(),
            "random_ expects 'from' to be less than 'to', but got from=3 >= to=3"
        );
    }

    #[test]
    fn uniform_fills_in_memory_order() {
        // x = torch.zeros(2, 3).t(); x.uniform_(): the (3, 2) view is filled in storage order
        let x = Tensor::zeros([2, 3]).unwrap().t().unwrap();
        x.uniform_with_(&g(5)).unwrap();
        assert_eq!(
            x.contiguous().to_vec::<f32>(),
            [
                0.8302518725395203,
                0.8199270367622375,
                0.12611091136932373,
                0.9201034307479858,
                0.9074696898460388,
                0.1166452169418335
            ]
        );
        let h = Tensor::rand_with([6], (&g(7), DType::Float16)).unwrap();
        assert_eq!(
            h.to_vec::<f64>(),
            [
                0.53515625,
                0.1988525390625,
                0.6591796875,
                0.65673828125,
                0.2327880859375,
                0.425048828125
            ]
        );
        assert_eq!(
            Tensor::rand_with([3], &g(11)).unwrap().to_vec::<f32>(),
            [0.14904171228408813, 0.4865531325340271, 0.985661506652832]
        );
    }

    #[test]
    fn samplers() {
        let rng = g(1);
        let b = Tensor::full([8], 0.5)
            .unwrap()
            .bernoulli_with(&rng)
            .unwrap();
        assert_eq!(b.to_vec::<f32>(), [0., 1., 1., 0., 1., 0., 1., 0.]);
        let p = Tensor::from_vec(vec![1f32, 2., 3., 4.], [4]).unwrap();
        assert_eq!(
            p.multinomial_with(4, &rng).unwrap().to_vec::<i64>(),
            [1, 2, 3, 0]
        );
        assert_eq!(
            p.multinomial_with(6, (true, &rng)).unwrap().to_vec::<i64>(),
            [2, 2, 2, 2, 3, 2]
        );
        let r = Tensor::from_vec(vec![0.5f32, 3.0, 12.0, 100.0, 0.0], [5]).unwrap();
        assert_eq!(
            poisson_with(&r, &g(2)).unwrap().to_vec::<f32>(),
            [1., 4., 9., 99., 0.]
        );
    }

    #[test]
    fn continuous_fills() {
        let close = |a: Vec<f32>, b: [f32; 5]| {
            a.iter()
                .zip(b)
                .all(|(x, y)| (x - y).abs() <= 1e-6 * y.abs().max(1.0))
        };
        let rng = g(2);
        let x = Tensor::empty([5]).unwrap();
        x.exponential_with_((2.0, &rng)).unwrap();
        assert!(close(
            x.to_vec(),
            [
                1.247846245765686,
                0.05096941813826561,
                0.6167886853218079,
                0.38854870200157166,
                1.2224071025848389
            ]
        ));
        x.geometric_with_(0.3, &rng).unwrap();
        assert_eq!(x.to_vec::<f32>(), [2.0, 6.0, 4.0, 2.0, 3.0]);
        x.cauchy_with_(&rng).unwrap();
        assert!(close(
            x.to_vec(),
            [
                -3.791186809539795,
                0.647925853729248,
                0.3949185609817505,
                1.4516091346740723,
                0.8975985050201416
            ]
        ));
        x.log_normal_with_(&rng).unwrap();
        assert!(close(
            x.to_vec(),
            [
                0.11288326233625412,
                94.25719451904297,
                8.167899131774902,
                65.62828063964844,
                32.82628631591797
            ]
        ));
    }

    #[test]
    fn argument_errors_come_before_any_draw() {
        let rng = g(9);
        let x = Tensor::zeros([3]).unwrap();
        let e = x.normal_with_((0.0, -1.0, &rng)).unwrap_err();
        assert_eq!(e.message(), "normal expects std >= 0.0, but found std -1");
        let e = x.uniform_with_((3.0, 2.0, &rng)).unwrap_err();
        assert_eq!(
            e.message(),
            "uniform_ expects to return a [from, to) range, but found from=3 > to=2"
        );
        let e = x.bernoulli_with_((1.1, &rng)).unwrap_err();
        assert_eq!(
            e.message(),
            "bernoulli_ expects p to be in [0, 1], but got p=1.1"
        );
        let e = Tensor::zeros_with([3], DType::Int32)
            .unwrap()
            .cauchy_()
            .unwrap_err();
        assert_eq!(
            e.message(),
            "Cauchy distribution is a continuous probability distribution. dtype must be a floating point but you specified int"
        );
        // nothing was drawn
        assert_eq!(
            Tensor::rand_with([3], &rng).unwrap().to_vec::<f32>(),
            Tensor::rand_with([3], &g(9)).unwrap().to_vec::<f32>()
        );
        // a leaf requiring grad is refused before drawing too
        let w = Tensor::zeros([2]).unwrap();
        w.requires_grad_(true).unwrap();
        assert!(w.uniform_with_(&rng).is_err());
        assert_eq!(
            Tensor::rand_with([3], &rng).unwrap().to_vec::<f32>(),
            Tensor::rand_with([6], &g(9)).unwrap().to_vec::<f32>()[3..]
        );
    }

    #[test]
    fn one_lock_per_op_keeps_each_ops_draws_together() {
        // 4 threads drawing 1000 values each from one generator: every result is one of the
        // four consecutive 1000-word runs of a single-threaded draw of 4000
        let rng = g(21);
        let want = Tensor::rand_with([4000], &g(21)).unwrap().to_vec::<f32>();
        let got: Vec<Vec<f32>> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4)
                .map(|_| s.spawn(|| Tensor::rand_with([1000], &rng).unwrap().to_vec::<f32>()))
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut runs: Vec<usize> = got
            .iter()
            .map(|v| {
                want.chunks(1000)
                    .position(|c| c == &v[..])
                    .expect("a contiguous run of the stream")
            })
            .collect();
        runs.sort();
        assert_eq!(runs, [0, 1, 2, 3]);
    }
}
