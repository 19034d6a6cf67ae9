//! Resampling and padding (derivatives.yaml: `upsample_*`, `constant_pad_nd`,
//! `reflection_pad*d`, `replication_pad*d`, `pixel_shuffle`, `pixel_unshuffle`).
//!
//! * `F.interpolate` (`UpsampleNearest2DBackward0`, `UpsampleBilinear2DBackward0`, …): every
//!   mode is separable, `y = M_1 ⊗ … ⊗ M_k x` with `M_j[o, i]` the weight of input `i` in
//!   output `o` (the forward's own taps), so the gradient is `g` times each `M_j` transposed
//!   (`pool::separable_backward`; a float16/bfloat16 gradient in float32, rounded once, as
//!   PyTorch's kernels accumulate it); `area` is `adaptive_avg_pool` (composite);
//! * `F.pad` constant (`ConstantPadNdBackward0`): `pad(g, -pad)` (crops what was added,
//!   zero-fills what was cropped); reflect / replicate (`ReflectionPad2DBackward0`, …) and
//!   circular: `g` summed back to the source of each output element (`index::Gathered`);
//! * `pixel_shuffle` / `pixel_unshuffle`: each other's inverse permutation.

use super::super::record::{node, record};
use super::pointwise::lam;
use super::pool::separable_backward;
use crate::dtype::DType;
use crate::error::Result;
use crate::geometry::resample::{Real, dim_taps};
use crate::tensor::Tensor;

/// The arguments of one `F.interpolate` call that fix its per-dim taps.
#[derive(Clone, Debug)]
pub(crate) struct Resample {
    pub mode: String,
    pub ins: Vec<usize>,
    pub outs: Vec<usize>,
    pub align: bool,
    pub scales: Option<Vec<f64>>,
    pub float64: bool,
}

fn taps_matrix<T: Real>(r: &Resample, j: usize) -> Result<Tensor> {
    let k = r.ins.len();
    let (i, o) = (r.ins[j], r.outs[j]);
    let s = r.scales.as_ref().map(|f| f[j]);
    let taps = dim_taps::<T>(&r.mode, i, o, r.align, s, k == 2)?;
    // a dense (out, in) matrix: beside an empty batch nothing bounds `o·in`
    let n = o
        .checked_mul(i)
        .filter(|&n| n <= i64::MAX as usize)
        .ok_or_else(|| {
            crate::error::Error::runtime(format!(
                "Storage size calculation overflowed with sizes=[{o}, {i}]"
            ))
        })?;
    let mut m = crate::error::try_filled(0f64, n)?;
    for (q, t) in taps.iter().enumerate() {
        for &(at, w) in t {
            m[q * i + at] += w.f64();
        }
    }
    Tensor::from_vec(m, [o, i])
}

/// PyTorch's node name of an `F.interpolate` mode over `k` spatial dims.
fn upsample_name(mode: &str, k: usize) -> &'static str {
    match (mode, k) {
        ("nearest", 1) => "UpsampleNearest1DBackward0",
        ("nearest", 2) => "UpsampleNearest2DBackward0",
        ("nearest", _) => "UpsampleNearest3DBackward0",
        ("nearest-exact", 1) => "UpsampleNearestExact1DBackward0",
        ("nearest-exact", 2) => "UpsampleNearestExact2DBackward0",
        ("nearest-exact", _) => "UpsampleNearestExact3DBackward0",
        ("linear", _) => "UpsampleLinear1DBackward0",
        ("bilinear", _) => "UpsampleBilinear2DBackward0",
        ("bicubic", _) => "UpsampleBicubic2DBackward0",
        _ => "UpsampleTrilinear3DBackward0",
    }
}

/// `F.interpolate` (modes other than `area`): the upsample node of `r.mode`.
pub(crate) fn interpolate(out: Tensor, x: &Tensor, r: Resample) -> Result<Tensor> {
    let name = upsample_name(&r.mode, r.ins.len());
    record(out, &[x], || {
        node(lam(name, move |g, _| {
            let mats = (0..r.ins.len())
                .map(|j| {
                    if r.float64 {
                        taps_matrix::<f64>(&r, j)
                    } else {
                        taps_matrix::<f32>(&r, j)
                    }
                })
                .collect::<Result<Vec<_>>>()?;
            // PyTorch's backward kernels accumulate a float16/bfloat16 gradient in a float32
            // buffer with float32 weights and round once at the end
            let dt = g.dtype();
            if matches!(dt, DType::Float16 | DType::BFloat16) {
                let gf = g.to(DType::Float32)?;
                return Ok(vec![Some(separable_backward(&gf, &mats)?.to(dt)?)]);
            }
            Ok(vec![Some(separable_backward(g, &mats)?)])
        }))
    })
}

/// `F.pad(mode="constant")` (`ConstantPadNdBackward0`): `pad(g, -pad)`.
pub(crate) fn constant_pad(out: Tensor, x: &Tensor, pad: &[i64]) -> Result<Tensor> {
    let neg: Vec<i64> = pad.iter().map(|&p| -p).collect();
    record(out, &[x], || {
        node(lam("ConstantPadNdBackward0", move |g, _| {
            Ok(vec![Some(crate::optable::resample::pad(g, &neg[..])?)])
        }))
    })
}

/// `F.pad` reflect / replicate / circular: `g` summed back to each output element's source
/// (found by padding the element ids). PyTorch's node names are `ReflectionPad{k}DBackward0`
/// and `ReplicationPad{k}DBackward0`; circular padding is composite in PyTorch (slice
/// copies into the output), whose last node is a `CopySlices`: that name is kept.
pub(crate) fn edge_pad(out: Tensor, x: &Tensor, pad: &[i64], mode: &str) -> Result<Tensor> {
    let k = pad.len() / 2;
    let name = match (mode, k) {
        ("reflect", 1) => "ReflectionPad1DBackward0",
        ("reflect", 2) => "ReflectionPad2DBackward0",
        ("reflect", _) => "ReflectionPad3DBackward0",
        ("replicate", 1) => "ReplicationPad1DBackward0",
        ("replicate", 2) => "ReplicationPad2DBackward0",
        ("replicate", _) => "ReplicationPad3DBackward0",
        _ => "torch::autograd::CopySlices",
    };
    let pad = pad.to_vec();
    let mode = mode.to_string();
    super::index::gathered(name, out, x, |ids| {
        crate::optable::resample::pad_with(ids, &pad[..], mode.as_str())
    })
}

/// `pixel_shuffle` (`PixelShuffleBackward0`: `pixel_unshuffle(g)`) and `pixel_unshuffle`
/// (`PixelUnshuffleBackward0`: `pixel_shuffle(g)`).
pub(crate) fn pixel_shuffle(out: Tensor, x: &Tensor, r: i64, shuffle: bool) -> Result<Tensor> {
    record(out, &[x], || {
        if shuffle {
            node(lam("PixelShuffleBackward0", move |g, _| {
                Ok(vec![Some(crate::optable::resample::pixel_unshuffle(g, r)?)])
            }))
        } else {
            node(lam("PixelUnshuffleBackward0", move |g, _| {
                Ok(vec![Some(crate::optable::resample::pixel_shuffle(g, r)?)])
            }))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::pool::fd::{check, vals};
    use crate::nn::functional as F;

    #[test]
    fn interpolate_modes() {
        let x = vals(&[1, 2, 4, 5], 0.0, true);
        for (mode, align) in [
            ("nearest", None),
            ("nearest-exact", None),
            ("bilinear", Some(false)),
            ("bilinear", Some(true)),
            ("bicubic", Some(false)),
            ("bicubic", Some(true)),
            ("area", None),
        ] {
            for size in [[7, 3], [4, 5], [2, 9]] {
                let o = F::InterpolateOpts {
                    size: Some(size.into_iter().collect()),
                    mode,
                    align_corners: align,
                    ..Default::default()
                };
                check(std::slice::from_ref(&x), |v| {
                    F::interpolate_with(&v[0], o.clone())
                });
            }
        }
        let o = F::InterpolateOpts {
            scale_factor: Some(vec![1.7]),
            mode: "linear",
            ..Default::default()
        };
        check(&[vals(&[2, 2, 5], 1.0, false)], |v| {
            F::interpolate_with(&v[0], o.clone())
        });
        let o = F::InterpolateOpts {
            size: Some([3, 5, 2].into_iter().collect()),
            mode: "trilinear",
            align_corners: Some(true),
            ..Default::default()
        };
        check(&[vals(&[1, 1, 2, 3, 4], 1.0, false)], |v| {
            F::interpolate_with(&v[0], o.clone())
        });
    }

    #[test]
    fn pad_modes() {
        let x = vals(&[1, 2, 4, 5], 0.0, true);
        check(std::slice::from_ref(&x), |v| F::pad(&v[0], [1, 2, -1, 1]));
        for mode in ["reflect", "replicate", "circular"] {
            check(std::slice::from_ref(&x), |v| {
                F::pad_with(&v[0], [2, 1, 3, 1], mode)
            });
        }
        let l = x.detach();
        l.requires_grad_(true).unwrap();
        let y = F::pad_with(&l.select(0, 0).unwrap(), [1, 1], "reflect").unwrap();
        assert_eq!(y.grad_fn().unwrap().name(), "ReflectionPad1DBackward0");
    }

    #[test]
    fn pixel_shuffle_roundtrip() {
        let x = vals(&[1, 8, 2, 3], 0.0, true);
        check(std::slice::from_ref(&x), |v| F::pixel_shuffle(&v[0], 2));
        check(&[vals(&[2, 4, 6], 0.0, false)], |v| {
            F::pixel_unshuffle(&v[0], 2)
        });
    }
}
