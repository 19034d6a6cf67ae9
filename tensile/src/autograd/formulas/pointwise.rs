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
use crate::ops::unary::UnaryOp;
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
pub(crate) fn map_n(ts: &[&Tensor], dtype: DType, f: impl Fn(&[f64]) -> f64) -> Result<Tensor> {
    let shape = crate::broadcast::infer_size_all(ts.iter().map(|t| t.size()))?;
    let vals = ts
        .iter()
        .map(|t| Ok(t.expand(&shape[..])?.to_vec::<f64>()))
        .collect::<Result<Vec<_>>>()?;
    let n: usize = shape.iter().product();
    let mut out = Vec::with_capacity(n);
    let mut buf = vec![0f64; ts.len()];
    for i in 0..n {
        for (k, v) in vals.iter().enumerate() {
            buf[k] = v[i];
        }
        out.push(f(&buf));
    }
    Tensor::from_vec(out, &shape[..])?.to(dtype)
}

/// `g * d` with `d = f(saved…)` elementwise.
fn chain(g: &Tensor, s: &[&Tensor], f: impl Fn(&[f64]) -> f64) -> Result<Vec<Option<Tensor>>> {
    let mut ts = vec![g];
    ts.extend_from_slice(s);
    Ok(vec![Some(map_n(&ts, g.dtype(), |v| v[0] * f(&v[1..]))?)])
}

fn zeros_like(g: &Tensor) -> Result<Vec<Option<Tensor>>> {
    Ok(vec![Some(Tensor::zeros_like(g)?)])
}

fn sgn(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

const FRAC_2_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI;

fn in1(name: &'static str, x: &Tensor, f: impl Fn(f64) -> f64 + Send + Sync + 'static) -> Built {
    node_saving(
        lam(name, move |g, s| chain(g, &[&s[0]], |v| f(v[0]))),
        vec![Save::Input(x.alias())],
    )
}

fn out1(name: &'static str, f: impl Fn(f64) -> f64 + Send + Sync + 'static) -> Built {
    node_saving(
        lam(name, move |g, s| chain(g, &[&s[0]], |v| f(v[0]))),
        vec![Save::Output(0)],
    )
}

/// Records a unary op of `ops::unary` (`exp`, `sin`, `relu`, …).
pub(crate) fn unary(op: UnaryOp, out: Tensor, x: &Tensor) -> Result<Tensor> {
    use UnaryOp::*;
    record(out, &[x], || match op {
        Neg => node(lam("NegBackward0", |g, _| Ok(vec![Some(g.neg()?)]))),
        Abs => in1("AbsBackward0", x, sgn),
        Exp => out1("ExpBackward0", |r| r),
        Log => in1("LogBackward0", x, |x| 1.0 / x),
        Sqrt => out1("SqrtBackward0", |r| 1.0 / (2.0 * r)),
        Rsqrt => out1("RsqrtBackward0", |r| -0.5 * r * r * r),
        Sin => in1("SinBackward0", x, f64::cos),
        Cos => in1("CosBackward0", x, |x| -x.sin()),
        Tanh => out1("TanhBackward0", |r| 1.0 - r * r),
        Sigmoid => out1("SigmoidBackward0", |r| r * (1.0 - r)),
        Relu => out1("ReluBackward0", |r| if r > 0.0 { 1.0 } else { 0.0 }),
        Gelu => in1("GeluBackward0", x, |x| {
            let cdf = 0.5 * (1.0 + libm::erf(x / std::f64::consts::SQRT_2));
            let pdf = (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt();
            cdf + x * pdf
        }),
        Silu => in1("SiluBackward0", x, |x| {
            let s = 1.0 / (1.0 + (-x).exp());
            s * (1.0 + x * (1.0 - s))
        }),
        Erf => in1("ErfBackward0", x, |x| FRAC_2_SQRT_PI * (-x * x).exp()),
        Floor => node(lam("FloorBackward0", |g, _| zeros_like(g))),
        Ceil => node(lam("CeilBackward0", |g, _| zeros_like(g))),
        Round => node(lam("RoundBackward0", |g, _| zeros_like(g))),
        Trunc => node(lam("TruncBackward0", |g, _| zeros_like(g))),
        Sign => node(lam("SignBackward0", |g, _| zeros_like(g))),
        Reciprocal => out1("ReciprocalBackward0", |r| -r * r),
        Square => in1("PowBackward0", x, |x| 2.0 * x),
        LogicalNot | BitwiseNot | IsNan => node(lam("NotImplemented", |_, _| Ok(vec![None]))),
    })
}

/// Records a float function of `ops::unary_math` by its method name.
pub(crate) fn float_fn(name: &str, out: Tensor, x: &Tensor) -> Result<Tensor> {
    use std::f64::consts::{LN_2, LN_10};
    record(out, &[x], || match name {
        "tan" => out1("TanBackward0", |r| 1.0 + r * r),
        "atan" => in1("AtanBackward0", x, |x| 1.0 / (1.0 + x * x)),
        "asin" => in1("AsinBackward0", x, |x| 1.0 / (1.0 - x * x).sqrt()),
        "acos" => in1("AcosBackward0", x, |x| -1.0 / (1.0 - x * x).sqrt()),
        "sinh" => in1("SinhBackward0", x, f64::cosh),
        "cosh" => in1("CoshBackward0", x, f64::sinh),
        "asinh" => in1("AsinhBackward0", x, |x| 1.0 / (x * x + 1.0).sqrt()),
        "acosh" => in1("AcoshBackward0", x, |x| 1.0 / (x * x - 1.0).sqrt()),
        "atanh" => in1("AtanhBackward0", x, |x| 1.0 / (1.0 - x * x)),
        "exp2" => out1("Exp2Backward0", |r| r * LN_2),
        "expm1" => out1("Expm1Backward0", |r| r + 1.0),
        "log1p" => in1("Log1PBackward0", x, |x| 1.0 / (1.0 + x)),
        "log2" => in1("Log2Backward0", x, |x| 1.0 / (x * LN_2)),
        "log10" => in1("Log10Backward0", x, |x| 1.0 / (x * LN_10)),
        "erfc" => in1("ErfcBackward0", x, |x| -FRAC_2_SQRT_PI * (-x * x).exp()),
        "deg2rad" => in1("Deg2RadBackward0", x, |_| std::f64::consts::PI / 180.0),
        "rad2deg" => in1("Rad2DegBackward0", x, |_| 180.0 / std::f64::consts::PI),
        "frac" => node(lam("FracBackward0", |g, _| Ok(vec![Some(g.alias())]))),
        "erfinv" => in1("ErfinvBackward0", x, |x| {
            let y = crate::kernels::special::erfinv(x);
            0.5 * std::f64::consts::PI.sqrt() * (y * y).exp()
        }),
        "sinc" => in1("SincBackward0", x, |x| {
            if x == 0.0 {
                0.0
            } else {
                let p = std::f64::consts::PI * x;
                (p.cos() * p - p.sin()) / (p * x)
            }
        }),
        _ => node(lam("NotImplemented", |_, _| {
            Err(crate::error::Error::runtime(
                "derivative for this op is not implemented",
            ))
        })),
    })
}

/// `logit(x, eps)`: `g / (x (1 - x))`, 0 outside `[eps, 1 - eps]` when `eps` is given.
pub(crate) fn logit(out: Tensor, x: &Tensor, eps: Option<f64>) -> Result<Tensor> {
    record(out, &[x], || {
        in1("LogitBackward0", x, move |x| match eps {
            Some(e) if x < e || x > 1.0 - e => 0.0,
            _ => 1.0 / (x * (1.0 - x)),
        })
    })
}

/// Records a binary op of `ops::binary` (`add`, `mul`, `pow`, …); `b` a tensor or a
/// Python scalar (which gets no gradient; `mul`/`div`/`pow` save it, as PyTorch's wrapped
/// number).
pub(crate) fn binary(op: BinaryOp, out: Tensor, a: &Tensor, b: Operand<'_>) -> Result<Tensor> {
    use BinaryOp::*;
    let bt = b.to_tensor();
    let b_is_tensor = matches!(b, Operand::Tensor(_));
    let ins: Vec<&Tensor> = if b_is_tensor { vec![a, &bt] } else { vec![a] };
    let (ra, rb) = (a.requires_grad(), b_is_tensor && bt.requires_grad());
    record(out, &ins, || {
        let two = move |ga: Option<Tensor>, gb: Option<Tensor>| -> Vec<Option<Tensor>> {
            if b_is_tensor { vec![ga, gb] } else { vec![ga] }
        };
        let sa = Save::Input(a.alias());
        let sb = Save::Input(bt.alias());
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
                vec![sa, sb],
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
                vec![sa, sb],
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
                vec![sa, sb],
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
                vec![sa, sb],
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
                    vec![sa, sb],
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
                vec![sa, sb],
            ),
            Remainder => node_saving(
                lam("RemainderBackward0", move |g, s| {
                    let gb = map_n(&[g, &s[0], &s[1]], g.dtype(), |v| {
                        -v[0] * (v[1] / v[2]).floor()
                    })?;
                    Ok(two(Some(g.alias()), Some(gb)))
                }),
                vec![sa, sb],
            ),
            _ => node(lam("NotImplemented", |_, _| {
                Err(crate::error::Error::runtime(
                    "derivative for aten::floor_divide is not implemented",
                ))
            })),
        }
    })
}

/// `torch.rsub(a, b, alpha)` = `b - alpha·a`.
pub(crate) fn rsub(out: Tensor, a: &Tensor, b: Operand<'_>, alpha: f64) -> Result<Tensor> {
    let bt = b.to_tensor();
    let is_t = matches!(b, Operand::Tensor(_));
    let ins: Vec<&Tensor> = if is_t { vec![a, &bt] } else { vec![a] };
    record(out, &ins, || {
        node(lam(
            if is_t {
                "RsubBackward0"
            } else {
                "RsubBackward1"
            },
            move |g, _| {
                let ga = Some(g.mul(-alpha)?);
                Ok(if is_t {
                    vec![ga, Some(g.alias())]
                } else {
                    vec![ga]
                })
            },
        ))
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
