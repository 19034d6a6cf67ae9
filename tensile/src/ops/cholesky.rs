//! `torch.linalg.cholesky`, `cholesky_ex` and `solve_triangular`: batched, float32/float64,
//! computed per matrix in float64 (rounded once to the dtype) by the unblocked algorithms
//! (LAPACK's `potf2` and a forward/back substitution).

use crate::dtype::DType;
use crate::error::{Error, ErrorKind, Result};
use crate::tensor::Tensor;

fn check_float(t: &Tensor, kernel: &str, op: &str) -> Result<()> {
    match t.dtype() {
        DType::Float32 | DType::Float64 => Ok(()),
        d if d.is_floating_point() => Err(Error::not_implemented_for(kernel, d)),
        d => Err(Error::not_implemented(format!(
            "{op}: Expected a floating point or complex tensor as input. Got {}",
            d.scalar_type_name()
        ))),
    }
}

fn check_square(a: &Tensor, op: &str, name: &str) -> Result<(usize, usize)> {
    if a.dim() < 2 {
        return Err(Error::runtime(format!(
            "{op}: The input tensor {name} must have at least 2 dimensions."
        )));
    }
    let (r, c) = (a.size()[a.dim() - 2], a.size()[a.dim() - 1]);
    if r != c {
        return Err(Error::runtime(format!(
            "{op}: {name} must be batches of square matrices, but they are {r} by {c} matrices"
        )));
    }
    Ok((r, c))
}

/// The lower Cholesky factor of each `n x n` matrix of `a` (row-major, float64), reading
/// the lower triangle only; `info[b]` is 0, or the order of the first leading minor that
/// is not positive-definite (the factor then holds LAPACK's partial result: the columns
/// before it, the failing pivot's value, and the input below the diagonal after it).
fn potf2(a: &[f64], n: usize) -> (Vec<f64>, Vec<i32>) {
    let batch = if n == 0 { 0 } else { a.len() / (n * n) };
    let mut l = vec![0.0; a.len()];
    let mut info = vec![0i32; batch];
    for b in 0..batch {
        let m = &a[b * n * n..(b + 1) * n * n];
        let out = &mut l[b * n * n..(b + 1) * n * n];
        for i in 0..n {
            for j in 0..=i {
                out[i * n + j] = m[i * n + j];
            }
        }
        for j in 0..n {
            let mut ajj = out[j * n + j];
            for k in 0..j {
                ajj -= out[j * n + k] * out[j * n + k];
            }
            if ajj <= 0.0 || ajj.is_nan() {
                out[j * n + j] = ajj;
                info[b] = j as i32 + 1;
                break;
            }
            let ljj = ajj.sqrt();
            out[j * n + j] = ljj;
            for i in j + 1..n {
                let mut s = out[i * n + j];
                for k in 0..j {
                    s -= out[i * n + k] * out[j * n + k];
                }
                out[i * n + j] = s / ljj;
            }
        }
    }
    (l, info)
}

/// `torch.linalg.cholesky_ex(a, upper=, check_errors=)`'s forward function.
pub(crate) fn cholesky_ex_raw(
    a: &Tensor,
    upper: bool,
    check_errors: bool,
    op: &str,
) -> Result<(Tensor, Tensor)> {
    check_square(a, op, "A")?;
    check_float(a, "cholesky_cpu", op)?;
    // detached: the factor is computed from the values (the op table records the op)
    let a = &a.detach();
    let n = a.size()[a.dim() - 1];
    let src = if upper { a.mT()? } else { a.clone() };
    let data = src.to(DType::Float64)?.contiguous().to_vec::<f64>();
    let (l, info) = potf2(&data, n);
    let batch_shape = a.size()[..a.dim() - 2].to_vec();
    if check_errors && let Some((b, &k)) = info.iter().enumerate().find(|(_, k)| **k != 0) {
        let prefix = if batch_shape.is_empty() {
            String::new()
        } else {
            format!("(Batch element {b}): ")
        };
        return Err(Error::new(
            ErrorKind::LinAlgError,
            format!(
                "{op}: {prefix}The factorization could not be completed because the input is not positive-definite (the leading minor of order {k} is not positive-definite)."
            ),
        ));
    }
    let l = Tensor::from_vec(l, a.size())?.to(a.dtype())?;
    let l = if upper { l.mT()?.contiguous() } else { l };
    let info = Tensor::from_vec(info, &batch_shape[..])?;
    Ok((l, info))
}

/// `linalg.solve_triangular` on float64 row-major data: `A X = B` with `A` `n x n`
/// (lower or upper, unit diagonal when `unit`), `B` `n x k`, per batch element.
fn trsm(a: &[f64], b: &[f64], n: usize, k: usize, upper: bool, unit: bool) -> Vec<f64> {
    let batch = if n == 0 || k == 0 {
        0
    } else {
        b.len() / (n * k)
    };
    let mut x = b.to_vec();
    for bi in 0..batch {
        let m = &a[bi * n * n..(bi + 1) * n * n];
        let xs = &mut x[bi * n * k..(bi + 1) * n * k];
        for c in 0..k {
            let rows: Box<dyn Iterator<Item = usize>> = if upper {
                Box::new((0..n).rev())
            } else {
                Box::new(0..n)
            };
            for i in rows {
                let mut s = xs[i * k + c];
                let range = if upper { i + 1..n } else { 0..i };
                for j in range {
                    s -= m[i * n + j] * xs[j * k + c];
                }
                xs[i * k + c] = if unit { s } else { s / m[i * n + i] };
            }
        }
    }
    x
}

/// `torch.linalg.solve_triangular(A, B, upper=, left=, unitriangular=)`'s forward function.
pub(crate) fn solve_triangular_raw(
    a: &Tensor,
    b: &Tensor,
    upper: bool,
    left: bool,
    unit: bool,
) -> Result<Tensor> {
    const OP: &str = "linalg.solve_triangular";
    if b.dim() < 2 {
        return Err(Error::runtime(format!(
            "{OP}: The input tensor B must have at least 2 dimensions."
        )));
    }
    let (n, _) = check_square(a, OP, "A")?;
    let (br, bc) = (b.size()[b.dim() - 2], b.size()[b.dim() - 1]);
    let fits = if left { br == n } else { bc == n };
    if !fits {
        let eq = if left { "AX = B" } else { "XA = B" };
        return Err(Error::runtime(format!(
            "{OP}: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and {br}x{bc})"
        )));
    }
    for t in [a, b] {
        if !matches!(t.dtype(), DType::Float32 | DType::Float64) {
            return Err(Error::not_implemented_for(
                "triangular_solve_cpu",
                t.dtype(),
            ));
        }
    }
    // detached: the solution is computed from the values (the op table records the op)
    let (a, b) = (&a.detach(), &b.detach());
    let batch = crate::broadcast::infer_size(&a.size()[..a.dim() - 2], &b.size()[..b.dim() - 2])?;
    let mut ashape = batch.clone();
    ashape.extend([n, n]);
    let mut bshape = batch.clone();
    bshape.extend([br, bc]);
    let ae = a.expand(&ashape[..])?;
    let be = b.expand(&bshape[..])?;
    // X A = B  <=>  A^T X^T = B^T
    let (am, bm, up) = if left {
        (ae, be, upper)
    } else {
        (ae.mT()?, be.mT()?, !upper)
    };
    let k = bm.size()[bm.dim() - 1];
    let ad = am.to(DType::Float64)?.contiguous().to_vec::<f64>();
    let bd = bm.to(DType::Float64)?.contiguous().to_vec::<f64>();
    let x = trsm(&ad, &bd, n, k, up, unit);
    let xs = bm.size().to_vec();
    let x = Tensor::from_vec(x, &xs[..])?.to(a.dtype())?;
    if left {
        Ok(x)
    } else {
        Ok(x.mT()?.contiguous())
    }
}
