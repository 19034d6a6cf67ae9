//! The gamma group: Gamma, Chi2, Beta, Dirichlet, StudentT, Poisson, Binomial, Geometric
//! (samplers drawing PyTorch's values, reparameterised gradients) and their KL rules.

use tensile::distributions::*;
use tensile::{Operand, Result};

use crate::common::Params;

fn opt<'a>(p: &'a Params, k: &str) -> Option<Operand<'a>> {
    if p.has(k) { Some(p.op(k)) } else { None }
}

fn boxed<D: Distribution + 'static>(d: Result<D>) -> Result<Box<dyn Distribution>> {
    d.map(|d| Box::new(d) as _)
}

pub fn build(name: &str, p: &Params, validate: bool) -> Option<Result<Box<dyn Distribution>>> {
    let d = match name {
        "Gamma" => boxed(Gamma::new_with(
            p.op("concentration"),
            p.op("rate"),
            validate,
        )),
        "Chi2" => boxed(Chi2::new_with(p.op("df"), validate)),
        "Beta" => boxed(Beta::new_with(
            p.op("concentration1"),
            p.op("concentration0"),
            validate,
        )),
        "Dirichlet" => boxed(Dirichlet::new_with(
            p.t("concentration").expect("a tensor"),
            validate,
        )),
        "StudentT" => boxed(StudentT::new_with(
            p.op("df"),
            opt(p, "loc").unwrap_or(0.0.into()),
            opt(p, "scale").unwrap_or(1.0.into()),
            validate,
        )),
        "Poisson" => boxed(Poisson::new_with(p.op("rate"), validate)),
        "Binomial" => boxed(Binomial::new_with(
            opt(p, "total_count").unwrap_or(1.into()),
            opt(p, "probs"),
            opt(p, "logits"),
            validate,
        )),
        "Geometric" => boxed(Geometric::new_with(
            opt(p, "probs"),
            opt(p, "logits"),
            validate,
        )),
        _ => return None,
    };
    Some(d)
}
