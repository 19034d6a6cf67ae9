//! The hostile inputs of issue 15: each must return PyTorch's error (text compared with
//! PyTorch 2.15's output) or PyTorch's result, never panic, abort or touch memory out of bounds.

use std::time::{Duration, Instant};

use tensile::{DType, ErrorKind, Tensor, where_cond};

const P62: usize = 1 << 62;
const P40: usize = 1 << 40;

fn err<T>(r: tensile::Result<T>) -> String {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::RuntimeError, "{}", e.message());
            e.message().to_string()
        }
    }
}

#[test]
fn zeros_whose_byte_size_overflows() {
    assert_eq!(
        err(Tensor::zeros([P62 + 1, 64])),
        "Storage size calculation overflowed with sizes=[4611686018427387905, 64]"
    );
    assert_eq!(
        err(Tensor::zeros([P40, P40])),
        "Storage size calculation overflowed with sizes=[1099511627776, 1099511627776]"
    );
    // PyTorch multiplies in order, so an overflow before the 0 still counts.
    assert_eq!(
        err(Tensor::zeros([P40, P40, 0])),
        "Storage size calculation overflowed with sizes=[1099511627776, 1099511627776, 0]"
    );
    assert_eq!(
        err(Tensor::zeros(1usize << 61)),
        "Storage size calculation overflowed with sizes=[2305843009213693952]"
    );
    for r in [
        Tensor::ones([P62 + 1, 64]),
        Tensor::empty([P62 + 1, 64]),
        Tensor::full([P62 + 1, 64], 1.0),
        Tensor::rand([P62 + 1, 64]),
        Tensor::randn([P62 + 1, 64]),
    ] {
        assert_eq!(
            err(r),
            "Storage size calculation overflowed with sizes=[4611686018427387905, 64]"
        );
    }
    // 2^63 - 1 times 0 never overflows: an empty tensor.
    let t = Tensor::zeros([i64::MAX as usize, 0]).unwrap();
    assert_eq!(t.size(), &[i64::MAX as usize, 0]);
}

#[test]
fn zeros_too_large_for_memory() {
    assert_eq!(
        err(Tensor::zeros(P40)),
        "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate 4398046511104 bytes. Error code 12 (Cannot allocate memory)"
    );
}

#[test]
fn from_vec_with_a_shape_whose_numel_wraps() {
    let e = err(Tensor::from_vec(vec![1f32, 2., 3., 4.], [P62 + 1, 4]));
    assert_eq!(e, "numel: integer multiplication overflow");
}

#[test]
fn sizes_above_i64_max() {
    assert_eq!(
        err(Tensor::from_vec(Vec::<f32>::new(), [usize::MAX, 0])),
        "Trying to create tensor with negative dimension -1: [-1, 0]"
    );
    assert_eq!(
        err(Tensor::zeros([usize::MAX, 0])),
        "zeros: Dimension size must be non-negative."
    );
}

#[test]
fn broadcast_result_whose_size_overflows() {
    let a = Tensor::zeros([1, 1]).unwrap().expand([P40, 1]).unwrap();
    let b = Tensor::zeros([1, 1]).unwrap().expand([1, P40]).unwrap();
    assert_eq!(
        err(a.add(&b)),
        "Storage size calculation overflowed with sizes=[1099511627776, 1099511627776]"
    );
    let c = Tensor::zeros([1, 1])
        .unwrap()
        .to(DType::Bool)
        .unwrap()
        .expand([P40, 1])
        .unwrap();
    assert_eq!(
        err(where_cond(&c, &Tensor::zeros([1, 1]).unwrap(), &b)),
        "numel: integer multiplication overflow"
    );
}

#[test]
fn expand_whose_numel_overflows() {
    assert_eq!(
        err(Tensor::zeros([1, 1]).unwrap().expand([P40, P40])),
        "numel: integer multiplication overflow"
    );
}

#[test]
fn unfold_of_an_expand_to_i64_max() {
    let t = Tensor::zeros(1).unwrap().expand(i64::MAX).unwrap();
    assert_eq!(
        err(t.unfold(0, 2, 1)),
        "numel: integer multiplication overflow"
    );
    let t = Tensor::zeros(1).unwrap().expand(P62 as i64).unwrap();
    assert_eq!(t.unfold(0, 2, 1).unwrap().size(), &[P62 - 1, 2]);
    let t = Tensor::zeros(1).unwrap().expand(i64::MAX).unwrap();
    assert_eq!(
        err(t.narrow(0, P62 as i64, P62 as i64)),
        "start (4611686018427387904) + length (4611686018427387904) exceeds dimension size (9223372036854775807)."
    );
}

#[test]
fn as_strided_whose_extent_overflows() {
    let t = Tensor::zeros(4).unwrap();
    assert_eq!(
        err(t.as_strided([P62 + 1, 64], [64, 1])),
        "Storage size calculation overflowed with sizes=[4611686018427387905, 64] and strides=[64, 1]"
    );
}

#[test]
fn arange_with_an_absurd_length() {
    assert_eq!(
        err(Tensor::arange((0.0, 1e300, 1.0))),
        "invalid size, possible overflow?"
    );
    assert_eq!(
        err(Tensor::arange((0.0, 1e20, 1.0))),
        "invalid size, possible overflow?"
    );
    assert_eq!(
        err(Tensor::arange((0i64, P62 as i64, 1i64))),
        "Storage size calculation overflowed with sizes=[4611686018427387904]"
    );
}

#[test]
fn eye_and_linspace_too_large() {
    assert_eq!(
        err(Tensor::eye(P40)),
        "numel: integer multiplication overflow"
    );
    assert_eq!(
        err(Tensor::linspace(0.0, 1.0, P62)),
        "Storage size calculation overflowed with sizes=[4611686018427387904]"
    );
}

#[test]
fn cat_whose_size_overflows() {
    let t = Tensor::zeros(1).unwrap().expand(P62 as i64).unwrap();
    assert_eq!(
        err(tensile::cat(&[&t, &t])),
        "Trying to create tensor with negative dimension -9223372036854775808: [-9223372036854775808]"
    );
}

#[test]
fn allocation_failure_is_an_error() {
    let t = Tensor::zeros(1).unwrap().expand(P40 as i64).unwrap();
    let msg = "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate 4398046511104 bytes. Error code 12 (Cannot allocate memory)";
    assert_eq!(err(t.abs()), msg);
    assert_eq!(err(t.cos()), msg);
    assert_eq!(err(t.ceil()), msg);
    assert_eq!(err(t.clamp(0.0, 1.0)), msg);
    let i = Tensor::zeros(1)
        .unwrap()
        .to(DType::Int32)
        .unwrap()
        .expand(P40 as i64)
        .unwrap();
    assert_eq!(err(i.bitwise_not()), msg);
}

#[test]
fn copies_of_a_huge_expand_are_allocation_errors() {
    // an expand names 2^40 elements over a 4-byte storage: every copy must ask for 4 TB and
    // fail with the allocator's error (the infallible `clone`/`contiguous`/`to_vec` abort)
    let t = Tensor::zeros(1).unwrap().expand(P40 as i64).unwrap();
    let msg = "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate 4398046511104 bytes. Error code 12 (Cannot allocate memory)";
    assert_eq!(err(t.try_clone()), msg);
    assert_eq!(err(t.try_contiguous()), msg);
    assert_eq!(err(t.try_to_vec::<f32>()), msg);
    assert_eq!(err(t.flip(0)), msg);
    assert_eq!(
        err(t.to(DType::Float64)),
        msg.replace("4398046511104", "8796093022208")
    );
}

#[test]
fn strides_of_empty_tensors_with_huge_dims() {
    // PyTorch: each contiguous stride must fit int64; an empty tensor's strides are never
    // stepped, so filling it is a no-op whatever they are
    assert_eq!(
        err(Tensor::zeros([0, P62, 4])),
        "Stride calculation overflowed"
    );
    let t = Tensor::zeros([P62, 0, 8]).unwrap();
    assert_eq!(t.stride(), &[8, 8, 1]);
    t.fill_(1).unwrap();
    assert_eq!(t.numel(), 0);
}

#[test]
fn printing_a_huge_expand_is_summarised_quickly() {
    let t = Tensor::zeros(1)
        .unwrap()
        .expand(10_000_000_000_000i64)
        .unwrap();
    let start = Instant::now();
    let s = format!("{t}");
    assert!(start.elapsed() < Duration::from_secs(2));
    assert_eq!(s, "tensor([0., 0., 0.,  ..., 0., 0., 0.])");
}

#[test]
fn ravel_of_a_strided_tensor_is_a_copy() {
    let a = Tensor::arange(20).unwrap();
    let s = a.slice(0, Some(0), Some(20), 4).unwrap();
    let r = s.ravel().unwrap();
    assert!(!r.shares_storage(&a));
    r.fill_(7).unwrap();
    assert_eq!(a.to_vec::<i64>(), (0..20).collect::<Vec<i64>>());
}

#[test]
fn refused_in_place_division_writes_nothing() {
    let a = Tensor::from_vec(vec![5i64, 6, 7], 3).unwrap();
    let z = Tensor::zeros(3).unwrap().to(DType::Bool).unwrap();
    assert_eq!(err(a.remainder_(&z)), "ZeroDivisionError");
    assert_eq!(a.to_vec::<i64>(), vec![5, 6, 7]);
    assert_eq!(err(a.floor_divide_(&z)), "ZeroDivisionError");
    assert_eq!(a.to_vec::<i64>(), vec![5, 6, 7]);
}

/// Run under valgrind (`--track-origins=yes`) this must report no uninitialised read.
#[test]
fn logsumexp_values() {
    let x = Tensor::arange(24).unwrap().reshape([2, 3, 4]).unwrap();
    let x = x.to(DType::Float32).unwrap();
    let a = x.logsumexp_dim(1, false).unwrap();
    assert_eq!(a.size(), &[2, 4]);
    let v = a.to_vec::<f32>();
    let want = (0..8)
        .map(|k| {
            let (i, j) = (k / 4, k % 4);
            let xs: Vec<f64> = (0..3).map(|r| (i * 12 + r * 4 + j) as f64).collect();
            let m = xs.iter().cloned().fold(f64::MIN, f64::max);
            (m + xs.iter().map(|x| (x - m).exp()).sum::<f64>().ln()) as f32
        })
        .collect::<Vec<f32>>();
    for (g, w) in v.iter().zip(&want) {
        assert!((g - w).abs() < 1e-5, "{g} vs {w}");
    }
    let t = x.permute([2, 0, 1]).unwrap();
    assert!(
        t.logsumexp_dim([0, 2], true)
            .unwrap()
            .to_vec::<f32>()
            .iter()
            .all(|v| v.is_finite())
    );
    let all = x
        .logsumexp_dim([0, 1, 2], false)
        .unwrap()
        .item::<f32>()
        .unwrap();
    assert!((all - 23.4587).abs() < 1e-3, "{all}");
    let e = Tensor::zeros([0, 3])
        .unwrap()
        .logsumexp_dim(0, false)
        .unwrap();
    assert_eq!(e.to_vec::<f32>(), vec![f32::NEG_INFINITY; 3]);
}

#[test]
fn rnn_cell_with_a_0d_weight() {
    // fuzz: `w.size()[0]` of a 0-d weight_ih panicked; PyTorch raises size(0)'s IndexError
    let f = tensile::nn::functional::rnn_tanh_cell;
    let (x, h) = (Tensor::ones([2, 3]).unwrap(), Tensor::ones([2, 4]).unwrap());
    let w_ih = Tensor::ones(()).unwrap();
    let w_hh = Tensor::ones([4, 4]).unwrap();
    let e = f(&x, &h, &w_ih, &w_hh).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::IndexError);
    assert_eq!(
        e.message(),
        "Dimension specified as 0 but tensor has no dimensions"
    );
}

#[test]
fn block_diag_whose_summed_sizes_overflow() {
    // audit: four (2^62, 0) blocks summed their rows past usize (overflow-check builds)
    let t = Tensor::zeros([P62, 0]).unwrap();
    assert_eq!(
        err(tensile::block_diag(&[&t, &t, &t, &t])),
        "torch.block_diag: the summed sizes [18446744073709551616, 0] overflow int64"
    );
}

#[test]
fn cat_and_stack_whose_summed_sizes_overflow() {
    // audit: four (2^62, 0) inputs wrapped the summed size to 0 and overflowed the copy offset
    let t = Tensor::zeros([P62, 0]).unwrap();
    assert_eq!(
        err(tensile::cat(&[&t, &t, &t, &t])),
        "torch.cat: the summed sizes along dimension 0 (18446744073709551616) overflow int64"
    );
    assert_eq!(
        err(tensile::cat(&[&t, &t])),
        "Trying to create tensor with negative dimension -9223372036854775808: [-9223372036854775808, 0]"
    );
    // stack inserts a new dim: (2, 2^62, 0) is fine, (4, 2^62, 0) fails `empty`'s check, as
    // in PyTorch
    let s = tensile::stack(&[&t, &t]).unwrap();
    assert_eq!(s.size(), &[2, P62, 0]);
    assert_eq!(
        err(tensile::stack(&[&t, &t, &t, &t])),
        "Storage size calculation overflowed with sizes=[4, 4611686018427387904, 0]"
    );
    let s = tensile::stack_with(&[&t, &t, &t], 1).unwrap();
    assert_eq!(s.size(), &[P62, 3, 0]);
}

#[test]
fn repeat_interleave_whose_counts_are_huge() {
    // audit: counts near 2^62 grew the index list until the allocator aborted
    let r = Tensor::from_vec(vec![P62 as i64; 4], [4]).unwrap();
    assert_eq!(
        err(tensile::repeat_interleave(&r)),
        "repeat_interleave: the sum of repeats (18446744073709551616) overflows int64"
    );
    let r = Tensor::from_vec(vec![P62 as i64; 2], [2]).unwrap();
    assert_eq!(
        err(tensile::repeat_interleave(&r)),
        "Trying to create tensor with negative dimension -9223372036854775808: [-9223372036854775808]"
    );
    let r = Tensor::from_vec(vec![P62 as i64], [1]).unwrap();
    assert!(err(tensile::repeat_interleave(&r)).contains("DefaultCPUAllocator"));
    let r = Tensor::from_vec(vec![2i64, 0, 1], [3]).unwrap();
    assert_eq!(
        tensile::repeat_interleave(&r).unwrap().to_vec::<i64>(),
        vec![0, 0, 2]
    );
}

#[test]
fn one_hot_of_an_empty_tensor_whose_strides_overflow() {
    // audit: the (0, 2^62, 4) output carried a saturated stride
    let t = Tensor::zeros_with([0, P62], DType::Int64).unwrap();
    assert_eq!(
        err(tensile::nn::functional::one_hot_with(&t, 4)),
        "Stride calculation overflowed"
    );
    let t = Tensor::zeros_with([0, 3], DType::Int64).unwrap();
    let o = tensile::nn::functional::one_hot_with(&t, 4).unwrap();
    assert_eq!(o.size(), &[0, 3, 4]);
}

#[test]
fn matmul_whose_broadcast_batch_overflows() {
    // audit: the batch product (2^62 · 2^62) overflowed before the output's size check
    let a = Tensor::zeros([1, 1, 1, 1])
        .unwrap()
        .expand([P62 as i64, 1, 1, 1])
        .unwrap();
    let b = Tensor::zeros([1, 1, 1, 1])
        .unwrap()
        .expand([1, P62 as i64, 1, 1])
        .unwrap();
    assert!(err(a.matmul(&b)).starts_with("Storage size calculation overflowed with sizes=["));
    // the message shows PyTorch's wrapped int64 batch product
    let p61 = 1i64 << 61;
    let a = Tensor::zeros([1, 1, 1, 2])
        .unwrap()
        .expand([p61, 1, 1, 2])
        .unwrap();
    let b = Tensor::zeros([1, 1, 3, 1])
        .unwrap()
        .expand([1, p61, 3, 1])
        .unwrap();
    assert_eq!(
        err(a.matmul(&b)),
        "Expected size for first two dimensions of batch2 tensor to be: [0, 2] but got: [0, 3]."
    );
}

#[test]
fn cdist_and_pdist_whose_outputs_overflow() {
    // audit: two (1, 2^62, 0) inputs overflowed nb·r1·r2; a (2^62, 0) input overflowed
    // n·(n-1) and then walked its pairs
    let x = Tensor::zeros([1, P62, 0]).unwrap();
    assert_eq!(
        err(tensile::nn::functional::cdist(&x, &x)),
        "Storage size calculation overflowed with sizes=[1, 4611686018427387904, 4611686018427387904]"
    );
    let x = Tensor::zeros([P62, 0]).unwrap();
    assert_eq!(
        err(tensile::nn::functional::pdist(&x)),
        "pdist: the number of pairs 10633823966279326980924613473029062656 of 4611686018427387904 rows overflows int64"
    );
    let x = Tensor::zeros([3, 0]).unwrap();
    assert_eq!(
        tensile::nn::functional::pdist(&x).unwrap().to_vec::<f32>(),
        vec![0.0; 3]
    );
}

#[test]
fn ctc_loss_whose_target_lengths_overflow() {
    // audit: two 1-D target lengths of i64::MAX overflowed the running offset
    let lp = Tensor::zeros([1, 2, 3]).unwrap();
    let targets = Tensor::zeros_with([0], DType::Int64).unwrap();
    let il = Tensor::from_vec(vec![1i64, 1], [2]).unwrap();
    let tl = Tensor::from_vec(vec![i64::MAX, i64::MAX], [2]).unwrap();
    assert_eq!(
        err(tensile::nn::functional::ctc_loss(&lp, &targets, &il, &tl)),
        "Expected tensor to have size 18446744073709551614 at dimension 0, but got size 0 for argument #2 'targets' (while checking arguments for ctc_loss_cpu)"
    );
}

#[test]
fn local_response_norm_with_grad_over_huge_channels() {
    // audit: the (C, C) band matrix of an older recorded path overflowed C·C or aborted. The
    // op is PyTorch's composite now (squares, average pooling), which takes 2^20 channels as
    // PyTorch does: y = x / (1 + 1e-4·mean x²)^0.75 = 0, and each of the 2^20 expanded
    // elements sends gradient 1 back to the one stored zero.
    let x = Tensor::zeros([1, 1, 1])
        .unwrap()
        .requires_grad_(true)
        .unwrap();
    let big = x.expand([1, 1i64 << 20, 1]).unwrap();
    let y = tensile::nn::functional::local_response_norm(&big, 2).unwrap();
    assert_eq!(y.size(), &[1, 1 << 20, 1]);
    assert_eq!(y.abs().unwrap().max().unwrap().item::<f32>().unwrap(), 0.0);
    y.sum().unwrap().backward().unwrap();
    assert_eq!(x.grad().unwrap().to_vec::<f32>(), vec![(1u32 << 20) as f32]);
}

#[test]
fn results_whose_strides_overflow_int64() {
    // An empty result's byte size is 0, but a row-major stride of 2^62 * 4 does not fit in
    // int64: PyTorch's `empty` refuses it, and so does every allocation of a result here.
    assert_eq!(
        err(Tensor::zeros([0, P62, 4])),
        "Stride calculation overflowed"
    );
    let x = Tensor::zeros([0, P62, 1]).unwrap();
    // PyTorch: torch.cat([x.expand(0, 2**62, 4)]) -> Stride calculation overflowed
    match x.expand([0, P62 as i64, 4]) {
        Ok(e) => assert_eq!(err(tensile::cat(&[&e])), "Stride calculation overflowed"),
        Err(e) => assert_eq!(e.kind(), ErrorKind::RuntimeError),
    }
    // matmul's result: PyTorch's folded product viewed back, strides (0, 4, 1)
    let r = x.matmul(&Tensor::zeros([1, 4]).unwrap()).unwrap();
    assert_eq!(r.size(), &[0, P62, 4]);
    assert_eq!(r.stride(), &[0, 4, 1]);
}
