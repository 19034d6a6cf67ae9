//! Binary and ternary ops of the `math` family (add/sub with alpha, div with rounding_mode,
//! fmod, copysign, hypot, xlogy, special.xlog1py, float_power, nextafter, logaddexp(2), gcd,
//! lcm, shifts, heaviside, true_divide, lerp, addcmul, addcdiv, clamp/clip), for the
//! conformance runner.
use super::{Arg, Out, kw_arg, kw_str};
use tensile::{ClampOpts, Scalar};

pub fn call(op: &str, args: &[Arg], kw: &serde_json::Value) -> Option<tensile::Result<Out>> {
    let t = || args[0].tensor();
    let o1 = || args[1].operand();
    let scalar_kw = |name: &str| match kw_arg(kw, name) {
        Some(Arg::Scalar(s)) => Some(s),
        Some(_) => panic!("corpus: {name} must be a number"),
        None => None,
    };
    let value = || scalar_kw("value").unwrap_or(Scalar::Int(1));
    let alpha = || scalar_kw("alpha").unwrap_or(Scalar::Int(1));
    let min = kw_arg(kw, "min");
    let max = kw_arg(kw, "max");
    let opts = || ClampOpts {
        min: min.as_ref().map(|a| a.operand()),
        max: max.as_ref().map(|a| a.operand()),
    };
    let r = match op {
        "add" => t().add_with(o1(), alpha()),
        "add_" => t().add_with_(o1(), alpha()),
        "sub" => t().sub_with(o1(), alpha()),
        "sub_" => t().sub_with_(o1(), alpha()),
        "div" => t().div_with(o1(), kw_str(kw, "rounding_mode")),
        "div_" => t().div_with_(o1(), kw_str(kw, "rounding_mode")),
        "true_divide" => t().true_divide(o1()),
        "true_divide_" => t().true_divide_(o1()),
        "fmod" => t().fmod(o1()),
        "fmod_" => t().fmod_(o1()),
        "copysign" => t().copysign(o1()),
        "copysign_" => t().copysign_(o1()),
        "hypot" => t().hypot(o1()),
        "hypot_" => t().hypot_(o1()),
        "xlogy" => tensile::xlogy(args[0].operand(), o1()),
        "xlogy_" => t().xlogy_(o1()),
        "special.xlog1py" => tensile::special::xlog1py(args[0].operand(), o1()),
        "float_power" => tensile::float_power(args[0].operand(), o1()),
        "float_power_" => t().float_power_(o1()),
        "nextafter" => t().nextafter(o1()),
        "nextafter_" => t().nextafter_(o1()),
        "logaddexp" => t().logaddexp(o1()),
        "logaddexp2" => t().logaddexp2(o1()),
        "gcd" => t().gcd(o1()),
        "gcd_" => t().gcd_(o1()),
        "lcm" => t().lcm(o1()),
        "lcm_" => t().lcm_(o1()),
        "bitwise_left_shift" => tensile::bitwise_left_shift(args[0].operand(), o1()),
        "bitwise_left_shift_" => t().bitwise_left_shift_(o1()),
        "bitwise_right_shift" => tensile::bitwise_right_shift(args[0].operand(), o1()),
        "bitwise_right_shift_" => t().bitwise_right_shift_(o1()),
        "heaviside" => t().heaviside(o1()),
        "heaviside_" => t().heaviside_(o1()),
        "lerp" => t().lerp(args[1].tensor(), args[2].operand()),
        "lerp_" => t().lerp_(args[1].tensor(), args[2].operand()),
        "addcmul" => t().addcmul_with(args[1].tensor(), args[2].tensor(), value()),
        "addcmul_" => t().addcmul_with_(args[1].tensor(), args[2].tensor(), value()),
        "addcdiv" => t().addcdiv_with(args[1].tensor(), args[2].tensor(), value()),
        "addcdiv_" => t().addcdiv_with_(args[1].tensor(), args[2].tensor(), value()),
        "clamp" => t().clamp_with(opts()),
        "clamp_" => t().clamp_with_(opts()),
        "clip" => t().clip_with(opts()),
        "clip_" => t().clip_with_(opts()),
        _ => return None,
    };
    Some(r.map(Out::Tensor))
}
