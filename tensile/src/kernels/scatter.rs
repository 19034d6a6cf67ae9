//! Value loops of the gather/scatter family (`scatter_add`, `scatter_reduce`, `index_add`,
//! `index_reduce`) over row-major value buffers. Safe code: the ops read their operands into
//! buffers, call these, and write the buffers back; positions are precomputed by the ops.

use crate::kernels::math::Arith;

/// A reduction applied at each written position, in PyTorch's CPU kernel's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reduce {
    /// Plain assignment (`scatter`, `index_copy`).
    Assign,
    /// `+=` (`sum`, `add`).
    Sum,
    /// `*=` (`prod`, `multiply`).
    Prod,
    /// The sum, divided by the number of contributions at the end.
    Mean,
    /// `amax` (NaN propagates).
    Max,
    /// `amin` (NaN propagates).
    Min,
}

impl Reduce {
    /// The value a target takes before the contributions when `self` is excluded
    /// (`include_self=False`): PyTorch fills the scattered-to positions with it first.
    fn identity<C: Arith>(self) -> C {
        match self {
            Reduce::Sum | Reduce::Mean | Reduce::Assign => C::zero(),
            Reduce::Prod => C::from_i64(1),
            Reduce::Max => lowest::<C>(),
            Reduce::Min => highest::<C>(),
        }
    }
}

/// `-inf` for floats, the minimum for integers, `false` for bool.
fn lowest<C: Arith>() -> C {
    if C::DTYPE.is_floating_point() {
        C::from_f64(f64::NEG_INFINITY)
    } else {
        match C::DTYPE {
            crate::DType::Bool | crate::DType::UInt8 => C::zero(),
            crate::DType::Int8 => C::from_i64(i8::MIN as i64),
            crate::DType::Int16 => C::from_i64(i16::MIN as i64),
            crate::DType::Int32 => C::from_i64(i32::MIN as i64),
            _ => C::from_i64(i64::MIN),
        }
    }
}

/// `+inf` for floats, the maximum for integers, `true` for bool.
fn highest<C: Arith>() -> C {
    if C::DTYPE.is_floating_point() {
        C::from_f64(f64::INFINITY)
    } else {
        match C::DTYPE {
            crate::DType::Bool => C::from_bool(true),
            crate::DType::UInt8 => C::from_i64(255),
            crate::DType::Int8 => C::from_i64(i8::MAX as i64),
            crate::DType::Int16 => C::from_i64(i16::MAX as i64),
            crate::DType::Int32 => C::from_i64(i32::MAX as i64),
            _ => C::from_i64(i64::MAX),
        }
    }
}

/// One step of `r`: `cur op v`, rounded by `rnd` (float16/bfloat16 round each step).
#[inline]
fn step<C: Arith>(r: Reduce, cur: C, v: C, rnd: &impl Fn(C) -> C) -> C {
    match r {
        Reduce::Assign => v,
        Reduce::Sum | Reduce::Mean => rnd(cur.add(v)),
        Reduce::Prod => rnd(cur.mul(v)),
        // std::max / std::min after a NaN check of the source, as PyTorch's kernel
        Reduce::Max => {
            if v.is_nan() || cur < v {
                v
            } else {
                cur
            }
        }
        Reduce::Min => {
            if v.is_nan() || v < cur {
                v
            } else {
                cur
            }
        }
    }
}

/// Applies the pairs `(target, value)` in order to `out`: `out[t] = out[t] op v`. Without
/// `include_self`, every target is first set to the reduction's identity. `Mean` divides each
/// target by its number of contributions (plus one for `self`) at the end, with floor division
/// for integers. `rnd` rounds each intermediate to the tensor's dtype (float16/bfloat16).
pub(crate) fn reduce_into<C: Arith>(
    out: &mut [C],
    pairs: impl Iterator<Item = (usize, C)> + Clone,
    r: Reduce,
    include_self: bool,
    rnd: impl Fn(C) -> C,
) {
    if !include_self && r != Reduce::Assign {
        for (t, _) in pairs.clone() {
            out[t] = r.identity();
        }
    }
    let mut counts: Vec<u32> = if r == Reduce::Mean {
        vec![include_self as u32; out.len()]
    } else {
        Vec::new()
    };
    for (t, v) in pairs {
        out[t] = step(r, out[t], v, &rnd);
        if r == Reduce::Mean {
            counts[t] += 1;
        }
    }
    if r == Reduce::Mean {
        let float = C::DTYPE.is_floating_point();
        for (o, &c) in out.iter_mut().zip(&counts) {
            let c = rnd(C::from_i64(c.max(1) as i64));
            *o = if float { rnd(o.div(c)) } else { o.floor_div(c) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scatter_reduce_examples_of_the_spec() {
        // self=[10,10,10,10], index=[0,0,2], src=[1,2,3]
        let pairs = [(0usize, 1.0f64), (0, 2.0), (2, 3.0)];
        let run = |r, inc| {
            let mut o = vec![10.0f64; 4];
            reduce_into(&mut o, pairs.iter().copied(), r, inc, |x| x);
            o
        };
        assert_eq!(run(Reduce::Sum, true), [13.0, 10.0, 13.0, 10.0]);
        assert_eq!(run(Reduce::Sum, false), [3.0, 10.0, 3.0, 10.0]);
        assert_eq!(run(Reduce::Mean, false), [1.5, 10.0, 3.0, 10.0]);
        assert_eq!(run(Reduce::Prod, false), [2.0, 10.0, 3.0, 10.0]);
        assert_eq!(run(Reduce::Mean, true)[2], 6.5);
        // integer mean floors: (10+1+2)/3 = 4, (-10+1)/2 = -5
        let mut o = vec![10i64, -10];
        reduce_into(
            &mut o,
            [(0usize, 1i64), (0, 2), (1, 1)].into_iter(),
            Reduce::Mean,
            true,
            |x| x,
        );
        assert_eq!(o, [4, -5]);
        // NaN propagates through amax from either side
        let mut o = vec![f64::NAN, 1.0];
        reduce_into(
            &mut o,
            [(0usize, 5.0), (1, f64::NAN), (1, 7.0)].into_iter(),
            Reduce::Max,
            true,
            |x| x,
        );
        assert!(o[0].is_nan() && o[1].is_nan());
    }
}
