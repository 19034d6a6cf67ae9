//! Rules of issue 30 that a tolerance cannot check, against PyTorch 2.15's values bit for bit
//! (`scripts/make_rules_corpus.py` writes the fixtures under `tests/rules/`; the rest of the
//! issue's rules are corpus cases, families `local_rules` and `local_dtypes`).

use tensile::{DType, Tensor};

/// A Python `float.hex()` string (`-0x1.5555540000000p-1`, `0x0.0p+0`, `inf`) as its double.
fn from_hex(s: &str) -> f64 {
    match s {
        "inf" => return f64::INFINITY,
        "-inf" => return f64::NEG_INFINITY,
        "nan" => return f64::NAN,
        _ => {}
    }
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let s = s.strip_prefix("0x").expect("hex float");
    let (mant, exp) = s.split_once('p').expect("exponent");
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let mut v = u64::from_str_radix(int, 16).expect("hex digits") as f64;
    let mut scale = 1.0 / 16.0;
    for c in frac.chars() {
        v += c.to_digit(16).expect("hex digit") as f64 * scale;
        scale /= 16.0;
    }
    let v = v * 2f64.powi(exp.parse::<i32>().expect("exponent"));
    if neg { -v } else { v }
}

/// The cases of fixture `tests/rules/<name>` (a JSON list, at least `min` long).
fn fixture(name: &str, min: usize) -> Vec<serde_json::Value> {
    let path = format!("{}/tests/rules/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect(&path);
    let cases: serde_json::Value = serde_json::from_str(&text).expect("json");
    let cases = cases.as_array().expect("a list").clone();
    assert!(cases.len() >= min, "{path}: {} cases", cases.len());
    cases
}

/// A case's dtype name as a [`DType`].
fn dtype_of(c: &serde_json::Value) -> DType {
    match c["dtype"].as_str().unwrap() {
        "float16" => DType::Float16,
        "bfloat16" => DType::BFloat16,
        "float32" => DType::Float32,
        "float64" => DType::Float64,
        "int64" => DType::Int64,
        other => panic!("dtype {other}"),
    }
}

/// Asserts `got` equals the case's `bits` (PyTorch's values as `float.hex()`) bit for bit;
/// `what` names the call in the message.
fn assert_bits(got: &[f64], c: &serde_json::Value, what: &str) {
    let want: Vec<f64> = c["bits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| from_hex(b.as_str().unwrap()))
        .collect();
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        if w.is_nan() {
            // `float.hex()` writes every NaN as `nan`: its sign and payload are not recorded
            assert!(g.is_nan(), "{what}[{i}]: {g:e} != PyTorch's NaN");
            continue;
        }
        assert_eq!(
            g.to_bits(),
            w.to_bits(),
            "{what}[{i}]: {g:e} != PyTorch's {w:e}"
        );
    }
}

#[test]
fn linspace_and_logspace_values_are_pytorch_s_bit_for_bit() {
    for c in fixture("ranges.json", 20) {
        let op = c["op"].as_str().unwrap();
        let (start, end) = (c["start"].as_f64().unwrap(), c["end"].as_f64().unwrap());
        let steps = c["steps"].as_i64().unwrap();
        let dt = dtype_of(&c);
        let got = match op {
            "linspace" => Tensor::linspace_with(start, end, steps, dt),
            _ => Tensor::logspace_with(start, end, steps, (c["base"].as_f64().unwrap(), dt)),
        }
        .unwrap()
        .to_vec::<f64>();
        assert_bits(&got, &c, &format!("{op}({start}, {end}, {steps}, {dt:?})"));
    }
    // the example: the midpoint counted back from `end` with a fused multiply-add
    let mid = Tensor::linspace(-1, 1, 7).unwrap().to_vec::<f32>()[3];
    assert_eq!(mid, -2.980_232_2e-8);
}

/// PyTorch converts a double to float16/bfloat16 through float32 (`c10::Half(float)`), each
/// step rounding to nearest even: a double just above a half-type midpoint by less than half a
/// float32 ulp lands on the midpoint and ties to even, one above it by more rounds up (the
/// `half` crate's `from_f64` drops the low 32 mantissa bits first and gets 5.1875 for the
/// third in bfloat16 and 1.0 for the fifth in float16). (PyTorch 2.15's values.)
#[test]
fn doubles_round_to_the_half_types_through_float32() {
    let x = [
        from_hex("0x1.0020000001000p+0"),
        from_hex("0x1.0100000001000p+0"),
        from_hex("0x1.4d000f5025e29p+2"),
        from_hex("0x1.0020000035afep+11"),
        from_hex("0x1.0020040000000p+0"),
    ];
    let t = Tensor::from_vec(x.to_vec(), [5]).unwrap();
    let f16 = t.to(DType::Float16).unwrap().to_vec::<f64>();
    assert_eq!(f16, [1.0, 1.00390625, 5.203125, 2048.0, 1.0009765625]);
    let bf16 = t.to(DType::BFloat16).unwrap().to_vec::<f64>();
    assert_eq!(bf16, [1.0, 1.0, 5.21875, 2048.0, 1.0]);
    // a Python float filled into a bfloat16 tensor converts the same way
    let full = Tensor::full_with([1], x[2], DType::BFloat16).unwrap();
    assert_eq!(full.to_vec::<f64>(), [5.21875]);
}

/// Float16/bfloat16 results bit for bit where PyTorch 2.15's rounding points change the last
/// bit and the corpus tolerance would not see it (`tests/rules/half_bits.json`, written by
/// `scripts/make_rules_corpus.py`): `xlogy`/`xlog1py` round the logarithm of a `Half` to the
/// type before the product; bfloat16 instance norm stores its sum of squares in bfloat16 and
/// divides it there; linear, trilinear and bicubic interpolation hold their weights in the
/// type; `add` with alpha is fused over whole 32-element blocks of a contiguous inner run and
/// rounded twice elsewhere. And `pow` with a number exponent in every float dtype: `x * x *
/// x` for 3 rounds twice, `1 / (x * x)` for -2 too, bfloat16 rounds each product and compares
/// the exponent rounded to bfloat16 (2.001 squares), float16 raises to the exponent rounded
/// to float16.
#[test]
fn half_precision_rounding_points_are_pytorch_s_bit_for_bit() {
    use tensile::nn::functional as tf;
    let floats = |v: &serde_json::Value| -> Vec<f64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    let ints = |v: &serde_json::Value| -> Vec<i64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect()
    };
    for c in fixture("half_bits.json", 30) {
        let op = c["op"].as_str().unwrap();
        let dt = dtype_of(&c);
        let shape: Vec<usize> = ints(&c["shape"]).iter().map(|&s| s as usize).collect();
        let ins = c["inputs"].as_array().unwrap();
        let t = |i: usize, shape: &[usize]| {
            Tensor::from_vec(floats(&ins[i]), shape)
                .unwrap()
                .to(dt)
                .unwrap()
        };
        let x = t(0, &shape);
        let got = match op {
            "add" => {
                let b = match c["layout"].as_str().unwrap() {
                    "same" => t(1, &shape),
                    "scalar" => t(1, &[1]),
                    "row" => t(1, &shape[1..]),
                    _ => t(1, &[shape[1], shape[0]]).t().unwrap(),
                };
                x.add_with(&b, c["alpha"].as_f64().unwrap())
            }
            "pow" => x.pow(c["exponent"].as_f64().unwrap()),
            "xlogy" => x.xlogy(&t(1, &shape)),
            "xlog1py" => tensile::special::xlog1py(&x, &t(1, &shape)),
            "instance_norm" => {
                let (w, b) = (t(1, &shape[1..2]), t(2, &shape[1..2]));
                tf::instance_norm_with(&x, (&w, &b))
            }
            _ => {
                let opts = tf::InterpolateOpts {
                    size: Some(ints(&c["size"]).into_iter().collect()),
                    mode: c["mode"].as_str().unwrap(),
                    align_corners: c["align_corners"].as_bool(),
                    ..Default::default()
                };
                tf::interpolate_with(&x, opts)
            }
        }
        .unwrap()
        .to_vec::<f64>();
        assert_bits(
            &got,
            &c,
            &format!("{op} {dt:?} {:?} {:?}", c.get("mode"), c.get("exponent")),
        );
    }
}

/// The vector casts of contiguous runs (AVX-512 where the CPU has it) give the element cast's
/// values bit for bit (a strided source takes the element loop): rounding to nearest even,
/// overflow to infinity, subnormals, NaN, and the "integer indefinite" `i64::MIN`/`i32::MIN`
/// of PyTorch's x86-64 float-to-integer casts for NaN and out-of-range values.
#[test]
fn vector_casts_match_the_element_cast() {
    let bits: [u32; 12] = [
        0x7F80_0001, // signalling NaN
        0xFFC1_2345, // quiet NaN with payload
        0x0000_0001, // smallest subnormal
        0x807F_FFFF, // largest negative subnormal
        0x3380_0000, // float16's half-ulp at its smallest subnormal
        0x477F_F000, // 65520: float16 rounds to infinity
        0x3F80_8000, // bfloat16 tie to even
        0x3F81_8000, // bfloat16 tie to even, upwards
        0x5F00_0000, // 2^63
        0xDF00_0000, // -2^63
        0x4F00_0000, // 2^31
        0x8000_0000, // -0.0
    ];
    let mut v: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b)).collect();
    v.extend([
        1.5,
        -2.5,
        0.1,
        65504.0,
        1e-8,
        6e-5,
        3e9,
        -3e9,
        9.3e18,
        -9.3e18,
        1e30,
        -7.75,
        f32::INFINITY,
        f32::NEG_INFINITY,
        123456.7,
        -0.49,
        0.5,
        2.5e-39,
        1e-45,
        33.3,
    ]);
    let n = v.len();
    let same = |a: &[f64], b: &[f64], what: &str| {
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            assert!(
                x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
                "{what}: element {i}: {x} vs {y}"
            );
        }
    };
    let contiguous = Tensor::from_vec(v.clone(), [n]).unwrap();
    // the same values at stride 2 (every other element of a (n, 2) tensor)
    let wide: Vec<f32> = v.iter().flat_map(|&x| [x, 0.0]).collect();
    let strided = Tensor::from_vec(wide, [n, 2])
        .unwrap()
        .select(1, 0)
        .unwrap();
    for dt in [
        DType::Float16,
        DType::BFloat16,
        DType::Float64,
        DType::Int32,
        DType::Int64,
    ] {
        let a = contiguous.to(dt).unwrap();
        let b = strided.to(dt).unwrap();
        same(
            &a.to_vec::<f64>(),
            &b.to_vec::<f64>(),
            &format!("float32 to {dt:?}"),
        );
        // and back to float32, contiguous against strided
        let back_a = a.to(DType::Float32).unwrap();
        let b2 = tensile::stack_with(&[&a, &a], 1)
            .unwrap()
            .select(1, 0)
            .unwrap();
        let back_b = b2.to(DType::Float32).unwrap();
        same(
            &back_a.to_vec::<f64>(),
            &back_b.to_vec::<f64>(),
            &format!("{dt:?} to float32"),
        );
    }
}
