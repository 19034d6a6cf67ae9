//! The forward code of the pooling ops (their functions and recording are
//! `crate::optable::pool`'s): the windows run in [`crate::kernels::pool`], the output laid out
//! as PyTorch's CPU kernels lay it out. Records nothing.

use crate::Tensor;
use crate::dtype::DType;
use crate::error::{Error, Result, fmt_list};
use crate::geometry::pool::{Reduce, Win};
use crate::kernels::pool::{self as kp, Geo, PoolFloat, WrapI64};
use crate::layout::{channels_last_strides, contiguous_strides};

/// Whether `input.suggest_memory_format()` is channels-last (4-d) / channels-last-3d (5-d).
pub(crate) fn suggests_cl(x: &Tensor) -> bool {
    crate::ops::cat::suggests_channels_last(x)
}

/// Runs a pooling of the batched `x` (`(N, C, *spatial)`, 1 to 3 spatial dims) with the
/// per-dim windows `wins` into a fresh `(N, C, *outs)` tensor of `x`'s dtype, channels-last
/// when `cl`; with the int64 indices when `with_idx`.
pub(crate) fn run_pool(
    x: &Tensor,
    wins: Vec<Vec<Win>>,
    r: Reduce,
    with_idx: bool,
    cl: bool,
) -> Result<(Tensor, Option<Tensor>)> {
    let k = wins.len();
    let (n, c) = (x.size()[0], x.size()[1]);
    let mut ins = [1usize; 3];
    let mut outs = [1usize; 3];
    for j in 0..k {
        ins[3 - k + j] = x.size()[2 + j];
        outs[3 - k + j] = wins[j].len();
    }
    let mut all: [Vec<Win>; 3] = [vec![], vec![], vec![]];
    for (j, w) in wins.into_iter().enumerate() {
        all[3 - k + j] = w;
    }
    for w in all.iter_mut().take(3 - k) {
        *w = vec![Win::UNIT];
    }
    let mut sizes = vec![n, c];
    sizes.extend_from_slice(&outs[3 - k..]);
    let numel = sizes
        .iter()
        .try_fold(1usize, |a, &s| a.checked_mul(s))
        .ok_or_else(|| Error::runtime("numel: integer multiplication overflow"))?;
    let g = Geo {
        n,
        c,
        ins,
        outs,
        wins: all,
        cl,
    };
    let strides = if cl {
        channels_last_strides(&sizes)
    } else {
        contiguous_strides(&sizes)
    };
    let dtype = x.dtype();
    let src = if cl {
        let mut perm: Vec<i64> = vec![0];
        perm.extend(2..2 + k as i64);
        perm.push(1);
        x.permute(perm)?
    } else {
        x.alias()
    };
    /// The pooled values (flat, in the output's layout) and, when `with_idx`, the indices.
    fn go<T: PoolFloat>(
        xs: &[T],
        numel: usize,
        with_idx: bool,
        g: &Geo,
        r: Reduce,
    ) -> Result<(Vec<T>, Option<Tensor>)> {
        use crate::error::try_filled;
        let mut out = try_filled(T::ZERO, numel)?;
        let mut idx = if with_idx {
            try_filled(0i64, numel)?
        } else {
            vec![]
        };
        kp::pool(xs, &mut out, with_idx.then_some(&mut idx[..]), g, r);
        let i = with_idx
            .then(|| Tensor::from_vec(idx, [numel]))
            .transpose()?;
        Ok((out, i))
    }
    /// The pooling read straight from `src`'s storage (contiguous in the kernel's layout, of
    /// `T`'s dtype) into fresh outputs: no copy of the input.
    fn direct<T: PoolFloat + crate::element::Element>(
        src: &Tensor,
        numel: usize,
        with_idx: bool,
        g: &Geo,
        r: Reduce,
    ) -> Result<(Tensor, Option<Tensor>)> {
        let out = Tensor::try_alloc_contiguous(&[numel], T::DTYPE)?;
        let idx = with_idx
            .then(|| Tensor::try_alloc_contiguous(&[numel], DType::Int64))
            .transpose()?;
        let mut outs = vec![&out];
        outs.extend(idx.as_ref());
        crate::iter::dense(&outs, &[src], |mut s| {
            let xs = s.input::<T>(0)?;
            let o = s.out::<T>(0)?;
            let ix = if with_idx {
                Some(s.out::<i64>(1)?)
            } else {
                None
            };
            kp::pool(xs, o, ix, g, r);
            Ok(())
        })?;
        Ok((out, idx))
    }
    let (flat, idx) = match dtype {
        DType::Float64 if src.is_contiguous() => direct::<f64>(&src, numel, with_idx, &g, r)?,
        DType::Float32 if src.is_contiguous() => direct::<f32>(&src, numel, with_idx, &g, r)?,
        DType::Float64 => {
            let (o, i) = go(&src.try_to_vec::<f64>()?, numel, with_idx, &g, r)?;
            (Tensor::from_vec(o, [numel])?, i)
        }
        d if d.is_floating_point() => {
            let (o, i) = go(&src.try_to_vec::<f32>()?, numel, with_idx, &g, r)?;
            (Tensor::from_vec(o, [numel])?, i)
        }
        _ => {
            // integers widen to i64 and narrow back by truncation (PyTorch's wrapping sums)
            let xs: Vec<WrapI64> = src.try_to_vec::<i64>()?.into_iter().map(WrapI64).collect();
            let (o, i) = go(&xs, numel, with_idx, &g, r)?;
            let o: Vec<i64> = o.into_iter().map(|v| v.0).collect();
            (Tensor::from_vec(o, [numel])?, i)
        }
    };
    let out = flat.view_with(sizes.clone(), strides.clone(), 0);
    let out = if out.dtype() != dtype {
        crate::ops::copy::copy_with_strides(&out, &strides, dtype)?
    } else {
        out
    };
    Ok((out, idx.map(|i| i.view_with(sizes, strides, 0))))
}

pub(crate) fn max_unpool2d_core_impl(
    input: &Tensor,
    indices: &Tensor,
    os: &[i64],
) -> Result<Tensor> {
    if indices.dtype() != DType::Int64 {
        return Err(Error::runtime(format!(
            "elements in indices should be type int64 but got: {}",
            indices.dtype().scalar_type_name()
        )));
    }
    if os.len() != 2 {
        return Err(Error::runtime(format!(
            "There should be exactly two elements (height, width) in output_size, but got {} elements.",
            os.len()
        )));
    }
    let nd = input.dim();
    if nd != 3 && nd != 4 {
        return Err(Error::runtime(format!(
            "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with {nd} dimensions."
        )));
    }
    if input.size() != indices.size() {
        return Err(Error::runtime(format!(
            "Expected shape of indices to be same as that of the input tensor ({}) but got indices tensor with shape: {}",
            fmt_list(input.size()),
            fmt_list(indices.size())
        )));
    }
    for i in 1..nd {
        if input.size()[i] == 0 {
            return Err(Error::runtime(format!(
                "max_unpooling2d_forward_out_cpu(): Expected input to have non-zero size for non-batch dimensions, but got {} with dimension {i} being empty.",
                fmt_list(input.size())
            )));
        }
    }
    let (oh, ow) = (os[0], os[1]);
    if oh < 0 || ow < 0 {
        let mut s: Vec<i64> = input.size()[..nd - 2].iter().map(|&v| v as i64).collect();
        s.extend_from_slice(os);
        return Err(Error::runtime(format!(
            "Trying to create tensor with negative dimension {}: {}",
            if oh < 0 { oh } else { ow },
            fmt_list(&s)
        )));
    }
    // the kernel takes the float dtypes; an empty input never reaches it
    if !input.dtype().is_floating_point() && input.numel() != 0 {
        return Err(Error::not_implemented_for("max_unpool2d", input.dtype()));
    }
    let cl = nd == 4 && suggests_cl(input);
    let mut sizes: Vec<usize> = input.size()[..nd - 2].to_vec();
    sizes.extend([oh as usize, ow as usize]);
    // saturating: only used when the output has elements, which bounds it (an empty batch
    // leaves `oh·ow` free to pass usize)
    let plane = (oh as usize).saturating_mul(ow as usize);
    // (planes, in-plane positions) in the layout of the output
    let (vals, idx) = if cl {
        (
            input.permute([0i64, 2, 3, 1])?.try_to_vec::<f64>()?,
            indices.permute([0i64, 2, 3, 1])?.try_to_vec::<i64>()?,
        )
    } else {
        (input.try_to_vec::<f64>()?, indices.try_to_vec::<i64>()?)
    };
    let numel = sizes
        .iter()
        .try_fold(1usize, |a, &s| a.checked_mul(s))
        .ok_or_else(|| Error::runtime("numel: integer multiplication overflow"))?;
    let mut out = crate::error::try_filled(0f64, numel)?;
    let inplane = input.size()[nd - 2].saturating_mul(input.size()[nd - 1]);
    let c = input.size()[nd - 3];
    for (q, (&v, &m)) in vals.iter().zip(&idx).enumerate() {
        if m < 0 || m >= plane as i64 {
            return Err(Error::runtime(format!(
                "Found an invalid max index: {m} (output volumes are of size {oh}x{ow})"
            )));
        }
        let m = m as usize;
        let at = if cl {
            let (n, rest) = (q / (inplane * c), q % (inplane * c));
            let ch = rest % c;
            (n * plane + m) * c + ch
        } else {
            (q / inplane) * plane + m
        };
        out[at] = v;
    }
    let strides = if cl {
        channels_last_strides(&sizes)
    } else {
        contiguous_strides(&sizes)
    };
    let flat = Tensor::from_vec(out, [numel])?;
    crate::ops::copy::copy_with_strides(
        &flat.view_with(sizes.clone(), strides.clone(), 0),
        &strides,
        input.dtype(),
    )
}
