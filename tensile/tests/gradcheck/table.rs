//! THE TABLE: one row per differentiable public op (PyTorch's name), its inputs (shapes,
//! value domains, which are differentiated), the call, and for operands that broadcast, the
//! shapes of the broadcast variant. Every row is also checked with non-contiguous inputs.
//! Index, mask and target tensors that are not differentiated are made inside the closure.
//!
//! The rows come from the OpInfo table (`tests/opinfo/`, each entry's `grad` samples, the
//! in-place ones through a non-leaf or a view of it); the rows written here are the nn
//! families' not yet in it.

use super::check::{In, Row, nd, pos, prob, row, x};
use crate::opinfo;
use tensile::nn::functional as F;
use tensile::{Result, Tensor};

fn it(v: &[i64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(v.to_vec(), shape).unwrap()
}
/// Multi-output ops: a weighted sum of the float outputs, so every output's gradient counts.
fn combine(ts: &[Tensor]) -> Result<Tensor> {
    let mut acc = ts[0].sum()?;
    for (k, t) in ts.iter().enumerate().skip(1) {
        acc = acc.add(&t.sum()?.mul((k + 1) as f64)?)?;
    }
    Ok(acc)
}
/// One row per [`opinfo::Sample`] of every OpInfo entry, calling the entry's adapter with the
/// row's inputs in the sample's tensor places (of several outputs, the float ones: the one,
/// or their weighted sum as [`combine`] makes it).
pub fn opinfo_rows() -> Vec<Row> {
    let mut t = Vec::new();
    for info in opinfo::all() {
        for s in info.grad {
            let inputs: Vec<In> = s
                .inputs()
                .map(|(dom, shape)| In {
                    shape: shape.to_vec(),
                    dom,
                    diff: true,
                })
                .collect();
            let name = s.name.unwrap_or(info.name);
            if let Some(b) = s.bcast {
                assert_eq!(b.len(), inputs.len(), "{name}: one shape per input");
            }
            t.push(Row {
                name,
                inputs,
                bcast: s.bcast.map(|b| b.iter().map(|x| x.to_vec()).collect()),
                f: Box::new(move |a| {
                    let mut args = s.args_with(a)?;
                    // the in-place form writes a non-leaf copy of input 0 (or a view of it),
                    // whose value is the row's output
                    let base = match s.through {
                        Some(th) => {
                            let y = a[0].mul(1.0)?;
                            let target = match th {
                                opinfo::Through::Base => y.alias(),
                                opinfo::Through::View(f) => f(&y)?,
                            };
                            args.pos[0] = opinfo::Arg::Tensor(target);
                            args.inplace = true;
                            Some(y)
                        }
                        None => None,
                    };
                    let out = info.run(&args)?;
                    if let Some(y) = base {
                        return Ok(y);
                    }
                    match out {
                        opinfo::Ret::One(t) => Ok(t),
                        opinfo::Ret::Many(ts) => {
                            // the float outputs: the one, or their weighted sum (`combine`)
                            let fl: Vec<Tensor> = ts
                                .into_iter()
                                .filter(|t| t.dtype().is_floating_point())
                                .collect();
                            if fl.len() == 1 {
                                Ok(fl.into_iter().next().unwrap())
                            } else {
                                combine(&fl)
                            }
                        }
                        _ => Err(tensile::Error::runtime(format!(
                            "{name}: a result that is no tensor"
                        ))),
                    }
                }),
            });
        }
    }
    t
}

/// The OpInfo table's rows (`tests/opinfo/`: one per sample of every entry), then the rows
/// written here.
pub fn table() -> Vec<Row> {
    let mut t: Vec<Row> = opinfo_rows();
    nn_rows(&mut t);
    t
}

fn nn_rows(t: &mut Vec<Row>) {
    t.push(row("normalize", &[x(&[2, 3])], |a| a[0].normalize()));
    t.push(row("layer_norm", &[x(&[2, 3]), x(&[3]), x(&[3])], |a| {
        a[0].layer_norm_with(
            [3],
            tensile::LayerNormOpts {
                weight: Some(&a[1]),
                bias: Some(&a[2]),
                ..Default::default()
            },
        )
    }));
    t.push(row("embedding", &[x(&[4, 3])], |a| {
        F::embedding(&it(&[3, 0, 3], &[3]), &a[0])
    }));
    t.push(row("embedding_bag", &[x(&[4, 3])], |a| {
        F::embedding_bag_with(
            &it(&[3, 0, 3, 1], &[2, 2]),
            &a[0],
            F::EmbeddingBagOpts {
                mode: "sum",
                ..Default::default()
            },
        )
    }));
    // ---------------------------------------------------------------- conv, pooling, resampling

    // ---------------------------------------------------------------- norms
    t.push(row(
        "batch_norm (training)",
        &[x(&[3, 2, 2]), x(&[2]), x(&[2])],
        |a| {
            F::batch_norm_with(
                &a[0],
                None::<&Tensor>,
                None::<&Tensor>,
                F::BatchNormOpts {
                    weight: Some(&a[1]),
                    bias: Some(&a[2]),
                    training: true,
                    ..Default::default()
                },
            )
        },
    ));
    t.push(row("batch_norm (eval)", &[x(&[3, 2, 2]), x(&[2])], |a| {
        let (m, v) = (
            Tensor::from_vec(vec![0.1, -0.2], [2])?,
            Tensor::from_vec(vec![0.5, 2.0], [2])?,
        );
        F::batch_norm_with(
            &a[0],
            &m,
            &v,
            F::BatchNormOpts {
                weight: Some(&a[1]),
                ..Default::default()
            },
        )
    }));
    t.push(row("group_norm", &[x(&[2, 4, 2]), x(&[4]), x(&[4])], |a| {
        F::group_norm_with(
            &a[0],
            2,
            F::GroupNormOpts {
                weight: Some(&a[1]),
                bias: Some(&a[2]),
                ..Default::default()
            },
        )
    }));
    t.push(row("instance_norm", &[x(&[2, 2, 3])], |a| {
        F::instance_norm(&a[0])
    }));
    t.push(row("rms_norm", &[x(&[2, 3]), x(&[3])], |a| {
        F::rms_norm_with(&a[0], [3], &a[1])
    }));
    t.push(row("local_response_norm", &[x(&[1, 3, 4])], |a| {
        F::local_response_norm(&a[0], 2)
    }));
    // ---------------------------------------------------------------- distance, attention, dropout
    t.push(row("cdist", &[x(&[3, 2]), x(&[4, 2])], |a| {
        F::cdist(&a[0], &a[1])
    }));
    t.push(row("pdist", &[x(&[4, 2])], |a| F::pdist(&a[0])));
    t.push(
        row("cosine_similarity", &[x(&[2, 3]), x(&[2, 3])], |a| {
            F::cosine_similarity(&a[0], &a[1])
        })
        .bcast(&[&[2, 1, 3], &[3]]),
    );
    t.push(row("pairwise_distance", &[x(&[2, 3]), x(&[2, 3])], |a| {
        F::pairwise_distance(&a[0], &a[1])
    }));
    // dropout: training with p = 0.5 and a fixed seed, so that the mask is a constant
    macro_rules! drop {
        ($($name:ident, $with:ident: $shape:expr),* $(,)?) => {
            $( t.push(row(concat!(stringify!($name), " (p=0.5, seeded)"), &[x(&$shape)], |a| {
                // the mask comes from the default generator: reseeded for every evaluation
                tensile::manual_seed(7);
                F::$with(&a[0], F::DropoutOpts { p: 0.5, training: true, inplace: false })
            })); )*
        };
    }
    drop!(dropout, dropout_with: [2, 3], alpha_dropout, alpha_dropout_with: [2, 3],
        feature_alpha_dropout, feature_alpha_dropout_with: [2, 2, 3],
        dropout1d, dropout1d_with: [2, 2, 3], dropout2d, dropout2d_with: [1, 2, 2, 3],
        dropout3d, dropout3d_with: [1, 2, 1, 2, 3]);
}

/// Unused import guard for the domain helpers every table edit may need.
#[allow(dead_code)]
fn _domains() -> [In; 3] {
    [nd(x(&[1])), pos(&[1]), prob(&[1])]
}
