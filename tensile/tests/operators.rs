//! The operator traits (`&a + &b`, `a += 2.0`, `-&a`, `!&a`, …) and the `tensor!` literal macro,
//! used from outside the crate as a user would.

use tensile::{DType, Scalar, Tensor, tensor};

fn f32s(v: &[f32], shape: &[usize]) -> Tensor {
    Tensor::from_slice(v, shape).unwrap()
}

/// The panic message of `f`, which must panic.
fn panic_message(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = std::panic::catch_unwind(f);
    std::panic::set_hook(prev);
    let e = r.expect_err("expected a panic");
    match (e.downcast_ref::<String>(), e.downcast_ref::<&str>()) {
        (Some(s), _) => s.clone(),
        (_, Some(s)) => s.to_string(),
        _ => String::new(),
    }
}

// ---------------------------------------------------------------- tensor!

#[test]
fn tensor_literal_shapes_and_dtypes() {
    let a = tensor![1, 2, 3];
    assert_eq!((a.size(), a.dtype()), (&[3][..], DType::Int64));
    assert_eq!(a.to_vec::<i64>(), vec![1, 2, 3]);
    assert_eq!(a.stride(), &[1]);

    let b = tensor![[1.0, 2.0], [3.0, 4.0]];
    assert_eq!((b.size(), b.dtype()), (&[2, 2][..], DType::Float32));
    assert_eq!(b.to_string(), "tensor([[1., 2.],\n        [3., 4.]])");
    assert!(b.is_contiguous());

    let c = tensor![true, false];
    assert_eq!((c.size(), c.dtype()), (&[2][..], DType::Bool));
    assert_eq!(c.to_string(), "tensor([ True, False])");

    let d = tensor!(3.5);
    assert_eq!((d.size(), d.dtype()), (&[][..], DType::Float32));
    assert_eq!(d.to_string(), "tensor(3.5000)");
    let d = tensor!(7);
    assert_eq!(
        (d.size(), d.dtype(), d.item::<i64>().unwrap()),
        (&[][..], DType::Int64, 7)
    );
    let d = tensor!(true);
    assert_eq!((d.size(), d.dtype()), (&[][..], DType::Bool));
}

#[test]
fn tensor_literal_promotion_like_torch_tensor() {
    // Any float makes it float32; ints (and bools) then become floats.
    let t = tensor![1, 2.5, true];
    assert_eq!(t.dtype(), DType::Float32);
    assert_eq!(t.to_vec::<f32>(), vec![1.0, 2.5, 1.0]);
    // [True, 1] is int64.
    let t = tensor![true, 1];
    assert_eq!((t.dtype(), t.to_vec::<i64>()), (DType::Int64, vec![1, 1]));
    // Integer literals are int64, not i32.
    let t = tensor![3_000_000_000, -1];
    assert_eq!(t.to_vec::<i64>(), vec![3_000_000_000, -1]);
    // Float values round to float32 as torch.tensor does.
    let t = tensor![0.1];
    assert_eq!(t.to_vec::<f32>(), vec![0.1f32]);
}

#[test]
fn tensor_literal_nesting_and_edge_cases() {
    let t = tensor![[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]];
    assert_eq!(t.size(), &[2, 2, 3]);
    assert_eq!(t.stride(), &[6, 3, 1]);
    assert_eq!(t.to_vec::<i64>(), (1..=12).collect::<Vec<_>>());

    // Trailing commas: a list of one, like a Python tuple.
    assert_eq!(tensor![3.5,].size(), &[1]);
    assert_eq!(tensor![[1, 2],].size(), &[1, 2]);
    assert_eq!(tensor![[1, 2], [3, 4],].size(), &[2, 2]);
    assert_eq!(tensor![[1, 2,], [3, 4,]].size(), &[2, 2]);
    assert_eq!(tensor![[[1.5]],].size(), &[1, 1, 1]);

    // Empty lists: torch.tensor([]) is float32 (0,); [[], []] is (2, 0).
    let e = tensor![];
    assert_eq!((e.size(), e.dtype()), (&[0][..], DType::Float32));
    assert_eq!(e.to_string(), "tensor([])");
    let e = tensor![[], []];
    assert_eq!((e.size(), e.dtype()), (&[2, 0][..], DType::Float32));
    assert_eq!(e.to_string(), "tensor([], size=(2, 0))");

    // Elements are expressions, of several element types.
    let x = 2.0f32;
    let n = 4i64;
    let t = tensor![[x, -x], [x * 2.0, (n + 1)]];
    assert_eq!(t.to_vec::<f32>(), vec![2.0, -2.0, 4.0, 5.0]);
    let t = tensor![Scalar::Int(1), Scalar::Bool(true)];
    assert_eq!(t.dtype(), DType::Int64);
    let t = tensor![half::f16::from_f32(1.5), 2];
    assert_eq!(
        (t.dtype(), t.to_vec::<f32>()),
        (DType::Float32, vec![1.5, 2.0])
    );
}

// ---------------------------------------------------------------- operators

#[test]
fn binary_operators_match_methods() {
    let a = f32s(&[1.0, 2.0, 3.0, 4.0], &[4, 1]);
    let b = f32s(&[1.0, -2.0, 3.0, 0.5], &[4]);
    let pairs = [
        (&a + &b, a.add(&b).unwrap()),
        (&a - &b, a.sub(&b).unwrap()),
        (&a * &b, a.mul(&b).unwrap()),
        (&a / &b, a.div(&b).unwrap()),
        (&a % &b, a.remainder(&b).unwrap()),
    ];
    for (op, m) in pairs {
        assert_eq!(op.size(), &[4, 4]);
        assert_eq!(op.stride(), m.stride());
        assert_eq!(op.dtype(), m.dtype());
        assert_eq!(op.to_vec::<f64>(), m.to_vec::<f64>());
    }
    // By value and mixed forms give the same.
    let v = (a.alias() + b.alias()).to_vec::<f64>();
    assert_eq!(v, (&a + &b).to_vec::<f64>());
    assert_eq!((&a + b.alias()).to_vec::<f64>(), v);
    assert_eq!((a.alias() + &b).to_vec::<f64>(), v);
    // Chaining owned results.
    let c = (&a + &b) * 2.0 - 1;
    assert_eq!(
        c.to_vec::<f64>(),
        v.iter().map(|x| x * 2.0 - 1.0).collect::<Vec<_>>()
    );
}

#[test]
fn scalar_operands_promote_as_python_scalars() {
    let i = Tensor::from_slice(&[1i32, 2, 3], [3]).unwrap();
    assert_eq!((&i + 2).dtype(), DType::Int32);
    assert_eq!((&i + 2.5).dtype(), DType::Float32);
    assert_eq!((&i * 2.5f32).to_vec::<f32>(), vec![2.5, 5.0, 7.5]);
    assert_eq!((&i / 2).dtype(), DType::Float32); // true division
    assert_eq!((&i / 2).to_vec::<f32>(), vec![0.5, 1.0, 1.5]);
    assert_eq!((&i + true).to_vec::<i64>(), vec![2, 3, 4]);
    assert_eq!((&i + Scalar::Int(1)).to_vec::<i64>(), vec![2, 3, 4]);
    let u = Tensor::ones_with([3], DType::UInt8).unwrap();
    assert_eq!((&u + 300).to_vec::<i64>(), vec![45; 3]); // wraps as in PyTorch
    // Numbers on the left.
    assert_eq!((2.0 * &i).to_vec::<f32>(), vec![2.0, 4.0, 6.0]);
    assert_eq!((1 + &i).to_vec::<i64>(), vec![2, 3, 4]);
    assert_eq!((10 - &i).to_vec::<i64>(), vec![9, 8, 7]);
    assert_eq!((10 - &i).dtype(), DType::Int32);
    assert_eq!((3.0 / &i).to_vec::<f32>(), vec![3.0, 1.5, 1.0]);
    assert_eq!((7 % &i).to_vec::<i64>(), vec![0, 1, 1]);
    assert_eq!((-7 % &i).to_vec::<i64>(), vec![0, 1, 2]);
}

#[test]
fn remainder_takes_the_divisor_sign() {
    let t = tensor![5, -7, 7, -5];
    assert_eq!((&t % 3).to_vec::<i64>(), vec![2, 2, 1, 1]);
    assert_eq!((&t % -3).to_vec::<i64>(), vec![-1, -1, -2, -2]);
    let f = tensor![5.5, -7.5];
    assert_eq!((&f % 2).to_vec::<f32>(), vec![1.5, 0.5]);
}

#[test]
fn unary_and_bitwise_operators() {
    let t = tensor![1, -2, 3];
    assert_eq!((-&t).to_vec::<i64>(), vec![-1, 2, -3]);
    assert_eq!((-tensor![1.5]).to_vec::<f32>(), vec![-1.5]);
    assert_eq!((!&t).to_vec::<i64>(), vec![-2, 1, -4]);
    let m = tensor![true, false, true];
    assert_eq!((!&m).to_vec::<bool>(), vec![false, true, false]);
    assert_eq!((!&m).dtype(), DType::Bool);
    let n = tensor![true, true, false];
    assert_eq!((&m & &n).to_vec::<bool>(), vec![true, false, false]);
    assert_eq!((&m | &n).to_vec::<bool>(), vec![true, true, true]);
    assert_eq!((&m ^ &n).to_vec::<bool>(), vec![false, true, true]);
    assert_eq!((&m ^ true).to_vec::<bool>(), vec![false, true, false]);
    assert_eq!((true & &m).to_vec::<bool>(), vec![true, false, true]);
    assert_eq!((tensor![12, 10] & 6).to_vec::<i64>(), vec![4, 2]);
    assert_eq!((tensor![12, 10] | 1).to_vec::<i64>(), vec![13, 11]);
    assert_eq!((5 ^ tensor![1, 4]).to_vec::<i64>(), vec![4, 1]);
}

#[test]
fn compound_assignment_is_in_place() {
    let mut x = Tensor::zeros_with([2, 3], DType::Float32).unwrap();
    let before = (
        x.data_ptr(),
        x.size().to_vec(),
        x.stride().to_vec(),
        x.dtype(),
    );
    let alias = x.alias();
    x += &f32s(&[1.0, 2.0, 3.0], &[3]);
    x += 1;
    x *= 2.0;
    x -= f32s(&[1.0], &[1]);
    x /= 4;
    assert_eq!(
        (
            x.data_ptr(),
            x.size().to_vec(),
            x.stride().to_vec(),
            x.dtype()
        ),
        before
    );
    assert_eq!(x.to_vec::<f32>(), vec![0.75, 1.25, 1.75, 0.75, 1.25, 1.75]);
    // The same storage: another handle sees the writes.
    assert_eq!(alias.to_vec::<f32>(), x.to_vec::<f32>());

    let mut i = tensor![7, 8, 9];
    i %= 4;
    assert_eq!(i.to_vec::<i64>(), vec![3, 0, 1]);
    i |= 4;
    i &= 6;
    i ^= 1;
    assert_eq!(i.to_vec::<i64>(), vec![7, 5, 5]);
    // An int tensor keeps its dtype: a float scalar would be an error (below).
    i *= 2;
    assert_eq!(i.dtype(), DType::Int64);

    // The seed: x (5,3,4,1) += y (3,1,1) keeps x's shape.
    let mut x = Tensor::zeros_with([5, 3, 4, 1], DType::Float32).unwrap();
    x += &Tensor::ones_with([3, 1, 1], DType::Float32).unwrap();
    assert_eq!(x.size(), &[5, 3, 4, 1]);
    assert_eq!(x.to_vec::<f32>(), vec![1.0; 60]);
}

#[test]
fn operators_panic_with_pytorch_messages() {
    let cases: Vec<(String, &str)> = vec![
        (
            panic_message(|| {
                let _ = &Tensor::ones_with([3, 3], DType::Float32).unwrap()
                    + &Tensor::ones_with([2, 3], DType::Float32).unwrap();
            }),
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0",
        ),
        (
            panic_message(|| {
                let _ = &Tensor::ones_with([5, 2, 4, 1], DType::Float32).unwrap()
                    * &Tensor::ones_with([3, 1, 1], DType::Float32).unwrap();
            }),
            "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1",
        ),
        (
            panic_message(|| {
                let mut x = Tensor::ones_with([1, 3, 1], DType::Float32).unwrap();
                x += &Tensor::ones_with([3, 1, 7], DType::Float32).unwrap();
            }),
            "output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]",
        ),
        (
            panic_message(|| {
                let mut x = tensor![1, 2];
                x += 2.5;
            }),
            "result type Float can't be cast to the desired output type Long",
        ),
        (
            panic_message(|| {
                let mut x = tensor![1, 2];
                x /= 2;
            }),
            "result type Float can't be cast to the desired output type Long",
        ),
        (
            panic_message(|| {
                let _ = -&tensor![true];
            }),
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
        ),
        (
            panic_message(|| {
                let _ = &tensor![true] - &tensor![false];
            }),
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.",
        ),
        (
            panic_message(|| {
                let _ = 1 - &tensor![true];
            }),
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
        ),
        (
            panic_message(|| {
                let _ = !&tensor![1.0];
            }),
            "\"bitwise_not_cpu\" not implemented for 'Float'",
        ),
        (
            panic_message(|| {
                let _ = &tensor![1.0] & &tensor![1.0];
            }),
            "\"bitwise_and_cpu\" not implemented for 'Float'",
        ),
        (
            panic_message(|| {
                let _ = &tensor![1, 2] % 0;
            }),
            "ZeroDivisionError",
        ),
    ];
    for (got, want) in cases {
        assert_eq!(got, want);
    }
    // Each panic message is the method's error text.
    let e = tensor![1, 2].add_(2.5).unwrap_err();
    assert_eq!(
        e.message(),
        "result type Float can't be cast to the desired output type Long"
    );
}
