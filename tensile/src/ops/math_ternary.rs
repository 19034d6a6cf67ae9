//! Pointwise ops of three operands: `lerp` (number or tensor weight), `addcmul`, `addcdiv`
//! (with `value`), and `clamp`/`clip` with tensor bounds; with their in-place forms. Every
//! tensor operand broadcasts with the others (PyTorch's TensorIterator over all of them).

use crate::dispatch;
use crate::dtype::{DType, check_can_cast};
use crate::element::{Element, compute_dtype};
use crate::error::{Error, Result};
use crate::iter::{TensorIter, lock_operands, result_type_of};
use crate::kernels::loops::Loop;
use crate::kernels::math::Arith;
use crate::kernels::pointwise3;
use crate::ops::Operand;
use crate::ops::math_binary::{not_impl, run2, scalar_as};
use crate::ops::math_scalar as sm;
use crate::ops::matmul::type_meta_name;
use crate::ops::nn::ClampOpts;
use crate::tensor::{Scalar, Tensor};

/// Runs `f` over the loop `lp` of `[out, a, b, c]`, the inputs presented as `T`, the output
/// as `O`. `inplace`: `out` is `a`'s alias.
fn run3<T: Element, O: Element>(
    out: &Tensor,
    lp: &Loop<4>,
    ins: [&Tensor; 3],
    inplace: bool,
    f: impl Fn(T, T, T) -> O + Sync,
) {
    let guard = if inplace {
        lock_operands(&[out, ins[0], ins[1], ins[2]], 1)
    } else {
        lock_operands(&ins, 0)
    };
    // SAFETY: the iterator checked shapes and overlap and built `lp` from these operands,
    // whose geometries lie inside their storages; the locks are held; the loop converts every
    // operand to the kernel dtypes given here, which are the pointer types of the kernel.
    unsafe {
        lp.run([O::DTYPE, T::DTYPE, T::DTYPE, T::DTYPE], 1, &|p, s, n| {
            pointwise3::ternary::<T, O>(p, s, n, &f)
        })
    }
    drop(guard);
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

/// `torch.lerp`: dtype checks, then the binary (number weight) or ternary (tensor weight)
/// iterator, then the float-only kernel.
fn lerp_impl(a: &Tensor, end: &Tensor, weight: Operand<'_>, inplace: bool) -> Result<Tensor> {
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
            let (out, lp) = it.finish::<3>(if inplace { a.dtype } else { dt })?;
            match compute_dtype(dt) {
                DType::Float64 => {
                    let w: f64 = scalar_as(w);
                    run2(&out, &lp, [a, end], inplace, move |x: f64, y: f64| {
                        sm::lerp(x, y, w)
                    })
                }
                _ => {
                    let w: f32 = scalar_as(w);
                    run2(&out, &lp, [a, end], inplace, move |x: f32, y: f32| {
                        sm::lerp(x, y, w)
                    })
                }
            }
            Ok(out)
        }
        Operand::Tensor(w) => {
            if w.dtype != a.dtype {
                return Err(dt_err("weight", w.dtype));
            }
            let (mut it, dt) = build(&[a, end, w], inplace)?;
            if !dt.is_floating_point() {
                return Err(not_impl("lerp_kernel_tensor", dt));
            }
            it.promote_inputs(dt);
            let (out, lp) = it.finish::<4>(if inplace { a.dtype } else { dt })?;
            match compute_dtype(dt) {
                DType::Float64 => run3(&out, &lp, [a, end, w], inplace, sm::lerp::<f64>),
                _ => run3(&out, &lp, [a, end, w], inplace, sm::lerp::<f32>),
            }
            Ok(out)
        }
    }
}

/// `addcmul` (`div = false`) and `addcdiv` (`div = true`): `self + value * t1 * t2` or
/// `self + value * t1 / t2` in the promotion of all three.
fn addc_impl(
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
    let (out, lp) = it.finish::<4>(if inplace { a.dtype } else { dt })?;
    let ins = [a, t1, t2];
    dispatch!(@compute compute_dtype(dt), T => {
        let v: T = scalar_as(value);
        if div {
            run3(&out, &lp, ins, inplace, move |x: T, y: T, z: T| Arith::add(x, Arith::div(Arith::mul(v, y), z)))
        } else {
            run3(&out, &lp, ins, inplace, move |x: T, y: T, z: T| Arith::add(x, Arith::mul(Arith::mul(v, y), z)))
        }
    });
    Ok(out)
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
        let (out, lp) = it.finish::<4>(out_dt)?;
        dispatch!(@compute cdt, T => run3(&out, &lp, [ins[0], ins[1], ins[2]], inplace,
            |v: T, l: T, h: T| Arith::minimum(Arith::maximum(v, l), h)));
        Ok(out)
    } else {
        let (out, lp) = it.finish::<3>(out_dt)?;
        let pair = [ins[0], ins[1]];
        if lo.is_some() {
            dispatch!(@compute cdt, T => run2(&out, &lp, pair, inplace, |v: T, l: T| Arith::maximum(v, l)));
        } else {
            dispatch!(@compute cdt, T => run2(&out, &lp, pair, inplace, |v: T, h: T| Arith::minimum(v, h)));
        }
        Ok(out)
    }
}

/// `torch.clamp` / `clamp_` with optional bounds: the tensor overload when a bound is a
/// tensor, otherwise the number overload ([`crate::ops::nn`]'s `clamp_impl`).
pub(crate) fn clamp_any(
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
    if inplace {
        // the number overload refuses a promoted result type before computing
        let mut st = crate::dtype::ResultTypeState::default();
        st.update(x.dtype, x.category());
        for b in min.iter().chain(max.iter()) {
            let t = b.to_tensor();
            st.update(t.dtype, t.category());
        }
        let rt = st.result();
        if !x.dtype.is_floating_point() && rt != x.dtype {
            return Err(Error::runtime(format!(
                "result type {} can't be cast to the desired output type {}",
                rt.scalar_type_name(),
                type_meta_name(x.dtype)
            )));
        }
        return crate::ops::unary::write_back(x, || crate::ops::nn::clamp_impl(x, min, max));
    }
    crate::ops::nn::clamp_impl(x, min, max)
}

impl Tensor {
    /// `torch.lerp(self, end, weight)`: `self + weight * (end - self)` (computed as PyTorch
    /// does: from `end` backwards when `|weight| >= 0.5`). `weight` is a number or a tensor.
    ///
    /// Shapes: `self`, `end` (and a tensor `weight`) broadcast together. dtype: `self`'s,
    /// which `end` and a tensor `weight` must share; floats only.
    ///
    /// Errors, in order: `expected dtype float for `end` but got dtype long int` (C++ type
    /// names; likewise for `weight`); the broadcast error; `"lerp_kernel_scalar" not
    /// implemented for 'Long'` (`lerp_kernel_tensor` with a tensor weight).
    pub fn lerp<'w>(&self, end: &Tensor, weight: impl Into<Operand<'w>>) -> Result<Tensor> {
        lerp_impl(self, end, weight.into(), false)
    }
    /// `self.lerp_(end, weight)`: [`Tensor::lerp`] written into `self` (the others broadcast
    /// to `self`'s shape: `output with shape [2, 2] doesn't match the broadcast shape [1, 2,
    /// 2]`). Returns `self`.
    pub fn lerp_<'w>(&self, end: &Tensor, weight: impl Into<Operand<'w>>) -> Result<Tensor> {
        lerp_impl(self, end, weight.into(), true)
    }

    /// `torch.addcmul(self, tensor1, tensor2)`: `self + tensor1 * tensor2` (`value = 1`).
    ///
    /// Shapes: all three broadcast together. dtype: the promotion of all three. Errors: the
    /// broadcast error; bool: `"addcmul_cpu_out" not implemented for 'Bool'`.
    pub fn addcmul(&self, tensor1: &Tensor, tensor2: &Tensor) -> Result<Tensor> {
        addc_impl(self, tensor1, tensor2, Scalar::Int(1), false, false)
    }
    /// `torch.addcmul(self, tensor1, tensor2, value=v)`: `self + v * tensor1 * tensor2`; `v`
    /// is converted to the result dtype first (`0.5` is 0 for an int64 result).
    pub fn addcmul_with(
        &self,
        tensor1: &Tensor,
        tensor2: &Tensor,
        value: impl Into<Scalar>,
    ) -> Result<Tensor> {
        addc_impl(self, tensor1, tensor2, value.into(), false, false)
    }
    /// `self.addcmul_(tensor1, tensor2)`: in place (`result type Float can't be cast to the
    /// desired output type Long`, and the in-place broadcast errors). Returns `self`.
    pub fn addcmul_(&self, tensor1: &Tensor, tensor2: &Tensor) -> Result<Tensor> {
        addc_impl(self, tensor1, tensor2, Scalar::Int(1), false, true)
    }
    /// `self.addcmul_(tensor1, tensor2, value=v)`: [`Tensor::addcmul_with`] in place.
    pub fn addcmul_with_(
        &self,
        tensor1: &Tensor,
        tensor2: &Tensor,
        value: impl Into<Scalar>,
    ) -> Result<Tensor> {
        addc_impl(self, tensor1, tensor2, value.into(), false, true)
    }

    /// `torch.addcdiv(self, tensor1, tensor2)`: `self + tensor1 / tensor2` (`value = 1`).
    ///
    /// Shapes: all three broadcast together. dtype: the promotion of all three.
    /// Errors, in order: `tensor1` and `tensor2` both integer or bool: `Integer division with
    /// addcdiv is no longer supported, and in a future  release addcdiv will perform a true
    /// division of tensor1 and tensor2. …`; the broadcast error.
    pub fn addcdiv(&self, tensor1: &Tensor, tensor2: &Tensor) -> Result<Tensor> {
        addc_impl(self, tensor1, tensor2, Scalar::Int(1), true, false)
    }
    /// `torch.addcdiv(self, tensor1, tensor2, value=v)`: `self + v * tensor1 / tensor2`.
    pub fn addcdiv_with(
        &self,
        tensor1: &Tensor,
        tensor2: &Tensor,
        value: impl Into<Scalar>,
    ) -> Result<Tensor> {
        addc_impl(self, tensor1, tensor2, value.into(), true, false)
    }
    /// `self.addcdiv_(tensor1, tensor2)`: in place. Returns `self`.
    pub fn addcdiv_(&self, tensor1: &Tensor, tensor2: &Tensor) -> Result<Tensor> {
        addc_impl(self, tensor1, tensor2, Scalar::Int(1), true, true)
    }
    /// `self.addcdiv_(tensor1, tensor2, value=v)`: [`Tensor::addcdiv_with`] in place.
    pub fn addcdiv_with_(
        &self,
        tensor1: &Tensor,
        tensor2: &Tensor,
        value: impl Into<Scalar>,
    ) -> Result<Tensor> {
        addc_impl(self, tensor1, tensor2, value.into(), true, true)
    }

    /// `torch.clip(self, min, max)`: an alias of [`Tensor::clamp`].
    pub fn clip<'a, 'b>(
        &self,
        min: impl Into<Operand<'a>>,
        max: impl Into<Operand<'b>>,
    ) -> Result<Tensor> {
        clamp_any(self, Some(min.into()), Some(max.into()), false)
    }
    /// `torch.clip(self, min=…, max=…)` with either bound optional: [`Tensor::clamp_with`].
    pub fn clip_with<'a>(&self, opts: ClampOpts<'a>) -> Result<Tensor> {
        clamp_any(self, opts.min, opts.max, false)
    }
    /// `self.clip_(min, max)`: an alias of [`Tensor::clamp_`].
    pub fn clip_<'a, 'b>(
        &self,
        min: impl Into<Operand<'a>>,
        max: impl Into<Operand<'b>>,
    ) -> Result<Tensor> {
        clamp_any(self, Some(min.into()), Some(max.into()), true)
    }
    /// `self.clip_(min=…, max=…)` with either bound optional: [`Tensor::clamp_with_`].
    pub fn clip_with_<'a>(&self, opts: ClampOpts<'a>) -> Result<Tensor> {
        clamp_any(self, opts.min, opts.max, true)
    }
}
