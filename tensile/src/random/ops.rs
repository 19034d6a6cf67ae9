//! The random factories (`rand`, `randn`, `randint`, `randperm`, `normal` of numbers and a
//! size, the `*_like` forms) and samplers (`bernoulli`, `multinomial`, `normal` of tensors) of
//! PyTorch's CPU backend, written with the public in-place fills (`uniform_`, `normal_`,
//! `random_`, `exponential_`, `bernoulli_`: `optable/random.rs`) and the generator's draws.
//!
//! Each draws from its `generator=` option or from the default generator, and consumes the
//! stream exactly as PyTorch 2.15's CPU kernel does, in PyTorch's element order (a serial
//! kernel fills a non-contiguous target in memory order).

use crate::Operand;
use crate::args::{Int, IntoShape, new_sizes};
use crate::dtype::DType;
use crate::error::fmt_g;
use crate::error::{Error, Result};
use crate::generator::or_default;
use crate::random::{
    BernoulliOpts, ExponentialOpts, GeneratorOpts, MultinomialOpts, NormalOpts, RandOpts,
    RandomOpts, UniformOpts,
};
use crate::{Scalar, Tensor};

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
            return Err(Error::not_implemented_for("randperm", dt));
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
        t.uniform_with_(UniformOpts {
            generator: o.generator,
            ..Default::default()
        })?;
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
        t.normal_with_(NormalOpts {
            generator: o.generator,
            ..Default::default()
        })?;
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
        t.random_with_(RandomOpts {
            from: Some(low.to_i64()),
            to: Some(high.to_i64()),
            generator: o.generator,
        })?;
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
        t.normal_with_(NormalOpts {
            mean,
            std,
            generator: o.generator,
        })?;
        Ok(t)
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
        let p = match o.p {
            None => Operand::Tensor(self),
            Some(Operand::Scalar(p)) => Operand::Scalar(p),
            Some(Operand::Tensor(_)) => {
                return Err(Error::type_error(
                    "bernoulli() received an invalid combination of arguments: p must be a float (a tensor p is bernoulli_'s)",
                ));
            }
        };
        out.bernoulli_with_(BernoulliOpts {
            p: Some(p),
            generator: o.generator,
        })?;
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
        q.exponential_with_(ExponentialOpts {
            lambd: 1.0,
            generator: o.generator,
        })?;
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
            if v.is_nan() || v < 0.0 {
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
        if sum.is_nan() || sum <= 0.0 {
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
            if s.is_nan() || s < 0.0 {
                return Err(Error::runtime(format!(
                    "normal expects std >= 0.0, but found std {}",
                    fmt_g(s)
                )));
            }
            let out = Tensor::empty_with(m.size(), m.dtype())?;
            out.normal_with_(NormalOpts {
                mean: 0.0,
                std: s,
                generator,
            })?;
            out.add_(m)?;
            Ok(out)
        }
        (Operand::Scalar(m), Operand::Tensor(s)) => {
            check_std(s)?;
            let out = Tensor::empty_with(s.size(), s.dtype())?;
            out.normal_with_(NormalOpts {
                generator,
                ..Default::default()
            })?;
            out.mul_(s)?;
            out.add_(&Tensor::full_with((), m, out.dtype())?)?;
            Ok(out)
        }
        (Operand::Tensor(m), Operand::Tensor(s)) => {
            check_std(s)?;
            let shape = crate::broadcast::infer_size(m.size(), s.size())?;
            let out = Tensor::empty_with(&shape[..], m.dtype())?;
            out.normal_with_(NormalOpts {
                generator,
                ..Default::default()
            })?;
            out.mul_(s)?;
            out.add_(m)?;
            Ok(out)
        }
        (Operand::Scalar(_), Operand::Scalar(_)) => Err(Error::type_error(
            "normal() received an invalid combination of arguments: two numbers need a size (Tensor::normal(mean, std, size))",
        )),
    }
}

#[cfg(test)]
#[allow(clippy::excessive_precision)] // the values as Python prints them
mod tests {
    //! Values printed by torch 2.15 (CPU, AVX512 machine) for the same seeds.
    use super::*;
    use crate::random::{Generator, poisson_with};

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
