//! The op suite of `bench/ops.txt` on tensile: the table is parsed here with the grammar its
//! header describes (the same reader as `bench/ops.py` on the PyTorch side), and each case is
//! built on its first call, so `--only` builds only the inputs of the cases asked for.
//!
//! Each op name resolves to one tensile call, the one a porter would write for the PyTorch
//! call the name stands for; the table's kwargs become that call's arguments. The pointwise
//! ops' calls are the OpInfo table's adapters (`tests/opinfo/`, an entry's `bench` key names
//! its rows' op; `T.NAME_` its in-place form); the other ops' calls are below.

use std::collections::HashMap;

#[path = "../../tests/opinfo/mod.rs"]
mod opinfo;

use tensile::{DType, Generator, Tensor};

/// Ops per rep for the table's latency (`ns`) cases, at most (fewer when one op is slow: see
/// `lat_inner`).
pub const OPS_LAT_INNER: usize = 2000;

/// The table, compiled in so the binary runs from any directory.
const TABLE: &str = include_str!("../../../bench/ops.txt");

/// One parsed line of the table.
pub struct Row {
    pub name: String,
    pub unit: String,
    op: String,
    args: Vec<String>,
    kw: HashMap<String, String>,
}

/// Every case of the table, in file order.
pub fn rows() -> Vec<Row> {
    TABLE
        .lines()
        .filter_map(|line| {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                return None;
            }
            let toks: Vec<&str> = line.split_whitespace().collect();
            let (mut args, mut kw) = (Vec::new(), HashMap::new());
            for t in &toks[3..] {
                match t.split_once('=') {
                    Some((k, v)) if !t.starts_with('[') => {
                        kw.insert(k.to_string(), v.to_string());
                    }
                    _ => args.push(t.to_string()),
                }
            }
            Some(Row {
                name: toks[0].to_string(),
                unit: toks[1].to_string(),
                op: toks[2].to_string(),
                args,
                kw,
            })
        })
        .collect()
}

/// A positional argument: a tensor or a Python literal.
enum A {
    T(Tensor),
    I(i64),
    F(f64),
    L(Vec<i64>),
}

impl A {
    fn t(&self) -> &Tensor {
        match self {
            A::T(t) => t,
            _ => panic!("ops.txt: expected a tensor argument"),
        }
    }
}

fn list(s: &str) -> Vec<i64> {
    s.trim_matches(['[', ']'])
        .split(',')
        .filter(|x| !x.is_empty())
        .map(|x| x.parse().expect("ops.txt: int list"))
        .collect()
}

fn literal(s: &str) -> A {
    if s.starts_with('[') {
        A::L(list(s))
    } else if let Ok(i) = s.parse::<i64>() {
        A::I(i)
    } else {
        A::F(s.parse().expect("ops.txt: number literal"))
    }
}

fn seed_of(name: &str) -> u64 {
    name.bytes().fold(1469598103934665603u64, |h, b| {
        (h ^ b as u64).wrapping_mul(1099511628211)
    })
}

/// Builds a tensor from its spec (`f32[2048,2048].T@-1:1`); `None` when `s` is not one.
fn tensor(s: &str, seed: u64) -> Option<tensile::Result<Tensor>> {
    let (dt, rest) = s.split_once('[')?;
    let dtype = match dt {
        "f32" => DType::Float32,
        "f64" => DType::Float64,
        "f16" => DType::Float16,
        "bf16" => DType::BFloat16,
        "i64" => DType::Int64,
        "i32" => DType::Int32,
        "u8" => DType::UInt8,
        "bool" => DType::Bool,
        _ => return None,
    };
    let (shape, mods) = rest.split_once(']')?;
    let shape = list(shape);
    let (mods, range) = match mods.split_once('@') {
        Some((m, r)) => {
            let (lo, hi) = r.split_once(':').expect("ops.txt: @lo:hi");
            (
                m,
                Some((lo.parse::<f64>().unwrap(), hi.parse::<f64>().unwrap())),
            )
        }
        None => (mods, None),
    };
    let mods: Vec<&str> = mods.split('.').filter(|m| !m.is_empty()).collect();
    Some((|| {
        let mut build = shape.clone();
        let n = build.len();
        for m in &mods {
            match *m {
                "T" => build.swap(n - 2, n - 1),
                "s2" => build[n - 1] *= 2,
                _ => {}
            }
        }
        let u = Tensor::rand_with(
            build.as_slice(),
            (&Generator::new().manual_seed(seed), DType::Float64),
        )?;
        let mut t = match dtype {
            DType::Bool => match range {
                None => u.lt(0.5)?,
                Some((lo, _)) => Tensor::full_with(build.as_slice(), lo >= 1.0, DType::Bool)?,
            },
            d if d.is_floating_point() => {
                let (lo, hi) = range.unwrap_or((0.5, 1.5));
                u.mul(hi - lo)?.add(lo)?.to(d)?
            }
            d => {
                let (lo, hi) = range.unwrap_or((0.0, 100.0));
                u.mul(hi - lo)?.add(lo)?.floor()?.to(DType::Int64)?.to(d)?
            }
        };
        if mods.contains(&"sorted") {
            t = t.sort_with(-1)?.0;
        }
        for m in &mods {
            t = match *m {
                "T" => t.transpose(-2, -1)?,
                "s2" => t.slice(-1, None, None, 2)?,
                "cl" => t.contiguous_channels_last()?,
                p if p.starts_with('p') => {
                    let dims: Vec<i64> = p[1..].bytes().map(|c| (c - b'0') as i64).collect();
                    t.permute(dims)?
                }
                e if e.starts_with('e') => {
                    let dims: Vec<i64> = e[1..].split('x').map(|x| x.parse().unwrap()).collect();
                    t.expand(dims)?
                }
                _ => t,
            };
        }
        Ok(t)
    })())
}

/// The boxed op a bench case times: returns its output (dropped outside the timed region).
pub type Op = Box<dyn FnMut() -> Option<Tensor>>;

fn ok(r: tensile::Result<Tensor>) -> Option<Tensor> {
    Some(r.expect("bench op"))
}

/// The case's op over its built arguments, and the count that the throughput divides.
pub fn build(row: &Row) -> tensile::Result<(Op, f64)> {
    let seed = seed_of(&row.name);
    let mut args = Vec::new();
    for (i, a) in row.args.iter().enumerate() {
        args.push(match tensor(a, seed + i as u64) {
            Some(t) => A::T(t?),
            None => literal(a),
        });
    }
    if let Some((info, inplace)) = opinfo::lookup_bench(&row.op) {
        let a = opinfo::Args {
            pos: args.iter().map(to_opinfo).collect(),
            kw: row
                .kw
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), kw_to_opinfo(v)?)))
                .collect(),
            inplace,
        };
        let mut op: Op = Box::new(move || info.run(&a).expect("bench op").tensor());
        let count = count_of(row, &args, &mut op);
        return Ok((op, count));
    }
    // the two rows no OpInfo entry takes as written
    let t = |i: usize| args[i].t().alias();
    let mut op: Op = match row.op.as_str() {
        // `x[1, 2:100:2]`
        "getitem_basic" => {
            let a = t(0);
            Box::new(move || ok(a.index(&tensile::s![1, 2..100;2])))
        }
        // `torch.lstm` over the seven tensors of the row (the entry takes `hx` and the weights
        // as lists)
        "lstm_layer" => {
            let (x, h, c) = (t(0), t(1), t(2));
            let params = [t(3), t(4), t(5), t(6)];
            Box::new(move || ok(tensile::lstm(&x, &[&h, &c], &params).map(|r| r.0)))
        }
        other => panic!("bench/ops.txt: op {other} has no tensile call in bench_ops"),
    };
    let count = count_of(row, &args, &mut op);
    Ok((op, count))
}

/// A positional argument as the OpInfo adapters take it.
fn to_opinfo(a: &A) -> opinfo::Arg {
    match a {
        A::T(t) => opinfo::Arg::Tensor(t.alias()),
        A::I(i) => opinfo::Arg::Scalar(tensile::Scalar::Int(*i)),
        A::F(f) => opinfo::Arg::Scalar(tensile::Scalar::Float(*f)),
        A::L(l) => opinfo::Arg::Ints(l.clone()),
    }
}

/// A keyword's Python literal as the OpInfo adapters take it (`None`: left out).
fn kw_to_opinfo(v: &str) -> Option<opinfo::Arg> {
    use tensile::Scalar;
    Some(match v {
        "None" => return None,
        "True" | "False" => opinfo::Arg::Scalar(Scalar::Bool(v == "True")),
        l if l.starts_with('[') => opinfo::Arg::Ints(list(l)),
        _ => match (v.parse::<i64>(), v.parse::<f64>()) {
            (Ok(i), _) => opinfo::Arg::Scalar(Scalar::Int(i)),
            (_, Ok(f)) => opinfo::Arg::Scalar(Scalar::Float(f)),
            _ => opinfo::Arg::Str(v.to_string()),
        },
    })
}

/// `count=` when given, else max(numel of the tensor inputs, numel of the first output) of
/// one call (the same rule as `bench/ops.py`).
fn count_of(row: &Row, args: &[A], op: &mut Op) -> f64 {
    if let Some(c) = row.kw.get("count") {
        return c.split('*').map(|f| f.parse::<f64>().unwrap()).product();
    }
    let out = op().map(|t| t.numel()).unwrap_or(0);
    args.iter()
        .filter_map(|a| match a {
            A::T(t) => Some(t.numel()),
            _ => None,
        })
        .chain([out])
        .max()
        .unwrap_or(0) as f64
}

/// Ops per rep for a latency case whose one op took `one` seconds: OPS_LAT_INNER, or fewer so
/// that a rep stays near 10 ms (the same rule as `bench/ops.py`).
pub fn lat_inner(one: f64) -> usize {
    ((0.01 / one.max(1e-9)) as usize).clamp(10, OPS_LAT_INNER)
}
