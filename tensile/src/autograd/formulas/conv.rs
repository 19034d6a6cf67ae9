//! Convolutions and im2col (derivatives.yaml: `convolution`, `im2col`, `col2im`):
//! `ConvolutionBackward0` for every `F.conv*d` / `F.conv_transpose*d` (recorded on the
//! batched `at::convolution` call, so an unbatched input gets `SqueezeBackward1` on top and
//! `padding="same"` with an odd total a `ConstantPadNdBackward0` below, as in PyTorch),
//! `Im2ColBackward0` (`F.unfold`) and `Col2ImBackward0` (`F.fold`).
//!
//! Every gradient is a convolution of tensile's own:
//! * input of a convolution: the transposed convolution of `g` with the weight (with the
//!   output padding that gives back the input's size); of a transposed one: the convolution;
//! * weight: the correlation of the input with `g`, itself one grouped convolution (see
//!   [`weight_grad`]);
//! * bias: `g` summed over the batch and spatial dims.

use super::super::node::Save;
use super::super::record::{node, node_saving, record};
use super::pointwise::lam;
use crate::args::IntList;
use crate::error::Result;
use crate::ops::conv::conv_weight_grad;
use crate::optable::conv::{self as c, ConvOpts, ConvPadding, ConvTransposeOpts, UnfoldOpts};
use crate::tensor::Tensor;

/// The geometry of one convolution, one entry per spatial dim.
#[derive(Clone, Debug)]
pub(crate) struct ConvArgs {
    pub stride: Vec<i64>,
    pub padding: Vec<i64>,
    pub dilation: Vec<i64>,
    pub groups: i64,
    pub transposed: bool,
}

fn il(v: &[i64]) -> IntList {
    v.iter().copied().collect()
}

/// `F.conv{1,2,3}d(x, w)` (no bias) for a batched `x` of `nsp + 2` dims.
fn conv_nd(
    x: &Tensor,
    w: &Tensor,
    stride: &[i64],
    pad: &[i64],
    dil: &[i64],
    groups: i64,
) -> Result<Tensor> {
    let o = ConvOpts {
        bias: None,
        stride: il(stride),
        padding: ConvPadding::Ints(il(pad)),
        dilation: il(dil),
        groups,
    };
    match x.dim() {
        3 => c::conv1d_with(x, w, o),
        4 => c::conv2d_with(x, w, o),
        _ => c::conv3d_with(x, w, o),
    }
}

/// `F.conv_transpose{1,2,3}d(x, w)` (no bias) for a batched `x`.
fn conv_transpose_nd(
    x: &Tensor,
    w: &Tensor,
    a: &ConvArgs,
    output_padding: &[i64],
) -> Result<Tensor> {
    let o = ConvTransposeOpts {
        bias: None,
        stride: il(&a.stride),
        padding: il(&a.padding),
        output_padding: il(output_padding),
        groups: a.groups,
        dilation: il(&a.dilation),
    };
    match x.dim() {
        3 => c::conv_transpose1d_with(x, w, o),
        4 => c::conv_transpose2d_with(x, w, o),
        _ => c::conv_transpose3d_with(x, w, o),
    }
}

/// `t` cut to `sizes` along its spatial dims (2..), which are at least as large.
fn narrow_spatial(t: Tensor, sizes: &[usize]) -> Result<Tensor> {
    let mut t = t;
    for (d, &n) in sizes.iter().enumerate().skip(2) {
        if t.size()[d] != n {
            t = t.narrow(d as i64, 0, n as i64)?;
        }
    }
    Ok(t)
}

/// The gradient of the weight `(O, C/G, k…)` of a convolution `y = conv(x, w)` (`x` of `C`
/// channels, `y` = `g` of `O`): `gw[o, c, κ] = Σ_{n, i} g[n, o, i] · x_pad[n, G(o)·C/G + c,
/// i·stride + κ·dilation − padding]`. That is a convolution whose batch is `c`, whose
/// channels are `(group, n)` and whose kernel is `g`, with stride and dilation swapped:
/// `x (N, G, C/G, …) → (C/G, G·N, …)`, `g (N, G, O/G, …) → (G·O/G, N, …)`, `groups = G`,
/// giving `(C/G, O, k'…)` with `k' ≥ k` (cut to `k`), then permuted to `(O, C/G, k…)`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn weight_grad(
    x: &Tensor,
    g: &Tensor,
    w_sizes: &[usize],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    groups: i64,
) -> Result<Tensor> {
    let gr = groups as usize;
    let (n, cx, co) = (x.size()[0], x.size()[1], g.size()[1]);
    let nsp = x.dim() - 2;
    let (cg, og) = (cx / gr, co / gr);
    let sp = |t: &Tensor| {
        t.size()[2..]
            .iter()
            .map(|&v| v as i64)
            .collect::<Vec<i64>>()
    };
    let mut xs = vec![n as i64, groups, cg as i64];
    xs.extend(sp(x));
    let mut gs = vec![n as i64, groups, og as i64];
    gs.extend(sp(g));
    let tail: Vec<i64> = (3..3 + nsp as i64).collect();
    let mut px = vec![2i64, 1, 0];
    px.extend(&tail);
    let mut pg = vec![1i64, 2, 0];
    pg.extend(&tail);
    let mut xr = vec![cg as i64, (gr * n) as i64];
    xr.extend(sp(x));
    let mut grs = vec![co as i64, n as i64];
    grs.extend(sp(g));
    let xin = x.reshape(xs)?.permute(px)?.reshape(xr)?;
    let gk = g.reshape(gs)?.permute(pg)?.reshape(grs)?;
    let r = conv_nd(&xin, &gk, dilation, padding, stride, groups)?;
    let mut want = vec![cg, co];
    want.extend_from_slice(&w_sizes[2..]);
    let r = narrow_spatial(r, &want)?;
    let mut perm = vec![1i64, 0];
    perm.extend((2..2 + nsp).map(|d| d as i64));
    r.permute(perm)
}

/// `at::convolution(x, w, b, …)` (`ConvolutionBackward0`): `x` batched `(N, C, …)`; saves
/// `x` and `w` (in that order).
pub(crate) fn convolution(
    out: Tensor,
    x: &Tensor,
    w: &Tensor,
    b: Option<&Tensor>,
    a: impl FnOnce() -> ConvArgs,
) -> Result<Tensor> {
    let mut inputs = vec![x, w];
    inputs.extend(b);
    let (rx, rw, rb) = (
        x.requires_grad(),
        w.requires_grad(),
        b.is_some_and(|b| b.requires_grad()),
    );
    let has_b = b.is_some();
    record(out, &inputs, || {
        let a = a();
        node_saving(
            lam("ConvolutionBackward0", move |g, s| {
                let (x, w) = (&s[0], &s[1]);
                let empty = x.numel() == 0 || g.numel() == 0;
                let gx = if !rx {
                    None
                } else if empty {
                    Some(Tensor::zeros_like(x)?)
                } else if a.transposed {
                    let r = conv_nd(g, w, &a.stride, &a.padding, &a.dilation, a.groups)?;
                    Some(narrow_spatial(r, x.size())?)
                } else {
                    // the output padding that gives back x's size
                    let op = crate::geometry::conv::input_grad_output_padding(
                        &x.size()[2..],
                        &w.size()[2..],
                        &g.size()[2..],
                        &a.stride,
                        &a.padding,
                        &a.dilation,
                    );
                    Some(conv_transpose_nd(g, w, &a, &op)?)
                };
                let gw = if !rw {
                    None
                } else if empty {
                    Some(Tensor::zeros_like(w)?)
                } else if a.transposed {
                    // y = conv_transpose(x, w) ⇔ x is the correlation of y with w: swap roles
                    Some(weight_grad(
                        g,
                        x,
                        w.size(),
                        &a.stride,
                        &a.padding,
                        &a.dilation,
                        a.groups,
                    )?)
                } else {
                    let (st, pa, di) = (&a.stride, &a.padding, &a.dilation);
                    match conv_weight_grad(x, g, w.size(), st, pa, di, a.groups)? {
                        Some(gw) => Some(gw),
                        None => Some(weight_grad(x, g, w.size(), st, pa, di, a.groups)?),
                    }
                };
                let mut r = vec![gx, gw];
                if has_b {
                    r.push(if rb {
                        let dims: Vec<i64> = (0..g.dim() as i64).filter(|&d| d != 1).collect();
                        Some(g.sum_dim(dims, false)?)
                    } else {
                        None
                    });
                }
                Ok(r)
            }),
            vec![Save::Input(x.alias()), Save::Input(w.alias())],
        )
    })
}

/// `F.unfold` (`Im2ColBackward0`): `fold(g)` back to the input's spatial size.
pub(crate) fn im2col(out: Tensor, x: &Tensor, k: [i64; 2], o: &UnfoldOpts) -> Result<Tensor> {
    let sp: Vec<i64> = x.size()[x.dim() - 2..].iter().map(|&v| v as i64).collect();
    let o = o.clone();
    record(out, &[x], || {
        node(lam("Im2ColBackward0", move |g, _| {
            Ok(vec![Some(c::fold_with(g, &sp[..], &k[..], o.clone())?)])
        }))
    })
}

/// `F.fold` (`Col2ImBackward0`): `unfold(g)` with the same window.
pub(crate) fn col2im(out: Tensor, x: &Tensor, k: [i64; 2], o: &UnfoldOpts) -> Result<Tensor> {
    let o = o.clone();
    record(out, &[x], || {
        node(lam("Col2ImBackward0", move |g, _| {
            Ok(vec![Some(c::unfold_with(g, &k[..], o.clone())?)])
        }))
    })
}

#[cfg(test)]
mod tests {
    use super::super::pool::fd::{check, vals};
    use crate::nn::functional as F;

    #[test]
    fn conv_grads_with_stride_padding_dilation_groups() {
        let x = vals(&[2, 4, 6, 5], 0.0, true);
        let w = vals(&[6, 2, 3, 2], 1.0, false);
        let b = vals(&[6], 2.0, false);
        // stride 2 loses the last rows: grad_input needs the output padding
        check(&[x.clone(), w.clone(), b.clone()], |v| {
            F::conv2d_with(&v[0], &v[1], (&v[2], [2, 1], [1, 0], [1, 2], 2))
        });
        check(&[x.clone(), w.clone()], |v| {
            F::conv2d_with(&v[0], &v[1], (None::<&crate::Tensor>, 1, "same", 1, 2))
        });
        // depthwise, unbatched
        let xd = vals(&[3, 5, 5], 3.0, false);
        let wd = vals(&[3, 1, 2, 2], 4.0, false);
        check(&[xd, wd], |v| {
            F::conv2d_with(&v[0], &v[1], (None::<&crate::Tensor>, 2, 1, 1, 3))
        });
        // 1-d and 3-d
        check(
            &[vals(&[2, 2, 7], 0.0, false), vals(&[4, 1, 3], 1.0, false)],
            |v| F::conv1d_with(&v[0], &v[1], (None::<&crate::Tensor>, 2, 1, 2, 2)),
        );
        check(
            &[
                vals(&[1, 2, 4, 3, 4], 0.0, false),
                vals(&[2, 2, 2, 2, 2], 1.0, false),
            ],
            |v| F::conv3d_with(&v[0], &v[1], (None::<&crate::Tensor>, [1, 2, 1], 1)),
        );
    }

    #[test]
    fn conv_transpose_grads() {
        let x = vals(&[2, 4, 3, 4], 0.0, false);
        let w = vals(&[4, 3, 3, 2], 1.0, false);
        let b = vals(&[6], 2.0, false);
        check(&[x.clone(), w.clone(), b], |v| {
            F::conv_transpose2d_with(&v[0], &v[1], (&v[2], 2, 1, 1, 2, [1, 2]))
        });
        check(
            &[vals(&[1, 2, 5], 0.0, false), vals(&[2, 3, 3], 1.0, false)],
            |v| F::conv_transpose1d_with(&v[0], &v[1], (None::<&crate::Tensor>, 3, 1, 2)),
        );
    }

    #[test]
    fn conv_names_and_saved_input_version() {
        let x = vals(&[3, 5, 5], 0.0, false);
        x.requires_grad_(true).unwrap();
        let w = vals(&[2, 3, 2, 2], 1.0, false);
        // unbatched: squeeze over the convolution, as PyTorch's
        let y = F::conv2d(&x, &w).unwrap();
        assert_eq!(y.grad_fn().unwrap().name(), "SqueezeBackward1");
        let xb = vals(&[1, 3, 5, 5], 0.0, false);
        xb.requires_grad_(true).unwrap();
        let w = w.detach();
        w.requires_grad_(true).unwrap();
        let h = w.mul(1.0).unwrap();
        let y = F::conv2d(&xb, &h).unwrap();
        assert_eq!(y.grad_fn().unwrap().name(), "ConvolutionBackward0");
        h.add_(1.0).unwrap();
        let e = y.sum().unwrap().backward().unwrap_err();
        assert!(
            e.message().contains("is at version 1; expected version 0"),
            "{}",
            e.message()
        );
    }

    #[test]
    fn unfold_fold_are_adjoint() {
        let x = vals(&[2, 2, 5, 4], 0.0, true);
        check(&[x], |v| F::unfold_with(&v[0], [2, 3], (1, 1, [2, 1])));
        let c = vals(&[2, 4, 12], 0.0, false);
        check(&[c], |v| F::fold_with(&v[0], [4, 5], 2, (1, 0, 1)));
    }
}
