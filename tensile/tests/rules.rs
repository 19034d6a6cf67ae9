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

#[test]
fn linspace_and_logspace_values_are_pytorch_s_bit_for_bit() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/rules/ranges.json"
    ))
    .expect("tests/rules/ranges.json");
    let cases: serde_json::Value = serde_json::from_str(&text).expect("json");
    let cases = cases.as_array().expect("a list");
    assert!(cases.len() >= 20);
    for c in cases {
        let op = c["op"].as_str().unwrap();
        let (start, end) = (c["start"].as_f64().unwrap(), c["end"].as_f64().unwrap());
        let steps = c["steps"].as_i64().unwrap();
        let dt = match c["dtype"].as_str().unwrap() {
            "float16" => DType::Float16,
            "bfloat16" => DType::BFloat16,
            "float32" => DType::Float32,
            "float64" => DType::Float64,
            "int64" => DType::Int64,
            other => panic!("dtype {other}"),
        };
        let want: Vec<f64> = c["bits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| from_hex(b.as_str().unwrap()))
            .collect();
        let got = match op {
            "linspace" => Tensor::linspace_with(start, end, steps, dt),
            _ => Tensor::logspace_with(start, end, steps, (c["base"].as_f64().unwrap(), dt)),
        }
        .unwrap()
        .to_vec::<f64>();
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(
                g.to_bits(),
                w.to_bits(),
                "{op}({start}, {end}, {steps}, {dt:?})[{i}]: {g:e} != PyTorch's {w:e}"
            );
        }
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
