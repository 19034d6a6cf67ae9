//! What every distribution shares: `broadcast_all`, parameter and sample validation with
//! PyTorch's texts, `repr`, `_extended_shape`, and the probs/logits conversions.

use crate::Operand;
use crate::Tensor;
use crate::autograd::no_grad;
use crate::dtype::DType;
use crate::error::{Error, ErrorKind, Result};

use super::Distribution;

/// `torch.distributions.utils.broadcast_all(*values)`: numbers become 0-d tensors of the
/// first tensor's dtype (float32 when every value is a number), then all broadcast to one
/// shape (views).
///
/// Errors: broadcasting's (`The size of tensor a (2) must match the size of tensor b (3) at
/// non-singleton dimension 0`).
pub fn broadcast_all(values: &[Operand<'_>]) -> Result<Vec<Tensor>> {
    let dtype = values
        .iter()
        .find_map(|v| match v {
            Operand::Tensor(t) => Some(t.dtype()),
            Operand::Scalar(_) => None,
        })
        .unwrap_or(DType::Float32);
    let owned: Vec<Tensor> = values
        .iter()
        .map(|v| match v {
            Operand::Tensor(t) => Ok((*t).clone()),
            Operand::Scalar(s) => Tensor::scalar_tensor_with(*s, dtype),
        })
        .collect::<Result<_>>()?;
    let refs: Vec<&Tensor> = owned.iter().collect();
    crate::broadcast_tensors(&refs)
}

/// Whether every operand is a number (PyTorch then gives `batch_shape` `()`).
pub(crate) fn all_numbers(values: &[&Operand<'_>]) -> bool {
    values.iter().all(|v| matches!(v, Operand::Scalar(_)))
}

/// Broadcasts two parameters as the constructors do (`broadcast_all`): `(a, b, batch_shape)`,
/// `batch_shape` `()` when both are numbers, else the broadcast shape.
pub(crate) fn two_params(a: Operand<'_>, b: Operand<'_>) -> Result<(Tensor, Tensor, Vec<usize>)> {
    let numbers = all_numbers(&[&a, &b]);
    let mut p = broadcast_all(&[a, b])?.into_iter();
    let (a, b) = (p.next().expect("two"), p.next().expect("two"));
    let batch = if numbers {
        Vec::new()
    } else {
        a.size().to_vec()
    };
    Ok((a, b, batch))
}

/// A `torch.Size` as Python prints it: `torch.Size([2, 3])`.
pub(crate) fn size_str(s: &[usize]) -> String {
    let inner: Vec<String> = s.iter().map(|d| d.to_string()).collect();
    format!("torch.Size([{}])", inner.join(", "))
}

/// A shape as a Python tuple: `()`, `(3,)`, `(2, 3)`.
pub(crate) fn tuple_str(s: &[usize]) -> String {
    match s.len() {
        0 => "()".into(),
        1 => format!("({},)", s[0]),
        _ => {
            let inner: Vec<String> = s.iter().map(|d| d.to_string()).collect();
            format!("({})", inner.join(", "))
        }
    }
}

/// `repr(d)`: `Name(p: value-or-size, …)`.
pub(crate) fn repr(d: &dyn Distribution) -> String {
    if let Some(s) = d.custom_repr() {
        return s;
    }
    let parts: Vec<String> = d
        .params()
        .iter()
        .map(|(name, t)| {
            if t.numel() == 1 {
                if t.dim() == 0 {
                    format!("{name}: {}", item_str(t))
                } else {
                    format!("{name}: {t}")
                }
            } else {
                format!("{name}: {}", size_str(t.size()))
            }
        })
        .collect();
    format!("{}({})", d.name(), parts.join(", "))
}

/// A tensor as a Python f-string prints it: a 0-d tensor as its item (`0.0`), else the
/// tensor's repr.
fn fstring(t: &Tensor) -> String {
    if t.dim() == 0 {
        item_str(t)
    } else {
        t.to_string()
    }
}

/// A 0-d tensor as Python's `format(t)` prints it: `t.item()`'s Python repr.
fn item_str(t: &Tensor) -> String {
    let _g = no_grad();
    match t.dtype() {
        DType::Bool => {
            if t.item::<bool>().unwrap_or(false) {
                "True".into()
            } else {
                "False".into()
            }
        }
        d if d.is_floating_point() => crate::error::py_float(t.item::<f64>().unwrap_or(f64::NAN)),
        _ => t.item::<i64>().map(|v| v.to_string()).unwrap_or_default(),
    }
}

/// The constructor's validation (`Distribution.__init__` with `validate_args`): every
/// parameter satisfies its constraint (dependent constraints skipped), in `arg_constraints`
/// order.
///
/// Errors: ValueError `Expected parameter scale (Tensor of shape (2,)) of distribution
/// Normal(loc: torch.Size([2]), scale: torch.Size([2])) to satisfy the constraint
/// GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([ 1., -1.])`.
pub(crate) fn validate_params(d: &dyn Distribution) -> Result<()> {
    validate_param_values(d, &d.params())
}

/// [`validate_params`] over the given `(name, value)` pairs: for the classes whose
/// parameters are properties (not in `__dict__`), which PyTorch validates but `repr` does
/// not print (`HalfNormal()`'s `scale`).
pub(crate) fn validate_param_values(d: &dyn Distribution, params: &[(&str, Tensor)]) -> Result<()> {
    if !d.validate_args() {
        return Ok(());
    }
    let _g = no_grad();
    for (name, c) in d.arg_constraints() {
        if matches!(c, super::Constraint::Dependent) {
            continue;
        }
        let Some((_, value)) = params.iter().find(|(n, _)| *n == name) else {
            continue;
        };
        if !all_true(&c.check(value)?)? {
            return Err(Error::new(
                ErrorKind::ValueError,
                format!(
                    "Expected parameter {name} (Tensor of shape {}) of distribution {} to satisfy the constraint {c}, but found invalid values:\n{}",
                    tuple_str(value.size()),
                    repr(d),
                    fstring(value)
                ),
            ));
        }
    }
    Ok(())
}

fn all_true(t: &Tensor) -> Result<bool> {
    t.all()?.item::<bool>()
}

/// `_validate_sample(value)` (what `log_prob`, `cdf` run first when validating): the value's
/// rightmost dims equal `event_shape`, the value broadcasts with `batch_shape + event_shape`,
/// and it lies in the support.
///
/// Errors (ValueError): `The right-most size of value must match event_shape:
/// torch.Size([2]) vs torch.Size([3]).`; `Value is not broadcastable with
/// batch_shape+event_shape: torch.Size([3]) vs torch.Size([2]).`; `Expected value argument
/// (Tensor of shape (1,)) to be within the support (Real()) of the distribution Normal(loc:
/// tensor([0.]), scale: tensor([1.])), but found invalid values:\ntensor([nan])`.
pub(crate) fn validate_sample(d: &dyn Distribution, value: &Tensor) -> Result<()> {
    let event = d.event_shape();
    let vs = value.size();
    let ok_event = vs.len() >= event.len() && vs[vs.len() - event.len()..] == event[..];
    if !ok_event {
        return Err(Error::new(
            ErrorKind::ValueError,
            format!(
                "The right-most size of value must match event_shape: {} vs {}.",
                size_str(vs),
                size_str(&event)
            ),
        ));
    }
    let mut expected = d.batch_shape();
    expected.extend_from_slice(&event);
    for (i, j) in vs.iter().rev().zip(expected.iter().rev()) {
        if *i != 1 && *j != 1 && i != j {
            return Err(Error::new(
                ErrorKind::ValueError,
                format!(
                    "Value is not broadcastable with batch_shape+event_shape: {} vs {}.",
                    size_str(vs),
                    size_str(&expected)
                ),
            ));
        }
    }
    let support = d.support()?;
    let _g = no_grad();
    if !all_true(&support.check(value)?)? {
        return Err(Error::new(
            ErrorKind::ValueError,
            format!(
                "Expected value argument (Tensor of shape {}) to be within the support ({support}) of the distribution {}, but found invalid values:\n{}",
                tuple_str(vs),
                repr(d),
                fstring(value)
            ),
        ));
    }
    Ok(())
}

/// `_extended_shape(sample_shape)`: `sample_shape + batch_shape + event_shape`.
pub(crate) fn extended_shape(d: &dyn Distribution, sample_shape: &[usize]) -> Vec<usize> {
    let mut s = sample_shape.to_vec();
    s.extend(d.batch_shape());
    s.extend(d.event_shape());
    s
}

#[allow(dead_code)] // used by the discrete distributions
/// `torch.distributions.utils.clamp_probs`: probs clamped to `[eps, 1 - eps]` with the
/// dtype's machine epsilon.
pub(crate) fn clamp_probs(probs: &Tensor) -> Result<Tensor> {
    let eps = probs.dtype().finfo()?.eps;
    probs.clamp(eps, 1.0 - eps)
}

#[allow(dead_code)]
/// `probs_to_logits(probs, is_binary)`: `log(p) - log1p(-p)` (binary) or `log(p)`, of the
/// clamped probs.
pub(crate) fn probs_to_logits(probs: &Tensor, is_binary: bool) -> Result<Tensor> {
    let p = clamp_probs(probs)?;
    if is_binary {
        p.log()?.sub(&p.neg()?.log1p()?)
    } else {
        p.log()
    }
}

#[allow(dead_code)]
/// `logits_to_probs(logits, is_binary)`: `sigmoid(logits)` (binary) or `softmax(logits, -1)`.
pub(crate) fn logits_to_probs(logits: &Tensor, is_binary: bool) -> Result<Tensor> {
    if is_binary {
        logits.sigmoid()
    } else {
        logits.softmax(-1)
    }
}

/// `as i64` shape for the view ops.
pub(crate) fn shape_i64(s: &[usize]) -> Vec<i64> {
    s.iter().map(|&d| d as i64).collect()
}
