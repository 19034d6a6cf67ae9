//! Element moves for advanced indexing (`x[idx]`, `x[idx] = v`, `index_put_`): for every `k`
//! in order, element `dst_offs[k]` of one storage receives element `src_offs[k]` of another
//! (or has it added, for `accumulate=True`). Offsets count elements from the storage start.

use rayon::prelude::*;

use crate::dtype::DType;
use crate::kernels::{Ptr, Strided};

/// `dst[dst_offs[k]] = src[src_offs[k]]` (or `+=` when `accumulate`), serially in `k`
/// order, so the last of duplicate targets wins and sums add up in index order (PyTorch's
/// CPU `index_put_` runs its accumulating loop serially too). `dst` and `src` have one dtype;
/// their geometries are ignored, only their storages are used. The caller holds the locks
/// (write for `dst`, read for `src`).
///
/// Returns `false` (and moves nothing) when the lists differ in length, the dtypes differ,
/// or an offset lies outside its storage: the op computed them wrongly.
pub(crate) fn move_elems(
    dst: Strided,
    dst_offs: &[usize],
    src: Strided,
    src_offs: &[usize],
    accumulate: bool,
) -> bool {
    let dt = dst.dtype;
    let size = dt.itemsize();
    let fits = |t: Strided, offs: &[usize]| {
        let n = t.nbytes / size;
        offs.iter().all(|&o| o < n)
    };
    if dst_offs.len() != src_offs.len()
        || src.dtype != dt
        || !fits(dst, dst_offs)
        || !fits(src, src_offs)
    {
        return false;
    }
    if dst_offs.is_empty() {
        return true;
    }
    let (dp, sp) = (dst.base, src.base);
    macro_rules! run {
        ($T:ty, $f:expr) => {{
            let (dp, sp) = (dp.cast::<$T>(), sp.cast::<$T>());
            let f = $f;
            for (&d, &s) in dst_offs.iter().zip(src_offs) {
                // SAFETY: both offsets were checked to lie inside their storages, whose
                // buffers are aligned for every dtype; the storage locks are held (write
                // for dst, read for src); reads and writes go through raw pointers one
                // element at a time, so a shared storage is fine.
                unsafe {
                    let v = sp.add(s).read();
                    let p = dp.add(d);
                    p.write(f(p.read(), v));
                }
            }
        }};
    }
    macro_rules! by_dtype {
        ($add:ident) => {
            match dt {
                DType::Bool => run!(bool, |a: bool, b: bool| $add!(bool, a, b)),
                DType::UInt8 => run!(u8, |a: u8, b: u8| $add!(int, a, b)),
                DType::Int8 => run!(i8, |a: i8, b: i8| $add!(int, a, b)),
                DType::Int16 => run!(i16, |a: i16, b: i16| $add!(int, a, b)),
                DType::Int32 => run!(i32, |a: i32, b: i32| $add!(int, a, b)),
                DType::Int64 => run!(i64, |a: i64, b: i64| $add!(int, a, b)),
                DType::Float16 => run!(half::f16, |a: half::f16, b: half::f16| $add!(
                    half,
                    a,
                    b,
                    half::f16
                )),
                DType::BFloat16 => run!(half::bf16, |a: half::bf16, b: half::bf16| $add!(
                    half,
                    a,
                    b,
                    half::bf16
                )),
                DType::Float32 => run!(f32, |a: f32, b: f32| $add!(float, a, b)),
                DType::Float64 => run!(f64, |a: f64, b: f64| $add!(float, a, b)),
            }
        };
    }
    macro_rules! set {
        ($k:ident, $a:expr, $b:expr $(, $t:ty)?) => {{
            let _ = $a;
            $b
        }};
    }
    // C++'s `*(scalar_t*)dst += *(scalar_t*)src`: bool is a logical or, integers wrap, half
    // types add in float32 and round once.
    macro_rules! add {
        (bool, $a:expr, $b:expr) => {
            $a | $b
        };
        (int, $a:expr, $b:expr) => {
            $a.wrapping_add($b)
        };
        (half, $a:expr, $b:expr, $t:ty) => {
            <$t>::from_f32($a.to_f32() + $b.to_f32())
        };
        (float, $a:expr, $b:expr) => {
            $a + $b
        };
    }
    if accumulate {
        by_dtype!(add);
    } else {
        by_dtype!(set);
    }
    true
}

/// `move_elems` by rows: for every `k` in order, the `inner` contiguous elements starting
/// at `dst_offs[k]` receive (or have added, for `accumulate`) the `inner` contiguous
/// elements starting at `src_offs[k]`. Element `j` of row `k` is moved exactly as
/// `move_elems` moves the pair `(dst_offs[k] + j, src_offs[k] + j)`, in the same order, so
/// sums round identically. `fresh`: `dst` is a new tensor whose rows are all distinct and
/// disjoint from `src`, so rows may be copied in parallel. The caller holds the locks.
pub(crate) fn move_rows(
    dst: Strided,
    dst_offs: &[usize],
    src: Strided,
    src_offs: &[usize],
    inner: usize,
    accumulate: bool,
    fresh: bool,
) -> bool {
    if inner == 1 {
        return move_elems(dst, dst_offs, src, src_offs, accumulate);
    }
    if inner == 0 {
        return src.dtype == dst.dtype;
    }
    let dt = dst.dtype;
    let size = dt.itemsize();
    let fits = |t: Strided, offs: &[usize]| {
        let n = t.nbytes / size;
        offs.iter()
            .all(|&o| o.checked_add(inner).is_some_and(|e| e <= n))
    };
    if dst_offs.len() != src_offs.len()
        || src.dtype != dt
        || !fits(dst, dst_offs)
        || !fits(src, src_offs)
    {
        return false;
    }
    if dst_offs.is_empty() {
        return true;
    }
    let (dp, sp) = (Ptr(dst.base), Ptr(src.base));
    if !accumulate {
        let bytes = inner * size;
        let copy_row = |(&d, &s): (&usize, &usize)| {
            // SAFETY: both rows lie inside their storages (checked above); the locks are
            // held; `ptr::copy` tolerates overlap; with `fresh`, each task writes its own
            // distinct row of a new buffer.
            unsafe { std::ptr::copy(sp.get().add(s * size), dp.get().add(d * size), bytes) }
        };
        let n = dst_offs.len();
        if fresh
            && n * inner >= 2 * crate::kernels::loops::GRAIN
            && crate::kernels::par::threads() > 1
        {
            crate::kernels::par::run(|| {
                dst_offs
                    .par_iter()
                    .zip(src_offs.par_iter())
                    .with_min_len((crate::kernels::loops::GRAIN / inner).max(1))
                    .for_each(copy_row)
            });
        } else {
            dst_offs.iter().zip(src_offs).for_each(copy_row);
        }
        return true;
    }
    macro_rules! run {
        ($T:ty, $f:expr) => {{
            let (dp, sp) = (dp.get().cast::<$T>(), sp.get().cast::<$T>());
            let f = $f;
            for (&d, &s) in dst_offs.iter().zip(src_offs) {
                // SAFETY: both rows of `inner` elements lie inside their storages (checked
                // above), aligned for the dtype; the locks are held; element by element
                // through raw pointers, so a shared storage behaves as in `move_elems`.
                unsafe {
                    let (dr, sr) = (dp.add(d), sp.add(s));
                    for j in 0..inner {
                        let p = dr.add(j);
                        p.write(f(p.read(), sr.add(j).read()));
                    }
                }
            }
        }};
    }
    match dt {
        DType::Bool => run!(bool, |a: bool, b: bool| a | b),
        DType::UInt8 => run!(u8, |a: u8, b: u8| a.wrapping_add(b)),
        DType::Int8 => run!(i8, |a: i8, b: i8| a.wrapping_add(b)),
        DType::Int16 => run!(i16, |a: i16, b: i16| a.wrapping_add(b)),
        DType::Int32 => run!(i32, |a: i32, b: i32| a.wrapping_add(b)),
        DType::Int64 => run!(i64, |a: i64, b: i64| a.wrapping_add(b)),
        DType::Float16 => run!(half::f16, |a: half::f16, b: half::f16| {
            half::f16::from_f32(a.to_f32() + b.to_f32())
        }),
        DType::BFloat16 => run!(half::bf16, |a: half::bf16, b: half::bf16| {
            half::bf16::from_f32(a.to_f32() + b.to_f32())
        }),
        DType::Float32 => run!(f32, |a: f32, b: f32| a + b),
        DType::Float64 => run!(f64, |a: f64, b: f64| a + b),
    }
    true
}
