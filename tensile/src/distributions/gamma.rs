//! `torch.distributions.Gamma` and `Chi2`, the regularised incomplete gamma function their
//! `cdf` needs, and the KL rules of the gamma group (Gamma, Chi2, Beta, Dirichlet, Poisson,
//! Binomial, Geometric, and their pairs with Normal).

use crate::Operand;
use crate::Tensor;
use crate::error::{Error, ErrorKind, Result};

use super::utils::{self, extended_shape, shape_i64, validate_sample};
use super::{Constraint, DistOpts, Distribution, constraints};

/// `torch.distributions.Gamma(concentration, rate)`: shape `concentration` (α), rate `rate`
/// (β), broadcast together (`batch_shape` their shape, `()` when both are numbers;
/// `event_shape` `()`).
///
/// `arg_constraints`: both positive; support `GreaterThanEq(lower_bound=0.0)`;
/// `has_rsample`; an exponential family.
/// `rsample` is `_standard_gamma(concentration.expand(shape)) / rate.expand(shape)` (see
/// [`crate::random::standard_gamma`] for the draws), then clamped in place, outside autograd,
/// to at least `finfo.tiny`; it is differentiable in both parameters. `sample` draws the same
/// values without recording.
#[derive(Clone, Debug)]
pub struct Gamma {
    /// `concentration` (α).
    pub concentration: Tensor,
    /// `rate` (β).
    pub rate: Tensor,
    batch_shape: Vec<usize>,
    validate: bool,
}

impl Gamma {
    /// `Gamma(concentration, rate)`, validating the arguments unless
    /// [`set_default_validate_args(false)`](super::set_default_validate_args).
    ///
    /// Errors: broadcasting's; ValueError `Expected parameter concentration (Tensor of shape
    /// (2,)) of distribution Gamma(concentration: torch.Size([2]), rate: torch.Size([2])) to
    /// satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\n…`
    /// (and `rate`'s).
    pub fn new<'a, 'b>(
        concentration: impl Into<Operand<'a>>,
        rate: impl Into<Operand<'b>>,
    ) -> Result<Gamma> {
        Gamma::new_with(concentration, rate, DistOpts::default())
    }

    /// `Gamma(concentration, rate, validate_args=…)`; see [`Gamma::new`].
    pub fn new_with<'a, 'b>(
        concentration: impl Into<Operand<'a>>,
        rate: impl Into<Operand<'b>>,
        opts: impl Into<DistOpts>,
    ) -> Result<Gamma> {
        let d = Gamma::build(concentration.into(), rate.into(), opts.into().validate())?;
        utils::validate_params(&d)?;
        Ok(d)
    }

    /// The parameters broadcast, without validation.
    fn build(concentration: Operand<'_>, rate: Operand<'_>, validate: bool) -> Result<Gamma> {
        let (concentration, rate, batch_shape) = utils::two_params(concentration, rate)?;
        Ok(Gamma {
            concentration,
            rate,
            batch_shape,
            validate,
        })
    }

    fn expanded(&self, batch_shape: &[usize]) -> Result<Gamma> {
        let s = shape_i64(batch_shape);
        Ok(Gamma {
            concentration: self.concentration.expand(&s)?,
            rate: self.rate.expand(&s)?,
            batch_shape: batch_shape.to_vec(),
            validate: self.validate,
        })
    }
}

impl Distribution for Gamma {
    fn name(&self) -> &'static str {
        "Gamma"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.gamma.Gamma"
    }
    fn params(&self) -> Vec<(&'static str, Tensor)> {
        vec![
            ("concentration", self.concentration.clone()),
            ("rate", self.rate.clone()),
        ]
    }
    fn arg_constraints(&self) -> Vec<(&'static str, Constraint)> {
        vec![
            ("concentration", constraints::positive()),
            ("rate", constraints::positive()),
        ]
    }
    fn batch_shape(&self) -> Vec<usize> {
        self.batch_shape.clone()
    }
    fn support(&self) -> Result<Constraint> {
        Ok(constraints::nonnegative())
    }
    fn validate_args(&self) -> bool {
        self.validate
    }
    fn has_rsample(&self) -> bool {
        true
    }
    fn is_exponential_family(&self) -> bool {
        true
    }
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        Ok(Box::new(self.expanded(batch_shape)?))
    }
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        gamma_rsample(self, sample_shape)
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        gamma_log_prob(self, self, value)
    }
    fn cdf(&self, value: &Tensor) -> Result<Tensor> {
        gamma_cdf(self, self, value)
    }
    fn entropy(&self) -> Result<Tensor> {
        let c = &self.concentration;
        c.sub(&self.rate.log()?)?
            .add(&c.lgamma()?)?
            .add(&crate::rsub(c, 1.0)?.mul(&c.digamma()?)?)
    }
    fn mean(&self) -> Result<Tensor> {
        self.concentration.div(&self.rate)
    }
    fn mode(&self) -> Result<Tensor> {
        self.concentration.sub(1)?.div(&self.rate)?.clamp_min(0)
    }
    fn variance(&self) -> Result<Tensor> {
        self.concentration.div(&self.rate.pow(2)?)
    }
}

/// `Gamma.rsample` for `d` (a Gamma or a Chi2).
fn gamma_rsample(g: &Gamma, sample_shape: &[usize]) -> Result<Tensor> {
    let shape = shape_i64(&extended_shape(g, sample_shape));
    let value = crate::random::standard_gamma(&g.concentration.expand(&shape)?)?
        .div(&g.rate.expand(&shape)?)?;
    let tiny = value.dtype().finfo()?.tiny;
    value.detach().clamp_min_(tiny)?;
    Ok(value)
}

/// `Gamma.log_prob`: the value cast to `rate`'s dtype, validated against `d` (whose repr the
/// error prints), then `xlogy(α, β) + xlogy(α - 1, value) - β·value - lgamma(α)`.
fn gamma_log_prob(d: &dyn Distribution, g: &Gamma, value: &Tensor) -> Result<Tensor> {
    let value = value.to(g.rate.dtype())?;
    if d.validate_args() {
        validate_sample(d, &value)?;
    }
    let c = &g.concentration;
    crate::xlogy(c, &g.rate)?
        .add(&crate::xlogy(&c.sub(1)?, &value)?)?
        .sub(&g.rate.mul(&value)?)?
        .sub(&c.lgamma()?)
}

/// `Gamma.cdf`: `special.gammainc(α, β·value)`.
fn gamma_cdf(d: &dyn Distribution, g: &Gamma, value: &Tensor) -> Result<Tensor> {
    if d.validate_args() {
        validate_sample(d, value)?;
    }
    gammainc(&g.concentration, &g.rate.mul(value)?)
}

/// `torch.special.gammainc(a, x)` (the regularised lower incomplete gamma function `P(a,
/// x)`), elementwise over the broadcast shape in the promoted dtype, computed in double
/// (Cephes' series below `max(1, a)`, else `1 − Q` from Legendre's continued fraction) and
/// rounded once; PyTorch's special cases (NaN for a negative argument, `a = 0`: 1 for `x > 0`,
/// `x = 0`: 0, `x = inf`: 1, `a = inf`: 0). Not differentiable.
pub(crate) fn gammainc(a: &Tensor, x: &Tensor) -> Result<Tensor> {
    let _g = crate::autograd::no_grad();
    let dt = crate::promote_types(a.dtype(), x.dtype());
    let b = crate::broadcast_tensors(&[a, x])?;
    let av = b[0].contiguous().try_to_vec::<f64>()?;
    let xv = b[1].contiguous().try_to_vec::<f64>()?;
    let vals: Vec<f64> = av.iter().zip(&xv).map(|(&a, &x)| igam(a, x)).collect();
    Tensor::from_vec(vals, b[0].size())?.to(dt)
}

const MACHEP: f64 = 1.110_223_024_625_156_5e-16;
const MAXLOG: f64 = 7.097_827_128_933_84e2;

fn igam(a: f64, x: f64) -> f64 {
    if x < 0.0 || a < 0.0 || a.is_nan() || x.is_nan() {
        return f64::NAN;
    }
    if a == 0.0 {
        return if x > 0.0 { 1.0 } else { f64::NAN };
    }
    if x == 0.0 {
        return 0.0;
    }
    if a.is_infinite() {
        return if x.is_infinite() { f64::NAN } else { 0.0 };
    }
    if x.is_infinite() {
        return 1.0;
    }
    if x > 1.0 && x > a {
        return 1.0 - igamc(a, x);
    }
    let ax = a * x.ln() - x - libm::lgamma(a);
    if ax < -MAXLOG {
        return 0.0;
    }
    let ax = ax.exp();
    let (mut r, mut c, mut ans) = (a, 1.0, 1.0);
    loop {
        r += 1.0;
        c *= x / r;
        ans += c;
        if c / ans <= MACHEP {
            break;
        }
    }
    ans * ax / a
}

fn igamc(a: f64, x: f64) -> f64 {
    const BIG: f64 = 4.503_599_627_370_496e15;
    const BIGINV: f64 = 2.220_446_049_250_313e-16;
    let ax = a * x.ln() - x - libm::lgamma(a);
    if ax < -MAXLOG {
        return 0.0;
    }
    let ax = ax.exp();
    let mut y = 1.0 - a;
    let mut z = x + y + 1.0;
    let mut c = 0.0;
    let (mut pkm2, mut qkm2, mut pkm1, mut qkm1) = (1.0, x, x + 1.0, z * x);
    let mut ans = pkm1 / qkm1;
    for _ in 0..10_000 {
        c += 1.0;
        y += 1.0;
        z += 2.0;
        let yc = y * c;
        let pk = pkm1 * z - pkm2 * yc;
        let qk = qkm1 * z - qkm2 * yc;
        let t = if qk != 0.0 {
            let r = pk / qk;
            let t = ((ans - r) / r).abs();
            ans = r;
            t
        } else {
            1.0
        };
        pkm2 = pkm1;
        pkm1 = pk;
        qkm2 = qkm1;
        qkm1 = qk;
        if pk.abs() > BIG {
            pkm2 *= BIGINV;
            pkm1 *= BIGINV;
            qkm2 *= BIGINV;
            qkm1 *= BIGINV;
        }
        if t <= MACHEP {
            break;
        }
    }
    ans * ax
}

/// `torch.distributions.Chi2(df)`: `Gamma(0.5·df, 0.5)` (`df` a tensor or a number;
/// `batch_shape` its shape).
///
/// `arg_constraints`: `df` positive (checked on `concentration * 2`, PyTorch's `df`
/// property); `repr` is `Chi2()` (PyTorch prints only parameters held as attributes). Every
/// method is Gamma's, with the same draws.
#[derive(Clone, Debug)]
pub struct Chi2 {
    /// The Gamma it is: `concentration = 0.5·df`, `rate = 0.5`.
    pub gamma: Gamma,
}

impl Chi2 {
    /// `Chi2(df)`, validating unless [`set_default_validate_args(false)`](super::set_default_validate_args).
    ///
    /// Errors: ValueError `Expected parameter df (Tensor of shape (2,)) of distribution
    /// Chi2() to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid
    /// values:\n…`.
    pub fn new<'a>(df: impl Into<Operand<'a>>) -> Result<Chi2> {
        Chi2::new_with(df, DistOpts::default())
    }

    /// `Chi2(df, validate_args=…)`; see [`Chi2::new`].
    pub fn new_with<'a>(df: impl Into<Operand<'a>>, opts: impl Into<DistOpts>) -> Result<Chi2> {
        let half;
        let conc = match df.into() {
            Operand::Tensor(t) => {
                half = t.mul(0.5)?;
                Operand::Tensor(&half)
            }
            Operand::Scalar(s) => (0.5 * s.to_f64()).into(),
        };
        let d = Chi2 {
            gamma: Gamma::build(conc, 0.5.into(), opts.into().validate())?,
        };
        if d.gamma.validate {
            let _g = crate::autograd::no_grad();
            check_param(&d, "df", &constraints::positive(), &d.df()?)?;
        }
        Ok(d)
    }

    /// The `df` property: `concentration * 2`.
    pub fn df(&self) -> Result<Tensor> {
        self.gamma.concentration.mul(2)
    }
}

/// A parameter's constructor check with `Distribution.__init__`'s text, for a parameter
/// that is not among `params()` (a property such as Chi2's `df`).
pub(crate) fn check_param(
    d: &dyn Distribution,
    name: &str,
    c: &Constraint,
    value: &Tensor,
) -> Result<()> {
    if c.check(value)?.all()?.item::<bool>()? {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::ValueError,
        format!(
            "Expected parameter {name} (Tensor of shape {}) of distribution {} to satisfy the constraint {c}, but found invalid values:\n{value}",
            utils::tuple_str(value.size()),
            utils::repr(d)
        ),
    ))
}

impl Distribution for Chi2 {
    fn name(&self) -> &'static str {
        "Chi2"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.chi2.Chi2"
    }
    fn params(&self) -> Vec<(&'static str, Tensor)> {
        Vec::new()
    }
    fn arg_constraints(&self) -> Vec<(&'static str, Constraint)> {
        vec![("df", constraints::positive())]
    }
    fn batch_shape(&self) -> Vec<usize> {
        self.gamma.batch_shape.clone()
    }
    fn support(&self) -> Result<Constraint> {
        Ok(constraints::nonnegative())
    }
    fn validate_args(&self) -> bool {
        self.gamma.validate
    }
    fn has_rsample(&self) -> bool {
        true
    }
    fn is_exponential_family(&self) -> bool {
        true
    }
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        Ok(Box::new(Chi2 {
            gamma: self.gamma.expanded(batch_shape)?,
        }))
    }
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        gamma_rsample(&self.gamma, sample_shape)
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        gamma_log_prob(self, &self.gamma, value)
    }
    fn cdf(&self, value: &Tensor) -> Result<Tensor> {
        gamma_cdf(self, &self.gamma, value)
    }
    fn entropy(&self) -> Result<Tensor> {
        self.gamma.entropy()
    }
    fn mean(&self) -> Result<Tensor> {
        self.gamma.mean()
    }
    fn mode(&self) -> Result<Tensor> {
        self.gamma.mode()
    }
    fn variance(&self) -> Result<Tensor> {
        self.gamma.variance()
    }
}

/// `d` as a Gamma (itself, or a Chi2's), as PyTorch's KL dispatch matches subclasses.
pub(crate) fn as_gamma(d: &dyn Distribution) -> Option<&Gamma> {
    let a = d.as_any();
    a.downcast_ref::<Gamma>()
        .or_else(|| a.downcast_ref::<Chi2>().map(|c| &c.gamma))
}

/// The KL rules of the gamma group (one [`KlRule`](super::kl::KlRule), `None` for pairs it
/// does not cover): PyTorch's `_kl_gamma_gamma` (Chi2 on either side too), `_kl_beta_beta`,
/// `_kl_dirichlet_dirichlet`, `_kl_poisson_poisson`, `_kl_binomial_binomial`,
/// `_kl_geometric_geometric`, `_kl_beta_gamma`, `_kl_beta_normal`, `_kl_gamma_normal`, and
/// the infinite pairs `(Gamma, Beta)`, `(Normal, Beta)`, `(Normal, Gamma)`,
/// `(Poisson, Binomial)`.
pub(crate) fn kl_rules(p: &dyn Distribution, q: &dyn Distribution) -> Option<Result<Tensor>> {
    use super::kl::pair;
    use super::{Beta, Binomial, Dirichlet, Geometric, Normal, Poisson};
    let pi = std::f64::consts::PI;
    if let (Some(p), Some(q)) = (as_gamma(p), as_gamma(q)) {
        return Some((|| {
            let t1 = q.concentration.mul(&p.rate.div(&q.rate)?.log()?)?;
            let t2 = q.concentration.lgamma()?.sub(&p.concentration.lgamma()?)?;
            let t3 = p
                .concentration
                .sub(&q.concentration)?
                .mul(&p.concentration.digamma()?)?;
            let t4 = q.rate.sub(&p.rate)?.mul(&p.concentration.div(&p.rate)?)?;
            t1.add(&t2)?.add(&t3)?.add(&t4)
        })());
    }
    if let Some((p, q)) = pair::<Beta, Beta>(p, q) {
        return Some((|| {
            let (p1, p0) = (p.concentration1()?, p.concentration0()?);
            let (q1, q0) = (q.concentration1()?, q.concentration0()?);
            let sum_p = p1.add(&p0)?;
            let sum_q = q1.add(&q0)?;
            let t1 = q1.lgamma()?.add(&q0.lgamma()?)?.add(&sum_p.lgamma()?)?;
            let t2 = p1.lgamma()?.add(&p0.lgamma()?)?.add(&sum_q.lgamma()?)?;
            let t3 = p1.sub(&q1)?.mul(&p1.digamma()?)?;
            let t4 = p0.sub(&q0)?.mul(&p0.digamma()?)?;
            let t5 = sum_q.sub(&sum_p)?.mul(&sum_p.digamma()?)?;
            t1.sub(&t2)?.add(&t3)?.add(&t4)?.add(&t5)
        })());
    }
    if let Some((p, q)) = pair::<Dirichlet, Dirichlet>(p, q) {
        return Some((|| {
            let (pc, qc) = (&p.concentration, &q.concentration);
            let sum_p = pc.sum_dim(-1, false)?;
            let sum_q = qc.sum_dim(-1, false)?;
            let t1 = sum_p.lgamma()?.sub(&sum_q.lgamma()?)?;
            let t2 = pc.lgamma()?.sub(&qc.lgamma()?)?.sum_dim(-1, false)?;
            let t3 = pc.sub(qc)?;
            let t4 = pc.digamma()?.sub(&sum_p.digamma()?.unsqueeze(-1)?)?;
            t1.sub(&t2)?.add(&t3.mul(&t4)?.sum_dim(-1, false)?)
        })());
    }
    if let Some((p, q)) = pair::<Poisson, Poisson>(p, q) {
        return Some((|| {
            p.rate
                .mul(&p.rate.log()?.sub(&q.rate.log()?)?)?
                .sub(&p.rate.sub(&q.rate)?)
        })());
    }
    if let Some((p, q)) = pair::<Binomial, Binomial>(p, q) {
        return Some((|| {
            let less = {
                let _g = crate::autograd::no_grad();
                p.total_count.lt(&q.total_count)?.any()?.item::<bool>()?
            };
            if less {
                return Err(Error::new(
                    ErrorKind::NotImplementedError,
                    "KL between Binomials where q.total_count > p.total_count is not implemented",
                ));
            }
            let (pp, pl, ql) = (p.probs()?, p.logits()?, q.logits()?);
            let kl = p.total_count.mul(
                &pp.mul(&pl.sub(&ql)?)?
                    .add(&pp.neg()?.log1p()?)?
                    .sub(&q.probs()?.neg()?.log1p()?)?,
            )?;
            let inf = p.total_count.gt(&q.total_count)?;
            crate::where_cond(&inf, f64::INFINITY, &kl)
        })());
    }
    if let Some((p, q)) = pair::<Geometric, Geometric>(p, q) {
        return Some((|| {
            p.entropy()?
                .neg()?
                .sub(&q.probs()?.neg()?.log1p()?.div(&p.probs()?)?)?
                .sub(&q.logits()?)
        })());
    }
    if let (Some(p), Some(q)) = (p.as_any().downcast_ref::<Beta>(), as_gamma(q)) {
        return Some((|| {
            let (c1, c0) = (p.concentration1()?, p.concentration0()?);
            let t1 = p.entropy()?.neg()?;
            let t2 = q
                .concentration
                .lgamma()?
                .sub(&q.concentration.mul(&q.rate.log()?)?)?;
            let t3 = q
                .concentration
                .sub(1)?
                .mul(&c1.digamma()?.sub(&c1.add(&c0)?.digamma()?)?)?;
            let t4 = q.rate.mul(&c1)?.div(&c1.add(&c0)?)?;
            t1.add(&t2)?.sub(&t3)?.add(&t4)
        })());
    }
    if let Some((p, q)) = pair::<Beta, Normal>(p, q) {
        return Some((|| {
            let (c1, c0) = (p.concentration1()?, p.concentration0()?);
            let e_beta = c1.div(&c1.add(&c0)?)?;
            let var_normal = q.scale.pow(2)?;
            let t1 = p.entropy()?.neg()?;
            let t2 = var_normal.mul(2)?.mul(pi)?.log()?.mul(0.5)?;
            let t3 = e_beta
                .mul(&crate::rsub(&e_beta, 1)?)?
                .div(&c1.add(&c0)?.add(1)?)?
                .add(&e_beta.pow(2)?)?
                .mul(0.5)?;
            let t4 = q.loc.mul(&e_beta)?;
            let t5 = q.loc.pow(2)?.mul(0.5)?;
            t1.add(&t2)?.add(&t3.sub(&t4)?.add(&t5)?.div(&var_normal)?)
        })());
    }
    if let (Some(p), Some(q)) = (as_gamma(p), q.as_any().downcast_ref::<Normal>()) {
        return Some((|| {
            let c = &p.concentration;
            let var_normal = q.scale.pow(2)?;
            let beta_sqr = p.rate.pow(2)?;
            let t1 = beta_sqr
                .mul(&var_normal)?
                .mul(2)?
                .mul(pi)?
                .log()?
                .mul(0.5)?
                .sub(c)?
                .sub(&c.lgamma()?)?;
            let t2 = c.pow(2)?.add(c)?.mul(0.5)?.div(&beta_sqr)?;
            let t3 = q.loc.mul(c)?.div(&p.rate)?;
            let t4 = q.loc.pow(2)?.mul(0.5)?;
            t1.add(&c.sub(1)?.mul(&c.digamma()?)?)?
                .add(&t2.sub(&t3)?.add(&t4)?.div(&var_normal)?)
        })());
    }
    if let (Some(p), Some(_)) = (as_gamma(p), q.as_any().downcast_ref::<Beta>()) {
        return Some(Tensor::full_like(&p.concentration, f64::INFINITY));
    }
    if let Some(p) = p.as_any().downcast_ref::<Normal>()
        && (q.as_any().downcast_ref::<Beta>().is_some() || as_gamma(q).is_some())
    {
        return Some(Tensor::full_like(&p.loc, f64::INFINITY));
    }
    if let Some((p, _)) = pair::<Poisson, Binomial>(p, q) {
        return Some(Tensor::full_like(&p.rate, f64::INFINITY));
    }
    None
}
