//! The default generator against PyTorch 2.15 (values printed by torch for the same seeds):
//! the dropouts and `nn.Dropout` draw their masks from it as PyTorch's `_dropout_impl` does,
//! `nn.init.sparse_` takes its permutations from it even when given a generator, and
//! `get_rng_state` holds PyTorch's bytes. (The `random` conformance family covers the random
//! ops themselves; these are the calls it does not make.)
//!
//! Every test here seeds the process-wide default generator, so they take [`lock`].

use std::sync::{Mutex, MutexGuard};

use tensile::nn::functional as F;
use tensile::nn::{Dropout, Module, init};
use tensile::{DType, Generator, Tensor};

fn lock() -> MutexGuard<'static, ()> {
    static L: Mutex<()> = Mutex::new(());
    L.lock().unwrap_or_else(|p| p.into_inner())
}

/// `torch.arange(24.).reshape(2, 3, 4) / 4 - 2`
fn x() -> Tensor {
    Tensor::arange_with(24, DType::Float32)
        .unwrap()
        .div(4)
        .unwrap()
        .sub(2)
        .unwrap()
        .reshape([2, 3, 4])
        .unwrap()
}

fn assert_close(got: &Tensor, want: &[f64]) {
    let g = got.to(DType::Float64).unwrap().contiguous().to_vec::<f64>();
    assert_eq!(g.len(), want.len());
    for (i, (a, b)) in g.iter().zip(want).enumerate() {
        assert!(
            (a - b).abs() <= 1e-6 * b.abs().max(1.0),
            "[{i}] {a} != {b}\n{g:?}"
        );
    }
}

#[test]
#[allow(clippy::excessive_precision)]
fn dropout_masks_are_pytorchs() {
    let _l = lock();
    let x = x();
    tensile::manual_seed(10);
    let a = F::alpha_dropout_with(&x, 0.3).unwrap();
    let s = -1.059548258781433; // the dropped value of alpha dropout with p = 0.3
    assert_close(
        &a,
        &[
            -1.2678132057189941,
            -1.0525751113891602,
            s,
            -0.6220986843109131,
            s,
            -0.19162240624427795,
            0.023615747690200806,
            0.23885390162467957,
            0.4540920555591583,
            s,
            0.8845683336257935,
            1.099806547164917,
            1.315044641494751,
            s,
            1.7455209493637085,
            1.960759162902832,
            2.175997257232666,
            s,
            2.606473445892334,
            2.821711778640747,
            3.036949872970581,
            3.252187967300415,
            3.467426300048828,
            3.682664394378662,
        ],
    );
    tensile::manual_seed(10);
    let fa = F::feature_alpha_dropout_with(&x.reshape([2, 3, 2, 2]).unwrap(), 0.3).unwrap();
    let mut want: Vec<f64> = (0..24).map(|i| i as f64 / 4.0 - 2.0).collect();
    // channels (0, 2) and (1, 1) dropped; the others a·x + α·a·p
    for (i, w) in want.iter_mut().enumerate() {
        let ch = i / 4;
        *w = if ch == 2 || ch == 4 {
            s
        } else {
            let alpha = 1.7580993408473766;
            let a = 1.0 / ((alpha * alpha * 0.3 + 1.0) * 0.7f64).sqrt();
            *w * a + alpha * a * 0.3
        };
    }
    assert_close(&fa, &want);
    // dropout1d: (N, C, L) and unbatched (C, L) draw one value per channel
    tensile::manual_seed(10);
    let d1 = F::dropout1d_with(&x, 0.5).unwrap();
    let mut want = vec![0.0; 24];
    for i in (4..8).chain(20..24) {
        want[i] = 2.0 * (i as f64 / 4.0 - 2.0);
    }
    assert_close(&d1, &want);
    tensile::manual_seed(10);
    let d1u = F::dropout1d_with(&x.select(0, 0).unwrap(), 0.5).unwrap();
    assert_close(&d1u, &want[..12]);
    tensile::manual_seed(10);
    let d3 = F::dropout3d_with(&x.reshape([1, 2, 3, 2, 2]).unwrap(), 0.5).unwrap();
    let want: Vec<f64> = (0..24)
        .map(|i| {
            if i < 12 {
                0.0
            } else {
                2.0 * (i as f64 / 4.0 - 2.0)
            }
        })
        .collect();
    assert_close(&d3, &want);
    // nn.Dropout(0.25) in training mode
    tensile::manual_seed(10);
    let m = Dropout::with(0.25, false).unwrap();
    let y = m.forward(&x).unwrap();
    let kept = [
        1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1,
    ];
    let want: Vec<f64> = (0..24)
        .map(|i| kept[i] as f64 * (i as f64 / 4.0 - 2.0) / 0.75)
        .collect();
    assert_close(&y, &want);
    // p = 1: x * 0 without drawing (NaN stays NaN); an integer input: div_'s refusal
    let n = Tensor::from_vec(vec![1f32, f32::NAN], [2]).unwrap();
    let z = F::dropout_with(&n, 1.0).unwrap().to_vec::<f32>();
    assert!(z[0] == 0.0 && z[1].is_nan());
    let e = F::dropout_with(&Tensor::ones_with([5], DType::Int64).unwrap(), 0.5).unwrap_err();
    assert_eq!(
        e.message(),
        "result type Float can't be cast to the desired output type Long"
    );
}

#[test]
#[allow(clippy::excessive_precision)]
fn sparse_takes_its_permutations_from_the_default_generator() {
    let _l = lock();
    // torch.manual_seed(10); nn.init.sparse_(w, 0.5, generator=torch.Generator().manual_seed(3))
    tensile::manual_seed(10);
    let w = Tensor::empty([6, 4]).unwrap();
    init::sparse_with_(&w, 0.5, 0.01, Some(&Generator::new().manual_seed(3))).unwrap();
    assert_close(
        &w,
        &[
            -0.0007664429140277207,
            0.0035988150630146265,
            -0.00782016757875681,
            0.0,
            0.0,
            -0.0028678029775619507,
            0.016205506399273872,
            -0.015967080369591713,
            0.0,
            0.0,
            0.0,
            -0.00033643259666860104,
            -0.003448453266173601,
            0.0,
            0.0,
            -0.01805364526808262,
            0.004851140081882477,
            0.0020523436833173037,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0077367317862808704,
            0.0,
        ],
    );
}

#[test]
fn rng_state_holds_pytorchs_bytes() {
    let _l = lock();
    // torch.manual_seed(5); torch.randn(1, dtype=torch.float64); torch.get_rng_state()
    tensile::manual_seed(5);
    let first = Tensor::randn_with([1], DType::Float64).unwrap();
    let s = tensile::get_rng_state();
    assert_eq!((s.dtype(), s.size()), (DType::UInt8, &[5056usize][..]));
    let b = s.to_vec::<u8>();
    assert_eq!(
        b[..24],
        [
            5, 0, 0, 0, 0, 0, 0, 0, 109, 2, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0
        ]
    );
    // the cached second normal value (normal_y) and its validity flag
    assert_eq!(
        b[5016..5056],
        [
            0, 0, 0, 0, 0, 0, 0, 0, 42, 148, 146, 166, 129, 82, 227, 191, 0, 0, 0, 0, 0, 0, 0, 0,
            1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
        ]
    );
    // restoring it brings the cached value back
    let next = Tensor::randn_with([1], DType::Float64).unwrap();
    tensile::manual_seed(99);
    tensile::set_rng_state(&s).unwrap();
    assert_eq!(
        Tensor::randn_with([1], DType::Float64)
            .unwrap()
            .item::<f64>()
            .unwrap(),
        next.item::<f64>().unwrap()
    );
    assert_eq!(tensile::initial_seed(), 5);
    assert_ne!(first.item::<f64>().unwrap(), next.item::<f64>().unwrap());
}
