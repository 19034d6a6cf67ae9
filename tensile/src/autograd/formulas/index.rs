//! Ops that move elements without arithmetic (spec §9.5): `index_select`, `gather`,
//! `take_along_dim`, `masked_select`, advanced indexing, `flip`, `roll`, `repeat`/`tile`,
//! `embedding`, `sort`/`topk`/`max(dim)` values, `cat`/`stack`. Their backward is one
//! formula, [`Gathered`]: output element `k` came from input element `map[k]`, so the input
//! gradient is `g` scattered back (duplicates accumulate). The map is found when recording,
//! by running the op on a tensor holding each element's own index.

use super::super::node::Formula;
use super::super::record::{Built, node, record, record_multi};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// `[0, 1, …, n-1]` shaped like `x`, int64.
pub(crate) fn ids_like(x: &Tensor, start: i64) -> Result<Tensor> {
    let n = x.numel() as i64;
    Tensor::from_vec((start..start + n).collect::<Vec<i64>>(), x.size())
}

/// The backward of the element-moving ops: input `i` (of `sizes[i]`) receives `g[k]` at
/// `map[k] = (i, flat index)`.
pub(crate) struct Gathered {
    pub name: &'static str,
    pub sizes: Vec<Vec<usize>>,
    /// `Err`: the map could not be computed (reported at backward).
    pub map: std::result::Result<Vec<(usize, usize)>, String>,
}

impl Formula for Gathered {
    fn name(&self) -> &str {
        self.name
    }
    fn apply(&self, grads: &[Option<Tensor>], _: &[Tensor]) -> Result<Vec<Option<Tensor>>> {
        let map = self.map.as_ref().map_err(|e| Error::runtime(e.clone()))?;
        let g = super::g0(grads);
        let vals = g.try_to_vec::<f64>()?;
        let mut bufs: Vec<Vec<f64>> = self
            .sizes
            .iter()
            .map(|s| vec![0.0; s.iter().product()])
            .collect();
        for (k, &(i, j)) in map.iter().enumerate() {
            bufs[i][j] += vals[k];
        }
        bufs.into_iter()
            .zip(&self.sizes)
            .map(|(b, s)| Ok(Some(Tensor::from_vec(b, &s[..])?.to(g.dtype())?)))
            .collect()
    }
}

pub(crate) fn build(
    name: &'static str,
    xs: &[&Tensor],
    replay: impl FnOnce(&[Tensor]) -> Result<Tensor>,
) -> Built {
    let sizes: Vec<Vec<usize>> = xs.iter().map(|x| x.size().to_vec()).collect();
    let starts: Vec<i64> = xs
        .iter()
        .scan(0i64, |acc, x| {
            let s = *acc;
            *acc += x.numel() as i64;
            Some(s)
        })
        .collect();
    let map = (|| -> Result<Vec<(usize, usize)>> {
        let ids = xs
            .iter()
            .zip(&starts)
            .map(|(x, &s)| ids_like(x, s))
            .collect::<Result<Vec<_>>>()?;
        let out = replay(&ids)?;
        Ok(out
            .try_to_vec::<i64>()?
            .into_iter()
            .map(|v| {
                let i = starts.iter().rposition(|&s| s <= v).unwrap_or(0);
                (i, (v - starts[i]) as usize)
            })
            .collect())
    })()
    .map_err(|e| e.message().to_string());
    node(Gathered { name, sizes, map })
}

/// Records a one-input element-moving op; `replay` is the op itself (run on the ids).
pub(crate) fn gathered(
    name: &'static str,
    out: Tensor,
    x: &Tensor,
    replay: impl FnOnce(&Tensor) -> Result<Tensor>,
) -> Result<Tensor> {
    record(out, &[x], || build(name, &[x], |ids| replay(&ids[0])))
}

/// As [`gathered`] for ops of several tensor inputs (`cat`, `stack`).
pub(crate) fn gathered_n(
    name: &'static str,
    out: Tensor,
    xs: &[&Tensor],
    replay: impl FnOnce(&[Tensor]) -> Result<Tensor>,
) -> Result<Tensor> {
    record(out, xs, || build(name, xs, replay))
}

/// `(values, indices)` ops (`sort`, `topk`, `max(dim)`, `min(dim)`): the values came from
/// `x` at `indices` along `dim` (`keepdim == false`: `dim` was removed).
pub(crate) fn by_indices(
    name: &'static str,
    (values, indices): (Tensor, Tensor),
    x: &Tensor,
    dim: i64,
    keepdim: bool,
) -> Result<(Tensor, Tensor)> {
    let idx = indices.alias();
    let mut v = record_multi(vec![values, indices], &[x], || {
        build(name, &[x], |ids| {
            if x.dim() == 0 {
                return Ok(ids[0].alias());
            }
            let i = if keepdim {
                idx.alias()
            } else {
                idx.unsqueeze(dim)?
            };
            ids[0].gather(dim, &i)
        })
    })?;
    let i = v.pop().expect("two outputs");
    let val = v.pop().expect("two outputs");
    Ok((val, i))
}

/// `scatter_add(x, dim, index, src)` (`ScatterAddBackward0`): `g`; `g.gather(dim, index)`.
pub(crate) fn scatter_add(
    out: Tensor,
    x: &Tensor,
    dim: i64,
    index: &Tensor,
    src: &Tensor,
) -> Result<Tensor> {
    let idx = index.alias();
    record(out, &[x, src], || {
        node(super::pointwise::lam("ScatterAddBackward0", move |g, _| {
            Ok(vec![Some(g.alias()), Some(g.gather(dim, &idx)?)])
        }))
    })
}

/// `index_add(x, dim, index, source, alpha)` (`IndexAddBackward0`): `g`;
/// `alpha·g.index_select(dim, index)`.
pub(crate) fn index_add(
    out: Tensor,
    x: &Tensor,
    dim: i64,
    index: &Tensor,
    src: &Tensor,
    alpha: f64,
) -> Result<Tensor> {
    let idx = index.alias();
    let zero_d = src.dim() == 0;
    record(out, &[x, src], || {
        node(super::pointwise::lam("IndexAddBackward0", move |g, _| {
            let s = if g.dim() == 0 {
                g.alias()
            } else {
                g.index_select(dim, &idx)?
            };
            let s = if zero_d {
                s.reshape(Vec::<i64>::new())?
            } else {
                s
            };
            Ok(vec![
                Some(g.alias()),
                Some(if alpha == 1.0 { s } else { s.mul(alpha)? }),
            ])
        }))
    })
}
