//! Losses (`torch.nn.functional`): `F.cross_entropy`, `F.nll_loss`, `F.mse_loss`,
//! `F.l1_loss`, `F.smooth_l1_loss`, `F.huber_loss`, the margin losses, `F.poisson_nll_loss`,
//! `F.gaussian_nll_loss`, `F.kl_div`, the binary cross entropies and `F.ctc_loss`. Arguments
//! positional or keywords, at PyTorch's places (the legacy `size_average` and `reduce` are
//! not read), defaults PyTorch's (`reduction='mean'`, `ignore_index=-100`, …).

use super::{Arg, Args, Dom, OpInfo, P, POS, PROB, Sample, Sig, X};
use tensile::nn::functional as F;
use tensile::{Result, Scalar, Tensor};

/// `reduction=` (position `i` or keyword; `'mean'` when absent).
fn red(a: &Args, i: usize) -> F::Reduction {
    match a.arg(i, "reduction") {
        Some(Arg::Str(s)) => s.as_str().into(),
        _ => F::Reduction::Mean,
    }
}

/// A float option at position `i` or keyword `k` (ints accepted, `"inf"`/`"nan"` decoded).
fn num(a: &Args, i: usize, k: &str, default: f64) -> f64 {
    match a.arg(i, k) {
        Some(Arg::Scalar(s)) => s.to_f64(),
        Some(Arg::Str(s)) => s.parse().expect("opinfo: a loss option is a number"),
        _ => default,
    }
}

/// An int option at position `i` or keyword `k`.
fn int(a: &Args, i: usize, k: &str, default: i64) -> i64 {
    match a.arg(i, k) {
        Some(Arg::Scalar(Scalar::Int(v))) => *v,
        _ => default,
    }
}

/// A bool option at position `i` or keyword `k`.
fn flag(a: &Args, i: usize, k: &str, default: bool) -> bool {
    match a.arg(i, k) {
        Some(Arg::Scalar(Scalar::Bool(v))) => *v,
        _ => default,
    }
}

/// A tensor option at position `i` or keyword `k` (`weight=`, `pos_weight=`), `None` when
/// absent.
fn opt_t<'a>(a: &'a Args, i: usize, k: &str) -> Option<&'a Tensor> {
    match a.arg(i, k) {
        Some(Arg::Tensor(t)) => Some(t),
        _ => None,
    }
}

/// `F.cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
/// reduce=None, reduction='mean', label_smoothing=0.0)`.
fn cross_entropy(a: &Args) -> Result<Tensor> {
    F::cross_entropy_with(
        a.t(0),
        a.t(1),
        F::CrossEntropyOpts {
            weight: opt_t(a, 2, "weight"),
            ignore_index: int(a, 4, "ignore_index", -100),
            reduction: red(a, 6),
            label_smoothing: num(a, 7, "label_smoothing", 0.0),
            ..Default::default()
        },
    )
}

/// `F.nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
/// reduction='mean')`.
fn nll_loss(a: &Args) -> Result<Tensor> {
    F::nll_loss_with(
        a.t(0),
        a.t(1),
        F::NllLossOpts {
            weight: opt_t(a, 2, "weight"),
            ignore_index: int(a, 4, "ignore_index", -100),
            reduction: red(a, 6),
            ..Default::default()
        },
    )
}

/// The options of `F.mse_loss` / `F.l1_loss(input, target, size_average=None, reduce=None,
/// reduction='mean', weight=None)`.
fn mse_opts(a: &Args) -> F::MseLossOpts<'_> {
    F::MseLossOpts {
        reduction: red(a, 4),
        weight: opt_t(a, 5, "weight"),
        ..Default::default()
    }
}

/// `F.smooth_l1_loss(input, target, size_average=None, reduce=None, reduction='mean',
/// beta=1.0)`.
fn smooth_l1_loss(a: &Args) -> Result<Tensor> {
    F::smooth_l1_loss_with(
        a.t(0),
        a.t(1),
        F::SmoothL1LossOpts {
            reduction: red(a, 4),
            beta: num(a, 5, "beta", 1.0),
            ..Default::default()
        },
    )
}

/// `F.huber_loss(input, target, reduction='mean', delta=1.0, weight=None)`.
fn huber_loss(a: &Args) -> Result<Tensor> {
    F::huber_loss_with(
        a.t(0),
        a.t(1),
        F::HuberLossOpts {
            reduction: red(a, 2),
            delta: num(a, 3, "delta", 1.0),
            weight: opt_t(a, 4, "weight"),
            ..Default::default()
        },
    )
}

/// `F.hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
/// reduction='mean')`.
fn hinge_embedding_loss(a: &Args) -> Result<Tensor> {
    F::hinge_embedding_loss_with(
        a.t(0),
        a.t(1),
        F::MarginOpts {
            margin: num(a, 2, "margin", 1.0),
            reduction: red(a, 5),
            ..Default::default()
        },
    )
}

/// `F.poisson_nll_loss(input, target, log_input=True, full=False, size_average=None,
/// eps=1e-8, reduce=None, reduction='mean')`.
fn poisson_nll_loss(a: &Args) -> Result<Tensor> {
    F::poisson_nll_loss_with(
        a.t(0),
        a.t(1),
        F::PoissonNllLossOpts {
            log_input: flag(a, 2, "log_input", true),
            full: flag(a, 3, "full", false),
            eps: num(a, 5, "eps", 1e-8),
            reduction: red(a, 7),
            ..Default::default()
        },
    )
}

/// `F.kl_div(input, target, size_average=None, reduce=None, reduction='mean',
/// log_target=False)`.
fn kl_div(a: &Args) -> Result<Tensor> {
    F::kl_div_with(
        a.t(0),
        a.t(1),
        F::KlDivOpts {
            reduction: red(a, 4),
            log_target: flag(a, 5, "log_target", false),
            ..Default::default()
        },
    )
}

/// `F.binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
/// reduction='mean')`.
fn binary_cross_entropy(a: &Args) -> Result<Tensor> {
    F::binary_cross_entropy_with(
        a.t(0),
        a.t(1),
        F::BinaryCrossEntropyOpts {
            weight: opt_t(a, 2, "weight"),
            reduction: red(a, 5),
            ..Default::default()
        },
    )
}

/// `F.binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
/// reduce=None, reduction='mean', pos_weight=None)`.
fn bce_with_logits(a: &Args) -> Result<Tensor> {
    F::binary_cross_entropy_with_logits_with(
        a.t(0),
        a.t(1),
        F::BceWithLogitsOpts {
            weight: opt_t(a, 2, "weight"),
            reduction: red(a, 5),
            pos_weight: opt_t(a, 6, "pos_weight"),
            ..Default::default()
        },
    )
}

/// `F.gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction='mean')`.
fn gaussian_nll_loss(a: &Args) -> Result<Tensor> {
    F::gaussian_nll_loss_with(
        a.t(0),
        a.t(1),
        a.t(2),
        F::GaussianNllLossOpts {
            full: flag(a, 3, "full", false),
            eps: num(a, 4, "eps", 1e-6),
            reduction: red(a, 5),
            ..Default::default()
        },
    )
}

/// The options of `F.margin_ranking_loss` / `F.cosine_embedding_loss(input1, input2, target,
/// margin=0, size_average=None, reduce=None, reduction='mean')`.
fn margin_opts(a: &Args) -> F::MarginOpts<'_> {
    F::MarginOpts {
        margin: num(a, 3, "margin", 0.0),
        reduction: red(a, 6),
        ..Default::default()
    }
}

/// `F.triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6,
/// swap=False, size_average=None, reduce=None, reduction='mean')`.
fn triplet_margin_loss(a: &Args) -> Result<Tensor> {
    F::triplet_margin_loss_with(
        a.t(0),
        a.t(1),
        a.t(2),
        F::TripletMarginLossOpts {
            margin: num(a, 3, "margin", 1.0),
            p: num(a, 4, "p", 2.0),
            eps: num(a, 5, "eps", 1e-6),
            swap: flag(a, 6, "swap", false),
            reduction: red(a, 9),
            ..Default::default()
        },
    )
}

/// `F.multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
/// reduce=None, reduction='mean')`.
fn multi_margin_loss(a: &Args) -> Result<Tensor> {
    F::multi_margin_loss_with(
        a.t(0),
        a.t(1),
        F::MultiMarginLossOpts {
            p: int(a, 2, "p", 1),
            margin: num(a, 3, "margin", 1.0),
            weight: opt_t(a, 4, "weight"),
            reduction: red(a, 7),
            ..Default::default()
        },
    )
}

/// `F.multilabel_soft_margin_loss(input, target, weight=None, size_average=None,
/// reduce=None, reduction='mean')`.
fn multilabel_soft_margin_loss(a: &Args) -> Result<Tensor> {
    F::multilabel_soft_margin_loss_with(
        a.t(0),
        a.t(1),
        F::MultilabelSoftMarginLossOpts {
            weight: opt_t(a, 2, "weight"),
            reduction: red(a, 5),
            ..Default::default()
        },
    )
}

/// `F.ctc_loss`'s `input_lengths` / `target_lengths`: a tensor, or a tuple of ints.
fn lengths(a: &Args, i: usize, k: &str) -> Result<Tensor> {
    match a.arg(i, k) {
        Some(Arg::Tensor(t)) => Ok(t.alias()),
        Some(Arg::Ints(v)) => Tensor::from_vec(v.clone(), [v.len()]),
        _ => panic!("opinfo: ctc_loss takes {k}"),
    }
}

/// `F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0,
/// reduction='mean', zero_infinity=False)`.
fn ctc_loss(a: &Args) -> Result<Tensor> {
    let targets = opt_t(a, 1, "targets").expect("opinfo: ctc_loss takes targets");
    F::ctc_loss_with(
        a.t(0),
        targets,
        &lengths(a, 2, "input_lengths")?,
        &lengths(a, 3, "target_lengths")?,
        F::CtcLossOpts {
            blank: int(a, 4, "blank", 0),
            reduction: red(a, 5),
            zero_infinity: flag(a, 6, "zero_infinity", false),
            ..Default::default()
        },
    )
}

const fn t(shape: &'static [usize]) -> P {
    P::T(Dom::Any, shape)
}

const fn loss(name: &'static str, call: super::Call) -> OpInfo {
    OpInfo::new(name, Sig::Other, call)
}

/// A sample of two or three `[2, 3]` inputs, not broadcast (PyTorch warns on a target of
/// another size).
const fn same(args: &'static [P]) -> Sample {
    Sample::new(args).no_bcast()
}

/// Class-index targets of a `[3, 4]` input.
const CLASSES: P = P::Idx(&[1, 3, 0], &[3]);
/// `±1` targets of a `[2, 3]` input.
const SIGNS: P = P::Vals(&[1.0, -1.0, 1.0, 1.0, -1.0, -1.0], &[2, 3]);

/// `log_softmax(x, 2)`: `ctc_loss`'s gradient is PyTorch's, the one with respect to the
/// logits of normalized log-probabilities.
fn log_softmax2(x: &Tensor) -> Result<Tensor> {
    x.log_softmax(2)
}

pub static OPS: &[OpInfo] = &[
    loss("cross_entropy", cross_entropy)
        .grad(&[
            Sample::new(&[t(&[3, 4]), CLASSES]),
            Sample::new(&[
                t(&[3, 4]),
                P::Vals(
                    &[
                        0.2, 0.7, 0.4, 0.15, 0.85, 0.3, 0.5, 0.6, 0.25, 0.45, 0.8, 0.35,
                    ],
                    &[3, 4],
                ),
            ])
            .named("cross_entropy (probabilities)"),
        ])
        .bench("F.cross_entropy"),
    loss("nll_loss", nll_loss).grad(&[Sample::new(&[t(&[3, 4]), CLASSES])]),
    loss("mse_loss", |a| {
        F::mse_loss_with(a.t(0), a.t(1), mse_opts(a))
    })
    .grad(&[same(&[X, X])])
    .bench("F.mse_loss"),
    loss("l1_loss", |a| F::l1_loss_with(a.t(0), a.t(1), mse_opts(a))).grad(&[same(&[X, X])]),
    loss("smooth_l1_loss", smooth_l1_loss).grad(&[same(&[X, X])]),
    loss("huber_loss", huber_loss).grad(&[same(&[X, X])]),
    // `soft_margin_loss(input, target, size_average=None, reduce=None, reduction='mean')`
    loss("soft_margin_loss", |a| {
        F::soft_margin_loss_with(a.t(0), a.t(1), red(a, 4))
    })
    .grad(&[Sample::new(&[X, SIGNS])]),
    // `multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction='mean')`
    loss("multilabel_margin_loss", |a| {
        F::multilabel_margin_loss_with(a.t(0), a.t(1), red(a, 4))
    })
    .grad(&[Sample::new(&[
        t(&[2, 4]),
        P::Idx(&[3, 0, -1, 1, 1, -1, 0, 0], &[2, 4]),
    ])]),
    loss("hinge_embedding_loss", hinge_embedding_loss).grad(&[Sample::new(&[X, SIGNS])]),
    loss("poisson_nll_loss", poisson_nll_loss).grad(&[same(&[X, POS])]),
    loss("kl_div", kl_div).grad(&[same(&[X, PROB])]),
    loss("binary_cross_entropy", binary_cross_entropy).grad(&[same(&[PROB, PROB])]),
    loss("binary_cross_entropy_with_logits", bce_with_logits).grad(&[same(&[X, PROB])]),
    loss("gaussian_nll_loss", gaussian_nll_loss).grad(&[same(&[X, X, POS])]),
    loss("margin_ranking_loss", |a| {
        F::margin_ranking_loss_with(a.t(0), a.t(1), a.t(2), margin_opts(a))
    })
    .grad(&[same(&[t(&[3]), t(&[3]), P::Vals(&[1.0, -1.0, 1.0], &[3])])]),
    loss("cosine_embedding_loss", |a| {
        F::cosine_embedding_loss_with(a.t(0), a.t(1), a.t(2), margin_opts(a))
    })
    .grad(&[same(&[X, X, P::Vals(&[1.0, -1.0], &[2])])]),
    loss("triplet_margin_loss", triplet_margin_loss).grad(&[same(&[X, X, X])]),
    loss("multi_margin_loss", multi_margin_loss).grad(&[Sample::new(&[t(&[3, 4]), CLASSES])]),
    loss("multilabel_soft_margin_loss", multilabel_soft_margin_loss).grad(&[same(&[X, PROB])]),
    loss("ctc_loss", ctc_loss).grad(&[Sample::new(&[
        P::Wrap(Dom::Any, &[5, 1, 3], log_softmax2),
        P::Idx(&[1, 2], &[1, 2]),
        P::Idx(&[5], &[1]),
        P::Idx(&[2], &[1]),
    ])]),
];
