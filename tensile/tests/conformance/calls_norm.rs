//! Ops of the `norm` family (normalizations, embeddings, dropouts, distances), for the
//! conformance runner.
use std::collections::HashMap;

use super::{Arg, Out, kw_bool, kw_f64, kw_int, kw_str};
use serde_json::Value;
use tensile::Tensor;
use tensile::nn::functional as F;

pub fn call(
    op: &str,
    args: &[Arg],
    kw: &Value,
    kwt: &HashMap<String, Tensor>,
) -> Option<tensile::Result<Out>> {
    let t = || args[0].tensor();
    let kt = |name: &str| kwt.get(name);
    let f = |name: &str, d: f64| kw_f64(kw, name).unwrap_or(d);
    let b = |name: &str, d: bool| kw_bool(kw, name).unwrap_or(d);
    let ints = |name: &str| -> Vec<i64> {
        kw[name]
            .as_array()
            .map(|a| a.iter().map(|v| v.as_i64().unwrap()).collect())
            .unwrap_or_default()
    };
    let one = |r: tensile::Result<Tensor>| Some(r.map(Out::Tensor));
    match op {
        "layer_norm" => one(F::layer_norm_with(
            t(),
            ints("normalized_shape"),
            tensile::LayerNormOpts {
                weight: kt("weight"),
                bias: kt("bias"),
                eps: f("eps", 1e-5),
            },
        )),
        "rms_norm" => one(F::rms_norm_with(
            t(),
            ints("normalized_shape"),
            F::RmsNormOpts {
                weight: kt("weight"),
                eps: kw_f64(kw, "eps"),
            },
        )),
        "group_norm" => one(F::group_norm_with(
            t(),
            kw_int(kw, "num_groups").unwrap(),
            F::GroupNormOpts {
                weight: kt("weight"),
                bias: kt("bias"),
                eps: f("eps", 1e-5),
            },
        )),
        "instance_norm" => one(F::instance_norm_with(
            t(),
            F::InstanceNormOpts {
                running_mean: kt("running_mean"),
                running_var: kt("running_var"),
                weight: kt("weight"),
                bias: kt("bias"),
                use_input_stats: b("use_input_stats", true),
                momentum: f("momentum", 0.1),
                eps: f("eps", 1e-5),
            },
        )),
        "batch_norm" => {
            let (rm, rv) = if args.len() >= 3 {
                (Some(args[1].tensor()), Some(args[2].tensor()))
            } else {
                (None, None)
            };
            one(F::batch_norm_with(
                t(),
                rm,
                rv,
                F::BatchNormOpts {
                    weight: kt("weight"),
                    bias: kt("bias"),
                    training: b("training", false),
                    momentum: f("momentum", 0.1),
                    eps: f("eps", 1e-5),
                },
            ))
        }
        "local_response_norm" => one(F::local_response_norm_with(
            t(),
            kw_int(kw, "size").unwrap(),
            F::LocalResponseNormOpts {
                alpha: f("alpha", 1e-4),
                beta: f("beta", 0.75),
                k: f("k", 1.0),
            },
        )),
        "normalize" => one(F::normalize_with(
            t(),
            tensile::NormalizeOpts {
                p: f("p", 2.0),
                dim: kw_int(kw, "dim").unwrap_or(1),
                eps: f("eps", 1e-12),
            },
        )),
        "embedding" => one(F::embedding_with(
            t(),
            args[1].tensor(),
            F::EmbeddingOpts {
                padding_idx: kw_int(kw, "padding_idx"),
            },
        )),
        "embedding_bag" => one(F::embedding_bag_with(
            t(),
            args[1].tensor(),
            F::EmbeddingBagOpts {
                offsets: kt("offsets"),
                mode: kw_str(kw, "mode").unwrap_or("mean"),
                per_sample_weights: kt("per_sample_weights"),
                include_last_offset: b("include_last_offset", false),
                padding_idx: kw_int(kw, "padding_idx"),
            },
        )),
        "dropout"
        | "dropout1d"
        | "dropout2d"
        | "dropout3d"
        | "alpha_dropout"
        | "feature_alpha_dropout" => {
            let o = F::DropoutOpts {
                p: f("p", 0.5),
                training: b("training", true),
                ..Default::default()
            };
            one(match op {
                "dropout" => F::dropout_with(t(), o),
                "dropout1d" => F::dropout1d_with(t(), o),
                "dropout2d" => F::dropout2d_with(t(), o),
                "dropout3d" => F::dropout3d_with(t(), o),
                "alpha_dropout" => F::alpha_dropout_with(t(), o),
                _ => F::feature_alpha_dropout_with(t(), o),
            })
        }
        "cosine_similarity" => one(F::cosine_similarity_with(
            t(),
            args[1].tensor(),
            F::CosineSimilarityOpts {
                dim: kw_int(kw, "dim").unwrap_or(1),
                eps: f("eps", 1e-8),
            },
        )),
        "pairwise_distance" => one(F::pairwise_distance_with(
            t(),
            args[1].tensor(),
            F::PairwiseDistanceOpts {
                p: f("p", 2.0),
                eps: f("eps", 1e-6),
                keepdim: b("keepdim", false),
            },
        )),
        "cdist" => one(tensile::cdist_with(
            t(),
            args[1].tensor(),
            tensile::CdistOpts {
                p: f("p", 2.0),
                ..Default::default()
            },
        )),
        "pdist" => one(F::pdist_with(t(), f("p", 2.0))),
        _ => None,
    }
}
