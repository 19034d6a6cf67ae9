//! The discrete group: Bernoulli, Categorical, OneHotCategorical, Multinomial (probs or
//! logits), MultivariateNormal, MixtureSameFamily.

use tensile::Result;
use tensile::distributions::*;

use crate::common::Params;

pub fn build(name: &str, p: &Params, validate: bool) -> Option<Result<Box<dyn Distribution>>> {
    let d: Result<Box<dyn Distribution>> = match name {
        "Bernoulli" => Bernoulli::new_with(
            p.has("probs").then(|| p.op("probs")),
            p.has("logits").then(|| p.op("logits")),
            validate,
        )
        .map(|d| Box::new(d) as _),
        "Categorical" => {
            Categorical::new_with(p.t("probs"), p.t("logits"), validate).map(|d| Box::new(d) as _)
        }
        "OneHotCategorical" => OneHotCategorical::new_with(p.t("probs"), p.t("logits"), validate)
            .map(|d| Box::new(d) as _),
        "Multinomial" => {
            Multinomial::new_with(p.op("total_count"), p.t("probs"), p.t("logits"), validate)
                .map(|d| Box::new(d) as _)
        }
        "MultivariateNormal" => MultivariateNormal::new_with(
            p.t("loc").unwrap(),
            p.t("covariance_matrix"),
            p.t("precision_matrix"),
            p.t("scale_tril"),
            validate,
        )
        .map(|d| Box::new(d) as _),
        // BUILDERS in scripts/dist_fixtures/discrete.py: a Categorical(logits=mix_logits)
        // mixture of Normal(loc, scale) or MultivariateNormal(loc, scale_tril) components.
        "MixtureNormal" => (|| {
            let mix = Categorical::from_logits(p.t("mix_logits").unwrap())?;
            let comp = Normal::new(p.op("loc"), p.op("scale"))?;
            MixtureSameFamily::new_with(mix, Box::new(comp), validate)
        })()
        .map(|d| Box::new(d) as _),
        "MixtureMVN" => (|| {
            let mix = Categorical::from_logits(p.t("mix_logits").unwrap())?;
            let comp = MultivariateNormal::from_scale_tril(
                p.t("loc").unwrap(),
                p.t("scale_tril").unwrap(),
            )?;
            MixtureSameFamily::new_with(mix, Box::new(comp), validate)
        })()
        .map(|d| Box::new(d) as _),
        _ => return None,
    };
    Some(d)
}
