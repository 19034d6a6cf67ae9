//! THE TABLE: one row per differentiable public op (PyTorch's name), its inputs (shapes,
//! value domains, which are differentiated), the call, and for operands that broadcast, the
//! shapes of the broadcast variant. Every row is also checked with non-contiguous inputs.
//! Index, mask and target tensors that are not differentiated are made inside the closure.
//!
//! The pointwise ops' rows come from the OpInfo table (`tests/opinfo/`, each entry's
//! `grad` samples); the rows written here are the other families' and the forms no single
//! entry stands for (in-place ops through non-leaves, `where_self`, masks).

use super::check::{In, Row, nd, pos, prob, row, x};
use crate::opinfo;
use tensile::nn::functional as F;
use tensile::{DType, Result, Tensor, TensorIndex};

fn it(v: &[i64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(v.to_vec(), shape).unwrap()
}
fn bt(v: &[bool], shape: &[usize]) -> Tensor {
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
                f: Box::new(move |a| match info.run(&s.args_with(a)?)? {
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
    // ---------------------------------------------------------------- pointwise (the rest)
    t.push(
        row("where_self", &[x(&[2, 3]), x(&[2, 3])], |a| {
            a[0].where_self(&bt(&[true, false, true], &[3]), &a[1])
        })
        .bcast(&[&[2, 1], &[3]]),
    );
    // ---------------------------------------------------------------- softmax family
    t.push(row("softmax", &[x(&[2, 3])], |a| a[0].softmax(1)));
    t.push(row("log_softmax", &[x(&[2, 3])], |a| a[0].log_softmax(0)));
    // ---------------------------------------------------------------- copies and shape ops
    t.push(row("try_contiguous", &[x(&[2, 3])], |a| {
        a[0].t()?.try_contiguous()
    }));
    t.push(row("try_clone", &[x(&[2, 3])], |a| a[0].try_clone()));
    t.push(row("contiguous_channels_last", &[x(&[1, 2, 2, 2])], |a| {
        a[0].contiguous_channels_last()
    }));
    t.push(row("to", &[x(&[2, 3])], |a| {
        a[0].to(DType::Float32)?
            .to(DType::Float64)?
            .mul(0.0)?
            .add(&a[0].to(DType::Float64)?)
    }));

    // ---------------------------------------------------------------- linalg (the matrix
    // products are the OpInfo table's, `tests/opinfo/matmul.rs`)
    // cholesky of the positive-definite a·aᵀ + I; solve_triangular with the diagonal kept
    // away from zero (the upper triangle of A is not read: its gradient is zero both ways)
    t.push(row("cholesky", &[x(&[3, 3])], |a| {
        let m = a[0].matmul(&a[0].mT()?)?.add(&Tensor::eye(3)?)?;
        tensile::linalg::cholesky(&m)
    }));
    t.push(row("cholesky_ex", &[x(&[2, 3, 3])], |a| {
        let m = a[0].matmul(&a[0].mT()?)?.add(&Tensor::eye(3)?)?;
        Ok(tensile::linalg::cholesky_ex_with(&m, true, false)?.0)
    }));
    t.push(
        row("solve_triangular", &[x(&[3, 3]), x(&[3, 2])], |a| {
            let l = a[0].add(&Tensor::eye(3)?.mul(3)?)?;
            tensile::linalg::solve_triangular(&l, &a[1], false)
        })
        .bcast(&[&[2, 3, 3], &[3, 2]]),
    );
    t.push(row(
        "solve_triangular_with",
        &[x(&[3, 3]), x(&[2, 3])],
        |a| {
            let u = a[0].add(&Tensor::eye(3)?.mul(3)?)?;
            tensile::linalg::solve_triangular_with(&u, &a[1], true, false, false)
        },
    ));
    t.push(row("linear", &[x(&[2, 3]), x(&[4, 3]), x(&[4])], |a| {
        a[0].linear_with(&a[1], &a[2])
    }));
    // ---------------------------------------------------------------- in-place forms (through a non-leaf)
    t.push(row("exp_", &[x(&[2, 3])], |a| a[0].mul(1.0)?.exp_()));
    t.push(row("mul_", &[x(&[2, 3]), x(&[3])], |a| {
        a[0].mul(1.0)?.mul_(&a[1])
    }));
    t.push(row("copy_", &[x(&[2, 3]), x(&[3])], |a| {
        a[0].mul(1.0)?.copy_(&a[1])
    }));
    t.push(row("fill_", &[x(&[2, 3])], |a| {
        let y = a[0].mul(1.0)?;
        y.select(0, 1)?.fill_(0.5)?;
        Ok(y)
    }));
    t.push(row("zero_", &[x(&[2, 3])], |a| {
        let y = a[0].mul(2.0)?;
        y.narrow(1, 1, 1)?.zero_()?;
        Ok(y)
    }));
    t.push(row("index_put_", &[x(&[3, 4]), x(&[2, 4])], |a| {
        a[0].mul(1.0)?.index_put_([&it(&[2, 0], &[2])], &a[1])
    }));
    t.push(row("index_set_", &[x(&[3, 4]), x(&[3, 2])], |a| {
        a[0].mul(1.0)?.index_set_(
            &[
                TensorIndex::Slice(None, None, None),
                TensorIndex::Tensor(it(&[2, 0], &[2])),
            ],
            &a[1],
        )
    }));
    t.push(row("tril_", &[x(&[3, 3])], |a| {
        a[0].mul(1.0)?.tril_with_(-1)
    }));
    t.push(row("triu_ (through a view)", &[x(&[3, 4])], |a| {
        let y = a[0].mul(1.0)?;
        y.narrow(0, 1, 2)?.triu_()?;
        Ok(y)
    }));
    t.push(row("masked_fill_ (through a view)", &[x(&[2, 3])], |a| {
        let y = a[0].mul(1.0)?;
        y.t()?.masked_fill_(&bt(&[true, false], &[2]), 0.25)?;
        Ok(y)
    }));
    nn_rows(&mut t);
    t
}

fn nn_rows(t: &mut Vec<Row>) {
    // ---------------------------------------------------------------- losses
    macro_rules! loss2 {
        ($($name:ident: $d0:ident, $d1:ident),* $(,)?) => {
            $( t.push(row(stringify!($name), &[$d0(&[2, 3]), $d1(&[2, 3])], |a| F::$name(&a[0], &a[1]))); )*
        };
    }
    loss2!(mse_loss: x, x, l1_loss: x, x, smooth_l1_loss: x, x, huber_loss: x, x,
        poisson_nll_loss: x, pos, kl_div: x, prob, binary_cross_entropy: prob, prob,
        binary_cross_entropy_with_logits: x, prob, multilabel_soft_margin_loss: x, prob);
    t.push(row("soft_margin_loss", &[x(&[2, 3])], |a| {
        F::soft_margin_loss(
            &a[0],
            &Tensor::from_vec(vec![1.0, -1.0, 1.0, 1.0, -1.0, -1.0], [2, 3])?,
        )
    }));
    t.push(row("hinge_embedding_loss", &[x(&[2, 3])], |a| {
        F::hinge_embedding_loss(
            &a[0],
            &Tensor::from_vec(vec![1.0, -1.0, 1.0, 1.0, -1.0, -1.0], [2, 3])?,
        )
    }));
    t.push(row(
        "gaussian_nll_loss",
        &[x(&[2, 3]), x(&[2, 3]), pos(&[2, 3])],
        |a| F::gaussian_nll_loss(&a[0], &a[1], &a[2]),
    ));
    t.push(row("margin_ranking_loss", &[x(&[3]), x(&[3])], |a| {
        F::margin_ranking_loss(&a[0], &a[1], &Tensor::from_vec(vec![1.0, -1.0, 1.0], [3])?)
    }));
    t.push(row(
        "cosine_embedding_loss",
        &[x(&[2, 3]), x(&[2, 3])],
        |a| F::cosine_embedding_loss(&a[0], &a[1], &Tensor::from_vec(vec![1.0, -1.0], [2])?),
    ));
    t.push(row(
        "triplet_margin_loss",
        &[x(&[2, 3]), x(&[2, 3]), x(&[2, 3])],
        |a| F::triplet_margin_loss(&a[0], &a[1], &a[2]),
    ));
    t.push(row("nll_loss", &[x(&[3, 4])], |a| {
        F::nll_loss(&a[0], &it(&[1, 3, 0], &[3]))
    }));
    t.push(row("cross_entropy", &[x(&[3, 4])], |a| {
        F::cross_entropy(&a[0], &it(&[1, 3, 0], &[3]))
    }));
    t.push(row(
        "cross_entropy (probabilities)",
        &[x(&[3, 4]), nd(prob(&[3, 4]))],
        |a| F::cross_entropy(&a[0], &a[1]),
    ));
    t.push(row("multi_margin_loss", &[x(&[3, 4])], |a| {
        F::multi_margin_loss(&a[0], &it(&[1, 3, 0], &[3]))
    }));
    t.push(row("multilabel_margin_loss", &[x(&[2, 4])], |a| {
        F::multilabel_margin_loss(&a[0], &it(&[3, 0, -1, 1, 1, -1, 0, 0], &[2, 4]))
    }));
    t.push(row("ctc_loss", &[x(&[5, 1, 3])], |a| {
        F::ctc_loss(
            &a[0].log_softmax(2)?,
            &it(&[1, 2], &[1, 2]),
            &it(&[5], &[1]),
            &it(&[2], &[1]),
        )
    }));
}

/// Unused import guard for the domain helpers every table edit may need.
#[allow(dead_code)]
fn _domains() -> [In; 1] {
    [nd(x(&[1]))]
}
