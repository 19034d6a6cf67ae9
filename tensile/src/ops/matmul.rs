//! `matmul` (with PyTorch's `dot`, `mv`, `mm`, fold and `bmm` paths and their errors),
//! `linear` (`addmm` when it can), on the strided GEMM of `kernels/gemm.rs`.
//!
//! The path a product takes decides its error messages, so it follows PyTorch's
//! `_matmul_impl` step by step:
//! * 1-D · 1-D → `dot`; 2-D · 1-D → `mv`; 1-D · 2-D → `mm` of `(1, k)` then squeeze;
//!   2-D · 2-D → `mm`;
//! * N-D (N ≥ 3) with a 1-D or 2-D operand, when the big operand's leading dims fold into one
//!   without a copy (`should_fold`), and the small one is not a 2-D left operand → one `mm`
//!   (or `mv`) on the folded matrix;
//! * otherwise → `bmm` over the broadcast batch dims (`infer_size` of the batch dims).
//!
//! No operand is copied: broadcast batch dims are read with stride 0, transposed and sliced
//! operands with their own strides (float16/bfloat16 operands are converted to float32).
//! Outputs are fresh and contiguous; one too large to allocate gives
//! `DefaultCPUAllocator: can't allocate memory: …`.

use crate::broadcast::infer_size;
use crate::dtype::DType;
use crate::dtype::type_meta_name;
use crate::error::{Error, Result, fmt_list};
use crate::kernels::gemm::Gemm;
use crate::layout::contiguous_strides;
use crate::ops::copy::{copy_unchecked, copy_with_strides};
use crate::tensor::Tensor;

fn same_dtype_mm(a: &Tensor, b: &Tensor) -> Result<()> {
    if a.dtype != b.dtype {
        return Err(Error::runtime(format!(
            "expected m1 and m2 to have the same dtype, but got: {} != {}",
            type_meta_name(a.dtype),
            type_meta_name(b.dtype)
        )));
    }
    Ok(())
}

fn not_implemented(kernel: &str, dt: DType) -> Error {
    Error::not_implemented_for(kernel, dt)
}

/// The product of `a` (`batch + [m, k]`) and `b` (`batch + [k, n]`), two views of one dtype
/// with any strides: a fresh contiguous `batch + [m, n]` tensor, plus `bias` (broadcast to
/// it) when given.
fn product(a: &Tensor, b: &Tensor, bias: Option<&Tensor>, kernel: &str) -> Result<Tensor> {
    let dt = a.dtype;
    if dt == DType::Bool {
        // the kernels return before their dtype dispatch when there is nothing to multiply:
        // an empty result, or an empty inner dim (all false, plus the bias)
        let nd = a.dim();
        let mut shape = a.sizes[..nd - 1].to_vec();
        shape.push(b.sizes[nd - 1]);
        if shape.contains(&0) || a.sizes[nd - 1] == 0 {
            let out = Tensor::try_alloc(&shape, &contiguous_strides(&shape), dt)?;
            match bias {
                Some(bias) => copy_unchecked(&out, bias),
                None => {
                    out.fill_(false)?;
                }
            }
            return Ok(out);
        }
        return Err(not_implemented(kernel, dt));
    }
    if matches!(dt, DType::Float16 | DType::BFloat16) {
        // computed in float32 and rounded once, as PyTorch's CPU kernels accumulate in float
        let a32 = copy_with_strides(a, &contiguous_strides(&a.sizes), DType::Float32)?;
        let b32 = copy_with_strides(b, &contiguous_strides(&b.sizes), DType::Float32)?;
        let bias32 = bias.map(|t| t.to(DType::Float32)).transpose()?;
        return product(&a32, &b32, bias32.as_ref(), kernel)?.to(dt);
    }
    let nd = a.dim();
    let (m, k, n) = (a.sizes[nd - 2], a.sizes[nd - 1], b.sizes[nd - 1]);
    let g = Gemm {
        batch: a.sizes[..nd - 2].to_vec(),
        a_bst: a.strides[..nd - 2].to_vec(),
        b_bst: b.strides[..nd - 2].to_vec(),
        m,
        k,
        n,
        a_rs: a.strides[nd - 2],
        a_cs: a.strides[nd - 1],
        b_rs: b.strides[nd - 2],
        b_cs: b.strides[nd - 1],
    };
    let mut shape = g.batch.clone();
    shape.extend([m, n]);
    let out = Tensor::try_alloc(&shape, &contiguous_strides(&shape), dt)?;
    if transposed_product_is_cheaper(&g, dt) {
        transposed_product(&g, a, b, &out, bias)?;
        return Ok(out);
    }
    if let Some(bias) = bias {
        copy_unchecked(&out, bias);
    }
    match row_major_rhs(&g, b)? {
        Some((g, b)) => gemm(&g, a, &b, &out, bias.is_some()),
        None => gemm(&g, a, b, &out, bias.is_some()),
    }
    Ok(out)
}

/// Runs the product `g` of `a` by `b` into the contiguous `c` (see [`crate::kernels::gemm`])
/// under the storage locks.
fn gemm(g: &Gemm, a: &Tensor, b: &Tensor, c: &Tensor, accumulate: bool) {
    let _locks = crate::iter::lock_operands(&[c, a, b], 1);
    crate::kernels::gemm::gemm(g, a.mem(), b.mem(), c.mem(), accumulate);
}

/// Whether a single float product with a column-major `B` (`x @ w.t()` with few rows) costs
/// fewer copied elements as `(Bᵀ·Aᵀ)ᵀ` — `A` copied column-major, the `n×m` product
/// transposed into `C`: `m·(k + n)` elements — than with `B` copied row-major (`k·n`, see
/// [`row_major_rhs`]). `(64,512) @ (512,512).t()`: 0.33 ms against 0.44.
fn transposed_product_is_cheaper(g: &Gemm, dt: DType) -> bool {
    let float = matches!(dt, DType::Float32 | DType::Float64);
    float
        && g.batch.is_empty()
        && g.b_rs == 1
        && g.b_cs != 1
        && g.m >= 2
        && g.k >= 2
        && g.n >= 2
        && {
            let (m, k, n) = (g.m as u128, g.k as u128, g.n as u128);
            m * (k + n) < k * n
        }
}

/// `C = A·B (+ bias)` computed as `Cᵀ = Bᵀ·Aᵀ`, for one 2-D product whose `B` is
/// column-major: `Bᵀ` is then row-major, `A` is copied column-major (so `Aᵀ` is row-major),
/// and the row-major `n×m` result (started from the transposed bias when there is one) is
/// transposed into `out`. Each element is still one dot product over `k` accumulated onto
/// the bias; only the `gemm` crate's blocking of `k` may differ, as it does between shapes.
fn transposed_product(
    g: &Gemm,
    a: &Tensor,
    b: &Tensor,
    out: &Tensor,
    bias: Option<&Tensor>,
) -> Result<()> {
    let (m, k, n, dt) = (g.m, g.k, g.n, a.dtype);
    let a2 = a.view_with(vec![m, k], vec![g.a_rs, g.a_cs], a.offset);
    let a_cm = copy_with_strides(&a2, &[1, m], dt)?;
    let ct = Tensor::try_alloc(&[n, m], &[m, 1], dt)?;
    let c2 = out.view_with(vec![m, n], vec![n, 1], out.offset);
    if let Some(bias) = bias {
        copy_unchecked(&mt(&ct), bias);
    }
    let gt = Gemm {
        batch: vec![],
        a_bst: vec![],
        b_bst: vec![],
        m: n,
        k,
        n: m,
        a_rs: g.b_cs,
        a_cs: g.b_rs,
        b_rs: m,
        b_cs: 1,
    };
    gemm(&gt, b, &a_cm, &ct, bias.is_some());
    copy_unchecked(&c2, &mt(&ct));
    Ok(())
}

/// A row-major copy of a column-major float right operand (`x @ w.t()`, `q @ k.mT`), with
/// the geometry that reads it, or `None` when `b` is used as it is.
///
/// Why: the `gemm` crate writes a row-major `C` as `Cᵀ = Bᵀ·Aᵀ`, so `B` becomes its left
/// operand, and it packs a left operand that is not column-major one element at a time
/// (about 2 ns an element). A blocked copy costs a fraction of that: `(64,512) @ (512,512).t()`
/// takes 0.35 ms instead of 0.89, `(384,1024) @ (1024,1536).t()` 12.3 ms instead of 16.9.
/// Values are unchanged (the copy is exact and the product sums in the same order). A `B`
/// shared by every batch element (batch strides 0) is copied once; one broadcast along some
/// batch dims but not others is left alone, since copying it would repeat it.
fn row_major_rhs(g: &Gemm, b: &Tensor) -> Result<Option<(Gemm, Tensor)>> {
    let float = matches!(b.dtype, DType::Float32 | DType::Float64);
    if !float || g.b_rs != 1 || g.b_cs == 1 || g.m < 2 || g.k < 2 || g.n < 2 {
        return Ok(None);
    }
    let live = |(&n, &s): (&usize, &usize)| n > 1 && s != 0;
    let shared = !g.batch.iter().zip(&g.b_bst).any(live);
    let dense = g
        .batch
        .iter()
        .zip(&g.b_bst)
        .all(|(&n, &s)| n == 1 || s != 0);
    let (k, n) = (g.k, g.n);
    let (copy, b_bst) = if shared {
        let mat = b.view_with(vec![k, n], vec![g.b_rs, g.b_cs], b.offset);
        let copy = copy_with_strides(&mat, &[n, 1], b.dtype)?;
        (copy, vec![0; g.batch.len()])
    } else if dense {
        let strides = contiguous_strides(&b.sizes);
        let copy = copy_with_strides(b, &strides, b.dtype)?;
        (copy, strides[..b.dim() - 2].to_vec())
    } else {
        return Ok(None);
    };
    let g = Gemm {
        b_bst,
        b_rs: n,
        b_cs: 1,
        ..g.clone()
    };
    Ok(Some((g, copy)))
}

/// `t` reshaped to `shape` (same number of elements), for a fresh contiguous `t`.
pub(crate) fn as_shape(t: Tensor, shape: &[usize]) -> Tensor {
    // PyTorch's `_unsafe_view` strides (`computeStride`): row-major, except that an empty
    // result's products wrap as int64 ((0, 2^62, 4) gets (0, 4, 1), not a saturated stride)
    let st = crate::layout::compute_stride(&t.sizes, &t.strides, shape)
        .unwrap_or_else(|| contiguous_strides(shape));
    t.view_with(shape.to_vec(), st, t.offset)
}

/// A 1-D tensor viewed as a `(1, k)` row.
fn row(v: &Tensor) -> Tensor {
    v.view_with(
        vec![1, v.sizes[0]],
        vec![v.sizes[0] * v.strides[0], v.strides[0]],
        v.offset,
    )
}

/// A 1-D tensor viewed as a `(k, 1)` column.
fn col(v: &Tensor) -> Tensor {
    v.view_with(vec![v.sizes[0], 1], vec![v.strides[0], 1], v.offset)
}

/// `t.mT()`: the last two dims swapped.
fn mt(t: &Tensor) -> Tensor {
    let nd = t.dim();
    let (mut s, mut st) = (t.sizes.clone(), t.strides.clone());
    s.swap(nd - 2, nd - 1);
    st.swap(nd - 2, nd - 1);
    t.view_with(s, st, t.offset)
}

/// `torch.dot`: 1-D · 1-D → 0-d.
fn dot(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if a.dtype != b.dtype {
        return Err(Error::runtime(format!(
            "dot : expected both vectors to have same dtype, but found {} and {}",
            a.dtype.scalar_type_name(),
            b.dtype.scalar_type_name()
        )));
    }
    if a.numel() != b.numel() {
        let (x, y) = (a.numel(), b.numel());
        return Err(Error::runtime(format!(
            "inconsistent tensor size, expected tensor [{x}] and src [{y}] to have the same number of elements, but got {x} and {y} elements respectively"
        )));
    }
    Ok(as_shape(product(&row(a), &col(b), None, "dot")?, &[]))
}

/// `torch.mv`: `(m, k)` · `(k,)` → `(m,)`.
fn mv(mat: &Tensor, vec: &Tensor) -> Result<Tensor> {
    if mat.sizes[1] != vec.sizes[0] {
        return Err(Error::runtime(format!(
            "size mismatch, got input ({}), mat ({}x{}), vec ({})",
            mat.sizes[0], mat.sizes[0], mat.sizes[1], vec.sizes[0]
        )));
    }
    if mat.dtype != vec.dtype {
        let (v, m) = (vec.dtype.scalar_type_name(), mat.dtype.scalar_type_name());
        return Err(Error::runtime(format!(
            "addmv input tensors must have the same dtype, but got {v}, {m}, and {v}"
        )));
    }
    let m = mat.sizes[0];
    Ok(as_shape(
        product(mat, &col(vec), None, "addmv_impl_cpu")?,
        &[m],
    ))
}

/// `torch.mm`: `(m, k)` · `(k, n)` → `(m, n)`.
fn mm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if a.sizes[1] != b.sizes[0] {
        return Err(Error::runtime(format!(
            "mm: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
            a.sizes[0], a.sizes[1], b.sizes[0], b.sizes[1]
        )));
    }
    same_dtype_mm(a, b)?;
    product(a, b, None, "addmm_impl_cpu_")
}

/// PyTorch's `should_fold` (for operands that do not require grad): fold the ≥3-D operand's leading dims (all
/// but the last) into the rows of one matrix when that is a view. Size-1 dims take no part:
/// their strides are arbitrary and they never stop a fold (PyTorch 2.15 folds a
/// `(5, 1, 1, 5)` operand with strides `(18, 12, 6, 1)`: its `mm` reports `5x5`); each other
/// leading dim's stride must be the next such dim's stride times its size.
///
/// When the smaller operand requires grad, PyTorch always folds (copying the
/// big operand if its dims do not fold as a view), so the small operand's gradient is one
/// `mm` rather than a large batched product — this decides the path, hence the error texts
/// (`size mismatch, got input (18), mat (18x3), vec (1)` rather than `bmm`'s).
fn should_fold(t1: &Tensor, t2: &Tensor) -> bool {
    let (d1, d2) = (t1.dim(), t2.dim());
    let larger = d1 >= d2;
    let (dim_big, dim_small) = if larger { (d1, d2) } else { (d2, d1) };
    if !(dim_big >= 3 && dim_small <= 2) {
        return false;
    }
    let small_requires_grad = if larger {
        t2.requires_grad()
    } else {
        t1.requires_grad()
    };
    if small_requires_grad {
        return true;
    }
    if d1 == 2 {
        return false;
    }
    let big = if larger { t1.alias() } else { mt(t2) };
    folds_as_view(&big)
}

/// Whether the leading dims of `big` (all but the last) fold into one without a copy.
fn folds_as_view(big: &Tensor) -> bool {
    if big.numel() == 0 {
        return true;
    }
    let lead: Vec<usize> = (0..big.dim() - 1).filter(|&i| big.sizes[i] != 1).collect();
    lead.windows(2)
        .all(|w| big.strides[w[0]] == big.strides[w[1]] * big.sizes[w[1]])
}

/// Broadcast strides of `t`'s leading `nb_t` dims against the batch shape `batch`.
fn batch_strides(t: &Tensor, nb_t: usize, batch: &[usize]) -> Vec<usize> {
    let lead = batch.len() - nb_t;
    (0..batch.len())
        .map(|i| {
            if i < lead {
                0
            } else {
                let j = i - lead;
                if t.sizes[j] == 1 && batch[i] != 1 {
                    0
                } else {
                    t.strides[j]
                }
            }
        })
        .collect()
}

/// `torch.matmul`'s forward function: PyTorch's `_matmul_impl` paths (see the module doc and
/// [`Tensor::matmul`]).
pub(crate) fn matmul_fwd(t1: &Tensor, t2: &Tensor) -> Result<Tensor> {
    let (d1, d2) = (t1.dim(), t2.dim());
    if d1 == 0 || d2 == 0 {
        return Err(Error::runtime(format!(
            "both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D"
        )));
    }
    match (d1, d2) {
        (1, 1) => return dot(t1, t2),
        (2, 1) => return mv(t1, t2),
        (1, 2) => return Ok(as_shape(mm(&row(t1), t2)?, &[t2.sizes[1]])),
        (2, 2) => return mm(t1, t2),
        _ => {}
    }
    if should_fold(t1, t2) {
        let transpose = d2 > d1;
        let big = if transpose { mt(t2) } else { t1.alias() };
        // a 2-D left operand multiplies from the right transposed: (t2ᵀ · t1ᵀ)ᵀ
        let small = match (transpose, d1) {
            (true, 2) => mt(t1),
            (true, _) => t1.alias(),
            _ => t2.alias(),
        };
        // PyTorch's `reshape`: a copy when the dims do not fold as a view
        let big = if folds_as_view(&big) {
            big
        } else {
            copy_with_strides(&big, &contiguous_strides(&big.sizes), big.dtype)?
        };
        let nd = big.dim();
        let mut out_shape: Vec<usize> = big.sizes[..nd - 1].to_vec();
        let folded: usize = out_shape.iter().product();
        // the rows step like the innermost leading dim that is not size 1 (any stride does
        // for a single row)
        let row_stride = (0..nd - 1)
            .rev()
            .find(|&i| big.sizes[i] != 1)
            .map_or(big.strides[nd - 2], |i| big.strides[i]);
        let folded_t = big.view_with(
            vec![folded, big.sizes[nd - 1]],
            vec![row_stride, big.strides[nd - 1]],
            big.offset,
        );
        return if small.dim() == 2 {
            out_shape.push(small.sizes[1]);
            let r = as_shape(mm(&folded_t, &small)?, &out_shape);
            if transpose {
                let rt = mt(&r);
                copy_with_strides(&rt, &contiguous_strides(&rt.sizes), rt.dtype)
            } else {
                Ok(r)
            }
        } else {
            Ok(as_shape(mv(&folded_t, &small)?, &out_shape))
        };
    }
    // bmm over the broadcast batch dims
    let n = if d1 > 1 { t1.sizes[d1 - 2] } else { 1 };
    let m1 = t1.sizes[d1 - 1];
    let nb1 = d1.saturating_sub(2);
    let (m2, p) = if d2 > 1 {
        (t2.sizes[d2 - 2], t2.sizes[d2 - 1])
    } else {
        (t2.sizes[0], 1)
    };
    let nb2 = d2.saturating_sub(2);
    let batch = infer_size(&t1.sizes[..nb1], &t2.sizes[..nb2])?;
    // only for the message, as PyTorch's int64 product (which wraps): two operands whose
    // batch dims broadcast to `(2^62, 2^62)` overflowed a checked usize product
    let bs = batch.iter().fold(1i64, |a, &s| a.wrapping_mul(s as i64));
    if m2 != m1 {
        return Err(Error::runtime(format!(
            "Expected size for first two dimensions of batch2 tensor to be: [{bs}, {m1}] but got: [{bs}, {m2}]."
        )));
    }
    if t1.dtype != t2.dtype {
        return Err(Error::runtime(format!(
            "expected scalar type {} but found {}",
            t1.dtype.scalar_type_name(),
            t2.dtype.scalar_type_name()
        )));
    }
    let mut a_sizes = batch.clone();
    a_sizes.extend([n, m1]);
    let mut a_strides = batch_strides(t1, nb1, &batch);
    a_strides.extend([
        if d1 > 1 { t1.strides[d1 - 2] } else { 0 },
        t1.strides[d1 - 1],
    ]);
    let mut b_sizes = batch.clone();
    b_sizes.extend([m2, p]);
    let mut b_strides = batch_strides(t2, nb2, &batch);
    if d2 > 1 {
        b_strides.extend([t2.strides[d2 - 2], t2.strides[d2 - 1]]);
    } else {
        b_strides.extend([t2.strides[0], 1]);
    }
    let a = t1.view_with(a_sizes, a_strides, t1.offset);
    let b = t2.view_with(b_sizes, b_strides, t2.offset);
    let mut out_shape = batch;
    if d1 > 1 {
        out_shape.push(n);
    }
    if d2 > 1 {
        out_shape.push(p);
    }
    Ok(as_shape(product(&a, &b, None, "bmm")?, &out_shape))
}

/// `torch.addmm(bias, mat1, mat2)` with `beta = alpha = 1`, as `F.linear` calls it.
pub(crate) fn addmm_raw(bias: &Tensor, mat1: &Tensor, mat2: &Tensor) -> Result<Tensor> {
    addmm_check(bias, mat1, mat2)?;
    product(mat1, mat2, Some(bias), "addmm_impl_cpu_")
}

/// `addmm`'s checks, in PyTorch's order.
fn addmm_check(bias: &Tensor, mat1: &Tensor, mat2: &Tensor) -> Result<()> {
    if bias.dtype != mat2.dtype {
        return Err(Error::runtime(format!(
            "self and mat2 must have the same dtype, but got {} and {}",
            bias.dtype.scalar_type_name(),
            mat2.dtype.scalar_type_name()
        )));
    }
    if mat1.dtype != mat2.dtype {
        return Err(Error::runtime(format!(
            "mat1 and mat2 must have the same dtype, but got {} and {}",
            mat1.dtype.scalar_type_name(),
            mat2.dtype.scalar_type_name()
        )));
    }
    // PyTorch 2.15 names `mat1` "self" here
    if mat1.dim() != 2 {
        return Err(Error::runtime(format!(
            "addmm: self must be a matrix, got {}-D tensor",
            mat1.dim()
        )));
    }
    if mat2.dim() != 2 {
        return Err(Error::runtime(format!(
            "addmm: mat2 must be a matrix, got {}-D tensor",
            mat2.dim()
        )));
    }
    if mat1.sizes[1] != mat2.sizes[0] {
        return Err(Error::runtime(format!(
            "addmm: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
            mat1.sizes[0], mat1.sizes[1], mat2.sizes[0], mat2.sizes[1]
        )));
    }
    let target = [mat1.sizes[0], mat2.sizes[1]];
    check_expand(bias, &target)
}

/// `beta · input + alpha · prod` for a fresh product `prod` (input broadcast to it; ignored
/// when `beta = 0`, so its NaNs do not propagate, as BLAS's). Integer dtypes take `beta` and
/// `alpha` truncated to integers, as PyTorch's integer kernels do.
fn scale_add(prod: Tensor, input: &Tensor, beta: f64, alpha: f64) -> Result<Tensor> {
    // `input` detached: the sum is the forward value only (the table records the op)
    let input = &input.detach();
    let float = prod.dtype.is_floating_point();
    let num = |v: f64| {
        if float {
            crate::tensor::Scalar::Float(v)
        } else {
            crate::tensor::Scalar::Int(v as i64)
        }
    };
    let p = if alpha == 1.0 {
        prod
    } else {
        prod.mul(num(alpha))?
    };
    if beta == 0.0 {
        return Ok(p);
    }
    let b = if beta == 1.0 {
        input.alias()
    } else {
        input.mul(num(beta))?
    };
    p.add(&b)
}

/// `bmm`'s and `baddbmm`'s checks of the two batches: both 3-D, the same batch size, and
/// `b2`'s rows matching `b1`'s columns (`batch1 must be a 3D tensor`, `batch2 must be a 3D
/// tensor`, `Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got:
/// [2, 4].`).
fn check_batches(b1: &Tensor, b2: &Tensor) -> Result<()> {
    if b1.dim() != 3 {
        return Err(Error::runtime("batch1 must be a 3D tensor"));
    }
    if b2.dim() != 3 {
        return Err(Error::runtime("batch2 must be a 3D tensor"));
    }
    let (b, k) = (b1.sizes[0], b1.sizes[2]);
    if b2.sizes[0] != b || b2.sizes[1] != k {
        return Err(Error::runtime(format!(
            "Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but got: [{}, {}].",
            b2.sizes[0], b2.sizes[1]
        )));
    }
    Ok(())
}

/// `torch.baddbmm`'s checks and product, in PyTorch's order (`baddbmm`'s meta function:
/// `input` expanded to `(b, n, m)` first, then the dtypes, the ranks, the batch sizes).
pub(crate) fn baddbmm_fwd(
    input: &Tensor,
    b1: &Tensor,
    b2: &Tensor,
    beta: f64,
    alpha: f64,
) -> Result<Tensor> {
    let target = [b1.size_of(0)?, b1.size_of(1)?, b2.size_of(2)?];
    check_expand(input, &target)?;
    if input.dtype != b1.dtype {
        return Err(Error::runtime(format!(
            "Input dtypes must be the same, got: input {}, batch1: {}, batch2: {}",
            type_meta_name(input.dtype),
            type_meta_name(b1.dtype),
            type_meta_name(b2.dtype)
        )));
    }
    check_batches(b1, b2)?;
    if b1.dtype == DType::Bool {
        return Err(not_implemented("baddbmm", DType::Bool));
    }
    if b1.dtype != b2.dtype {
        return Err(Error::runtime(format!(
            "expected scalar type {} but found {}",
            b1.dtype.scalar_type_name(),
            b2.dtype.scalar_type_name()
        )));
    }
    if beta == 1.0 && alpha == 1.0 {
        return product(b1, b2, Some(input), "baddbmm");
    }
    scale_add(product(b1, b2, None, "baddbmm")?, input, beta, alpha)
}

/// `torch.addmm` / `torch.baddbmm`'s scalars (`beta=1, alpha=1`): the result is
/// `beta · input + alpha · (mat1 @ mat2)`. A pair is `(beta, alpha)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AddmmOpts {
    /// The factor of `input` (0: `input` is ignored, NaNs included).
    pub beta: f64,
    /// The factor of the product.
    pub alpha: f64,
}
impl Default for AddmmOpts {
    fn default() -> Self {
        AddmmOpts {
            beta: 1.0,
            alpha: 1.0,
        }
    }
}
impl From<(f64, f64)> for AddmmOpts {
    fn from((beta, alpha): (f64, f64)) -> Self {
        AddmmOpts { beta, alpha }
    }
}

/// `torch.addmm(input, mat1, mat2, beta=, alpha=)`'s forward function: checks, product,
/// scaling (see [`crate::addmm_with`] for shapes, dtypes and errors).
pub(crate) fn addmm_fwd(
    input: &Tensor,
    mat1: &Tensor,
    mat2: &Tensor,
    beta: f64,
    alpha: f64,
) -> Result<Tensor> {
    if beta == 1.0 && alpha == 1.0 {
        addmm_raw(input, mat1, mat2)
    } else {
        addmm_check(input, mat1, mat2)?;
        let p = product(mat1, mat2, None, "addmm_impl_cpu_")?;
        scale_add(p, input, beta, alpha)
    }
}

/// `expand_size`'s check that `t` broadcasts to `target` (right-aligned).
fn check_expand(t: &Tensor, target: &[usize]) -> Result<()> {
    let fail = |i: usize, have: usize| {
        Error::runtime(format!(
            "The expanded size of the tensor ({}) must match the existing size ({have}) at non-singleton dimension {i}.  Target sizes: {}.  Tensor sizes: {}",
            target[i],
            fmt_list(target),
            fmt_list(&t.sizes)
        ))
    };
    if t.dim() > target.len() {
        return Err(Error::runtime(format!(
            "expand({}{{{}}}, size={}): the number of sizes provided ({}) must be greater or equal to the number of dimensions in the tensor ({})",
            t.dtype.legacy_type_name(),
            fmt_list(&t.sizes),
            fmt_list(target),
            target.len(),
            t.dim()
        )));
    }
    let lead = target.len() - t.dim();
    for (j, &s) in t.sizes.iter().enumerate() {
        let i = lead + j;
        if s != target[i] && s != 1 {
            return Err(fail(i, s));
        }
    }
    Ok(())
}

/// `torch.mm`'s forward function: the rank checks, then [`mm`] (see [`Tensor::mm`]).
pub(crate) fn mm_fwd(a: &Tensor, mat2: &Tensor) -> Result<Tensor> {
    for (name, t) in [("self", a), ("mat2", mat2)] {
        if t.dim() != 2 {
            return Err(Error::runtime(format!(
                "mm: {name} must be a matrix, got {}-D tensor",
                t.dim()
            )));
        }
    }
    mm(a, mat2)
}

/// `torch.bmm`'s forward function: its checks in PyTorch's order, then the batched product
/// (see [`Tensor::bmm`]).
pub(crate) fn bmm_fwd(a: &Tensor, mat2: &Tensor) -> Result<Tensor> {
    check_batches(a, mat2)?;
    if a.dtype != mat2.dtype {
        return Err(Error::runtime(format!(
            "expected scalar type {} but found {}",
            a.dtype.scalar_type_name(),
            mat2.dtype.scalar_type_name()
        )));
    }
    product(a, mat2, None, "bmm")
}

/// `torch.mv`'s forward function: the rank check, then [`mv`] (see [`Tensor::mv`]).
pub(crate) fn mv_fwd(a: &Tensor, vec: &Tensor) -> Result<Tensor> {
    if a.dim() != 2 || vec.dim() != 1 {
        return Err(Error::runtime(format!(
            "vector + matrix @ vector expected, got 1, {}, {}",
            a.dim(),
            vec.dim()
        )));
    }
    mv(a, vec)
}

/// `torch.dot`'s forward function: the rank check, then [`dot`] (see [`Tensor::dot`]).
pub(crate) fn dot_fwd(a: &Tensor, other: &Tensor) -> Result<Tensor> {
    if a.dim() != 1 || other.dim() != 1 {
        return Err(Error::runtime(format!(
            "1D tensors expected, but got {}D and {}D tensors",
            a.dim(),
            other.dim()
        )));
    }
    dot(a, other)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{addmm, addmm_with, baddbmm};

    /// A deterministic tensor of small halves (exact in every float dtype).
    fn halves(shape: &[usize], seed: usize, dt: DType) -> Tensor {
        let n: usize = shape.iter().product();
        let v: Vec<f64> = (0..n)
            .map(|i| (((i * 7 + seed * 13) % 17) as f64 - 8.0) / 2.0)
            .collect();
        Tensor::from_vec(v, shape).unwrap().to(dt).unwrap()
    }

    /// `(*batch, m, k) @ (*batch, k, n)` by definition, with explicit broadcasting through
    /// `to_vec` of each operand's logical values.
    fn naive(a: &Tensor, b: &Tensor, out_batch: &[usize]) -> Vec<f64> {
        let (da, db) = (a.dim(), b.dim());
        let (m, k, n) = (a.size()[da - 2], a.size()[da - 1], b.size()[db - 1]);
        let (av, bv) = (a.to_vec::<f64>(), b.to_vec::<f64>());
        let nb: usize = out_batch.iter().product();
        let index = |t: &Tensor, bi: usize| -> usize {
            // batch index of t (right-aligned, size-1 dims broadcast) for output batch bi
            let nt = t.dim() - 2;
            let mut rem = bi;
            let mut idx = 0;
            let mut mul = 1;
            for d in (0..out_batch.len()).rev() {
                let i = rem % out_batch[d];
                rem /= out_batch[d];
                if let Some(td) = (d + nt).checked_sub(out_batch.len()) {
                    let s = t.size()[td];
                    idx += if s == 1 { 0 } else { i } * mul;
                    mul *= s;
                }
            }
            idx
        };
        let mut out = vec![0.0; nb * m * n];
        for bi in 0..nb {
            let (ia, ib) = (index(a, bi) * m * k, index(b, bi) * k * n);
            for i in 0..m {
                for j in 0..n {
                    out[(bi * m + i) * n + j] = (0..k)
                        .map(|p| av[ia + i * k + p] * bv[ib + p * n + j])
                        .sum();
                }
            }
        }
        out
    }

    fn permuted(t: &Tensor, perm: &[usize]) -> Tensor {
        // a copy laid out in `perm` order, viewed back with the original dim order
        let phys: Vec<usize> = perm.iter().map(|&p| t.size()[p]).collect();
        let pst = contiguous_strides(&phys);
        let mut st = vec![0; perm.len()];
        for (k, &p) in perm.iter().enumerate() {
            st[p] = pst[k];
        }
        let out = Tensor::try_alloc(t.size(), &st, t.dtype()).unwrap();
        copy_unchecked(&out, t);
        out
    }

    #[test]
    fn products_match_the_definition_for_every_layout() {
        for dt in [
            DType::Float32,
            DType::Float64,
            DType::Int64,
            DType::Int32,
            DType::Float16,
            DType::BFloat16,
        ] {
            // (a shape, b shape, output batch)
            let cases: Vec<(Vec<usize>, Vec<usize>, Vec<usize>)> = vec![
                (vec![3, 4], vec![4, 5], vec![]),
                (vec![2, 3, 4], vec![4, 5], vec![2]),
                (vec![2, 1, 3, 4], vec![5, 4, 2], vec![2, 5]),
                (vec![1, 3, 4], vec![6, 4, 2], vec![6]),
                (vec![8, 16, 64], vec![64, 24], vec![8]),
                (vec![3, 4], vec![2, 4, 5], vec![2]),
                (vec![0, 3, 4], vec![4, 5], vec![0]),
                (vec![2, 3, 0], vec![2, 0, 5], vec![2]),
                // few rows: a column-major right operand goes through `transposed_product`
                (vec![2, 8], vec![8, 9], vec![]),
                (vec![1, 3, 8], vec![8, 9], vec![1]),
            ];
            for (sa, sb, batch) in cases {
                let a = halves(&sa, 1, dt);
                let b = halves(&sb, 2, dt);
                let want = naive(&a, &b, &batch);
                let mut variants = vec![(a.alias(), b.alias())];
                if sa.len() >= 2 {
                    let mut perm: Vec<usize> = (0..sa.len()).collect();
                    perm.reverse();
                    variants.push((permuted(&a, &perm), b.alias()));
                }
                if sb.len() >= 2 {
                    let mut perm: Vec<usize> = (0..sb.len()).collect();
                    perm.swap(sb.len() - 2, sb.len() - 1);
                    variants.push((a.alias(), permuted(&b, &perm)));
                }
                for (x, y) in variants {
                    let r = x.matmul(&y).unwrap();
                    let mut shape = batch.clone();
                    shape.extend([sa[sa.len() - 2], sb[sb.len() - 1]]);
                    assert_eq!((r.size(), r.dtype()), (&shape[..], dt), "{sa:?} @ {sb:?}");
                    assert!(r.is_contiguous());
                    // the exact product, rounded once to the dtype (halves are exact in every
                    // dtype, so only the final rounding of float16/bfloat16 can differ)
                    let n = want.len();
                    let rounded = Tensor::from_vec(want.clone(), [n])
                        .unwrap()
                        .to(dt)
                        .unwrap()
                        .to_vec::<f64>();
                    let strides = (x.stride().to_vec(), y.stride().to_vec());
                    assert!(
                        r.to_vec::<f64>() == rounded,
                        "{dt:?} {sa:?} @ {sb:?} strides {strides:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn linear_with_few_rows_adds_the_bias_once() {
        // (3, 16) @ (16, 20)ᵀ-layout weight: m·(k + n) < k·n, so the product runs transposed
        // and starts from the transposed bias
        for dt in [DType::Float32, DType::Float64] {
            let x = halves(&[3, 16], 1, dt);
            let w = halves(&[20, 16], 2, dt);
            let bias = halves(&[20], 3, dt);
            let r = x.linear_with(&w, Some(&bias)).unwrap();
            let mut want = naive(&x, &w.t().unwrap().contiguous(), &[]);
            let bv = bias.to_vec::<f64>();
            for (i, v) in want.iter_mut().enumerate() {
                *v += bv[i % 20];
            }
            assert_eq!((r.size(), r.stride()), (&[3, 20][..], &[20, 1][..]));
            assert_eq!(r.to_vec::<f64>(), want, "{dt:?}");
        }
    }

    #[test]
    fn broadcast_batches_are_read_in_place() {
        // (4, 3, 5) expanded from (1, 3, 5) (stride 0) times a (4, 5, 2) batch
        let base = halves(&[3, 5], 3, DType::Float32);
        let a = base.view_with(vec![4, 3, 5], vec![0, 5, 1], 0);
        let b = halves(&[4, 5, 2], 4, DType::Float32);
        let want = naive(&a.contiguous(), &b, &[4]);
        assert_eq!(a.matmul(&b).unwrap().to_vec::<f64>(), want);
        // 1-D operands on either side of a batch
        let v = halves(&[5], 5, DType::Float64);
        let b3 = halves(&[2, 5, 3], 6, DType::Float64);
        let r = v.matmul(&b3).unwrap();
        assert_eq!(r.size(), &[2, 3]);
        let want = naive(&v.view_with(vec![1, 5], vec![5, 1], 0), &b3, &[2]);
        assert_eq!(r.to_vec::<f64>(), want);
        let a3 = halves(&[2, 3, 5], 7, DType::Float64);
        let r = a3.matmul(&v).unwrap();
        assert_eq!(r.size(), &[2, 3]);
        assert_eq!(
            r.to_vec::<f64>(),
            naive(&a3, &v.view_with(vec![5, 1], vec![1, 1], 0), &[2])
        );
        // dot and mv
        let d = v.matmul(&v).unwrap();
        assert_eq!(
            (d.size(), d.item::<f64>().unwrap()),
            (&[][..], v.to_vec::<f64>().iter().map(|x| x * x).sum())
        );
    }

    #[test]
    fn large_products_split_over_threads_match() {
        let a = Tensor::rand_with(
            [300, 200],
            (&crate::Generator::new().manual_seed(1), DType::Float64),
        )
        .unwrap();
        let b = Tensor::rand_with(
            [200, 250],
            (&crate::Generator::new().manual_seed(2), DType::Float64),
        )
        .unwrap();
        let got = a.matmul(&b).unwrap().to_vec::<f64>();
        let want = naive(&a, &b, &[]);
        assert!(
            got.iter()
                .zip(&want)
                .all(|(g, w)| (g - w).abs() <= 1e-12 * w.abs().max(1.0))
        );
    }

    #[test]
    fn linear_matches_pytorch() {
        // expected values computed by PyTorch 2.15
        let x = Tensor::from_vec(
            vec![
                1.0f32, 2.0, 4.0, -3.0, 0.5, 0.5, 0.5, 0.5, 10.0, -2.0, 3.0, 7.0,
            ],
            [3, 4],
        )
        .unwrap();
        let w = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 0.5, -1.0, 0.0, 2.0], [2, 4]).unwrap();
        let b = Tensor::from_vec(vec![0.25f32, -0.5], [2]).unwrap();
        let y = x.linear_with(&w, Some(&b)).unwrap();
        assert_eq!(y.to_vec::<f64>(), vec![5.25, -8.0, 5.25, 0.25, 43.25, 20.5]);
        // 3-D input (flattened addmm), 1-D input, no bias, non-contiguous input
        let x3 = x.view_with(vec![3, 1, 4], vec![4, 4, 1], 0);
        assert_eq!(x3.linear_with(&w, Some(&b)).unwrap().size(), &[3, 1, 2]);
        let x1 = x.view_with(vec![4], vec![1], 0);
        assert_eq!(
            x1.linear_with(&w, Some(&b)).unwrap().to_vec::<f64>(),
            vec![5.25, -8.0]
        );
        let xt = x.view_with(vec![1, 4, 3], vec![12, 1, 4], 0).view_with(
            vec![1, 3, 4],
            vec![12, 4, 1],
            0,
        );
        assert_eq!(
            xt.linear(&w).unwrap().to_vec::<f64>(),
            vec![5.0, -7.5, 5.0, 0.75, 43.0, 21.0]
        );
        let e = |r: Result<Tensor>| r.unwrap_err().to_string();
        assert_eq!(
            e(x.linear_with(
                &Tensor::ones_with([2, 5], DType::Float32).unwrap(),
                Some(&b)
            )),
            "addmm: mat1 and mat2 shapes cannot be multiplied (3x4 and 5x2)"
        );
        assert_eq!(
            e(x.linear(&Tensor::ones_with([2, 5], DType::Float32).unwrap())),
            "mm: mat1 and mat2 shapes cannot be multiplied (3x4 and 5x2)"
        );
        assert_eq!(
            e(x.linear_with(&w, Some(&Tensor::ones_with([3], DType::Float32).unwrap()))),
            "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [3, 2].  Tensor sizes: [3]"
        );
        assert_eq!(
            e(x.linear_with(&w, Some(&Tensor::ones_with([2], DType::Float64).unwrap()))),
            "self and mat2 must have the same dtype, but got Double and Float"
        );
        assert_eq!(
            e(x.linear_with(
                &Tensor::ones_with([4], DType::Float32).unwrap(),
                Some(&Tensor::ones_with([1], DType::Float32).unwrap())
            )),
            "addmm: mat2 must be a matrix, got 1-D tensor"
        );
        assert_eq!(
            e(Tensor::scalar_tensor_with(1.0, DType::Float32)
                .unwrap()
                .linear(&w)),
            "both arguments to linear need to be at least 1D, but they are 0D and 2D"
        );
    }

    #[test]
    fn errors_follow_the_path() {
        let f = |s: &[usize]| Tensor::ones_with(s, DType::Float32).unwrap();
        let d = |s: &[usize]| Tensor::ones_with(s, DType::Float64).unwrap();
        let e = |r: Result<Tensor>| r.unwrap_err().to_string();
        assert_eq!(
            e(f(&[2, 3]).matmul(&d(&[3, 2]))),
            "expected m1 and m2 to have the same dtype, but got: float != double"
        );
        assert_eq!(
            e(f(&[2, 3]).matmul(&d(&[3]))),
            "addmv input tensors must have the same dtype, but got Double, Float, and Double"
        );
        assert_eq!(
            e(f(&[3]).matmul(&d(&[3]))),
            "dot : expected both vectors to have same dtype, but found Float and Double"
        );
        assert_eq!(
            e(f(&[3]).matmul(&f(&[4]))),
            "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 and 4 elements respectively"
        );
        assert_eq!(
            e(f(&[2, 2, 3]).matmul(&d(&[2, 3, 2]))),
            "expected scalar type Float but found Double"
        );
        assert_eq!(
            e(Tensor::ones_with([2, 3], DType::Bool)
                .unwrap()
                .matmul(&Tensor::ones_with([3, 2], DType::Bool).unwrap())),
            "\"addmm_impl_cpu_\" not implemented for 'Bool'"
        );
        assert_eq!(
            e(f(&[]).matmul(&f(&[3]))),
            "both arguments to matmul need to be at least 1D, but they are 0D and 1D"
        );
        assert_eq!(
            e(f(&[5, 3, 3]).matmul(&f(&[1, 2]))),
            "mm: mat1 and mat2 shapes cannot be multiplied (15x3 and 1x2)"
        );
        assert_eq!(
            e(f(&[3, 2, 3, 2]).matmul(&f(&[5]))),
            "size mismatch, got input (18), mat (18x2), vec (5)"
        );
        assert_eq!(
            e(f(&[2, 2]).matmul(&f(&[2, 1, 1]))),
            "Expected size for first two dimensions of batch2 tensor to be: [2, 2] but got: [2, 1]."
        );
        assert_eq!(
            e(f(&[2, 6, 1]).matmul(&f(&[1, 3, 1, 5]))),
            "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"
        );
    }

    /// Size-1 leading dims never stop a fold, whatever their strides (PyTorch 2.15's
    /// messages, which name the path taken); the folded rows step like the innermost
    /// leading dim that is not size 1.
    #[test]
    fn size_one_dims_do_not_stop_a_fold() {
        let base = halves(&[100], 3, DType::Float32);
        let st = |size: &[i64], stride: &[i64], off: i64| {
            base.as_strided_with(size, stride, off).unwrap()
        };
        let f = |s: &[usize]| Tensor::ones_with(s, DType::Float32).unwrap();
        let e = |r: Result<Tensor>| r.unwrap_err().to_string();
        assert_eq!(
            e(st(&[5, 1, 1, 5], &[18, 12, 6, 1], 1).matmul(&f(&[1, 4]))),
            "mm: mat1 and mat2 shapes cannot be multiplied (5x5 and 1x4)"
        );
        assert_eq!(
            e(f(&[4]).matmul(&st(&[2, 5, 2, 1], &[10, 2, 1, 1], 0))),
            "size mismatch, got input (10), mat (10x2), vec (4)"
        );
        assert_eq!(
            e(st(&[2, 1, 3, 4], &[12, 5, 4, 1], 0).matmul(&f(&[5]))),
            "size mismatch, got input (6), mat (6x4), vec (5)"
        );
        assert_eq!(
            e(f(&[4]).matmul(&st(&[2, 1, 3], &[3, 7, 1], 0))),
            "size mismatch, got input (6), mat (6x1), vec (4)"
        );
        // not a view: bmm
        assert_eq!(
            e(st(&[3, 2, 1], &[1, 3, 50], 0).matmul(&f(&[5]))),
            "Expected size for first two dimensions of batch2 tensor to be: [3, 1] but got: [3, 5]."
        );
        // values through a fold whose last leading dim is size 1 with an odd stride
        let a = st(&[2, 3, 1, 4], &[12, 4, 7, 1], 0);
        let b = halves(&[4, 6], 5, DType::Float32);
        let got = a.matmul(&b).unwrap();
        assert_eq!(got.size(), &[2, 3, 1, 6]);
        let want = naive(&a.contiguous(), &b, &[2, 3]);
        assert_eq!(got.to_vec::<f64>(), want);
        let v = halves(&[4], 2, DType::Float32);
        let got = a.matmul(&v).unwrap();
        let want = naive(&a.contiguous(), &col(&v), &[2, 3]);
        assert_eq!(got.to_vec::<f64>(), want);
    }

    /// PyTorch folds `1-D @ N-D` into an `mv` when the 1-D operand requires grad, even when
    /// the big operand's dims do not fold as a view: the error is `mv`'s, not `bmm`'s.
    #[test]
    fn fold_when_small_operand_requires_grad() {
        let big = Tensor::zeros_with([2, 3, 3, 3], DType::Float64)
            .unwrap()
            .permute([1, 0, 3, 2])
            .unwrap();
        let v = Tensor::zeros_with([1], DType::Float64).unwrap();
        let e = v.matmul(&big).unwrap_err();
        assert!(
            e.message()
                .starts_with("Expected size for first two dimensions")
        );
        v.requires_grad_(true).unwrap();
        let e = v.matmul(&big).unwrap_err();
        assert_eq!(
            e.message(),
            "size mismatch, got input (18), mat (18x3), vec (1)"
        );
        // a 2-D left operand requiring grad: mm on the transposed fold, then transposed back
        let a = Tensor::from_vec((0..6).map(f64::from).collect::<Vec<_>>(), [2, 3]).unwrap();
        let b = Tensor::from_vec((0..36).map(f64::from).collect::<Vec<_>>(), [2, 3, 6])
            .unwrap()
            .transpose(0, 1)
            .unwrap()
            .contiguous()
            .transpose(0, 1)
            .unwrap();
        let want = a.matmul(&b).unwrap().to_vec::<f64>();
        let ag = a.detach().requires_grad_(true).unwrap();
        let r = ag.matmul(&b).unwrap();
        assert_eq!(r.to_vec::<f64>(), want);
        assert!(r.is_contiguous());
        assert_eq!(r.grad_fn().unwrap().name(), "CloneBackward0");
        let e = ag
            .matmul(&Tensor::zeros_with([4, 5, 6], DType::Float64).unwrap())
            .unwrap_err();
        assert_eq!(
            e.message(),
            "mm: mat1 and mat2 shapes cannot be multiplied (24x5 and 3x2)"
        );
    }

    /// `addmm` with `beta = 0` ignores the input (NaNs included); integer dtypes truncate the
    /// scalars; mat1 that is not a matrix is reported as "self".
    #[test]
    fn addmm_scalars_and_errors() {
        let m = Tensor::ones_with([2, 2], DType::Float64).unwrap();
        let nan = Tensor::full_with([2, 2], f64::NAN, DType::Float64).unwrap();
        let r = addmm_with(&nan, &m, &m, (0.0, 1.0)).unwrap();
        assert_eq!(r.to_vec::<f64>(), vec![2.0; 4]);
        let i = Tensor::ones_with([2, 2], DType::Int64).unwrap();
        let r = addmm_with(&i, &i, &i, (1.0, 0.5)).unwrap();
        assert_eq!(r.to_vec::<i64>(), vec![1; 4]);
        let v = Tensor::ones_with([2], DType::Float64).unwrap();
        assert_eq!(
            addmm(&m, &v, &m).unwrap_err().message(),
            "addmm: self must be a matrix, got 1-D tensor"
        );
        let e = baddbmm(
            &m,
            &m,
            &Tensor::ones_with([2, 2, 2], DType::Float64).unwrap(),
        );
        assert_eq!(e.unwrap_err().message(), "batch1 must be a 3D tensor");
    }
}
