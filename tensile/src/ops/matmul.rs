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
//! operands with their own strides. Outputs are fresh and contiguous.

use crate::broadcast::infer_size;
use crate::dtype::DType;
use crate::error::{Error, Result, fmt_list};
use crate::kernels::gemm::{Gemm, gemm};
use crate::layout::contiguous_strides;
use crate::ops::copy::{copy_unchecked, copy_with_strides};
use crate::tensor::Tensor;

/// The C++ type name PyTorch prints for a dtype in `mm`'s dtype error.
pub(crate) fn type_meta_name(dt: DType) -> &'static str {
    match dt {
        DType::Bool => "bool",
        DType::UInt8 => "unsigned char",
        DType::Int8 => "signed char",
        DType::Int16 => "short int",
        DType::Int32 => "int",
        DType::Int64 => "long int",
        DType::Float16 => "Half",
        DType::BFloat16 => "BFloat16",
        DType::Float32 => "float",
        DType::Float64 => "double",
    }
}

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
    Error::not_implemented(format!(
        "\"{kernel}\" not implemented for '{}'",
        dt.scalar_type_name()
    ))
}

/// The product of `a` (`batch + [m, k]`) and `b` (`batch + [k, n]`), two views of one dtype
/// with any strides: a fresh contiguous `batch + [m, n]` tensor, plus `bias` (broadcast to
/// it) when given.
fn product(a: &Tensor, b: &Tensor, bias: Option<&Tensor>, kernel: &str) -> Result<Tensor> {
    let dt = a.dtype;
    if dt == DType::Bool {
        return Err(not_implemented(kernel, dt));
    }
    if matches!(dt, DType::Float16 | DType::BFloat16) {
        // computed in float32 and rounded once, as PyTorch's CPU kernels accumulate in float
        let a32 = copy_with_strides(a, &contiguous_strides(&a.sizes), DType::Float32);
        let b32 = copy_with_strides(b, &contiguous_strides(&b.sizes), DType::Float32);
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
    let out = Tensor::alloc(&shape, &contiguous_strides(&shape), dt, bias.is_none());
    if let Some(bias) = bias {
        copy_unchecked(&out, bias);
    }
    gemm(&g, a, b, &out, bias.is_some());
    Ok(out)
}

/// `t` reshaped to `shape` (same number of elements), for a fresh contiguous `t`.
fn as_shape(t: Tensor, shape: &[usize]) -> Tensor {
    t.view_with(shape.to_vec(), contiguous_strides(shape), t.offset)
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
    same_dtype_mm(mat, vec)?;
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

/// PyTorch's `should_fold` (without autograd): fold the ≥3-D operand's leading dims into the
/// rows of one matrix when that is a view.
fn should_fold(t1: &Tensor, t2: &Tensor) -> bool {
    let (d1, d2) = (t1.dim(), t2.dim());
    let larger = d1 >= d2;
    let (dim_big, dim_small) = if larger { (d1, d2) } else { (d2, d1) };
    if !(dim_big >= 3 && dim_small <= 2) || d1 == 2 {
        return false;
    }
    let big = if larger { t1.alias() } else { mt(t2) };
    if big.numel() == 0 {
        return true;
    }
    (0..dim_big - 2).all(|i| big.strides[i] == big.strides[i + 1] * big.sizes[i + 1])
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

fn matmul_impl(t1: &Tensor, t2: &Tensor) -> Result<Tensor> {
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
        let small = if transpose { t1.alias() } else { t2.alias() };
        let nd = big.dim();
        let mut out_shape: Vec<usize> = big.sizes[..nd - 1].to_vec();
        let folded: usize = out_shape.iter().product();
        let folded_t = big.view_with(
            vec![folded, big.sizes[nd - 1]],
            vec![big.strides[nd - 2], big.strides[nd - 1]],
            big.offset,
        );
        return if small.dim() == 2 {
            out_shape.push(small.sizes[1]);
            Ok(as_shape(mm(&folded_t, &small)?, &out_shape))
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
    let bs: usize = batch.iter().product();
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
fn addmm(bias: &Tensor, mat1: &Tensor, mat2: &Tensor) -> Result<Tensor> {
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
    if mat2.dim() != 2 {
        return Err(Error::runtime(format!(
            "mat2 must be a matrix, got {}-D tensor",
            mat2.dim()
        )));
    }
    if mat1.sizes[1] != mat2.sizes[0] {
        return Err(Error::runtime(format!(
            "mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
            mat1.sizes[0], mat1.sizes[1], mat2.sizes[0], mat2.sizes[1]
        )));
    }
    let target = [mat1.sizes[0], mat2.sizes[1]];
    check_expand(bias, &target)?;
    product(mat1, mat2, Some(bias), "addmm_impl_cpu_")
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

impl Tensor {
    /// `torch.matmul(self, other)` (`self @ other`).
    ///
    /// Shapes: `(k,)·(k,)` → `()`; `(m,k)·(k,)` → `(m,)`; `(k,)·(k,n)` → `(n,)`;
    /// `(m,k)·(k,n)` → `(m,n)`; otherwise the leading (batch) dims broadcast:
    /// `(*a, m, k)·(*b, k, n)` → `(broadcast(a, b), m, n)`, a 1-D left operand acting as
    /// `(1, k)` and a 1-D right operand as `(k, 1)`, their dim dropped from the result.
    /// dtype: the operands' (they must match); float16/bfloat16 compute in float32; integer
    /// products wrap. The output is fresh and contiguous.
    ///
    /// Errors (RuntimeError), by path:
    /// `both arguments to matmul need to be at least 1D, but they are 0D and 2D`;
    /// `inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 and 4 elements respectively`;
    /// `dot : expected both vectors to have same dtype, but found Float and Double`;
    /// `size mismatch, got input (5), mat (5x4), vec (3)`;
    /// `mm: mat1 and mat2 shapes cannot be multiplied (5x3 and 4x2)`;
    /// `expected m1 and m2 to have the same dtype, but got: float != double`;
    /// `The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1`;
    /// `Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4].`;
    /// `expected scalar type Float but found Double` (batched); bool operands:
    /// `"addmm_impl_cpu_" not implemented for 'Bool'` (`"dot"`, `"addmv_impl_cpu"`, `"bmm"`).
    pub fn matmul(&self, other: &Tensor) -> Result<Tensor> {
        matmul_impl(self, other)
    }

    /// `torch.nn.functional.linear(self, weight, bias)`: `self @ weight.T + bias`.
    ///
    /// Shapes: `self` `(*, in)`, `weight` `(out, in)` (or `(in,)`, giving no `out` dim),
    /// `bias` broadcastable to `(*, out)` → `(*, out)`. A 2-D input with a bias (and a
    /// contiguous 3-D input, or any contiguous input with a 1-D bias, flattened to 2-D) runs
    /// as one `addmm` with the bias as the accumulator; anything else is `matmul` then `add_`.
    ///
    /// Errors: `both arguments to linear need to be at least 1D, but they are 0D and 2D`;
    /// `t() expects a tensor with <= 2 dimensions, but self is 3D`; `addmm`'s
    /// `mat1 and mat2 shapes cannot be multiplied (4x3 and 5x2)`,
    /// `self and mat2 must have the same dtype, but got Float and Double`,
    /// `mat2 must be a matrix, got 1-D tensor`, and a bias that does not broadcast:
    /// `The expanded size of the tensor (5) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [2, 5].  Tensor sizes: [3]`;
    /// otherwise [`Tensor::matmul`]'s errors and `add_`'s.
    pub fn linear(&self, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
        let (di, dw) = (self.dim(), weight.dim());
        if di == 0 || dw == 0 {
            return Err(Error::runtime(format!(
                "both arguments to linear need to be at least 1D, but they are {di}D and {dw}D"
            )));
        }
        if dw > 2 {
            return Err(Error::runtime(format!(
                "t() expects a tensor with <= 2 dimensions, but self is {dw}D"
            )));
        }
        let wt = if dw == 2 { mt(weight) } else { weight.alias() };
        if let Some(b) = bias {
            if di == 2 {
                return addmm(b, self, &wt);
            }
            if self.is_contiguous() && (di == 3 || b.dim() == 1) {
                let k = self.sizes[di - 1];
                let rows: usize = self.sizes[..di - 1].iter().product();
                let flat = self.view_with(vec![rows, k], vec![k, 1], self.offset);
                let r = addmm(b, &flat, &wt)?;
                let mut shape = self.sizes[..di - 1].to_vec();
                shape.push(r.sizes[1]);
                return Ok(as_shape(r, &shape));
            }
        }
        let out = self.matmul(&wt)?;
        match bias {
            Some(b) => out.add_(b),
            None => Ok(out),
        }
    }
}
