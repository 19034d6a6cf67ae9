//! The options of the loss functions ([`crate::nn::functional`]'s `*_loss_with` forms): the
//! [`Reduction`] enum and one struct per loss, fields named as PyTorch's parameters,
//! `Default` = PyTorch's defaults, with `From` a single value (the first optional parameter)
//! and tuples (the leading optional parameters, in PyTorch's order).

use crate::Tensor;
use crate::error::{Error, Result};

/// PyTorch's `reduction=` string: `"none"`, `"mean"` (the default), `"sum"`, and
/// `"batchmean"` (kl_div only). `From<&str>` keeps any other string, refused by the loss with
/// PyTorch's ValueError (`foo is not a valid value for reduction`).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Reduction {
    /// `"none"`: the per-element (or per-sample) losses.
    None,
    /// `"mean"`: their mean (weighted losses: divided by the total weight).
    #[default]
    Mean,
    /// `"sum"`: their sum.
    Sum,
    /// `"batchmean"` (kl_div): the sum divided by the batch size `input.size(0)`.
    BatchMean,
    /// Any other string, kept for the error message.
    Invalid(String),
}

impl From<&str> for Reduction {
    fn from(s: &str) -> Self {
        match s {
            "none" => Reduction::None,
            "mean" => Reduction::Mean,
            "sum" => Reduction::Sum,
            "batchmean" => Reduction::BatchMean,
            other => Reduction::Invalid(other.to_string()),
        }
    }
}

impl Reduction {
    /// The name PyTorch spells it with.
    pub fn name(&self) -> &str {
        match self {
            Reduction::None => "none",
            Reduction::Mean => "mean",
            Reduction::Sum => "sum",
            Reduction::BatchMean => "batchmean",
            Reduction::Invalid(s) => s,
        }
    }
    /// `_Reduction.get_enum`: none, mean or sum, else ValueError
    /// `batchmean is not a valid value for reduction`.
    pub(crate) fn check(&self) -> Result<Reduction> {
        match self {
            Reduction::None | Reduction::Mean | Reduction::Sum => Ok(self.clone()),
            r => Err(Error::value(format!(
                "{} is not a valid value for reduction",
                r.name()
            ))),
        }
    }
}

/// Declares an options struct with `Default`, `From` the first field and `From` tuples of
/// the leading fields.
macro_rules! loss_opts {
    (
        $(#[$m:meta])*
        $name:ident<$lt:lifetime> {
            $( $(#[$fm:meta])* $f:ident : $t:ty = $d:expr ),* $(,)?
        }
        from { $( ($($a:ident : $at:ty),+) ),* $(,)? }
    ) => {
        $(#[$m])*
        #[derive(Clone, Debug)]
        pub struct $name<$lt> {
            $( $(#[$fm])* pub $f: $t, )*
            #[doc(hidden)]
            pub _lt: std::marker::PhantomData<&$lt ()>,
        }
        impl<$lt> Default for $name<$lt> {
            fn default() -> Self {
                $name { $( $f: $d, )* _lt: std::marker::PhantomData }
            }
        }
        $(
            impl<$lt> From<($($at,)+)> for $name<$lt> {
                #[allow(unused_parens)]
                fn from(($($a,)+): ($($at,)+)) -> Self {
                    $name { $( $a: $a.into(), )+ ..Default::default() }
                }
            }
        )*
    };
}

macro_rules! from_single {
    ($name:ident, $f:ident : $t:ty) => {
        impl<'a> From<$t> for $name<'a> {
            fn from(v: $t) -> Self {
                $name {
                    $f: v.into(),
                    ..Default::default()
                }
            }
        }
    };
}

loss_opts! {
    /// `F.cross_entropy`'s options (`weight=None, ignore_index=-100, reduction='mean',
    /// label_smoothing=0.0`).
    CrossEntropyOpts<'a> {
        /// Per-class weights, 1-D of size C.
        weight: Option<&'a Tensor> = None,
        /// Class-index targets equal to it are skipped (no loss, no weight).
        ignore_index: i64 = -100,
        /// none / mean / sum.
        reduction: Reduction = Reduction::Mean,
        /// Mixes the target with the uniform distribution, in [0, 1].
        label_smoothing: f64 = 0.0,
    }
    from { (weight: Option<&'a Tensor>, ignore_index: i64), (weight: Option<&'a Tensor>, ignore_index: i64, reduction: &'a str) }
}
from_single!(CrossEntropyOpts, weight: &'a Tensor);
from_single!(CrossEntropyOpts, weight: Option<&'a Tensor>);

loss_opts! {
    /// `F.nll_loss`'s options (`weight=None, ignore_index=-100, reduction='mean'`).
    NllLossOpts<'a> {
        /// Per-class weights, 1-D of size C.
        weight: Option<&'a Tensor> = None,
        /// Targets equal to it are skipped.
        ignore_index: i64 = -100,
        /// none / mean / sum.
        reduction: Reduction = Reduction::Mean,
    }
    from { (weight: Option<&'a Tensor>, ignore_index: i64), (weight: Option<&'a Tensor>, ignore_index: i64, reduction: &'a str) }
}
from_single!(NllLossOpts, weight: &'a Tensor);
from_single!(NllLossOpts, weight: Option<&'a Tensor>);

loss_opts! {
    /// `F.mse_loss` / `F.l1_loss` options (`reduction='mean', weight=None`).
    MseLossOpts<'a> {
        /// none / mean / sum.
        reduction: Reduction = Reduction::Mean,
        /// Per-element weights of `input`'s size (mean divides by their sum).
        weight: Option<&'a Tensor> = None,
    }
    from { (reduction: &'a str, weight: Option<&'a Tensor>) }
}
from_single!(MseLossOpts, reduction: &'a str);
/// `F.l1_loss`'s options: the same as [`MseLossOpts`].
pub type L1LossOpts<'a> = MseLossOpts<'a>;

loss_opts! {
    /// `F.smooth_l1_loss`'s options (`reduction='mean', beta=1.0`).
    SmoothL1LossOpts<'a> {
        /// none / mean / sum.
        reduction: Reduction = Reduction::Mean,
        /// The quadratic zone's half-width (0 gives l1_loss).
        beta: f64 = 1.0,
    }
    from { (reduction: &'a str, beta: f64) }
}
from_single!(SmoothL1LossOpts, reduction: &'a str);

loss_opts! {
    /// `F.huber_loss`'s options (`reduction='mean', delta=1.0, weight=None`).
    HuberLossOpts<'a> {
        /// none / mean / sum.
        reduction: Reduction = Reduction::Mean,
        /// Where the loss turns linear.
        delta: f64 = 1.0,
        /// Per-element weights of `input`'s size.
        weight: Option<&'a Tensor> = None,
    }
    from { (reduction: &'a str, delta: f64) }
}
from_single!(HuberLossOpts, reduction: &'a str);

loss_opts! {
    /// Options of the losses whose only option is `reduction='mean'` (soft_margin_loss,
    /// multilabel_margin_loss).
    ReductionOpts<'a> {
        /// none / mean / sum.
        reduction: Reduction = Reduction::Mean,
    }
    from {}
}
from_single!(ReductionOpts, reduction: &'a str);
from_single!(ReductionOpts, reduction: Reduction);

loss_opts! {
    /// `F.hinge_embedding_loss` / `F.margin_ranking_loss` / `F.cosine_embedding_loss` options
    /// (`margin, reduction='mean'`; margin 1.0 for hinge_embedding_loss, 0.0 for the others —
    /// `Default` is 0.0, [`hinge_embedding_loss`](crate::nn::functional::hinge_embedding_loss)
    /// uses 1.0).
    MarginOpts<'a> {
        /// The margin.
        margin: f64 = 0.0,
        /// none / mean / sum.
        reduction: Reduction = Reduction::Mean,
    }
    from { (margin: f64, reduction: &'a str) }
}
from_single!(MarginOpts, margin: f64);

loss_opts! {
    /// `F.poisson_nll_loss`'s options (`log_input=True, full=False, eps=1e-8,
    /// reduction='mean'`).
    PoissonNllLossOpts<'a> {
        /// Whether `input` is the log of the rate.
        log_input: bool = true,
        /// Adds the Stirling term for targets above 1.
        full: bool = false,
        /// Added inside the log when `log_input` is false.
        eps: f64 = 1e-8,
        /// none / mean / sum.
        reduction: Reduction = Reduction::Mean,
    }
    from { (log_input: bool, full: bool), (log_input: bool, full: bool, eps: f64) }
}
from_single!(PoissonNllLossOpts, log_input: bool);

loss_opts! {
    /// `F.kl_div`'s options (`reduction='mean', log_target=False`).
    KlDivOpts<'a> {
        /// none / mean / sum / batchmean.
        reduction: Reduction = Reduction::Mean,
        /// Whether `target` holds log-probabilities.
        log_target: bool = false,
    }
    from { (reduction: &'a str, log_target: bool) }
}
from_single!(KlDivOpts, reduction: &'a str);

loss_opts! {
    /// `F.binary_cross_entropy`'s options (`weight=None, reduction='mean'`).
    BinaryCrossEntropyOpts<'a> {
        /// Rescales each element (broadcast to the target's size).
        weight: Option<&'a Tensor> = None,
        /// none / mean / sum.
        reduction: Reduction = Reduction::Mean,
    }
    from { (weight: Option<&'a Tensor>, reduction: &'a str) }
}
from_single!(BinaryCrossEntropyOpts, weight: &'a Tensor);
from_single!(BinaryCrossEntropyOpts, weight: Option<&'a Tensor>);

loss_opts! {
    /// `F.binary_cross_entropy_with_logits`'s options (`weight=None, reduction='mean',
    /// pos_weight=None`).
    BceWithLogitsOpts<'a> {
        /// Rescales each element (broadcasts against the loss).
        weight: Option<&'a Tensor> = None,
        /// none / mean / sum.
        reduction: Reduction = Reduction::Mean,
        /// Weight of the positive term, broadcast along the last dim (classes).
        pos_weight: Option<&'a Tensor> = None,
    }
    from { (weight: Option<&'a Tensor>, reduction: &'a str) }
}
from_single!(BceWithLogitsOpts, weight: &'a Tensor);
from_single!(BceWithLogitsOpts, weight: Option<&'a Tensor>);

loss_opts! {
    /// `F.gaussian_nll_loss`'s options (`full=False, eps=1e-6, reduction='mean'`).
    GaussianNllLossOpts<'a> {
        /// Adds the constant `0.5*log(2π)`.
        full: bool = false,
        /// `var` is clamped to at least `eps`.
        eps: f64 = 1e-6,
        /// none / mean / sum.
        reduction: Reduction = Reduction::Mean,
    }
    from { (full: bool, eps: f64), (full: bool, eps: f64, reduction: &'a str) }
}
from_single!(GaussianNllLossOpts, full: bool);

loss_opts! {
    /// `F.triplet_margin_loss`'s options (`margin=1.0, p=2, eps=1e-6, swap=False,
    /// reduction='mean'`).
    TripletMarginLossOpts<'a> {
        /// The margin (must be > 0).
        margin: f64 = 1.0,
        /// The norm degree of the pairwise distance.
        p: f64 = 2.0,
        /// Added to the differences before the norm.
        eps: f64 = 1e-6,
        /// Uses the positive–negative distance when smaller.
        swap: bool = false,
        /// none / mean / sum.
        reduction: Reduction = Reduction::Mean,
    }
    from { (margin: f64, p: f64), (margin: f64, p: f64, eps: f64), (margin: f64, p: f64, eps: f64, swap: bool) }
}
from_single!(TripletMarginLossOpts, margin: f64);

loss_opts! {
    /// `F.multi_margin_loss`'s options (`p=1, margin=1, weight=None, reduction='mean'`).
    MultiMarginLossOpts<'a> {
        /// 1 or 2.
        p: i64 = 1,
        /// The margin.
        margin: f64 = 1.0,
        /// Per-class weights (of the target class), 1-D of size C.
        weight: Option<&'a Tensor> = None,
        /// none / mean / sum.
        reduction: Reduction = Reduction::Mean,
    }
    from { (p: i64, margin: f64), (p: i64, margin: f64, weight: Option<&'a Tensor>) }
}
from_single!(MultiMarginLossOpts, p: i64);

loss_opts! {
    /// `F.multilabel_soft_margin_loss`'s options (`weight=None, reduction='mean'`).
    MultilabelSoftMarginLossOpts<'a> {
        /// Per-class weights.
        weight: Option<&'a Tensor> = None,
        /// none / mean / sum.
        reduction: Reduction = Reduction::Mean,
    }
    from { (weight: Option<&'a Tensor>, reduction: &'a str) }
}
from_single!(MultilabelSoftMarginLossOpts, weight: &'a Tensor);
from_single!(MultilabelSoftMarginLossOpts, weight: Option<&'a Tensor>);

loss_opts! {
    /// `F.ctc_loss`'s options (`blank=0, reduction='mean', zero_infinity=False`).
    CtcLossOpts<'a> {
        /// The blank label.
        blank: i64 = 0,
        /// none / mean (each loss divided by its target length, then averaged) / sum.
        reduction: Reduction = Reduction::Mean,
        /// Infinite losses (impossible alignments) become 0.
        zero_infinity: bool = false,
    }
    from { (blank: i64, reduction: &'a str), (blank: i64, reduction: &'a str, zero_infinity: bool) }
}
from_single!(CtcLossOpts, blank: i64);
