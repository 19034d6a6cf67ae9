//! Normalizations, embeddings, dropouts and distances: `F.layer_norm`, `F.rms_norm`,
//! `F.group_norm`, `F.instance_norm`, `F.batch_norm`, `F.local_response_norm`,
//! `F.normalize`, `F.embedding`, `F.embedding_bag`, the dropouts, `F.cosine_similarity`,
//! `F.pairwise_distance`, `torch.cdist` and `F.pdist`. Arguments positional or keywords, as
//! PyTorch's signatures take them (defaults as PyTorch's); an optional tensor given as `None`
//! (absent, or the `grad` family's positional `None`) is none.

use super::{Arg, Args, Dom, OpInfo, P, Sample, Sig};
use tensile::nn::functional as F;
use tensile::{Result, Tensor};

/// The tensor at position `i` or in keyword `k`, if one is given.
fn opt_t<'a>(a: &'a Args, i: usize, k: &str) -> Option<&'a Tensor> {
    match a.arg(i, k)? {
        Arg::Tensor(t) => Some(t),
        _ => None,
    }
}

/// The number at position `i` or in keyword `k`, if one is given.
fn num(a: &Args, i: usize, k: &str) -> Option<f64> {
    match a.arg(i, k)? {
        Arg::Scalar(s) => Some(s.to_f64()),
        _ => None,
    }
}

/// `normalized_shape` (position 1 or keyword).
fn normalized_shape(a: &Args) -> Vec<i64> {
    a.ints_at(1, "normalized_shape")
        .expect("opinfo: a norm takes normalized_shape")
        .to_vec()
}

/// An int argument PyTorch requires (position `i` or keyword `k`).
fn int(a: &Args, i: usize, k: &str) -> i64 {
    a.int_at(i, k)
        .unwrap_or_else(|| panic!("opinfo: argument {k} is missing"))
}

/// `F.layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05)`.
fn layer_norm(a: &Args) -> Result<Tensor> {
    F::layer_norm_with(
        a.t(0),
        normalized_shape(a),
        tensile::LayerNormOpts {
            weight: opt_t(a, 2, "weight"),
            bias: opt_t(a, 3, "bias"),
            eps: num(a, 4, "eps").unwrap_or(1e-5),
        },
    )
}

/// `F.rms_norm(input, normalized_shape, weight=None, eps=None)`.
fn rms_norm(a: &Args) -> Result<Tensor> {
    F::rms_norm_with(
        a.t(0),
        normalized_shape(a),
        F::RmsNormOpts {
            weight: opt_t(a, 2, "weight"),
            eps: num(a, 3, "eps"),
        },
    )
}

/// `F.group_norm(input, num_groups, weight=None, bias=None, eps=1e-05)`.
fn group_norm(a: &Args) -> Result<Tensor> {
    F::group_norm_with(
        a.t(0),
        int(a, 1, "num_groups"),
        F::GroupNormOpts {
            weight: opt_t(a, 2, "weight"),
            bias: opt_t(a, 3, "bias"),
            eps: num(a, 4, "eps").unwrap_or(1e-5),
        },
    )
}

/// `F.instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
/// use_input_stats=True, momentum=0.1, eps=1e-05)`.
fn instance_norm(a: &Args) -> Result<Tensor> {
    F::instance_norm_with(
        a.t(0),
        F::InstanceNormOpts {
            running_mean: opt_t(a, 1, "running_mean"),
            running_var: opt_t(a, 2, "running_var"),
            weight: opt_t(a, 3, "weight"),
            bias: opt_t(a, 4, "bias"),
            use_input_stats: a.bool_at(5, "use_input_stats").unwrap_or(true),
            momentum: num(a, 6, "momentum").unwrap_or(0.1),
            eps: num(a, 7, "eps").unwrap_or(1e-5),
        },
    )
}

/// `F.batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
/// momentum=0.1, eps=1e-05)` (the running statistics are written when training).
fn batch_norm(a: &Args) -> Result<Tensor> {
    F::batch_norm_with(
        a.t(0),
        opt_t(a, 1, "running_mean"),
        opt_t(a, 2, "running_var"),
        F::BatchNormOpts {
            weight: opt_t(a, 3, "weight"),
            bias: opt_t(a, 4, "bias"),
            training: a.bool_at(5, "training").unwrap_or(false),
            momentum: num(a, 6, "momentum").unwrap_or(0.1),
            eps: num(a, 7, "eps").unwrap_or(1e-5),
        },
    )
}

/// `F.local_response_norm(input, size, alpha=0.0001, beta=0.75, k=1.0)`.
fn local_response_norm(a: &Args) -> Result<Tensor> {
    F::local_response_norm_with(
        a.t(0),
        int(a, 1, "size"),
        F::LocalResponseNormOpts {
            alpha: num(a, 2, "alpha").unwrap_or(1e-4),
            beta: num(a, 3, "beta").unwrap_or(0.75),
            k: num(a, 4, "k").unwrap_or(1.0),
        },
    )
}

/// `F.normalize(input, p=2.0, dim=1, eps=1e-12)`.
fn normalize(a: &Args) -> Result<Tensor> {
    F::normalize_with(
        a.t(0),
        tensile::NormalizeOpts {
            p: num(a, 1, "p").unwrap_or(2.0),
            dim: a.int_at(2, "dim").unwrap_or(1),
            eps: num(a, 3, "eps").unwrap_or(1e-12),
        },
    )
}

/// `F.embedding(input, weight, padding_idx=None, max_norm=None, …)`.
fn embedding(a: &Args) -> Result<Tensor> {
    F::embedding_with(
        a.t(0),
        a.t(1),
        F::EmbeddingOpts {
            padding_idx: a.int_at(2, "padding_idx"),
        },
    )
}

/// `F.embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
/// scale_grad_by_freq=False, mode='mean', sparse=False, per_sample_weights=None,
/// include_last_offset=False, padding_idx=None)`.
fn embedding_bag(a: &Args) -> Result<Tensor> {
    F::embedding_bag_with(
        a.t(0),
        a.t(1),
        F::EmbeddingBagOpts {
            offsets: opt_t(a, 2, "offsets"),
            mode: match a.arg(6, "mode") {
                Some(Arg::Str(m)) => m,
                _ => "mean",
            },
            per_sample_weights: opt_t(a, 8, "per_sample_weights"),
            include_last_offset: a.bool_at(9, "include_last_offset").unwrap_or(false),
            padding_idx: a.int_at(10, "padding_idx"),
        },
    )
}

type Dropout = fn(&Tensor, F::DropoutOpts) -> Result<Tensor>;

/// `F.dropout(input, p=0.5, training=True, inplace=False)` and its kin through `f`
/// (`training` defaults to `train`: False for the alpha dropouts, as in PyTorch). A sample's
/// `seed=` keyword (the gradient check's, no PyTorch keyword) reseeds the default generator
/// before the call, so that every finite-difference evaluation draws the same mask.
fn dropout(a: &Args, f: Dropout, train: bool) -> Result<Tensor> {
    if let Some(s) = a.kw_int("seed") {
        tensile::manual_seed(s as u64);
    }
    f(
        a.t(0),
        F::DropoutOpts {
            p: num(a, 1, "p").unwrap_or(0.5),
            training: a.bool_at(2, "training").unwrap_or(train),
            inplace: a.bool_at(3, "inplace").unwrap_or(false),
        },
    )
}

/// `F.cosine_similarity(x1, x2, dim=1, eps=1e-08)`.
fn cosine_similarity(a: &Args) -> Result<Tensor> {
    F::cosine_similarity_with(
        a.t(0),
        a.t(1),
        F::CosineSimilarityOpts {
            dim: a.int_at(2, "dim").unwrap_or(1),
            eps: num(a, 3, "eps").unwrap_or(1e-8),
        },
    )
}

/// `F.pairwise_distance(x1, x2, p=2.0, eps=1e-06, keepdim=False)`.
fn pairwise_distance(a: &Args) -> Result<Tensor> {
    F::pairwise_distance_with(
        a.t(0),
        a.t(1),
        F::PairwiseDistanceOpts {
            p: num(a, 2, "p").unwrap_or(2.0),
            eps: num(a, 3, "eps").unwrap_or(1e-6),
            keepdim: a.bool_at(4, "keepdim").unwrap_or(false),
        },
    )
}

/// `torch.cdist(x1, x2, p=2.0, compute_mode=None)`.
fn cdist(a: &Args) -> Result<Tensor> {
    tensile::cdist_with(
        a.t(0),
        a.t(1),
        tensile::CdistOpts {
            p: num(a, 2, "p").unwrap_or(2.0),
            compute_mode: match a.arg(3, "compute_mode") {
                Some(Arg::Str(m)) => Some(m),
                _ => None,
            },
        },
    )
}

const fn t(shape: &'static [usize]) -> P {
    P::T(Dom::Any, shape)
}

const fn other(name: &'static str, call: super::Call) -> OpInfo {
    OpInfo::new(name, Sig::Other, call)
}

const X: P = super::X;

/// A dropout's gradient-check sample: training with `p = 0.5` and the default generator
/// reseeded (`seed=7`) for every evaluation, so that the mask is a constant.
macro_rules! seeded {
    ($name:literal, $shape:expr) => {
        &[Sample::new(&[t(&$shape)])
            .kw(&[
                ("p", P::Num(0.5)),
                ("training", P::Bool(true)),
                ("seed", P::Int(7)),
            ])
            .named(concat!($name, " (p=0.5, seeded)"))]
    };
}

pub static OPS: &[OpInfo] = &[
    other("layer_norm", layer_norm)
        .grad(&[Sample::new(&[X, P::Ints(&[3]), t(&[3]), t(&[3])]).no_bcast()]),
    other("rms_norm", rms_norm)
        .grad(&[Sample::new(&[X, P::Ints(&[3]), t(&[3])]).no_bcast()])
        .bench("F.rms_norm"),
    other("group_norm", group_norm)
        .grad(&[Sample::new(&[t(&[2, 4, 2]), P::Int(2), t(&[4]), t(&[4])]).no_bcast()])
        .bench("F.group_norm"),
    other("instance_norm", instance_norm).grad(&[Sample::new(&[t(&[2, 2, 3])])]),
    other("batch_norm", batch_norm)
        .grad(&[
            Sample::new(&[t(&[3, 2, 2])])
                .kw(&[
                    ("weight", t(&[2])),
                    ("bias", t(&[2])),
                    ("training", P::Bool(true)),
                ])
                .named("batch_norm (training)"),
            Sample::new(&[
                t(&[3, 2, 2]),
                P::Vals(&[0.1, -0.2], &[2]),
                P::Vals(&[0.5, 2.0], &[2]),
            ])
            .kw(&[("weight", t(&[2]))])
            .named("batch_norm (eval)"),
        ])
        .bench("F.batch_norm"),
    other("local_response_norm", local_response_norm)
        .grad(&[Sample::new(&[t(&[1, 3, 4]), P::Int(2)])]),
    other("normalize", normalize)
        .grad(&[Sample::new(&[X])])
        .bench("F.normalize"),
    other("embedding", embedding)
        .grad(&[Sample::new(&[P::Idx(&[3, 0, 3], &[3]), t(&[4, 3])])])
        .bench("F.embedding"),
    other("embedding_bag", embedding_bag).grad(&[Sample::new(&[
        P::Idx(&[3, 0, 3, 1], &[2, 2]),
        t(&[4, 3]),
    ])
    .kw(&[("mode", P::Str("sum"))])]),
    other("dropout", |a| dropout(a, F::dropout_with, true))
        .grad(seeded!("dropout", [2, 3]))
        .bench("F.dropout"),
    other("dropout1d", |a| dropout(a, F::dropout1d_with, true))
        .grad(seeded!("dropout1d", [2, 2, 3])),
    other("dropout2d", |a| dropout(a, F::dropout2d_with, true))
        .grad(seeded!("dropout2d", [1, 2, 2, 3])),
    other("dropout3d", |a| dropout(a, F::dropout3d_with, true))
        .grad(seeded!("dropout3d", [1, 2, 1, 2, 3])),
    other("alpha_dropout", |a| {
        dropout(a, F::alpha_dropout_with, false)
    })
    .grad(seeded!("alpha_dropout", [2, 3])),
    other("feature_alpha_dropout", |a| {
        dropout(a, F::feature_alpha_dropout_with, false)
    })
    .grad(seeded!("feature_alpha_dropout", [2, 2, 3])),
    other("cosine_similarity", cosine_similarity)
        .grad(&[Sample::new(&[X, X]).bcast(&[&[2, 1, 3], &[3]])]),
    other("pairwise_distance", pairwise_distance).grad(&[Sample::new(&[X, X]).no_bcast()]),
    other("cdist", cdist).grad(&[
        Sample::new(&[t(&[3, 2]), t(&[4, 2])]).no_bcast(),
        // more than 25 rows: the matrix-product form (`EuclideanDistBackward0`)
        Sample::new(&[t(&[26, 2]), t(&[3, 2])]).no_bcast(),
    ]),
    other("pdist", |a| {
        F::pdist_with(a.t(0), num(a, 1, "p").unwrap_or(2.0))
    })
    .grad(&[Sample::new(&[t(&[4, 2])])]),
];
