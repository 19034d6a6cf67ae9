//! Samplers (`torch.utils.data.Sampler` and its subclasses): which sample indices a
//! [`DataLoader`](super::DataLoader) reads, in which order, drawing from the same streams
//! as PyTorch's.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::Tensor;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::random::{Generator, MultinomialOpts, RandOpts, RandomOpts};

/// The indices a sampler yields, lazily (PyTorch's samplers are Python generators: a draw
/// happens when the index that needs it is asked for). An `Err` item ends nothing by itself.
pub type IndexIter<'a, T = usize> = Box<dyn Iterator<Item = Result<T>> + Send + 'a>;

/// `torch.utils.data.Sampler[T]`: an iterable of indices (`T = usize`) or of batches of
/// indices (`T = Vec<usize>`, as [`BatchSampler`]), with a length.
pub trait Sampler<T = usize>: Send + Sync {
    /// `iter(sampler)`: a fresh pass over the indices.
    fn iter(&self) -> IndexIter<'_, T>;
    /// `len(sampler)`: how many items a pass yields.
    fn len(&self) -> usize;
    /// `len() == 0`.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T, S: Sampler<T> + ?Sized> Sampler<T> for Box<S> {
    fn iter(&self) -> IndexIter<'_, T> {
        (**self).iter()
    }
    fn len(&self) -> usize {
        (**self).len()
    }
}

impl<T, S: Sampler<T> + ?Sized> Sampler<T> for Arc<S> {
    fn iter(&self) -> IndexIter<'_, T> {
        (**self).iter()
    }
    fn len(&self) -> usize {
        (**self).len()
    }
}

/// `torch.empty((), dtype=torch.int64).random_(generator=g).item()`: one draw of a 63-bit
/// seed, as PyTorch's samplers and loaders take one.
pub(crate) fn draw_seed(generator: Option<&Generator>) -> Result<u64> {
    let t = Tensor::empty_with([0usize; 0], DType::Int64)?;
    t.random_with_(RandomOpts {
        generator,
        ..Default::default()
    })?;
    Ok(t.item::<i64>()? as u64)
}

fn positive(name: &str, n: usize) -> Result<usize> {
    if n == 0 {
        return Err(Error::value(format!(
            "{name} should be a positive integer value, but got {name}=0"
        )));
    }
    Ok(n)
}

fn to_indices(t: Tensor) -> std::vec::IntoIter<i64> {
    t.to_vec::<i64>().into_iter()
}

/// `torch.utils.data.SequentialSampler(data_source)`: `0, 1, …, len - 1`.
#[derive(Clone, Debug)]
pub struct SequentialSampler {
    n: usize,
}

impl SequentialSampler {
    /// `SequentialSampler(data_source)` for a data source of `len` samples
    /// (`SequentialSampler::new(dataset.len())`).
    pub fn new(len: usize) -> SequentialSampler {
        SequentialSampler { n: len }
    }
}

impl Sampler for SequentialSampler {
    fn iter(&self) -> IndexIter<'_> {
        Box::new((0..self.n).map(Ok))
    }
    fn len(&self) -> usize {
        self.n
    }
}

/// The optional arguments of [`RandomSampler::new_with`]: `replacement=False,
/// num_samples=None, generator=None`. A bool converts into it as `replacement`.
#[derive(Clone, Debug, Default)]
pub struct RandomSamplerOpts {
    /// Draw with replacement (default false).
    pub replacement: bool,
    /// How many indices a pass yields (`None`: the data source's length).
    pub num_samples: Option<usize>,
    /// `generator=` (a handle: the sampler draws from the caller's generator).
    pub generator: Option<Generator>,
}

impl From<bool> for RandomSamplerOpts {
    fn from(replacement: bool) -> Self {
        RandomSamplerOpts {
            replacement,
            ..Default::default()
        }
    }
}

/// `torch.utils.data.RandomSampler(data_source, replacement, num_samples, generator)`.
///
/// Draws as PyTorch's does, when each index is asked for: without a generator a pass first
/// draws a 63-bit seed from the default generator (`torch.empty((), dtype=torch.int64)
/// .random_()`) and seeds a fresh generator with it. Without replacement, a pass yields
/// `num_samples / len` whole `randperm(len)`s, then the first `num_samples % len` of one more
/// (drawn, as PyTorch's, even when that is none of it); with replacement, `num_samples / 32`
/// `randint(0, len, (32,))` draws then one of `num_samples % 32`.
#[derive(Clone, Debug)]
pub struct RandomSampler {
    n: usize,
    replacement: bool,
    num_samples: usize,
    generator: Option<Generator>,
}

impl RandomSampler {
    /// `RandomSampler(data_source)` over `len` samples (`RandomSampler::new(dataset.len())`).
    /// Errors as [`RandomSampler::new_with`].
    pub fn new(len: usize) -> Result<RandomSampler> {
        RandomSampler::new_with(len, RandomSamplerOpts::default())
    }

    /// `RandomSampler(data_source, replacement, num_samples, generator)` over `len` samples.
    ///
    /// Errors: ValueError `num_samples should be a positive integer value, but got
    /// num_samples=0` (also for an empty data source without `num_samples`, as PyTorch).
    pub fn new_with(len: usize, opts: impl Into<RandomSamplerOpts>) -> Result<RandomSampler> {
        let o = opts.into();
        let num_samples = positive("num_samples", o.num_samples.unwrap_or(len))?;
        Ok(RandomSampler {
            n: len,
            replacement: o.replacement,
            num_samples,
            generator: o.generator,
        })
    }

    /// `sampler.num_samples`.
    pub fn num_samples(&self) -> usize {
        self.num_samples
    }
}

/// The state of one pass of a [`RandomSampler`].
struct RandomPass {
    n: usize,
    replacement: bool,
    /// The user's generator, or (after the first draw) the pass's own.
    generator: Option<Generator>,
    started: bool,
    full_left: usize,
    tail: Option<usize>,
    buf: std::vec::IntoIter<i64>,
}

impl RandomPass {
    fn draw(&self, k: usize, whole: bool) -> Result<Tensor> {
        let generator = self.generator.as_ref();
        let opts = RandOpts {
            generator,
            dtype: Some(DType::Int64),
        };
        if self.replacement {
            Tensor::randint_with(0, self.n, [k], opts)
        } else {
            let p = Tensor::randperm_with(self.n, opts)?;
            if whole { Ok(p) } else { p.narrow(0, 0, k) }
        }
    }

    fn step(&mut self) -> Result<bool> {
        if !self.started {
            self.started = true;
            if self.generator.is_none() {
                let seed = draw_seed(None)?;
                self.generator = Some(Generator::new().manual_seed(seed));
            }
        }
        let t = if self.full_left > 0 {
            self.full_left -= 1;
            let k = if self.replacement { 32 } else { self.n };
            self.draw(k, true)?
        } else if let Some(k) = self.tail.take() {
            self.draw(k, false)?
        } else {
            return Ok(false);
        };
        self.buf = to_indices(t);
        Ok(true)
    }
}

impl Iterator for RandomPass {
    type Item = Result<usize>;
    fn next(&mut self) -> Option<Result<usize>> {
        loop {
            if let Some(i) = self.buf.next() {
                return Some(Ok(i as usize));
            }
            match self.step() {
                Ok(true) => {}
                Ok(false) => return None,
                Err(e) => {
                    self.full_left = 0;
                    self.tail = None;
                    return Some(Err(e));
                }
            }
        }
    }
}

impl Sampler for RandomSampler {
    /// A lazy pass. Its first item is an error (and the pass ends) when `len` is 0 without
    /// replacement but `num_samples` is positive: ZeroDivisionError in PyTorch, here
    /// ValueError `integer division or modulo by zero`.
    fn iter(&self) -> IndexIter<'_> {
        if !self.replacement && self.n == 0 {
            return Box::new(std::iter::once(Err(Error::value(
                "integer division or modulo by zero",
            ))));
        }
        let chunk = if self.replacement { 32 } else { self.n };
        Box::new(RandomPass {
            n: self.n,
            replacement: self.replacement,
            generator: self.generator.clone(),
            started: false,
            full_left: self.num_samples / chunk,
            tail: Some(self.num_samples % chunk),
            buf: Vec::new().into_iter(),
        })
    }
    fn len(&self) -> usize {
        self.num_samples
    }
}

/// `torch.utils.data.SubsetRandomSampler(indices, generator)`: the given indices in the order
/// of one `randperm(len(indices))`, drawn when the first index is asked for.
#[derive(Clone, Debug)]
pub struct SubsetRandomSampler {
    indices: Vec<usize>,
    generator: Option<Generator>,
}

impl SubsetRandomSampler {
    /// `SubsetRandomSampler(indices, generator=None)`.
    pub fn new(indices: Vec<usize>, generator: Option<Generator>) -> SubsetRandomSampler {
        SubsetRandomSampler { indices, generator }
    }
}

/// A pass that makes its whole list on the first `next()`.
fn lazy_list<'a>(f: impl FnOnce() -> Result<Vec<usize>> + Send + 'a) -> IndexIter<'a> {
    let mut f = Some(f);
    let mut items: std::vec::IntoIter<usize> = Vec::new().into_iter();
    Box::new(std::iter::from_fn(move || {
        if let Some(f) = f.take() {
            match f() {
                Ok(v) => items = v.into_iter(),
                Err(e) => return Some(Err(e)),
            }
        }
        items.next().map(Ok)
    }))
}

impl Sampler for SubsetRandomSampler {
    fn iter(&self) -> IndexIter<'_> {
        lazy_list(move || {
            let p = Tensor::randperm_with(
                self.indices.len(),
                RandOpts {
                    generator: self.generator.as_ref(),
                    dtype: None,
                },
            )?;
            Ok(p.to_vec::<i64>()
                .into_iter()
                .map(|i| self.indices[i as usize])
                .collect())
        })
    }
    fn len(&self) -> usize {
        self.indices.len()
    }
}

/// `torch.utils.data.WeightedRandomSampler(weights, num_samples, replacement, generator)`:
/// one `torch.multinomial(weights (float64), num_samples, replacement, generator)` per pass,
/// drawn when the first index is asked for.
#[derive(Clone, Debug)]
pub struct WeightedRandomSampler {
    weights: Tensor,
    num_samples: usize,
    replacement: bool,
    generator: Option<Generator>,
}

impl WeightedRandomSampler {
    /// `WeightedRandomSampler(weights, num_samples, replacement=True, generator=None)`.
    ///
    /// Errors: ValueError `num_samples should be a positive integer value, but got
    /// num_samples=0`. Invalid weights (negative, not finite, all zero, fewer than
    /// `num_samples` non-zero without replacement) are multinomial's errors, at the pass.
    pub fn new(
        weights: &[f64],
        num_samples: usize,
        replacement: bool,
        generator: Option<Generator>,
    ) -> Result<WeightedRandomSampler> {
        positive("num_samples", num_samples)?;
        Ok(WeightedRandomSampler {
            weights: Tensor::from_vec(weights.to_vec(), [weights.len()])?,
            num_samples,
            replacement,
            generator,
        })
    }
}

impl Sampler for WeightedRandomSampler {
    fn iter(&self) -> IndexIter<'_> {
        lazy_list(move || {
            let t = self.weights.multinomial_with(
                self.num_samples,
                MultinomialOpts {
                    replacement: self.replacement,
                    generator: self.generator.as_ref(),
                },
            )?;
            Ok(t.to_vec::<i64>().into_iter().map(|i| i as usize).collect())
        })
    }
    fn len(&self) -> usize {
        self.num_samples
    }
}

/// `torch.utils.data.BatchSampler(sampler, batch_size, drop_last)`: the sampler's indices in
/// lists of `batch_size`, the last one shorter unless `drop_last`.
pub struct BatchSampler {
    sampler: Box<dyn Sampler>,
    batch_size: usize,
    drop_last: bool,
}

impl std::fmt::Debug for BatchSampler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchSampler")
            .field("batch_size", &self.batch_size)
            .field("drop_last", &self.drop_last)
            .finish()
    }
}

impl BatchSampler {
    /// `BatchSampler(sampler, batch_size, drop_last)`.
    ///
    /// Errors: ValueError `batch_size should be a positive integer value, but got
    /// batch_size=0`.
    pub fn new(
        sampler: impl Sampler + 'static,
        batch_size: usize,
        drop_last: bool,
    ) -> Result<BatchSampler> {
        positive("batch_size", batch_size)?;
        Ok(BatchSampler {
            sampler: Box::new(sampler),
            batch_size,
            drop_last,
        })
    }

    /// `batch_sampler.batch_size`.
    pub fn batch_size(&self) -> usize {
        self.batch_size
    }

    /// `batch_sampler.drop_last`.
    pub fn drop_last(&self) -> bool {
        self.drop_last
    }
}

impl Sampler<Vec<usize>> for BatchSampler {
    /// Each batch pulls its indices from the sampler one at a time; the pass ends at the
    /// first short batch (dropped with `drop_last`), or at an error (returned as that batch).
    fn iter(&self) -> IndexIter<'_, Vec<usize>> {
        let mut it = self.sampler.iter();
        let (bs, drop_last) = (self.batch_size, self.drop_last);
        let mut done = false;
        Box::new(std::iter::from_fn(move || {
            if done {
                return None;
            }
            let mut batch = Vec::with_capacity(bs);
            while batch.len() < bs {
                match it.next() {
                    Some(Ok(i)) => batch.push(i),
                    Some(Err(e)) => {
                        done = true;
                        return Some(Err(e));
                    }
                    None => {
                        done = true;
                        break;
                    }
                }
            }
            if batch.is_empty() || (drop_last && batch.len() < bs) {
                return None;
            }
            Some(Ok(batch))
        }))
    }
    fn len(&self) -> usize {
        let n = self.sampler.len();
        if self.drop_last {
            n / self.batch_size
        } else {
            n.div_ceil(self.batch_size)
        }
    }
}

/// The optional arguments of [`DistributedSampler::new_with`]: `shuffle=True, seed=0,
/// drop_last=False`. A bool converts into it as `shuffle`.
#[derive(Clone, Copy, Debug)]
pub struct DistributedSamplerOpts {
    /// Shuffle by `randperm(len)` from a generator seeded `seed + epoch` (default true).
    pub shuffle: bool,
    /// The shuffle's seed, the same on every replica (default 0).
    pub seed: u64,
    /// Drop the tail that does not divide evenly (default false: pad by repeating indices).
    pub drop_last: bool,
}

impl Default for DistributedSamplerOpts {
    fn default() -> Self {
        DistributedSamplerOpts {
            shuffle: true,
            seed: 0,
            drop_last: false,
        }
    }
}

impl From<bool> for DistributedSamplerOpts {
    fn from(shuffle: bool) -> Self {
        DistributedSamplerOpts {
            shuffle,
            ..Default::default()
        }
    }
}

/// `torch.utils.data.distributed.DistributedSampler(dataset, num_replicas, rank, shuffle,
/// seed, drop_last)`: replica `rank`'s share of the indices, `indices[rank::num_replicas]`
/// of one permutation that every replica draws alike.
///
/// Clones share the epoch: keep one to call [`DistributedSampler::set_epoch`] on while a
/// [`DataLoader`](super::DataLoader) owns another. `num_replicas` and `rank` are required
/// (tensile has no process group to ask).
#[derive(Clone, Debug)]
pub struct DistributedSampler {
    n: usize,
    num_replicas: usize,
    rank: usize,
    opts: DistributedSamplerOpts,
    num_samples: usize,
    epoch: Arc<AtomicU64>,
}

impl DistributedSampler {
    /// `DistributedSampler(dataset, num_replicas, rank)` over `len` samples.
    pub fn new(len: usize, num_replicas: usize, rank: usize) -> Result<DistributedSampler> {
        DistributedSampler::new_with(len, num_replicas, rank, DistributedSamplerOpts::default())
    }

    /// `DistributedSampler(dataset, num_replicas, rank, shuffle, seed, drop_last)` over `len`
    /// samples: each replica yields `ceil(len / num_replicas)` indices, or with `drop_last`
    /// and a remainder `ceil((len - num_replicas) / num_replicas)`.
    ///
    /// Errors: ValueError `Invalid rank 2, rank should be in the interval [0, 1]`.
    pub fn new_with(
        len: usize,
        num_replicas: usize,
        rank: usize,
        opts: impl Into<DistributedSamplerOpts>,
    ) -> Result<DistributedSampler> {
        let opts = opts.into();
        if rank >= num_replicas {
            return Err(Error::value(format!(
                "Invalid rank {rank}, rank should be in the interval [0, {}]",
                num_replicas as i64 - 1
            )));
        }
        let num_samples = if opts.drop_last && !len.is_multiple_of(num_replicas) {
            // math.ceil((len - num_replicas) / num_replicas)
            let d = len as f64 - num_replicas as f64;
            (d / num_replicas as f64).ceil().max(0.0) as usize
        } else {
            len.div_ceil(num_replicas)
        };
        Ok(DistributedSampler {
            n: len,
            num_replicas,
            rank,
            opts,
            num_samples,
            epoch: Arc::new(AtomicU64::new(0)),
        })
    }

    /// `sampler.set_epoch(epoch)`: the next pass shuffles with seed `seed + epoch` (for
    /// every clone of this sampler).
    pub fn set_epoch(&self, epoch: u64) {
        self.epoch.store(epoch, Ordering::Relaxed);
    }

    /// `sampler.epoch`.
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Relaxed)
    }

    /// `sampler.total_size`: `num_samples * num_replicas`.
    pub fn total_size(&self) -> usize {
        self.num_samples * self.num_replicas
    }

    fn indices(&self) -> Result<Vec<usize>> {
        let mut indices: Vec<usize> = if self.opts.shuffle {
            let g = Generator::new().manual_seed(self.opts.seed.wrapping_add(self.epoch()));
            Tensor::randperm_with(
                self.n,
                RandOpts {
                    generator: Some(&g),
                    dtype: None,
                },
            )?
            .to_vec::<i64>()
            .into_iter()
            .map(|i| i as usize)
            .collect()
        } else {
            (0..self.n).collect()
        };
        let total = self.total_size();
        if !self.opts.drop_last {
            let pad = total.saturating_sub(indices.len());
            if pad > 0 {
                if indices.is_empty() {
                    return Err(Error::value("integer division or modulo by zero"));
                }
                let base = indices.clone();
                indices.extend(base.iter().cycle().take(pad));
            }
        } else {
            indices.truncate(total);
        }
        Ok(indices
            .into_iter()
            .skip(self.rank)
            .step_by(self.num_replicas)
            .collect())
    }
}

impl Sampler for DistributedSampler {
    /// The pass's indices, made on the first `next()`.
    fn iter(&self) -> IndexIter<'_> {
        lazy_list(move || self.indices())
    }
    fn len(&self) -> usize {
        self.num_samples
    }
}
