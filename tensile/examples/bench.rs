//! The benchmark suite of `bench/peers.py`, on tensile's public API.
//!
//! `cargo run --release --example bench -- --threads N [--only a,b] [--reps 11] [--warmup 3]`
//!
//! Case names, definitions, timing rules and the output format are those of `peers.py`, so
//! the two programs can be run back to back and compared line by line
//! (`bench/compare.sh` does that). One line per case on stdout:
//! `case threads median_seconds value`, where value is output elements per second in Gelem/s
//! (reductions: input elements), nanoseconds per op for `add_small`/`add_seed`, GFLOP/s for
//! `matmul_512`/`bmm_bcast`. Within-run spread goes to stderr as `#spread case min_s max_s`.
//!
//! Timing rules: WARMUP untimed reps, then REPS (≥ 7) timed reps, median reported; every rep
//! makes a fresh output, dropped outside the timed region, except the in-place case; latency
//! cases time LAT_INNER back-to-back ops per rep.

use std::time::Instant;

#[path = "bench_ops/mod.rs"]
mod bench_ops;
#[path = "bench_train/mod.rs"]
mod bench_train;
#[allow(dead_code)] // the bench uses the example's model builder only
#[path = "train_digits/train.rs"]
mod train_digits;

use tensile::{DType, Generator, Tensor};

const N: usize = 4096;
const LAT_INNER: usize = 20000;
const LAT_REPS: usize = 15;

const CASE_ORDER: [&str; 43] = [
    "add_same",
    "add_same_out",
    "add_row",
    "add_col",
    "add_outer",
    "add_transposed",
    "add_inplace_row",
    "add_small",
    "add_seed",
    "contig_T",
    "contig_nhwc",
    "sum_dim0",
    "sum_dim1",
    "sum_all",
    "normalize",
    "promote_i32_f32",
    "where_bcast",
    "matmul_512",
    "bmm_bcast",
    "advindex_rows",
    "mask_select",
    "index_put_acc",
    "gather",
    "scatter_add",
    "sort_1m",
    "topk_1m",
    "cumsum",
    "einsum_bhqk",
    "pad",
    "flip",
    "tril",
    "softplus",
    "hypot",
    "lerp",
    "softmax_attn",
    "softmax_attn_f16",
    "log_softmax_logits",
    "gelu_8m",
    "silu_8m",
    "tanh_8m",
    "layer_norm_4096",
    "matmul_1024",
    "dataloader_epoch",
];

fn unit(name: &str) -> &'static str {
    match name {
        "add_small" | "add_seed" => "ns",
        "matmul_512" | "bmm_bcast" | "einsum_bhqk" | "matmul_1024" => "gflops",
        _ => "gelem",
    }
}

/// Python's `{:.6e}`: exponent with a sign and at least two digits.
fn sci(x: f64) -> String {
    let s = format!("{x:.6e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let (sign, digits) = if let Some(d) = e.strip_prefix('-') {
        ('-', d)
    } else {
        ('+', e)
    };
    format!("{m}e{sign}{digits:0>2}")
}

/// Uniform float32 in [0.5, 1.5): no denormals, no division by zero.
fn rnd(shape: &[usize], seed: u64) -> Tensor {
    Tensor::rand_with(shape, (&Generator::new().manual_seed(seed), DType::Float32))
        .and_then(|t| t.add(0.5))
        .expect("rand")
}

type Op = Box<dyn FnMut() -> Option<Tensor>>;
type Case = (Op, f64);

/// A case whose inputs are built on its first call (a warm-up rep), so `--only` builds only
/// the inputs of the cases asked for.
fn lazy(make: impl FnOnce() -> tensile::Result<Op> + 'static) -> Op {
    let mut make = Some(make);
    let mut op: Option<Op> = None;
    Box::new(move || {
        if op.is_none() {
            let m = make.take().expect("built once");
            op = Some(m().expect("building the bench inputs"));
        }
        op.as_mut().expect("built")()
    })
}

/// Random int64 in `[0, hi)` of `shape`: `torch.randint(hi, shape, generator=seeded)`.
fn randint(hi: i64, shape: &[usize], seed: u64) -> tensile::Result<Tensor> {
    Tensor::randint_with(0, hi, shape, &Generator::new().manual_seed(seed))
}

/// Issue 11's cases (`family_cases` in peers.py: same shapes and counts).
fn family_cases() -> Vec<(&'static str, Case)> {
    const M: usize = 2048;
    let mm = (M * M) as f64;
    let ok = |r: tensile::Result<Tensor>| Some(r.expect("bench op"));
    let ok2 = |r: tensile::Result<(Tensor, Tensor)>| Some(r.expect("bench op").0);
    vec![
        (
            "advindex_rows",
            (
                lazy(move || {
                    let (x, idx) = (rnd(&[50000, 256], 30), randint(50000, &[16384], 31)?);
                    Ok(Box::new(move || ok(x.index(&tensile::s![&idx]))) as Op)
                }),
                (16384 * 256) as f64,
            ),
        ),
        (
            "mask_select",
            (
                lazy(move || {
                    let x = rnd(&[M, M], 32);
                    let mask = x.gt(1.0)?;
                    Ok(Box::new(move || ok(x.index(&tensile::s![&mask]))) as Op)
                }),
                mm,
            ),
        ),
        (
            "index_put_acc",
            (
                lazy(move || {
                    let z = Tensor::zeros([16384, 64])?;
                    let (idx, v) = (randint(16384, &[65536], 33)?, rnd(&[65536, 64], 34));
                    Ok(Box::new(move || {
                        z.index_put_with_([&idx], &v, true).expect("index_put_");
                        None
                    }) as Op)
                }),
                (65536 * 64) as f64,
            ),
        ),
        (
            "gather",
            (
                lazy(move || {
                    let (x, idx) = (rnd(&[1024, 4096], 35), randint(4096, &[1024, 4096], 36)?);
                    Ok(Box::new(move || ok(x.gather(1, &idx))) as Op)
                }),
                (1024 * 4096) as f64,
            ),
        ),
        (
            "scatter_add",
            (
                lazy(move || {
                    let (z, s) = (Tensor::zeros([16384, 64])?, rnd(&[65536, 64], 37));
                    let idx = randint(16384, &[65536, 1], 38)?.expand([65536, 64])?;
                    Ok(Box::new(move || ok(z.scatter_add(0, &idx, &s))) as Op)
                }),
                (65536 * 64) as f64,
            ),
        ),
        (
            "sort_1m",
            (
                lazy(move || {
                    let v = rnd(&[1 << 20], 39);
                    Ok(Box::new(move || ok2(v.sort())) as Op)
                }),
                (1 << 20) as f64,
            ),
        ),
        (
            "topk_1m",
            (
                lazy(move || {
                    let v = rnd(&[1 << 20], 40);
                    Ok(Box::new(move || ok2(v.topk(100))) as Op)
                }),
                (1 << 20) as f64,
            ),
        ),
        (
            "cumsum",
            (
                lazy(move || {
                    let x = rnd(&[M, M], 41);
                    Ok(Box::new(move || ok(x.cumsum(1))) as Op)
                }),
                mm,
            ),
        ),
        (
            "einsum_bhqk",
            (
                lazy(move || {
                    let (q, k) = (rnd(&[8, 12, 128, 64], 42), rnd(&[8, 12, 128, 64], 43));
                    Ok(Box::new(move || ok(tensile::einsum("bhqd,bhkd->bhqk", &[&q, &k]))) as Op)
                }),
                2.0 * 8.0 * 12.0 * 128.0 * 128.0 * 64.0,
            ),
        ),
        (
            "pad",
            (
                lazy(move || {
                    let x = rnd(&[16, 64, 56, 56], 44);
                    Ok(Box::new(move || ok(tensile::nn::functional::pad(&x, [1, 1, 1, 1]))) as Op)
                }),
                (16 * 64 * 58 * 58) as f64,
            ),
        ),
        (
            "flip",
            (
                lazy(move || {
                    let x = rnd(&[M, M], 45);
                    Ok(Box::new(move || ok(x.flip([1]))) as Op)
                }),
                mm,
            ),
        ),
        (
            "tril",
            (
                lazy(move || {
                    let x = rnd(&[M, M], 46);
                    Ok(Box::new(move || ok(x.tril())) as Op)
                }),
                mm,
            ),
        ),
        (
            "softplus",
            (
                lazy(move || {
                    let x = rnd(&[M, M], 47);
                    Ok(Box::new(move || ok(tensile::nn::functional::softplus(&x))) as Op)
                }),
                mm,
            ),
        ),
        (
            "hypot",
            (
                lazy(move || {
                    let (x, y) = (rnd(&[M, M], 48), rnd(&[M, M], 49));
                    Ok(Box::new(move || ok(x.hypot(&y))) as Op)
                }),
                mm,
            ),
        ),
        (
            "lerp",
            (
                lazy(move || {
                    let (x, y) = (rnd(&[M, M], 50), rnd(&[M, M], 51));
                    Ok(Box::new(move || ok(x.lerp(&y, 0.3))) as Op)
                }),
                mm,
            ),
        ),
        (
            "softmax_attn",
            (
                lazy(move || {
                    let x = rnd(&[16, 8, 256, 256], 52);
                    Ok(Box::new(move || ok(x.softmax(-1))) as Op)
                }),
                (16 * 8 * 256 * 256) as f64,
            ),
        ),
        (
            "softmax_attn_f16",
            (
                lazy(move || {
                    let x = rnd(&[16, 8, 256, 256], 53).to(DType::Float16)?;
                    Ok(Box::new(move || ok(x.softmax(-1))) as Op)
                }),
                (16 * 8 * 256 * 256) as f64,
            ),
        ),
        (
            "log_softmax_logits",
            (
                lazy(move || {
                    let x = rnd(&[64, 32000], 54);
                    Ok(Box::new(move || ok(x.log_softmax(-1))) as Op)
                }),
                (64 * 32000) as f64,
            ),
        ),
        (
            "gelu_8m",
            (
                lazy(move || {
                    let x = rnd(&[1 << 23], 55);
                    Ok(Box::new(move || ok(tensile::nn::functional::gelu(&x))) as Op)
                }),
                (1 << 23) as f64,
            ),
        ),
        (
            "silu_8m",
            (
                lazy(move || {
                    let x = rnd(&[1 << 23], 56);
                    Ok(Box::new(move || ok(tensile::nn::functional::silu(&x))) as Op)
                }),
                (1 << 23) as f64,
            ),
        ),
        (
            "tanh_8m",
            (
                lazy(move || {
                    let x = rnd(&[1 << 23], 57);
                    Ok(Box::new(move || ok(x.tanh())) as Op)
                }),
                (1 << 23) as f64,
            ),
        ),
        (
            "layer_norm_4096",
            (
                lazy(move || {
                    let (x, w, b) = (rnd(&[4096, 768], 58), rnd(&[768], 59), rnd(&[768], 60));
                    Ok(Box::new(move || ok(x.layer_norm_with([768], (&w, &b)))) as Op)
                }),
                (4096 * 768) as f64,
            ),
        ),
        (
            "matmul_1024",
            (
                lazy(move || {
                    let (x, y) = (rnd(&[1024, 1024], 61), rnd(&[1024, 1024], 62));
                    Ok(Box::new(move || ok(x.matmul(&y))) as Op)
                }),
                2.0 * 1024f64.powi(3),
            ),
        ),
        (
            // one shuffled epoch of a TensorDataset in batches of 64 (samples per second)
            "dataloader_epoch",
            (
                lazy(move || {
                    use tensile::data::{DataLoader, TensorDataset};
                    let (x, y) = (rnd(&[10000, 784], 63), randint(10, &[10000], 64)?);
                    let dl = DataLoader::new_with(TensorDataset::new(&[x, y])?, (64, true))?;
                    Ok(Box::new(move || {
                        for b in &dl {
                            std::hint::black_box(b.expect("bench op"));
                        }
                        None
                    }) as Op)
                }),
                10000.0,
            ),
        ),
    ]
}

fn build_cases() -> tensile::Result<Vec<(&'static str, Case)>> {
    let a = rnd(&[N, N], 1);
    let b = rnd(&[N, N], 2);
    let row = rnd(&[N], 3);
    let col = rnd(&[N, 1], 4);
    let colv = rnd(&[N, 1], 5);
    let rowv = rnd(&[1, N], 6);
    let ainp = a.clone();
    let s3a = rnd(&[3], 7);
    let s3b = rnd(&[3], 8);
    let seed_a = rnd(&[5, 3, 4, 1], 9);
    let seed_b = rnd(&[3, 1, 1], 10);
    let x4 = rnd(&[32, 64, 56, 56], 11);
    let img = rnd(&[64, 3, 224, 224], 12);
    let mean = rnd(&[3, 1, 1], 13);
    let std = rnd(&[3, 1, 1], 14);
    let ai = Tensor::randint_with(
        0,
        100,
        [N, N],
        (&Generator::new().manual_seed(15), DType::Int32),
    )?;
    let cond = rnd(&[N, 1], 16).lt(1.0)?;
    let m1 = rnd(&[512, 512], 17);
    let m2 = rnd(&[512, 512], 18);
    let bx = rnd(&[8, 128, 64], 19);
    let bw = rnd(&[64, 128], 20);
    let mut out = Tensor::empty_with([N, N], DType::Float32).unwrap();
    let nn = (N * N) as f64;
    let x4n = x4.numel() as f64;
    let imgn = img.numel() as f64;
    // semantics checks, as peers.py does
    assert_eq!(ai.add(&b)?.dtype(), DType::Float32);
    assert_eq!(tensile::where_cond(&cond, &a, &row)?.size(), &[N, N]);
    assert_eq!(seed_a.add(&seed_b)?.size(), &[5, 3, 4, 1]);
    let ok = |r: tensile::Result<Tensor>| Some(r.expect("bench op"));
    let cases: Vec<(&'static str, Case)> = vec![
        (
            "add_same",
            (
                Box::new({
                    let (a, b) = (a.alias(), b.alias());
                    move || ok(a.add(&b))
                }),
                nn,
            ),
        ),
        (
            "add_same_out",
            (
                Box::new({
                    let (a, b) = (a.alias(), b.alias());
                    move || {
                        a.add_out(&b, &mut out).expect("add_out");
                        None
                    }
                }),
                nn,
            ),
        ),
        (
            "add_row",
            (
                Box::new({
                    let (a, r) = (a.alias(), row.alias());
                    move || ok(a.add(&r))
                }),
                nn,
            ),
        ),
        (
            "add_col",
            (
                Box::new({
                    let (a, c) = (a.alias(), col.alias());
                    move || ok(a.add(&c))
                }),
                nn,
            ),
        ),
        ("add_outer", (Box::new(move || ok(colv.add(&rowv))), nn)),
        (
            "add_transposed",
            (
                Box::new({
                    let (a, b) = (a.alias(), b.alias());
                    move || ok(a.t().and_then(|t| t.add(&b)))
                }),
                nn,
            ),
        ),
        (
            "add_inplace_row",
            (
                Box::new({
                    let r = row.alias();
                    move || {
                        ainp.add_(&r).expect("add_");
                        None
                    }
                }),
                nn,
            ),
        ),
        ("add_small", (Box::new(move || ok(s3a.add(&s3b))), 0.0)),
        ("add_seed", (Box::new(move || ok(seed_a.add(&seed_b))), 0.0)),
        (
            "contig_T",
            (
                Box::new({
                    let a = a.alias();
                    move || ok(a.t().map(|t| t.contiguous()))
                }),
                nn,
            ),
        ),
        (
            "contig_nhwc",
            (
                Box::new(move || ok(x4.permute([0, 2, 3, 1]).map(|t| t.contiguous()))),
                x4n,
            ),
        ),
        (
            "sum_dim0",
            (
                Box::new({
                    let a = a.alias();
                    move || ok(a.sum_dim(0, false))
                }),
                nn,
            ),
        ),
        (
            "sum_dim1",
            (
                Box::new({
                    let a = a.alias();
                    move || ok(a.sum_dim(1, false))
                }),
                nn,
            ),
        ),
        (
            "sum_all",
            (
                Box::new({
                    let a = a.alias();
                    move || ok(a.sum())
                }),
                nn,
            ),
        ),
        (
            "normalize",
            (
                Box::new(move || ok(img.sub(&mean).and_then(|t| t.div(&std)))),
                imgn,
            ),
        ),
        (
            "promote_i32_f32",
            (
                Box::new({
                    let b = b.alias();
                    move || ok(ai.add(&b))
                }),
                nn,
            ),
        ),
        (
            "where_bcast",
            (
                Box::new({
                    let (a, r) = (a.alias(), row.alias());
                    move || ok(tensile::where_cond(&cond, &a, &r))
                }),
                nn,
            ),
        ),
        (
            "matmul_512",
            (Box::new(move || ok(m1.matmul(&m2))), 2.0 * 512f64.powi(3)),
        ),
        (
            "bmm_bcast",
            (
                Box::new(move || ok(bx.matmul(&bw))),
                2.0 * 8.0 * 128.0 * 64.0 * 128.0,
            ),
        ),
    ];
    Ok(cases)
}

fn timeit(
    f: &mut dyn FnMut() -> Option<Tensor>,
    reps: usize,
    warmup: usize,
    inner: usize,
) -> (f64, f64, f64) {
    for _ in 0..warmup {
        drop(f());
    }
    let mut ts = Vec::with_capacity(reps);
    for _ in 0..reps {
        if inner == 1 {
            let t0 = Instant::now();
            let out = f();
            let dt = t0.elapsed().as_secs_f64();
            drop(out);
            ts.push(dt);
        } else {
            let t0 = Instant::now();
            for _ in 0..inner {
                let _ = f();
            }
            ts.push(t0.elapsed().as_secs_f64() / inner as f64);
        }
    }
    ts.sort_by(|a, b| a.total_cmp(b));
    (ts[ts.len() / 2], ts[0], ts[ts.len() - 1])
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let get = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let threads: usize = get("--threads").and_then(|s| s.parse().ok()).unwrap_or(1);
    let reps: usize = get("--reps").and_then(|s| s.parse().ok()).unwrap_or(11);
    let warmup: usize = get("--warmup").and_then(|s| s.parse().ok()).unwrap_or(3);
    let only: Vec<String> = get("--only")
        .map(|s| s.split(',').map(String::from).collect())
        .unwrap_or_default();
    assert!(reps >= 7, "need >= 7 timed reps");
    tensile::set_num_threads(threads).expect("thread pool");
    eprintln!(
        "# lib=tensile threads={threads} reps={reps} warmup={warmup} tensile {}",
        env!("CARGO_PKG_VERSION")
    );
    let old_asked = only.is_empty() || only.iter().any(|o| CASE_ORDER[..19].contains(&o.as_str()));
    let mut cases = if old_asked {
        build_cases().expect("building the bench inputs")
    } else {
        Vec::new()
    };
    cases.extend(family_cases());
    for name in CASE_ORDER {
        if !only.is_empty() && !only.iter().any(|o| o == name) {
            continue;
        }
        let Some((_, (f, count))) = cases.iter_mut().find(|(n, _)| *n == name) else {
            continue;
        };
        let (t, lo, hi, val) = match unit(name) {
            "ns" => {
                let (t, lo, hi) = timeit(f.as_mut(), LAT_REPS, warmup, LAT_INNER);
                (t, lo, hi, t * 1e9)
            }
            _ => {
                let (t, lo, hi) = timeit(f.as_mut(), reps, warmup, 1);
                (t, lo, hi, *count / t / 1e9)
            }
        };
        println!("{name} {threads} {} {val:.3}", sci(t));
        eprintln!("#spread {name} {} {}", sci(lo), sci(hi));
    }
    // The autograd cases (bench/train.py): time per op in µs or ns.
    for name in bench_train::NAMES {
        if !only.is_empty() && !only.iter().any(|o| o == name) {
            continue;
        }
        let mut case = bench_train::build(name).expect("building the bench inputs");
        let mut f = || Some((case.step)().expect("the autograd bench step"));
        let (t, lo, hi) = timeit(&mut f, reps, warmup, 1);
        let per = case.ops_per_call as f64;
        let (t, lo, hi) = (t / per, lo / per, hi / per);
        let scale = if case.unit == "us" { 1e6 } else { 1e9 };
        println!("{} {threads} {} {:.3}", case.name, sci(t), t * scale);
        eprintln!("#spread {} {} {}", case.name, sci(lo), sci(hi));
    }
    // The op suite of bench/ops.txt, in table order.
    for row in bench_ops::rows() {
        if !only.is_empty() && !only.contains(&row.name) {
            continue;
        }
        let (mut f, count) = bench_ops::build(&row).expect("building the bench inputs");
        let name = &row.name;
        let (t, lo, hi, val) = if row.unit == "ns" {
            for _ in 0..warmup {
                drop(f());
            }
            let t0 = Instant::now();
            drop(f());
            let inner = bench_ops::lat_inner(t0.elapsed().as_secs_f64());
            let (t, lo, hi) = timeit(f.as_mut(), LAT_REPS, 0, inner);
            (t, lo, hi, t * 1e9)
        } else {
            let (t, lo, hi) = timeit(f.as_mut(), reps, warmup, 1);
            (t, lo, hi, count / t / 1e9)
        };
        println!("{name} {threads} {} {val:.3}", sci(t));
        eprintln!("#spread {name} {} {}", sci(lo), sci(hi));
    }
}
