//! The calling convention (README, "Calling convention"), used as a PyTorch user would write
//! it. Every expected value and error text here is PyTorch 2.15's.

use tensile::nn::functional as F;
use tensile::{DType, Tensor, tensor};

fn vals(t: &Tensor) -> Vec<f64> {
    t.to_vec::<f64>()
}

#[test]
fn shapes_and_dims_take_any_integer_list() {
    let x = Tensor::arange(24).unwrap();
    let (b, t): (usize, usize) = (2, 3);
    // usize sizes straight from size(), arrays, Vecs, a single -1
    let v = x.view([b, t, 4]).unwrap();
    assert_eq!(v.size(), &[2, 3, 4]);
    assert_eq!(x.view(v.size()).unwrap().size(), &[2, 3, 4]);
    assert_eq!(x.reshape(vec![4i64, -1]).unwrap().size(), &[4, 6]);
    assert_eq!(v.view(-1).unwrap().size(), &[24]);
    assert_eq!(v.permute([2, 0, 1]).unwrap().size(), &[4, 2, 3]);
    assert_eq!(v.movedim(0, -1).unwrap().size(), &[3, 4, 2]);
    assert_eq!(v.expand([2usize, 2, 3, 4]).unwrap().size(), &[2, 2, 3, 4]);
    // int arguments of any integer type
    assert_eq!(v.narrow(1, 0usize, t - 1).unwrap().size(), &[2, 2, 4]);
    assert_eq!(v.select(0, b - 1).unwrap().size(), &[3, 4]);
    assert_eq!(v.sum_dim(1, false).unwrap().size(), &[2, 4]);
    assert_eq!(v.sum_dim([0, 2], true).unwrap().size(), &[1, 3, 1]);
    assert_eq!(
        v.unsqueeze(-1).unwrap().squeeze_dim(-1).unwrap().size(),
        v.size()
    );
    // a negative size is PyTorch's error, however it is spelled
    assert_eq!(
        Tensor::ones([usize::MAX, 0]).unwrap_err().to_string(),
        "Trying to create tensor with negative dimension -1: [-1, 0]"
    );
}

#[test]
fn defaults_can_be_left_out() {
    let x = Tensor::arange(24).unwrap().view([2, 3, 4]).unwrap();
    assert_eq!(x.flatten().unwrap().size(), &[24]);
    assert_eq!(x.flatten_with(1).unwrap().size(), &[2, 12]);
    assert_eq!(x.flatten_with((0, 1)).unwrap().size(), &[6, 4]);
    let m = Tensor::arange(12).unwrap().view([3, 4]).unwrap();
    assert_eq!(m.diagonal().unwrap().to_vec::<i64>(), vec![0, 5, 10]);
    assert_eq!(m.diagonal_with(1).unwrap().to_vec::<i64>(), vec![1, 6, 11]);
    assert_eq!(
        x.diagonal_with((0, -2, -1)).unwrap().size(),
        &[2, 3] // (2, 3, 4): diagonal of the last two dims has min(3, 4) = 3 entries
    );
    assert_eq!(x.split(1).unwrap().len(), 2);
    assert_eq!(x.split_with(2, 1).unwrap().len(), 2);
    let parts = x.split_with([1, 3], -1).unwrap();
    assert_eq!(
        (parts[0].size(), parts[1].size()),
        (&[2, 3, 1][..], &[2, 3, 3][..])
    );
    assert_eq!(
        Tensor::arange(5)
            .unwrap()
            .split([1, 3])
            .unwrap_err()
            .to_string(),
        "split_with_sizes expects split_sizes to sum exactly to 5 (input tensor's size at dimension 0), but got split_sizes=[1, 3]"
    );
    assert_eq!(x.chunk(2).unwrap().len(), 2);
    assert_eq!(x.unbind().unwrap().len(), 2);
    let z = Tensor::zeros([2, 3]).unwrap();
    assert_eq!(z.dtype(), DType::Float32);
    assert_eq!(
        Tensor::zeros_with([2], DType::Int64).unwrap().dtype(),
        DType::Int64
    );
    assert_eq!(Tensor::full([2], 7).unwrap().dtype(), DType::Int64);
    assert_eq!(Tensor::full([2], 0.5).unwrap().dtype(), DType::Float32);
}

#[test]
fn arange_takes_pytorchs_three_forms() {
    assert_eq!(Tensor::arange(4).unwrap().to_vec::<i64>(), vec![0, 1, 2, 3]);
    let t: usize = 3;
    assert_eq!(Tensor::arange((1, t)).unwrap().to_vec::<i64>(), vec![1, 2]);
    let f = Tensor::arange((0, 1, 0.25)).unwrap();
    assert_eq!(
        (f.dtype(), vals(&f)),
        (DType::Float32, vec![0.0, 0.25, 0.5, 0.75])
    );
    let big = i64::MAX - 2;
    assert_eq!(
        Tensor::arange((big, i64::MAX)).unwrap().to_vec::<i64>(),
        vec![big, big + 1]
    );
    assert_eq!(
        Tensor::arange((5, 1)).unwrap_err().to_string(),
        "upper bound and lower bound inconsistent with step sign"
    );
}

#[test]
fn numbers_of_every_rust_type() {
    let x = tensor![1.0f32, 2.0, 3.0];
    let n: usize = 2;
    assert_eq!(vals(&(&x * n)), vec![2.0, 4.0, 6.0]);
    assert_eq!(vals(&(&x + 1u8)), vec![2.0, 3.0, 4.0]);
    assert_eq!(vals(&x.mul(n).unwrap()), vec![2.0, 4.0, 6.0]);
    // a number as the base of pow: 10000 ** t, torch.pow(2, t)
    let i = tensor![1i64, 2, 3];
    let p = tensile::pow(2, &i).unwrap();
    assert_eq!(
        (p.dtype(), p.to_vec::<i64>()),
        (DType::Int64, vec![2, 4, 8])
    );
    let q = tensile::pow(2.0, &i).unwrap();
    assert_eq!((q.dtype(), vals(&q)), (DType::Float32, vec![2.0, 4.0, 8.0]));
    // clamp with numbers (no Some(…)), one bound, or tensor bounds
    let c = tensor![1i64, 5, -2];
    assert_eq!(c.clamp(0, 3).unwrap().to_vec::<i64>(), vec![1, 3, 0]);
    assert_eq!(c.clamp_min(0).unwrap().to_vec::<i64>(), vec![1, 5, 0]);
    let lo = tensor![2i64, 0, 0];
    assert_eq!(c.clamp(&lo, 4).unwrap().to_vec::<i64>(), vec![2, 4, 0]);
    let f = c.clamp_max(0.5).unwrap();
    assert_eq!(
        (f.dtype(), vals(&f)),
        (DType::Float32, vec![0.5, 0.5, -2.0])
    );
}

#[test]
fn in_place_forms_write_through_views() {
    let x = Tensor::arange((-3.0, 3.0)).unwrap().view([2, 3]).unwrap();
    x.select(0, 0).unwrap().relu_().unwrap();
    assert_eq!(vals(&x), vec![0.0, 0.0, 0.0, 0.0, 1.0, 2.0]);
    x.select(1, 2).unwrap().exp_().unwrap();
    assert_eq!(vals(&x)[2], 1.0);
    let mask = tensor![true, false, true];
    x.masked_fill_(&mask, -1).unwrap();
    assert_eq!(vals(&x), vec![-1.0, 0.0, -1.0, -1.0, 1.0, -1.0]);
    x.clamp_(0, 0.5).unwrap();
    assert_eq!(vals(&x), vec![0.0, 0.0, 0.0, 0.0, 0.5, 0.0]);
    x.zero_().unwrap();
    assert_eq!(vals(&x), vec![0.0; 6]);
    // an integer tensor cannot hold exp's float result
    assert_eq!(
        tensor![1i64, 2].exp_().unwrap_err().to_string(),
        "result type Float can't be cast to the desired output type Long"
    );
    // fill_ and zero_ accept an expanded tensor, as PyTorch does
    let base = tensor![1.0f32, 2.0, 3.0];
    base.expand([2, 3]).unwrap().zero_().unwrap();
    assert_eq!(vals(&base), vec![0.0; 3]);
    assert_eq!(
        tensor![1.0f32, 2.0]
            .expand([2, 2])
            .unwrap()
            .exp_()
            .unwrap_err()
            .to_string(),
        "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation."
    );
}

/// `addcdiv_` is an in-place op like `addcmul_`: one version bump, PyTorch's in-place node
/// on a tensor that requires grad, and the leaf refusal.
#[test]
fn addcdiv_in_place_bumps_the_version_and_records() {
    let (a, b) = (tensor![1.0f32, 2.0], tensor![4.0f32, 8.0]);
    let x = tensor![1.0f32, 1.0];
    let v0 = x.version();
    x.addcdiv_with_(&a, &b, 2).unwrap();
    assert_eq!((vals(&x), x.version() - v0), (vec![1.5, 1.5], 1));
    x.addcmul_(&a, &b).unwrap();
    assert_eq!(x.version() - v0, 2);
    let w = tensor![1.0f32, 1.0].requires_grad_(true).unwrap();
    let e = w.addcdiv_(&a, &b).unwrap_err();
    assert_eq!(
        e.to_string(),
        "a leaf Variable that requires grad is being used in an in-place operation."
    );
    let y = w.mul(1.0).unwrap();
    y.addcdiv_(&a, &b).unwrap();
    assert_eq!(y.grad_fn().unwrap().name(), "AddcdivBackward0");
}

#[test]
fn functional_and_matrix_names() {
    let w = Tensor::arange(6.0).unwrap().view([3, 2]).unwrap();
    let ids = tensor![2i64, 0];
    // F.embedding(input, weight): indices first
    assert_eq!(
        vals(&F::embedding(&ids, &w).unwrap()),
        vec![4.0, 5.0, 0.0, 1.0]
    );
    let cond = tensor![true, false];
    let r = tensile::where_cond(&cond, 1.0, &tensor![5.0f32, 6.0]).unwrap();
    assert_eq!(vals(&r), vec![1.0, 6.0]);
    let a = Tensor::ones([2, 3]).unwrap();
    let b = Tensor::ones([3, 4]).unwrap();
    assert_eq!(a.mm(&b).unwrap().size(), &[2, 4]);
    assert_eq!(
        a.mm(&Tensor::ones([3]).unwrap()).unwrap_err().to_string(),
        "mm: mat2 must be a matrix, got 1-D tensor"
    );
    assert_eq!(
        a.mm(&a).unwrap_err().to_string(),
        "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"
    );
    let ba = Tensor::ones([5, 2, 3]).unwrap();
    assert_eq!(
        ba.bmm(&Tensor::ones([5, 3, 4]).unwrap()).unwrap().size(),
        &[5, 2, 4]
    );
    assert_eq!(
        ba.bmm(&Tensor::ones([5, 4, 2]).unwrap())
            .unwrap_err()
            .to_string(),
        "Expected size for first two dimensions of batch2 tensor to be: [5, 3] but got: [5, 4]."
    );
    assert_eq!(
        a.bmm(&ba).unwrap_err().to_string(),
        "batch1 must be a 3D tensor"
    );
    let v = tensor![1.0f32, 2.0, 3.0];
    assert_eq!(vals(&a.mv(&v).unwrap()), vec![6.0, 6.0]);
    assert_eq!(
        v.mv(&v).unwrap_err().to_string(),
        "vector + matrix @ vector expected, got 1, 1, 1"
    );
    assert_eq!(v.dot(&v).unwrap().item::<f64>().unwrap(), 14.0);
    assert_eq!(
        a.dot(&v).unwrap_err().to_string(),
        "1D tensors expected, but got 2D and 1D tensors"
    );
    let pieces = [
        Tensor::ones([1, 2]).unwrap(),
        Tensor::zeros([1, 2]).unwrap(),
    ];
    assert_eq!(tensile::cat(&pieces).unwrap().size(), &[2, 2]);
    assert_eq!(
        tensile::cat_with(&[&pieces[0], &pieces[1]], 1)
            .unwrap()
            .size(),
        &[1, 4]
    );
    assert_eq!(tensile::stack(&pieces).unwrap().size(), &[2, 1, 2]);
    let x = Tensor::arange(8.0).unwrap().view([2, 4]).unwrap();
    let g = Tensor::ones([4]).unwrap();
    let beta = Tensor::zeros([4]).unwrap();
    let ln = F::layer_norm_with(&x, [4], (&g, &beta, 1e-5)).unwrap();
    assert_eq!(ln.size(), &[2, 4]);
    let lin = F::linear_with(
        &x,
        &Tensor::ones([3, 4]).unwrap(),
        &Tensor::ones([3]).unwrap(),
    )
    .unwrap();
    assert_eq!(vals(&lin), vec![7.0, 7.0, 7.0, 23.0, 23.0, 23.0]);
}
