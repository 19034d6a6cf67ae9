//! The gradient-check rows: one per [`opinfo::Sample`] of every OpInfo entry
//! (`tests/opinfo/`), the op's inputs (shapes, value domains), its call through the entry's
//! adapter, and for operands that broadcast, the shapes of the broadcast variant. Every row is
//! also checked with non-contiguous inputs. A sample's in-place form writes a non-leaf copy of
//! input 0 or a view of it ([`opinfo::Through`]).

use super::check::{In, Row};
use crate::opinfo;
use tensile::{Result, Tensor};

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
pub fn rows() -> Vec<Row> {
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
