//! `torch.distributions.MultivariateNormal`.

use std::sync::OnceLock;

use crate::Tensor;
use crate::error::{Error, ErrorKind, Result};

use super::utils::{extended_shape, shape_i64, validate_sample};
use super::{Constraint, DistOpts, Distribution, constraints, utils};

/// Which matrix parameter a [`MultivariateNormal`] was built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Given {
    Covariance,
    Precision,
    ScaleTril,
}

/// `torch.distributions.MultivariateNormal(loc, covariance_matrix | precision_matrix |
/// scale_tril)`: the normal distribution over vectors of length `n` with mean `loc` and
/// covariance `Σ = L Lᵀ`. `loc` has shape `(*, n)`, the matrix `(*, n, n)`; `batch_shape`
/// is the broadcast of their batch dims, `event_shape` `(n,)`. The factor `L` is the given
/// `scale_tril`, `linalg.cholesky(covariance_matrix)`, or from the precision matrix
/// PyTorch's `_precision_to_scale_tril` (the Cholesky factor of the flipped matrix, flipped
/// back and inverted by `solve_triangular`); it keeps its own (unbroadcast) batch shape.
///
/// `arg_constraints`: `loc` `IndependentConstraint(Real(), 1)`, `covariance_matrix` and
/// `precision_matrix` `PositiveDefinite()`, `scale_tril` `LowerCholesky()`; support
/// `IndependentConstraint(Real(), 1)`; `has_rsample`. `rsample` is `loc + L @ eps` with
/// `eps = empty(shape).normal_()` (one standard normal per element of the sample, PyTorch's
/// stream); `sample` the same without gradients. The two matrix parameters not given are
/// computed on first use and cached (`repr` shows them from then on, as PyTorch's
/// `lazy_property`).
#[derive(Clone, Debug)]
pub struct MultivariateNormal {
    /// `loc`, expanded to `batch_shape + (n,)`.
    pub loc: Tensor,
    given: Given,
    scale_tril: OnceLock<Tensor>,
    covariance_matrix: OnceLock<Tensor>,
    precision_matrix: OnceLock<Tensor>,
    unbroadcasted_scale_tril: Tensor,
    batch_shape: Vec<usize>,
    event: usize,
    validate: bool,
}

fn value_error(msg: &str) -> Error {
    Error::new(ErrorKind::ValueError, msg)
}

impl MultivariateNormal {
    /// `MultivariateNormal(loc, covariance_matrix=…, precision_matrix=…, scale_tril=…)`
    /// with exactly one of the three `Some`, validating unless
    /// [`set_default_validate_args(false)`](super::set_default_validate_args).
    ///
    /// Errors, in PyTorch's order (ValueError unless said): `loc must be at least
    /// one-dimensional.`; `Exactly one of covariance_matrix or precision_matrix or
    /// scale_tril may be specified.`; `scale_tril matrix must be at least two-dimensional,
    /// with optional leading batch dimensions` (`covariance_matrix must be …`,
    /// `precision_matrix must be …`); RuntimeError `Attempting to broadcast a dimension of
    /// length 3 at -1! Mismatching argument at index 1 had torch.Size([3]); but expected
    /// shape should be broadcastable to [2]` (the batch dims); `Expected
    /// parameter covariance_matrix (Tensor of shape (2, 2)) of distribution
    /// MultivariateNormal(loc: torch.Size([2]), covariance_matrix: torch.Size([2, 2])) to
    /// satisfy the constraint PositiveDefinite(), but found invalid values:\n…` (and the
    /// others'); unvalidated, [`crate::linalg::cholesky`]'s `_LinAlgError`.
    pub fn new_with(
        loc: &Tensor,
        covariance_matrix: Option<&Tensor>,
        precision_matrix: Option<&Tensor>,
        scale_tril: Option<&Tensor>,
        opts: impl Into<DistOpts>,
    ) -> Result<MultivariateNormal> {
        if loc.dim() < 1 {
            return Err(value_error("loc must be at least one-dimensional."));
        }
        let (given, m) = match (covariance_matrix, precision_matrix, scale_tril) {
            (Some(c), None, None) => (Given::Covariance, c),
            (None, Some(p), None) => (Given::Precision, p),
            (None, None, Some(s)) => (Given::ScaleTril, s),
            _ => {
                return Err(value_error(
                    "Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.",
                ));
            }
        };
        if m.dim() < 2 {
            let name = match given {
                Given::ScaleTril => "scale_tril matrix",
                Given::Covariance => "covariance_matrix",
                Given::Precision => "precision_matrix",
            };
            return Err(value_error(&format!(
                "{name} must be at least two-dimensional, with optional leading batch dimensions"
            )));
        }
        let mb = &m.size()[..m.dim() - 2];
        let lb = &loc.size()[..loc.dim() - 1];
        let batch_shape = broadcast_shapes(&[mb, lb])?;
        let mut ms = shape_i64(&batch_shape);
        ms.extend([-1, -1]);
        let mut ls = shape_i64(&batch_shape);
        ls.push(-1);
        let mexp = m.expand(&ms[..])?;
        let loc_e = loc.expand(&ls[..])?;
        let event = loc_e.size()[loc_e.dim() - 1];
        let mut d = MultivariateNormal {
            loc: loc_e,
            given,
            scale_tril: OnceLock::new(),
            covariance_matrix: OnceLock::new(),
            precision_matrix: OnceLock::new(),
            unbroadcasted_scale_tril: m.clone(),
            batch_shape,
            event,
            validate: opts.into().validate(),
        };
        let slot = match given {
            Given::Covariance => &d.covariance_matrix,
            Given::Precision => &d.precision_matrix,
            Given::ScaleTril => &d.scale_tril,
        };
        let _ = slot.set(mexp);
        utils::validate_params(&d)?;
        d.unbroadcasted_scale_tril = match given {
            Given::ScaleTril => m.clone(),
            Given::Covariance => crate::linalg::cholesky(m)?,
            Given::Precision => precision_to_scale_tril(m)?,
        };
        Ok(d)
    }

    /// `MultivariateNormal(loc, covariance_matrix=cov)`; see [`MultivariateNormal::new_with`].
    pub fn from_covariance(loc: &Tensor, cov: &Tensor) -> Result<MultivariateNormal> {
        MultivariateNormal::new_with(loc, Some(cov), None, None, DistOpts::default())
    }

    /// `MultivariateNormal(loc, precision_matrix=p)`; see [`MultivariateNormal::new_with`].
    pub fn from_precision(loc: &Tensor, p: &Tensor) -> Result<MultivariateNormal> {
        MultivariateNormal::new_with(loc, None, Some(p), None, DistOpts::default())
    }

    /// `MultivariateNormal(loc, scale_tril=l)`; see [`MultivariateNormal::new_with`].
    pub fn from_scale_tril(loc: &Tensor, l: &Tensor) -> Result<MultivariateNormal> {
        MultivariateNormal::new_with(loc, None, None, Some(l), DistOpts::default())
    }

    fn full_matrix_shape(&self) -> Vec<i64> {
        let mut s = shape_i64(&self.batch_shape);
        s.extend([self.event as i64, self.event as i64]);
        s
    }

    /// `scale_tril`: the lower Cholesky factor of the covariance, of shape `batch_shape +
    /// (n, n)`.
    ///
    /// Errors: none in practice (the ops' own).
    pub fn scale_tril(&self) -> Result<Tensor> {
        if let Some(t) = self.scale_tril.get() {
            return Ok(t.clone());
        }
        let t = self
            .unbroadcasted_scale_tril
            .expand(&self.full_matrix_shape()[..])?;
        Ok(self.scale_tril.get_or_init(|| t).clone())
    }

    /// `covariance_matrix`: `L Lᵀ`, of shape `batch_shape + (n, n)`.
    ///
    /// Errors: none in practice (the ops' own).
    pub fn covariance_matrix(&self) -> Result<Tensor> {
        if let Some(t) = self.covariance_matrix.get() {
            return Ok(t.clone());
        }
        let l = &self.unbroadcasted_scale_tril;
        let t = l.matmul(&l.mT()?)?.expand(&self.full_matrix_shape()[..])?;
        Ok(self.covariance_matrix.get_or_init(|| t).clone())
    }

    /// `precision_matrix`: `(L Lᵀ)⁻¹` (PyTorch's `cholesky_inverse`; here `L⁻ᵀ L⁻¹` with
    /// `L⁻¹` by `solve_triangular`), of shape `batch_shape + (n, n)`.
    ///
    /// Errors: none in practice (the ops' own).
    pub fn precision_matrix(&self) -> Result<Tensor> {
        if let Some(t) = self.precision_matrix.get() {
            return Ok(t.clone());
        }
        let l = &self.unbroadcasted_scale_tril;
        let id = Tensor::eye_with(self.event as i64, l.dtype())?;
        let linv = crate::linalg::solve_triangular(l, &id, false)?;
        let t = linv
            .mT()?
            .matmul(&linv)?
            .expand(&self.full_matrix_shape()[..])?;
        Ok(self.precision_matrix.get_or_init(|| t).clone())
    }

    /// `_unbroadcasted_scale_tril`: the factor with its own batch shape.
    pub fn unbroadcasted_scale_tril(&self) -> &Tensor {
        &self.unbroadcasted_scale_tril
    }

    fn half_log_det(&self) -> Result<Tensor> {
        self.unbroadcasted_scale_tril
            .diagonal_with((0, -2, -1))?
            .log()?
            .sum_dim(-1, false)
    }
}

/// `torch.broadcast_shapes(*shapes)`, with its RuntimeError `Attempting to broadcast a
/// dimension of length 3 at -1! Mismatching argument at index 1 had torch.Size([3]); but
/// expected shape should be broadcastable to [2]`.
fn broadcast_shapes(shapes: &[&[usize]]) -> Result<Vec<usize>> {
    let max_len = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut result = vec![1usize; max_len];
    for (k, shape) in shapes.iter().enumerate() {
        for i in 1..=shape.len() {
            let s = shape[shape.len() - i];
            let r = result[max_len - i];
            if s == 1 || s == r {
                continue;
            }
            if r != 1 {
                return Err(Error::runtime(format!(
                    "Attempting to broadcast a dimension of length {s} at -{i}! Mismatching argument at index {k} had {}; but expected shape should be broadcastable to {result:?}",
                    utils::size_str(shape)
                )));
            }
            result[max_len - i] = s;
        }
    }
    Ok(result)
}

/// `_precision_to_scale_tril(P)`.
fn precision_to_scale_tril(p: &Tensor) -> Result<Tensor> {
    let lf = crate::linalg::cholesky(&p.flip([-2, -1])?)?;
    let l_inv = lf.flip([-2, -1])?.transpose(-2, -1)?;
    let id = Tensor::eye_with(p.size()[p.dim() - 1] as i64, p.dtype())?;
    crate::linalg::solve_triangular(&l_inv, &id, false)
}

/// `_batch_mahalanobis(bL, bx)`: `|L⁻¹ x|²` for `L` of batch shape a suffix-broadcast of
/// `x`'s, by one batched `solve_triangular` over the flattened factors (PyTorch's
/// reshapes and permutes, so the sums run in its order).
pub(crate) fn batch_mahalanobis(bl: &Tensor, bx: &Tensor) -> Result<Tensor> {
    let n = bx.size()[bx.dim() - 1];
    let bx_batch_shape = bx.size()[..bx.dim() - 1].to_vec();
    let bx_batch_dims = bx_batch_shape.len();
    let bl_batch_dims = bl.dim() - 2;
    let outer = bx_batch_dims - bl_batch_dims;
    let old = outer + bl_batch_dims;
    let new = outer + 2 * bl_batch_dims;
    let mut new_shape: Vec<i64> = shape_i64(&bx.size()[..outer]);
    for (sl, sx) in bl.size()[..bl.dim() - 2]
        .iter()
        .zip(&bx.size()[outer..bx.dim() - 1])
    {
        new_shape.push((sx / sl) as i64);
        new_shape.push(*sl as i64);
    }
    new_shape.push(n as i64);
    let bx = bx.reshape(&new_shape[..])?;
    let mut perm: Vec<i64> = (0..outer as i64).collect();
    perm.extend((outer..new).step_by(2).map(|d| d as i64));
    perm.extend((outer + 1..new).step_by(2).map(|d| d as i64));
    perm.push(new as i64);
    let bx = bx.permute(&perm[..])?;
    let flat_l = bl.reshape([-1, n as i64, n as i64])?;
    let flat_x = bx.reshape([-1, flat_l.size()[0] as i64, n as i64])?;
    let flat_x_swap = flat_x.permute([1, 2, 0])?;
    let m_swap = crate::linalg::solve_triangular(&flat_l, &flat_x_swap, false)?
        .pow(2)?
        .sum_dim(-2, false)?;
    let m = m_swap.t()?;
    let permuted_m = m.reshape(&shape_i64(&bx.size()[..bx.dim() - 1])[..])?;
    let mut inv: Vec<i64> = (0..outer as i64).collect();
    for i in 0..bl_batch_dims {
        inv.push((outer + i) as i64);
        inv.push((old + i) as i64);
    }
    permuted_m
        .permute(&inv[..])?
        .reshape(&shape_i64(&bx_batch_shape)[..])
}

impl Distribution for MultivariateNormal {
    fn name(&self) -> &'static str {
        "MultivariateNormal"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.multivariate_normal.MultivariateNormal"
    }
    fn params(&self) -> Vec<(&'static str, Tensor)> {
        let mut v = vec![("loc", self.loc.clone())];
        for (name, slot) in [
            ("covariance_matrix", &self.covariance_matrix),
            ("precision_matrix", &self.precision_matrix),
            ("scale_tril", &self.scale_tril),
        ] {
            if let Some(t) = slot.get() {
                v.push((name, t.clone()));
            }
        }
        v
    }
    fn arg_constraints(&self) -> Vec<(&'static str, Constraint)> {
        vec![
            ("loc", constraints::real_vector()),
            ("covariance_matrix", Constraint::PositiveDefinite),
            ("precision_matrix", Constraint::PositiveDefinite),
            ("scale_tril", Constraint::LowerCholesky),
        ]
    }
    fn batch_shape(&self) -> Vec<usize> {
        self.batch_shape.clone()
    }
    fn event_shape(&self) -> Vec<usize> {
        vec![self.event]
    }
    fn support(&self) -> Result<Constraint> {
        Ok(constraints::real_vector())
    }
    fn validate_args(&self) -> bool {
        self.validate
    }
    fn has_rsample(&self) -> bool {
        true
    }
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        let mut ls = shape_i64(batch_shape);
        ls.push(self.event as i64);
        let mut cs = shape_i64(batch_shape);
        cs.extend([self.event as i64, self.event as i64]);
        let exp = |slot: &OnceLock<Tensor>| -> Result<OnceLock<Tensor>> {
            let o = OnceLock::new();
            if let Some(t) = slot.get() {
                let _ = o.set(t.expand(&cs[..])?);
            }
            Ok(o)
        };
        Ok(Box::new(MultivariateNormal {
            loc: self.loc.expand(&ls[..])?,
            given: self.given,
            scale_tril: exp(&self.scale_tril)?,
            covariance_matrix: exp(&self.covariance_matrix)?,
            precision_matrix: exp(&self.precision_matrix)?,
            unbroadcasted_scale_tril: self.unbroadcasted_scale_tril.clone(),
            batch_shape: batch_shape.to_vec(),
            event: self.event,
            validate: self.validate,
        }))
    }
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        let shape = extended_shape(self, sample_shape);
        let eps = {
            let _g = crate::autograd::no_grad();
            Tensor::empty_with(&shape[..], self.loc.dtype())?.normal_()?
        };
        let mv = self
            .unbroadcasted_scale_tril
            .matmul(&eps.unsqueeze(-1)?)?
            .squeeze_dim(-1)?;
        self.loc.add(&mv)
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        let diff = value.sub(&self.loc)?;
        let m = batch_mahalanobis(&self.unbroadcasted_scale_tril, &diff)?;
        let c = self.event as f64 * (2.0 * std::f64::consts::PI).ln();
        m.add(c)?.mul(-0.5)?.sub(&self.half_log_det()?)
    }
    fn entropy(&self) -> Result<Tensor> {
        let c = 0.5 * self.event as f64 * (1.0 + (2.0 * std::f64::consts::PI).ln());
        let h = self.half_log_det()?.add(c)?;
        if self.batch_shape.is_empty() {
            Ok(h)
        } else {
            h.expand(&shape_i64(&self.batch_shape)[..])
        }
    }
    fn mean(&self) -> Result<Tensor> {
        Ok(self.loc.clone())
    }
    fn mode(&self) -> Result<Tensor> {
        Ok(self.loc.clone())
    }
    fn variance(&self) -> Result<Tensor> {
        let mut s = shape_i64(&self.batch_shape);
        s.push(self.event as i64);
        self.unbroadcasted_scale_tril
            .pow(2)?
            .sum_dim(-1, false)?
            .expand(&s[..])
    }
}

/// `_kl_multivariatenormal_multivariatenormal`: `Σ log diag(Lq) - Σ log diag(Lp) + ½(tr
/// |Lq⁻¹ Lp|² + |Lq⁻¹(μq - μp)|² - n)`.
///
/// Errors: ValueError (PyTorch's text, with its source's line-continuation spaces) for
/// different event shapes.
pub(crate) fn kl_mvn_mvn(p: &MultivariateNormal, q: &MultivariateNormal) -> Result<Tensor> {
    if p.event != q.event {
        return Err(value_error(
            "KL-divergence between two Multivariate Normals with                          different event shapes cannot be computed",
        ));
    }
    let (pl, ql) = (&p.unbroadcasted_scale_tril, &q.unbroadcasted_scale_tril);
    let half_term1 = q.half_log_det()?.sub(&p.half_log_det()?)?;
    let combined =
        crate::broadcast::infer_size(&ql.size()[..ql.dim() - 2], &pl.size()[..pl.dim() - 2])?;
    let n = p.event;
    let mut cs = shape_i64(&combined);
    cs.extend([n as i64, n as i64]);
    let q_st = ql.expand(&cs[..])?;
    let p_st = pl.expand(&cs[..])?;
    let x = crate::linalg::solve_triangular(&q_st, &p_st, false)?;
    // _batch_trace_XXT
    let (rows, cols) = (x.size()[x.dim() - 2], x.size()[x.dim() - 1]);
    let term2 = x
        .reshape([-1, (rows * cols) as i64])?
        .pow(2)?
        .sum_dim(-1, false)?
        .reshape(&shape_i64(&x.size()[..x.dim() - 2])[..])?;
    let term3 = batch_mahalanobis(ql, &q.loc.sub(&p.loc)?)?;
    half_term1.add(&term2.add(&term3)?.sub(n as f64)?.mul(0.5)?)
}
