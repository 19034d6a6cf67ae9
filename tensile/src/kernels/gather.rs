//! Row gathers (`index_select`, `embedding`) and row-wise normalisation (`layer_norm`) over
//! contiguous operands. The op holds the storage locks while these run.

use rayon::prelude::*;

use crate::element::Element;
use crate::kernels::Strided;
use crate::kernels::loops::GRAIN;
use crate::kernels::par;

/// `out[o, j, :] = src[o, idx[j], :]` for a contiguous `src` viewed as `(outer, dim, inner)`
/// and a fresh contiguous `out` viewed as `(outer, idx.len(), inner)`, both of one dtype.
/// Every `idx[j] < dim` (checked by the op).
pub(crate) fn index_select_rows(
    src: Strided,
    out: Strided,
    idx: &[usize],
    outer: usize,
    dim: usize,
    inner: usize,
) {
    debug_assert!(src.is_contiguous() && out.is_contiguous() && src.dtype == out.dtype);
    debug_assert!(idx.iter().all(|&i| i < dim));
    let n = idx.len();
    if outer * n * inner == 0 {
        return;
    }
    let bytes = inner * src.dtype.itemsize();
    let (sp, op) = (src.typed::<u8>(), out.typed::<u8>());
    let copy_row = |r: usize| {
        let (o, j) = (r / n, r % n);
        // SAFETY: row (o, idx[j]) of src and row (o, j) of out lie inside their storages
        // (idx[j] < dim, both contiguous with these shapes); out is fresh, so the two never
        // overlap; each output row is written by one task; the locks are held.
        unsafe {
            std::ptr::copy_nonoverlapping(
                sp.get().add((o * dim + idx[j]) * bytes),
                op.get().add(r * bytes),
                bytes,
            )
        }
    };
    if outer * n * inner < 2 * GRAIN || par::threads() <= 1 {
        (0..outer * n).for_each(copy_row);
    } else {
        par::run(|| {
            (0..outer * n)
                .into_par_iter()
                .with_min_len((GRAIN / inner.max(1)).max(1))
                .for_each(copy_row)
        });
    }
}

/// [`layer_norm`] for float32 and the half types (parameters `P` of the same type or
/// float32): the row kernel of [`crate::kernels::norm`], in float32.
pub(crate) fn layer_norm_f32<T, P>(
    x: Strided,
    y: Strided,
    w: Option<Strided>,
    b: Option<Strided>,
    rows: usize,
    n: usize,
    eps: f64,
) where
    T: Element + crate::kernels::softmax::SoftElem,
    P: Element + crate::kernels::softmax::SoftElem,
{
    debug_assert!(x.dtype == T::DTYPE && y.dtype == T::DTYPE);
    if rows * n == 0 {
        return;
    }
    // SAFETY: x and y are contiguous with rows·n elements of T (y fresh, so no overlap); w
    // and b are contiguous with n elements of P; the locks are held for the whole call.
    unsafe {
        let xs = std::slice::from_raw_parts(x.ptr() as *const T, rows * n);
        let ys = std::slice::from_raw_parts_mut(y.ptr() as *mut T, rows * n);
        let ws = w.map(|t| std::slice::from_raw_parts(t.ptr() as *const P, n));
        let bs = b.map(|t| std::slice::from_raw_parts(t.ptr() as *const P, n));
        crate::kernels::norm::layer_norm_rows(xs, ys, n, ws, bs, eps);
    }
}

/// The float32 backward of `layer_norm` over rows of `n` elements
/// ([`crate::kernels::norm::layer_norm_backward_rows`]): `x`, `g` contiguous float32 with
/// `rows·n` elements, `w` (when given) contiguous float32 with `n`. Writes `dx` and `x̂`
/// into `dx` and `xh`: fresh contiguous float32 with `x`'s number of elements.
pub(crate) fn layer_norm_backward_f32(
    x: Strided,
    g: Strided,
    w: Option<Strided>,
    n: usize,
    eps: f64,
    dx: Strided,
    xh: Strided,
) {
    let total = x.numel();
    if total == 0 {
        return;
    }
    // SAFETY: x and g are contiguous float32 with `total` elements, w contiguous float32 with
    // n; dx and xh are fresh (no overlap with anything) with `total` elements; the locks are
    // held for the whole call.
    unsafe {
        let xs = std::slice::from_raw_parts(x.ptr() as *const f32, total);
        let gs = std::slice::from_raw_parts(g.ptr() as *const f32, total);
        let ws = match w {
            Some(t) => std::slice::from_raw_parts(t.ptr() as *const f32, n),
            None => &[][..],
        };
        let d = std::slice::from_raw_parts_mut(dx.ptr() as *mut f32, total);
        let h = std::slice::from_raw_parts_mut(xh.ptr() as *mut f32, total);
        crate::kernels::norm::layer_norm_backward_rows(xs, gs, ws, n, eps, d, h);
    }
}

/// `layer_norm` over the last `n` elements of each of `rows` rows: `y = (x - mean) /
/// sqrt(var + eps) * w + b`, with the biased variance. `x` and `y` are contiguous of dtype
/// `T`; `w` and `b`, when given, contiguous of `n` elements of dtype `P`. Statistics and the
/// affine map are computed in float64 and rounded once.
pub(crate) fn layer_norm<T: Element, P: Element>(
    x: Strided,
    y: Strided,
    w: Option<Strided>,
    b: Option<Strided>,
    rows: usize,
    n: usize,
    eps: f64,
) {
    debug_assert!(x.dtype == T::DTYPE && y.dtype == T::DTYPE);
    if rows * n == 0 {
        return;
    }
    let (xp, yp) = (x.typed::<u8>(), y.typed::<u8>());
    let (wp, bp) = (w.map(|t| t.typed::<u8>()), b.map(|t| t.typed::<u8>()));
    let one_row = |r: usize| {
        // SAFETY: rows r of x and y hold n contiguous elements inside their storages; y is
        // fresh (no overlap with x) and row r is written by this task only; w and b hold n
        // elements; the locks are held.
        let (xs, ys, ws, bs) = unsafe {
            (
                std::slice::from_raw_parts((xp.get() as *const T).add(r * n), n),
                std::slice::from_raw_parts_mut((yp.get() as *mut T).add(r * n), n),
                wp.map(|p| std::slice::from_raw_parts(p.get() as *const P, n)),
                bp.map(|p| std::slice::from_raw_parts(p.get() as *const P, n)),
            )
        };
        let mean = xs.iter().map(|v| v.to_f64()).sum::<f64>() / n as f64;
        let var = xs.iter().map(|v| (v.to_f64() - mean).powi(2)).sum::<f64>() / n as f64;
        let rstd = 1.0 / (var.max(0.0) + eps).sqrt();
        for (k, (o, v)) in ys.iter_mut().zip(xs).enumerate() {
            let mut z = (v.to_f64() - mean) * rstd;
            if let Some(ws) = ws {
                z *= ws[k].to_f64();
            }
            if let Some(bs) = bs {
                z += bs[k].to_f64();
            }
            *o = T::from_f64(z);
        }
    };
    if rows * n < 2 * GRAIN || par::threads() <= 1 {
        (0..rows).for_each(one_row);
    } else {
        par::run(|| {
            (0..rows)
                .into_par_iter()
                .with_min_len((GRAIN / n).max(1))
                .for_each(one_row)
        });
    }
}
