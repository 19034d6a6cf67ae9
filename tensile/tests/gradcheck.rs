//! Gradient check (issue 13): for every differentiable public op, finite differences in
//! float64 on random inputs — contiguous, non-contiguous, and broadcast for ops with several
//! operands — agree with the analytic gradient within PyTorch's `gradcheck` tolerances
//! (`eps = 1e-6`, `atol = 1e-5`, `rtol = 1e-3`; see `gradcheck/check.rs`). An op whose output
//! does not require grad when an input does fails as `no backward formula: NAME`.
//!
//! * `opinfo/` (shared with the other consumers): every op, each with its samples (`grad`)
//!   or the reason it has none (`nograd`);
//! * `gradcheck/rows.rs`: one row per OpInfo sample;
//! * `gradcheck/check.rs`: the checking engine (gradcheck's algorithm, seeded inputs);
//! * `gradcheck/coverage.rs`: the crate's public op list, parsed from `src/`;
//! * below, `NOT_DIFFERENTIABLE`: every public op with no row and no OpInfo entry, with its
//!   reason.
//!
//! Run: `cargo test --test gradcheck` (`GRADCHECK_FILTER=conv` checks only the rows whose
//! name contains `conv`). Every failure is collected; the test panics at the end with one
//! line per op and variant.

mod gradcheck {
    pub mod check;
    pub mod coverage;
    pub mod rows;
}
mod opinfo;

use gradcheck::check::{Rng, Variant, check, make, row, x};
use std::collections::BTreeSet;
use tensile::Tensor;

/// Every public op that has no row in the table and no OpInfo entry saying why
/// (`nograd`), with a one-word reason:
/// `integer` (integer or bool output, or integer-only op), `comparison`, `index`
/// (returns indices), `creation` (factory), `random`, `metadata` (no values computed),
/// `autograd` (the autograd API itself), `pytorch` (PyTorch defines no derivative either:
/// "the derivative for X is not implemented").
/// In-place (`x_`), `_with`, `_with_` and `out=` (`x_out`) forms of a checked op are covered
/// by its row (they share its formula; a few in-place forms have rows of their own).
const NOT_DIFFERENTIABLE: &[(&str, &str)] = &[
    // nn.init: in-place fills under no_grad, as torch.nn.init does (the random ones are
    // entries of the OpInfo table's random family)
    ("calculate_fan_in_and_fan_out", "init: shape arithmetic"),
    ("calculate_gain", "init: a number"),
    ("constant_", "init: fill under no_grad"),
    ("kaiming_normal_", "init: fill under no_grad"),
    ("kaiming_uniform_", "init: fill under no_grad"),
    ("xavier_normal_", "init: fill under no_grad"),
    ("xavier_uniform_", "init: fill under no_grad"),
    ("trunc_normal_", "init: fill under no_grad"),
    ("orthogonal_", "init: fill under no_grad"),
    ("eye_", "init: fill under no_grad"),
    ("dirac_", "init: fill under no_grad"),
    ("dirac_with_", "init: fill under no_grad"),
    ("sparse_", "init: fill under no_grad"),
    ("sparse_with_", "init: fill under no_grad"),
    // the optimizers' updates of one parameter, under no_grad as Optimizer.step runs them
    ("sgd_step_", "optim: update under no_grad"),
    ("adam_step_", "optim: update under no_grad"),
    // the random generator and the random ops (PyTorch's derivatives are zero; the ops with
    // an OpInfo entry, `tests/opinfo/random.rs`, are its `nograd`)
    ("manual_seed", "random generator"),
    ("seed", "random generator"),
    ("initial_seed", "random generator"),
    ("default_generator", "random generator"),
    ("get_rng_state", "random generator"),
    ("set_rng_state", "random generator"),
    ("binomial", "random"),
    (
        "sample_dirichlet",
        "random (its reparameterised gradient, _dirichlet_grad, is checked against PyTorch by random::samplers' unit tests and by Beta/Dirichlet rsample gradients in tests/distributions.rs)",
    ),
    (
        "standard_gamma",
        "random (its reparameterised gradient, _standard_gamma_grad, is checked against PyTorch by random::samplers' unit tests and by Gamma rsample gradients in tests/distributions.rs)",
    ),
    (
        "standard_gamma_grad",
        "the backward kernel of standard_gamma (PyTorch's _standard_gamma_grad is not differentiable either)",
    ),
    (
        "dirichlet_grad",
        "the backward kernel of sample_dirichlet (PyTorch's _dirichlet_grad is not differentiable either)",
    ),
    // `x_with_` reduces to `x` (not `x_`), so the in-place fills' option forms are listed
    ("random_with_", "random"),
    ("exponential_with_", "random"),
    ("geometric_with_", "random"),
    ("cauchy_with_", "random"),
    ("log_normal_with_", "random"),
    // nn.utils and modules: they act on .grad / make leaves, under no_grad
    ("clip_grad_norm_", "scales .grad in place under no_grad"),
    ("clip_grad_value_", "clamps .grad in place under no_grad"),
    (
        "clip_grad_norm_with_",
        "scales .grad in place under no_grad",
    ),
    ("parameter", "makes a leaf requiring grad"),
    // data out of and into tensile (copies, like .numpy() / from_numpy)
    ("to_ndarray", "data I/O"),
    ("from_ndarray", "data I/O (a new leaf)"),
    // autograd API and tensor metadata
    ("backward", "autograd"),
    ("detach", "autograd"),
    ("grad", "autograd"),
    ("grad_fn", "autograd"),
    ("grad_fn_checked", "autograd"),
    ("is_leaf", "autograd"),
    ("requires_grad", "autograd"),
    ("retain_grad", "autograd"),
    ("retains_grad", "autograd"),
    ("set_grad", "autograd"),
    ("shallow_alias", "autograd"),
    ("version", "autograd"),
    ("alias", "metadata"),
    ("data_ptr", "metadata"),
    ("dim", "metadata"),
    ("dtype", "metadata"),
    ("element_size", "metadata"),
    ("category", "metadata: promotion category"),
    ("storage", "metadata: the tensor's storage"),
    ("from_storage", "creation: a tensor over a storage"),
    ("to_le_bytes", "metadata: the elements' bytes"),
    ("is_contiguous", "metadata"),
    ("is_contiguous_channels_last", "metadata"),
    ("is_non_overlapping_and_dense", "metadata"),
    ("item", "metadata"),
    ("numel", "metadata"),
    ("shape", "metadata"),
    ("shares_storage", "metadata"),
    ("size", "metadata"),
    ("size_of", "metadata"),
    ("storage_nbytes", "metadata"),
    ("storage_offset", "metadata"),
    ("stride", "metadata"),
    ("stride_of", "metadata"),
    ("to_vec", "metadata"),
    ("try_to_vec", "metadata"),
    ("from_slice", "creation"),
    ("from_vec", "creation"),
    // creation
    ("empty", "creation"),
    ("scalar_tensor", "creation"),
    // integer / bool results
    ("all_dim", "integer"),
    ("any_dim", "integer"),
    ("argmax_dim", "index"),
    ("argmin_dim", "index"),
    ("count_nonzero_dim", "integer"),
    ("nonzero_as_tuple", "index"),
];

fn src_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The op a row checks: its name up to the first space (`"pow (number, tensor)"` → `pow`).
fn op_of(row_name: &str) -> &str {
    row_name.split(' ').next().unwrap_or(row_name)
}

/// Ops whose backward formula is still missing or wrong (issue 13 is open): their rows are
/// run and their failures printed, but they do not fail the test; a pending op whose rows all
/// pass fails the test until it is taken off this list, so the list only shrinks.
const PENDING: &[&str] = &[];

#[test]
fn gradcheck_every_op() {
    let filter = std::env::var("GRADCHECK_FILTER").ok();
    let table = gradcheck::rows::rows();
    let mut failures = Vec::new();
    let mut pending_failures: Vec<(&str, String)> = Vec::new();
    let mut pending_rows: Vec<&str> = Vec::new();
    let mut checked = 0;
    for (k, r) in table.iter().enumerate() {
        if filter
            .as_ref()
            .is_some_and(|f| !r.name.contains(f.as_str()))
        {
            continue;
        }
        let mut variants = vec![Variant::Contiguous];
        if r.inputs
            .iter()
            .any(|i| i.shape.iter().product::<usize>() > 1)
        {
            variants.push(Variant::NonContiguous);
        }
        if r.bcast.is_some() {
            variants.push(Variant::Broadcast);
        }
        let pending = PENDING.contains(&op_of(r.name));
        for v in variants {
            checked += 1;
            match check(r, v, 1000 + k as u64) {
                Err(e) if pending => pending_failures.push((op_of(r.name), e)),
                Err(e) => failures.push(e),
                Ok(()) => {}
            }
        }
        if pending {
            pending_rows.push(op_of(r.name));
        }
    }
    for e in &pending_failures {
        eprintln!("pending: {}", e.1);
    }
    if filter.is_none() {
        for op in PENDING {
            if !pending_rows.contains(op) {
                failures.push(format!("PENDING op {op} has no row in the table"));
            } else if !pending_failures.iter().any(|(o, _)| o == op) {
                failures.push(format!(
                    "PENDING op {op} passes every check: take it off the PENDING list"
                ));
            }
        }
    }
    eprintln!(
        "gradcheck: {} rows, {checked} checks, {} failed, {} failed in PENDING ops",
        table.len(),
        failures.len(),
        pending_failures.len()
    );
    if !failures.is_empty() {
        panic!(
            "{} of {checked} gradient checks failed:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
}

/// A derived form of `name`'s base op: in-place `x_`, `x_with`, `x_with_`, `x_out`, the
/// fallible `try_x`.
fn base_of(name: &str) -> Option<&str> {
    for suffix in ["_with_", "_with", "_out", "_"] {
        if let Some(b) = name.strip_suffix(suffix) {
            return Some(b);
        }
    }
    // `try_X`: the fallible form of `X`
    name.strip_prefix("try_")
}

#[test]
fn every_public_op_is_checked_or_listed() {
    let ops = gradcheck::coverage::public_ops(&src_dir());
    assert!(
        ops.len() > 400,
        "the source parser found only {} ops",
        ops.len()
    );
    let table = gradcheck::rows::rows();
    let rows: BTreeSet<&str> = table.iter().map(|r| op_of(r.name)).collect();
    let listed: BTreeSet<&str> = NOT_DIFFERENTIABLE
        .iter()
        .map(|(n, _)| *n)
        .chain(opinfo::all().filter(|i| i.nograd.is_some()).map(|i| i.name))
        .collect();
    let covered = |n: &str| rows.contains(n) || listed.contains(n);
    let mut missing = Vec::new();
    for (name, file) in &ops {
        let mut n = name.as_str();
        let mut ok = covered(n);
        while !ok && let Some(b) = base_of(n) {
            n = b;
            ok = covered(n);
        }
        if !ok {
            missing.push(format!("{name} (src/{file})"));
        }
    }
    // Stale entries: a listed or checked name that is no public op any more.
    let stale: Vec<&str> = listed
        .iter()
        .chain(rows.iter())
        .copied()
        .filter(|n| !ops.contains_key(*n))
        .collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "public ops neither in the gradcheck table nor in NOT_DIFFERENTIABLE ({}):\n{}\n\nnames in the table or the list that are no public op ({}):\n{}",
        missing.len(),
        missing.join("\n"),
        stale.len(),
        stale.join("\n")
    );
}

/// An OpInfo entry has gradient samples or a reason it has none, not both.
#[test]
fn opinfo_grad_or_nograd() {
    for i in opinfo::all() {
        assert!(
            i.grad.is_empty() || i.nograd.is_none(),
            "{}: samples and a nograd reason",
            i.name
        );
    }
}

/// The checker itself: it accepts a right gradient, names an op without a formula, and
/// lays out the non-contiguous variant as a strided view with the right values.
#[test]
fn the_checker_catches_what_it_should() {
    let good = row("mul", &[x(&[2, 3]), x(&[3])], |a| a[0].mul(&a[1]));
    assert_eq!(check(&good, Variant::Contiguous, 1), Ok(()));
    assert_eq!(check(&good, Variant::NonContiguous, 1), Ok(()));
    // detach() cuts the graph: the checker must call that a missing formula, by name
    let none = row("detached_op", &[x(&[2])], |a| a[0].detach().exp());
    let e = check(&none, Variant::Contiguous, 1).unwrap_err();
    assert!(e.starts_with("no backward formula: detached_op"), "{e}");
    // a wrong "gradient": the op's value depends on x, the graph says it does not
    let wrong = row("wrong_op", &[x(&[2])], |a| {
        a[0].mul(0.0)?.add(&a[0].detach().exp()?)
    });
    let e = check(&wrong, Variant::Contiguous, 1).unwrap_err();
    assert!(e.contains("wrong gradient"), "{e}");
    let t = make(&[1.0, 2.0, 3.0, 4.0], &[2, 2], Variant::NonContiguous).unwrap();
    assert!(!t.is_contiguous());
    assert_eq!(t.stride(), &[4, 2]);
    assert_eq!(t.to_vec::<f64>(), vec![1.0, 2.0, 3.0, 4.0]);
    let mut rng = Rng::new(3);
    assert!((0..100).all(|_| rng.uniform() < 1.0));
    let _ = Tensor::zeros([1]).unwrap();
}
