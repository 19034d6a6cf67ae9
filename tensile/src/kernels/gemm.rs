//! Matrix products: strided, batched, broadcast-aware GEMM.
//!
//! float32 and float64 go through the `gemm-f32`/`gemm-f64` crates ([`mm::gemm`]; run-time-detected AVX-512/AVX2/FMA
//! micro-kernels; chosen over `matrixmultiply` by measured speed on the project's machine:
//! 512³ float32 at about 205 GFLOP/s on one thread and 330–380 on two, against about 180 and
//! 335). It reads any row and column strides, so transposed, sliced and stride-0 operands
//! need no copy. Integer dtypes use a plain loop accumulating in int64 and wrapping to the
//! dtype, which is what fixed-width integer arithmetic gives.
//!
//! A batch whose right operand is the same matrix for every batch element (all batch strides
//! 0) and whose left operand's batch and row dims fold into one strided dim is run as a single
//! GEMM with `batch·m` rows, the fold PyTorch's `matmul` does for `(8,128,64) @ (64,128)`.
//! Work is split over the intra-op pool's threads ([`crate::kernels::par`]): by batch
//! elements when there are enough, otherwise inside each product (the `gemm` crate's own
//! rayon split, run inside the pool).

use rayon::prelude::*;

use crate::dtype::DType;
use crate::element::Element;
use crate::kernels::{Strided, mm, par};

/// `C[b] = A[b] · B[b]` (or `C[b] += A[b] · B[b]`) for every index `b` of the batch dims.
/// Strides are in elements; any stride may be 0 (a broadcast operand).
#[derive(Clone, Debug)]
pub(crate) struct Gemm {
    /// Sizes of the batch dims (the output's leading dims).
    pub batch: Vec<usize>,
    /// `A`'s stride for each batch dim.
    pub a_bst: Vec<usize>,
    /// `B`'s stride for each batch dim.
    pub b_bst: Vec<usize>,
    pub m: usize,
    pub k: usize,
    pub n: usize,
    /// `A`'s row (m) and column (k) strides.
    pub a_rs: usize,
    pub a_cs: usize,
    /// `B`'s row (k) and column (n) strides.
    pub b_rs: usize,
    pub b_cs: usize,
}

/// Below this many multiply-adds a product runs on the calling thread.
const PAR_FLOPS: usize = 1 << 21;
/// Below this many multiply-adds a product with fewer than 16 rows per thread runs on the
/// calling thread.
const PAR_FLOPS_FEW_ROWS: usize = 1 << 25;

/// One product `C = A·B` (+ C) of an `m×k` by a `k×n` matrix; `C` has row stride `rsc` and
/// column stride 1. `threads > 1` lets the product split itself over the intra-op pool (the
/// caller is inside [`par::run`]).
trait GemmElem: Element {
    /// # Safety
    /// The pointers address matrices of these sizes and strides inside locked storage; `c`
    /// is not read or written by anyone else during the call.
    #[allow(clippy::too_many_arguments)]
    unsafe fn gemm(
        m: usize,
        k: usize,
        n: usize,
        a: *const Self,
        rsa: isize,
        csa: isize,
        b: *const Self,
        rsb: isize,
        csb: isize,
        c: *mut Self,
        rsc: isize,
        acc: bool,
        threads: usize,
    );
}

macro_rules! float_gemm {
    ($($t:ty),*) => {$(
        impl GemmElem for $t {
            unsafe fn gemm(m: usize, k: usize, n: usize, a: *const $t, rsa: isize, csa: isize, b: *const $t, rsb: isize, csb: isize, c: *mut $t, rsc: isize, acc: bool, threads: usize) {
                let par = if threads > 1 { mm::Parallelism::Rayon(threads) } else { mm::Parallelism::None };
                // SAFETY: forwarded from the caller (`mm::gemm`'s contract).
                unsafe { mm::gemm(m, n, k, c, 1, rsc, acc, a, csa, rsa, b, csb, rsb, par) }
            }
        }
    )*};
}
float_gemm!(f32, f64);

macro_rules! int_gemm {
    ($($t:ty),*) => {$(
        impl GemmElem for $t {
            unsafe fn gemm(m: usize, k: usize, n: usize, a: *const $t, rsa: isize, csa: isize, b: *const $t, rsb: isize, csb: isize, c: *mut $t, rsc: isize, acc: bool, _threads: usize) {
                let mut row = vec![0i64; n];
                for i in 0..m {
                    // SAFETY (whole block): indices stay within the matrices the caller
                    // describes; c's row i is only touched here.
                    unsafe {
                        let ci = c.offset(i as isize * rsc);
                        for (j, r) in row.iter_mut().enumerate() {
                            *r = if acc { (*ci.add(j)).to_i64() } else { 0 };
                        }
                        for p in 0..k {
                            let av = (*a.offset(i as isize * rsa + p as isize * csa)).to_i64();
                            let bp = b.offset(p as isize * rsb);
                            for (j, r) in row.iter_mut().enumerate() {
                                *r = r.wrapping_add(av.wrapping_mul((*bp.offset(j as isize * csb)).to_i64()));
                            }
                        }
                        for (j, r) in row.iter().enumerate() {
                            *ci.add(j) = <$t>::from_i64(*r);
                        }
                    }
                }
            }
        }
    )*};
}
int_gemm!(u8, i8, i16, i32, i64);

/// Folds the batch dims into the rows when `B` is shared by every batch element and `A`'s
/// batch and row dims form one strided dim (`A.view(-1, k)` would not copy).
fn fold(g: &Gemm) -> Gemm {
    if g.batch.is_empty() || g.b_bst.iter().zip(&g.batch).any(|(&s, &n)| s != 0 && n > 1) {
        return g.clone();
    }
    let dims: Vec<(usize, usize)> = g
        .batch
        .iter()
        .zip(&g.a_bst)
        .map(|(&n, &s)| (n, s))
        .chain([(g.m, g.a_rs)])
        .filter(|&(n, _)| n > 1)
        .collect();
    if dims.windows(2).any(|w| w[0].1 != w[1].1 * w[1].0) {
        return g.clone();
    }
    let rows: usize = g.batch.iter().product::<usize>() * g.m;
    Gemm {
        batch: vec![],
        a_bst: vec![],
        b_bst: vec![],
        m: rows,
        a_rs: dims.last().map_or(g.a_rs, |d| d.1),
        ..g.clone()
    }
}

/// Runs `g` with `A` = `a`, `B` = `b` into `c`, a contiguous tensor of shape
/// `batch + [m, n]`; all three of dtype `T`; the caller holds the locks.
fn run_typed<T: GemmElem>(g: &Gemm, a: Strided, b: Strided, c: Strided, acc: bool) {
    let g = fold(g);
    let nb: usize = g.batch.iter().product();
    if nb == 0 || g.m == 0 || g.n == 0 {
        return;
    }
    let (ap, bp, cp) = (a.typed::<T>(), b.typed::<T>(), c.typed::<T>());
    let (m, k, n) = (g.m, g.k, g.n);
    if k == 0 {
        if !acc {
            for i in 0..nb * m * n {
                // SAFETY: c holds nb·m·n contiguous elements and is write-locked.
                unsafe { *cp.get().add(i) = T::zero() };
            }
        }
        return;
    }
    // offsets of batch element `bi` in A and B
    let offsets = |mut bi: usize| -> (isize, isize) {
        let (mut oa, mut ob) = (0isize, 0isize);
        for d in (0..g.batch.len()).rev() {
            let i = bi % g.batch[d];
            bi /= g.batch[d];
            oa += (i * g.a_bst[d]) as isize;
            ob += (i * g.b_bst[d]) as isize;
        }
        (oa, ob)
    };
    // rows r0..r1 of the product of batch element `bi`, split over `threads` threads by
    // `gemm` itself
    let rows = |bi: usize, r0: usize, r1: usize, threads: usize| {
        let (oa, ob) = offsets(bi);
        // SAFETY: the geometry describes matrices inside the locked storages of a and b
        // (checked by the op that built it); rows r0..r1 of batch element bi of c are
        // written by this call only.
        unsafe {
            T::gemm(
                r1 - r0,
                k,
                n,
                ap.get().offset(oa + (r0 * g.a_rs) as isize),
                g.a_rs as isize,
                g.a_cs as isize,
                bp.get().offset(ob),
                g.b_rs as isize,
                g.b_cs as isize,
                cp.get().add(bi * m * n + r0 * n),
                n as isize,
                acc,
                threads,
            )
        }
    };
    let product = |bi: usize, threads: usize| rows(bi, 0, m, threads);
    let flops = nb * m * n * k;
    let threads = if flops < PAR_FLOPS { 1 } else { par::threads() };
    if threads <= 1 {
        (0..nb).for_each(|bi| product(bi, 1));
    } else if nb >= threads {
        par::run(|| (0..nb).into_par_iter().for_each(|bi| product(bi, 1)));
    } else if m >= 16 * threads {
        // Fewer products than threads: each takes its rows in one block per thread, every
        // block a single-threaded product (on this 2-core machine 1.3-1.6x the `gemm`
        // crate's own split for (1024x64)·(64x128) and 512³).
        let per = m.div_ceil(threads).next_multiple_of(16);
        par::run(|| {
            for bi in 0..nb {
                (0..m.div_ceil(per))
                    .into_par_iter()
                    .for_each(|t| rows(bi, t * per, ((t + 1) * per).min(m), 1));
            }
        });
    } else if flops >= PAR_FLOPS_FEW_ROWS {
        par::run(|| (0..nb).for_each(|bi| product(bi, threads)));
    } else {
        // Few rows (a batch-1 forward: `(seq, d)·(d, 4d)`): the `gemm` crate's own split
        // costs more in thread wake-ups than it saves.
        (0..nb).for_each(|bi| product(bi, 1));
    }
}

/// Runs the product `g` of `a` by `b` into `c` (fresh or pre-filled when `accumulate`),
/// a contiguous tensor of shape `batch + [m, n]`. `a`, `b` and `c` share one dtype: float32,
/// float64 or an integer dtype (the op converts half types and refuses bool). The op holds
/// the storage locks (write for `c`, read for `a` and `b`).
pub(crate) fn gemm(g: &Gemm, a: Strided, b: Strided, c: Strided, accumulate: bool) {
    match c.dtype {
        DType::Float32 => run_typed::<f32>(g, a, b, c, accumulate),
        DType::Float64 => run_typed::<f64>(g, a, b, c, accumulate),
        DType::UInt8 => run_typed::<u8>(g, a, b, c, accumulate),
        DType::Int8 => run_typed::<i8>(g, a, b, c, accumulate),
        DType::Int16 => run_typed::<i16>(g, a, b, c, accumulate),
        DType::Int32 => run_typed::<i32>(g, a, b, c, accumulate),
        DType::Int64 => run_typed::<i64>(g, a, b, c, accumulate),
        DType::Bool | DType::Float16 | DType::BFloat16 => {
            unreachable!("gemm: the op converts half types and refuses bool")
        }
    }
}
