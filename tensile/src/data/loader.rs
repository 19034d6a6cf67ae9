//! `torch.utils.data.DataLoader`: batches from a dataset, in the sampler's order, built on
//! the calling thread or by worker threads (PyTorch's worker processes) with prefetching.

use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;

use super::collate::Collate;
use super::dataset::{Dataset, IterableDataset, SampleIter};
use super::sampler::{BatchSampler, IndexIter, RandomSampler, Sampler, SequentialSampler};
use crate::error::{Error, Result};
use crate::random::Generator;

/// What a worker knows of itself (`torch.utils.data.get_worker_info()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkerInfo {
    /// This worker's index, `0..num_workers`.
    pub id: usize,
    /// The loader's `num_workers`.
    pub num_workers: usize,
    /// The seed of this worker's default generator: the iterator's base seed plus `id`.
    pub seed: u64,
}

thread_local! {
    static WORKER: RefCell<Option<WorkerInfo>> = const { RefCell::new(None) };
}

/// `torch.utils.data.get_worker_info()`: on a [`DataLoader`] worker thread (in a dataset's
/// `get`/`iter`, a collate function or `worker_init_fn`), that worker's [`WorkerInfo`];
/// elsewhere `None`.
pub fn get_worker_info() -> Option<WorkerInfo> {
    WORKER.with(|w| *w.borrow())
}

/// `worker_init_fn`: called with the worker's id on each worker thread before it loads
/// anything. An error is returned in place of that worker's first batch (as PyTorch
/// re-raises it there).
pub type WorkerInitFn = Arc<dyn Fn(usize) -> Result<()> + Send + Sync>;

/// The optional arguments of [`DataLoader::new_with`], PyTorch's keyword arguments with
/// PyTorch's defaults (`batch_size=1, shuffle=False, sampler=None, batch_sampler=None,
/// num_workers=0, drop_last=False, generator=None, prefetch_factor=None,
/// worker_init_fn=None`). A `usize` converts into it as `batch_size`, a pair as
/// `(batch_size, shuffle)`.
///
/// Not here: `collate_fn` (the loader's type depends on it: see
/// [`DataLoader::with_collate_fn`]), `pin_memory` (no accelerator), `timeout`,
/// `multiprocessing_context`, `persistent_workers` (workers are threads, started per pass),
/// `in_order` (always in order).
pub struct DataLoaderOpts {
    /// Samples per batch; `None` turns batching off (each sample goes through
    /// [`Collate::convert`]).
    pub batch_size: Option<usize>,
    /// Draw the order from a [`RandomSampler`] (on `generator`) instead of sequentially.
    pub shuffle: bool,
    /// The order of sample indices (exclusive with `shuffle`).
    pub sampler: Option<Box<dyn Sampler>>,
    /// Batches of indices (exclusive with `batch_size`, `shuffle`, `sampler`, `drop_last`).
    pub batch_sampler: Option<Box<dyn Sampler<Vec<usize>>>>,
    /// Worker threads building batches (0: the calling thread builds each batch on `next`).
    pub num_workers: usize,
    /// Drop the last batch when it is short.
    pub drop_last: bool,
    /// The generator of the shuffle and of each pass's base seed (default: the default
    /// generator).
    pub generator: Option<Generator>,
    /// Batches in flight per worker (`None`: 2 with workers; must be `None` without).
    pub prefetch_factor: Option<usize>,
    /// Called on each worker thread first.
    pub worker_init_fn: Option<WorkerInitFn>,
}

impl Default for DataLoaderOpts {
    fn default() -> Self {
        DataLoaderOpts {
            batch_size: Some(1),
            shuffle: false,
            sampler: None,
            batch_sampler: None,
            num_workers: 0,
            drop_last: false,
            generator: None,
            prefetch_factor: None,
            worker_init_fn: None,
        }
    }
}

impl From<usize> for DataLoaderOpts {
    fn from(batch_size: usize) -> Self {
        DataLoaderOpts {
            batch_size: Some(batch_size),
            ..Default::default()
        }
    }
}

impl From<(usize, bool)> for DataLoaderOpts {
    fn from((batch_size, shuffle): (usize, bool)) -> Self {
        DataLoaderOpts {
            batch_size: Some(batch_size),
            shuffle,
            ..Default::default()
        }
    }
}

impl std::fmt::Debug for DataLoaderOpts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DataLoaderOpts")
            .field("batch_size", &self.batch_size)
            .field("shuffle", &self.shuffle)
            .field("sampler", &self.sampler.is_some())
            .field("batch_sampler", &self.batch_sampler.is_some())
            .field("num_workers", &self.num_workers)
            .field("drop_last", &self.drop_last)
            .field("generator", &self.generator)
            .field("prefetch_factor", &self.prefetch_factor)
            .field("worker_init_fn", &self.worker_init_fn.is_some())
            .finish()
    }
}

enum Source<I> {
    Map(Arc<dyn Dataset<Item = I>>),
    Iterable(Arc<dyn IterableDataset<Item = I>>),
}

impl<I> Clone for Source<I> {
    fn clone(&self) -> Self {
        match self {
            Source::Map(d) => Source::Map(d.clone()),
            Source::Iterable(d) => Source::Iterable(d.clone()),
        }
    }
}

enum Fetch<I, B> {
    /// Auto-collation: a list of samples → a batch.
    Batched(Arc<dyn Fn(Vec<I>) -> Result<B> + Send + Sync>),
    /// No batching: one sample → one item.
    Single(Arc<dyn Fn(I) -> Result<B> + Send + Sync>),
}

impl<I, B> Clone for Fetch<I, B> {
    fn clone(&self) -> Self {
        match self {
            Fetch::Batched(f) => Fetch::Batched(f.clone()),
            Fetch::Single(f) => Fetch::Single(f.clone()),
        }
    }
}

/// The order of the indices.
enum Plan {
    /// Map-style with batching: lists of indices.
    Batches(Box<dyn Sampler<Vec<usize>>>),
    /// Map-style without batching: one index per item.
    Singles(Box<dyn Sampler>),
    /// Iterable: batches of this many samples (`None`: no batching), without end.
    Stream(Option<usize>),
}

/// One unit of work: what `fetch` builds one loader item from.
#[derive(Clone, Debug)]
enum Task {
    Indices(Vec<usize>),
    Index(usize),
    Stream(Option<usize>),
}

/// `torch.utils.data.DataLoader`: iterates a dataset in batches.
///
/// Each pass ([`DataLoader::iter`], or `for batch in &loader`) first draws a 63-bit base seed
/// from `generator` (the default generator without one), as PyTorch does, then follows the
/// sampler, which draws when its indices are asked for (a shuffling loader: a
/// [`RandomSampler`] on `generator`). The batches, their order and every draw from the
/// generators are PyTorch's for the same seeds.
///
/// With `num_workers = 0` each batch is read and collated on the calling thread when asked
/// for. With `num_workers = n > 0`, `n` threads start with the pass (PyTorch's worker
/// processes): batch `k` goes to worker `k mod n` (round robin over workers still running),
/// `prefetch_factor * n` batches are in flight, and batches come back in order. On worker
/// `w` the default generator is one of its own seeded `base_seed + w` (PyTorch's
/// `torch.manual_seed(base_seed + worker_id)` in each worker), the intra-op thread count is
/// 1, and [`get_worker_info`] answers. The workers stop when the pass is dropped.
///
/// An error (from the dataset, the collate function, or a panic in either, which becomes
/// RuntimeError `Caught panic in DataLoader worker process 0: …`) is that batch's item; the
/// pass goes on.
pub struct DataLoader<I, B> {
    source: Source<I>,
    fetch: Fetch<I, B>,
    plan: Plan,
    num_workers: usize,
    prefetch_factor: usize,
    drop_last: bool,
    generator: Option<Generator>,
    worker_init_fn: Option<WorkerInitFn>,
}

impl<I, B> std::fmt::Debug for DataLoader<I, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DataLoader")
            .field("num_workers", &self.num_workers)
            .field("prefetch_factor", &self.prefetch_factor)
            .field("drop_last", &self.drop_last)
            .field("generator", &self.generator)
            .finish()
    }
}

impl<I: Collate> DataLoader<I, I::Batch> {
    /// `DataLoader(dataset)`: batches of one, in order, collated by
    /// [`default_collate`](super::default_collate).
    pub fn new<D: Dataset<Item = I> + 'static>(dataset: D) -> Result<Self> {
        Self::new_with(dataset, DataLoaderOpts::default())
    }

    /// `DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers,
    /// drop_last=..., generator=..., prefetch_factor=..., worker_init_fn=...)` with
    /// `default_collate`.
    ///
    /// Errors (ValueError, PyTorch's texts): `sampler option is mutually exclusive with
    /// shuffle`; `batch_sampler option is mutually exclusive with batch_size, shuffle,
    /// sampler, and drop_last`; `batch_size=None option disables auto-batching and is
    /// mutually exclusive with drop_last`; `prefetch_factor option could only be specified in
    /// multiprocessing.let num_workers > 0 to enable multiprocessing, otherwise set
    /// prefetch_factor to None.`; `batch_size should be a positive integer value, but got
    /// batch_size=0`; and a shuffling sampler's (`num_samples should be a positive integer
    /// value, but got num_samples=0` for an empty dataset).
    pub fn new_with<D: Dataset<Item = I> + 'static>(
        dataset: D,
        opts: impl Into<DataLoaderOpts>,
    ) -> Result<Self> {
        let o = opts.into();
        let fetch = if o.batch_size.is_some() || o.batch_sampler.is_some() {
            Fetch::Batched(Arc::new(|v: Vec<I>| I::collate(v)))
        } else {
            Fetch::Single(Arc::new(|x: I| I::convert(x)))
        };
        Self::build(Source::Map(Arc::new(dataset)), o, fetch)
    }

    /// `DataLoader(iterable_dataset, batch_size, ...)` with `default_collate`: batches of
    /// `batch_size` consecutive samples of the stream (the last one shorter unless
    /// `drop_last`). With workers, every worker iterates the dataset (shard it with
    /// [`get_worker_info`]) and batches alternate between the workers still running.
    ///
    /// Errors: ValueError `DataLoader with IterableDataset: expected unspecified shuffle
    /// option, but got shuffle=True`, the same for `sampler` and `batch_sampler`; the other
    /// errors of [`DataLoader::new_with`].
    pub fn from_iterable<D: IterableDataset<Item = I> + 'static>(
        dataset: D,
        opts: impl Into<DataLoaderOpts>,
    ) -> Result<Self> {
        let o = opts.into();
        let fetch = if o.batch_size.is_some() {
            Fetch::Batched(Arc::new(|v: Vec<I>| I::collate(v)))
        } else {
            Fetch::Single(Arc::new(|x: I| I::convert(x)))
        };
        Self::build(Source::Iterable(Arc::new(dataset)), o, fetch)
    }
}

impl<I: Send + 'static, B: Send + 'static> DataLoader<I, B> {
    /// `DataLoader(dataset, ..., collate_fn=collate_fn)`: as [`DataLoader::new_with`] with
    /// the caller's collate function. Without batching (`batch_size: None`) it receives a
    /// one-sample list (PyTorch passes the bare sample).
    pub fn with_collate_fn<D: Dataset<Item = I> + 'static>(
        dataset: D,
        opts: impl Into<DataLoaderOpts>,
        collate_fn: impl Fn(Vec<I>) -> Result<B> + Send + Sync + 'static,
    ) -> Result<Self> {
        Self::build(
            Source::Map(Arc::new(dataset)),
            opts.into(),
            Fetch::Batched(Arc::new(collate_fn)),
        )
    }

    /// [`DataLoader::from_iterable`] with the caller's collate function (see
    /// [`DataLoader::with_collate_fn`]).
    pub fn from_iterable_with_collate_fn<D: IterableDataset<Item = I> + 'static>(
        dataset: D,
        opts: impl Into<DataLoaderOpts>,
        collate_fn: impl Fn(Vec<I>) -> Result<B> + Send + Sync + 'static,
    ) -> Result<Self> {
        Self::build(
            Source::Iterable(Arc::new(dataset)),
            opts.into(),
            Fetch::Batched(Arc::new(collate_fn)),
        )
    }

    fn build(source: Source<I>, o: DataLoaderOpts, fetch: Fetch<I, B>) -> Result<Self> {
        let prefetch_factor = match (o.num_workers, o.prefetch_factor) {
            (0, Some(_)) => {
                return Err(Error::value(
                    "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.",
                ));
            }
            (0, None) => 0,
            (_, p) => p.unwrap_or(2),
        };
        let plan = match &source {
            Source::Iterable(_) => {
                if o.shuffle {
                    return Err(Error::value(
                        "DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle=True",
                    ));
                }
                if o.sampler.is_some() {
                    return Err(Error::value(
                        "DataLoader with IterableDataset: expected unspecified sampler option, but got sampler=<sampler>",
                    ));
                }
                if o.batch_sampler.is_some() {
                    return Err(Error::value(
                        "DataLoader with IterableDataset: expected unspecified batch_sampler option, but got batch_sampler=<batch_sampler>",
                    ));
                }
                if o.batch_size.is_none() && o.drop_last {
                    return Err(no_batch_drop_last());
                }
                if o.batch_size == Some(0) {
                    return Err(Error::value(
                        "batch_size should be a positive integer value, but got batch_size=0",
                    ));
                }
                Plan::Stream(o.batch_size)
            }
            Source::Map(ds) => {
                if o.sampler.is_some() && o.shuffle {
                    return Err(Error::value(
                        "sampler option is mutually exclusive with shuffle",
                    ));
                }
                if let Some(bs) = o.batch_sampler {
                    if o.batch_size != Some(1) || o.shuffle || o.sampler.is_some() || o.drop_last {
                        return Err(Error::value(
                            "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last",
                        ));
                    }
                    Plan::Batches(bs)
                } else {
                    if o.batch_size.is_none() && o.drop_last {
                        return Err(no_batch_drop_last());
                    }
                    let sampler: Box<dyn Sampler> = match o.sampler {
                        Some(s) => s,
                        None if o.shuffle => Box::new(RandomSampler::new_with(
                            ds.len(),
                            super::RandomSamplerOpts {
                                generator: o.generator.clone(),
                                ..Default::default()
                            },
                        )?),
                        None => Box::new(SequentialSampler::new(ds.len())),
                    };
                    match o.batch_size {
                        Some(b) => {
                            Plan::Batches(Box::new(BatchSampler::new(sampler, b, o.drop_last)?))
                        }
                        None => Plan::Singles(sampler),
                    }
                }
            }
        };
        Ok(DataLoader {
            source,
            fetch,
            plan,
            num_workers: o.num_workers,
            prefetch_factor,
            drop_last: o.drop_last,
            generator: o.generator,
            worker_init_fn: o.worker_init_fn,
        })
    }

    /// `len(loader)`: the number of items a pass yields (the batch sampler's length, or the
    /// sampler's without batching).
    ///
    /// Errors: TypeError `object of type 'IterableDataset' has no len()` for an iterable
    /// dataset.
    pub fn len(&self) -> Result<usize> {
        match &self.plan {
            Plan::Batches(b) => Ok(b.len()),
            Plan::Singles(s) => Ok(s.len()),
            Plan::Stream(_) => Err(Error::type_error(
                "object of type 'IterableDataset' has no len()",
            )),
        }
    }

    /// Whether a pass yields nothing (`len() == 0`; an iterable dataset: `false`).
    pub fn is_empty(&self) -> bool {
        self.len().is_ok_and(|n| n == 0)
    }

    /// `loader.num_workers`.
    pub fn num_workers(&self) -> usize {
        self.num_workers
    }

    /// `iter(loader)`: a pass. Draws the pass's base seed now, and with workers starts them
    /// and sends the first `prefetch_factor * num_workers` batches' indices (so a shuffling
    /// sampler draws its order now, as PyTorch's does).
    ///
    /// Errors: the base seed's draw; RuntimeError `failed to start DataLoader worker 0: …`
    /// when a thread cannot start; a sampler error while prefetching.
    pub fn iter(&self) -> Result<DataLoaderIter<'_, I, B>> {
        DataLoaderIter::new(self)
    }
}

fn no_batch_drop_last() -> Error {
    Error::value(
        "batch_size=None option disables auto-batching and is mutually exclusive with drop_last",
    )
}

/// Builds one item from a task; `Ok(None)`: the stream ended (iterable datasets).
fn fetch_one<I: Send + 'static, B>(
    source: &Source<I>,
    fetch: &Fetch<I, B>,
    stream: &mut Option<SampleIter<'_, I>>,
    drop_last: bool,
    task: Task,
) -> Result<Option<B>> {
    match (task, source) {
        (Task::Indices(idx), Source::Map(ds)) => {
            let items = idx
                .into_iter()
                .map(|i| ds.get(i))
                .collect::<Result<Vec<I>>>()?;
            collate(fetch, items).map(Some)
        }
        (Task::Index(i), Source::Map(ds)) => collate(fetch, vec![ds.get(i)?]).map(Some),
        (Task::Stream(bs), Source::Iterable(_)) => {
            let Some(it) = stream.as_mut() else {
                return Ok(None);
            };
            let want = bs.unwrap_or(1);
            let mut items = Vec::with_capacity(want);
            let mut ended = false;
            while items.len() < want {
                match it.next() {
                    Some(x) => items.push(x?),
                    None => {
                        ended = true;
                        break;
                    }
                }
            }
            if ended {
                *stream = None;
            }
            if items.is_empty() || (drop_last && items.len() < want) {
                return Ok(None);
            }
            collate(fetch, items).map(Some)
        }
        _ => Err(Error::runtime(
            "DataLoader: a task does not fit its dataset",
        )),
    }
}

fn collate<I, B>(fetch: &Fetch<I, B>, mut items: Vec<I>) -> Result<B> {
    match fetch {
        Fetch::Batched(f) => f(items),
        Fetch::Single(f) => match items.pop() {
            Some(x) if items.is_empty() => f(x),
            _ => Err(Error::runtime(
                "DataLoader: an unbatched item is one sample",
            )),
        },
    }
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic".to_string()
    }
}

/// A message from a worker: the item of task `idx`, or `None` when its stream has ended.
type Reply<B> = (usize, usize, Option<Result<B>>);

struct Workers<B> {
    senders: Vec<Sender<Option<(usize, Task)>>>,
    results: Receiver<Reply<B>>,
    handles: Vec<JoinHandle<()>>,
    active: Vec<bool>,
    /// The next worker of the round robin.
    cycle: usize,
    send_idx: usize,
    rcvd_idx: usize,
    /// Per sent task: its worker, and its item once it came back early.
    task_info: HashMap<usize, (usize, Option<Result<B>>)>,
}

impl<B> Drop for Workers<B> {
    fn drop(&mut self) {
        for s in &self.senders {
            let _ = s.send(None);
        }
        self.senders.clear();
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

/// One pass over a [`DataLoader`] (`iter(loader)`): yields `Result<B>` per batch.
pub struct DataLoaderIter<'a, I, B> {
    loader: &'a DataLoader<I, B>,
    plan: PlanIter<'a>,
    /// The stream of an iterable dataset read on this thread (no workers).
    stream: Option<SampleIter<'a, I>>,
    workers: Option<Workers<B>>,
    base_seed: u64,
    done: bool,
    /// An error of the pass's start, yielded first (`for b in &loader`).
    pending: Option<Error>,
}

enum PlanIter<'a> {
    Batches(IndexIter<'a, Vec<usize>>),
    Singles(IndexIter<'a>),
    Stream(Option<usize>),
}

impl<'a> PlanIter<'a> {
    /// The next task; `None`: the sampler is done.
    fn next_task(&mut self) -> Option<Result<Task>> {
        match self {
            PlanIter::Batches(it) => it.next().map(|r| r.map(Task::Indices)),
            PlanIter::Singles(it) => it.next().map(|r| r.map(Task::Index)),
            PlanIter::Stream(bs) => Some(Ok(Task::Stream(*bs))),
        }
    }
}

impl<'a, I: Send + 'static, B: Send + 'static> DataLoaderIter<'a, I, B> {
    fn new(loader: &'a DataLoader<I, B>) -> Result<Self> {
        let plan = match &loader.plan {
            Plan::Batches(b) => PlanIter::Batches(b.iter()),
            Plan::Singles(s) => PlanIter::Singles(s.iter()),
            Plan::Stream(bs) => PlanIter::Stream(*bs),
        };
        let base_seed = super::sampler::draw_seed(loader.generator.as_ref())?;
        let mut it = DataLoaderIter {
            loader,
            plan,
            stream: None,
            workers: None,
            base_seed,
            done: false,
            pending: None,
        };
        if loader.num_workers == 0 {
            if let Source::Iterable(ds) = &loader.source {
                it.stream = Some(ds.iter());
            }
        } else {
            it.start_workers()?;
        }
        Ok(it)
    }

    /// The pass's base seed (worker `w` seeds its default generator with `base_seed + w`).
    pub fn base_seed(&self) -> u64 {
        self.base_seed
    }

    fn start_workers(&mut self) -> Result<()> {
        let l = self.loader;
        let n = l.num_workers;
        let (res_tx, res_rx) = channel::<Reply<B>>();
        let mut senders = Vec::with_capacity(n);
        let mut handles = Vec::with_capacity(n);
        for id in 0..n {
            let (tx, rx) = channel::<Option<(usize, Task)>>();
            let info = WorkerInfo {
                id,
                num_workers: n,
                seed: self.base_seed.wrapping_add(id as u64),
            };
            let (source, fetch) = (l.source.clone(), l.fetch.clone());
            let (init, drop_last, res_tx) = (l.worker_init_fn.clone(), l.drop_last, res_tx.clone());
            let h = std::thread::Builder::new()
                .name(format!("tensile-dataloader-{id}"))
                .spawn(move || worker_loop(info, source, fetch, init, drop_last, rx, res_tx))
                .map_err(|e| {
                    Error::runtime(format!("failed to start DataLoader worker {id}: {e}"))
                })?;
            senders.push(tx);
            handles.push(h);
        }
        self.workers = Some(Workers {
            senders,
            results: res_rx,
            handles,
            active: vec![true; n],
            cycle: 0,
            send_idx: 0,
            rcvd_idx: 0,
            task_info: HashMap::new(),
        });
        for _ in 0..self.loader.prefetch_factor * n {
            self.try_put_index()?;
        }
        Ok(())
    }

    /// PyTorch's `_try_put_index`: the next task to the next running worker. Called once
    /// per item received, so `prefetch_factor * num_workers` tasks at most are in flight.
    fn try_put_index(&mut self) -> Result<()> {
        let Some(w) = self.workers.as_mut() else {
            return Ok(());
        };
        let task = match self.plan.next_task() {
            None => return Ok(()),
            Some(t) => t?,
        };
        let n = w.active.len();
        let mut chosen = None;
        for _ in 0..n {
            let q = w.cycle;
            w.cycle = (w.cycle + 1) % n;
            if w.active[q] {
                chosen = Some(q);
                break;
            }
        }
        let Some(q) = chosen else {
            return Ok(());
        };
        if w.senders[q].send(Some((w.send_idx, task))).is_err() {
            w.active[q] = false;
            return Ok(());
        }
        w.task_info.insert(w.send_idx, (q, None));
        w.send_idx += 1;
        Ok(())
    }

    fn next_with_workers(&mut self) -> Option<Result<B>> {
        loop {
            let w = self.workers.as_mut()?;
            // skip the tasks of workers whose stream ended
            loop {
                if w.rcvd_idx >= w.send_idx {
                    self.done = true;
                    self.workers = None;
                    return None;
                }
                match w.task_info.get(&w.rcvd_idx) {
                    Some((q, data)) if data.is_some() || w.active[*q] => break,
                    Some(_) => {
                        w.task_info.remove(&w.rcvd_idx);
                    }
                    None => {}
                }
                w.rcvd_idx += 1;
            }
            if let Some((_, Some(_))) = w.task_info.get(&w.rcvd_idx) {
                let (_, data) = w.task_info.remove(&w.rcvd_idx)?;
                w.rcvd_idx += 1;
                return self.process(data?);
            }
            let (idx, q, data) = match w.results.recv() {
                Ok(r) => r,
                Err(_) => {
                    self.done = true;
                    self.workers = None;
                    return Some(Err(Error::runtime(
                        "DataLoader worker(s) exited unexpectedly",
                    )));
                }
            };
            let Some(data) = data else {
                // the worker's stream ended: it takes no more tasks
                w.active[q] = false;
                if let Err(e) = self.try_put_index() {
                    return Some(Err(e));
                }
                continue;
            };
            if idx != w.rcvd_idx {
                if let Some(info) = w.task_info.get_mut(&idx) {
                    info.1 = Some(data);
                }
                continue;
            }
            w.task_info.remove(&idx);
            w.rcvd_idx += 1;
            return self.process(data);
        }
    }

    fn process(&mut self, data: Result<B>) -> Option<Result<B>> {
        if let Err(e) = self.try_put_index() {
            return Some(Err(e));
        }
        Some(data)
    }
}

fn worker_loop<I: Send + 'static, B>(
    info: WorkerInfo,
    source: Source<I>,
    fetch: Fetch<I, B>,
    init: Option<WorkerInitFn>,
    drop_last: bool,
    tasks: Receiver<Option<(usize, Task)>>,
    results: Sender<Reply<B>>,
) {
    WORKER.with(|w| *w.borrow_mut() = Some(info));
    crate::random::set_thread_default_generator(Some(Generator::new().manual_seed(info.seed)));
    // one intra-op thread per worker, as PyTorch's worker processes (`n = 1` is valid)
    let _ = crate::set_thread_num_threads(1);
    let guarded = |f: &mut dyn FnMut() -> Result<()>| -> Result<()> {
        match catch_unwind(AssertUnwindSafe(f)) {
            Ok(r) => r,
            Err(p) => Err(Error::runtime(format!(
                "Caught panic in DataLoader worker process {}: {}",
                info.id,
                panic_text(p.as_ref())
            ))),
        }
    };
    let mut init_error = match &init {
        Some(f) => guarded(&mut || f(info.id)).err(),
        None => None,
    };
    let mut stream: Option<SampleIter<'_, I>> = match &source {
        Source::Iterable(ds) => Some(ds.iter()),
        Source::Map(_) => None,
    };
    let mut ended = false;
    while let Ok(Some((idx, task))) = tasks.recv() {
        if ended {
            continue;
        }
        let reply = if let Some(e) = init_error.take() {
            Some(Err(e))
        } else {
            let mut out = None;
            let r = guarded(&mut || {
                out = fetch_one(&source, &fetch, &mut stream, drop_last, task.clone())?;
                Ok(())
            });
            match r {
                Ok(()) => match out {
                    Some(b) => Some(Ok(b)),
                    None => {
                        ended = true;
                        None
                    }
                },
                Err(e) => Some(Err(e)),
            }
        };
        if results.send((idx, info.id, reply)).is_err() {
            break;
        }
    }
    drop(stream);
    crate::random::set_thread_default_generator(None);
    WORKER.with(|w| *w.borrow_mut() = None);
}

impl<I: Send + 'static, B: Send + 'static> Iterator for DataLoaderIter<'_, I, B> {
    type Item = Result<B>;
    fn next(&mut self) -> Option<Result<B>> {
        if let Some(e) = self.pending.take() {
            self.done = true;
            return Some(Err(e));
        }
        if self.done {
            return None;
        }
        if self.workers.is_some() {
            return self.next_with_workers();
        }
        let task = match self.plan.next_task()? {
            Ok(t) => t,
            Err(e) => return Some(Err(e)),
        };
        let l = self.loader;
        match fetch_one(&l.source, &l.fetch, &mut self.stream, l.drop_last, task) {
            Ok(Some(b)) => Some(Ok(b)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => Some(Err(e)),
        }
    }
}

impl<'a, I: Send + 'static, B: Send + 'static> IntoIterator for &'a DataLoader<I, B> {
    type Item = Result<B>;
    type IntoIter = DataLoaderIter<'a, I, B>;
    /// A pass, as [`DataLoader::iter`]; an error starting it is the pass's only item.
    fn into_iter(self) -> DataLoaderIter<'a, I, B> {
        match DataLoaderIter::new(self) {
            Ok(it) => it,
            Err(e) => DataLoaderIter {
                loader: self,
                plan: PlanIter::Stream(None),
                stream: None,
                workers: None,
                base_seed: 0,
                done: true,
                pending: Some(e),
            },
        }
    }
}
