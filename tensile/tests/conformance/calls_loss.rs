//! Ops of the `loss` family (`torch.nn.functional` losses), for the conformance runner.
use super::{Arg, Out, kw_arg, kw_bool, kw_f64, kw_int, kw_str};
use tensile::Tensor;
use tensile::nn::functional as F;

/// A tensor keyword argument (`weight=`, `pos_weight=`), `None` when absent or null; a leaf
/// that requires grad when its SPEC says so (the `grad` family).
fn kw_tensor(kw: &serde_json::Value, name: &str) -> Option<Tensor> {
    match kw_arg(kw, name) {
        Some(Arg::Tensor(_)) if kw[name]["tensor"]["requires_grad"].as_bool() == Some(true) => {
            Some(super::calls_grad::leaf(&kw[name]["tensor"]))
        }
        Some(Arg::Tensor(t)) => Some(t),
        _ => None,
    }
}

pub fn call(op: &str, args: &[Arg], kw: &serde_json::Value) -> Option<tensile::Result<Out>> {
    let t = |i: usize| args[i].tensor();
    let red: F::Reduction = kw_str(kw, "reduction").unwrap_or("mean").into();
    let weight = kw_tensor(kw, "weight");
    let w = weight.as_ref();
    let r = match op {
        "cross_entropy" => F::cross_entropy_with(
            t(0),
            t(1),
            F::CrossEntropyOpts {
                weight: w,
                ignore_index: kw_int(kw, "ignore_index").unwrap_or(-100),
                reduction: red,
                label_smoothing: kw_f64(kw, "label_smoothing").unwrap_or(0.0),
                ..Default::default()
            },
        ),
        "nll_loss" => F::nll_loss_with(
            t(0),
            t(1),
            F::NllLossOpts {
                weight: w,
                ignore_index: kw_int(kw, "ignore_index").unwrap_or(-100),
                reduction: red,
                ..Default::default()
            },
        ),
        "mse_loss" => F::mse_loss_with(
            t(0),
            t(1),
            F::MseLossOpts {
                reduction: red,
                weight: w,
                ..Default::default()
            },
        ),
        "l1_loss" => F::l1_loss_with(
            t(0),
            t(1),
            F::L1LossOpts {
                reduction: red,
                weight: w,
                ..Default::default()
            },
        ),
        "smooth_l1_loss" => F::smooth_l1_loss_with(
            t(0),
            t(1),
            F::SmoothL1LossOpts {
                reduction: red,
                beta: kw_f64(kw, "beta").unwrap_or(1.0),
                ..Default::default()
            },
        ),
        "huber_loss" => F::huber_loss_with(
            t(0),
            t(1),
            F::HuberLossOpts {
                reduction: red,
                delta: kw_f64(kw, "delta").unwrap_or(1.0),
                weight: w,
                ..Default::default()
            },
        ),
        "soft_margin_loss" => F::soft_margin_loss_with(t(0), t(1), red),
        "multilabel_margin_loss" => F::multilabel_margin_loss_with(t(0), t(1), red),
        "hinge_embedding_loss" => F::hinge_embedding_loss_with(
            t(0),
            t(1),
            F::MarginOpts {
                margin: kw_f64(kw, "margin").unwrap_or(1.0),
                reduction: red,
                ..Default::default()
            },
        ),
        "poisson_nll_loss" => F::poisson_nll_loss_with(
            t(0),
            t(1),
            F::PoissonNllLossOpts {
                log_input: kw_bool(kw, "log_input").unwrap_or(true),
                full: kw_bool(kw, "full").unwrap_or(false),
                eps: kw_f64(kw, "eps").unwrap_or(1e-8),
                reduction: red,
                ..Default::default()
            },
        ),
        "kl_div" => F::kl_div_with(
            t(0),
            t(1),
            F::KlDivOpts {
                reduction: red,
                log_target: kw_bool(kw, "log_target").unwrap_or(false),
                ..Default::default()
            },
        ),
        "binary_cross_entropy" => F::binary_cross_entropy_with(
            t(0),
            t(1),
            F::BinaryCrossEntropyOpts {
                weight: w,
                reduction: red,
                ..Default::default()
            },
        ),
        "binary_cross_entropy_with_logits" => {
            let pw = kw_tensor(kw, "pos_weight");
            F::binary_cross_entropy_with_logits_with(
                t(0),
                t(1),
                F::BceWithLogitsOpts {
                    weight: w,
                    reduction: red,
                    pos_weight: pw.as_ref(),
                    ..Default::default()
                },
            )
        }
        "gaussian_nll_loss" => F::gaussian_nll_loss_with(
            t(0),
            t(1),
            t(2),
            F::GaussianNllLossOpts {
                full: kw_bool(kw, "full").unwrap_or(false),
                eps: kw_f64(kw, "eps").unwrap_or(1e-6),
                reduction: red,
                ..Default::default()
            },
        ),
        "margin_ranking_loss" | "cosine_embedding_loss" => {
            let o = F::MarginOpts {
                margin: kw_f64(kw, "margin").unwrap_or(0.0),
                reduction: red,
                ..Default::default()
            };
            if op == "margin_ranking_loss" {
                F::margin_ranking_loss_with(t(0), t(1), t(2), o)
            } else {
                F::cosine_embedding_loss_with(t(0), t(1), t(2), o)
            }
        }
        "triplet_margin_loss" => F::triplet_margin_loss_with(
            t(0),
            t(1),
            t(2),
            F::TripletMarginLossOpts {
                margin: kw_f64(kw, "margin").unwrap_or(1.0),
                p: kw_f64(kw, "p").unwrap_or(2.0),
                eps: kw_f64(kw, "eps").unwrap_or(1e-6),
                swap: kw_bool(kw, "swap").unwrap_or(false),
                reduction: red,
                ..Default::default()
            },
        ),
        "multi_margin_loss" => F::multi_margin_loss_with(
            t(0),
            t(1),
            F::MultiMarginLossOpts {
                p: kw_int(kw, "p").unwrap_or(1),
                margin: kw_f64(kw, "margin").unwrap_or(1.0),
                weight: w,
                reduction: red,
                ..Default::default()
            },
        ),
        "multilabel_soft_margin_loss" => F::multilabel_soft_margin_loss_with(
            t(0),
            t(1),
            F::MultilabelSoftMarginLossOpts {
                weight: w,
                reduction: red,
                ..Default::default()
            },
        ),
        "ctc_loss" => F::ctc_loss_with(
            t(0),
            t(1),
            t(2),
            t(3),
            F::CtcLossOpts {
                blank: kw_int(kw, "blank").unwrap_or(0),
                reduction: red,
                zero_infinity: kw_bool(kw, "zero_infinity").unwrap_or(false),
                ..Default::default()
            },
        ),
        _ => return None,
    };
    Some(r.map(Out::Tensor))
}
