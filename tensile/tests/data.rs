//! `tensile::data` against PyTorch 2.15's `torch.utils.data`: the fixtures in
//! `tests/data/data_fixtures.json` (written by `scripts/make_data_fixtures.py`) hold what
//! PyTorch yields for fixed seeds: `random_split`, every sampler over two passes, and
//! `DataLoader` passes with and without worker processes, with the default generator's next
//! draws after each (so a loader that draws once too often or too few fails).
//!
//! The tests reseed the process-wide default generator, so they run one at a time (a lock).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;
use tensile::data::*;
use tensile::{ErrorKind, Generator, Tensor};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn fixtures() -> Value {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/data_fixtures.json");
    serde_json::from_str(&std::fs::read_to_string(p).expect("data fixtures")).unwrap()
}

fn usizes(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect()
}

fn f32s(v: &Value) -> Vec<f32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

fn seeded(seed: &Value) -> Generator {
    Generator::new().manual_seed(seed.as_u64().unwrap())
}

/// The default generator's next three float32 draws, as the fixture's `after`.
fn check_after(case: &Value, what: &str) {
    if let Some(a) = case.get("after") {
        let got = Tensor::rand([3]).unwrap().to_vec::<f32>();
        assert_eq!(
            got,
            f32s(a),
            "{what}: the default generator's position afterwards"
        );
    }
}

fn check_gen_after(case: &Value, g: &Generator, what: &str) {
    if let Some(a) = case.get("gen_after") {
        let got = Tensor::rand_with([3], g).unwrap().to_vec::<f32>();
        assert_eq!(got, f32s(a), "{what}: the generator's position afterwards");
    }
}

fn pass<T>(s: &dyn Sampler<T>) -> Vec<T> {
    s.iter().collect::<tensile::Result<Vec<T>>>().unwrap()
}

#[test]
fn random_split_as_pytorch() {
    let _s = serial();
    let fx = fixtures();
    for c in fx["random_split"].as_array().unwrap() {
        let n = c["n"].as_u64().unwrap() as usize;
        let ds = Subset::new(
            TensorDataset::new(&[Tensor::arange(n).unwrap()]).unwrap(),
            (0..n).collect(),
        );
        let g = seeded(&c["seed"]);
        let parts = match c.get("lengths") {
            Some(l) => random_split_with(&ds, usizes(l), Some(&g)).unwrap(),
            None => {
                let f: Vec<f64> = c["fractions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect();
                random_split_with(&ds, f, Some(&g)).unwrap()
            }
        };
        let got: Vec<Vec<usize>> = parts.iter().map(|p| p.indices.clone()).collect();
        let want: Vec<Vec<usize>> = c["out"].as_array().unwrap().iter().map(usizes).collect();
        assert_eq!(got, want, "random_split {c}");
    }
    let c = &fx["random_split_default"];
    tensile::manual_seed(c["manual_seed"].as_u64().unwrap());
    let ds = TensorDataset::new(&[Tensor::arange(8).unwrap()]).unwrap();
    let parts = random_split(&ds, [5usize, 3]).unwrap();
    let got: Vec<Vec<usize>> = parts.iter().map(|p| p.indices.clone()).collect();
    let want: Vec<Vec<usize>> = c["out"].as_array().unwrap().iter().map(usizes).collect();
    assert_eq!(got, want);
    check_after(c, "random_split on the default generator");

    // PyTorch's refusals
    let e = random_split(&ds, [5usize, 4]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ValueError);
    assert_eq!(
        e.to_string(),
        "Sum of input lengths does not equal the length of the input dataset!"
    );
    let e = random_split(&ds, [1.5, -0.5]).unwrap_err();
    assert_eq!(e.to_string(), "Fraction at index 0 is not between 0 and 1");
}

#[test]
fn samplers_as_pytorch() {
    let _s = serial();
    let fx = fixtures();
    for c in fx["samplers"].as_array().unwrap() {
        let what = c.to_string();
        let passes = c["passes"].as_array().unwrap();
        match c["kind"].as_str().unwrap() {
            "random" => {
                let n = c["n"].as_u64().unwrap() as usize;
                let g = c.get("seed").map(seeded);
                if let Some(s) = c.get("manual_seed") {
                    tensile::manual_seed(s.as_u64().unwrap());
                }
                let s = RandomSampler::new_with(
                    n,
                    RandomSamplerOpts {
                        replacement: c.get("replacement").is_some_and(|v| v.as_bool().unwrap()),
                        num_samples: c.get("num_samples").map(|v| v.as_u64().unwrap() as usize),
                        generator: g.clone(),
                    },
                )
                .unwrap();
                for p in passes {
                    assert_eq!(pass(&s), usizes(p), "{what}");
                }
                check_after(c, &what);
                if let Some(g) = &g {
                    check_gen_after(c, g, &what);
                }
            }
            "subset" => {
                let s = SubsetRandomSampler::new(usizes(&c["indices"]), Some(seeded(&c["seed"])));
                for p in passes {
                    assert_eq!(pass(&s), usizes(p), "{what}");
                }
            }
            "weighted" => {
                let w: Vec<f64> = c["weights"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect();
                let s = WeightedRandomSampler::new(
                    &w,
                    c["num_samples"].as_u64().unwrap() as usize,
                    c["replacement"].as_bool().unwrap(),
                    Some(seeded(&c["seed"])),
                )
                .unwrap();
                for p in passes {
                    assert_eq!(pass(&s), usizes(p), "{what}");
                }
            }
            "batch" => {
                let s = BatchSampler::new(
                    SequentialSampler::new(c["n"].as_u64().unwrap() as usize),
                    c["batch_size"].as_u64().unwrap() as usize,
                    c["drop_last"].as_bool().unwrap(),
                )
                .unwrap();
                let want: Vec<Vec<usize>> =
                    passes[0].as_array().unwrap().iter().map(usizes).collect();
                assert_eq!(pass(&s), want, "{what}");
                assert_eq!(s.len(), c["len"].as_u64().unwrap() as usize);
            }
            "distributed" => {
                let s = DistributedSampler::new_with(
                    c["n"].as_u64().unwrap() as usize,
                    c["num_replicas"].as_u64().unwrap() as usize,
                    c["rank"].as_u64().unwrap() as usize,
                    DistributedSamplerOpts {
                        shuffle: c["shuffle"].as_bool().unwrap(),
                        seed: c["seed"].as_u64().unwrap(),
                        drop_last: c["drop_last"].as_bool().unwrap(),
                    },
                )
                .unwrap();
                let handle = s.clone();
                let boxed: Box<dyn Sampler> = Box::new(s);
                assert_eq!(pass(&*boxed), usizes(&passes[0]), "{what}");
                handle.set_epoch(1); // through the clone the caller kept
                assert_eq!(pass(&*boxed), usizes(&passes[1]), "{what} epoch 1");
                assert_eq!(boxed.len(), c["len"].as_u64().unwrap() as usize);
            }
            k => panic!("unknown sampler kind {k}"),
        }
    }
    // PyTorch's refusals
    let e = RandomSampler::new(0).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ValueError);
    assert_eq!(
        e.to_string(),
        "num_samples should be a positive integer value, but got num_samples=0"
    );
    let e = BatchSampler::new(SequentialSampler::new(3), 0, false).unwrap_err();
    assert_eq!(
        e.to_string(),
        "batch_size should be a positive integer value, but got batch_size=0"
    );
    let e = DistributedSampler::new(10, 2, 2).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Invalid rank 2, rank should be in the interval [0, 1]"
    );
}

fn tensor_ds() -> TensorDataset {
    let x = Tensor::arange(20)
        .unwrap()
        .to(tensile::DType::Float32)
        .unwrap()
        .reshape([10, 2])
        .unwrap();
    let y = Tensor::arange(10).unwrap();
    TensorDataset::new(&[x, y]).unwrap()
}

#[test]
fn loaders_over_tensor_datasets_as_pytorch() {
    let _s = serial();
    let fx = fixtures();
    for c in fx["loaders"].as_array().unwrap() {
        let case = c["case"].as_str().unwrap();
        if c.get("noisy").is_some() || case.starts_with("iterable") {
            continue;
        }
        let g = c.get("seed").map(seeded);
        tensile::manual_seed(c["manual_seed"].as_u64().unwrap());
        let opts = DataLoaderOpts {
            batch_size: Some(c["batch_size"].as_u64().unwrap() as usize),
            shuffle: c["shuffle"].as_bool().unwrap(),
            drop_last: c.get("drop_last").is_some_and(|v| v.as_bool().unwrap()),
            generator: g.clone(),
            ..Default::default()
        };
        let loader = DataLoader::new_with(tensor_ds(), opts).unwrap();
        for (k, p) in c["passes"].as_array().unwrap().iter().enumerate() {
            let want: Vec<Vec<usize>> = p
                .as_array()
                .unwrap()
                .iter()
                .map(|b| usizes(&b[0]))
                .collect();
            let mut got = Vec::new();
            for b in &loader {
                let b = b.unwrap();
                // x rows follow y
                let y = b[1].to_vec::<i64>();
                let x = b[0].to_vec::<f32>();
                for (i, &yi) in y.iter().enumerate() {
                    assert_eq!(x[2 * i], 2.0 * yi as f32);
                }
                got.push(y.iter().map(|&v| v as usize).collect::<Vec<_>>());
            }
            assert_eq!(got, want, "{case} pass {k}");
            assert_eq!(loader.len().unwrap(), want.len());
        }
        if let Some(g) = &g {
            check_gen_after(c, g, case);
        }
        check_after(c, case);
    }
}

/// PyTorch's `Noisy` dataset: sample `i` is `rand(2) + 10 i` and the worker's id (-1 on the
/// main thread).
struct Noisy;

impl Dataset for Noisy {
    type Item = (Tensor, i64);
    fn len(&self) -> usize {
        9
    }
    fn get(&self, i: usize) -> tensile::Result<(Tensor, i64)> {
        let wid = get_worker_info().map_or(-1, |w| w.id as i64);
        Ok((Tensor::rand([2])?.add(10.0 * i as f64)?, wid))
    }
}

#[test]
fn worker_threads_seed_and_order_as_pytorch_workers() {
    let _s = serial();
    let fx = fixtures();
    for c in fx["loaders"].as_array().unwrap() {
        let Some(noisy) = c.get("noisy") else {
            continue;
        };
        let case = c["case"].as_str().unwrap();
        let workers = c["num_workers"].as_u64().unwrap() as usize;
        tensile::manual_seed(c["manual_seed"].as_u64().unwrap());
        let opts = DataLoaderOpts {
            batch_size: Some(2),
            shuffle: true,
            num_workers: workers,
            ..Default::default()
        };
        let loader = DataLoader::new_with(Noisy, opts).unwrap();
        for (k, p) in noisy.as_array().unwrap().iter().enumerate() {
            let mut n = 0;
            for (b, want) in (&loader).into_iter().zip(p.as_array().unwrap()) {
                let (x, wid) = b.unwrap();
                let wx: Vec<f32> = want[0].as_array().unwrap().iter().flat_map(f32s).collect();
                assert_eq!(x.to_vec::<f32>(), wx, "{case} pass {k} batch {n}");
                let ww: Vec<i64> = want[1]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_i64().unwrap())
                    .collect();
                assert_eq!(
                    wid.to_vec::<i64>(),
                    ww,
                    "{case} pass {k} batch {n}: worker ids"
                );
                n += 1;
            }
            assert_eq!(n, p.as_array().unwrap().len(), "{case}: batch count");
        }
        check_after(c, case);
    }
}

/// PyTorch's `Shards`: `0..n`, worker `w` yielding the numbers `≡ w (mod num_workers)`.
struct Shards(i64);

impl IterableDataset for Shards {
    type Item = i64;
    fn iter(&self) -> SampleIter<'_, i64> {
        match get_worker_info() {
            None => Box::new((0..self.0).map(Ok)),
            Some(w) => Box::new((w.id as i64..self.0).step_by(w.num_workers).map(Ok)),
        }
    }
}

#[test]
fn iterable_datasets_with_workers_as_pytorch() {
    let _s = serial();
    let fx = fixtures();
    for c in fx["loaders"].as_array().unwrap() {
        let case = c["case"].as_str().unwrap();
        if !case.starts_with("iterable") {
            continue;
        }
        tensile::manual_seed(c["manual_seed"].as_u64().unwrap());
        let opts = DataLoaderOpts {
            batch_size: Some(c["batch_size"].as_u64().unwrap() as usize),
            num_workers: c["num_workers"].as_u64().unwrap() as usize,
            drop_last: c["drop_last"].as_bool().unwrap(),
            ..Default::default()
        };
        let loader = DataLoader::from_iterable(Shards(c["n"].as_i64().unwrap()), opts).unwrap();
        let got: Vec<Vec<i64>> = loader
            .iter()
            .unwrap()
            .map(|b| b.unwrap().to_vec::<i64>())
            .collect();
        let want: Vec<Vec<i64>> = c["passes"][0]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                b.as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_i64().unwrap())
                    .collect()
            })
            .collect();
        assert_eq!(got, want, "{case}");
        check_after(c, case);
    }
}

#[test]
fn loader_refusals_as_pytorch() {
    let ds = || tensor_ds();
    let cases: Vec<(DataLoaderOpts, &str)> = vec![
        (
            DataLoaderOpts {
                shuffle: true,
                sampler: Some(Box::new(SequentialSampler::new(10))),
                ..Default::default()
            },
            "sampler option is mutually exclusive with shuffle",
        ),
        (
            DataLoaderOpts {
                batch_size: Some(2),
                batch_sampler: Some(Box::new(
                    BatchSampler::new(SequentialSampler::new(10), 2, false).unwrap(),
                )),
                ..Default::default()
            },
            "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last",
        ),
        (
            DataLoaderOpts {
                batch_size: None,
                drop_last: true,
                ..Default::default()
            },
            "batch_size=None option disables auto-batching and is mutually exclusive with drop_last",
        ),
        (
            DataLoaderOpts {
                prefetch_factor: Some(2),
                ..Default::default()
            },
            "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.",
        ),
    ];
    for (opts, text) in cases {
        let e = DataLoader::new_with(ds(), opts).unwrap_err();
        assert_eq!(
            (e.kind(), e.to_string().as_str()),
            (ErrorKind::ValueError, text)
        );
    }
    let e = DataLoader::from_iterable(Shards(3), (2, true)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle=True"
    );
    let e = TensorDataset::new(&[Tensor::zeros([3]).unwrap(), Tensor::zeros([4]).unwrap()])
        .unwrap_err();
    assert_eq!(
        (e.kind(), e.to_string().as_str()),
        (ErrorKind::AssertionError, "Size mismatch between tensors")
    );
}

/// A dataset whose sample 3 fails, and whose sample 5 panics on a worker thread: each is its
/// batch's error, and the pass goes on. (On the calling thread a panic unwinds to the caller,
/// as any Rust panic.)
struct Faulty;

impl Dataset for Faulty {
    type Item = i64;
    fn len(&self) -> usize {
        8
    }
    fn get(&self, i: usize) -> tensile::Result<i64> {
        match i {
            3 => Err(tensile::Error::value("bad sample 3")),
            5 if get_worker_info().is_some() => panic!("sample 5 panicked"),
            _ => Ok(i as i64),
        }
    }
}

#[test]
fn errors_and_panics_are_their_batch_only() {
    for workers in [0usize, 2] {
        let opts = DataLoaderOpts {
            batch_size: Some(2),
            num_workers: workers,
            ..Default::default()
        };
        let loader = DataLoader::new_with(Faulty, opts).unwrap();
        let items: Vec<_> = loader.iter().unwrap().collect();
        assert_eq!(items.len(), 4);
        assert_eq!(items[0].as_ref().unwrap().to_vec::<i64>(), [0, 1]);
        assert_eq!(items[1].as_ref().unwrap_err().to_string(), "bad sample 3");
        if workers > 0 {
            let e = items[2].as_ref().unwrap_err();
            assert!(
                e.to_string()
                    .starts_with("Caught panic in DataLoader worker process 0: sample 5 panicked"),
                "{e}"
            );
        }
        assert_eq!(items[3].as_ref().unwrap().to_vec::<i64>(), [6, 7]);
    }
}

#[test]
fn default_collate_over_containers() {
    // tuples, maps and lists collate field by field; numbers become float64/int64 tensors
    let batch = vec![(1.5f64, 2i64, true), (2.5, 3, false)];
    let (a, b, c) = default_collate(batch).unwrap();
    assert_eq!(
        (a.dtype(), a.to_vec::<f64>()),
        (tensile::DType::Float64, vec![1.5, 2.5])
    );
    assert_eq!(
        (b.dtype(), b.to_vec::<i64>()),
        (tensile::DType::Int64, vec![2, 3])
    );
    assert_eq!(c.to_vec::<bool>(), [true, false]);
    let m = |v: f64| BTreeMap::from([("a".to_string(), Tensor::full([2], v).unwrap())]);
    let out = default_collate(vec![m(1.0), m(2.0)]).unwrap();
    assert_eq!(out["a"].size(), [2, 2]);
    let h = |k: &str| HashMap::from([(k.to_string(), 1i64)]);
    let e = default_collate(vec![h("a"), h("b")]).unwrap_err();
    assert_eq!(
        (e.kind(), e.to_string().as_str()),
        (ErrorKind::KeyError, "'a'")
    );
    let e = default_collate(vec![vec![1i64, 2], vec![3]]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "each element in list of batch should be of equal size"
    );
    let e = default_collate(vec![
        Tensor::zeros([2]).unwrap(),
        Tensor::zeros([3]).unwrap(),
    ])
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "stack expects each tensor to be equal size, but got [2] at entry 0 and [3] at entry 1"
    );
    assert_eq!(
        default_collate(vec!["x".to_string(), "y".to_string()]).unwrap(),
        ["x", "y"]
    );
    // worker_init_fn runs on each worker with its id; the loader shares the dataset (Arc)
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let opts = DataLoaderOpts {
        batch_size: Some(5),
        num_workers: 2,
        worker_init_fn: Some(Arc::new(move |id| {
            s2.lock().unwrap().push((id, get_worker_info().unwrap().id));
            Ok(())
        })),
        ..Default::default()
    };
    let loader = DataLoader::new_with(Arc::new(tensor_ds()), opts).unwrap();
    assert_eq!(loader.iter().unwrap().count(), 2);
    let mut v = seen.lock().unwrap().clone();
    v.sort();
    assert_eq!(v, [(0, 0), (1, 1)]);
    assert!(get_worker_info().is_none());
}
