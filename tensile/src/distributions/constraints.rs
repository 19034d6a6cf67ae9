//! `torch.distributions.constraints`: the sets a parameter or a sample must lie in, with
//! PyTorch's `check` (elementwise, over the event dims) and `repr`.

use std::fmt;

use crate::Tensor;
use crate::error::{Error, ErrorKind, Result};

/// A constraint's bound: a Python number, as PyTorch prints it (`0.0`, `0`), or a tensor
/// (`Uniform`'s `Interval(lower_bound=tensor(0.), …)`).
#[derive(Clone, Debug)]
pub enum Bound {
    /// A Python float (`repr` `0.0`).
    Float(f64),
    /// A Python int (`repr` `0`).
    Int(i64),
    /// A tensor bound, broadcast against the value.
    Tensor(Tensor),
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bound::Float(x) => f.write_str(&crate::error::py_float(*x)),
            Bound::Int(i) => write!(f, "{i}"),
            // Python's f-string of a 0-d tensor is its item's (`0.0`), else the tensor.
            Bound::Tensor(t) if t.dim() == 0 && t.dtype().is_floating_point() => {
                let _g = crate::autograd::no_grad();
                f.write_str(&crate::error::py_float(t.item::<f64>().unwrap_or(f64::NAN)))
            }
            Bound::Tensor(t) => write!(f, "{t}"),
        }
    }
}

impl Bound {
    fn operand(&self) -> crate::Operand<'_> {
        match self {
            Bound::Float(x) => (*x).into(),
            Bound::Int(i) => (*i).into(),
            Bound::Tensor(t) => t.into(),
        }
    }
}

/// A `torch.distributions.constraints` object. `Display` is PyTorch's `repr`
/// (`GreaterThan(lower_bound=0.0)`, `IndependentConstraint(Real(), 1)`).
#[derive(Clone, Debug)]
pub enum Constraint {
    /// `constraints.real`: not NaN (`value == value`; infinities pass).
    Real,
    /// `constraints.boolean`: 0 or 1.
    Boolean,
    /// `constraints.greater_than(b)` (`positive` is `GreaterThan(0.0)`): `b < value`.
    GreaterThan(Bound),
    /// `constraints.greater_than_eq(b)` (`nonnegative`): `b <= value`.
    GreaterThanEq(Bound),
    /// `constraints.less_than(b)`: `value < b`.
    LessThan(Bound),
    /// `constraints.interval(a, b)` (`unit_interval` is `Interval(0.0, 1.0)`): `a <= value <= b`.
    Interval(Bound, Bound),
    /// `constraints.half_open_interval(a, b)`: `a <= value < b`.
    HalfOpenInterval(Bound, Bound),
    /// `constraints.integer_interval(a, b)`: an integer in `[a, b]`.
    IntegerInterval(Bound, Bound),
    /// `constraints.integer_greater_than(b)` (`nonnegative_integer` is
    /// `IntegerGreaterThan(0)`, `positive_integer` `IntegerGreaterThan(1)`): an integer `>= b`.
    IntegerGreaterThan(Bound),
    /// `constraints.simplex`: event dim 1; every entry `>= 0` and `|sum - 1| < 1e-6`.
    Simplex,
    /// `constraints.one_hot`: event dim 1; every entry 0 or 1 and the entries sum to 1.
    OneHot,
    /// `constraints.multinomial(n)`: event dim 1; every entry `>= 0` and the entries sum to
    /// at most `n` (PyTorch's weaker check; `repr` `Multinomial()`).
    Multinomial(Bound),
    /// `constraints.lower_cholesky`: event dim 2; lower triangular with a positive diagonal.
    LowerCholesky,
    /// `constraints.positive_definite`: event dim 2; symmetric with a Cholesky factor.
    PositiveDefinite,
    /// `constraints.independent(base, n)` (`real_vector` is `IndependentConstraint(Real(), 1)`):
    /// `base`, with its rightmost `n` batch dims reinterpreted as event dims (all must hold).
    Independent(Box<Constraint>, usize),
    /// `MixtureSameFamilyConstraint(base)`: `base` checked with the mixture's component dim
    /// added back (`value.unsqueeze(-1 - event_dim)`), all components must hold.
    MixtureSameFamily(Box<Constraint>),
    /// `constraints.dependent`: a parameter's constraint that depends on other parameters
    /// (never checked).
    Dependent,
}

/// `constraints.positive`: `GreaterThan(lower_bound=0.0)`.
pub const fn positive() -> Constraint {
    Constraint::GreaterThan(Bound::Float(0.0))
}

/// `constraints.nonnegative`: `GreaterThanEq(lower_bound=0.0)`.
pub const fn nonnegative() -> Constraint {
    Constraint::GreaterThanEq(Bound::Float(0.0))
}

/// `constraints.unit_interval`: `Interval(lower_bound=0.0, upper_bound=1.0)`.
pub const fn unit_interval() -> Constraint {
    Constraint::Interval(Bound::Float(0.0), Bound::Float(1.0))
}

/// `constraints.nonnegative_integer`: `IntegerGreaterThan(lower_bound=0)`.
pub const fn nonnegative_integer() -> Constraint {
    Constraint::IntegerGreaterThan(Bound::Int(0))
}

/// `constraints.real_vector`: `IndependentConstraint(Real(), 1)`.
pub fn real_vector() -> Constraint {
    Constraint::Independent(Box::new(Constraint::Real), 1)
}

impl Constraint {
    /// How many rightmost dims of a value make one event for this constraint
    /// (`constraint.event_dim`).
    pub fn event_dim(&self) -> usize {
        match self {
            Constraint::Simplex | Constraint::OneHot | Constraint::Multinomial(_) => 1,
            Constraint::LowerCholesky | Constraint::PositiveDefinite => 2,
            Constraint::Independent(base, n) => base.event_dim() + n,
            Constraint::MixtureSameFamily(base) => base.event_dim(),
            _ => 0,
        }
    }

    /// Whether the set is discrete (`constraint.is_discrete`).
    pub fn is_discrete(&self) -> bool {
        match self {
            Constraint::Boolean
            | Constraint::IntegerInterval(..)
            | Constraint::IntegerGreaterThan(_)
            | Constraint::OneHot
            | Constraint::Multinomial(_) => true,
            Constraint::Independent(base, _) | Constraint::MixtureSameFamily(base) => {
                base.is_discrete()
            }
            _ => false,
        }
    }

    /// `constraint.check(value)`: a bool tensor of `value`'s shape without its rightmost
    /// `event_dim` dims, true where the event satisfies the constraint.
    ///
    /// Errors: the ops' own (a tensor bound that does not broadcast); `Independent` over a
    /// value of too few dims: ValueError `Expected value.dim() >= 1 but got 0`;
    /// `PositiveDefinite` over a value of fewer than 2 dims: IndexError `tuple index out of
    /// range`.
    pub fn check(&self, value: &Tensor) -> Result<Tensor> {
        match self {
            Constraint::Real => value.eq(value),
            Constraint::Boolean => value.eq(0)?.logical_or(&value.eq(1)?),
            Constraint::GreaterThan(b) => value.gt(b.operand()),
            Constraint::GreaterThanEq(b) => value.ge(b.operand()),
            Constraint::LessThan(b) => value.lt(b.operand()),
            Constraint::Interval(a, b) => {
                value.ge(a.operand())?.logical_and(&value.le(b.operand())?)
            }
            Constraint::HalfOpenInterval(a, b) => {
                value.ge(a.operand())?.logical_and(&value.lt(b.operand())?)
            }
            Constraint::IntegerInterval(a, b) => is_integer(value)?
                .logical_and(&value.ge(a.operand())?)?
                .logical_and(&value.le(b.operand())?),
            Constraint::IntegerGreaterThan(b) => {
                is_integer(value)?.logical_and(&value.ge(b.operand())?)
            }
            Constraint::Simplex => {
                let nonneg = value.ge(0)?.all_dim(-1, false)?;
                let sum = value.sum_dim(-1, false)?.sub(1)?.abs()?.lt(1e-6)?;
                nonneg.logical_and(&sum)
            }
            Constraint::OneHot => {
                let is_boolean = value.eq(0)?.logical_or(&value.eq(1)?)?;
                let is_normalized = value.sum_dim(-1, false)?.eq(1)?;
                is_boolean.all_dim(-1, false)?.logical_and(&is_normalized)
            }
            Constraint::Multinomial(n) => value
                .ge(0)?
                .all_dim(-1, false)?
                .logical_and(&value.sum_dim(-1, false)?.le(n.operand())?),
            Constraint::LowerCholesky => {
                let n = value.dim();
                if n < 2 {
                    return Err(Error::runtime(
                        "tril: input tensor must have at least 2 dimensions".to_string(),
                    ));
                }
                let mut flat: Vec<i64> = value.size()[..n - 2].iter().map(|&s| s as i64).collect();
                flat.push(-1);
                let lower = value
                    .tril()?
                    .eq(value)?
                    .reshape(&flat)?
                    .all_dim(-1, false)?;
                let diag = value
                    .diagonal_with((0, -2, -1))?
                    .gt(0)?
                    .all_dim(-1, false)?;
                lower.logical_and(&diag)
            }
            Constraint::PositiveDefinite => {
                let sym = symmetric(value)?;
                if !sym.all()?.item::<bool>()? {
                    return Ok(sym);
                }
                crate::linalg::cholesky_ex(value)?.1.eq(0)
            }
            Constraint::Independent(base, n) => {
                let r = base.check(value)?;
                if r.dim() < *n {
                    return Err(Error::new(
                        ErrorKind::ValueError,
                        format!("Expected value.dim() >= {n} but got {}", value.dim()),
                    ));
                }
                let keep = r.dim() - n;
                let mut flat: Vec<i64> = r.size()[..keep].iter().map(|&s| s as i64).collect();
                flat.push(-1);
                r.reshape(&flat)?.all_dim(-1, false)
            }
            Constraint::MixtureSameFamily(base) => {
                let ed = base.event_dim();
                let r = base.check(&value.unsqueeze(-1 - ed as i64)?)?;
                if value.dim() < ed {
                    return Err(Error::new(
                        ErrorKind::ValueError,
                        format!("Expected value.dim() >= {ed} but got {}", value.dim()),
                    ));
                }
                let keep = value.dim() - ed;
                let mut flat: Vec<i64> = r.size()[..keep].iter().map(|&s| s as i64).collect();
                flat.push(-1);
                r.reshape(&flat)?.all_dim(-1, false)
            }
            Constraint::Dependent => Err(Error::new(
                ErrorKind::ValueError,
                "Cannot determine validity of dependent constraint",
            )),
        }
    }
}

/// `_Symmetric.check`: square (else all false over the batch dims), then `isclose(value,
/// value.mT, atol=1e-6)` (rtol 1e-5) over each matrix.
fn symmetric(value: &Tensor) -> Result<Tensor> {
    let n = value.dim();
    if n < 2 {
        return Err(Error::new(
            ErrorKind::IndexError,
            "tuple index out of range",
        ));
    }
    let batch = &value.size()[..n - 2];
    let square = value.size()[n - 2] == value.size()[n - 1];
    let sq = Tensor::full_with(batch, square, crate::dtype::DType::Bool)?;
    if !square {
        return Ok(sq);
    }
    let t = value.mT()?;
    // isclose(a, b): a == b, or |a - b| <= atol + rtol * |b| (finite), NaN never close.
    let close = value
        .sub(&t)?
        .abs()?
        .le(&t.abs()?.mul(1e-5)?.add(1e-6)?)?
        .logical_or(&value.eq(&t)?)?;
    close.all_dim(-2, false)?.all_dim(-1, false)
}

/// `value % 1 == 0` (PyTorch's integer check; true for every integer dtype).
fn is_integer(value: &Tensor) -> Result<Tensor> {
    value.remainder(1)?.eq(0)
}

impl fmt::Display for Constraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Constraint::Real => f.write_str("Real()"),
            Constraint::Boolean => f.write_str("Boolean()"),
            Constraint::GreaterThan(b) => write!(f, "GreaterThan(lower_bound={b})"),
            Constraint::GreaterThanEq(b) => write!(f, "GreaterThanEq(lower_bound={b})"),
            Constraint::LessThan(b) => write!(f, "LessThan(upper_bound={b})"),
            Constraint::Interval(a, b) => {
                write!(f, "Interval(lower_bound={a}, upper_bound={b})")
            }
            Constraint::HalfOpenInterval(a, b) => {
                write!(f, "HalfOpenInterval(lower_bound={a}, upper_bound={b})")
            }
            Constraint::IntegerInterval(a, b) => {
                write!(f, "IntegerInterval(lower_bound={a}, upper_bound={b})")
            }
            Constraint::IntegerGreaterThan(b) => {
                write!(f, "IntegerGreaterThan(lower_bound={b})")
            }
            Constraint::Simplex => f.write_str("Simplex()"),
            Constraint::OneHot => f.write_str("OneHot()"),
            Constraint::Multinomial(_) => f.write_str("Multinomial()"),
            Constraint::LowerCholesky => f.write_str("LowerCholesky()"),
            Constraint::PositiveDefinite => f.write_str("PositiveDefinite()"),
            Constraint::Independent(base, n) => write!(f, "IndependentConstraint({base}, {n})"),
            Constraint::MixtureSameFamily(base) => {
                write!(f, "MixtureSameFamilyConstraint({base})")
            }
            Constraint::Dependent => f.write_str("Dependent()"),
        }
    }
}
