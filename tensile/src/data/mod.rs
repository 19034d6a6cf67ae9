//! `torch.utils.data`: datasets, samplers and the [`DataLoader`], drawing from the same
//! random streams as PyTorch's, so a port gets the same batches in the same order for the
//! same seeds.
//!
//! * datasets ([`dataset`](self)): the [`Dataset`] (map-style) and [`IterableDataset`]
//!   traits, [`TensorDataset`], [`Subset`], [`ConcatDataset`], [`random_split`];
//! * samplers: [`Sampler`], [`SequentialSampler`], [`RandomSampler`],
//!   [`SubsetRandomSampler`], [`WeightedRandomSampler`], [`BatchSampler`],
//!   [`DistributedSampler`];
//! * collation: [`Collate`], [`default_collate`], [`default_convert`];
//! * loading: [`DataLoader`] (`batch_size`, `shuffle`, `sampler`, `batch_sampler`,
//!   `num_workers` as threads with PyTorch's per-worker seeding, `drop_last`, `generator`,
//!   `prefetch_factor`, `worker_init_fn`, a collate function), [`get_worker_info`].
//!
//! ```
//! use tensile::Tensor;
//! use tensile::data::{DataLoader, DataLoaderOpts, TensorDataset};
//! let x = Tensor::arange(10).unwrap().reshape([5, 2]).unwrap();
//! let y = Tensor::arange(5).unwrap();
//! let ds = TensorDataset::new(&[x, y]).unwrap();
//! tensile::manual_seed(0);
//! let loader = DataLoader::new_with(ds, (2, true)).unwrap(); // batch_size 2, shuffle
//! assert_eq!(loader.len().unwrap(), 3);
//! for batch in &loader {
//!     let batch = batch.unwrap(); // [x rows, y values]
//!     assert_eq!(batch[0].size()[1], 2);
//! }
//! ```

mod collate;
mod dataset;
mod loader;
mod sampler;

pub use collate::{Collate, default_collate, default_convert};
pub use dataset::{
    ConcatDataset, Dataset, IterableDataset, SampleIter, SplitLengths, Subset, TensorDataset,
    random_split, random_split_with,
};
pub use loader::{
    DataLoader, DataLoaderIter, DataLoaderOpts, WorkerInfo, WorkerInitFn, get_worker_info,
};
pub use sampler::{
    BatchSampler, DistributedSampler, DistributedSamplerOpts, IndexIter, RandomSampler,
    RandomSamplerOpts, Sampler, SequentialSampler, SubsetRandomSampler, WeightedRandomSampler,
};
