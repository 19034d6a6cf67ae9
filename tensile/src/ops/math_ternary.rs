//! Pointwise ops of three operands, their forward functions: `lerp` (number or tensor weight),
//! `addcmul`, `addcdiv` (with `value`), and `clamp`/`clip` with number or tensor bounds; each
//! also runs in place. Every tensor operand broadcasts with the others (PyTorch's
//! TensorIterator over all of them). The methods and the recording are in
//! [`crate::optable::ternary`].

use crate::dispatch;
use crate::dtype::type_meta_name;
use crate::dtype::{DType, check_can_cast};
use crate::element::{Element, compute_dtype};
use crate::error::{Error, Result};
use crate::iter::{Plan, TensorIter, result_type_of};
use crate::kernels::math::Arith;
use crate::kernels::pointwise3;
use crate::ops::Operand;
use crate::ops::math_binary::{not_impl, run2, scalar_as};
use crate::ops::math_scalar as sm;
use crate::tensor::{Scalar, Tensor};

/// Runs `f` over the plan `lp` of `[out, a, b, c]`, the inputs presented as `T`, the output
/// as `O`.
fn run3<T: Element, O: Element>(lp: &Plan<'_, 4>, f: impl Fn(T, T, T) -> O + Sync) {
    lp.run(&pointwise3::ternary_kernel::<T, O>(f))
}

/// The iterator over `ins` (into `ins[0]` in place), the common dtype, and the in-place cast
/// check, in TensorIterator's order.
fn build<'t>(ins: &[&'t Tensor], inplace: bool) -> Result<(TensorIter<'t>, DType)> {
    let it = TensorIter::new(inplace.then_some(ins[0]), ins)?;
    let common = result_type_of(ins);
    if inplace {
        check_can_cast(common, ins[0].dtype)?;
    }
    Ok((it, common))
}

/// The forward function of `torch.lerp` (`inplace`: into `a`): dtype checks, then the binary
/// (number weight) or ternary (tensor weight) iterator, then the float-only kernel.
pub(crate) fn lerp_impl(
    a: &Tensor,
    end: &Tensor,
    weight: Operand<'_>,
    inplace: bool,
) -> Result<Tensor> {
    let dt_err = |what: &str, got: DType| {
        Error::runtime(format!(
            "expected dtype {} for `{what}` but got dtype {}",
            type_meta_name(a.dtype),
            type_meta_name(got)
        ))
    };
    if end.dtype != a.dtype {
        return Err(dt_err("end", end.dtype));
    }
    match weight {
        Operand::Scalar(w) => {
            let (mut it, dt) = build(&[a, end], inplace)?;
            if !dt.is_floating_point() {
                return Err(not_impl("lerp_kernel_scalar", dt));
            }
            it.promote_inputs(dt);
            let lp = it.plan::<3>(if inplace { a.dtype } else { dt })?;
            match compute_dtype(dt) {
                DType::Float64 => {
                    let w: f64 = scalar_as(w);
                    run2(&lp, move |x: f64, y: f64| sm::lerp(x, y, w))
                }
                _ => {
                    let w: f32 = scalar_as(w);
                    run2(&lp, move |x: f32, y: f32| sm::lerp(x, y, w))
                }
            }
            Ok(lp.into_out())
        }
        Operand::Tensor(w) => {
            // a 0-d weight takes part in the promotion instead (PyTorch 2.15)
            if w.dtype != a.dtype && w.dim() > 0 {
                return Err(dt_err("weight", w.dtype));
            }
            let (mut it, dt) = build(&[a, end, w], inplace)?;
            if !dt.is_floating_point() {
                return Err(not_impl("lerp_kernel_tensor", dt));
            }
            it.promote_inputs(dt);
            let lp = it.plan::<4>(if inplace { a.dtype } else { dt })?;
            match compute_dtype(dt) {
                DType::Float64 => run3(&lp, sm::lerp::<f64>),
                _ => run3(&lp, sm::lerp::<f32>),
            }
            Ok(lp.into_out())
        }
    }
}

/// The forward function of `addcmul` (`div = false`) and `addcdiv` (`div = true`):
/// `self + value * t1 * t2` or `self + value * t1 / t2` in the promotion of all three
/// (`inplace`: into `a`).
pub(crate) fn addc_impl(
    a: &Tensor,
    t1: &Tensor,
    t2: &Tensor,
    value: Scalar,
    div: bool,
    inplace: bool,
) -> Result<Tensor> {
    if div && t1.dtype.is_integral(true) && t2.dtype.is_integral(true) {
        return Err(Error::runtime(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes.",
        ));
    }
    let (mut it, dt) = build(&[a, t1, t2], inplace)?;
    if dt == DType::Bool {
        return Err(not_impl(
            if div {
                "addcdiv_cpu_out"
            } else {
                "addcmul_cpu_out"
            },
            dt,
        ));
    }
    it.promote_inputs(dt);
    let lp = it.plan::<4>(if inplace { a.dtype } else { dt })?;
    dispatch!(@compute compute_dtype(dt), T => {
        let v: T = scalar_as(value);
        if div {
            run3(&lp, move |x: T, y: T, z: T| Arith::add(x, Arith::div(Arith::mul(v, y), z)))
        } else {
            run3(&lp, move |x: T, y: T, z: T| Arith::add(x, Arith::mul(Arith::mul(v, y), z)))
        }
    });
    Ok(lp.into_out())
}

/// `torch.clamp` with tensor bounds (a number beside a tensor bound counts as a 0-d wrapped
/// number): one iterator over `self` and the given bounds, their promotion, then
/// `min(max(self, min), max)` with NaN propagating (`maximum` alone for `min` only, `minimum`
/// alone for `max` only, which also serve bool).
fn clamp_tensors(
    x: &Tensor,
    min: Option<Operand<'_>>,
    max: Option<Operand<'_>>,
    inplace: bool,
) -> Result<Tensor> {
    let lo = min.map(|m| m.to_tensor());
    let hi = max.map(|m| m.to_tensor());
    let mut ins: Vec<&Tensor> = vec![x];
    ins.extend(lo.iter());
    ins.extend(hi.iter());
    let (mut it, dt) = build(&ins, inplace)?;
    if ins.len() == 3 && dt == DType::Bool {
        return Err(not_impl("clamp_cpu", dt));
    }
    it.promote_inputs(dt);
    let out_dt = if inplace { x.dtype } else { dt };
    let cdt = compute_dtype(dt);
    if ins.len() == 3 {
        let lp = it.plan::<4>(out_dt)?;
        dispatch!(@compute cdt, T => run3(&lp,
            |v: T, l: T, h: T| Arith::minimum(Arith::maximum(v, l), h)));
        Ok(lp.into_out())
    } else {
        let lp = it.plan::<3>(out_dt)?;
        if lo.is_some() {
            dispatch!(@compute cdt, T => run2(&lp, |v: T, l: T| Arith::maximum(v, l)));
        } else {
            dispatch!(@compute cdt, T => run2(&lp, |v: T, h: T| Arith::minimum(v, h)));
        }
        Ok(lp.into_out())
    }
}

/// The forward function of `torch.clamp` / `clamp_` with optional bounds: the tensor
/// overload when a bound is a tensor, otherwise the number overload (`inplace`: into `x`).
/// Error: `torch.clamp: At least one of 'min' or 'max' must not be None`.
pub(crate) fn clamp_raw(
    x: &Tensor,
    min: Option<Operand<'_>>,
    max: Option<Operand<'_>>,
    inplace: bool,
) -> Result<Tensor> {
    if min.is_none() && max.is_none() {
        return Err(Error::runtime(
            "torch.clamp: At least one of 'min' or 'max' must not be None",
        ));
    }
    let is_t = |o: &Option<Operand<'_>>| matches!(o, Some(Operand::Tensor(_)));
    if is_t(&min) || is_t(&max) {
        return clamp_tensors(x, min, max, inplace);
    }
    let num = |o: Option<Operand<'_>>| match o {
        Some(Operand::Scalar(s)) => Some(s),
        _ => None,
    };
    clamp_scalars(x, num(min), num(max), inplace)
}

/// The largest finite value of a float dtype (float64: none checked).
fn float_max(dt: DType) -> f64 {
    match dt {
        DType::Float16 => 65504.0,
        DType::BFloat16 => f64::from(half::bf16::MAX.to_f32()),
        DType::Float32 => f64::from(f32::MAX),
        _ => f64::MAX,
    }
}

/// The range of an integer dtype.
fn int_range(dt: DType) -> (i64, i64) {
    match dt {
        DType::UInt8 => (0, 255),
        DType::Int8 => (-128, 127),
        DType::Int16 => (i16::MIN.into(), i16::MAX.into()),
        DType::Int32 => (i32::MIN.into(), i32::MAX.into()),
        _ => (i64::MIN, i64::MAX),
    }
}

use crate::element::round_to;

/// The bounds of a number clamp, as PyTorch 2.15 checks them against the result dtype `rt`.
///
/// Integers: a `min` below the dtype's range, or a `max` above it, bounds nothing and is
/// dropped; a `min` above the range or a `max` below it fails with `Clamp min value 300 is
/// outside the representable range of Byte`. Floats: a finite bound beyond the dtype's
/// largest value fails with `value cannot be converted to type c10::Half without overflow`
/// (infinities and NaN pass). Returns each kept bound as an f64 holding a value of `rt`.
pub(crate) fn clamp_bounds(
    rt: DType,
    min: Option<Scalar>,
    max: Option<Scalar>,
) -> Result<(Option<f64>, Option<f64>)> {
    if rt.is_floating_point() {
        let conv = |s: Option<Scalar>| -> Result<Option<f64>> {
            let Some(s) = s else { return Ok(None) };
            let v = s.to_f64();
            if v.is_finite() && v.abs() > float_max(rt) {
                return Err(Error::runtime(format!(
                    "value cannot be converted to type {} without overflow",
                    type_meta_name(rt)
                )));
            }
            Ok(Some(round_to(rt, v)))
        };
        return Ok((conv(min)?, conv(max)?));
    }
    let (lo, hi) = int_range(rt);
    let int = |s: Scalar| match s {
        Scalar::Bool(b) => b as i64,
        Scalar::Int(i) => i,
        Scalar::Float(f) => f as i64,
    };
    let out_of_range = |what: &str, v: i64| {
        Error::runtime(format!(
            "Clamp {what} value {v} is outside the representable range of {}",
            rt.scalar_type_name()
        ))
    };
    let mut kept = (None, None);
    if let Some(m) = min.map(int) {
        if m > hi {
            return Err(out_of_range("min", m));
        }
        kept.0 = (m >= lo).then_some(m as f64);
    }
    if let Some(m) = max.map(int) {
        if m < lo {
            return Err(out_of_range("max", m));
        }
        kept.1 = (m <= hi).then_some(m as f64);
    }
    Ok(kept)
}

/// `torch.clamp` with number bounds (PyTorch's `clamp` Scalar overload): the result dtype is
/// `self`'s when it is a float, else the promotion with the numbers; then a unary op over
/// `self` converted to it (the output's layout is a unary op's).
fn clamp_scalars(
    x: &Tensor,
    min: Option<Scalar>,
    max: Option<Scalar>,
    inplace: bool,
) -> Result<Tensor> {
    let rt = if x.dtype.is_floating_point() {
        x.dtype
    } else {
        let mut st = crate::dtype::ResultTypeState::default();
        st.update(x.dtype, x.category());
        for s in min.iter().chain(max.iter()) {
            let t = Tensor::wrapped_scalar(*s);
            st.update(t.dtype, t.category());
        }
        st.result()
    };
    if inplace && rt != x.dtype {
        // the number overload refuses a promoted result type before building its iterator
        return Err(Error::runtime(format!(
            "result type {} can't be cast to the desired output type {}",
            rt.scalar_type_name(),
            type_meta_name(x.dtype)
        )));
    }
    if rt == DType::Bool {
        let kernel = match (min, max) {
            (Some(_), None) => "clamp_min_scalar_cpu",
            (None, Some(_)) => "clamp_max_scalar_cpu",
            _ => "clamp_scalar_cpu",
        };
        return Err(not_impl(kernel, rt));
    }
    let (lo, hi) = clamp_bounds(rt, min, max)?;
    let mut it = TensorIter::new(inplace.then_some(x), &[x])?;
    it.promote_inputs(rt);
    let lp = it.plan::<2>(if inplace { x.dtype } else { rt })?;
    dispatch!(@compute compute_dtype(rt), T => {
        // PyTorch's `std::max(a, min)` / `std::min(a, max)` (and `vec::clamp_min`/`clamp_max`,
        // `max_ps(min, a)`, the same selects): a NaN input stays NaN, and at a tie the input
        // is kept, so `clamp(-0., min=0.)` is `-0.`. A NaN bound makes every element NaN
        // (PyTorch fills the result). One closure per pair of bounds present, so the loop
        // tests none of them; each is a compare and a blend per bound, which vectorises.
        let nan = lo.into_iter().chain(hi).find(|b| b.is_nan());
        match (lo.map(T::from_f64), hi.map(T::from_f64)) {
            _ if nan.is_some() => {
                let v = T::from_f64(f64::NAN);
                run1(&lp, move |_: T| v)
            }
            (Some(l), Some(h)) => run1(&lp, move |v: T| {
                let m = if v.lt(&l) { l } else { v };
                if h.lt(&m) { h } else { m }
            }),
            (Some(l), None) => run1(&lp, move |v: T| if v.lt(&l) { l } else { v }),
            (None, Some(h)) => run1(&lp, move |v: T| if h.lt(&v) { h } else { v }),
            // integer bounds outside the dtype bound nothing: a copy
            (None, None) => run1(&lp, |v: T| v),
        }
    });
    Ok(lp.into_out())
}

/// Runs `f` over the plan `lp` of `[out, a]` (`a` presented as `T`).
fn run1<T: Element, O: Element>(lp: &Plan<'_, 2>, f: impl Fn(T) -> O + Sync) {
    lp.run(&crate::kernels::pointwise::unary_kernel::<T, O>(f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::nn::ClampOpts;

    fn t<T: Element>(v: Vec<T>) -> Tensor {
        let n = v.len();
        Tensor::from_vec(v, [n]).unwrap()
    }

    /// PyTorch 2.15 (`std::max(a, min)`, `max_ps(min, a)`): a tie keeps the input's zero,
    /// a NaN input stays NaN, a NaN bound gives NaN everywhere, crossed bounds give `max`;
    /// the same on the vectorised runs (40 elements) as on a short tail.
    #[test]
    fn clamp_by_numbers_keeps_the_input_at_ties() {
        let nan = f32::NAN;
        let x = t([-0.0f32, 0.0, nan, 2.0, -3.0].repeat(8));
        let bits = |r: Result<Tensor>| -> Vec<u32> {
            r.unwrap().to_vec::<f32>()[..5]
                .iter()
                .map(|v| v.to_bits())
                .collect()
        };
        let f = |v: &[f32]| -> Vec<u32> { v.iter().map(|v| v.to_bits()).collect() };
        let q = nan.to_bits();
        assert_eq!(bits(x.clamp_min(0.0)), f(&[-0.0, 0.0, nan, 2.0, 0.0]));
        assert_eq!(bits(x.clamp_max(-0.0)), f(&[-0.0, 0.0, nan, -0.0, -3.0]));
        let both = |lo: f64, hi: f64| {
            bits(x.clamp_with(ClampOpts {
                min: Some(lo.into()),
                max: Some(hi.into()),
            }))
        };
        assert_eq!(both(0.0, 1.0), f(&[-0.0, 0.0, nan, 1.0, 0.0]));
        assert_eq!(both(1.0, 0.0), f(&[0.0, 0.0, nan, 0.0, 0.0]));
        assert!(bits(x.clamp_min(f64::NAN)).iter().all(|&b| b == q));
        assert!(both(0.0, f64::NAN).iter().all(|&b| b == q));
        let y = x.clone();
        y.clamp_min_(0.0).unwrap();
        assert_eq!(bits(Ok(y)), f(&[-0.0, 0.0, nan, 2.0, 0.0]));
    }

    /// PyTorch 2.15: number bounds outside an integer dtype's range are dropped on the side
    /// where they bound nothing and refused on the other; floats refuse finite overflow.
    #[test]
    fn clamp_number_bounds_against_the_dtype() {
        let u = t(vec![0i64, 4, 200]).to(DType::UInt8).unwrap();
        let r = u.clamp_with(ClampOpts {
            min: Some((-1).into()),
            max: Some(3.into()),
        });
        assert_eq!(r.unwrap().to_vec::<i64>(), [0, 3, 3]);
        assert_eq!(
            u.clamp_min(300).unwrap_err().to_string(),
            "Clamp min value 300 is outside the representable range of Byte"
        );
        assert_eq!(
            u.clamp_max(-1).unwrap_err().to_string(),
            "Clamp max value -1 is outside the representable range of Byte"
        );
        assert_eq!(u.clamp_min_(-1).unwrap().to_vec::<i64>(), [0, 4, 200]);
        let h = t(vec![1.0f32, 2.0]).to(DType::Float16).unwrap();
        assert_eq!(
            h.clamp_min(1e6).unwrap_err().to_string(),
            "value cannot be converted to type c10::Half without overflow"
        );
        assert!(h.clamp_min(f64::INFINITY).is_ok());
        // in place, a promoted result type is refused first (C++ type name)
        assert_eq!(
            t(vec![1i64]).clamp_(0.5, 2).unwrap_err().to_string(),
            "result type Float can't be cast to the desired output type long int"
        );
    }

    /// Two tensor bounds: one iterator over all three, their promotion; bool needs one bound.
    #[test]
    fn clamp_tensor_bounds() {
        let x = t(vec![-1.5f32, 3.5]).to(DType::BFloat16).unwrap();
        let lo = t(vec![false, true]);
        let hi = Tensor::from_vec(vec![3.0f32, -0.5], [2, 1]).unwrap();
        let r = x.clamp(&lo, &hi).unwrap();
        assert_eq!((r.dtype(), r.size()), (DType::Float32, &[2usize, 2][..]));
        assert_eq!(r.to_vec::<f64>(), [0.0, 3.0, -0.5, -0.5]);
        let b = t(vec![true, false]);
        assert_eq!(b.clamp_min(&lo).unwrap().to_vec::<bool>(), [true, true]);
        assert_eq!(
            b.clamp(&lo, &lo).unwrap_err().to_string(),
            "\"clamp_cpu\" not implemented for 'Bool'"
        );
    }

    /// `lerp`: `end` must share `self`'s dtype, a tensor weight too unless it is 0-d (then it
    /// takes part in the promotion).
    #[test]
    fn lerp_dtype_rules() {
        let x = t(vec![1.0f32, 2.0]);
        let e = t(vec![3.0f64, 4.0]);
        assert_eq!(
            x.lerp(&e, 0.5).unwrap_err().to_string(),
            "expected dtype float for `end` but got dtype double"
        );
        let w0 = Tensor::from_vec(vec![0.25f64], ()).unwrap();
        let r = t(vec![1.0f64, 2.0]).lerp(&e, &w0).unwrap();
        assert_eq!(r.to_vec::<f64>(), [1.5, 2.5]);
        let w1 = t(vec![0.25f64, 0.25]);
        assert_eq!(
            x.lerp(&x, &w1).unwrap_err().to_string(),
            "expected dtype float for `weight` but got dtype double"
        );
        // integers 0-d-promoted to float compute; integers alone do not
        let i = t(vec![1i64, 2]);
        let r = i
            .lerp(
                &t(vec![3i64, 4]),
                &Tensor::from_vec(vec![1.0f32], ()).unwrap(),
            )
            .unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<f64>()),
            (DType::Float32, vec![3.0, 4.0])
        );
        assert_eq!(
            i.lerp(&i, 0.5).unwrap_err().to_string(),
            "\"lerp_kernel_scalar\" not implemented for 'Long'"
        );
    }

    /// `value` converts to the result dtype first: 0.5 is 0 for int64.
    #[test]
    fn addcmul_value_converts_to_the_result_dtype() {
        let i = t(vec![3i64, -4]);
        assert_eq!(
            i.addcmul_with(&i, &i, 0.5).unwrap().to_vec::<i64>(),
            [3, -4]
        );
        assert_eq!(i.addcmul_with(&i, &i, 2).unwrap().to_vec::<i64>(), [21, 28]);
        assert!(
            i.addcdiv(&i, &i)
                .unwrap_err()
                .to_string()
                .starts_with("Integer division with addcdiv is no longer supported")
        );
    }
}
