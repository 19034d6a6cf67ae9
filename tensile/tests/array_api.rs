//! The README's Python array API table (standard 2024.12), row by row: every function's tensile
//! call runs here on a small input and its result is checked against the value NumPy/PyTorch
//! give. A row whose call stops compiling or changes meaning fails this test.
//! (`conj`, `real`, `imag` need complex dtypes and `from_dlpack` DLPack: not yet provided.)

use tensile::dtype::{Category, can_cast, result_type};
use tensile::nn::functional as F;
use tensile::{
    ClampOpts, DType, DiffOpts, SearchsortedOpts, Tensor, VarOpts, promote_types, s, tensor,
};

type R = tensile::Result<()>;

fn f32s(t: &Tensor) -> Vec<f32> {
    t.to(DType::Float32).unwrap().contiguous().to_vec::<f32>()
}
fn i64s(t: &Tensor) -> Vec<i64> {
    t.to(DType::Int64).unwrap().contiguous().to_vec::<i64>()
}
fn bools(t: &Tensor) -> Vec<bool> {
    t.contiguous().to_vec::<bool>()
}

#[test]
fn creation() -> R {
    assert_eq!(i64s(&Tensor::arange((1, 7, 2))?), [1, 3, 5]);
    assert_eq!(
        Tensor::arange_with(3, DType::Float64)?.dtype(),
        DType::Float64
    );
    let a = tensor![[1.0f32, 2.0], [3.0, 4.0]];
    assert_eq!(f32s(&a), [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(
        Tensor::from_vec(vec![1i32, 2, 3, 4], [2, 2])?.size(),
        &[2, 2]
    );
    assert_eq!(Tensor::empty([2, 3])?.size(), &[2, 3]);
    assert_eq!(Tensor::empty_like(&a)?.size(), &[2, 2]);
    let e = Tensor::ones([2, 3])?.tril_with(1)?.triu_with(1)?;
    assert_eq!(f32s(&e), [0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
    assert_eq!(
        f32s(&Tensor::eye_with(2, 3)?),
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
    );
    assert_eq!(i64s(&Tensor::full([2], 7)?), [7, 7]);
    assert_eq!(f32s(&Tensor::full_like(&a, 0.5)?), [0.5; 4]);
    let l = Tensor::linspace(0.0, 1.0, 5)?.narrow(0, 0, 4)?;
    assert_eq!(f32s(&l), [0.0, 0.25, 0.5, 0.75]);
    let (x, y) = (tensor![1, 2, 3], tensor![4, 5]);
    let g = tensile::meshgrid_with(&[&x, &y], "xy")?;
    assert_eq!(g[0].size(), &[2, 3]);
    assert_eq!(Tensor::ones([3])?.sum()?.item::<f32>()?, 3.0);
    assert_eq!(f32s(&Tensor::ones_like(&a)?), [1.0; 4]);
    assert_eq!(f32s(&a.tril()?), [1.0, 0.0, 3.0, 4.0]);
    assert_eq!(f32s(&a.triu()?), [1.0, 2.0, 0.0, 4.0]);
    assert_eq!(f32s(&Tensor::zeros([2])?), [0.0, 0.0]);
    assert_eq!(f32s(&Tensor::zeros_like(&a)?), [0.0; 4]);
    Ok(())
}

#[test]
fn data_types() -> R {
    let a = tensor![1.5f32, -2.5];
    assert_eq!(i64s(&a.to(DType::Int64)?), [1, -2]);
    assert!(can_cast(DType::Int32, DType::Float32) && !can_cast(DType::Float32, DType::Int32));
    assert_eq!(DType::Float32.finfo()?.eps, f32::EPSILON as f64);
    assert_eq!(DType::Int8.iinfo()?.max, 127);
    assert!(DType::UInt8.isdtype("integral")?);
    let r = result_type(&[
        (DType::Int32, Category::Dim),
        (DType::Float16, Category::ZeroDim),
    ]);
    assert_eq!(r, DType::Float16);
    assert_eq!(promote_types(DType::Int8, DType::UInt8), DType::Int16);
    Ok(())
}

#[test]
fn elementwise() -> R {
    let x = tensor![0.25f32, 0.5];
    let y = tensor![0.5f32, 0.25];
    let one = |t: tensile::Result<Tensor>| f32s(&t.unwrap())[0];
    let close = |a: f32, b: f64| assert!((a as f64 - b).abs() < 1e-6, "{a} vs {b}");
    close(one(x.neg()?.abs()), 0.25);
    close(one(x.acos()), 0.25f64.acos());
    close(one(x.add(1.0)?.acosh()), 1.25f64.acosh());
    close(one(x.add(&y)), 0.75);
    close(one(x.asin()), 0.25f64.asin());
    close(one(x.asinh()), 0.25f64.asinh());
    close(one(x.atan()), 0.25f64.atan());
    close(one(x.atan2(&y)), 0.25f64.atan2(0.5));
    close(one(x.atanh()), 0.25f64.atanh());
    let (i, j) = (tensor![12i64, 5], tensor![10i64, 1]);
    assert_eq!(i64s(&i.bitwise_and(&j)?), [8, 1]);
    assert_eq!(i64s(&i.bitwise_left_shift(&j)?), [12288, 10]);
    assert_eq!(i64s(&i.bitwise_not()?), [-13, -6]);
    assert_eq!(i64s(&i.bitwise_or(&j)?), [14, 5]);
    assert_eq!(i64s(&i.bitwise_right_shift(&j)?), [0, 2]);
    assert_eq!(i64s(&i.bitwise_xor(&j)?), [6, 4]);
    close(one(x.ceil()), 1.0);
    close(one(x.clip(0.3, 1.0)), 0.3);
    close(
        one(x.clip_with(ClampOpts {
            min: None,
            max: Some(0.1.into()),
        })),
        0.1,
    );
    close(one(x.copysign(-1.0)), -0.25);
    close(one(x.cos()), 0.25f64.cos());
    close(one(x.cosh()), 0.25f64.cosh());
    close(one(x.div(&y)), 0.5);
    assert_eq!(bools(&x.eq(&y)?), [false, false]);
    close(one(x.exp()), 0.25f64.exp());
    close(one(x.expm1()), 0.25f64.exp_m1());
    close(one(x.floor()), 0.0);
    assert_eq!(i64s(&i.floor_divide(&j)?), [1, 5]);
    assert_eq!(bools(&x.gt(&y)?), [false, true]);
    assert_eq!(bools(&x.ge(&y)?), [false, true]);
    close(one(x.hypot(&y)), 0.25f64.hypot(0.5));
    let inf = tensor![f32::INFINITY, f32::NAN, 1.0];
    assert_eq!(bools(&inf.isfinite()?), [false, false, true]);
    assert_eq!(bools(&inf.isinf()?), [true, false, false]);
    assert_eq!(bools(&inf.isnan()?), [false, true, false]);
    assert_eq!(bools(&x.lt(&y)?), [true, false]);
    assert_eq!(bools(&x.le(&y)?), [true, false]);
    close(one(x.log()), 0.25f64.ln());
    close(one(x.log1p()), 0.25f64.ln_1p());
    close(one(x.log2()), -2.0);
    close(one(x.log10()), 0.25f64.log10());
    close(one(x.logaddexp(&y)), (0.25f64.exp() + 0.5f64.exp()).ln());
    let (p, q) = (tensor![true, false], tensor![true, true]);
    assert_eq!(bools(&p.logical_and(&q)?), [true, false]);
    assert_eq!(bools(&p.logical_not()?), [false, true]);
    assert_eq!(bools(&p.logical_or(&q)?), [true, true]);
    assert_eq!(bools(&p.logical_xor(&q)?), [false, true]);
    assert_eq!(f32s(&x.maximum(&y)?), [0.5, 0.5]);
    assert_eq!(f32s(&x.minimum(&y)?), [0.25, 0.25]);
    close(one(x.mul(&y)), 0.125);
    close(one(x.neg()), -0.25);
    assert!(one(x.nextafter(1.0)) > 0.25);
    assert_eq!(bools(&x.ne(&y)?), [true, true]);
    assert!(x.positive()?.shares_storage(&x));
    close(one(x.pow(2)), 0.0625);
    close(one(tensile::pow(2, &x)), 2f64.powf(0.25));
    close(one(x.reciprocal()), 4.0);
    assert_eq!(i64s(&tensor![-7i64, 7].remainder(3)?), [2, 1]);
    close(one(tensor![2.5f32].round()), 2.0);
    close(one(x.neg()?.sign()), -1.0);
    assert_eq!(bools(&tensor![-0.0f32, 1.0].signbit()?), [true, false]);
    close(one(x.sin()), 0.25f64.sin());
    close(one(x.sinh()), 0.25f64.sinh());
    close(one(x.square()), 0.0625);
    close(one(x.sqrt()), 0.5);
    close(one(x.sub(&y)), -0.25);
    close(one(x.tan()), 0.25f64.tan());
    close(one(x.tanh()), 0.25f64.tanh());
    close(one(tensor![-1.5f32].trunc()), -1.0);
    Ok(())
}

#[test]
fn indexing_linalg_manipulation() -> R {
    let x = Tensor::arange(6)?.view([2, 3])?;
    let idx = tensor![2i64, 0];
    assert_eq!(i64s(&x.index_select(1, &idx)?), [2, 0, 5, 3]);
    assert_eq!(i64s(&Tensor::arange(5)?.take(&idx)?), [2, 0]);
    let along = tensor![[0i64], [2]];
    assert_eq!(i64s(&x.take_along_dim_with(&along, 1)?), [0, 5]);
    let m = Tensor::arange_with(6, DType::Float32)?.view([2, 3])?;
    assert_eq!(m.matmul(&m.mT()?)?.size(), &[2, 2]);
    assert_eq!(m.mT()?.size(), &[3, 2]);
    assert_eq!(
        f32s(&tensile::tensordot(&m, &m, ([1], [1]))?),
        [5.0, 14.0, 14.0, 50.0]
    );
    assert_eq!(
        f32s(&tensile::tensordot(&m, &m.mT()?, 1)?),
        [5.0, 14.0, 14.0, 50.0]
    );
    assert_eq!(f32s(&tensile::linalg::vecdot(&m, &m, -1)?), [5.0, 50.0]);
    let b = tensile::broadcast_tensors(&[&x, &tensor![1i64, 2, 3]])?;
    assert_eq!(b[1].size(), &[2, 3]);
    assert_eq!(tensor![1, 2].broadcast_to([3, 2])?.size(), &[3, 2]);
    assert_eq!(tensile::cat_with(&[&x, &x], 1)?.size(), &[2, 6]);
    assert_eq!(x.unsqueeze(0)?.size(), &[1, 2, 3]);
    assert_eq!(i64s(&x.flip([1])?), [2, 1, 0, 5, 4, 3]);
    assert_eq!(x.unsqueeze(0)?.movedim(0, 2)?.size(), &[2, 3, 1]);
    assert_eq!(x.permute([1, 0])?.size(), &[3, 2]);
    let r = tensor![1i64, 2].repeat_interleave_with(&tensor![2i64, 1], 0)?;
    assert_eq!(i64s(&r), [1, 1, 2]);
    assert_eq!(x.reshape([3, 2])?.size(), &[3, 2]);
    assert_eq!(i64s(&x.roll(1)?), [5, 0, 1, 2, 3, 4]);
    assert_eq!(i64s(&x.roll_with([1], [1])?), [2, 0, 1, 5, 3, 4]);
    assert_eq!(x.unsqueeze(0)?.squeeze_dim(0)?.size(), &[2, 3]);
    assert_eq!(tensile::stack_with(&[&x, &x], 2)?.size(), &[2, 3, 2]);
    assert_eq!(x.tile([2, 1])?.size(), &[4, 3]);
    assert_eq!(x.unbind_with(1)?.len(), 3);
    Ok(())
}

#[test]
fn searching_set_sorting() -> R {
    let x = tensor![3i64, 1, 0, 3, 2];
    assert_eq!(x.argmax()?.item::<i64>()?, 0);
    assert_eq!(x.argmin_dim(0, false)?.item::<i64>()?, 2);
    assert_eq!(x.count_nonzero()?.item::<i64>()?, 4);
    assert_eq!(x.view([1, 5])?.count_nonzero_dim([1])?.size(), &[1]);
    assert_eq!(i64s(&x.nonzero_as_tuple()?[0]), [0, 1, 3, 4]);
    let sorted = tensor![1i64, 3, 5];
    assert_eq!(
        i64s(&tensile::searchsorted(&sorted, &tensor![3i64, 4])?),
        [1, 2]
    );
    let right = SearchsortedOpts {
        side: Some("right"),
        ..Default::default()
    };
    assert_eq!(
        i64s(&tensile::searchsorted_with(&sorted, &tensor![3i64], right)?),
        [2]
    );
    let w = tensile::where_cond(&x.gt(1)?, &x, &Tensor::zeros_with([5], DType::Int64)?)?;
    assert_eq!(i64s(&w), [3, 0, 0, 3, 2]);
    let (values, inverse, counts) = x.flatten()?.unique_with((true, true, true))?;
    let (inverse, counts) = (inverse.unwrap(), counts.unwrap());
    assert_eq!(i64s(&values), [0, 1, 2, 3]);
    assert_eq!(i64s(&inverse), [3, 1, 0, 3, 2]);
    assert_eq!(i64s(&counts), [1, 1, 1, 2]);
    let first = Tensor::full([4], 5)?.scatter_reduce(0, &inverse, &Tensor::arange(5)?, "amin")?;
    assert_eq!(i64s(&first), [2, 1, 4, 0]);
    let (_, no_inverse, counts) = x.unique_with((true, false, true))?;
    assert!(no_inverse.is_none() && i64s(&counts.unwrap()) == [1, 1, 1, 2]);
    let (_, inverse, no_counts) = x.unique_with((true, true))?;
    assert!(no_counts.is_none() && i64s(&inverse.unwrap()) == [3, 1, 0, 3, 2]);
    assert_eq!(i64s(&x.unique()?), [0, 1, 2, 3]);
    assert_eq!(i64s(&x.argsort()?), [2, 1, 4, 0, 3]);
    assert_eq!(i64s(&x.argsort_with((0, true, true))?), [0, 3, 4, 1, 2]);
    assert_eq!(i64s(&x.sort()?.0), [0, 1, 2, 3, 3]);
    assert_eq!(i64s(&x.sort_with((0, true, true))?.1), [0, 3, 4, 1, 2]);
    Ok(())
}

#[test]
fn statistical_utility() -> R {
    let x = tensor![[1.0f32, 2.0], [3.0, 4.0]];
    assert_eq!(f32s(&x.cumprod(1)?), [1.0, 2.0, 3.0, 12.0]);
    assert_eq!(x.cumprod_with(1, DType::Float64)?.dtype(), DType::Float64);
    assert_eq!(f32s(&x.cumsum(0)?), [1.0, 2.0, 4.0, 6.0]);
    assert_eq!(x.cumsum_with(0, DType::Float64)?.dtype(), DType::Float64);
    let initial = F::pad(&x.cumsum(-1)?, [1, 0])?;
    assert_eq!(f32s(&initial), [0.0, 1.0, 3.0, 0.0, 3.0, 7.0]);
    assert_eq!(x.amax()?.item::<f32>()?, 4.0);
    assert_eq!(f32s(&x.amax_dim(0, true)?), [3.0, 4.0]);
    assert_eq!(x.mean()?.item::<f32>()?, 2.5);
    assert_eq!(f32s(&x.mean_dim(1, false)?), [1.5, 3.5]);
    assert_eq!(x.amin()?.item::<f32>()?, 1.0);
    assert_eq!(f32s(&x.amin_dim([0, 1], false)?), [1.0]);
    assert_eq!(x.prod()?.item::<f32>()?, 24.0);
    assert_eq!(f32s(&x.prod_dim(0, false)?), [3.0, 8.0]);
    let pop = || VarOpts {
        correction: 0.0,
        ..Default::default()
    };
    assert!((x.std()?.item::<f32>()? - 1.2909944).abs() < 1e-6);
    assert_eq!(x.var_with(pop())?.item::<f32>()?, 1.25);
    assert!((x.var()?.item::<f32>()? - 5.0 / 3.0).abs() < 1e-6);
    assert_eq!(x.std_with(pop())?.item::<f32>()?, 1.25f32.sqrt());
    assert_eq!(x.sum()?.item::<f32>()?, 10.0);
    assert_eq!(f32s(&x.sum_dim(1, false)?), [3.0, 7.0]);
    let b = x.gt(1.5)?;
    assert!(!b.all()?.item::<bool>()?);
    assert_eq!(bools(&b.all_dim(1, false)?), [false, true]);
    assert!(b.any()?.item::<bool>()?);
    assert_eq!(bools(&b.any_dim(0, false)?), [true, true]);
    assert_eq!(f32s(&x.diff()?), [1.0, 1.0]);
    let d = x.diff_with(DiffOpts {
        dim: 0,
        ..Default::default()
    })?;
    assert_eq!(f32s(&d), [2.0, 2.0]);
    let _ = s![..];
    Ok(())
}
