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
fn linspace_values_are_pytorch_s_bit_for_bit() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/rules/linspace.json"
    ))
    .expect("tests/rules/linspace.json");
    let cases: serde_json::Value = serde_json::from_str(&text).expect("json");
    let cases = cases.as_array().expect("a list");
    assert!(cases.len() >= 6);
    for c in cases {
        let (start, end) = (c["start"].as_f64().unwrap(), c["end"].as_f64().unwrap());
        let steps = c["steps"].as_i64().unwrap();
        let dt = match c["dtype"].as_str().unwrap() {
            "float32" => DType::Float32,
            _ => DType::Float64,
        };
        let want: Vec<f64> = c["bits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| from_hex(b.as_str().unwrap()))
            .collect();
        let got = Tensor::linspace_with(start, end, steps, dt)
            .unwrap()
            .to_vec::<f64>();
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(
                g.to_bits(),
                w.to_bits(),
                "linspace({start}, {end}, {steps}, {dt:?})[{i}]: {g:e} != PyTorch's {w:e}"
            );
        }
    }
    // the example: the midpoint counted back from `end` with a fused multiply-add
    let mid = Tensor::linspace(-1, 1, 7).unwrap().to_vec::<f32>()[3];
    assert_eq!(mid, -2.980_232_2e-8);
}
