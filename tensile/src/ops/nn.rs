//! What a model needs next to the reductions and `matmul`: `embedding` (its forward function;
//! the function itself and its recording are in `crate::optable::index`), `layer_norm`,
//! `clamp`, `normalize` (`linear` lives with `matmul`; `index_select` and `masked_fill` with
//! the gather/scatter family in `index_ops.rs` and `masked.rs`).
//! Each op's output is fresh; one too large to allocate gives `DefaultCPUAllocator: can't
//! allocate memory: …`.

use crate::args::Int;
use crate::dtype::DType;

use crate::element::Element;
use crate::error::{Error, Result, fmt_list};
use crate::iter::Slices;
use crate::kernels::softmax::SoftElem;
use crate::kernels::{gather, norm};
use crate::layout::contiguous_strides;
use crate::ops::Operand;
use crate::ops::copy::copy_unchecked;
use crate::ops::reduce::{NormOpts, NormP};
use crate::tensor::Tensor;

/// Reads the values of an index tensor (int32 or int64, checked by the caller) and checks each
/// against `size`: `index out of range in self` (IndexError). Negative indices are out of range.
fn checked_indices(index: &Tensor, size: usize) -> Result<Vec<usize>> {
    index
        .try_to_vec::<i64>()?
        .into_iter()
        .map(|i| {
            if i < 0 || i as u64 >= size as u64 {
                Err(Error::index("index out of range in self"))
            } else {
                Ok(i as usize)
            }
        })
        .collect()
}

/// `index_select` once the checks have passed: gathers `idx` along `dim` into a fresh
/// contiguous tensor.
pub(crate) fn select_rows(t: &Tensor, dim: usize, idx: &[usize]) -> Result<Tensor> {
    let src = t.try_contiguous()?;
    let mut shape = t.sizes.to_vec();
    if t.dim() > 0 {
        shape[dim] = idx.len();
    }
    if t.dim() == 0 {
        let out = Tensor::try_alloc(&shape, &contiguous_strides(&shape), t.dtype)?;
        copy_unchecked(&out, &src);
        return Ok(out);
    }
    let outer: usize = t.sizes[..dim].iter().product();
    let inner: usize = t.sizes[dim + 1..].iter().product();
    if outer * idx.len() * inner == 0 {
        return Tensor::try_alloc(&shape, &contiguous_strides(&shape), t.dtype);
    }
    // both contiguous: their bytes are their rows
    let (out, ()) = crate::iter::dense_new(&shape, t.dtype, &[&src], |mut s| {
        let geom = (outer, t.sizes[dim], inner);
        let esize = t.dtype.itemsize();
        gather::index_select_rows(s.input_bytes(0)?, s.out_bytes(0)?, idx, geom, esize);
        Ok(())
    })?;
    Ok(out)
}

/// `layer_norm`'s inputs as [`crate::iter::dense`] hands them out: `x`, then the weight and
/// the bias when given (`wb`).
#[allow(clippy::type_complexity)]
fn ln_inputs<'s, T: Element, P: Element>(
    s: &Slices<'s>,
    (has_w, has_b): (bool, bool),
) -> Result<(&'s [T], Option<&'s [P]>, Option<&'s [P]>)> {
    let w = has_w.then(|| s.input::<P>(1)).transpose()?;
    let b = has_b
        .then(|| s.input::<P>(1 + has_w as usize))
        .transpose()?;
    Ok((s.input(0)?, w, b))
}

/// `layer_norm` rows in float32 (float32 and the half types, parameters `P` of the input's
/// type or float32): [`norm::layer_norm_rows`] over [`ln_inputs`].
fn ln_rows<T: Element + SoftElem, P: Element + SoftElem>(
    s: &mut Slices<'_>,
    wb: (bool, bool),
    n: usize,
    eps: f64,
) -> Result<()> {
    let (x, w, b) = ln_inputs::<T, P>(s, wb)?;
    norm::layer_norm_rows(x, s.out(0)?, n, w, b, eps);
    Ok(())
}

/// The forward function of `torch.nn.functional.embedding(input, weight)`: the checks
/// (errors as [`crate::nn::functional::embedding`]), then the rows `input[...]` of `weight`,
/// shaped `input.shape + (dim,)`, fresh and contiguous.
pub(crate) fn embedding_fwd(input: &Tensor, weight: &Tensor) -> Result<Tensor> {
    let indices = input;
    if weight.dim() != 2 {
        return Err(Error::runtime("'weight' must be 2-D"));
    }
    if !matches!(indices.dtype, DType::Int64 | DType::Int32) {
        return Err(Error::runtime(format!(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got {} instead (while checking arguments for embedding)",
            indices.dtype.legacy_type_name()
        )));
    }
    let idx = checked_indices(indices, weight.sizes[0])?;
    let rows = select_rows(weight, 0, &idx)?;
    let mut shape = indices.sizes.to_vec();
    shape.push(weight.sizes[1]);
    Ok(rows.view_with(shape.clone(), contiguous_strides(&shape), rows.offset))
}

/// The forward function of `torch.nn.functional.one_hot(tensor, num_classes)`
/// ([`crate::nn::functional::one_hot_with`]): its checks, then the int64 one-hot rows.
pub(crate) fn one_hot_fwd(tensor: &Tensor, num_classes: i64) -> Result<Tensor> {
    let mut classes = num_classes;
    if tensor.dtype != DType::Int64 {
        return Err(Error::runtime(
            "one_hot is only applicable to index tensor of type LongTensor.",
        ));
    }
    let tensor = crate::ops::gather_scatter::contiguous_unrecorded(tensor)?;
    // the checks' minimum and maximum, in one pass
    let (min, max) = crate::iter::dense(&[], &[&tensor], |s| {
        Ok(crate::kernels::scatter::min_max_i64(s.input::<i64>(0)?))
    })?;
    if tensor.numel() == 0 {
        if classes == -1 {
            return Err(Error::runtime(
                "Can not infer total number of classes from empty tensor.",
            ));
        }
    } else {
        if min < 0 {
            return Err(Error::runtime("Class values must be non-negative."));
        }
        if classes == -1 {
            classes = max + 1;
        } else if max >= classes {
            return Err(Error::runtime(
                "Class values must be smaller than num_classes.",
            ));
        }
    }
    let c = usize::try_from(classes)
        .map_err(|_| Error::runtime("Class values must be smaller than num_classes."))?;
    let mut shape = tensor.sizes.to_vec();
    shape.push(c);
    tensor
        .numel()
        .checked_mul(c)
        .ok_or_else(|| Error::runtime("numel: integer multiplication overflow"))?;
    let out = Tensor::zeros_with(&shape[..], DType::Int64)?;
    if tensor.numel() == 0 || c == 0 {
        return Ok(out);
    }
    // a scatter of 1 along the last dim, the index being `tensor.unsqueeze(-1)`
    let mut ishape = shape.clone();
    *ishape.last_mut().unwrap_or(&mut 0) = 1;
    let mut istr = contiguous_strides(&tensor.sizes);
    istr.push(0);
    let one = Tensor::full_with((), 1, DType::Int64)?;
    crate::ops::gather_scatter::scatter_into(
        &out,
        shape.len() - 1,
        &tensor,
        (&ishape, &istr),
        &one,
        crate::kernels::scatter::Reduce::Assign,
        true,
        None,
    )?;
    Ok(out)
}

/// `mixed dtype (CPU)` checks of `layer_norm`: parameters of another dtype than the input
/// must be float32, and then the input must be float16 or bfloat16.
fn check_layer_norm_dtypes(x: &Tensor, params: &[Option<&Tensor>]) -> Result<bool> {
    let mixed = params.iter().flatten().any(|p| p.dtype != x.dtype);
    if !mixed {
        return Ok(false);
    }
    if params.iter().flatten().any(|p| p.dtype != DType::Float32) {
        return Err(Error::runtime(
            "mixed dtype (CPU): expect parameter to have scalar type of Float",
        ));
    }
    if !matches!(x.dtype, DType::Float16 | DType::BFloat16) {
        return Err(Error::runtime(
            "mixed dtype (CPU): all inputs must share same datatype.",
        ));
    }
    Ok(true)
}

/// `torch.nn.functional.layer_norm(x, normalized_shape, weight, bias, eps)`'s forward
/// function (see [`Tensor::layer_norm_with`]): the normalised tensor and `k`, the number of
/// normalised dims.
pub(crate) fn layer_norm_fwd(
    x: &Tensor,
    shape: &[i64],
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Result<(Tensor, usize)> {
    if shape.iter().any(|&x| x < 0) {
        return Err(Error::runtime(format!(
            "Given normalized_shape={}, expected input with shape [*{}], but got input of size{}",
            fmt_list(shape),
            shape.iter().map(|s| format!(", {s}")).collect::<String>(),
            fmt_list(&x.sizes)
        )));
    }
    let normalized_shape: &[usize] = &shape.iter().map(|&x| x as usize).collect::<Vec<_>>();
    let k = normalized_shape.len();
    if k == 0 {
        return Err(Error::runtime(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = []",
        ));
    }
    for (name, p) in [("weight", weight), ("bias", bias)] {
        if let Some(p) = p
            && p.sizes[..] != *normalized_shape
        {
            return Err(Error::runtime(format!(
                "Expected {name} to be of same shape as normalized_shape, but got {name} of shape {} and normalized_shape = {}",
                fmt_list(&p.sizes),
                fmt_list(normalized_shape)
            )));
        }
    }
    let nd = x.dim();
    if nd < k || x.sizes[nd - k..] != *normalized_shape {
        let tail: String = normalized_shape.iter().map(|s| format!(", {s}")).collect();
        return Err(Error::runtime(format!(
            "Given normalized_shape={}, expected input with shape [*{tail}], but got input of size{}",
            fmt_list(normalized_shape),
            fmt_list(&x.sizes)
        )));
    }
    let mixed = check_layer_norm_dtypes(x, &[weight, bias])?;
    if !x.dtype.is_floating_point() {
        return Err(Error::not_implemented_for("LayerNormKernelImpl", x.dtype));
    }
    let n: usize = normalized_shape.iter().product();
    let x = x.try_contiguous()?;
    let (w, b) = (
        weight.map(|t| t.try_contiguous()).transpose()?,
        bias.map(|t| t.try_contiguous()).transpose()?,
    );
    let mut ins = vec![&x];
    ins.extend(w.iter().chain(b.iter()));
    let wb = (w.is_some(), b.is_some());
    // contiguous: their slices are their rows of `n` (the parameters one row each)
    let (y, ()) =
        crate::iter::dense_new(&x.sizes, x.dtype, &ins, |mut s| match (x.dtype, mixed) {
            (DType::Float16, false) => ln_rows::<half::f16, half::f16>(&mut s, wb, n, eps),
            (DType::Float16, true) => ln_rows::<half::f16, f32>(&mut s, wb, n, eps),
            (DType::BFloat16, false) => ln_rows::<half::bf16, half::bf16>(&mut s, wb, n, eps),
            (DType::BFloat16, true) => ln_rows::<half::bf16, f32>(&mut s, wb, n, eps),
            (DType::Float64, _) => {
                let (x, w, b) = ln_inputs::<f64, f64>(&s, wb)?;
                norm::layer_norm_f64(x, s.out(0)?, n, w, b, eps);
                Ok(())
            }
            _ => ln_rows::<f32, f32>(&mut s, wb, n, eps),
        })?;
    Ok((y, k))
}

impl Tensor {
    /// `torch.nn.functional.normalize(self)` (`p=2, dim=1, eps=1e-12`): `self / max(‖self‖_p, eps)` with
    /// the p-norm taken along `dim` (kept as size 1, then broadcast).
    ///
    /// Shape and dtype: `self`'s (floats only). `p` may be any positive number, `0`, or ±∞.
    ///
    /// Errors: `linalg.vector_norm: Expected a floating point or complex tensor as input. Got
    /// Long` (NotImplementedError); `Dimension out of range (…)` (IndexError).
    pub fn normalize(&self) -> Result<Tensor> {
        self.normalize_with(NormalizeOpts::default())
    }

    /// `torch.nn.functional.normalize(self, p, dim, eps)` with PyTorch's optional arguments:
    /// `x.normalize_with(2)` (p), `(2, -1)` (p, dim), `(2, -1, 1e-12)`, or [`NormalizeOpts`].
    pub fn normalize_with(&self, opts: impl Into<NormalizeOpts>) -> Result<Tensor> {
        let NormalizeOpts { p, dim, eps } = opts.into();
        // PyTorch's composite: `input / norm(p, dim, keepdim).clamp_min(eps).expand_as(input)`
        // (grad_fn `DivBackward0`; the gradient flows through the norm)
        let norm = self.norm_with(NormOpts {
            p: NormP::Num(p),
            dim: Some(crate::args::IntList::from_slice(&[dim])),
            keepdim: true,
            dtype: None,
        })?;
        let denom = norm.clamp_min(eps)?.expand_as(self)?;
        self.div(&denom)
    }
}

/// `clamp`'s two optional bounds, for [`Tensor::clamp_with`]: each a number or a tensor.
#[derive(Clone, Copy, Debug, Default)]
pub struct ClampOpts<'a> {
    /// Lower bound (`min=`), or `None`.
    pub min: Option<Operand<'a>>,
    /// Upper bound (`max=`), or `None`.
    pub max: Option<Operand<'a>>,
}

/// `layer_norm`'s optional arguments (`weight=None, bias=None, eps=1e-5`), for
/// [`Tensor::layer_norm_with`]: a pair `(&weight, &bias)`, a triple `(&weight, &bias, eps)`,
/// or the struct.
#[derive(Clone, Copy, Debug)]
pub struct LayerNormOpts<'a> {
    /// Elementwise scale of shape `normalized_shape`.
    pub weight: Option<&'a Tensor>,
    /// Elementwise shift of shape `normalized_shape`.
    pub bias: Option<&'a Tensor>,
    /// Added to the variance (default 1e-5).
    pub eps: f64,
}
impl Default for LayerNormOpts<'_> {
    fn default() -> Self {
        LayerNormOpts {
            weight: None,
            bias: None,
            eps: 1e-5,
        }
    }
}
impl<'a> From<(&'a Tensor, &'a Tensor)> for LayerNormOpts<'a> {
    fn from((w, b): (&'a Tensor, &'a Tensor)) -> Self {
        LayerNormOpts {
            weight: Some(w),
            bias: Some(b),
            eps: 1e-5,
        }
    }
}
impl<'a> From<(&'a Tensor, &'a Tensor, f64)> for LayerNormOpts<'a> {
    fn from((w, b, eps): (&'a Tensor, &'a Tensor, f64)) -> Self {
        LayerNormOpts {
            weight: Some(w),
            bias: Some(b),
            eps,
        }
    }
}
impl<'a> From<(Option<&'a Tensor>, Option<&'a Tensor>, f64)> for LayerNormOpts<'a> {
    fn from((weight, bias, eps): (Option<&'a Tensor>, Option<&'a Tensor>, f64)) -> Self {
        LayerNormOpts { weight, bias, eps }
    }
}

/// `F.normalize`'s optional arguments (`p=2.0, dim=1, eps=1e-12`), for
/// [`Tensor::normalize_with`]: `p`, `(p, dim)`, `(p, dim, eps)`, or the struct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NormalizeOpts {
    /// The norm's exponent (default 2).
    pub p: f64,
    /// The dim the norm is taken along (default 1).
    pub dim: i64,
    /// Lower bound of the divisor (default 1e-12).
    pub eps: f64,
}
impl Default for NormalizeOpts {
    fn default() -> Self {
        NormalizeOpts {
            p: 2.0,
            dim: 1,
            eps: 1e-12,
        }
    }
}
impl From<f64> for NormalizeOpts {
    fn from(p: f64) -> Self {
        NormalizeOpts {
            p,
            ..Default::default()
        }
    }
}
impl<D: Int> From<(f64, D)> for NormalizeOpts {
    fn from((p, dim): (f64, D)) -> Self {
        NormalizeOpts {
            p,
            dim: dim.to_i64(),
            ..Default::default()
        }
    }
}
impl<D: Int> From<(f64, D, f64)> for NormalizeOpts {
    fn from((p, dim, eps): (f64, D, f64)) -> Self {
        NormalizeOpts {
            p,
            dim: dim.to_i64(),
            eps,
        }
    }
}

/// `native_layer_norm_backward`'s row kernel on contiguous float32 operands (PyTorch's
/// `LayerNormBackwardKernel`, statistics recomputed as the forward computes them): `x` and `g`
/// hold rows of `n` values, `w` (when given) one row. Gives `(dx, xhat)`, fresh, contiguous;
/// the formula (`autograd/formulas/norm.rs`) derives the weight and bias gradients from
/// `xhat`. Records nothing.
pub(crate) fn layer_norm_backward_f32(
    x: &Tensor,
    gc: &Tensor,
    w: Option<&Tensor>,
    n: usize,
    eps: f64,
) -> Result<(Tensor, Tensor)> {
    let st = contiguous_strides(x.size());
    let dx = Tensor::try_alloc(x.size(), &st, DType::Float32)?;
    let xhat = Tensor::try_alloc(x.size(), &st, DType::Float32)?;
    let mut ins = vec![x, gc];
    ins.extend(w);
    // contiguous float32: their slices are their rows of `n` (the weight one row)
    crate::iter::dense(&[&dx, &xhat], &ins, |mut s| {
        let wv: &[f32] = if w.is_some() { s.input(2)? } else { &[] };
        let (xs, gs) = (s.input(0)?, s.input(1)?);
        let (d, h) = (s.out(0)?, s.out(1)?);
        norm::layer_norm_backward_rows(xs, gs, wv, n, eps, d, h);
        Ok(())
    })?;
    Ok((dx, xhat))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::functional::embedding;
    use crate::tensor::Scalar;

    /// float32 tolerance of the corpus (`torch.testing.assert_close`).
    fn assert_close(got: &Tensor, want: &[f64]) {
        let g = got.to_vec::<f64>();
        assert_eq!(g.len(), want.len(), "{g:?} vs {want:?}");
        for (a, b) in g.iter().zip(want) {
            assert!(
                (a - b).abs() <= 1e-5 + 1.3e-6 * b.abs(),
                "{g:?} vs {want:?}"
            );
        }
    }

    fn x34() -> Tensor {
        Tensor::from_vec(
            vec![
                1.0f32, 2.0, 4.0, -3.0, 0.5, 0.5, 0.5, 0.5, 10.0, -2.0, 3.0, 7.0,
            ],
            [3, 4],
        )
        .unwrap()
    }

    // Expected values below were computed by PyTorch 2.15 (CPU) on the same inputs.

    #[test]
    fn layer_norm_matches_pytorch() {
        let x = x34();
        let w = Tensor::from_vec(vec![1.0f32, 0.5, -2.0, 3.0], [4]).unwrap();
        let b = Tensor::from_vec(vec![0.0f32, 1.0, 0.25, -1.0], [4]).unwrap();
        let y = x.layer_norm_with([4], (Some(&w), Some(&b), 1e-5)).unwrap();
        assert_eq!(
            (y.size(), y.stride(), y.dtype()),
            (&[3usize, 4][..], &[4usize, 1][..], DType::Float32)
        );
        assert_close(
            &y,
            &[
                0.0,
                1.1961159706115723,
                -2.1033918857574463,
                -5.706783771514893,
                0.0,
                1.0,
                0.25,
                -1.0,
                1.2222219705581665,
                0.27777791023254395,
                0.9166665077209473,
                0.6666663885116577,
            ],
        );
        let y = x.layer_norm_with([3, 4], (None, None, 1e-5)).unwrap();
        assert_close(
            &y,
            &[
                -0.2876778542995453,
                3.4293876183255634e-08,
                0.5753557682037354,
                -1.4383894205093384,
                -0.4315167963504791,
                -0.4315167963504791,
                -0.4315167963504791,
                -0.4315167963504791,
                2.3014230728149414,
                -1.1507115364074707,
                0.28767791390419006,
                1.4383894205093384,
            ],
        );
        // a transposed input gives the same values in a fresh contiguous output
        let xt = x.view_with(vec![4, 3], vec![1, 4], 0).contiguous();
        let xtt = xt.view_with(vec![3, 4], vec![1, 3], 0);
        let y = xtt.layer_norm_with([4], (None, None, 1e-5)).unwrap();
        assert_eq!(y.stride(), &[4, 1]);
        assert_close(
            &y,
            &[
                0.0,
                0.3922319710254669,
                1.1766959428787231,
                -1.5689278841018677,
                0.0,
                0.0,
                0.0,
                0.0,
                1.2222219705581665,
                -1.444444179534912,
                -0.33333325386047363,
                0.5555554628372192,
            ],
        );
    }

    #[test]
    fn layer_norm_errors() {
        let x = Tensor::ones_with([2, 3], DType::Float32).unwrap();
        let e = |r: Result<Tensor>| r.unwrap_err().to_string();
        assert_eq!(
            e(x.layer_norm_with((), (None, None, 1e-5))),
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = []"
        );
        assert_eq!(
            e(x.layer_norm_with(
                [3],
                (
                    Some(&Tensor::ones_with([4], DType::Float32).unwrap()),
                    None,
                    1e-5
                )
            )),
            "Expected weight to be of same shape as normalized_shape, but got weight of shape [4] and normalized_shape = [3]"
        );
        assert_eq!(
            e(x.layer_norm_with([2, 4], (None, None, 1e-5))),
            "Given normalized_shape=[2, 4], expected input with shape [*, 2, 4], but got input of size[2, 3]"
        );
        assert_eq!(
            e(x.layer_norm_with(
                [3],
                (
                    Some(&Tensor::ones_with([3], DType::Float64).unwrap()),
                    None,
                    1e-5
                )
            )),
            "mixed dtype (CPU): expect parameter to have scalar type of Float"
        );
        let xi = Tensor::ones_with([2, 3], DType::Int64).unwrap();
        let err = xi.layer_norm_with([3], (None, None, 1e-5)).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::NotImplementedError);
        assert_eq!(
            err.to_string(),
            "\"LayerNormKernelImpl\" not implemented for 'Long'"
        );
        // float16 input with float32 parameters is PyTorch's supported mixed case
        let xh = x.to(DType::Float16).unwrap();
        let y = xh
            .layer_norm_with(
                [3],
                (
                    Some(&Tensor::ones_with([3], DType::Float32).unwrap()),
                    None,
                    1e-5,
                ),
            )
            .unwrap();
        assert_eq!(y.dtype(), DType::Float16);
        assert_eq!(y.to_vec::<f64>(), vec![0.0; 6]);
    }

    #[test]
    fn normalize_matches_pytorch() {
        let x = x34();
        assert_close(
            &x.normalize_with((2.0, 1, 1e-12)).unwrap(),
            &[
                0.18257418274879456,
                0.3651483654975891,
                0.7302967309951782,
                -0.5477225184440613,
                0.5,
                0.5,
                0.5,
                0.5,
                0.7856741547584534,
                -0.15713483095169067,
                0.235702246427536,
                0.5499719381332397,
            ],
        );
        assert_close(
            &x.normalize_with((2.0, 0, 1e-12)).unwrap(),
            &[
                0.09938080608844757,
                0.6963106393814087,
                0.796029806137085,
                -0.39307308197021484,
                0.049690403044223785,
                0.17407765984535217,
                0.09950372576713562,
                0.06551218032836914,
                0.9938080310821533,
                -0.6963106393814087,
                0.5970223546028137,
                0.9171704649925232,
            ],
        );
        let r = Tensor::from_vec(vec![3.0f32, -4.0], [1, 2]).unwrap();
        assert_close(
            &r.normalize_with((1.0, 1, 1e-12)).unwrap(),
            &[0.4285714328289032, -0.5714285969734192],
        );
        assert_close(
            &r.normalize_with((f64::INFINITY, 1, 1e-12)).unwrap(),
            &[0.75, -1.0],
        );
        assert_close(
            &r.normalize_with((3.0, 1, 1e-12)).unwrap(),
            &[0.666971743106842, -0.8892956972122192],
        );
        // a zero row divides by eps: zeros
        assert_close(
            &Tensor::zeros_with([1, 2], DType::Float32)
                .unwrap()
                .normalize_with((2.0, 1, 1e-12))
                .unwrap(),
            &[0.0, 0.0],
        );
        let err = Tensor::ones_with([2, 3], DType::Int64)
            .unwrap()
            .normalize_with((2.0, 1, 1e-12))
            .unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::NotImplementedError);
        assert_eq!(
            err.to_string(),
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"
        );
        assert_eq!(
            Tensor::ones_with([3], DType::Float32)
                .unwrap()
                .normalize_with((2.0, 1, 1e-12))
                .unwrap_err()
                .to_string(),
            "Dimension out of range (expected to be in range of [-1, 0], but got 1)"
        );
    }

    #[test]
    fn clamp_semantics() {
        let x = Tensor::from_vec(vec![1i64, 5, 9], [3]).unwrap();
        let y = x.clamp(Scalar::Float(2.5), Scalar::Int(6)).unwrap();
        assert_eq!(y.dtype(), DType::Float32);
        assert_eq!(y.to_vec::<f64>(), vec![2.5, 5.0, 6.0]);
        let y = x.clamp(Scalar::Int(6), Scalar::Int(2)).unwrap();
        assert_eq!(
            (y.dtype(), y.to_vec::<i64>()),
            (DType::Int64, vec![2, 2, 2])
        );
        let f = Tensor::from_vec(vec![f32::NAN, 5.0], [2]).unwrap();
        let y = f
            .clamp(Scalar::Int(6), Scalar::Int(7))
            .unwrap()
            .to_vec::<f64>();
        assert!(y[0].is_nan() && y[1] == 6.0);
        assert_eq!(
            f.clamp_with(ClampOpts::default()).unwrap_err().to_string(),
            "torch.clamp: At least one of 'min' or 'max' must not be None"
        );
        let b = Tensor::ones_with([2], DType::Bool).unwrap();
        assert_eq!(
            b.clamp_min(Scalar::Bool(false)).unwrap_err().to_string(),
            "\"clamp_min_scalar_cpu\" not implemented for 'Bool'"
        );
        let y = b.clamp_min(Scalar::Int(0)).unwrap();
        assert_eq!((y.dtype(), y.to_vec::<i64>()), (DType::Int64, vec![1, 1]));
    }

    #[test]
    fn masked_fill_semantics() {
        let x = Tensor::ones_with([3], DType::Float32).unwrap();
        let m = Tensor::from_vec(vec![true, false], [2, 1]).unwrap();
        let y = x.masked_fill(&m, 2.0).unwrap();
        assert_eq!((y.size(), y.stride()), (&[2usize, 3][..], &[3usize, 1][..]));
        assert_eq!(y.to_vec::<f64>(), vec![2.0, 2.0, 2.0, 1.0, 1.0, 1.0]);
        let xi = Tensor::ones_with([3], DType::Int64).unwrap();
        let y = xi
            .masked_fill(&Tensor::ones_with([3], DType::Bool).unwrap(), 2.7)
            .unwrap();
        assert_eq!(
            (y.dtype(), y.to_vec::<i64>()),
            (DType::Int64, vec![2, 2, 2])
        );
        assert_eq!(
            x.masked_fill(&Tensor::ones_with([3], DType::UInt8).unwrap(), 0)
                .unwrap_err()
                .to_string(),
            "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"
        );
        assert_eq!(
            x.masked_fill(&Tensor::ones_with([4], DType::Bool).unwrap(), 0)
                .unwrap_err()
                .to_string(),
            "The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 0"
        );
        assert_eq!(
            Tensor::ones_with([3], DType::UInt8)
                .unwrap()
                .masked_fill(&Tensor::ones_with([3], DType::Bool).unwrap(), 300)
                .unwrap_err()
                .to_string(),
            "value cannot be converted to type uint8_t without overflow"
        );
    }

    #[test]
    fn index_select_and_embedding() {
        let x = Tensor::arange_with((0.0, 6.0, 1.0), DType::Float32)
            .unwrap()
            .view_with(vec![2, 3], vec![3, 1], 0);
        let i = Tensor::from_vec(vec![2i64, 0, 2], [3]).unwrap();
        let y = x.index_select(1, &i).unwrap();
        assert_eq!(
            (y.size(), y.to_vec::<f64>()),
            (&[2usize, 3][..], vec![2.0, 0.0, 2.0, 5.0, 3.0, 5.0])
        );
        let y = x
            .index_select(-2, &Tensor::from_vec(vec![1i32], [1]).unwrap())
            .unwrap();
        assert_eq!(y.to_vec::<f64>(), vec![3.0, 4.0, 5.0]);
        // transposed input
        let xt = x.view_with(vec![3, 2], vec![1, 3], 0);
        assert_eq!(
            xt.index_select(0, &i).unwrap().to_vec::<f64>(),
            vec![2.0, 5.0, 0.0, 3.0, 2.0, 5.0]
        );
        // a 0-d index keeps the dim (size 1)
        let y = x
            .index_select(1, &Tensor::scalar_tensor_with(2, DType::Int64).unwrap())
            .unwrap();
        assert_eq!(
            (y.size(), y.to_vec::<f64>()),
            (&[2usize, 1][..], vec![2.0, 5.0])
        );
        let e = |r: Result<Tensor>| {
            let e = r.unwrap_err();
            (e.kind(), e.to_string())
        };
        use crate::ErrorKind::*;
        assert_eq!(
            e(x.index_select(0, &Tensor::ones_with([2, 2], DType::Int64).unwrap())),
            (
                IndexError,
                "index_select(): Index is supposed to be a vector".into()
            )
        );
        assert_eq!(
            e(x.index_select(0, &Tensor::ones_with([2], DType::Float32).unwrap())),
            (
                RuntimeError,
                "index_select(): Expected dtype int32 or int64 for index".into()
            )
        );
        let oob = Tensor::from_vec(vec![3i64], [1]).unwrap();
        assert_eq!(
            e(x.index_select(0, &oob)),
            (IndexError, "index out of range in self".into())
        );
        assert_eq!(
            e(x.index_select(1, &oob)),
            (
                RuntimeError,
                "INDICES element is out of DATA bounds, id=3 axis_dim=3".into()
            )
        );

        let w = Tensor::arange_with((0.0, 6.0, 1.0), DType::Float32)
            .unwrap()
            .view_with(vec![3, 2], vec![2, 1], 0);
        let ids = Tensor::from_vec(vec![2i64, 0, 1, 1], [2, 2]).unwrap();
        let y = embedding(&ids, &w).unwrap();
        assert_eq!(
            (y.size(), y.stride()),
            (&[2usize, 2, 2][..], &[4usize, 2, 1][..])
        );
        assert_eq!(
            y.to_vec::<f64>(),
            vec![4.0, 5.0, 0.0, 1.0, 2.0, 3.0, 2.0, 3.0]
        );
        let y = embedding(&Tensor::scalar_tensor_with(1, DType::Int64).unwrap(), &w).unwrap();
        assert_eq!(
            (y.size(), y.to_vec::<f64>()),
            (&[2usize][..], vec![2.0, 3.0])
        );
        assert_eq!(
            e(embedding(&Tensor::ones_with([2], DType::Float32).unwrap(), &w)),
            (
                RuntimeError,
                "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got torch.FloatTensor instead (while checking arguments for embedding)".into()
            )
        );
        assert_eq!(
            e(embedding(&Tensor::from_vec(vec![-1i64], [1]).unwrap(), &w)),
            (IndexError, "index out of range in self".into())
        );
        assert_eq!(
            e(embedding(
                &ids,
                &Tensor::ones_with([3], DType::Float32).unwrap()
            )),
            (RuntimeError, "'weight' must be 2-D".into())
        );
    }
}
