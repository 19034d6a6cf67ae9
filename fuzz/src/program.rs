//! The fuzz programs: a byte decoder and two interpreters over tensile's public API.
//!
//! * [`run_api`] decodes the bytes into a random program: a few tensors from constructors
//!   (random shapes including 0 and sizes near 2^31, 2^40, 2^62 and `usize::MAX`, every
//!   dtype, optional `as_strided` geometry), then a sequence of op calls on a small pool of
//!   tensors (the OpInfo table's entries among them, see [`sample_call`]). Every op's
//!   `Result` is dropped: an `Err` is fine, a panic, abort or memory error is a crash.
//! * [`run_layout`] drives the pure layout and shape functions on arbitrary sizes/strides.
//! * [`run_geometry`] drives the shape rules of `tensile::geometry` (views, pooling,
//!   convolution and fold, interpolation and padding, advanced-index placement, einsum
//!   subscripts) on arbitrary arguments and asserts their invariants.
//!
//! This one file is shared by the cargo-fuzz targets (`fuzz/fuzz_targets/*.rs`) and the
//! regression test (`tensile/tests/fuzz_regressions.rs`, through `#[path]`), so a saved
//! crashing input replays exactly as the fuzzer ran it.
//!
//! Work guard: huge SIZES are the point (they must come back as errors, cheaply), but an op
//! that would really compute over more than [`WORK_LIMIT`] elements of a valid tensor is
//! skipped. Allocations of at least [`SURE_FAIL`] elements are let through (they cannot
//! succeed, so tensile must return its allocator error).
#![allow(dead_code, clippy::all)]

use tensile::nn::functional as F;
use tensile::{DType, Generator, Operand, Scalar, Tensor, TensorIndex};

/// The op table (OpInfo) the pointwise arms draw their ops from.
#[path = "../../tensile/tests/opinfo/mod.rs"]
mod opinfo;

/// Ops computing over more elements than this (of a valid operand or result) are skipped.
pub const WORK_LIMIT: u128 = 1 << 20;
/// Element counts at or above this cannot be allocated (≥ 1 TiB at one byte each): ops whose
/// result has this many elements must fail cheaply, so they are run.
pub const SURE_FAIL: u128 = 1 << 40;
/// At most this many op calls per program (keeps programs fast).
pub const MAX_OPS: usize = 24;
/// At most this many tensors in the pool.
pub const MAX_POOL: usize = 8;

const BIG_SIZES: [usize; 16] = [
    0,
    1,
    2,
    3,
    (1 << 31) - 1,
    1 << 31,
    1 << 32,
    1 << 40,
    1 << 62,
    (1 << 62) + 1,
    (1 << 63) - 1,
    1 << 63,
    usize::MAX,
    usize::MAX - 1,
    1 << 20,
    65537,
];

const BIG_INTS: [i64; 16] = [
    i64::MIN,
    i64::MAX,
    -(1 << 31),
    1 << 31,
    1 << 40,
    1 << 62,
    -(1 << 62),
    (1 << 32) + 1,
    i64::MIN + 1,
    i64::MAX - 1,
    -1000,
    1000,
    -(1 << 40),
    255,
    256,
    -129,
];

const FLOATS: [f64; 16] = [
    0.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    1e300,
    -1e300,
    3.7,
    -0.0,
    1e-300,
    255.0,
    65504.0,
    1e20,
];

const DTYPES: [DType; 10] = [
    DType::Bool,
    DType::UInt8,
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::Float16,
    DType::BFloat16,
    DType::Float32,
    DType::Float64,
];

/// A cursor over the input bytes; past the end every read gives 0.
pub struct Rd<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Rd<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Rd { data, pos: 0 }
    }
    pub fn done(&self) -> bool {
        self.pos >= self.data.len()
    }
    pub fn u8(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }
    pub fn u64(&mut self) -> u64 {
        let mut x = 0u64;
        for _ in 0..8 {
            x = (x << 8) | self.u8() as u64;
        }
        x
    }
    pub fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }
    pub fn below(&mut self, n: usize) -> usize {
        self.u8() as usize % n.max(1)
    }
    /// A size: mostly 0..=7, sometimes a big or boundary value.
    pub fn size(&mut self) -> usize {
        let b = self.u8();
        if b < 224 {
            (b % 8) as usize
        } else if b < 240 {
            BIG_SIZES[(b - 224) as usize]
        } else {
            let k = self.u8();
            BIG_SIZES[(k % 16) as usize]
                .wrapping_add((k / 16) as usize)
                .wrapping_sub(8)
        }
    }
    /// A [`Rd::size`] a tensor can have (at most `i64::MAX`).
    pub fn tensor_size(&mut self) -> usize {
        self.size().min(i64::MAX as usize)
    }
    /// A size made only of small values (for args that would legitimately mean big work).
    pub fn small(&mut self) -> usize {
        (self.u8() % 6) as usize
    }
    pub fn shape(&mut self) -> Vec<usize> {
        let n = self.below(5);
        (0..n).map(|_| self.size()).collect()
    }
    pub fn small_shape(&mut self) -> Vec<usize> {
        let n = self.below(5);
        (0..n).map(|_| self.small()).collect()
    }
    /// An int argument: mostly -4..=11, sometimes a big or boundary value.
    pub fn int(&mut self) -> i64 {
        let b = self.u8();
        if b < 224 {
            (b % 16) as i64 - 4
        } else {
            BIG_INTS[(b % 16) as usize]
        }
    }
    pub fn ints(&mut self) -> Vec<i64> {
        let n = self.below(5);
        (0..n).map(|_| self.int()).collect()
    }
    pub fn dim(&mut self) -> i64 {
        let b = self.u8();
        if b < 240 {
            (b % 10) as i64 - 5
        } else {
            BIG_INTS[(b % 16) as usize]
        }
    }
    pub fn dims(&mut self) -> Vec<i64> {
        let n = self.below(4);
        (0..n).map(|_| self.dim()).collect()
    }
    pub fn float(&mut self) -> f64 {
        let b = self.u8();
        if b < 128 {
            FLOATS[(b % 16) as usize]
        } else {
            (b as f64 - 192.0) / 8.0
        }
    }
    pub fn dtype(&mut self) -> DType {
        DTYPES[self.below(10)]
    }
    pub fn scalar(&mut self) -> Scalar {
        match self.below(3) {
            0 => Scalar::Bool(self.bool()),
            1 => Scalar::Int(self.int()),
            _ => Scalar::Float(self.float()),
        }
    }
    pub fn opt_int(&mut self) -> Option<i64> {
        if self.bool() { Some(self.int()) } else { None }
    }
}

/// With `TENSILE_FUZZ_SKIP_KNOWN=1` in the environment, inputs reaching crashes already
/// recorded (in `tensile/tests/fuzz_regressions.rs`'s `KNOWN`) are skipped, so that a fuzzing
/// session finds new ones instead of the same ones again. Off by default (and in the
/// regression test).
pub fn skip_known() -> bool {
    static SKIP: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SKIP.get_or_init(|| std::env::var_os("TENSILE_FUZZ_SKIP_KNOWN").is_some_and(|v| v == "1"))
}

fn numel128(sizes: &[usize]) -> u128 {
    let mut n: u128 = 1;
    for &s in sizes {
        n = n.saturating_mul(s as u128);
    }
    n
}

/// A result of `n` elements may be computed: small, or so big it cannot be allocated.
fn alloc_ok(n: u128) -> bool {
    n <= WORK_LIMIT || n >= SURE_FAIL
}

fn cheap(t: &Tensor) -> bool {
    numel128(t.size()) <= WORK_LIMIT
}

/// A reduction of `t` over any dims may be computed: its result has at most the numel of
/// `t`'s sizes with every 0 counted as 1 (summing a `(0, 2^30)` tensor over dim 0 really
/// writes 2^30 zeros), and that bound is small or cannot be allocated.
fn reduce_ok(t: &Tensor) -> bool {
    let bound: Vec<usize> = t.size().iter().map(|&s| s.max(1)).collect();
    alloc_ok(numel128(&bound))
}

/// Every operand is small enough to compute over.
fn cheap_all(ts: &[&Tensor]) -> bool {
    ts.iter().all(|t| cheap(t))
}

/// Elementwise over the broadcast of the operands: allowed when the broadcast result is
/// small or certainly unallocatable (or the shapes don't broadcast: an error).
fn pointwise_ok(ts: &[&Tensor]) -> bool {
    let shapes: Vec<&[usize]> = ts.iter().map(|t| t.size()).collect();
    match tensile::broadcast::infer_size_all(shapes) {
        Ok(s) => alloc_ok(numel128(&s)),
        Err(_) => true,
    }
}

fn data_vec(r: &mut Rd, dtype: DType, n: usize) -> Option<Tensor> {
    let shape = r.shape();
    macro_rules! mk {
        ($T:ty, $f:expr) => {{
            let v: Vec<$T> = (0..n).map(|_| $f(r)).collect();
            Tensor::from_vec(v, shape.as_slice()).ok()
        }};
    }
    match dtype {
        DType::Bool => mk!(bool, |r: &mut Rd| r.bool()),
        DType::UInt8 => mk!(u8, |r: &mut Rd| r.u8()),
        DType::Int8 => mk!(i8, |r: &mut Rd| r.u8() as i8),
        DType::Int16 => mk!(i16, |r: &mut Rd| r.int() as i16),
        DType::Int32 => mk!(i32, |r: &mut Rd| r.int() as i32),
        DType::Int64 => mk!(i64, |r: &mut Rd| r.int()),
        DType::Float16 => mk!(half::f16, |r: &mut Rd| half::f16::from_f64(r.float())),
        DType::BFloat16 => mk!(half::bf16, |r: &mut Rd| half::bf16::from_f64(r.float())),
        DType::Float32 => mk!(f32, |r: &mut Rd| r.float() as f32),
        DType::Float64 => mk!(f64, |r: &mut Rd| r.float()),
    }
}

/// A tensor from one of the constructors (`None` when the constructor refused).
fn construct(r: &mut Rd) -> Option<Tensor> {
    let dt = r.dtype();
    let t = match r.below(12) {
        0 => {
            let s = r.shape();
            if !alloc_ok(numel128(&s)) {
                return None;
            }
            Tensor::zeros_with(s.as_slice(), dt).ok()
        }
        1 => {
            let s = r.shape();
            if !alloc_ok(numel128(&s)) {
                return None;
            }
            Tensor::ones_with(s.as_slice(), dt).ok()
        }
        2 => {
            let s = r.shape();
            let v = r.scalar();
            if !alloc_ok(numel128(&s)) {
                return None;
            }
            Tensor::full_with(s.as_slice(), v, dt).ok()
        }
        3 | 4 => {
            let n = r.below(17);
            data_vec(r, dt, n)
        }
        5 => {
            // arange(start, end, step): guard the element count it would produce.
            let (a, b, c) = (r.float(), r.float(), r.float());
            let n = ((b - a) / c).ceil();
            if n.is_finite() && n > WORK_LIMIT as f64 && n < SURE_FAIL as f64 {
                return None;
            }
            if skip_known() && !(n.abs() <= WORK_LIMIT as f64) {
                return None;
            }
            if r.bool() {
                Tensor::arange_with((a, b, c), dt).ok()
            } else {
                let (a, b, c) = (r.int(), r.int(), r.int());
                let n = if c != 0 {
                    ((b as i128 - a as i128) / c as i128).unsigned_abs()
                } else {
                    0
                };
                if n > WORK_LIMIT && (n < SURE_FAIL || skip_known()) {
                    return None;
                }
                Tensor::arange((a, b, c)).ok()
            }
        }
        6 => {
            let s = r.shape();
            let seed = r.u8() as u64;
            if !alloc_ok(numel128(&s)) || (skip_known() && numel128(&s) >= SURE_FAIL) {
                return None;
            }
            if r.bool() {
                Tensor::rand_with(s.as_slice(), (&Generator::new().manual_seed(seed), dt)).ok()
            } else {
                Tensor::randn_with(s.as_slice(), (&Generator::new().manual_seed(seed), dt)).ok()
            }
        }
        7 => {
            let s = r.shape();
            if !alloc_ok(numel128(&s)) {
                return None;
            }
            // empty's values are unspecified: fill it so later reads are defined.
            let t = Tensor::empty_with(s.as_slice(), dt).ok()?;
            let _ = t.fill_(0);
            Some(t)
        }
        8 => {
            let n = r.int();
            let nn = (n as i128 * n as i128).unsigned_abs();
            if nn > WORK_LIMIT && nn < SURE_FAIL {
                return None;
            }
            Tensor::eye(n).ok()
        }
        9 => {
            let (a, b) = (r.float(), r.float());
            let steps = r.int();
            if steps as u128 > WORK_LIMIT && ((steps as u128) < SURE_FAIL || skip_known()) {
                return None;
            }
            Tensor::linspace_with(a, b, steps, dt).ok()
        }
        10 => Tensor::scalar_tensor_with(r.scalar(), dt).ok(),
        _ => {
            let (a, b, o) = (r.int(), r.int(), r.int());
            if (a as i128 * b as i128).unsigned_abs() > WORK_LIMIT {
                return None;
            }
            if r.bool() {
                tensile::tril_indices_with(a, b, o).ok()
            } else {
                tensile::triu_indices_with(a, b, o).ok()
            }
        }
    }?;
    // Sometimes: random as_strided geometry over it.
    if r.u8() < 40 {
        let size = r.shape();
        let stride: Vec<usize> = (0..size.len()).map(|_| r.size()).collect();
        let off = r.int();
        return t
            .as_strided_with(size.as_slice(), stride.as_slice(), off)
            .ok()
            .or(Some(t));
    }
    Some(t)
}

fn index_item(r: &mut Rd, pool: &[Tensor]) -> TensorIndex {
    match r.below(7) {
        0 => TensorIndex::Int(r.int()),
        1 => TensorIndex::Slice(r.opt_int(), r.opt_int(), r.opt_int()),
        2 => TensorIndex::NewAxis,
        3 => TensorIndex::Ellipsis,
        4 => TensorIndex::Bool(r.bool()),
        _ => TensorIndex::from(&pool[r.below(pool.len())]),
    }
}

/// The `k`-th (mod their count) one-tensor op of the OpInfo table (`Sig::Unary` entries
/// with `fuzz`), or its in-place form when it has one and `inplace`.
fn unary(t: &Tensor, k: usize, inplace: bool) {
    let ops = opinfo::fuzzed(opinfo::Sig::Unary);
    let info = ops[k % ops.len()];
    let a = opinfo::Args {
        inplace: inplace && info.inplace,
        ..opinfo::Args::new(vec![opinfo::Arg::Tensor(t.alias())])
    };
    let _ = info.run(&a);
}

/// The `k`-th (mod their count) tensor-and-operand op of the OpInfo table (`Sig::Binary`
/// entries with `fuzz`), or its in-place form when it has one and `inplace`.
fn binary(t: &Tensor, o: Operand<'_>, k: usize, inplace: bool) {
    let ops = opinfo::fuzzed(opinfo::Sig::Binary);
    let info = ops[k % ops.len()];
    let y = match o {
        Operand::Tensor(b) => opinfo::Arg::Tensor(b.alias()),
        Operand::Scalar(s) => opinfo::Arg::Scalar(s),
    };
    let a = opinfo::Args {
        inplace: inplace && info.inplace,
        ..opinfo::Args::new(vec![opinfo::Arg::Tensor(t.alias()), y])
    };
    let _ = info.run(&a);
}

/// A reduction of the OpInfo table (`Sig::Reduce` and `Sig::ReduceDim` entries with `fuzz`)
/// over every dim or `dim=` one dim or (`Sig::Reduce`) a list of dims, with `keepdim=` and
/// sometimes `correction=` or `p=`; its first output.
fn reduction(r: &mut Rd, t: &Tensor) -> tensile::Result<Tensor> {
    let mut ops = opinfo::fuzzed(opinfo::Sig::Reduce);
    ops.extend(opinfo::fuzzed(opinfo::Sig::ReduceDim));
    let info = ops[r.below(ops.len())];
    let mut a = opinfo::Args::new(vec![opinfo::Arg::Tensor(t.alias())]);
    let kw = |k: &str, v| (k.to_string(), v);
    match r.below(3) {
        0 => {}
        1 => {
            a.kw.push(kw("dim", opinfo::Arg::Scalar(Scalar::Int(r.dim()))))
        }
        _ if info.sig == opinfo::Sig::Reduce => a.kw.push(kw("dim", opinfo::Arg::Ints(r.dims()))),
        _ => {
            a.kw.push(kw("dim", opinfo::Arg::Scalar(Scalar::Int(r.dim()))))
        }
    }
    a.kw.push(kw("keepdim", opinfo::Arg::Scalar(Scalar::Bool(r.bool()))));
    if r.bool() {
        let c = opinfo::Arg::Scalar(Scalar::Float(r.float()));
        a.kw.push(kw(if r.bool() { "correction" } else { "p" }, c));
    }
    info.run(&a).map(opinfo::Ret::first)
}

/// A scan of the OpInfo table (`Sig::Scan` entries with `fuzz`) along `dim=`, sometimes with
/// `dtype=`, in place, or (`diff`) with `n=` and `prepend=`; its first output.
fn scan(r: &mut Rd, t: &Tensor, other: &Tensor) -> tensile::Result<Tensor> {
    let ops = opinfo::fuzzed(opinfo::Sig::Scan);
    let info = ops[r.below(ops.len())];
    let mut a = opinfo::Args::new(vec![opinfo::Arg::Tensor(t.alias())]);
    let kw = |k: &str, v| (k.to_string(), v);
    a.kw.push(kw("dim", opinfo::Arg::Scalar(Scalar::Int(r.dim()))));
    match r.below(4) {
        0 => a.kw.push(kw("dtype", opinfo::Arg::DType(r.dtype()))),
        1 => a.inplace = info.inplace,
        2 => {
            a.kw.push(kw("n", opinfo::Arg::Scalar(Scalar::Int(r.int()))));
            a.kw.push(kw("prepend", opinfo::Arg::Tensor(other.alias())));
        }
        _ => {}
    }
    info.run(&a).map(opinfo::Ret::first)
}

/// Keeps the pool bounded: replaces a random slot once full.
fn push(pool: &mut Vec<Tensor>, r: &mut Rd, t: tensile::Result<Tensor>) {
    if let Ok(t) = t {
        if pool.len() < MAX_POOL {
            pool.push(t);
        } else {
            let i = r.below(pool.len());
            pool[i] = t;
        }
    }
}

fn push_all(pool: &mut Vec<Tensor>, r: &mut Rd, ts: tensile::Result<Vec<Tensor>>) {
    if let Ok(ts) = ts {
        if let Some(t) = ts.into_iter().next() {
            push(pool, r, Ok(t));
        }
    }
}

/// One random program over the public API.
pub fn run_api(data: &[u8]) {
    let mut r = Rd::new(data);
    let mut pool: Vec<Tensor> = Vec::new();
    let n0 = 1 + r.below(3);
    for _ in 0..n0 {
        if let Some(t) = construct(&mut r) {
            pool.push(t);
        }
    }
    let mut ops = 0;
    while !r.done() && ops < MAX_OPS {
        ops += 1;
        if pool.is_empty() {
            if let Some(t) = construct(&mut r) {
                pool.push(t);
            }
            continue;
        }
        let op = r.u8();
        let a = pool[r.below(pool.len())].alias();
        let b = pool[r.below(pool.len())].alias();
        let c = pool[r.below(pool.len())].alias();
        step(&mut r, &mut pool, op, &a, &b, &c);
    }
}

fn step(r: &mut Rd, pool: &mut Vec<Tensor>, op: u8, a: &Tensor, b: &Tensor, c: &Tensor) {
    let ca = cheap(a);
    match op {
        // ---- constructors and geometry
        0 => {
            if let Some(t) = construct(r) {
                push(pool, r, Ok(t));
            }
        }
        1 => {
            let size = r.shape();
            let stride: Vec<usize> = (0..size.len()).map(|_| r.size()).collect();
            let off = r.int();
            let t = a.as_strided_with(size.as_slice(), stride.as_slice(), off);
            push(pool, r, t)
        }
        // ---- views
        2 => {
            let s = r.ints();
            push(pool, r, a.view(s.as_slice()))
        }
        3 => {
            let s = r.ints();
            let t = if ca {
                a.reshape(s.as_slice())
            } else {
                a.view(s.as_slice())
            };
            push(pool, r, t)
        }
        4 => {
            let (d0, d1) = (r.dim(), r.dim());
            push(pool, r, a.transpose(d0, d1))
        }
        5 => {
            let d = r.dims();
            push(pool, r, a.permute(d.as_slice()))
        }
        6 => {
            let (d, s, l) = (r.dim(), r.int(), r.int());
            push(pool, r, a.narrow(d, s, l))
        }
        7 => {
            let (d, i) = (r.dim(), r.int());
            push(pool, r, a.select(d, i))
        }
        8 => {
            let (d, s, e, st) = (r.dim(), r.opt_int(), r.opt_int(), r.int());
            push(pool, r, a.slice(d, s, e, st))
        }
        9 => {
            let s = r.ints();
            push(pool, r, a.expand(s.as_slice()))
        }
        10 => {
            let d = r.dim();
            push(pool, r, a.unsqueeze(d))
        }
        11 => {
            let t = if r.bool() {
                a.squeeze()
            } else {
                a.squeeze_dim(r.dims().as_slice())
            };
            push(pool, r, t)
        }
        12 => {
            let (d, s, st) = (r.dim(), r.int(), r.int());
            push(pool, r, a.unfold(d, s, st))
        }
        13 => {
            let o = tensile::DiagonalOpts {
                offset: r.int(),
                dim1: r.dim(),
                dim2: r.dim(),
            };
            push(pool, r, a.diagonal_with(o))
        }
        14 => {
            let t = match r.below(5) {
                0 => a.t(),
                1 => a.T(),
                2 => a.mT(),
                3 => a.flatten_with(tensile::FlattenOpts {
                    start_dim: r.dim(),
                    end_dim: r.dim(),
                }),
                _ => {
                    if ca {
                        a.ravel()
                    } else {
                        a.flatten()
                    }
                }
            };
            push(pool, r, t)
        }
        15 => {
            let (d, s) = (r.dim(), r.ints());
            push(pool, r, a.unflatten(d, s.as_slice()))
        }
        16 => {
            let (s, d) = (r.dims(), r.dims());
            push(pool, r, a.movedim(s.as_slice(), d.as_slice()))
        }
        17 => {
            let t = match r.below(5) {
                0 => a.split(r.int()),
                1 => a.split_with(r.int(), r.dim()),
                2 => a.chunk_with(r.int(), r.dim()),
                3 => a.unbind_with(r.dim()),
                _ => a.split_with_sizes(r.ints().as_slice(), r.dim()),
            };
            push_all(pool, r, t)
        }
        18 => {
            let t = if r.bool() {
                a.expand_as(b)
            } else {
                a.view_as(b)
            };
            push(pool, r, t)
        }
        19 => push_all(pool, r, tensile::broadcast_tensors(&[a, b])),
        20 => {
            let (x, y) = (r.dim(), r.dim());
            push(pool, r, a.swapaxes(x, y))
        }
        // ---- indexing
        21 => {
            let n = r.below(4);
            let items: Vec<TensorIndex> = (0..n).map(|_| index_item(r, pool)).collect();
            if ca && cheap(b) {
                push(pool, r, a.index(&items))
            } else {
                // Basic indexing only: a view.
                let items: Vec<TensorIndex> = items
                    .into_iter()
                    .filter(|i| !matches!(i, TensorIndex::Tensor(_) | TensorIndex::Bool(_)))
                    .collect();
                push(pool, r, a.index(&items))
            }
        }
        22 if ca && cheap(b) && cheap(c) => {
            let acc = r.bool();
            let idx = [Some(b.alias())];
            let t = if r.bool() {
                a.index_put_with_(&idx[..], c, acc)
            } else {
                a.index_put_with(&idx[..], c, acc)
            };
            push(pool, r, t)
        }
        23 if ca && cheap(b) => {
            let d = r.dim();
            push(pool, r, a.index_select(d, b))
        }
        24 if ca && cheap(b) && cheap(c) => {
            let d = r.dim();
            let t = match r.below(6) {
                0 => a.index_add(d, b, c),
                1 => a.index_add_(d, b, c),
                2 => a.index_copy(d, b, c),
                3 => a.index_copy_(d, b, c),
                4 => a.index_fill(d, b, r.scalar()),
                _ => a.index_fill_(d, b, c),
            };
            push(pool, r, t)
        }
        25 if ca && cheap(b) && cheap(c) => {
            let d = r.dim();
            let red = ["prod", "mean", "amax", "amin", "sum"][r.below(5)];
            let t = if r.bool() {
                a.index_reduce(d, b, c, red)
            } else {
                a.index_reduce_(d, b, c, red)
            };
            push(pool, r, t)
        }
        26 if ca && cheap(b) && cheap(c) => {
            let t = match r.below(6) {
                0 => a.masked_fill(b, r.scalar()),
                1 => a.masked_fill_(b, c),
                2 => a.masked_select(b),
                3 => a.masked_scatter(b, c),
                4 => a.masked_scatter_(b, c),
                _ => tensile::where_cond(a, b, c),
            };
            push(pool, r, t)
        }
        27 if ca => {
            let t = match r.below(5) {
                0 => a.nonzero(),
                1 => a.argwhere(),
                2 => a.count_nonzero(),
                3 => a.count_nonzero_dim(r.dims().as_slice()),
                _ => {
                    push_all(pool, r, tensile::where_cond_only(a));
                    return;
                }
            };
            push(pool, r, t)
        }
        28 if ca && cheap(b) && cheap(c) => {
            let d = r.dim();
            let t = match r.below(8) {
                0 => a.gather(d, b),
                1 => a.scatter(d, b, c),
                2 => a.scatter_(d, b, r.scalar()),
                3 => a.scatter_add(d, b, c),
                4 => a.scatter_add_(d, b, c),
                5 => {
                    let red = ["sum", "prod", "mean", "amax", "amin"][r.below(5)];
                    a.scatter_reduce(d, b, c, red)
                }
                6 => a.take(b),
                _ => a.take_along_dim(b),
            };
            push(pool, r, t)
        }
        // ---- sort family
        29 if ca => {
            let t = match r.below(7) {
                0 => a
                    .sort_with(tensile::SortOpts {
                        dim: r.dim(),
                        descending: r.bool(),
                        stable: Some(r.bool()),
                    })
                    .map(|x| x.1),
                1 => a.argsort(),
                2 => a.msort(),
                3 => a
                    .topk_with(
                        r.int(),
                        tensile::TopkOpts {
                            dim: r.dim(),
                            largest: r.bool(),
                            sorted: r.bool(),
                        },
                    )
                    .map(|x| x.0),
                4 => a.kthvalue(r.int()).map(|x| x.0),
                5 => a.median_dim(r.dim(), r.bool()).map(|x| x.1),
                _ => a.nanmedian(),
            };
            push(pool, r, t)
        }
        30 if ca => {
            let t = match r.below(4) {
                0 => a.unique(),
                1 => a
                    .unique_with(tensile::UniqueOpts {
                        sorted: r.bool(),
                        return_inverse: r.bool(),
                        return_counts: r.bool(),
                        dim: if r.bool() { Some(r.dim()) } else { None },
                    })
                    .map(|u| u.0),
                2 => a.unique_consecutive(),
                _ => a.median(),
            };
            push(pool, r, t)
        }
        31 if ca && cheap(b) => {
            let t = match r.below(3) {
                0 => tensile::searchsorted(a, b),
                1 => tensile::bucketize(a, b),
                _ => tensile::isin(a, b),
            };
            push(pool, r, t)
        }
        // ---- scans
        32 if ca => {
            let t = scan(r, a, b);
            push(pool, r, t)
        }
        // ---- pointwise
        33..=40 if pointwise_ok(&[a]) => {
            let k = r.below(256);
            unary(a, k, op >= 38);
            if op == 33 {
                push(pool, r, a.abs());
            }
        }
        41..=48 => {
            let k = r.below(256);
            let inplace = op >= 46;
            if r.u8() < 64 {
                if pointwise_ok(&[a]) {
                    binary(a, Operand::Scalar(r.scalar()), k, inplace);
                }
            } else if pointwise_ok(&[a, b]) {
                binary(a, Operand::Tensor(b), k, inplace);
                if op == 41 {
                    push(pool, r, a.add(b));
                }
            }
        }
        49 if pointwise_ok(&[a, b, c]) => {
            let t = match r.below(10) {
                0 => a.lerp(b, c),
                1 => a.lerp_(b, r.float()),
                2 => a.addcmul(b, c),
                3 => a.addcmul_(b, c),
                4 => a.addcdiv(b, c),
                5 => a.addcdiv_(b, c),
                6 => a.clamp(b, c),
                7 => a.clamp_(r.scalar(), r.scalar()),
                8 => a.clip(Operand::Scalar(r.scalar()), c),
                _ => tensile::where_cond(a, b, r.scalar()),
            };
            push(pool, r, t)
        }
        50 if pointwise_ok(&[a]) => {
            let t = a.to(r.dtype());
            push(pool, r, t)
        }
        // ---- in-place copies and fills
        51 if pointwise_ok(&[a, b]) => {
            let _ = a.copy_(b);
        }
        52 if ca => {
            let _ = a.fill_(r.scalar());
        }
        53 if pointwise_ok(&[a]) => {
            push(pool, r, Ok(a.contiguous()));
        }
        54 if pointwise_ok(&[a]) => {
            push(pool, r, a.contiguous_channels_last());
        }
        // ---- reductions
        55 if ca && reduce_ok(a) => {
            let t = reduction(r, a);
            push(pool, r, t)
        }
        56 if ca => {
            let d = r.dim();
            let t = match r.below(3) {
                0 => a.softmax(d),
                1 => a.log_softmax(d),
                _ => {
                    // a norm over dim 1: a reduction's result
                    if !reduce_ok(a) {
                        return;
                    }
                    a.normalize()
                }
            };
            push(pool, r, t)
        }
        // ---- matmul family
        57 if ca && cheap(b) => {
            // Output size guard: at most the product of both operands' numels.
            if numel128(a.size()).saturating_mul(numel128(b.size())) > WORK_LIMIT * 16 {
                return;
            }
            let t = match r.below(12) {
                0 => a.matmul(b),
                1 => a.mm(b),
                2 => a.bmm(b),
                3 => a.mv(b),
                4 => a.dot(b),
                5 => a.outer(b),
                6 => a.kron(b),
                7 => a.linear(b),
                8 => tensile::addmm_with(a, a, b, (r.float(), r.float())),
                9 => tensile::baddbmm(a, a, b),
                10 => tensile::rsub(a, b),
                _ => tensile::tensordot(a, b, r.int()),
            };
            push(pool, r, t)
        }
        58 if ca && cheap(b) => {
            if numel128(a.size()).saturating_mul(numel128(b.size())) > WORK_LIMIT * 16 {
                return;
            }
            let eqs = [
                "ij,jk->ik",
                "i,i->",
                "bij,bjk->bik",
                "ii->i",
                "...i,...i->...",
                "ij->ji",
                "i,j->ij",
                "ab,ab->",
                "ij,kj",
                "a...,...a->a",
                "iij->j",
                "",
            ];
            let e = eqs[r.below(eqs.len())];
            let t = if r.bool() {
                tensile::einsum(e, &[a, b])
            } else {
                tensile::einsum(e, &[a])
            };
            push(pool, r, t)
        }
        // ---- cat/stack and shape utilities
        59 if cheap_all(&[a, b, c]) => {
            let d = r.dim();
            let t = match r.below(8) {
                0 => tensile::cat_with(&[a, b], d),
                1 => tensile::stack_with(&[a, b, c], d),
                2 => tensile::hstack(&[a, b]),
                3 => tensile::vstack(&[a, b]),
                4 => tensile::dstack(&[a, c]),
                5 => tensile::column_stack(&[a, b]),
                6 => tensile::block_diag(&[a, b]),
                _ => tensile::cat(&[a, b, c]),
            };
            push(pool, r, t)
        }
        60 if ca => {
            let s = r.small_shape();
            // repeat/tile multiply the size: guard the result (legitimately big work).
            if numel128(a.size()).saturating_mul(numel128(&s).max(6)) > WORK_LIMIT {
                return;
            }
            let t = match r.below(5) {
                0 => a.repeat(s.as_slice()),
                1 => a.tile(s.as_slice()),
                2 => a.repeat_interleave(r.small() as i64),
                3 => a.roll_with(r.ints().as_slice(), r.dims().as_slice()),
                _ => a.flip(r.dims().as_slice()),
            };
            push(pool, r, t)
        }
        // diag_embed/diagflat square the size: guard the input.
        61 if ca && a.numel() <= 1024 => {
            let t = match r.below(10) {
                0 => a.rot90_with(r.int(), r.dims().as_slice()),
                1 => a.tril_with(r.int()),
                2 => a.triu_with(r.int()),
                3 => a.narrow_copy(r.dim(), r.int(), r.int()),
                4 => a.trace(),
                5 => a.diag_with(r.int()),
                6 => a.diag_embed(),
                7 => a.diagflat_with(r.small() as i64),
                8 => a.fliplr(),
                _ => a.atleast_3d(),
            };
            push(pool, r, t)
        }
        62 if ca => {
            let t = match r.below(4) {
                0 => a.tensor_split(r.int()),
                1 => a.tensor_split_with(r.ints().as_slice(), r.dim()),
                2 => a.hsplit(r.int()),
                _ => a.vsplit(r.ints().as_slice()),
            };
            push_all(pool, r, t)
        }
        63 if cheap_all(&[a, b]) && a.numel() <= 64 && b.numel() <= 64 => {
            let t = match r.below(5) {
                0 => tensile::cartesian_prod(&[a, b]),
                1 => tensile::combinations(a),
                2 => tensile::meshgrid(&[a, b])
                    .map(|v| v.into_iter().next().unwrap_or_else(|| a.alias())),
                3 => tensile::linalg::cross(a, b),
                _ => tensile::repeat_interleave(a),
            };
            push(pool, r, t)
        }
        // ---- printing and reading out
        64 if ca => {
            let s = format!("{a}");
            let d = format!("{a:?}");
            std::hint::black_box((s, d));
        }
        65 if ca => {
            match a.dtype() {
                DType::Bool => drop(std::hint::black_box(a.to_vec::<bool>())),
                d if d.is_floating_point() => drop(std::hint::black_box(a.to_vec::<f64>())),
                _ => drop(std::hint::black_box(a.to_vec::<i64>())),
            }
            let _ = a.item::<f64>();
        }
        66 => {
            // Metadata: never computes.
            let _ = std::hint::black_box((
                a.size_of(r.dim()),
                a.stride_of(r.dim()),
                a.is_contiguous(),
                a.is_non_overlapping_and_dense(),
                a.is_contiguous_channels_last(),
                a.numel(),
                a.storage_nbytes(),
            ));
        }
        // ---- nn functional
        67 if cheap_all(&[a, b]) => {
            let t = match r.below(12) {
                0 => F::relu(a),
                1 => F::gelu_with(a, "tanh"),
                2 => F::softplus(a),
                3 => F::leaky_relu_(a),
                4 => F::elu(a),
                5 => F::hardtanh(a),
                6 => F::glu_with(a, r.dim()),
                7 => F::prelu(a, b),
                8 => F::logsigmoid(a),
                9 => F::threshold(a, r.float(), r.float()),
                10 => F::mish_(a),
                _ => {
                    let training = r.bool();
                    // the mask's generator (the default one) seeded from the input
                    tensile::manual_seed(r.u8() as u64);
                    F::dropout_with(
                        a,
                        F::DropoutOpts {
                            p: 0.5,
                            training,
                            inplace: false,
                        },
                    )
                }
            };
            push(pool, r, t)
        }
        68 if a.numel() <= 1 << 14 && b.numel() <= 1024 && cheap(c) => {
            let k = (r.small() + 1) as i64;
            let t = match r.below(14) {
                0 => F::conv1d(a, b),
                1 => F::conv2d(a, b),
                2 => F::conv3d(a, b),
                3 => F::conv_transpose1d(a, b),
                4 => F::conv_transpose2d(a, b),
                5 => F::conv2d_with(
                    a,
                    b,
                    F::ConvOpts {
                        stride: [r.int()].into_iter().collect(),
                        padding: F::ConvPadding::Ints([r.int()].into_iter().collect()),
                        dilation: [r.int()].into_iter().collect(),
                        groups: r.int(),
                        bias: Some(c),
                    },
                ),
                6 => F::max_pool1d(a, k),
                7 => F::max_pool2d(a, [k, k]),
                8 => F::avg_pool2d(a, [k, k]),
                9 => F::adaptive_avg_pool2d(a, [r.small() as i64, r.small() as i64]),
                10 => F::adaptive_max_pool1d(a, r.small() as i64),
                11 => F::lp_pool1d(a, r.float(), k),
                12 => F::unfold(a, [k, k]),
                _ => F::fold(a, [r.small() as i64, r.small() as i64], [k, k]),
            };
            push(pool, r, t)
        }
        69 if cheap_all(&[a, b, c]) => {
            let which = r.below(10);
            // the norms compute statistics: reductions' results
            if which <= 5 && !reduce_ok(a) {
                return;
            }
            let t = match which {
                0 => F::layer_norm(a, r.small_shape().as_slice()),
                1 => F::rms_norm(a, r.small_shape().as_slice()),
                2 => F::group_norm(a, r.int()),
                3 => F::batch_norm(a, Some(b), Some(c)),
                4 => F::instance_norm(a),
                5 => F::local_response_norm(a, r.int()),
                6 => F::pad_with(
                    a,
                    r.ints().as_slice(),
                    ["constant", "reflect", "replicate", "circular"][r.below(4)],
                ),
                7 => F::interpolate(a, r.small_shape().as_slice()),
                8 => tensile::pixel_shuffle(a, r.int()),
                _ => tensile::pixel_unshuffle(a, r.int()),
            };
            push(pool, r, t)
        }
        70 if cheap_all(&[a, b, c]) => {
            let t = match r.below(16) {
                0 => F::mse_loss(a, b),
                1 => F::l1_loss(a, b),
                2 => F::smooth_l1_loss(a, b),
                3 => F::huber_loss(a, b),
                4 => F::cross_entropy(a, b),
                5 => F::nll_loss(a, b),
                6 => F::binary_cross_entropy(a, b),
                7 => F::binary_cross_entropy_with_logits(a, b),
                8 => F::kl_div(a, b),
                9 => F::poisson_nll_loss(a, b),
                10 => F::gaussian_nll_loss(a, b, c),
                11 => F::margin_ranking_loss(a, b, c),
                12 => F::cosine_embedding_loss(a, b, c),
                13 => F::multi_margin_loss(a, b),
                // O(N·C²) (as PyTorch's): guard the work, not just the size
                14 if numel128(a.size()).saturating_mul(*a.size().last().unwrap_or(&1) as u128)
                    <= WORK_LIMIT =>
                {
                    F::multilabel_margin_loss(a, b)
                }
                14 => return,
                _ => F::triplet_margin_loss(a, b, c),
            };
            push(pool, r, t)
        }
        71 if cheap_all(&[a, b, c]) && a.numel() <= 4096 && b.numel() <= 4096 => {
            let t = match r.below(10) {
                0 => F::scaled_dot_product_attention(a, b, c),
                1 => F::scaled_dot_product_attention_with(
                    a,
                    b,
                    c,
                    F::ScaledDotProductAttentionOpts {
                        attn_mask: None,
                        dropout_p: 0.0,
                        is_causal: r.bool(),
                        scale: Some(r.float()),
                        enable_gqa: r.bool(),
                    },
                ),
                2 => F::rnn_tanh_cell(a, b, c, a),
                3 => F::gru_cell(a, b, c, b),
                4 => F::lstm_cell(a, &[b, b], c, c).map(|x| x.0),
                5 => F::lstm(a, &[b, b], &[c, c]).map(|x| x.0),
                6 => F::gru(a, b, &[c, c]).map(|x| x.0),
                7 => F::embedding(a, b),
                8 => {
                    let k = r.int();
                    if !alloc_ok((k as u128).saturating_mul(numel128(a.size()))) {
                        return;
                    }
                    F::one_hot_with(a, k)
                }
                _ => F::cdist(a, b),
            };
            push(pool, r, t)
        }
        72 if cheap_all(&[a, b]) => {
            let which = r.below(6);
            // similarities and distances reduce over a dim of the broadcast operands
            if which <= 1 && !(reduce_ok(a) && reduce_ok(b)) {
                return;
            }
            // embedding_bag of a 2-D input walks its rows (bags) and writes one weight row
            // per bag: an empty (2^28, 0) input means 2^28 bags of real work
            if which == 3 && a.dim() == 2 && b.dim() == 2 {
                let work = (a.size()[0] as u128).saturating_mul(b.size()[1].max(1) as u128);
                if !alloc_ok(work) {
                    return;
                }
            }
            let t = match which {
                0 => F::cosine_similarity(a, b),
                1 => F::pairwise_distance(a, b),
                2 => F::pdist(a),
                3 => F::embedding_bag(a, b),
                4 => F::max_unpool1d(a, b, r.small() as i64),
                _ => F::ctc_loss(a, b, c, c),
            };
            push(pool, r, t)
        }
        73..=77 => step_nn(r, pool, op, a, b, c),
        78 | 79 if cheap_all(&[a, b]) => step_threads(r, a, b, op == 79),
        80 => sample_call(r, pool),
        _ => {}
    }
}

/// An OpInfo entry called with the argument structure of one of its gradient samples: its
/// tensors taken from the pool (any dtype, layout and size within the work limit), about half
/// of its ints drawn from -1..=4 and of its floats from the fuzzer's floats, sometimes in
/// place. Every entry with samples is reached this way, whatever its signature.
fn sample_call(r: &mut Rd, pool: &mut Vec<Tensor>) {
    let entries: Vec<&opinfo::OpInfo> = opinfo::all().filter(|i| !i.grad.is_empty()).collect();
    let k = r.u8() as usize * 256 + r.u8() as usize;
    let info = entries[k % entries.len()];
    let s = &info.grad[r.below(info.grad.len())];
    let inputs: Vec<Tensor> = s
        .inputs()
        .map(|_| pool[r.below(pool.len())].alias())
        .collect();
    if !inputs.iter().all(cheap) {
        return;
    }
    let Ok(mut args) = s.args_with(&inputs) else {
        return;
    };
    for a in args
        .pos
        .iter_mut()
        .chain(args.kw.iter_mut().map(|(_, a)| a))
    {
        match a {
            opinfo::Arg::Scalar(Scalar::Int(v)) if r.bool() => *v = r.small() as i64 - 1,
            opinfo::Arg::Scalar(Scalar::Float(v)) if r.bool() => *v = r.float(),
            _ => {}
        }
    }
    args.inplace = info.inplace && r.bool();
    if let Ok(out) = info.run(&args)
        && let Some(t) = out.tensor()
    {
        push(pool, r, Ok(t))
    }
}

/// A user's rayon pool (3 threads) for [`step_threads`], built once.
fn user_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| rayon::ThreadPoolBuilder::new().num_threads(3).build().ok())
        .as_ref()
}

/// Ops run from the tasks of a user's rayon pool while another thread writes the same
/// tensors in place (issue 27): kernels wait for their chunks while holding storage locks,
/// and thread-local autograd state (grad mode, in-place depth) must stay with its task.
/// `big`: the target is a fresh 2^17-element tensor (above the parallel grain) instead of
/// `a`. Bounded: at most 16 tasks and 8 writes, each one op over at most 2^20 elements. A
/// task that finds its grad mode off, or a backward that fails, is a crash (an `assert`).
fn step_threads(r: &mut Rd, a: &Tensor, b: &Tensor, big: bool) {
    let Some(pool) = user_pool() else {
        return;
    };
    let target = if big {
        match Tensor::ones_with([1 << 17], a.dtype()) {
            Ok(t) => t,
            Err(_) => return,
        }
    } else {
        a.alias()
    };
    let other = b.alias();
    // every choice decoded up front: the reader is not shared with the threads
    let tasks: Vec<(usize, usize)> = (0..2 + r.below(15))
        .map(|_| (r.below(8), r.u8() as usize))
        .collect();
    let writes: Vec<(usize, usize)> = (0..1 + r.below(8))
        .map(|_| (r.below(4), r.u8() as usize))
        .collect();
    let reduce = reduce_ok(&target);
    std::thread::scope(|s| {
        let (t, o) = (target.alias(), other.alias());
        let writer = s.spawn(move || {
            for &(kind, k) in &writes {
                match kind {
                    0 => unary(&t, k, true),
                    1 => binary(&t, (&o).into(), k, true),
                    2 => drop(t.copy_(&o)),
                    _ => drop(t.fill_(k as f64)),
                }
            }
        });
        pool.install(|| {
            use rayon::prelude::*;
            tasks.par_iter().for_each(|&(kind, k)| match kind {
                0 => unary(&target, k, false),
                1 => binary(&target, (&other).into(), k, false),
                2 => unary(&target, k, true),
                3 if reduce => drop(target.sum().and_then(|s| s.to(DType::Float64))),
                4 if reduce => drop(target.to(DType::Float32).and_then(|x| x.softmax(-1))),
                5 => {
                    // a backward whose kernels go parallel, in a task beside the others
                    let x = Tensor::ones([1 << 17]).and_then(|x| x.requires_grad_(true));
                    if let Ok(x) = x {
                        let l = x.mul(2.0).and_then(|y| y.exp()).and_then(|y| y.sum());
                        let l = l.expect("mul/exp/sum of a float32 leaf");
                        assert!(l.requires_grad(), "grad mode off in a user task");
                        l.backward().expect("backward in a user task");
                    }
                }
                6 => {
                    let leaf = Tensor::ones([4]).and_then(|x| x.requires_grad_(true));
                    if let Ok(leaf) = leaf {
                        let y = leaf.mul(2.0).expect("mul of a float32 leaf");
                        assert!(y.requires_grad(), "grad mode off in a user task");
                        y.add_(1.0).expect("add_ on a non-leaf");
                        assert_eq!(y.version(), 1, "an in-place add not counted in a user task");
                    }
                }
                _ => drop(target.contiguous()),
            });
        });
        if let Err(p) = writer.join() {
            std::panic::resume_unwind(p);
        }
    });
}

/// The pure layout and shape functions on arbitrary sizes and strides: a panic is a crash.
pub fn run_layout(data: &[u8]) {
    use tensile::layout as L;
    let mut r = Rd::new(data);
    while !r.done() {
        let n = r.below(6);
        let sizes: Vec<usize> = (0..n).map(|_| r.size()).collect();
        let strides: Vec<usize> = (0..n).map(|_| r.size()).collect();
        let other = r.shape();
        let shape_i: Vec<i64> = (0..r.below(5)).map(|_| r.int()).collect();
        match r.below(16) {
            0 => drop(std::hint::black_box(L::contiguous_strides(&sizes))),
            1 => drop(std::hint::black_box(L::channels_last_strides(&sizes))),
            2 => drop(std::hint::black_box(L::numel(&sizes))),
            3 => drop(std::hint::black_box((
                L::is_contiguous(&sizes, &strides),
                L::is_channels_last_contiguous(&sizes, &strides),
                L::is_channels_last_3d_contiguous(&sizes, &strides),
            ))),
            4 => drop(std::hint::black_box(L::is_non_overlapping_and_dense(
                &sizes, &strides,
            ))),
            5 => drop(std::hint::black_box(L::infer_dense_strides(
                &sizes, &strides,
            ))),
            6 => drop(std::hint::black_box(L::preserve_format_strides(
                &sizes, &strides,
            ))),
            7 => drop(std::hint::black_box(L::infer_shape(&shape_i, r.size()))),
            8 => drop(std::hint::black_box(L::compute_stride(
                &sizes, &strides, &other,
            ))),
            // (coalesced shares extent's arm: a new arm would renumber the saved inputs)
            9 => drop(std::hint::black_box((
                L::extent(&sizes, &strides),
                L::coalesced(&sizes, &strides),
            ))),
            10 => drop(std::hint::black_box(tensile::broadcast::infer_size(
                &sizes, &other,
            ))),
            11 => drop(std::hint::black_box(tensile::broadcast::infer_size_all([
                &sizes[..],
                &other[..],
                &strides[..],
            ]))),
            12 => {
                let a: Vec<i64> = sizes.iter().map(|&s| s as i64).collect();
                drop(std::hint::black_box(tensile::broadcast::broadcast_shapes(
                    &[&a, &shape_i],
                )))
            }
            13 => {
                let e = tensile::explain::explain_broadcast(&[&sizes, &other]);
                drop(std::hint::black_box((
                    format!("{e:?}"),
                    e.aligned(),
                    e.is_ok(),
                )))
            }
            14 => drop(std::hint::black_box((
                tensile::dim::wrap_dim(r.int(), n),
                tensile::dim::wrap_dims(&shape_i, n),
                tensile::dim::wrap_dim_no_scalar(r.int(), n),
            ))),
            _ => drop(std::hint::black_box(tensile::backcompat::changes_meaning(
                &sizes, &other,
            ))),
        }
    }
}

// ------------------------------------------------------------------ geometry

/// The addresses `[lo, hi]` (elements, from `offset`) a geometry reaches, `None` when it has
/// no element; saturating (a base whose extent passes `u128` is not compared).
fn reach(sizes: &[usize], strides: &[usize], offset: i128) -> Option<(i128, i128)> {
    if sizes.contains(&0) {
        return None;
    }
    let hi = sizes.iter().zip(strides).fold(0u128, |acc, (&s, &st)| {
        acc.saturating_add(((s - 1) as u128).saturating_mul(st as u128))
    });
    Some((
        offset,
        offset.saturating_add(hi.min(i128::MAX as u128) as i128),
    ))
}

/// Whether a count of elements, windows or pieces is small enough to really build.
fn buildable(n: i128) -> bool {
    (0..=WORK_LIMIT as i128).contains(&n)
}

/// `tensile::geometry` on arbitrary arguments: a panic is a crash, and so is a broken
/// invariant (`assert!`): views stay inside their base, windows and taps inside the input,
/// pieces cover the dim, output sizes match their formulas' inverses, parsed einsum labels are
/// placed once.
pub fn run_geometry(data: &[u8]) {
    use tensile::geometry::{
        conv as gc, einsum as ge, index as gi, pool as gp, resample as gr, view as gv,
    };
    let mut r = Rd::new(data);
    while !r.done() {
        // a tensor's sizes and strides are at most i64::MAX
        let n = r.below(6);
        let sizes: Vec<usize> = (0..n).map(|_| r.tensor_size()).collect();
        let strides: Vec<usize> = (0..n).map(|_| r.tensor_size()).collect();
        let (a, b, c) = (r.int(), r.int(), r.int());
        match r.below(8) {
            // views: every view of a base whose geometry fits stays inside it
            0 => {
                let mut st = strides.clone();
                let fits = gv::fit_geometry(&sizes, &mut st, 0, 1).is_ok() && st == strides;
                let mut views: Vec<(Vec<usize>, Vec<usize>, i128)> = Vec::new();
                let mut add = |v: tensile::Result<((Vec<usize>, Vec<usize>), i128)>| {
                    if let Ok(((sz, st), shift)) = v {
                        assert_eq!(sz.len(), st.len());
                        views.push((sz, st, shift));
                    }
                };
                add(gv::narrow_geometry(&sizes, &strides, a, b, c));
                add(gv::select_geometry(&sizes, &strides, a, b));
                add(gv::slice_geometry(
                    &sizes,
                    &strides,
                    a,
                    r.opt_int(),
                    r.opt_int(),
                    c,
                ));
                add(gv::diagonal_geometry(&sizes, &strides, a, b, c));
                add(gv::unfold_geometry(&sizes, &strides, a, b, c).map(|g| (g, 0)));
                add(gv::transpose_geometry(&sizes, &strides, a, b).map(|g| (g, 0)));
                add(gv::permute_geometry(&sizes, &strides, &r.dims()).map(|g| (g, 0)));
                add(gv::movedim_geometry(&sizes, &strides, &r.dims(), &r.dims())
                    .map(|g| (g.unwrap_or((sizes.clone(), strides.clone())), 0)));
                let mask = gv::squeeze_mask(&r.dims(), n);
                add(mask.map(|m| (gv::squeeze_geometry(&sizes, &strides, Some(&m)), 0)));
                if let Ok(d) = tensile::dim::wrap_dim(a, n + 1) {
                    add(Ok((gv::unsqueeze_geometry(&sizes, &strides, d), 0)));
                }
                let target = r.ints();
                if gv::check_expand_len(&sizes, &target, DType::Float32).is_ok()
                    && let Ok((sz, st)) = gv::expand_geometry(&sizes, &strides, &target)
                    && let Ok(sz) = gv::checked_sizes(&sz)
                {
                    add(Ok(((sz, st.iter().map(|&s| s as usize).collect()), 0)));
                }
                let base = reach(&sizes, &strides, 0);
                for (sz, st, shift) in &views {
                    if let (true, Some((lo, hi))) = (fits, reach(sz, st, *shift)) {
                        let (blo, bhi) = base.expect("a view with elements of an empty base");
                        assert!(
                            blo <= lo && hi <= bhi,
                            "view {sz:?} {st:?} +{shift} outside {sizes:?} {strides:?}"
                        );
                    }
                    let mut st = st.clone();
                    let off = gv::shifted(0, 1, *shift);
                    if let Ok(off) = off {
                        drop(std::hint::black_box(gv::fit_geometry(sz, &mut st, off, 8)));
                    }
                }
                // pieces cover the dim
                let d = r.dim();
                for plan in [
                    gv::split_plan(&sizes, a, d),
                    gv::chunk_plan(&sizes, a.min(WORK_LIMIT as i64), d),
                ] {
                    if let Ok((d, l)) = plan {
                        if sizes[d] > 0 {
                            assert_eq!(l.iter().sum::<usize>(), sizes[d]);
                        } else {
                            assert!(l.iter().all(|&x| x == 0));
                        }
                    }
                }
                drop(std::hint::black_box(gv::split_with_sizes_plan(
                    &sizes,
                    &r.ints(),
                    d,
                )));
                let (ints, off) = (r.ints(), r.int());
                let ss: Vec<i64> = r.ints();
                if let Ok((sz, st, off)) = gv::as_strided_geometry(&ints, &ss, off, 4, 96) {
                    if let Some((_, hi)) = reach(&sz, &st, off as i128) {
                        assert!((hi + 1) * 4 <= 96, "as_strided past its storage");
                    }
                }
                if let Ok((s0, s1)) = gv::flatten_dims(n, a, b) {
                    if n > 0 {
                        drop(std::hint::black_box(gv::flatten_sizes(&sizes, s0, s1)));
                    }
                }
                drop(std::hint::black_box(gv::unflatten_sizes(
                    &sizes,
                    a,
                    &r.ints(),
                )));
            }
            // pooling: output sizes, windows inside the input, plans
            1 => {
                let input = r.tensor_size();
                let (k, s, p, dil, ceil) = (r.int(), r.int(), r.int(), r.int(), r.bool());
                if let Ok(out) = gp::pooling_output_shape(input as i64, k, p, s, dil, ceil) {
                    let valid = k >= 1 && s >= 1 && dil >= 1 && out >= 1;
                    if valid && buildable(out as i128) {
                        let w = gp::max_wins(input, out as usize, k, s, p, dil).expect("windows");
                        for x in &w {
                            assert!(
                                x.lo >= x.hi || x.hi <= input,
                                "max window {x:?} past {input}"
                            );
                        }
                        // ceil mode: the last window starts inside the input or its left padding
                        assert!(((out - 1) as i128) * (s as i128) - (p as i128) < input as i128);
                        let w = gp::avg_wins(input, out as usize, k, s, p).expect("windows");
                        for x in &w {
                            assert!(x.lo <= x.hi && x.hi <= input && x.len() <= x.padded);
                        }
                    }
                }
                if input >= 1 && buildable(c as i128) {
                    let w = gp::adaptive_wins(input, c as usize).expect("windows");
                    for x in &w {
                        assert!(
                            x.lo < x.hi && x.hi <= input,
                            "adaptive window {x:?} past {input}"
                        );
                    }
                }
                let ints = r.ints();
                let d = 2 + r.below(2);
                let (st, pd, dl) = (r.ints(), r.ints(), r.ints());
                let cl = r.bool();
                if let Ok(plan) = gp::max_pool_plan(&sizes, d, &ints, Some(&st), &pd, &dl, ceil, cl)
                {
                    assert!(plan.outs.iter().all(|&o| o >= 1));
                }
                if let Ok(plan) =
                    gp::avg_pool_plan(&sizes, d, &ints, None, &pd, ceil, r.opt_int(), cl)
                {
                    assert!(plan.outs.iter().all(|&o| o >= 1));
                }
                if let Ok(x) = gp::max_pool1d_params(&sizes, &ints, &st, &pd, &dl, ceil) {
                    assert!(x.4 >= 1);
                }
                let os: Vec<Option<i64>> = (0..r.below(3)).map(|_| r.opt_int()).collect();
                drop(std::hint::black_box((
                    gp::adaptive_avg_pool_size(2, &sizes, &os),
                    gp::adaptive_max_pool_size(2, &sizes, &os),
                    gp::adaptive_avg_pool_size(3, &sizes, &os),
                    gp::adaptive_max_pool_size(3, &sizes, &os),
                )));
                let ud = 1 + r.below(2);
                if let Ok((k, s, p)) = gp::unpool_params(ud, &ints, Some(&st), &pd) {
                    let given = r.bool().then(|| r.ints());
                    drop(std::hint::black_box(gp::unpool_output_size(
                        &sizes,
                        &k,
                        &s,
                        &p,
                        given.as_deref(),
                    )));
                }
            }
            // convolution: checked shapes give outputs of at least 1, and the input gradient's
            // output padding inverts them
            2 => {
                let w: Vec<usize> = (0..n).map(|_| r.tensor_size()).collect();
                let (st, pd, dl, op) = (r.ints(), r.ints(), r.ints(), r.ints());
                let (groups, transposed) = (r.int(), r.bool());
                let bias = r.bool().then(|| r.shape());
                if let Ok(g) =
                    gc::ConvGeometry::new(w.len(), &st, &pd, &dl, &op, groups, transposed)
                {
                    if gc::check_shape_forward(&sizes, &w, bias.as_deref(), &g).is_ok()
                        && let Ok(out) = gc::output_sizes(&sizes, &w, &g)
                    {
                        assert_eq!(out.len(), sizes.len());
                        drop(std::hint::black_box(gc::check_output_padding(&g, n - 2)));
                        if !transposed {
                            assert!(out[2..].iter().all(|&o| o >= 1), "conv output {out:?}");
                            let o: Vec<usize> = out[2..].iter().map(|&o| o as usize).collect();
                            let opad = gc::input_grad_output_padding(
                                &sizes[2..],
                                &w[2..],
                                &o,
                                &g.stride,
                                &g.padding,
                                &g.dilation,
                            );
                            for (j, &q) in opad.iter().enumerate() {
                                assert!(
                                    q >= 0 && q < g.stride[j],
                                    "output padding {opad:?} (dim {j})"
                                );
                            }
                        }
                    }
                }
                drop(std::hint::black_box(gc::same_padding(
                    &sizes, &w, &st, &dl, groups,
                )));
                if let Ok(win) = gc::Window2::new(&r.ints(), &dl, &pd, &st) {
                    if let Ok((bh, bw)) = gc::unfold_blocks(&sizes, &win) {
                        assert!(bh >= 1 && bw >= 1);
                        drop(std::hint::black_box(gc::unfold_output(
                            r.tensor_size(),
                            &win,
                            bh,
                            bw,
                        )));
                    }
                    if let Ok((_, bh, bw)) = gc::fold_blocks(&sizes, [a, b], &win) {
                        assert!(bh >= 1 && bw >= 1);
                    }
                }
            }
            // interpolation: taps inside the input, weights summing to 1
            3 => {
                let mode = [
                    "nearest",
                    "nearest-exact",
                    "linear",
                    "bilinear",
                    "bicubic",
                    "trilinear",
                    "area",
                    "x",
                ][r.below(8)];
                let (input, output) = (r.tensor_size(), r.tensor_size());
                let scale = r.bool().then(|| r.float());
                let align = r.bool();
                if input >= 1 && buildable(output as i128) {
                    let t = gr::dim_taps::<f32>(mode, input, output, align, scale, r.bool())
                        .expect("taps");
                    assert_eq!(t.len(), output);
                    for w in &t {
                        assert!(w.iter().all(|&(i, _)| i < input), "tap past {input}: {w:?}");
                        let sum: f32 = w.iter().map(|x| x.1).sum();
                        assert!(
                            !sum.is_finite() || (sum - 1.0).abs() < 1e-3,
                            "weights {w:?}"
                        );
                    }
                }
                let size = r.bool().then(|| r.ints());
                let sf: Option<Vec<f64>> = r
                    .bool()
                    .then(|| (0..r.below(4)).map(|_| r.float()).collect());
                let align = r.bool().then(|| r.bool());
                let rec = r.bool().then(|| r.bool());
                if let Ok(gr::Interpolation::Resample { outs, .. }) = gr::interpolate_sizes(
                    &sizes,
                    size.as_deref(),
                    sf.as_deref(),
                    mode,
                    align,
                    rec,
                    r.bool(),
                ) {
                    assert!(outs.iter().all(|&o| o >= 1));
                    assert_eq!(outs.len() + 2, sizes.len());
                }
            }
            // padding: sizes and every source index inside the input
            4 => {
                let mode = ["constant", "reflect", "replicate", "circular", "x"][r.below(5)];
                let pad = r.ints();
                if gr::check_pad(mode, &pad, n).is_err() {
                    continue;
                }
                let outs = match mode {
                    "constant" => gr::constant_pad_sizes(&sizes, &pad),
                    _ if gr::check_edge_pad(mode, None, pad.len(), n).is_err() => continue,
                    "circular" => gr::circular_pad_sizes(&sizes, &pad),
                    m => gr::edge_pad_sizes(&sizes, &pad, m == "reflect"),
                };
                if let (Ok(outs), false) = (outs, mode == "constant") {
                    for j in 0..pad.len() / 2 {
                        let d = n - 1 - j;
                        let (l, size) = (gr::widths(&pad, j).0, sizes[d]);
                        if !buildable(outs[d] as i128) || size == 0 {
                            continue;
                        }
                        for o in 0..outs[d] {
                            let i = match mode {
                                "circular" => gr::circular_source(o, l, size),
                                m => gr::edge_source(o, l, size, m == "reflect"),
                            };
                            assert!(
                                i < size,
                                "{mode} pad {pad:?}: output {o} reads {i} of {size}"
                            );
                        }
                    }
                }
            }
            // advanced indexing: placement and offsets
            5 => {
                let defined: Vec<bool> = (0..n).map(|_| r.bool()).collect();
                let shapes: Vec<Vec<usize>> = (0..r.below(4)).map(|_| r.shape()).collect();
                let refs: Vec<&[usize]> = shapes.iter().map(|s| &s[..]).collect();
                let perm = gi::front_permutation(&defined);
                let moved: Vec<bool> = perm.iter().map(|&d| defined[d]).collect();
                assert!(gi::has_contiguous_subspace(&moved));
                if let Ok(bs) = gi::broadcast_index_shapes(&refs) {
                    let d = if gi::has_contiguous_subspace(&defined) {
                        defined.clone()
                    } else {
                        moved
                    };
                    let (before, k) = gi::placement(&d);
                    let res = gi::result_shape(&sizes, before, k, &bs);
                    assert_eq!(res.len(), n - k + bs.len());
                    assert_eq!(
                        gi::restrided(&strides, before, k, bs.len()).len(),
                        res.len()
                    );
                    drop(std::hint::black_box(gi::check_indexed_empty(
                        &sizes, before, k, &bs,
                    )));
                }
                let fits = tensile::layout::checked_extent(&sizes, &strides)
                    .is_some_and(|e| e <= i64::MAX as usize)
                    && strides.iter().all(|&s| s <= i64::MAX as usize);
                // (PyTorch's numel refuses an overflow even when a later size is 0)
                if fits
                    && tensile::layout::checked_numel(&sizes).is_ok_and(|n| buildable(n as i128))
                {
                    let offs = gi::row_major_offsets(&sizes, &strides, 3).expect("offsets");
                    if let Some((lo, hi)) = reach(&sizes, &strides, 3) {
                        assert!(offs.iter().all(|&o| lo <= o as i128 && o as i128 <= hi));
                    }
                    let dense = tensile::layout::contiguous_strides(&sizes);
                    assert!(gi::packed_tail(&sizes, &dense, &strides) <= n);
                }
                drop(std::hint::black_box((
                    gi::wrap_index(a, r.tensor_size(), 0),
                    gi::expandable(&sizes, &strides),
                )));
            }
            // einsum subscripts
            _ => {
                const CH: &[u8] = b"abcdABij.,->  \xff";
                let eq: Vec<u8> = (0..r.below(16)).map(|_| CH[r.below(CH.len())]).collect();
                let eq = String::from_utf8_lossy(&eq);
                let ndims: Vec<usize> = (0..r.below(4)).map(|_| r.below(6)).collect();
                if let Ok(s) = ge::parse(&eq, &ndims) {
                    let mut seen: Vec<i64> = s
                        .label_perm_index
                        .iter()
                        .copied()
                        .filter(|&p| p >= 0)
                        .collect();
                    seen.sort_unstable();
                    let used = seen.len();
                    seen.dedup();
                    assert_eq!(seen.len(), used, "a label placed twice: {eq}");
                    assert_eq!(s.perm_len, used + s.ell_num_dim);
                    assert!(
                        s.out_num_dim <= s.perm_len && s.ell_index + s.ell_num_dim <= s.perm_len
                    );
                    assert_eq!(s.op_labels.len(), ndims.len());
                }
            }
        }
    }
}

// ------------------------------------------------------------------ nn modules, optimizers

use tensile::nn::Module;
use tensile::optim::{LRScheduler, Optimizer};

const NONLINEARITIES: [&str; 8] = [
    "linear",
    "relu",
    "leaky_relu",
    "tanh",
    "sigmoid",
    "selu",
    "conv2d",
    "foo",
];
const FAN_MODES: [&str; 3] = ["fan_in", "fan_out", "fan_foo"];
const PAD_MODES: [&str; 5] = ["zeros", "reflect", "replicate", "circular", "foo"];

/// A float dtype mostly, sometimes any dtype (a module's parameters).
fn param_dtype(r: &mut Rd) -> DType {
    match r.below(8) {
        0 => r.dtype(),
        1..=3 => DType::Float64,
        _ => DType::Float32,
    }
}

/// A small int list (a kernel size, stride, …): 0 to 2 entries of -1..=3.
fn small_ints(r: &mut Rd) -> Vec<i64> {
    let n = r.below(3);
    (0..n).map(|_| r.small() as i64 - 1).collect()
}

/// A module with a small random config (every size from [`Rd::small`]), and the shape of an
/// input it takes (its own sizes, a small batch).
fn make_module(r: &mut Rd, depth: usize) -> Option<(Box<dyn Module>, Vec<usize>)> {
    use tensile::nn::*;
    let n = 1 + r.small();
    let (m, shape): (Box<dyn Module>, Vec<usize>) = match r.below(16) {
        0 => {
            let (i, o) = (r.small(), r.small());
            let cfg = LinearConfig {
                bias: r.bool(),
                dtype: param_dtype(r),
            };
            (Box::new(Linear::with(i, o, cfg).ok()?), vec![n, i])
        }
        1 | 2 => {
            let two = r.bool();
            let (i, o) = (r.small(), r.small());
            let k = small_ints(r);
            let cfg = ConvConfig {
                stride: small_ints(r).into_iter().collect(),
                padding: match r.below(4) {
                    0 => F::ConvPadding::Str("same"),
                    1 => F::ConvPadding::Str("valid"),
                    2 => F::ConvPadding::Str("foo"),
                    _ => F::ConvPadding::Ints(small_ints(r).into_iter().collect()),
                },
                dilation: small_ints(r).into_iter().collect(),
                groups: r.small() as i64 - 1,
                bias: r.bool(),
                padding_mode: PAD_MODES[r.below(5)],
                dtype: param_dtype(r),
            };
            let l = r.small() + 1;
            if two {
                (
                    Box::new(Conv2d::with(i, o, k.as_slice(), cfg).ok()?),
                    vec![n, i, l, r.small() + 1],
                )
            } else {
                (
                    Box::new(Conv1d::with(i, o, k.as_slice(), cfg).ok()?),
                    vec![n, i, l],
                )
            }
        }
        3 | 4 => {
            let f = r.small();
            let cfg = BatchNormConfig {
                eps: r.float(),
                momentum: if r.bool() { Some(r.float()) } else { None },
                affine: r.bool(),
                track_running_stats: r.bool(),
                dtype: param_dtype(r),
            };
            if r.bool() {
                (
                    Box::new(BatchNorm2d::with(f, cfg).ok()?),
                    vec![n, f, r.small(), r.small()],
                )
            } else {
                (Box::new(BatchNorm1d::with(f, cfg).ok()?), vec![n, f])
            }
        }
        5 => {
            let s: Vec<usize> = (0..r.below(3)).map(|_| r.small()).collect();
            let cfg = LayerNormConfig {
                eps: r.float(),
                elementwise_affine: r.bool(),
                bias: r.bool(),
                dtype: param_dtype(r),
            };
            let mut shape = vec![n];
            shape.extend(&s);
            (Box::new(LayerNorm::with(s.as_slice(), cfg).ok()?), shape)
        }
        6 => {
            let s: Vec<usize> = (0..r.below(3)).map(|_| r.small()).collect();
            let cfg = RMSNormConfig {
                eps: if r.bool() { Some(r.float()) } else { None },
                elementwise_affine: r.bool(),
                dtype: param_dtype(r),
            };
            let mut shape = vec![n];
            shape.extend(&s);
            (Box::new(RMSNorm::with(s.as_slice(), cfg).ok()?), shape)
        }
        7 => {
            let (g, c) = (r.small(), r.small());
            let cfg = GroupNormConfig {
                eps: r.float(),
                affine: r.bool(),
                dtype: param_dtype(r),
            };
            (
                Box::new(GroupNorm::with(g, c, cfg).ok()?),
                vec![n, c, r.small()],
            )
        }
        8 => {
            let (ne, d) = (r.small(), r.small());
            let cfg = EmbeddingConfig {
                padding_idx: r.opt_int(),
                dtype: param_dtype(r),
            };
            // The input is made by `module_input` from this shape (indices).
            (
                Box::new(Embedding::with(ne, d, cfg).ok()?),
                vec![n, 1 + r.small()],
            )
        }
        9 => (
            Box::new(Dropout::with(r.float(), r.bool()).ok()?),
            vec![n, r.small()],
        ),
        10 => {
            let m: Box<dyn Module> = match r.below(7) {
                0 => Box::new(ReLU::new()),
                1 => Box::new(GELU::with(["none", "tanh", "foo"][r.below(3)])),
                2 => Box::new(SiLU::new()),
                3 => Box::new(Sigmoid::new()),
                4 => Box::new(Tanh::new()),
                5 => Box::new(Identity::new()),
                _ => Box::new(Flatten::with(r.dim(), r.dim())),
            };
            (m, vec![n, r.small(), r.small()])
        }
        11 => {
            let k = small_ints(r);
            let m: Box<dyn Module> = match r.below(3) {
                0 => Box::new(MaxPool2d::with(
                    k.as_slice(),
                    F::MaxPoolOpts {
                        stride: if r.bool() {
                            Some(small_ints(r).into_iter().collect())
                        } else {
                            None
                        },
                        padding: small_ints(r).into_iter().collect(),
                        dilation: small_ints(r).into_iter().collect(),
                        ceil_mode: r.bool(),
                    },
                )),
                1 => Box::new(AvgPool2d::with(
                    k.as_slice(),
                    F::AvgPoolOpts {
                        stride: if r.bool() {
                            Some(small_ints(r).into_iter().collect())
                        } else {
                            None
                        },
                        padding: small_ints(r).into_iter().collect(),
                        ceil_mode: r.bool(),
                        count_include_pad: r.bool(),
                        divisor_override: r.opt_int(),
                    },
                )),
                _ => Box::new(AdaptiveAvgPool2d::new(k.as_slice())),
            };
            (m, vec![n, r.small(), r.small() + 1, r.small() + 1])
        }
        12 => {
            let (e, h) = (r.small(), r.small());
            let cfg = MultiheadAttentionConfig {
                dropout: r.float(),
                bias: r.bool(),
                batch_first: r.bool(),
                dtype: param_dtype(r),
            };
            (
                Box::new(MultiheadAttention::with(e, h, cfg).ok()?),
                vec![r.small() + 1, n, e],
            )
        }
        13 | 14 => {
            let (i, h) = (r.small(), r.small());
            let cfg = RnnConfig {
                num_layers: r.small(),
                bias: r.bool(),
                batch_first: r.bool(),
                dropout: r.float(),
                bidirectional: r.bool(),
                dtype: param_dtype(r),
            };
            let shape = vec![r.small() + 1, n, i];
            if r.bool() {
                (Box::new(LSTM::with(i, h, cfg).ok()?), shape)
            } else {
                (Box::new(GRU::with(i, h, cfg).ok()?), shape)
            }
        }
        _ => {
            if depth >= 2 {
                return None;
            }
            let mut ms: Vec<Box<dyn Module>> = Vec::new();
            let mut shape = vec![n, r.small()];
            for _ in 0..r.below(4) {
                if let Some((m, s)) = make_module(r, depth + 1) {
                    if ms.is_empty() {
                        shape = s;
                    }
                    ms.push(m);
                }
            }
            if r.bool() {
                (Box::new(Sequential::from_modules(ms)), shape)
            } else {
                (Box::new(ModuleList::from_modules(ms)), shape)
            }
        }
    };
    if r.u8() < 64 {
        m.eval();
    }
    Some((m, shape))
}

/// An input for a module: of the shape it takes (random values; indices for an embedding are
/// random ints, in range or not), or one of the pool's tensors.
fn module_input(r: &mut Rd, shape: &[usize], a: &Tensor) -> Option<Tensor> {
    match r.below(4) {
        0 if a.numel() <= 4096 => Some(a.alias()),
        1 => {
            let n = numel128(shape) as usize;
            let v: Vec<i64> = (0..n).map(|_| r.int()).collect();
            Tensor::from_vec(v, shape).ok()
        }
        _ => {
            let seed = r.u8() as u64;
            let dt = param_dtype(r);
            Tensor::randn_with(shape, (&Generator::new().manual_seed(seed), dt)).ok()
        }
    }
}

/// A float leaf that requires grad, from a pool tensor (`None` when it is too big, or not
/// convertible).
fn leaf_of(r: &mut Rd, t: &Tensor) -> Option<Tensor> {
    if t.numel() > 4096 {
        return None;
    }
    let dt = param_dtype(r);
    let p = t.to(dt).ok()?.detach();
    let p = if r.u8() < 32 { p } else { p.contiguous() };
    p.requires_grad_(true).ok()
}

/// Gives the parameters gradients: a backward through a small loss, or pool tensors set as
/// `.grad` directly (mismatched shapes and dtypes are tried too: `set_grad` refuses them, as
/// PyTorch's `x.grad = g` does, and the parameter keeps the gradient it had).
fn give_grads(r: &mut Rd, params: &[Tensor], pool: &[Tensor]) {
    for p in params {
        match r.below(4) {
            0 => {}
            1 => {
                let g = &pool[r.below(pool.len())];
                if g.numel() <= 4096 {
                    let _ = p.set_grad(Some(g.alias()));
                }
            }
            _ => {
                if let Ok(l) = p.mul(p).and_then(|x| x.sum()) {
                    let _ = l.backward();
                }
            }
        }
    }
}

fn sgd_opts(r: &mut Rd) -> tensile::optim::SgdOpts {
    tensile::optim::SgdOpts {
        lr: r.float(),
        momentum: r.float(),
        dampening: r.float(),
        weight_decay: r.float(),
        nesterov: r.bool(),
        maximize: r.bool(),
    }
}

fn adam_opts(r: &mut Rd) -> tensile::optim::AdamOpts {
    tensile::optim::AdamOpts {
        lr: r.float(),
        betas: (r.float(), r.float()),
        eps: r.float(),
        weight_decay: r.float(),
        amsgrad: r.bool(),
        maximize: r.bool(),
        decoupled_weight_decay: r.bool(),
    }
}

/// An optimizer over `params`, in one or two param groups.
fn make_optimizer(r: &mut Rd, params: Vec<Tensor>) -> Option<Box<dyn Optimizer>> {
    use tensile::optim::*;
    let split = r.below(params.len() + 1);
    let two = r.bool() && split > 0 && split < params.len();
    let (p0, p1) = if two {
        // aliases: `Tensor::clone` is torch's `clone()`, a copy that is not a leaf
        let al = |ts: &[Tensor]| ts.iter().map(|t| t.alias()).collect::<Vec<_>>();
        (al(&params[..split]), al(&params[split..]))
    } else {
        (params, Vec::new())
    };
    Some(match r.below(3) {
        0 => {
            let mut g = vec![ParamGroup::new(p0, sgd_opts(r))];
            if two {
                g.push(ParamGroup::new(p1, sgd_opts(r)));
            }
            Box::new(SGD::from_groups(g).ok()?)
        }
        1 => {
            let mut g = vec![ParamGroup::new(p0, adam_opts(r))];
            if two {
                g.push(ParamGroup::new(p1, adam_opts(r)));
            }
            Box::new(Adam::from_groups(g).ok()?)
        }
        _ => {
            let o = adam_opts(r);
            let o = AdamWOpts {
                lr: o.lr,
                betas: o.betas,
                eps: o.eps,
                weight_decay: o.weight_decay,
                amsgrad: o.amsgrad,
                maximize: o.maximize,
            };
            let mut g = vec![ParamGroup::new(p0, o)];
            if two {
                g.push(ParamGroup::new(p1, o));
            }
            Box::new(AdamW::from_groups(g).ok()?)
        }
    })
}

/// Edits `optimizer.param_groups[g]["params"]` as Python may (the state follows each
/// parameter's identity): pushes a new leaf or a pool tensor (any dtype, maybe not a leaf),
/// swaps two parameters, replaces one by a tensor of another shape, repeats one, or moves one
/// to another group; then gives gradients and steps, and takes the state dict (a replaced
/// parameter's state makes it fail) and loads it back.
fn edit_param_groups(r: &mut Rd, opt: &mut dyn Optimizer, pool: &[Tensor]) {
    let ng = opt.num_param_groups();
    let g = r.below(ng + 1); // past the end: an error
    let i = r.below(pool.len());
    let fresh = if r.bool() {
        leaf_of(r, &pool[i])
    } else if pool[i].numel() <= 4096 {
        Some(pool[i].alias())
    } else {
        None
    };
    let choice = r.below(6);
    let (a, b) = (r.small(), r.small());
    let Ok(ps) = opt.params_mut(g) else {
        return;
    };
    let n = ps.len();
    match choice {
        0 => ps.extend(fresh),
        1 if n > 0 => ps.swap(a % n, b % n),
        2 if n > 0 => {
            if let Some(t) = fresh {
                ps[a % n] = t;
            }
        }
        3 if n > 0 => {
            let t = ps[a % n].alias();
            ps.push(t);
        }
        4 if n > 0 => {
            // move a parameter to the next group
            let t = ps.remove(a % n);
            match opt.params_mut((g + 1) % ng.max(1)) {
                Ok(other) => other.push(t),
                Err(_) => return,
            }
        }
        _ => {}
    }
    let all: Vec<Tensor> = (0..ng)
        .filter_map(|k| opt.params(k).ok())
        .flat_map(|ps| ps.iter().map(|t| t.alias()))
        .collect();
    give_grads(r, &all, pool);
    let _ = opt.step();
    if let Ok(sd) = opt.state_dict() {
        let _ = opt.load_state_dict(&sd);
    }
}

fn make_scheduler(r: &mut Rd, opt: &mut dyn Optimizer) -> Option<Box<dyn LRScheduler>> {
    use tensile::optim::*;
    Some(match r.below(5) {
        0 => Box::new(StepLR::new(opt, r.int(), r.float()).ok()?),
        1 => Box::new(CosineAnnealingLR::new(opt, r.int(), r.float()).ok()?),
        2 => Box::new(LinearLR::new(opt, r.float(), r.float(), r.int()).ok()?),
        3 => {
            let v = r.float();
            let k = r.int();
            Box::new(LambdaLR::new(opt, move |e| if e % 2 == 0 { v } else { k as f64 }).ok()?)
        }
        _ => {
            let n = r.below(3);
            let fs: Vec<tensile::optim::lr_scheduler::LrLambda> = (0..n)
                .map(|_| {
                    let v = r.float();
                    Box::new(move |e: i64| v * e as f64) as tensile::optim::lr_scheduler::LrLambda
                })
                .collect();
            Box::new(LambdaLR::new_per_group(opt, fs).ok()?)
        }
    })
}

/// Module, init, clipping, optimizer and scheduler ops (`step`'s arms 73 to 77).
fn step_nn(r: &mut Rd, pool: &mut Vec<Tensor>, op: u8, a: &Tensor, b: &Tensor, c: &Tensor) {
    use tensile::nn::init;
    match op {
        // a module's forward (and sometimes a backward and an optimizer step over it)
        73 => {
            let Some((m, shape)) = make_module(r, 0) else {
                return;
            };
            let Some(x) = module_input(r, &shape, a) else {
                return;
            };
            let y = m.forward(&x);
            if r.bool() {
                if let Ok(y) = &y {
                    if let Ok(l) = y.sum() {
                        let _ = l.backward();
                    }
                }
                let params = m.parameters();
                if let Some(mut o) = make_optimizer(r, params) {
                    let _ = o.step();
                    let _ = o.zero_grad_with(r.bool());
                }
            }
            drop(format!(
                "{:?}",
                (
                    m.named_parameters().len(),
                    m.named_buffers().len(),
                    m.state_dict().len(),
                    m.is_training()
                )
            ));
            push(pool, r, y)
        }
        // the layers with their own forward signatures
        74 => {
            let (e, h) = (r.small(), r.small());
            let batch_first = r.bool();
            if r.bool() {
                let Ok(m) = tensile::nn::MultiheadAttention::with(e, h, batch_first) else {
                    return;
                };
                if !cheap_all(&[a, b, c]) || a.numel() > 4096 || b.numel() > 4096 {
                    return;
                }
                let opts = tensile::nn::MhaForwardOpts {
                    key_padding_mask: if r.bool() { Some(c) } else { None },
                    need_weights: r.bool(),
                    attn_mask: if r.bool() { Some(c) } else { None },
                    average_attn_weights: r.bool(),
                };
                let t = m.forward_with(a, b, b, opts).map(|(o, _)| o);
                push(pool, r, t)
            } else {
                let cfg = tensile::nn::RnnConfig {
                    num_layers: r.small(),
                    bidirectional: r.bool(),
                    batch_first,
                    ..Default::default()
                };
                if a.numel() > 4096 || b.numel() > 4096 || c.numel() > 4096 {
                    return;
                }
                let t = if r.bool() {
                    let Ok(m) = tensile::nn::LSTM::with(e, h, cfg) else {
                        return;
                    };
                    let hx = if r.bool() { Some((b, c)) } else { None };
                    m.forward_with(a, hx).map(|(o, _)| o)
                } else {
                    let Ok(m) = tensile::nn::GRU::with(e, h, cfg) else {
                        return;
                    };
                    m.forward_with(a, if r.bool() { Some(b) } else { None })
                        .map(|(o, _)| o)
                };
                push(pool, r, t)
            }
        }
        // load_state_dict with another module's state dict, edited
        75 => {
            let Some((m, _)) = make_module(r, 0) else {
                return;
            };
            let mut sd = if r.bool() {
                m.state_dict()
            } else {
                match make_module(r, 0) {
                    Some((m2, _)) => m2.state_dict(),
                    None => tensile::nn::StateDict::new(),
                }
            };
            for _ in 0..r.below(4) {
                let keys: Vec<String> = sd.keys().iter().map(|s| s.to_string()).collect();
                let key = if keys.is_empty() || r.u8() < 40 {
                    ["weight", "0.bias", "running_mean", "", "1.weight_ih_l0"][r.below(5)]
                        .to_string()
                } else {
                    keys[r.below(keys.len())].clone()
                };
                match r.below(3) {
                    0 => {
                        sd.remove(&key);
                    }
                    _ => {
                        let t = [a, b, c][r.below(3)];
                        if t.numel() <= 4096 {
                            sd.insert(key, t.alias());
                        }
                    }
                }
            }
            let _ = m.load_state_dict(&sd, r.bool());
            if let Some(x) = module_input(r, &[1, 2], a) {
                let _ = m.forward(&x);
            }
        }
        // nn.init on a pool tensor
        76 if cheap(a) => {
            let g = Generator::new().manual_seed(r.u8() as u64);
            let gn = if r.bool() { Some(&g) } else { None };
            let t = match r.below(12) {
                0 => init::uniform_(a, r.float(), r.float()),
                1 => init::normal_(a, r.float(), r.float()),
                2 => init::constant_(a, r.float()),
                3 => init::zeros_(a),
                4 => init::ones_(a),
                5 | 6 => {
                    let o = init::KaimingOpts {
                        a: r.float(),
                        mode: FAN_MODES[r.below(3)],
                        nonlinearity: NONLINEARITIES[r.below(8)],
                    };
                    if r.bool() {
                        init::kaiming_uniform_with_(a, o, gn)
                    } else {
                        init::kaiming_normal_with_(a, o, gn)
                    }
                }
                7 => init::xavier_uniform_with_(a, r.float(), gn),
                8 => init::xavier_normal_with_(a, r.float(), gn),
                9 => init::uniform_with_(a, r.float(), r.float(), Some(&g)),
                10 => init::normal_with_(a, r.float(), r.float(), Some(&g)),
                _ => {
                    let _ = init::calculate_fan_in_and_fan_out(a);
                    let p = if r.bool() { Some(r.float()) } else { None };
                    let _ = init::calculate_gain(NONLINEARITIES[r.below(8)], p);
                    return;
                }
            };
            push(pool, r, t)
        }
        // clip_grad_* and an optimizer (and a scheduler) over leaves made from pool tensors
        77 => {
            let params: Vec<Tensor> = [a, b, c]
                .iter()
                .take(1 + r.below(3))
                .filter_map(|t| leaf_of(r, t))
                .collect();
            give_grads(r, &params, pool);
            match r.below(3) {
                0 => {
                    let _ = tensile::nn::utils::clip_grad_norm_with_(
                        &params,
                        r.float(),
                        r.float(),
                        r.bool(),
                    );
                }
                1 => {
                    let _ = tensile::nn::utils::clip_grad_value_(&params, r.float());
                }
                _ => {}
            }
            let aliases = params.iter().map(|t| t.alias()).collect();
            let Some(mut opt) = make_optimizer(r, aliases) else {
                return;
            };
            let mut sched = if r.bool() {
                make_scheduler(r, opt.as_mut())
            } else {
                None
            };
            for _ in 0..1 + r.below(4) {
                match r.below(9) {
                    0 => {
                        let _ = opt.zero_grad_with(r.bool());
                    }
                    1 => give_grads(r, &params, pool),
                    2 => {
                        // any group index: past the end is an error, not a panic
                        let g = r.below(opt.num_param_groups() + 2);
                        let _ = opt.set_lr(g, r.float());
                        let _ = opt.lr(g);
                        let _ = opt.params(g);
                    }
                    3 => {
                        // another optimizer's state dict (other params, kind, groups)
                        let other: Vec<Tensor> =
                            [b, a].iter().filter_map(|t| leaf_of(r, t)).collect();
                        give_grads(r, &other, pool);
                        if let Some(mut o2) = make_optimizer(r, other) {
                            let _ = o2.step();
                            if let Ok(sd) = o2.state_dict() {
                                let _ = opt.load_state_dict(&sd);
                            }
                        }
                    }
                    4 => {
                        // our own state dict, its tensors swapped for pool tensors
                        if let Ok(mut sd) = opt.state_dict() {
                            for st in sd.state.values_mut() {
                                for (_, t) in st.iter_mut() {
                                    if r.u8() < 80 {
                                        let p = &pool[r.below(pool.len())];
                                        if p.numel() <= 4096 {
                                            *t = p.alias();
                                        }
                                    }
                                }
                            }
                            for g in sd.param_groups.iter_mut() {
                                if r.bool() && !g.options.is_empty() {
                                    let i = r.below(g.options.len());
                                    g.options[i].1 = match r.below(4) {
                                        0 => tensile::optim::HyperValue::Float(r.float()),
                                        1 => tensile::optim::HyperValue::Bool(r.bool()),
                                        2 => tensile::optim::HyperValue::Pair(r.float(), r.float()),
                                        _ => tensile::optim::HyperValue::None,
                                    };
                                }
                                if r.u8() < 40 {
                                    g.params.push(r.small());
                                }
                            }
                            let _ = opt.load_state_dict(&sd);
                        }
                    }
                    5 => {
                        if let Some(s) = sched.as_mut() {
                            let mut sd = s.state_dict();
                            match r.below(4) {
                                0 => sd.last_epoch = r.int(),
                                1 => sd.step_count = r.int(),
                                2 => sd.base_lrs = (0..r.below(4)).map(|_| r.float()).collect(),
                                _ => sd.last_lr = (0..r.below(4)).map(|_| r.float()).collect(),
                            }
                            s.load_state_dict(&sd);
                            let _ = s.get_last_lr().len();
                        }
                    }
                    7 => edit_param_groups(r, opt.as_mut(), pool),
                    _ => {
                        let _ = opt.step();
                        if let Some(s) = sched.as_mut() {
                            let _ = s.step(opt.as_mut());
                            let _ = s.last_epoch();
                        }
                    }
                }
            }
            if let Some(p) = params.into_iter().next() {
                push(pool, r, Ok(p.detach()))
            }
        }
        _ => {}
    }
}

// ------------------------------------------------------------------ checkpoint and array I/O

/// Reads every element of a loaded tensor (a view that claims more than its storage holds
/// would read out of bounds here).
fn touch(t: &Tensor) {
    if cheap(t) {
        drop(std::hint::black_box(t.contiguous()));
        drop(std::hint::black_box(t.to(DType::Float64).map(|x| x.sum())));
    }
}

fn touch_value(v: &tensile::io::torch::Value) {
    if let Some(t) = v.as_tensor() {
        touch(t);
    }
    if let Some(s) = v.as_seq() {
        s.iter().for_each(touch_value);
    }
    if let Some(d) = v.as_dict() {
        for (k, v) in d {
            touch_value(k);
            touch_value(v);
        }
    }
    let _ = std::hint::black_box((v.kind(), v.as_int(), v.as_f64(), v.as_str()));
}

/// A file name of this process and thread, for the path forms.
fn tmp_path(ext: &str) -> std::path::PathBuf {
    let id = format!("{:?}", std::thread::current().id());
    let id: String = id.chars().filter(|c| c.is_ascii_digit()).collect();
    std::env::temp_dir().join(format!("tensile_fuzz_io_{}_{id}.{ext}", std::process::id()))
}

/// Each loader that takes this format, on the bytes: the in-memory form and (with `files`)
/// the path form (memory-mapped, zero-copy).
fn load_all(kind: usize, bytes: &[u8], files: bool) {
    use tensile::io::*;
    let ts = |r: tensile::Result<Vec<(String, Tensor)>>| {
        if let Ok(v) = r {
            v.iter().for_each(|(_, t)| touch(t));
        }
    };
    let ext = ["safetensors", "npy", "npz", "pt", "pt"][kind % 5];
    let path = tmp_path(ext);
    let files = files && std::fs::write(&path, bytes).is_ok();
    match kind % 5 {
        0 => {
            ts(safetensors::load_bytes(bytes));
            if files {
                ts(safetensors::load(&path));
            }
        }
        1 => {
            if let Ok(t) = npy::read_bytes(bytes) {
                touch(&t);
            }
            if files {
                if let Ok(t) = npy::read(&path) {
                    touch(&t);
                }
            }
        }
        2 => {
            ts(npz::read_bytes(bytes));
            if files {
                ts(npz::read(&path));
            }
        }
        3 => {
            if let Ok(v) = torch::load_bytes(bytes) {
                touch_value(&v);
            }
            if files {
                if let Ok(v) = torch::load(&path) {
                    touch_value(&v);
                }
            }
        }
        _ => {
            ts(torch::load_state_dict_bytes(bytes));
            if files {
                ts(torch::load_state_dict(&path));
            }
        }
    }
    if files {
        let _ = std::fs::remove_file(&path);
    }
}

/// The bits of every element (NaN payloads and -0.0 included), `None` when they cannot be
/// gathered.
fn bits(t: &Tensor) -> Option<Vec<u64>> {
    macro_rules! b {
        ($T:ty, $f:expr) => {
            t.try_to_vec::<$T>().ok()?.into_iter().map($f).collect()
        };
    }
    Some(match t.dtype() {
        DType::Bool => b!(bool, |x| x as u64),
        DType::UInt8 => b!(u8, |x| x as u64),
        DType::Int8 => b!(i8, |x| x as u8 as u64),
        DType::Int16 => b!(i16, |x| x as u16 as u64),
        DType::Int32 => b!(i32, |x| x as u32 as u64),
        DType::Int64 => b!(i64, |x| x as u64),
        DType::Float16 => b!(half::f16, |x| x.to_bits() as u64),
        DType::BFloat16 => b!(half::bf16, |x| x.to_bits() as u64),
        DType::Float32 => b!(f32, |x| x.to_bits() as u64),
        DType::Float64 => b!(f64, |x| x.to_bits()),
    })
}

/// A loaded tensor equals the one saved: dtype, shape and every element's bits.
fn assert_same(what: &str, saved: &Tensor, loaded: &Tensor) {
    assert_eq!(saved.dtype(), loaded.dtype(), "{what}: dtype changed");
    assert_eq!(saved.size(), loaded.size(), "{what}: shape changed");
    if let (Some(x), Some(y)) = (bits(saved), bits(loaded)) {
        assert!(x == y, "{what}: values changed: saved {x:?}, loaded {y:?}");
    }
}

/// save → load of small tensors in each format; the tensors must come back equal.
/// Returns the files written, with their kind (0 safetensors, 1 npy, 2 npz).
fn round_trip(r: &mut Rd) -> Option<Vec<(usize, Vec<u8>)>> {
    use tensile::io::*;
    let mut ts: Vec<Tensor> = Vec::new();
    for _ in 0..1 + r.below(3) {
        if let Some(t) = construct(r) {
            if t.numel() <= 4096 {
                ts.push(t);
            }
        }
    }
    let names: Vec<String> = (0..ts.len())
        .map(|i| match r.below(4) {
            0 => String::new(),
            1 => format!("layer.{i}.weight"),
            2 => "w".to_string(),
            _ => format!("t{i}\u{e9}\"'\\"),
        })
        .collect();
    let named: Vec<(&str, &Tensor)> = names.iter().map(|n| n.as_str()).zip(ts.iter()).collect();
    let mut files = Vec::new();
    // safetensors: keys are unique and sorted by the format; compare by name
    if let Ok(bytes) = safetensors::save_bytes(&named) {
        let loaded = safetensors::load_bytes(&bytes);
        let loaded =
            loaded.unwrap_or_else(|e| panic!("safetensors: saved file does not load: {e}"));
        for (n, t) in &loaded {
            let saved = named.iter().rev().find(|(k, _)| k == n);
            let saved = saved.unwrap_or_else(|| panic!("safetensors: key {n:?} was not saved"));
            assert_same("safetensors", saved.1, t);
        }
        files.push((0, bytes));
    }
    // npy: one tensor
    if let Some(t) = ts.first() {
        if let Ok(bytes) = npy::to_bytes(t) {
            let loaded = npy::read_bytes(&bytes);
            let loaded = loaded.unwrap_or_else(|e| panic!("npy: saved file does not load: {e}"));
            assert_same("npy", t, &loaded);
            files.push((1, bytes));
        }
    }
    // npz (a file: it has no bytes form)
    if r.u8() < 64 && !ts.is_empty() {
        let path = tmp_path("npz");
        let w = if r.bool() {
            npz::write(&path, &named)
        } else {
            npz::write_compressed(&path, &named)
        };
        if w.is_ok() {
            let loaded = npz::read(&path);
            let loaded = loaded.unwrap_or_else(|e| panic!("npz: saved file does not load: {e}"));
            for (n, t) in &loaded {
                let saved = named.iter().rev().find(|(k, _)| k == n);
                let saved = saved.unwrap_or_else(|| panic!("npz: key {n:?} was not saved"));
                assert_same("npz", saved.1, t);
            }
            if let Ok(b) = std::fs::read(&path) {
                files.push((2, b));
            }
        }
        let _ = std::fs::remove_file(&path);
    }
    Some(files)
}

/// `torch.save` files of PyTorch's (`scripts/make_io_fixtures.py`) for [`hostile_zips`]: two
/// uint8 storages, and a state dict whose tensors share storages (views, `t()`).
const TORCH_FILES: [&[u8]; 2] = [
    include_bytes!("../../tensile/tests/data/io/two_u8.pt"),
    include_bytes!("../../tensile/tests/data/io/state_dict.pt"),
];

fn le16(f: &[u8], at: usize) -> Option<usize> {
    Some(u16::from_le_bytes(f.get(at..at + 2)?.try_into().ok()?) as usize)
}

fn le32(f: &[u8], at: usize) -> Option<usize> {
    Some(u32::from_le_bytes(f.get(at..at + 4)?.try_into().ok()?) as usize)
}

fn put32(f: &mut [u8], at: usize, v: usize) {
    if let Some(b) = f.get_mut(at..at + 4) {
        b.copy_from_slice(&(v as u32).to_le_bytes());
    }
}

/// A zip's end record and central directory records: `(eocd, [(record, local header)])`.
fn zip_records(f: &[u8]) -> Option<(usize, Vec<(usize, usize)>)> {
    let eocd = f.windows(4).rposition(|w| w == b"PK\x05\x06")?;
    let (n, mut at) = (le16(f, eocd + 10)?, le32(f, eocd + 16)?);
    let mut recs = Vec::new();
    for _ in 0..n {
        if f.get(at..at + 4)? != b"PK\x01\x02" {
            break;
        }
        recs.push((at, le32(f, at + 42)?));
        at += 46 + le16(f, at + 28)? + le16(f, at + 30)? + le16(f, at + 32)?;
    }
    Some((eocd, recs))
}

/// Damages a zip's structure the way a hostile file would, to make two members share bytes:
/// a central record pointed at another member's local header or into its data, a name, size
/// or compression method changed in one of a member's two headers, a record listed twice
/// (under its name or a new one). `None` when the bytes hold no zip records.
fn damage_zip(r: &mut Rd, f: &mut Vec<u8>) -> Option<()> {
    let (eocd, recs) = zip_records(f)?;
    if recs.is_empty() {
        return None;
    }
    let (ra, la) = recs[r.below(recs.len())];
    let (_, lb) = recs[r.below(recs.len())];
    match r.below(6) {
        0 => put32(f, ra + 42, lb),
        1 => {
            let data_b = lb + 30 + le16(f, lb + 26)? + le16(f, lb + 28)?;
            put32(f, ra + 42, data_b + r.below(64));
        }
        2 => {
            let at = la + 30 + r.below(le16(f, la + 26)?.max(1));
            *f.get_mut(at)? ^= 1 << r.below(8);
        }
        3 => {
            // The compressed or uncompressed size, in the local header or the central record.
            let at = (if r.bool() { la + 18 } else { ra + 20 }) + 4 * r.below(2);
            let v = le32(f, at)?;
            put32(f, at, v.wrapping_add(r.below(3)).wrapping_sub(1));
        }
        4 => {
            let at = if r.bool() { la + 8 } else { ra + 10 };
            let m = [0u16, 8, 12, 99][r.below(4)].to_le_bytes();
            f.get_mut(at..at + 2)?.copy_from_slice(&m);
        }
        _ => {
            // The record again, at the end of the central directory (renamed or not), and
            // the end record's counts and size updated.
            let len = 46 + le16(f, ra + 28)? + le16(f, ra + 30)? + le16(f, ra + 32)?;
            let mut rec = f.get(ra..ra + len)?.to_vec();
            if r.bool() {
                let last = 46 + le16(&rec, 28)?.max(1) - 1;
                *rec.get_mut(last)? ^= 1;
            }
            f.splice(eocd..eocd, rec);
            let e = eocd + len;
            for at in [e + 8, e + 10] {
                let n = le16(f, at)? + 1;
                f.get_mut(at..at + 2)?
                    .copy_from_slice(&(n as u16).to_le_bytes());
            }
            let size = le32(f, e + 12)? + len;
            put32(f, e + 12, size);
        }
    }
    Some(())
}

/// The loaded tensors' storages: two of them never cover the same bytes (a hostile zip must
/// not make two storages over one memory range: their locks and version counters would
/// disagree). Tensors sharing a storage (views saved together) are fine.
fn assert_no_aliasing(what: &str, ts: &[&Tensor]) {
    let span = |t: &Tensor| {
        let start = t.data_ptr() - t.storage_offset() * t.dtype().itemsize();
        (start, start + t.storage_nbytes())
    };
    for (i, a) in ts.iter().enumerate() {
        for b in &ts[..i] {
            if a.shares_storage(b) || a.storage_nbytes() == 0 || b.storage_nbytes() == 0 {
                continue;
            }
            let ((s1, e1), (s2, e2)) = (span(a), span(b));
            assert!(
                e1 <= s2 || e2 <= s1,
                "{what}: two storages over the same bytes ({s1:#x}..{e1:#x} and {s2:#x}..{e2:#x})"
            );
        }
    }
}

fn tensors_of<'a>(v: &'a tensile::io::torch::Value, out: &mut Vec<&'a Tensor>) {
    if let Some(t) = v.as_tensor() {
        out.push(t);
    }
    if let Some(s) = v.as_seq() {
        s.iter().for_each(|x| tensors_of(x, out));
    }
    if let Some(d) = v.as_dict() {
        for (k, x) in d {
            tensors_of(k, out);
            tensors_of(x, out);
        }
    }
}

/// Zips damaged by [`damage_zip`] (an `.npz` of the round trip, or a `torch.save` file of
/// PyTorch's), loaded in memory and from a (memory-mapped) file: an error or tensors that
/// never alias across storages. Reads nothing when the input is exhausted (a 0 byte: none).
fn hostile_zips(r: &mut Rd, npzs: &[Vec<u8>]) {
    use tensile::io::*;
    for _ in 0..r.below(4) {
        let torch_file = r.bool();
        let mut f = if torch_file {
            TORCH_FILES[r.below(TORCH_FILES.len())].to_vec()
        } else if npzs.is_empty() {
            continue;
        } else {
            npzs[r.below(npzs.len())].clone()
        };
        for _ in 0..1 + r.below(2) {
            let _ = damage_zip(r, &mut f);
        }
        let path = tmp_path(if torch_file { "pt" } else { "npz" });
        let file = std::fs::write(&path, &f).is_ok();
        if torch_file {
            let loaded = [
                Some(torch::load_bytes(&f)),
                file.then(|| torch::load(&path)),
            ];
            for v in loaded.into_iter().flatten().flatten() {
                let mut ts = Vec::new();
                tensors_of(&v, &mut ts);
                assert_no_aliasing("torch", &ts);
                ts.iter().for_each(|t| touch(t));
            }
        } else {
            let loaded = [Some(npz::read_bytes(&f)), file.then(|| npz::read(&path))];
            for v in loaded.into_iter().flatten().flatten() {
                let ts: Vec<&Tensor> = v.iter().map(|(_, t)| t).collect();
                assert_no_aliasing("npz", &ts);
                ts.iter().for_each(|t| touch(t));
            }
        }
        if file {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// Checkpoint and array loaders on arbitrary bytes, and save → load round trips.
///
/// The first byte picks: `0..=4` one loader (safetensors, npy, npz, torch `load`, torch
/// `load_state_dict`) on the rest of the input, in memory and from a file; `5` every loader on
/// the rest; `6` a round trip of small tensors decoded from the rest; `7` a round trip whose
/// files are then corrupted at positions from the input and loaded again, then (input
/// permitting) zips with hostile structure: see [`hostile_zips`].
pub fn run_io(data: &[u8]) {
    let Some((&k, rest)) = data.split_first() else {
        return;
    };
    match k % 8 {
        kind @ 0..=4 => load_all(kind as usize, rest, k < 128),
        5 => (0..5).for_each(|kind| load_all(kind, rest, false)),
        6 => drop(round_trip(&mut Rd::new(rest))),
        _ => {
            let mut r = Rd::new(rest);
            let Some(files) = round_trip(&mut r) else {
                return;
            };
            let npzs: Vec<Vec<u8>> = files
                .iter()
                .filter(|(kind, _)| *kind == 2)
                .map(|(_, f)| f.clone())
                .collect();
            for (kind, mut f) in files {
                if f.is_empty() {
                    continue;
                }
                for _ in 0..1 + r.below(4) {
                    let pos = (r.u64() as usize) % f.len();
                    match r.below(4) {
                        0 => f[pos] = r.u8(),
                        1 => f[pos] ^= 1 << r.below(8),
                        2 => f.truncate(pos),
                        _ => {
                            let b = r.u8();
                            f.insert(pos, b)
                        }
                    }
                    if f.is_empty() {
                        break;
                    }
                }
                load_all(kind, &f, false);
            }
            hostile_zips(&mut r, &npzs);
        }
    }
}
