//! `torch.distributions.StudentT`.

use crate::Operand;
use crate::Tensor;
use crate::error::Result;

use super::gamma::Chi2;
use super::utils::{self, broadcast_all, extended_shape, shape_i64, validate_sample};
use super::{Constraint, DistOpts, Distribution, constraints};

/// `torch.distributions.StudentT(df, loc=0.0, scale=1.0)`: Student's t with `df` degrees of
/// freedom, location `loc` and scale `scale`, broadcast together (`batch_shape` their shape,
/// `()` for numbers).
///
/// `arg_constraints`: `df` positive, `loc` real, `scale` positive; support real;
/// `has_rsample`. It holds a `Chi2(df)` built with the default validation (as PyTorch does,
/// whatever `validate_args`), so a non-positive `df` fails with Chi2's text first.
/// `rsample` draws `X = empty(shape).normal_()` (PyTorch's `_standard_normal`) first, then
/// `Z` from the Chi2's `rsample`, and returns `loc + scale · X · rsqrt(Z / df)`.
#[derive(Clone, Debug)]
pub struct StudentT {
    /// `df`: the degrees of freedom.
    pub df: Tensor,
    /// `loc`.
    pub loc: Tensor,
    /// `scale`.
    pub scale: Tensor,
    chi2: Chi2,
    validate: bool,
}

impl StudentT {
    /// `StudentT(df, loc, scale)` (PyTorch's defaults: `loc` 0.0, `scale` 1.0), validating
    /// unless [`set_default_validate_args(false)`](super::set_default_validate_args).
    ///
    /// Errors: broadcasting's; ValueError `Expected parameter df (Tensor of shape (2,)) of
    /// distribution Chi2() to satisfy the constraint GreaterThan(lower_bound=0.0), but found
    /// invalid values:\n…` (the inner Chi2's); `Expected parameter scale (Tensor of shape
    /// (2,)) of distribution StudentT(df: torch.Size([2]), loc: torch.Size([2]), scale:
    /// torch.Size([2])) to satisfy the constraint GreaterThan(lower_bound=0.0), but found
    /// invalid values:\n…` (and `loc`'s for a NaN).
    pub fn new<'a, 'b, 'c>(
        df: impl Into<Operand<'a>>,
        loc: impl Into<Operand<'b>>,
        scale: impl Into<Operand<'c>>,
    ) -> Result<StudentT> {
        StudentT::new_with(df, loc, scale, DistOpts::default())
    }

    /// `StudentT(df, loc, scale, validate_args=…)`; see [`StudentT::new`].
    pub fn new_with<'a, 'b, 'c>(
        df: impl Into<Operand<'a>>,
        loc: impl Into<Operand<'b>>,
        scale: impl Into<Operand<'c>>,
        opts: impl Into<DistOpts>,
    ) -> Result<StudentT> {
        let mut p = broadcast_all(&[df.into(), loc.into(), scale.into()])?.into_iter();
        let (df, loc, scale) = (
            p.next().expect("three"),
            p.next().expect("three"),
            p.next().expect("three"),
        );
        let chi2 = Chi2::new(&df)?;
        let d = StudentT {
            df,
            loc,
            scale,
            chi2,
            validate: opts.into().validate(),
        };
        utils::validate_params(&d)?;
        Ok(d)
    }
}

impl Distribution for StudentT {
    fn name(&self) -> &'static str {
        "StudentT"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.studentT.StudentT"
    }
    fn params(&self) -> Vec<(&'static str, Tensor)> {
        vec![
            ("df", self.df.clone()),
            ("loc", self.loc.clone()),
            ("scale", self.scale.clone()),
        ]
    }
    fn arg_constraints(&self) -> Vec<(&'static str, Constraint)> {
        vec![
            ("df", constraints::positive()),
            ("loc", Constraint::Real),
            ("scale", constraints::positive()),
        ]
    }
    fn batch_shape(&self) -> Vec<usize> {
        self.df.size().to_vec()
    }
    fn support(&self) -> Result<Constraint> {
        Ok(Constraint::Real)
    }
    fn validate_args(&self) -> bool {
        self.validate
    }
    fn has_rsample(&self) -> bool {
        true
    }
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        let s = shape_i64(batch_shape);
        let chi2 = self.chi2.expand(batch_shape)?;
        let chi2 = chi2
            .as_any()
            .downcast_ref::<Chi2>()
            .expect("a Chi2 expands to a Chi2")
            .clone();
        Ok(Box::new(StudentT {
            df: self.df.expand(&s)?,
            loc: self.loc.expand(&s)?,
            scale: self.scale.expand(&s)?,
            chi2,
            validate: self.validate,
        }))
    }
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        let shape = extended_shape(self, sample_shape);
        let x = {
            let _g = crate::autograd::no_grad();
            Tensor::empty_with(&shape[..], self.df.dtype())?.normal_()?
        };
        let z = self.chi2.rsample(sample_shape)?;
        let y = x.mul(&z.div(&self.df)?.rsqrt()?)?;
        self.loc.add(&self.scale.mul(&y)?)
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        let y = value.sub(&self.loc)?.div(&self.scale)?;
        let half_log_pi = 0.5 * std::f64::consts::PI.ln();
        let z = self
            .scale
            .log()?
            .add(&self.df.log()?.mul(0.5)?)?
            .add(half_log_pi)?
            .add(&self.df.mul(0.5)?.lgamma()?)?
            .sub(&self.df.add(1.0)?.mul(0.5)?.lgamma()?)?;
        self.df
            .add(1.0)?
            .mul(-0.5)?
            .mul(&y.pow(2.0)?.div(&self.df)?.log1p()?)?
            .sub(&z)
    }
    fn entropy(&self) -> Result<Tensor> {
        let lgamma_half = 0.572_364_942_924_700_1; // math.lgamma(0.5)
        let half_df = self.df.mul(0.5)?;
        let half_df1 = self.df.add(1)?.mul(0.5)?;
        let lbeta = half_df
            .lgamma()?
            .add(lgamma_half)?
            .sub(&half_df1.lgamma()?)?;
        self.scale
            .log()?
            .add(
                &self
                    .df
                    .add(1)?
                    .mul(0.5)?
                    .mul(&half_df1.digamma()?.sub(&half_df.digamma()?)?)?,
            )?
            .add(&self.df.log()?.mul(0.5)?)?
            .add(&lbeta)
    }
    fn mean(&self) -> Result<Tensor> {
        let m = self.loc.contiguous();
        crate::where_cond(&self.df.le(1)?, f64::NAN, &m)
    }
    fn mode(&self) -> Result<Tensor> {
        Ok(self.loc.clone())
    }
    fn variance(&self) -> Result<Tensor> {
        let df = &self.df;
        let v = self.scale.pow(2)?.mul(df)?.div(&df.sub(2)?)?;
        let m = crate::where_cond(&df.gt(2)?, &v, df)?;
        let m = crate::where_cond(&df.le(2)?.logical_and(&df.gt(1)?)?, f64::INFINITY, &m)?;
        crate::where_cond(&df.le(1)?, f64::NAN, &m)
    }
}
