//! Datasets (`torch.utils.data.Dataset`, `IterableDataset`, `TensorDataset`, `Subset`,
//! `ConcatDataset`, `random_split`).

use std::sync::Arc;

use crate::Tensor;
use crate::error::{Error, Result};
use crate::random::{Generator, RandOpts};

/// `torch.utils.data.Dataset`, a map-style dataset: `len()` samples, sample `i` from
/// `get(i)` (PyTorch's `__len__` and `__getitem__`).
///
/// A dataset is shared by the [`DataLoader`](super::DataLoader)'s worker threads, hence
/// `Send + Sync`; `get` takes `&self`. `Arc<D>` and `&D` are datasets too, so a dataset can
/// be shared by several [`Subset`]s, loaders and splits without a copy.
pub trait Dataset: Send + Sync {
    /// One sample (e.g. `(Tensor, i64)` for an image and its label, or `Vec<Tensor>` for a
    /// [`TensorDataset`]).
    type Item: Send + 'static;
    /// `len(dataset)`: the number of samples.
    fn len(&self) -> usize;
    /// `dataset[index]` for `index < len()`. Errors: whatever loading the sample returns;
    /// an index out of range is the dataset's own error (the built-in datasets return
    /// IndexError as PyTorch's indexing does).
    fn get(&self, index: usize) -> Result<Self::Item>;
    /// `len() == 0`.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<D: Dataset + ?Sized> Dataset for Arc<D> {
    type Item = D::Item;
    fn len(&self) -> usize {
        (**self).len()
    }
    fn get(&self, index: usize) -> Result<D::Item> {
        (**self).get(index)
    }
}

impl<D: Dataset + ?Sized> Dataset for &D {
    type Item = D::Item;
    fn len(&self) -> usize {
        (**self).len()
    }
    fn get(&self, index: usize) -> Result<D::Item> {
        (**self).get(index)
    }
}

/// An iterator of samples, as an [`IterableDataset`] yields them.
pub type SampleIter<'a, T> = Box<dyn Iterator<Item = Result<T>> + Send + 'a>;

/// `torch.utils.data.IterableDataset`: a stream of samples (PyTorch's `__iter__`).
///
/// With `num_workers > 0` every worker thread calls [`IterableDataset::iter`] on the shared
/// dataset, as each PyTorch worker iterates its own copy: without sharding every sample comes
/// once per worker, as in PyTorch. Shard with [`get_worker_info`](super::get_worker_info)
/// (`id`, `num_workers`) inside `iter`.
pub trait IterableDataset: Send + Sync {
    /// One sample.
    type Item: Send + 'static;
    /// `iter(dataset)`: a fresh stream of samples. An `Err` item is delivered as the error of
    /// the batch it falls in.
    fn iter(&self) -> SampleIter<'_, Self::Item>;
}

impl<D: IterableDataset + ?Sized> IterableDataset for Arc<D> {
    type Item = D::Item;
    fn iter(&self) -> SampleIter<'_, D::Item> {
        (**self).iter()
    }
}

/// `torch.utils.data.TensorDataset(*tensors)`: sample `i` is `[t[i] for t in tensors]`, views
/// of each tensor's row `i` (`select(0, i)`).
#[derive(Clone, Debug)]
pub struct TensorDataset {
    tensors: Vec<Tensor>,
}

impl TensorDataset {
    /// `TensorDataset(*tensors)`: tensors of the same first dimension (each at least 1-d).
    ///
    /// Errors: AssertionError `Size mismatch between tensors` (first dimensions differ, as
    /// PyTorch's `assert`); IndexError `Dimension specified as 0 but tensor has no dimensions`
    /// for a 0-d tensor.
    pub fn new<T: AsRef<Tensor>>(tensors: &[T]) -> Result<TensorDataset> {
        let tensors: Vec<Tensor> = tensors.iter().map(|t| t.as_ref().alias()).collect();
        let mut n = None;
        for t in &tensors {
            let Some(&s) = t.size().first() else {
                return Err(Error::index(
                    "Dimension specified as 0 but tensor has no dimensions",
                ));
            };
            if *n.get_or_insert(s) != s {
                return Err(Error::assertion("Size mismatch between tensors"));
            }
        }
        Ok(TensorDataset { tensors })
    }

    /// The tensors (`dataset.tensors`).
    pub fn tensors(&self) -> &[Tensor] {
        &self.tensors
    }
}

impl Dataset for TensorDataset {
    /// One view per tensor: row `index` of each.
    type Item = Vec<Tensor>;
    fn len(&self) -> usize {
        self.tensors
            .first()
            .map_or(0, |t| t.size().first().copied().unwrap_or(0))
    }
    /// Errors: IndexError `index 5 is out of bounds for dimension 0 with size 5`.
    fn get(&self, index: usize) -> Result<Vec<Tensor>> {
        self.tensors.iter().map(|t| t.select(0, index)).collect()
    }
}

/// `torch.utils.data.Subset(dataset, indices)`: sample `i` is `dataset[indices[i]]`.
#[derive(Clone, Debug)]
pub struct Subset<D> {
    /// The dataset drawn from (`subset.dataset`).
    pub dataset: D,
    /// The indices into it (`subset.indices`).
    pub indices: Vec<usize>,
}

impl<D: Dataset> Subset<D> {
    /// `Subset(dataset, indices)`. Indices are not checked here (as PyTorch): one out of
    /// range is the dataset's error when read.
    pub fn new(dataset: D, indices: Vec<usize>) -> Subset<D> {
        Subset { dataset, indices }
    }
}

impl<D: Dataset> Dataset for Subset<D> {
    type Item = D::Item;
    fn len(&self) -> usize {
        self.indices.len()
    }
    /// Errors: IndexError `list index out of range` for `index >= len()`; the dataset's own.
    fn get(&self, index: usize) -> Result<D::Item> {
        match self.indices.get(index) {
            Some(&i) => self.dataset.get(i),
            None => Err(Error::index("list index out of range")),
        }
    }
}

/// `torch.utils.data.ConcatDataset(datasets)`: the samples of each dataset in turn.
#[derive(Clone, Debug)]
pub struct ConcatDataset<D> {
    datasets: Vec<D>,
    cumulative_sizes: Vec<usize>,
}

impl<D: Dataset> ConcatDataset<D> {
    /// `ConcatDataset(datasets)`. Errors: AssertionError `datasets should not be an empty
    /// iterable` (no dataset).
    pub fn new(datasets: Vec<D>) -> Result<ConcatDataset<D>> {
        if datasets.is_empty() {
            return Err(Error::assertion("datasets should not be an empty iterable"));
        }
        let mut total = 0;
        let cumulative_sizes = datasets
            .iter()
            .map(|d| {
                total += d.len();
                total
            })
            .collect();
        Ok(ConcatDataset {
            datasets,
            cumulative_sizes,
        })
    }

    /// `dataset.cumulative_sizes`: the running totals of the datasets' lengths.
    pub fn cumulative_sizes(&self) -> &[usize] {
        &self.cumulative_sizes
    }

    /// The datasets (`dataset.datasets`).
    pub fn datasets(&self) -> &[D] {
        &self.datasets
    }
}

impl<D: Dataset> Dataset for ConcatDataset<D> {
    type Item = D::Item;
    fn len(&self) -> usize {
        self.cumulative_sizes.last().copied().unwrap_or(0)
    }
    /// Errors: ValueError `absolute value of index should not exceed dataset length` for
    /// `index >= len()` (PyTorch's text); the dataset's own.
    fn get(&self, index: usize) -> Result<D::Item> {
        if index >= self.len() {
            return Err(Error::value(
                "absolute value of index should not exceed dataset length",
            ));
        }
        // bisect_right: the first dataset whose running total exceeds index
        let d = self.cumulative_sizes.partition_point(|&c| c <= index);
        let start = if d == 0 {
            0
        } else {
            self.cumulative_sizes[d - 1]
        };
        self.datasets[d].get(index - start)
    }
}

/// The lengths of [`random_split`]: sample counts, or fractions summing to 1.
#[derive(Clone, Debug, PartialEq)]
pub enum SplitLengths {
    /// Sample counts; they must add up to the dataset's length.
    Counts(Vec<usize>),
    /// Fractions in `[0, 1]` summing to 1 (within `math.isclose` and not above 1).
    Fractions(Vec<f64>),
}

impl From<&[usize]> for SplitLengths {
    fn from(v: &[usize]) -> Self {
        SplitLengths::Counts(v.to_vec())
    }
}
impl<const N: usize> From<[usize; N]> for SplitLengths {
    fn from(v: [usize; N]) -> Self {
        SplitLengths::Counts(v.to_vec())
    }
}
impl From<Vec<usize>> for SplitLengths {
    fn from(v: Vec<usize>) -> Self {
        SplitLengths::Counts(v)
    }
}
impl From<&[f64]> for SplitLengths {
    fn from(v: &[f64]) -> Self {
        SplitLengths::Fractions(v.to_vec())
    }
}
impl<const N: usize> From<[f64; N]> for SplitLengths {
    fn from(v: [f64; N]) -> Self {
        SplitLengths::Fractions(v.to_vec())
    }
}
impl From<Vec<f64>> for SplitLengths {
    fn from(v: Vec<f64>) -> Self {
        SplitLengths::Fractions(v)
    }
}

/// `torch.utils.data.random_split(dataset, lengths)` on the default generator; see
/// [`random_split_with`].
pub fn random_split<D: Dataset + Clone>(
    dataset: D,
    lengths: impl Into<SplitLengths>,
) -> Result<Vec<Subset<D>>> {
    random_split_with(dataset, lengths, None)
}

/// `torch.utils.data.random_split(dataset, lengths, generator)`: splits the dataset's indices
/// by one `torch.randperm(sum(lengths), generator=generator)` (the same subsets as PyTorch for
/// the same generator state) into [`Subset`]s of the given lengths, each holding a clone of
/// `dataset` (share a big one through `Arc` or `&`).
///
/// Fractions (summing to 1) become `floor(len * frac)` each, then the remainder is handed out
/// one at a time round-robin from the first split; a split of length 0 warns
/// `Length of split at index 1 is 0. This might result in an empty dataset.`
///
/// Errors: ValueError `Fraction at index 1 is not between 0 and 1`; ValueError `Sum of input
/// lengths does not equal the length of the input dataset!`; randperm's errors.
pub fn random_split_with<D: Dataset + Clone>(
    dataset: D,
    lengths: impl Into<SplitLengths>,
    generator: Option<&Generator>,
) -> Result<Vec<Subset<D>>> {
    let n = dataset.len();
    let lengths = match lengths.into() {
        SplitLengths::Counts(c) => c,
        SplitLengths::Fractions(f) => {
            let sum: f64 = f.iter().sum();
            // math.isclose(sum, 1) (rel_tol 1e-9) and sum <= 1; otherwise Python treats the
            // fractions as lengths, which then fail the sum check below
            if (sum - 1.0).abs() <= 1e-9 * sum.abs().max(1.0) && sum <= 1.0 {
                let mut l = Vec::with_capacity(f.len());
                for (i, &frac) in f.iter().enumerate() {
                    if !(0.0..=1.0).contains(&frac) {
                        return Err(Error::value(format!(
                            "Fraction at index {i} is not between 0 and 1"
                        )));
                    }
                    l.push((n as f64 * frac).floor() as usize);
                }
                let rem = n - l.iter().sum::<usize>().min(n);
                let k = l.len();
                for i in 0..rem {
                    l[i % k] += 1;
                }
                for (i, &len) in l.iter().enumerate() {
                    if len == 0 {
                        crate::warnings::warn(&format!(
                            "Length of split at index {i} is 0. This might result in an empty dataset."
                        ));
                    }
                }
                l
            } else {
                return Err(Error::value(
                    "Sum of input lengths does not equal the length of the input dataset!",
                ));
            }
        }
    };
    let total: usize = lengths.iter().sum();
    if total != n {
        return Err(Error::value(
            "Sum of input lengths does not equal the length of the input dataset!",
        ));
    }
    let perm = Tensor::randperm_with(
        total,
        RandOpts {
            generator,
            dtype: None,
        },
    )?
    .to_vec::<i64>();
    let mut out = Vec::with_capacity(lengths.len());
    let mut offset = 0;
    for len in lengths {
        let idx = perm[offset..offset + len]
            .iter()
            .map(|&i| i as usize)
            .collect();
        out.push(Subset::new(dataset.clone(), idx));
        offset += len;
    }
    Ok(out)
}
