//! `tensile::distributions` against PyTorch 2.15's `torch.distributions`: the fixtures in
//! `tests/data/distributions/<group>.json` (written by `scripts/make_dist_fixtures.py`, one
//! module per group in `scripts/dist_fixtures/`) hold, for fixed parameters, what PyTorch
//! computes for every method (`repr`, shapes, `support`, `mean`, `mode`, `variance`,
//! `stddev`, `entropy`, `sample`/`rsample` after `manual_seed`, the default generator's next
//! draws, `log_prob`, `cdf`, `icdf`, `enumerate_support`, gradients of `rsample` and
//! `log_prob` with respect to the parameters) or the exception class and text PyTorch raises.
//! Every field is compared; a method PyTorch raises on must raise the same here.
//!
//! The tests reseed the process-wide default generator, so they run one at a time (a lock).

#[path = "distributions/common.rs"]
mod common;
#[path = "distributions/continuous.rs"]
mod continuous;
#[path = "distributions/core.rs"]
mod core_dists;
#[path = "distributions/discrete.rs"]
mod discrete;
#[path = "distributions/gamma.rs"]
mod gamma_dists;

use tensile::Result;
use tensile::distributions::Distribution;

use common::Params;

/// The distribution a fixture names, from its decoded parameters: each group's builder in
/// turn (`None`: not a name of that group).
fn build(name: &str, p: &Params, validate: bool) -> Result<Box<dyn Distribution>> {
    for b in [
        core_dists::build,
        continuous::build,
        discrete::build,
        gamma_dists::build,
    ] {
        if let Some(d) = b(name, p, validate) {
            return d;
        }
    }
    panic!("no builder for distribution {name}")
}

#[test]
fn core_group() {
    common::run_group("core", build);
}

#[test]
fn continuous_group() {
    common::run_group("continuous", build);
}

#[test]
fn continuous_transforms() {
    continuous::check_transforms();
}

#[test]
fn discrete_group() {
    common::run_group("discrete", build);
}

#[test]
fn gamma_group() {
    common::run_group("gamma", build);
}

#[test]
fn kl_group() {
    common::run_group("kl", build);
}
