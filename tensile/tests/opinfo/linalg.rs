//! Linear algebra (`torch.linalg`): `cholesky`, `cholesky_ex`, `solve_triangular`. The
//! matrix products are `matmul.rs`'s. Gradient samples pass their matrices through
//! wrappers as PyTorch's OpInfo `gradcheck_wrapper`s do: `x·xᵀ + I` for a positive-definite
//! input, `x + 3·I` for a well-conditioned triangular one (the triangle not read gets a zero
//! gradient both ways).

use super::{Adapter, Dom, OpInfo, P, Sample, Sig, pair};
use tensile::{Result, Tensor};

/// `x·xᵀ + I`: positive definite.
fn pos_def(x: &Tensor) -> Result<Tensor> {
    x.matmul(&x.mT()?)?.add(&Tensor::eye(order(x)?)?)
}

/// `x + 3·I`: a diagonal kept away from zero.
fn well_conditioned(x: &Tensor) -> Result<Tensor> {
    x.add(&Tensor::eye(order(x)?)?.mul(3)?)
}

/// The size of `x`'s last dim (the fuzzer hands the wrappers any tensor: an error below two
/// dims).
fn order(x: &Tensor) -> Result<i64> {
    match x.size() {
        [.., _, n] => Ok(*n as i64),
        _ => Err(tensile::Error::runtime(
            "opinfo: a matrix wrapper takes a matrix",
        )),
    }
}

const fn pd(shape: &'static [usize]) -> P {
    P::Wrap(Dom::Any, shape, pos_def)
}

const fn tri(shape: &'static [usize]) -> P {
    P::Wrap(Dom::Any, shape, well_conditioned)
}

pub static OPS: &[OpInfo] = &[
    OpInfo::new("linalg.cholesky", Sig::Other, |a| {
        tensile::linalg::cholesky_with(a.t(0), a.kw_bool("upper").unwrap_or(false))
    })
    .grad(&[Sample::new(&[pd(&[3, 3])]).named("cholesky")]),
    OpInfo::new_ret(
        "linalg.cholesky_ex",
        Sig::Other,
        Adapter::Ret(|a| {
            pair(tensile::linalg::cholesky_ex_with(
                a.t(0),
                a.kw_bool("upper").unwrap_or(false),
                a.kw_bool("check_errors").unwrap_or(false),
            ))
        }),
    )
    .grad(&[Sample::new(&[pd(&[2, 3, 3])])
        .kw(&[("upper", P::Bool(true))])
        .named("cholesky_ex")]),
    // `linalg.solve_triangular(A, B, *, upper, left=True, unitriangular=False)`
    OpInfo::new("linalg.solve_triangular", Sig::Other, |a| {
        tensile::linalg::solve_triangular_with(
            a.t(0),
            a.t(1),
            a.kw_bool("upper")
                .expect("opinfo: solve_triangular takes upper="),
            a.kw_bool("left").unwrap_or(true),
            a.kw_bool("unitriangular").unwrap_or(false),
        )
    })
    .grad(&[
        Sample::new(&[tri(&[3, 3]), P::T(Dom::Any, &[3, 2])])
            .kw(&[("upper", P::Bool(false))])
            .bcast(&[&[2, 3, 3], &[3, 2]])
            .named("solve_triangular"),
        Sample::new(&[tri(&[3, 3]), P::T(Dom::Any, &[2, 3])])
            .kw(&[("upper", P::Bool(true)), ("left", P::Bool(false))])
            .named("solve_triangular_with"),
    ]),
];
