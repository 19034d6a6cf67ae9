//! Element moves for advanced indexing (`x[idx]`, `x[idx] = v`, `index_put_`): for every `k`
//! in order, element `dst_offs[k]` of one storage receives element `src_offs[k]` of another
//! (or has it added, for `accumulate=True`). Offsets count elements from the storage start.

use crate::dtype::DType;
use crate::iter::lock_operands;
use crate::tensor::Tensor;

/// `dst[dst_offs[k]] = src[src_offs[k]]` (or `+=` when `accumulate`), serially in `k`
/// order, so the last of duplicate targets wins and sums add up in index order (PyTorch's
/// CPU `index_put_` runs its accumulating loop serially too). `dst` and `src` have one dtype;
/// their geometries are ignored, only their storages are used.
///
/// Returns `false` (and moves nothing) when the lists differ in length, the dtypes differ,
/// or an offset lies outside its storage: the op computed them wrongly.
pub(crate) fn move_elems(
    dst: &Tensor,
    dst_offs: &[usize],
    src: &Tensor,
    src_offs: &[usize],
    accumulate: bool,
) -> bool {
    let dt = dst.dtype;
    let size = dt.itemsize();
    let fits = |t: &Tensor, offs: &[usize]| {
        let n = t.storage.nbytes() / size;
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
    let _guard = lock_operands(&[dst, src], 1);
    let (dp, sp) = (dst.storage.ptr(), src.storage.ptr());
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
