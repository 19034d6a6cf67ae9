//! Pointwise ops (spec §9.1, §9.2): unary math and activations, binary arithmetic with
//! broadcasting (the engine's `sum_to` reduces broadcast operands), in-place-only nodes.
//!
//! Most derivatives are written elementwise in float64 by [`map_n`] (the inputs broadcast
//! together, the result cast to the gradient's dtype): one line per op.

use super::super::node::{Formula, Save};
use super::super::record::{Built, node, node_saving, record};
use super::g0;
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::Operand;
use crate::ops::binary::BinaryOp;
use crate::tensor::Tensor;

type Body = dyn Fn(&Tensor, &[Tensor]) -> Result<Vec<Option<Tensor>>> + Send + Sync;

/// A node whose formula is a closure of (upstream gradient, saved tensors).
pub(crate) struct Lambda {
    pub name: &'static str,
    pub f: Box<Body>,
}

impl Formula for Lambda {
    fn name(&self) -> &str {
        self.name
    }
    fn apply(&self, grads: &[Option<Tensor>], saved: &[Tensor]) -> Result<Vec<Option<Tensor>>> {
        (self.f)(g0(grads), saved)
    }
}

pub(crate) fn lam(
    name: &'static str,
    f: impl Fn(&Tensor, &[Tensor]) -> Result<Vec<Option<Tensor>>> + Send + Sync + 'static,
) -> Lambda {
    Lambda {
        name,
        f: Box::new(f),
    }
}

/// `f` applied elementwise (in float64) to `ts` broadcast together; the result in `dtype`.
/// Runs on the pointwise engine (TensorIterator's broadcast and output layout; operands are
/// converted to float64 in small blocks, the result rounded once to `dtype`).
pub(crate) fn map_n(
    ts: &[&Tensor],
    dtype: DType,
    f: impl Fn(&[f64]) -> f64 + Sync,
) -> Result<Tensor> {
    crate::ops::map::map_f64(ts, dtype, &f)
}

/// `g * d` with `d = f(saved…)` elementwise.
fn chain(
    g: &Tensor,
    s: &[&Tensor],
    f: impl Fn(&[f64]) -> f64 + Sync,
) -> Result<Vec<Option<Tensor>>> {
    let mut ts = vec![g];
    ts.extend_from_slice(s);
    Ok(vec![Some(map_n(&ts, g.dtype(), |v| v[0] * f(&v[1..]))?)])
}

/// `f(g, s)` in float32 on the pointwise engine when both are float32 (PyTorch computes
/// float gradients in float); `None` otherwise (the float64 [`chain`] then runs).
fn f32_chain(
    g: &Tensor,
    s: &Tensor,
    f: impl Fn(f32, f32) -> f32 + Sync,
) -> Result<Option<Vec<Option<Tensor>>>> {
    if g.dtype() != DType::Float32 || s.dtype() != DType::Float32 {
        return Ok(None);
    }
    Ok(Some(vec![Some(crate::ops::map::map2_f32(g, s, f)?)]))
}

/// The sign of `x` (0 at 0 and NaN): `abs`'s derivative.
pub(crate) fn sgn(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// A node saving the input `x`: `g · d(x)`.
pub(crate) fn in1(
    name: &'static str,
    x: &Tensor,
    f: impl Fn(f64) -> f64 + Send + Sync + 'static,
) -> Built {
    node_saving(
        lam(name, move |g, s| chain(g, &[&s[0]], |v| f(v[0]))),
        vec![Save::Input(x.alias())],
    )
}

/// A node saving the result `r`: `g · d(r)`.
pub(crate) fn out1(name: &'static str, f: impl Fn(f64) -> f64 + Send + Sync + 'static) -> Built {
    node_saving(
        lam(name, move |g, s| chain(g, &[&s[0]], |v| f(v[0]))),
        vec![Save::Output(0)],
    )
}

/// `relu` (`ReluBackward0`, the result saved): PyTorch's `threshold_backward(grad, result, 0)`,
/// `result <= 0 ? 0 : grad` (float32 computed in float32).
pub(crate) fn relu_node() -> Built {
    node_saving(
        lam("ReluBackward0", |g, s| {
            if let Some(r) = f32_chain(g, &s[0], |g, r| if r <= 0.0 { 0.0 } else { g })? {
                return Ok(r);
            }
            let t = map_n(
                &[g, &s[0]],
                g.dtype(),
                |v| if v[1] <= 0.0 { 0.0 } else { v[0] },
            )?;
            Ok(vec![Some(t)])
        }),
        vec![Save::Output(0)],
    )
}

/// exact `gelu` (`GeluBackward0`, the input saved): `g · (Φ(x) + x φ(x))`; float32 through
/// PyTorch's `GeluBackwardKernelImpl` (vectorised erf and exp).
pub(crate) fn gelu_node(x: &Tensor) -> Built {
    node_saving(
        lam("GeluBackward0", |g, s| {
            if g.dtype() == DType::Float32 && s[0].dtype() == DType::Float32 {
                return Ok(vec![Some(crate::ops::map::gelu_backward_f32(g, &s[0])?)]);
            }
            chain(g, &[&s[0]], |v| {
                let x = v[0];
                let cdf = 0.5 * (1.0 + libm::erf(x / std::f64::consts::SQRT_2));
                let pdf = (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt();
                cdf + x * pdf
            })
        }),
        vec![Save::Input(x.alias())],
    )
}

/// PyTorch's `calc_trigamma` in the arithmetic of `$t` (its `double` and `float` overloads).
macro_rules! calc_trigamma {
    ($(#[$doc:meta])* $name:ident, $t:ty, $pi:expr) => {
        $(#[$doc])*
        pub(crate) fn $name(x: $t) -> $t {
            let (mut x, mut sign, mut result): ($t, $t, $t) = (x, 1.0, 0.0);
            if x < 0.5 {
                sign = -1.0;
                let s = ($pi * x).sin();
                result -= ($pi * $pi) / (s * s);
                x = 1.0 - x;
            }
            for _ in 0..6 {
                result += 1.0 / (x * x);
                x += 1.0;
            }
            let ixx = 1.0 / (x * x);
            result += (1.0 + 1.0 / (2.0 * x) + ixx * (1.0 / 6.0 - ixx * (1.0 / 30.0 - ixx * (1.0 / 42.0)))) / x;
            sign * result
        }
    };
}

calc_trigamma!(
    /// `polygamma(1, x)`, the derivative of `digamma` (PyTorch's `DigammaBackward0`), as
    /// PyTorch's `calc_trigamma` computes it: below 0.5 the reflection `π²/sin²(πx)` minus the
    /// value at `1 - x` (so a pole gives `±π²/sin²(πx)` of `sin`'s residue there, e.g.
    /// 6.58e32 at -1, and `inf` at 0), then six steps of `ψ1(x) = ψ1(x + 1) + 1/x²` and the
    /// asymptotic series. [`trigamma_f32`] is its float32 form.
    trigamma, f64, std::f64::consts::PI
);

calc_trigamma!(
    /// [`trigamma`] in float32 arithmetic, as PyTorch's `calc_trigamma(float)` (a float32
    /// tensor's `DigammaBackward0`): `sin(π_f·x)` is not 0 at the poles, so -1 gives -1.3e15.
    trigamma_f32, f32, std::f32::consts::PI
);

/// A node saving the input `x`: `g · d(x)`, computed in float32 (`d32`) when `g` and `x`
/// are float32 (PyTorch's float kernels), else in float64 (`d`).
pub(crate) fn in1_typed(
    name: &'static str,
    x: &Tensor,
    d: impl Fn(f64) -> f64 + Send + Sync + 'static,
    d32: impl Fn(f32) -> f32 + Send + Sync + 'static,
) -> Built {
    node_saving(
        lam(name, move |g, s| {
            if let Some(r) = f32_chain(g, &s[0], |g, x| g * d32(x))? {
                return Ok(r);
            }
            chain(g, &[&s[0]], |v| d(v[0]))
        }),
        vec![Save::Input(x.alias())],
    )
}

/// `logit(x, eps)` (`LogitBackward0`, the input saved), PyTorch's `logit_backward` kernel:
/// without `eps`, NaN outside `[0, 1]`, `g·inf` at 0 and 1 (either sign of zero), else
/// `g / (x (1 - x))`; with `eps`, 0 outside `[eps, 1 - eps]`.
pub(crate) fn logit(x: &Tensor, eps: Option<f64>) -> Built {
    in1("LogitBackward0", x, move |x| match eps {
        None if !(0.0..=1.0).contains(&x) => f64::NAN,
        None if x == 0.0 || x == 1.0 => f64::INFINITY,
        Some(e) if x < e || x > 1.0 - e => 0.0,
        _ => 1.0 / (x * (1.0 - x)),
    })
}

/// Records a binary op of `ops::binary` (`add`, `mul`, `pow`, …); `b` a tensor or a
/// Python scalar (which gets no gradient; `mul`/`div`/`pow` save it, as PyTorch's wrapped
/// number).
pub(crate) fn binary(op: BinaryOp, out: Tensor, a: &Tensor, b: Operand<'_>) -> Result<Tensor> {
    if !operands_require_grad(a, &b) {
        return Ok(out);
    }
    use BinaryOp::*;
    if op == Remainder {
        return binary_fn(
            (
                "RemainderBackward1",
                "RemainderBackward0",
                "RemainderBackward0",
            ),
            out,
            Operand::Tensor(a),
            b,
            d_remainder,
        );
    }
    // borrowed, and the inputs on the stack: this runs for every recorded op (the
    // recording-overhead benchmark is a chain of these)
    let bt = b.as_tensor();
    let bt: &Tensor = &bt;
    let b_is_tensor = matches!(b, Operand::Tensor(_));
    let both = [a, bt];
    let ins: &[&Tensor] = if b_is_tensor { &both } else { &both[..1] };
    let (ra, rb) = (a.requires_grad(), b_is_tensor && bt.requires_grad());
    record(out, ins, || {
        let two = move |ga: Option<Tensor>, gb: Option<Tensor>| -> Vec<Option<Tensor>> {
            if b_is_tensor { vec![ga, gb] } else { vec![ga] }
        };
        // saved inputs are made only by the formulas that keep them
        let sa = || Save::Input(a.alias());
        let sb = || Save::Input(bt.alias());
        match op {
            Add => node(lam("AddBackward0", move |g, _| {
                Ok(two(Some(g.alias()), Some(g.alias())))
            })),
            Sub => node(lam("SubBackward0", move |g, _| {
                Ok(two(Some(g.alias()), Some(g.neg()?)))
            })),
            Mul => node_saving(
                lam("MulBackward0", move |g, s| {
                    Ok(two(
                        if ra { Some(g.mul(&s[1])?) } else { None },
                        if rb { Some(g.mul(&s[0])?) } else { None },
                    ))
                }),
                vec![
                    if rb { sa() } else { Save::Skip },
                    if ra { sb() } else { Save::Skip },
                ],
            ),
            Div => node_saving(
                lam("DivBackward0", move |g, s| {
                    Ok(two(
                        if ra { Some(g.div(&s[1])?) } else { None },
                        if rb {
                            Some(map_n(&[g, &s[0], &s[1]], g.dtype(), |v| {
                                -v[0] * v[1] / (v[2] * v[2])
                            })?)
                        } else {
                            None
                        },
                    ))
                }),
                vec![if rb { sa() } else { Save::Skip }, sb()],
            ),
            Pow if !b_is_tensor => node_saving(
                lam("PowBackward0", move |g, s| {
                    let e = s[1].item::<f64>()?;
                    chain(g, &[&s[0]], |v| {
                        if e == 0.0 {
                            0.0
                        } else {
                            e * v[0].powf(e - 1.0)
                        }
                    })
                }),
                vec![sa(), sb()],
            ),
            Pow => node_saving(
                lam("PowBackward1", move |g, s| {
                    let ga = if ra {
                        Some(map_n(&[g, &s[0], &s[1]], g.dtype(), |v| {
                            if v[2] == 0.0 {
                                0.0
                            } else {
                                v[0] * v[2] * v[1].powf(v[2] - 1.0)
                            }
                        })?)
                    } else {
                        None
                    };
                    let gb = if rb {
                        Some(map_n(&[g, &s[0], &s[1]], g.dtype(), |v| {
                            if v[1] == 0.0 && v[2] >= 0.0 {
                                0.0
                            } else {
                                v[0] * v[1].powf(v[2]) * v[1].ln()
                            }
                        })?)
                    } else {
                        None
                    };
                    Ok(two(ga, gb))
                }),
                vec![sa(), sb()],
            ),
            Maximum | Minimum => {
                let max = op == Maximum;
                node_saving(
                    lam(
                        if max {
                            "MaximumBackward0"
                        } else {
                            "MinimumBackward0"
                        },
                        move |g, s| {
                            let w = move |x: f64, y: f64| -> f64 {
                                if x.is_nan() || y.is_nan() {
                                    1.0
                                } else if x == y {
                                    0.5
                                } else if (x > y) == max {
                                    1.0
                                } else {
                                    0.0
                                }
                            };
                            let ga =
                                map_n(&[g, &s[0], &s[1]], g.dtype(), |v| v[0] * w(v[1], v[2]))?;
                            let gb =
                                map_n(&[g, &s[0], &s[1]], g.dtype(), |v| v[0] * w(v[2], v[1]))?;
                            Ok(two(Some(ga), Some(gb)))
                        },
                    ),
                    vec![sa(), sb()],
                )
            }
            Atan2 => node_saving(
                lam("Atan2Backward0", move |g, s| {
                    let d = |x: f64, y: f64| x * x + y * y;
                    let ga = map_n(&[g, &s[0], &s[1]], g.dtype(), |v| {
                        if d(v[1], v[2]) == 0.0 {
                            0.0
                        } else {
                            v[0] * v[2] / d(v[1], v[2])
                        }
                    })?;
                    let gb = map_n(&[g, &s[0], &s[1]], g.dtype(), |v| {
                        if d(v[1], v[2]) == 0.0 {
                            0.0
                        } else {
                            -v[0] * v[1] / d(v[1], v[2])
                        }
                    })?;
                    Ok(two(Some(ga), Some(gb)))
                }),
                vec![sa(), sb()],
            ),
            FloorDivide => node(lam("NotImplemented", |_, _| {
                Err(crate::error::Error::runtime(
                    "derivative for aten::floor_divide is not implemented",
                ))
            })),
            // recorded by `binary_fn` above; bool and integer outputs: `record` never reaches
            // a node for them
            Remainder | Eq | Ne | Lt | Le | Gt | Ge | LogicalAnd | LogicalOr | LogicalXor
            | BitwiseAnd | BitwiseOr | BitwiseXor => {
                node(lam("NotImplemented", |_, _| Ok(vec![None, None])))
            }
        }
    })
}

/// `add(a, b, alpha)` / `sub(a, b, alpha)`: `g`, `±alpha·g`.
pub(crate) fn add_alpha(
    out: Tensor,
    a: &Tensor,
    b: Operand<'_>,
    alpha: f64,
    sub: bool,
) -> Result<Tensor> {
    if !operands_require_grad(a, &b) {
        return Ok(out);
    }
    let bt = b.to_tensor();
    let is_t = matches!(b, Operand::Tensor(_));
    let ins: Vec<&Tensor> = if is_t { vec![a, &bt] } else { vec![a] };
    record(out, &ins, || {
        node(lam(
            if sub { "SubBackward0" } else { "AddBackward0" },
            move |g, _| {
                let k = if sub { -alpha } else { alpha };
                Ok(if is_t {
                    vec![Some(g.alias()), Some(g.mul(k)?)]
                } else {
                    vec![Some(g.alias())]
                })
            },
        ))
    })
}

/// In-place ops that overwrite every element (`zero_` → `ZeroBackward0`, `fill_` →
/// `FillBackward2`): `self`'s previous value gets a zero gradient.
pub(crate) fn zero_node(name: &'static str, old: &Tensor) -> Result<Tensor> {
    super::super::record::token(old, &[old], || {
        node(lam(name, |g, _| Ok(vec![Some(Tensor::zeros_like(g)?)])))
    })
}

/// `self.copy_(src)` (`torch::autograd::CopyBackwards`): zero for `self`'s previous value,
/// `g` for `src` (summed to its shape and cast to its dtype by the engine).
pub(crate) fn copy_node(old: &Tensor, src: &Tensor) -> Result<Tensor> {
    super::super::record::token(old, &[old, src], || {
        node(lam("torch::autograd::CopyBackwards", |g, _| {
            Ok(vec![Some(Tensor::zeros_like(g)?), Some(g.alias())])
        }))
    })
}

/// Whether `a` or a tensor `b` requires grad (a number operand never does): the early return
/// of the binary formulas, before `b` is turned into a tensor.
fn operands_require_grad(a: &Tensor, b: &Operand<'_>) -> bool {
    crate::autograd::api::any_requires_grad(&[a])
        || matches!(b, Operand::Tensor(t) if crate::autograd::api::any_requires_grad(&[t]))
}

fn opt_tensor(o: Option<Operand<'_>>) -> Option<Tensor> {
    match o {
        Some(Operand::Tensor(t)) => Some(t.alias()),
        _ => None,
    }
}

fn opt_scalar(o: Option<Operand<'_>>) -> Option<f64> {
    match o {
        Some(Operand::Scalar(s)) => Some(s.to_f64()),
        _ => None,
    }
}

/// `clamp(x, min, max)`: number bounds (`ClampBackward1`): `g` where `lo < x < hi`
/// strictly; tensor bounds (`ClampBackward0`): spec §9.2's table, ties split 0.5.
pub(crate) fn clamp(
    out: Tensor,
    x: &Tensor,
    min: Option<Operand<'_>>,
    max: Option<Operand<'_>>,
) -> Result<Tensor> {
    clamp_named(out, x, min, max, ["ClampBackward1", "ClampBackward0"])
}

/// [`clamp`] with its nodes named `names` = [number bounds, tensor bounds], as PyTorch names
/// each overload: `clamp_min(x, number)` is `ClampMinBackward0` and `clamp_min(x, tensor)`
/// `ClampMinBackward1` (likewise `clamp_max`). The rules are `clamp`'s: strict for number
/// bounds (`g` where `x > min`, resp. `x < max`), ties split 0.5 for tensor bounds.
pub(crate) fn clamp_named(
    out: Tensor,
    x: &Tensor,
    min: Option<Operand<'_>>,
    max: Option<Operand<'_>>,
    names: [&'static str; 2],
) -> Result<Tensor> {
    let [name, tensor_name] = names;
    let (tlo, thi) = (opt_tensor(min), opt_tensor(max));
    if tlo.is_none() && thi.is_none() {
        let lo = opt_scalar(min).unwrap_or(f64::NEG_INFINITY);
        let hi = opt_scalar(max).unwrap_or(f64::INFINITY);
        return record(out, &[x], || {
            in1(name, x, move |v| if v > lo && v < hi { 1.0 } else { 0.0 })
        });
    }
    let slo = opt_scalar(min);
    let shi = opt_scalar(max);
    let mut ins: Vec<&Tensor> = vec![x];
    if let Some(t) = &tlo {
        ins.push(t);
    }
    if let Some(t) = &thi {
        ins.push(t);
    }
    let (has_lo, has_hi) = (tlo.is_some(), thi.is_some());
    let mut saves = vec![Save::Input(x.alias())];
    for t in ins.iter().skip(1) {
        saves.push(Save::Input(t.alias()));
    }
    record(out, &ins, || {
        node_saving(
            lam(tensor_name, move |g, s| {
                let lo_t = if has_lo { Some(&s[1]) } else { None };
                let hi_t = if has_hi {
                    Some(&s[if has_lo { 2 } else { 1 }])
                } else {
                    None
                };
                // weights (x, lo, hi) for one element
                let w = |x: f64, lo: Option<f64>, hi: Option<f64>| -> (f64, f64, f64) {
                    match (lo, hi) {
                        (Some(l), Some(h)) if l > h => (0.0, 0.0, 1.0),
                        (Some(l), Some(h)) if l == h => {
                            if x < l {
                                (0.0, 1.0, 0.0)
                            } else if x > h {
                                (0.0, 0.0, 1.0)
                            } else {
                                (1.0, 0.0, 0.0)
                            }
                        }
                        _ => {
                            let (mut wx, mut wl, mut wh) = (1.0, 0.0, 0.0);
                            if let Some(l) = lo {
                                if x < l {
                                    wx = 0.0;
                                    wl = 1.0;
                                } else if x == l {
                                    wx = 0.5;
                                    wl = 0.5;
                                }
                            }
                            if let Some(h) = hi {
                                if x > h {
                                    wx = 0.0;
                                    wh = 1.0;
                                } else if x == h {
                                    wx = 0.5;
                                    wh = 0.5;
                                }
                            }
                            (wx, wl, wh)
                        }
                    }
                };
                let zero = Tensor::zeros_like(&s[0])?;
                let lo_v = lo_t.unwrap_or(&zero);
                let hi_v = hi_t.unwrap_or(&zero);
                let f = |k: usize| {
                    map_n(&[g, &s[0], lo_v, hi_v], g.dtype(), move |v| {
                        let lo = if has_lo { Some(v[2]) } else { slo };
                        let hi = if has_hi { Some(v[3]) } else { shi };
                        let (a, b, c) = w(v[1], lo, hi);
                        v[0] * [a, b, c][k]
                    })
                };
                let mut r = vec![Some(f(0)?)];
                if has_lo {
                    r.push(Some(f(1)?));
                }
                if has_hi {
                    r.push(Some(f(2)?));
                }
                Ok(r)
            }),
            saves,
        )
    })
}

/// `masked_fill(x, mask, value)` (`MaskedFillBackward0`/`1`): `g` zeroed where `mask`; a
/// tensor `value` gets `Σ g[mask]`.
pub(crate) fn masked_fill(
    out: Tensor,
    x: &Tensor,
    mask: &Tensor,
    value: Operand<'_>,
) -> Result<Tensor> {
    let vt = opt_tensor(Some(value));
    let mut ins = vec![x];
    if let Some(v) = &vt {
        ins.push(v);
    }
    let has_v = vt.is_some();
    let m = mask.alias();
    record(out, &ins, || {
        node_saving(
            lam(
                if has_v {
                    "MaskedFillBackward1"
                } else {
                    "MaskedFillBackward0"
                },
                move |g, s| {
                    let gx = map_n(
                        &[g, &s[0]],
                        g.dtype(),
                        |v| if v[1] != 0.0 { 0.0 } else { v[0] },
                    )?;
                    let mut r = vec![Some(gx)];
                    if has_v {
                        let gv =
                            map_n(
                                &[g, &s[0]],
                                g.dtype(),
                                |v| if v[1] != 0.0 { v[0] } else { 0.0 },
                            )?
                            .sum()?;
                        r.push(Some(gv));
                    }
                    Ok(r)
                },
            ),
            vec![Save::Input(m)],
        )
    })
}

/// `addcmul(x, t1, t2, value)` (`AddcmulBackward0`): `g`, `g·t2·v`, `g·t1·v`.
pub(crate) fn addcmul(
    out: Tensor,
    x: &Tensor,
    t1: &Tensor,
    t2: &Tensor,
    value: f64,
) -> Result<Tensor> {
    record(out, &[x, t1, t2], || {
        node_saving(
            lam("AddcmulBackward0", move |g, s| {
                Ok(vec![
                    Some(g.alias()),
                    Some(map_n(&[g, &s[1]], g.dtype(), |v| v[0] * v[1] * value)?),
                    Some(map_n(&[g, &s[0]], g.dtype(), |v| v[0] * v[1] * value)?),
                ])
            }),
            vec![Save::Input(t1.alias()), Save::Input(t2.alias())],
        )
    })
}

/// `lerp(x, end, w)`: `LerpBackward0` (number `w`: `g(1-w)`, `g·w`), `LerpBackward1`
/// (tensor `w`, which also gets `g(end - x)`).
pub(crate) fn lerp(out: Tensor, x: &Tensor, end: &Tensor, w: Operand<'_>) -> Result<Tensor> {
    match w {
        Operand::Scalar(s) => {
            let w = s.to_f64();
            record(out, &[x, end], || {
                node(lam("LerpBackward0", move |g, _| {
                    Ok(vec![Some(g.mul(1.0 - w)?), Some(g.mul(w)?)])
                }))
            })
        }
        Operand::Tensor(wt) => record(out, &[x, end, wt], || {
            node_saving(
                lam("LerpBackward1", |g, s| {
                    Ok(vec![
                        Some(map_n(&[g, &s[2]], g.dtype(), |v| v[0] * (1.0 - v[1]))?),
                        Some(map_n(&[g, &s[2]], g.dtype(), |v| v[0] * v[1])?),
                        Some(map_n(&[g, &s[0], &s[1]], g.dtype(), |v| {
                            v[0] * (v[2] - v[1])
                        })?),
                    ])
                }),
                vec![
                    Save::Input(x.alias()),
                    Save::Input(end.alias()),
                    Save::Input(wt.alias()),
                ],
            )
        }),
    }
}

/// `where(cond, a, b)` (`WhereBackward0`): `g` where `cond` to `a`, elsewhere to `b`.
pub(crate) fn where_(out: Tensor, cond: &Tensor, a: Operand<'_>, b: Operand<'_>) -> Result<Tensor> {
    let (at, bt) = (opt_tensor(Some(a)), opt_tensor(Some(b)));
    let mut ins = Vec::new();
    if let Some(t) = &at {
        ins.push(t);
    }
    if let Some(t) = &bt {
        ins.push(t);
    }
    let (ha, hb) = (at.is_some(), bt.is_some());
    let c = cond.alias();
    record(out, &ins, || {
        node_saving(
            lam("WhereBackward0", move |g, s| {
                let mut r = Vec::new();
                if ha {
                    r.push(Some(map_n(&[g, &s[0]], g.dtype(), |v| {
                        if v[1] != 0.0 { v[0] } else { 0.0 }
                    })?));
                }
                if hb {
                    r.push(Some(map_n(&[g, &s[0]], g.dtype(), |v| {
                        if v[1] != 0.0 { 0.0 } else { v[0] }
                    })?));
                }
                Ok(r)
            }),
            vec![Save::Input(c)],
        )
    })
}

/// `div(a, b, rounding_mode=…)` (`DivBackward2`): zero gradients.
pub(crate) fn div_rounding(out: Tensor, a: &Tensor, b: Operand<'_>) -> Result<Tensor> {
    if !operands_require_grad(a, &b) {
        return Ok(out);
    }
    let bt = b.to_tensor();
    let is_t = matches!(b, Operand::Tensor(_));
    let ins: Vec<&Tensor> = if is_t { vec![a, &bt] } else { vec![a] };
    record(out, &ins, || {
        node(lam("DivBackward2", move |g, _| {
            let z = Some(Tensor::zeros_like(g)?);
            Ok(if is_t { vec![z.clone(), z] } else { vec![z] })
        }))
    })
}

/// The elementwise derivatives of a two-operand function `f(a, b)`: `(∂f/∂a, ∂f/∂b)` at
/// `(a, b, r)`.
pub(crate) type D2 = fn(f64, f64, f64) -> (f64, f64);

/// Records a two-operand function whose operands may be Python numbers (which get no
/// gradient): `names` = (tensor-tensor, tensor-number, number-tensor) node names.
pub(crate) fn binary_fn(
    names: (&'static str, &'static str, &'static str),
    out: Tensor,
    a: Operand<'_>,
    b: Operand<'_>,
    d: D2,
) -> Result<Tensor> {
    let req = |o: Operand<'_>| matches!(o, Operand::Tensor(t) if crate::autograd::api::any_requires_grad(&[t]));
    if !req(a) && !req(b) {
        return Ok(out);
    }
    let (at, bt) = (a.to_tensor(), b.to_tensor());
    let (ta, tb) = (
        matches!(a, Operand::Tensor(_)),
        matches!(b, Operand::Tensor(_)),
    );
    let mut ins = Vec::new();
    if ta {
        ins.push(&at);
    }
    if tb {
        ins.push(&bt);
    }
    let name = match (ta, tb) {
        (true, true) => names.0,
        (true, false) => names.1,
        _ => names.2,
    };
    record(out, &ins, || {
        node_saving(
            lam(name, move |g, s| {
                let mut r = Vec::new();
                if ta {
                    r.push(Some(map_n(&[g, &s[0], &s[1], &s[2]], g.dtype(), |v| {
                        v[0] * d(v[1], v[2], v[3]).0
                    })?));
                }
                if tb {
                    r.push(Some(map_n(&[g, &s[0], &s[1], &s[2]], g.dtype(), |v| {
                        v[0] * d(v[1], v[2], v[3]).1
                    })?));
                }
                Ok(r)
            }),
            vec![
                Save::Input(at.alias()),
                Save::Input(bt.alias()),
                Save::Output(0),
            ],
        )
    })
}

/// `remainder`: `∂/∂a = 1`, `∂/∂b = -div(a, b, rounding_mode='floor')`.
pub(crate) fn d_remainder(a: f64, b: f64, _: f64) -> (f64, f64) {
    (1.0, -div_floor(a, b))
}

/// `div(a, b, rounding_mode='floor')` as PyTorch's `div_floor_floating` computes it (from
/// `fmod`, so an infinite `a` gives NaN, not `floor(inf) = inf`; `b = 0` gives `a / b`).
fn div_floor(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        return a / b;
    }
    let m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
        div -= 1.0;
    }
    if div != 0.0 {
        let mut f = div.floor();
        if div - f > 0.5 {
            f += 1.0;
        }
        f
    } else {
        0.0f64.copysign(a / b)
    }
}

/// An op without a derivative in PyTorch (`heaviside`): recorded when an operand requires
/// grad, as PyTorch's `NotImplemented` node, whose backward fails with `derivative for
/// aten::NAME is not implemented` (RuntimeError).
pub(crate) fn not_implemented_fn(
    name: &'static str,
    out: Tensor,
    a: Operand<'_>,
    b: Operand<'_>,
) -> Result<Tensor> {
    let ins: Vec<Tensor> = [a, b]
        .into_iter()
        .filter_map(|o| match o {
            Operand::Tensor(t) => Some(t.alias()),
            Operand::Scalar(_) => None,
        })
        .collect();
    let refs: Vec<&Tensor> = ins.iter().collect();
    record(out, &refs, || {
        node(lam("NotImplemented", move |_, _| {
            Err(crate::error::Error::runtime(format!(
                "derivative for aten::{name} is not implemented"
            )))
        }))
    })
}

/// Records an activation of `optable::activation` with its derivative `d(x)` (the input saved).
pub(crate) fn act(
    name: &'static str,
    out: Tensor,
    x: &Tensor,
    d: impl Fn(f64) -> f64 + Send + Sync + 'static,
) -> Result<Tensor> {
    record(out, &[x], || in1(name, x, d))
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// `mish`'s derivative: `tanh(sp) + x·σ(x)·(1 - tanh(sp)²)`, `sp = softplus(x)`.
pub(crate) fn d_mish(x: f64) -> f64 {
    let sp = if x > 20.0 { x } else { x.exp().ln_1p() };
    let t = sp.tanh();
    t + x * sigmoid(x) * (1.0 - t * t)
}

/// `softplus(β, threshold)`'s derivative.
pub(crate) fn d_softplus(beta: f64, th: f64) -> impl Fn(f64) -> f64 + Send + Sync + 'static {
    move |x| {
        if beta * x > th {
            1.0
        } else {
            sigmoid(beta * x)
        }
    }
}

/// `gelu(approximate='tanh')`'s derivative.
pub(crate) fn d_gelu_tanh(x: f64) -> f64 {
    let k = (2.0 / std::f64::consts::PI).sqrt();
    let inner = k * (x + 0.044715 * x * x * x);
    let t = inner.tanh();
    0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * k * (1.0 + 3.0 * 0.044715 * x * x)
}

/// `pow(s, y)` with a number base (`PowBackward2`): `g·r·ln(s)`, 0 where `s == 0 && y >= 0`.
pub(crate) fn pow_scalar_base(out: Tensor, s: f64, y: &Tensor) -> Result<Tensor> {
    record(out, &[y], || {
        node_saving(
            lam("PowBackward2", move |g, sv| {
                chain(g, &[&sv[0], &sv[1]], |v| {
                    if s == 0.0 && v[0] >= 0.0 {
                        0.0
                    } else {
                        v[1] * s.ln()
                    }
                })
            }),
            vec![Save::Input(y.alias()), Save::Output(0)],
        )
    })
}

#[cfg(test)]
mod tests {
    use crate::{Tensor, no_grad};

    fn leaf(v: &[f64]) -> Tensor {
        let t = Tensor::from_vec(v.to_vec(), [v.len()]).unwrap();
        t.requires_grad_(true).unwrap();
        t
    }

    /// `DigammaBackward0` is `polygamma(1, x)`: PyTorch 2.15's values, across the
    /// recurrence, the reflection (negative x) and the asymptotic series.
    #[test]
    fn trigamma_matches_pytorch_polygamma_1() {
        for (x, want) in [
            (0.7, 2.834049157861975),
            (-1.3, 14.53687624396439),
            (2.5, 0.4903577562398206),
        ] {
            let got = super::trigamma(x);
            assert!(
                (got - want).abs() <= 1e-12 * want.abs(), // PyTorch's own algorithm
                "{x}: {got} vs {want}"
            );
        }
        let x = leaf(&[0.7, -1.3, 2.5]);
        let y = x.digamma().unwrap();
        assert_eq!(y.grad_fn().unwrap().name(), "DigammaBackward0");
        assert_eq!(
            x.lgamma().unwrap().grad_fn().unwrap().name(),
            "LgammaBackward0"
        );
    }

    /// `clamp_min`/`clamp_max` with a number: their own node names (not `ClampBackward1`)
    /// and the strict rule: no gradient at the bound (PyTorch 2.15: `[0, 0, 1]` for
    /// `clamp_min([0, 1, 2], 1.0)`).
    #[test]
    fn clamp_min_max_names_and_strict_bound() {
        let x = leaf(&[0.0, 1.0, 2.0]);
        let y = x.clamp_min(1.0).unwrap();
        assert_eq!(y.grad_fn().unwrap().name(), "ClampMinBackward0");
        y.sum().unwrap().backward().unwrap();
        assert_eq!(x.grad().unwrap().to_vec::<f64>(), vec![0.0, 0.0, 1.0]);
        let x = leaf(&[0.0, 1.0, 2.0]);
        let y = x.clamp_max(1.0).unwrap();
        assert_eq!(y.grad_fn().unwrap().name(), "ClampMaxBackward0");
        y.sum().unwrap().backward().unwrap();
        assert_eq!(x.grad().unwrap().to_vec::<f64>(), vec![1.0, 0.0, 0.0]);
    }

    #[test]
    fn mul_backward_and_version_counter() {
        let a = leaf(&[1.0, 2.0, 3.0]);
        let y = a.mul(&a).unwrap();
        assert_eq!(y.grad_fn().unwrap().name(), "MulBackward0");
        y.sum().unwrap().backward().unwrap();
        assert_eq!(a.grad().unwrap().to_vec::<f64>(), [2.0, 4.0, 6.0]);
        // a saved tensor modified in place: PyTorch's error
        let y = a.exp().unwrap();
        let v = y.version();
        y.add_(1.0).unwrap();
        assert_eq!(y.version(), v + 1);
        let e = y.sum().unwrap().backward().unwrap_err();
        assert!(
            e.message()
                .contains("which is output 0 of Exp, is at version 1; expected version 0")
        );
    }

    #[test]
    fn leaf_inplace_refused_and_no_grad() {
        let a = leaf(&[1.0, 2.0]);
        let e = a.add_(1.0).unwrap_err();
        assert_eq!(
            e.message(),
            "a leaf Variable that requires grad is being used in an in-place operation."
        );
        {
            let _g = no_grad();
            a.add_(1.0).unwrap();
            assert!(a.mul(2.0).unwrap().grad_fn().is_none());
        }
        assert_eq!(a.version(), 1);
    }

    #[test]
    fn copy_slices_through_a_view() {
        let a = leaf(&[1.0, 2.0, 3.0, 4.0]);
        let x = a.mul(2.0).unwrap();
        x.narrow(0, 1, 2).unwrap().mul_(10.0).unwrap();
        assert_eq!(x.grad_fn().unwrap().name(), "CopySlices");
        x.sum().unwrap().backward().unwrap();
        assert_eq!(a.grad().unwrap().to_vec::<f64>(), [2.0, 20.0, 20.0, 2.0]);
    }
}
