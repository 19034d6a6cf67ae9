//! The continuous group: Uniform, Exponential, Laplace, Cauchy, Gumbel, HalfNormal,
//! LogNormal, TransformedDistribution over the transforms, Independent, and their KL rules.

use std::sync::Arc;

use tensile::distributions::*;
use tensile::{Result, Tensor};

use crate::common::Params;

fn bx<D: Distribution + 'static>(d: Result<D>) -> Result<Box<dyn Distribution>> {
    d.map(|d| Box::new(d) as Box<dyn Distribution>)
}

fn tp(p: &Params, k: &str) -> transforms::Param {
    match p.t(k) {
        Some(t) => transforms::Param::Tensor(t.clone()),
        None => transforms::Param::Number(p.num(k).expect("number")),
    }
}

/// The fixture's `TransformedDistribution` builders (`BUILDERS` in
/// `scripts/dist_fixtures/continuous.py`, built the same way) and the plain classes.
pub fn build(name: &str, p: &Params, validate: bool) -> Option<Result<Box<dyn Distribution>>> {
    let d = match name {
        "Uniform" => bx(Uniform::new_with(p.op("low"), p.op("high"), validate)),
        "Exponential" => bx(Exponential::new_with(p.op("rate"), validate)),
        "Laplace" => bx(Laplace::new_with(p.op("loc"), p.op("scale"), validate)),
        "Cauchy" => bx(Cauchy::new_with(p.op("loc"), p.op("scale"), validate)),
        "Gumbel" => bx(Gumbel::new_with(p.op("loc"), p.op("scale"), validate)),
        "HalfNormal" => bx(HalfNormal::new_with(p.op("scale"), validate)),
        "LogNormal" => bx(LogNormal::new_with(p.op("loc"), p.op("scale"), validate)),
        // TransformedDistribution(Uniform(0, 1), [SigmoidTransform().inv,
        // AffineTransform(loc, scale)]): the logistic distribution.
        "Logistic" => (|| {
            let base = Uniform::new_with(p.op("low"), p.op("high"), validate)?;
            let sig: TransformRef = Arc::new(SigmoidTransform);
            let ts: Vec<TransformRef> = vec![
                transforms::inv(&sig),
                Arc::new(AffineTransform::new(tp(p, "loc"), tp(p, "scale"))),
            ];
            bx(TransformedDistribution::new_with(
                Box::new(base),
                ts,
                validate,
            ))
        })(),
        // TransformedDistribution(Normal(loc, scale), [TanhTransform()]).
        "TanhNormal" => (|| {
            let base = Normal::new_with(p.op("loc"), p.op("scale"), validate)?;
            bx(TransformedDistribution::new_with(
                Box::new(base),
                vec![Arc::new(TanhTransform) as TransformRef],
                validate,
            ))
        })(),
        // TransformedDistribution(Normal(loc, scale), [StickBreakingTransform()]).
        "StickBreakingNormal" => (|| {
            let base = Normal::new_with(p.op("loc"), p.op("scale"), validate)?;
            bx(TransformedDistribution::new_with(
                Box::new(base),
                vec![Arc::new(StickBreakingTransform) as TransformRef],
                validate,
            ))
        })(),
        // TransformedDistribution(Normal(loc, scale), [SoftmaxTransform()]).
        "SoftmaxNormal" => (|| {
            let base = Normal::new_with(p.op("loc"), p.op("scale"), validate)?;
            bx(TransformedDistribution::new_with(
                Box::new(base),
                vec![Arc::new(SoftmaxTransform) as TransformRef],
                validate,
            ))
        })(),
        // TransformedDistribution(Exponential(rate), [ComposeTransform([PowerTransform(
        // exponent), AffineTransform(loc, scale)])]): a Weibull-like chain.
        "PowerAffineExponential" => (|| {
            let base = Exponential::new_with(p.op("rate"), validate)?;
            let c = ComposeTransform::new(vec![
                Arc::new(PowerTransform::new(p.op("exponent"))?) as TransformRef,
                Arc::new(AffineTransform::new(tp(p, "loc"), tp(p, "scale"))),
            ]);
            bx(TransformedDistribution::new_with(
                Box::new(base),
                vec![Arc::new(c) as TransformRef],
                validate,
            ))
        })(),
        // TransformedDistribution(Normal(loc, scale), [ExpTransform(),
        // AffineTransform(loc2, scale2, event_dim=1)]).
        "ExpAffineEvent" => (|| {
            let base = Normal::new_with(p.op("loc"), p.op("scale"), validate)?;
            let ts: Vec<TransformRef> = vec![
                Arc::new(ExpTransform),
                Arc::new(AffineTransform::with_event_dim(
                    tp(p, "loc2"),
                    tp(p, "scale2"),
                    1,
                )),
            ];
            bx(TransformedDistribution::new_with(
                Box::new(base),
                ts,
                validate,
            ))
        })(),
        // Independent(Normal(loc, scale), ndims).
        "IndependentNormal" => (|| {
            let base = Normal::new_with(p.op("loc"), p.op("scale"), validate)?;
            let n = p.num("ndims").expect("ndims") as usize;
            bx(Independent::new_with(Box::new(base), n, validate))
        })(),
        // Independent(Uniform(low, high), ndims).
        "IndependentUniform" => (|| {
            let base = Uniform::new_with(p.op("low"), p.op("high"), validate)?;
            let n = p.num("ndims").expect("ndims") as usize;
            bx(Independent::new_with(Box::new(base), n, validate))
        })(),
        _ => return None,
    };
    Some(d)
}

/// The transforms' own surface (repr, domain/codomain, bijective, sign, event_dim, shapes,
/// forward/inverse/log_abs_det_jacobian values) against PyTorch, from the fixture's
/// `transforms` section.
pub fn check_transforms() {
    let path = format!(
        "{}/tests/data/distributions/continuous_transforms.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let fx: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture")).unwrap();
    for c in fx["cases"].as_array().unwrap() {
        let id = c["id"].as_str().unwrap();
        let t = make_transform(c["transform"].as_str().unwrap());
        assert_eq!(t.repr(), c["repr"].as_str().unwrap(), "{id}: repr");
        assert_eq!(
            t.domain().to_string(),
            c["domain"].as_str().unwrap(),
            "{id}: domain"
        );
        assert_eq!(
            t.codomain().to_string(),
            c["codomain"].as_str().unwrap(),
            "{id}: codomain"
        );
        assert_eq!(
            t.bijective(),
            c["bijective"].as_bool().unwrap(),
            "{id}: bijective"
        );
        match (&c["sign"], t.sign()) {
            (serde_json::Value::Null, Err(_)) => {}
            (serde_json::Value::Number(n), Ok(transforms::Sign::Int(s))) => {
                assert_eq!(s, n.as_i64().unwrap(), "{id}: sign")
            }
            (w, Ok(transforms::Sign::Tensor(s))) if w.is_object() => {
                crate::common::check_tensor(&s, w, &format!("{id}: sign"))
            }
            (w, g) => panic!("{id}: sign: PyTorch {w}, tensile {g:?}"),
        }
        match (&c["event_dim"], t.event_dim()) {
            (serde_json::Value::Null, Err(_)) => {}
            (w, Ok(e)) => assert_eq!(Some(e as u64), w.as_u64(), "{id}: event_dim"),
            (w, Err(e)) => panic!("{id}: event_dim: PyTorch {w}, tensile {e}"),
        }
        let shape: Vec<usize> = c["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as usize)
            .collect();
        let fs: Vec<u64> = t
            .forward_shape(&shape)
            .unwrap()
            .iter()
            .map(|&d| d as u64)
            .collect();
        let want: Vec<u64> = c["forward_shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        assert_eq!(fs, want, "{id}: forward_shape");
        let is: Vec<u64> = t
            .inverse_shape(&shape)
            .unwrap()
            .iter()
            .map(|&d| d as u64)
            .collect();
        let want: Vec<u64> = c["inverse_shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        assert_eq!(is, want, "{id}: inverse_shape");
        let x = crate::common::tensor(&c["x"]);
        let y = t.call(&x);
        crate::common::check_outcome(y.clone(), &c["y"], &format!("{id}: forward"));
        let y = y.unwrap();
        crate::common::check_outcome(t.inverse(&y), &c["x_back"], &format!("{id}: inverse"));
        crate::common::check_outcome(
            t.log_abs_det_jacobian(&x, &y),
            &c["ladj"],
            &format!("{id}: log_abs_det_jacobian"),
        );
        let ti = transforms::inv(&t);
        assert_eq!(ti.repr(), c["inv_repr"].as_str().unwrap(), "{id}: inv repr");
        crate::common::check_outcome(
            ti.log_abs_det_jacobian(&y, &x),
            &c["inv_ladj"],
            &format!("{id}: inv log_abs_det_jacobian"),
        );
        if let Some(eq) = c.get("eq_self_copy") {
            let t2 = make_transform(c["transform"].as_str().unwrap());
            assert_eq!(t.equals(&*t2), eq.as_bool().unwrap(), "{id}: ==");
        }
    }
}

/// The transforms the fixture names.
fn make_transform(name: &str) -> TransformRef {
    let t = |v: Vec<f64>| {
        let n = v.len();
        Tensor::from_vec(v, [n]).unwrap()
    };
    match name {
        "exp" => Arc::new(ExpTransform),
        "sigmoid" => Arc::new(SigmoidTransform),
        "tanh" => Arc::new(TanhTransform),
        "abs" => Arc::new(AbsTransform),
        "softmax" => Arc::new(SoftmaxTransform),
        "stickbreaking" => Arc::new(StickBreakingTransform),
        "affine_num" => Arc::new(AffineTransform::new(1.5, -2.0)),
        "affine_tensor" => Arc::new(AffineTransform::new(
            t(vec![0.5, -1.0, 2.0]).to(tensile::DType::Float32).unwrap(),
            t(vec![2.0, 0.5, -3.0]).to(tensile::DType::Float32).unwrap(),
        )),
        "affine_event" => Arc::new(AffineTransform::with_event_dim(
            0.0,
            t(vec![2.0, 0.5, -3.0]).to(tensile::DType::Float32).unwrap(),
            1,
        )),
        "power" => Arc::new(PowerTransform::new(2.5).unwrap()),
        "inv_exp" => transforms::inv(&(Arc::new(ExpTransform) as TransformRef)),
        "compose" => Arc::new(ComposeTransform::new(vec![
            Arc::new(AffineTransform::new(0.5, 2.0)) as TransformRef,
            Arc::new(ExpTransform),
            Arc::new(StickBreakingTransform),
        ])),
        "compose_empty" => Arc::new(ComposeTransform::new(Vec::new())),
        _ => panic!("transform {name}"),
    }
}
