//! The checking engine: PyTorch's `torch.autograd.gradcheck` in its vector-Jacobian form.
//!
//! For one op (a closure over float64 inputs returning one float64 tensor) and one random
//! `v` of the output's shape, the analytic `vᵀJ` is one backward pass
//! (`tensile::autograd::grad(out, inputs, v)`), and the numerical one is, for every element
//! `x_j` of every differentiable input, the central difference
//! `v · (f(x + eps·e_j) − f(x − eps·e_j)) / (2·eps)` with gradcheck's `eps = 1e-6`. They must
//! agree within gradcheck's `|a − n| <= atol + rtol·|n|`, `atol = 1e-5`, `rtol = 1e-3`
//! (`torch.allclose(analytical, numerical, rtol, atol)`). A random `v` weights every output
//! element, so a wrong entry of `J` shows up unless it is cancelled by chance (probability 0).

use tensile::{DType, Result, Tensor};

pub const EPS: f64 = 1e-6;
pub const ATOL: f64 = 1e-5;
pub const RTOL: f64 = 1e-3;

/// Where an input's random values are drawn from: the OpInfo table's domains.
pub use crate::opinfo::Dom;

/// One input of a row: its shape, its value domain, and whether it is differentiated.
#[derive(Clone, Debug)]
pub struct In {
    pub shape: Vec<usize>,
    pub dom: Dom,
    pub diff: bool,
}

pub type OpFn = Box<dyn Fn(&[Tensor]) -> Result<Tensor>>;

/// One row of the table: PyTorch's op name, its inputs, the op, and optionally the shapes
/// of a broadcasting variant (one per input).
pub struct Row {
    pub name: &'static str,
    pub inputs: Vec<In>,
    pub bcast: Option<Vec<Vec<usize>>>,
    pub f: OpFn,
}

/// `row(name, inputs, f)`: a table row.
pub fn row(
    name: &'static str,
    inputs: &[In],
    f: impl Fn(&[Tensor]) -> Result<Tensor> + 'static,
) -> Row {
    Row {
        name,
        inputs: inputs.to_vec(),
        bcast: None,
        f: Box::new(f),
    }
}

fn input(shape: &[usize], dom: Dom, diff: bool) -> In {
    In {
        shape: shape.to_vec(),
        dom,
        diff,
    }
}
/// A differentiable input with values `±[0.2, 2]`.
pub fn x(shape: &[usize]) -> In {
    input(shape, Dom::Any, true)
}

/// xorshift64*: the test's seeded generator (the results must not depend on anything else).
pub struct Rng(u64);
impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `[0, 1)`.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn draw(&mut self, dom: Dom) -> f64 {
        let u = self.uniform();
        let sign = if self.next_u64() & 1 == 0 { 1.0 } else { -1.0 };
        match dom {
            Dom::Any => sign * (0.2 + 1.8 * u),
            Dom::Pos => 0.5 + 1.5 * u,
            Dom::Unit => sign * (0.1 + 0.7 * u),
            Dom::Prob => 0.15 + 0.7 * u,
            Dom::Big => 1.5 + 1.5 * u,
        }
    }
}

/// How the inputs are laid out in memory.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Variant {
    Contiguous,
    /// Every input a strided view (stride 2 in its last dim… and every dim) of a bigger
    /// buffer: `base[..., 0]` of a `shape + [2]` base.
    NonContiguous,
    /// The row's broadcast shapes.
    Broadcast,
}

impl Variant {
    pub fn label(self) -> &'static str {
        match self {
            Variant::Contiguous => "contiguous",
            Variant::NonContiguous => "non-contiguous",
            Variant::Broadcast => "broadcast",
        }
    }
}

/// A float64 tensor of `shape` holding `vals` (row-major), laid out as `variant` says.
pub fn make(vals: &[f64], shape: &[usize], variant: Variant) -> Result<Tensor> {
    if variant != Variant::NonContiguous {
        return Tensor::from_vec(vals.to_vec(), shape);
    }
    let mut buf = Vec::with_capacity(vals.len() * 2);
    for &v in vals {
        buf.push(v);
        buf.push(f64::NAN); // never read: a wrong stride shows up as NaN
    }
    let mut big = shape.to_vec();
    big.push(2);
    Ok(Tensor::from_vec(buf, big)?.select(-1, 0)?.detach())
}

fn vals_of(t: &Tensor) -> Vec<f64> {
    t.to_vec::<f64>()
}

/// Checks one row in one variant; `Err(line)` describes the first failure.
pub fn check(row: &Row, variant: Variant, seed: u64) -> std::result::Result<(), String> {
    let tag = format!("{} [{}]", row.name, variant.label());
    let shapes: Vec<Vec<usize>> = match variant {
        Variant::Broadcast => row.bcast.clone().expect("a broadcast variant needs shapes"),
        _ => row.inputs.iter().map(|i| i.shape.clone()).collect(),
    };
    let mut rng = Rng::new(seed);
    let vals: Vec<Vec<f64>> = shapes
        .iter()
        .zip(&row.inputs)
        .map(|(s, i)| {
            (0..s.iter().product::<usize>())
                .map(|_| rng.draw(i.dom))
                .collect()
        })
        .collect();
    let build = |vals: &[Vec<f64>], grad: bool| -> Result<Vec<Tensor>> {
        let mut r = Vec::new();
        for ((v, s), i) in vals.iter().zip(&shapes).zip(&row.inputs) {
            let t = make(v, s, variant)?;
            r.push(if grad && i.diff {
                t.requires_grad_(true)?
            } else {
                t
            });
        }
        Ok(r)
    };
    let leaves = build(&vals, true).map_err(|e| format!("{tag}: making inputs: {e}"))?;
    let out = (row.f)(&leaves).map_err(|e| format!("{tag}: forward error: {e}"))?;
    if out.dtype() != DType::Float64 {
        return Err(format!(
            "{tag}: output dtype {:?}, not float64",
            out.dtype()
        ));
    }
    if !out.requires_grad() {
        return Err(format!(
            "no backward formula: {} [{}] (the output does not require grad)",
            row.name,
            variant.label()
        ));
    }
    let v: Vec<f64> = (0..out.numel())
        .map(|_| rng.uniform() * 2.0 - 1.0)
        .collect();
    let vt = Tensor::from_vec(v.clone(), out.size()).map_err(|e| format!("{tag}: {e}"))?;
    let diff: Vec<usize> = (0..leaves.len()).filter(|&i| row.inputs[i].diff).collect();
    let wrt: Vec<&Tensor> = diff.iter().map(|&i| &leaves[i]).collect();
    let grads = tensile::autograd::grad(&[&out], &wrt, &[Some(&vt)], false, true)
        .map_err(|e| format!("{tag}: backward error: {e}"))?;
    let _ng = tensile::no_grad();
    let f_at = |vals: &[Vec<f64>]| -> std::result::Result<Vec<f64>, String> {
        let xs = build(vals, false).map_err(|e| format!("{tag}: {e}"))?;
        let o = (row.f)(&xs).map_err(|e| format!("{tag}: forward error (perturbed): {e}"))?;
        Ok(vals_of(&o))
    };
    for (k, &i) in diff.iter().enumerate() {
        let analytic = match &grads[k] {
            Some(g) => {
                if g.size() != shapes[i].as_slice() {
                    return Err(format!(
                        "{tag}: gradient of input {i} has shape {:?}, the input {:?}",
                        g.size(),
                        shapes[i]
                    ));
                }
                vals_of(g)
            }
            None => vec![0.0; vals[i].len()],
        };
        let mut pert = vals.to_vec();
        for j in 0..vals[i].len() {
            pert[i][j] = vals[i][j] + EPS;
            let plus = f_at(&pert)?;
            pert[i][j] = vals[i][j] - EPS;
            let minus = f_at(&pert)?;
            pert[i][j] = vals[i][j];
            let n: f64 = v
                .iter()
                .zip(plus.iter().zip(&minus))
                .map(|(w, (p, m))| w * (p - m))
                .sum::<f64>()
                / (2.0 * EPS);
            let a = analytic[j];
            let close = (a - n).abs() <= ATOL + RTOL * n.abs(); // false for NaN
            if !close {
                return Err(format!(
                    "{tag}: wrong gradient for input {i} element {j}: analytic {a:.8e}, numerical {n:.8e}"
                ));
            }
        }
    }
    Ok(())
}
