//! The random fills of PyTorch's CPU backend, forward code only: `uniform_`, `normal_`,
//! `random_`, `exponential_`, `geometric_`, `cauchy_`, `log_normal_`, `bernoulli_` (a number
//! or a tensor of probabilities) and `poisson`, with PyTorch's checks and messages. Each draws
//! from its generator ([`crate::generator`], the default one for `None`), locking it once for
//! all its draws, in PyTorch's element order (a serial kernel fills a non-contiguous target in
//! memory order), and writes its target without autograd: the methods of
//! `optable/random.rs` record them. How draws become values is [`super::random_dist`]'s.

use super::random_dist::{self as dist, Filled};
use crate::Tensor;
use crate::dtype::{DType, type_meta_name};
use crate::error::{Error, Result, fmt_g};
use crate::generator::{GenState, Generator, or_default};

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

/// `assert_no_internal_overlap` (TensorIterator's check on its output).
fn no_overlap(t: &Tensor) -> Result<()> {
    crate::iter::check_overlap(t, &[])
}

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
fn from_uniform_f64(t: &Tensor, s: &mut GenState, f: impl Fn(&[f64], &mut [f64])) -> Result<()> {
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
        return Err(Error::not_implemented_for("check_uniform_bounds", dt));
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
        return Err(Error::not_implemented_for("normal_kernel_cpu", dt));
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
                return Err(Error::not_implemented_for(
                    "random_full_64_bits_range_kernel_cpu",
                    dt,
                ));
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
        return Err(Error::not_implemented_for("geometric_cpu", DType::Bool));
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
        return Err(Error::not_implemented_for("log_normal_cpu", dt));
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
        return Err(Error::not_implemented_for(
            "bernoulli_tensor_cpu_p_",
            p.dtype(),
        ));
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

/// `torch.poisson(rates, generator=)`'s forward (`_s_poisson_cpu`): a new tensor of `rates`'
/// shape and dtype, one `sample_poisson` per rate, row-major (see `crate::poisson_with`).
///
/// Errors: NotImplementedError `"poisson_cpu" not implemented for 'Long'`; RuntimeError
/// `invalid Poisson rate, expected rate to be non-negative`.
pub(crate) fn poisson(rates: &Tensor, generator: Option<&Generator>) -> Result<Tensor> {
    let dt = rates.dtype();
    let out = Tensor::empty_with(rates.size(), dt)?;
    if !dt.is_floating_point() {
        return Err(Error::not_implemented_for("poisson_cpu", dt));
    }
    let rv = rates.try_contiguous()?.try_to_vec::<f64>()?;
    let rng = or_default(generator);
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
