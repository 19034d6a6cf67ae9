//! The tensor's own operations and queries: `copy_`, `fill_`, `x.to(dtype)`,
//! `contiguous(memory_format=torch.channels_last)`, `x.is_contiguous()`, `repr(x)`, and the
//! broadcasting and promotion queries `torch.broadcast_shapes`, the shape rule of
//! `infer_size` and `torch.result_type`. (`contiguous` and `clone` are `views.rs`'s.)

use super::{Adapter, Arg, Args, Dom, OpInfo, P, Ret, Sample, Sig, Through, X};
use tensile::dtype::Category;
use tensile::{DType, Result, Tensor};

/// A dtype at position `i` or keyword `k` (its object or its name: `"float16"`).
fn dtype_at(a: &Args, i: usize, k: &str) -> DType {
    match a.arg(i, k) {
        Some(Arg::DType(d)) => *d,
        Some(Arg::Str(s)) => DType::from_name(s).expect("opinfo: a dtype name"),
        _ => panic!("opinfo: to takes a dtype"),
    }
}

/// A shape argument as `usize`s.
fn usizes(v: &[i64]) -> Vec<usize> {
    v.iter().map(|&x| x as usize).collect()
}

/// An operand's dtype and promotion category (`torch.result_type`'s rule: a dimensioned
/// tensor, a zero-dim tensor, a Python number).
fn category(a: &Arg) -> (DType, Category) {
    match a {
        Arg::Tensor(t) if t.dim() == 0 => (t.dtype(), Category::ZeroDim),
        Arg::Tensor(t) => (t.dtype(), Category::Dim),
        Arg::Scalar(s) => (s.dtype(), Category::Wrapped),
        _ => panic!("opinfo: result_type takes tensors and numbers"),
    }
}

/// `x.to(float32).to(float64)·0 + x`: the value of `x`, differentiated through a cast (the
/// `to` sample's input, so that its float64 output keeps the checker's precision).
fn through_f32(x: &Tensor) -> Result<Tensor> {
    x.to(DType::Float32)?.to(DType::Float64)?.mul(0.0)?.add(x)
}

const fn query(name: &'static str, sig: Sig, f: super::CallRet) -> OpInfo {
    OpInfo::new_ret(name, sig, Adapter::Ret(f))
}

pub static OPS: &[OpInfo] = &[
    OpInfo::new("copy_", Sig::Args(2), |a| a.t(0).copy_(a.t(1)))
        .grad(&[Sample::new(&[X, P::T(Dom::Any, &[3])])
            .in_place(Through::Base)
            .named("copy_")])
        .bench("T.copy_"),
    OpInfo::new("fill_", Sig::Args(2), |a| a.t(0).fill_(a.scalar(1)))
        .grad(&[Sample::new(&[X, P::Num(0.5)])
            .in_place(Through::View(|y| y.select(0, 1)))
            .named("fill_")])
        .bench("T.fill_"),
    OpInfo::new("to", Sig::Other, |a| a.t(0).to(dtype_at(a, 1, "dtype")))
        .aliases(&["to_dtype"])
        .grad(&[Sample::new(&[
            P::Wrap(Dom::Any, &[2, 3], through_f32),
            P::Str("float64"),
        ])])
        .bench("T.to"),
    OpInfo::new("contiguous_channels_last", Sig::Args(1), |a| {
        a.t(0).contiguous_channels_last()
    })
    .grad(&[Sample::new(&[P::T(Dom::Any, &[1, 2, 2, 2])])]),
    query("is_contiguous", Sig::Args(1), |a| {
        Ok(Ret::Bool(a.t(0).is_contiguous()))
    }),
    query("is_contiguous_channels_last", Sig::Args(1), |a| {
        Ok(Ret::Bool(a.t(0).is_contiguous_channels_last()))
    }),
    query("repr", Sig::Args(1), |a| Ok(Ret::Str(a.t(0).to_string()))).bench("repr"),
    query("infer_size", Sig::Args(2), |a| {
        tensile::broadcast::infer_size(&usizes(a.ints(0)), &usizes(a.ints(1)))
            .map(|s| Ret::Shape(s.iter().map(|&x| x as i64).collect()))
    }),
    query("broadcast_shapes", Sig::Other, |a| {
        let shapes: Vec<&[i64]> = (0..a.pos.len()).map(|i| a.ints(i)).collect();
        tensile::broadcast::broadcast_shapes(&shapes).map(Ret::Shape)
    }),
    query("result_type", Sig::Args(2), |a| {
        Ok(Ret::DType(tensile::dtype::result_type(&[
            category(&a.pos[0]),
            category(&a.pos[1]),
        ])))
    }),
];
