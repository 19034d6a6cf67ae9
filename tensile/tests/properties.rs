//! Property tests of the shape algebra and the engine.

use proptest::prelude::*;
use tensile::broadcast::infer_size;
use tensile::layout::{
    compute_stride, contiguous_strides, infer_dense_strides, is_contiguous,
    is_non_overlapping_and_dense,
};
use tensile::{DType, Tensor};

fn shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..5, 0..5)
}

proptest! {
    /// Broadcasting is symmetric in its two shapes: same result or both errors (whose dims
    /// agree, with "a" and "b" swapped).
    #[test]
    fn broadcast_is_symmetric(a in shape(), b in shape()) {
        match (infer_size(&a, &b), infer_size(&b, &a)) {
            (Ok(x), Ok(y)) => prop_assert_eq!(x, y),
            (Err(_), Err(_)) => {}
            (x, y) => prop_assert!(false, "asymmetric: {:?} vs {:?}", x, y),
        }
    }

    /// A broadcast result keeps every operand's trailing sizes or stretches a 1.
    #[test]
    fn broadcast_result_covers_operands(a in shape(), b in shape()) {
        if let Ok(r) = infer_size(&a, &b) {
            prop_assert_eq!(r.len(), a.len().max(b.len()));
            for s in [&a, &b] {
                for (i, &x) in s.iter().rev().enumerate() {
                    let y = r[r.len() - 1 - i];
                    prop_assert!(x == y || x == 1);
                }
            }
        }
    }

    /// Every contiguous layout can be viewed as any shape with the same number of elements.
    #[test]
    fn contiguous_views_always_succeed(a in shape()) {
        let n: usize = a.iter().product();
        let st = contiguous_strides(&a);
        prop_assert!(is_contiguous(&a, &st));
        prop_assert!(compute_stride(&a, &st, &[n]).is_some());
    }

    /// Dense strides inferred for any layout are non-overlapping and dense.
    #[test]
    fn dense_strides_are_dense(a in shape(), st in prop::collection::vec(0usize..30, 0..5)) {
        let k = a.len().min(st.len());
        let (a, st) = (&a[..k], &st[..k]);
        let d = infer_dense_strides(a, st);
        prop_assert!(is_non_overlapping_and_dense(a, &d));
    }

    /// `a + b` equals the element-wise sum over the broadcast shape, whatever the operands'
    /// layout, and the result holds exactly the broadcast shape.
    #[test]
    fn add_matches_elementwise_reference(rows in 1usize..6, cols in 1usize..6, bcast in any::<bool>()) {
        let a = Tensor::from_vec((0..rows * cols).map(|x| x as f64).collect(), [rows, cols]).unwrap();
        let b = if bcast {
            Tensor::from_vec((0..cols).map(|x| 100.0 * x as f64).collect(), [cols]).unwrap()
        } else {
            Tensor::from_vec((0..rows * cols).map(|x| 100.0 * x as f64).collect(), [rows, cols]).unwrap()
        };
        let c = a.add(&b).unwrap();
        prop_assert_eq!(c.size(), &[rows, cols]);
        let got = c.to_vec::<f64>();
        for i in 0..rows {
            for j in 0..cols {
                let bj = if bcast { j } else { i * cols + j };
                prop_assert_eq!(got[i * cols + j], (i * cols + j) as f64 + 100.0 * bj as f64);
            }
        }
    }

    /// Small ops on row-major inputs run through the small plan's executor; float16 operands
    /// (computed in float32) through the general loop. Both must give the same values, shape
    /// and strides, broadcast or not. (That the layout is PyTorch's is tested in `iter.rs`.)
    #[test]
    fn small_plan_matches_general_iterator(a in shape(), b in shape(), op in 0usize..4) {
        let numel = |s: &[usize]| s.iter().product::<usize>();
        let ta = Tensor::from_vec((0..numel(&a)).map(|x| (x % 7) as f32 + 1.0).collect(), &a).unwrap();
        let tb = Tensor::from_vec((0..numel(&b)).map(|x| (x % 5) as f32 + 1.0).collect(), &b).unwrap();
        let run = |x: &Tensor, y: &Tensor| match op {
            0 => x.add(y),
            1 => x.mul(y),
            2 => x.lt(y),
            _ => x.maximum(y),
        };
        let (ha, hb) = (ta.to(DType::Float16).unwrap(), tb.to(DType::Float16).unwrap());
        match (run(&ta, &tb), run(&ha, &hb)) {
            (Ok(small), Ok(general)) => {
                prop_assert_eq!(small.size(), general.size());
                prop_assert_eq!(small.stride(), general.stride());
                prop_assert_eq!(small.to_vec::<f64>(), general.to_vec::<f64>());
            }
            (Err(x), Err(y)) => prop_assert_eq!(x.to_string(), y.to_string()),
            (x, y) => prop_assert!(false, "{:?} vs {:?}", x.map(|t| t.size().to_vec()), y.map(|t| t.size().to_vec())),
        }
    }
}

#[test]
fn tensor_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Tensor>();
}

/// Writers on other threads through a shared view serialise with readers: the sum of many
/// concurrent `add_`s is exact.
#[test]
fn concurrent_inplace_writes_are_serialised() {
    let base = Tensor::zeros_with([1000], DType::Int64).unwrap();
    std::thread::scope(|s| {
        for _ in 0..4 {
            let v = base.alias();
            s.spawn(move || {
                for _ in 0..100 {
                    v.add_(1).unwrap();
                }
            });
        }
    });
    assert!(base.to_vec::<i64>().iter().all(|&x| x == 400));
}

/// Outputs of 16 MiB and more are written with streaming stores, through a buffer (and a cast
/// when the output dtype is not the compute dtype), in parallel chunks whose ends are not
/// 16-byte aligned. Every element must still be exact.
#[test]
fn large_outputs_are_exact() {
    let n = 5_000_003; // odd: chunk ends and the tail fall mid-vector
    let a = Tensor::arange_with((0.0, n as f64, 1.0), DType::Float32).unwrap();
    let b = Tensor::arange_with((0.0, n as f64, 1.0), DType::Int32).unwrap();
    let check = |t: &Tensor, f: &dyn Fn(f64) -> f64| {
        let v = t.to_vec::<f64>();
        assert_eq!(v.len(), n);
        for (i, &x) in v.iter().enumerate() {
            assert_eq!(x, f(i as f64), "element {i}");
        }
    };
    // float32 output, same dtype in and out
    check(&a.add(&a).unwrap(), &|x| 2.0 * x);
    // int32 + float32 -> float32 (input cast)
    check(&b.add(&a.mul(0.5).unwrap()).unwrap(), &|x| x + 0.5 * x);
    // float16 output: computed in float32, cast on the way out, then streamed
    let h = Tensor::ones_with([n], DType::Float16)
        .unwrap()
        .add(2.0)
        .unwrap();
    assert_eq!(h.dtype(), DType::Float16);
    check(&h, &|_| 3.0);
    // in place writes through the normal path
    let c = a.to(DType::Float32).unwrap().mul(1.0).unwrap();
    c.add_(1.0).unwrap();
    check(&c, &|x| x + 1.0);
    // a strided destination (dim 0 not contiguous) is not streamed but still exact
    let big = Tensor::zeros_with([n, 2], DType::Float32).unwrap();
    let col = big.select(1, 0).unwrap();
    col.copy_(&a).unwrap();
    check(&col, &|x| x);
    check(&big.select(1, 1).unwrap(), &|_| 0.0);
}

/// Products big enough to be split over threads (by rows, one single-threaded block per
/// thread, when there are fewer products than threads) equal the definition exactly
/// (small integers are exact in float32).
#[test]
fn large_products_match_the_definition() {
    let (m, k, n) = (300, 70, 130);
    let av: Vec<f32> = (0..m * k).map(|i| (i % 11) as f32 - 5.0).collect(); // rows differ
    let bv: Vec<f32> = (0..k * n).map(|i| (i % 9) as f32 - 4.0).collect();
    let a = Tensor::from_vec(av.clone(), [m, k]).unwrap();
    let b = Tensor::from_vec(bv.clone(), [k, n]).unwrap();
    for c in [
        a.matmul(&b).unwrap(),
        a.unsqueeze(0).unwrap().matmul(&b).unwrap(),
    ] {
        let got = c.to_vec::<f32>();
        for i in 0..m {
            for j in 0..n {
                let want: f32 = (0..k).map(|p| av[i * k + p] * bv[p * n + j]).sum();
                assert_eq!(got[i * n + j], want, "({i}, {j})");
            }
        }
    }
}
