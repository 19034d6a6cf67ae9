//! The forward code of the convolutions and of `unfold`/`fold` (their functions and recording
//! are `crate::optable::conv`'s): PyTorch's CPU `_convolution` on a batched input, with its
//! checks, messages, dtypes and output memory formats.
//!
//! The numbers are computed by `crate::kernels::conv` (im2col + GEMM, a direct depthwise loop,
//! channels-last computed in place) in float32 (float32, bfloat16, float16 inputs) or float64.
//! The layout rules follow PyTorch's CPU `_convolution`: a 1-d convolution runs as a 2-d one on
//! `input.contiguous().unsqueeze(2)` and `weight.unsqueeze(2)`; the output is channels-last when
//! the input or the weight suggests channels-last (see [`output_channels_last`]), except where
//! PyTorch's slow 3-d kernels and per-group concatenation give contiguous outputs. Records
//! nothing.

use crate::Tensor;
use crate::args::{IntList, IntoShape};
use crate::dtype::DType;
use crate::error::{Error, Result, fmt_list};
use crate::geometry::conv::{self as gc, ConvGeometry as Geo, Window2};
use crate::kernels::conv::{self as kconv, ConvElem, ConvGeom, ConvKind, Window};
use crate::layout::{
    channels_last_strides, contiguous_strides, is_channels_last_3d_contiguous,
    is_channels_last_contiguous, is_contiguous,
};
use crate::ops::cat::strides_like_channels_last;
use crate::ops::copy::copy_with_strides;

/// The options of either kind, normalised.
/// The options of either kind, normalised.
pub(crate) struct Params {
    pub(crate) bias_present: bool,
    pub(crate) stride: IntList,
    pub(crate) padding: IntList,
    pub(crate) dilation: IntList,
    pub(crate) output_padding: IntList,
    pub(crate) groups: i64,
    pub(crate) transposed: bool,
}

/// `is_channels_last_strides_2d_s4` / `_3d_s5` (the walk of `suggest_memory_format`): C, the
/// spatial dims from the innermost, then N, with PyTorch's tie-breaks for size-0/1 dims.
pub(crate) fn suggests_cl(sizes: &[usize], strides: &[usize]) -> bool {
    let order: &[usize] = match sizes.len() {
        4 => &[1, 3, 2, 0],
        5 => &[1, 4, 3, 2, 0],
        _ => return false,
    };
    strides_like_channels_last(sizes, strides, order)
}

/// The strides of `t.contiguous(memory_format)` (kept when already so).
pub(crate) fn contiguous_as(sizes: &[usize], strides: &[usize], cl: bool) -> Vec<usize> {
    if cl {
        let already = if sizes.len() == 4 {
            is_channels_last_contiguous(sizes, strides)
        } else {
            is_channels_last_3d_contiguous(sizes, strides)
        };
        if already {
            strides.to_vec()
        } else {
            channels_last_strides(sizes)
        }
    } else if is_contiguous(sizes, strides) {
        strides.to_vec()
    } else {
        contiguous_strides(sizes)
    }
}

/// Whether PyTorch's CPU `_convolution` gives a channels-last output, for a 4-d or 5-d
/// `input` (a 1-d convolution's made contiguous and unsqueezed) and `weight`:
///
/// * oneDNN (float32 unless a tiny single-image ungrouped problem, bfloat16, float16; not
///   a transposed convolution whose output padding reaches the stride): channels-last when
///   either suggests channels-last;
/// * 3-d otherwise (PyTorch's slow 3-d kernels): contiguous;
/// * 2-d slow kernels (float64): the operands are made contiguous in the suggested format,
///   then each group's slices decide its output's format, and the groups' outputs are
///   concatenated (channels-last only when every group's output suggests it).
pub(crate) fn output_channels_last(
    x: &Tensor,
    w: &Tensor,
    groups: usize,
    outpad_big: bool,
    out_sizes: &[usize],
) -> bool {
    let (xs, ws) = (x.size(), w.size());
    let nd = xs.len();
    let either = suggests_cl(xs, x.stride()) || suggests_cl(ws, w.stride());
    if uses_onednn(x, w, groups, outpad_big) {
        return either;
    }
    if nd == 5 {
        return false;
    }
    let xst = contiguous_as(xs, x.stride(), either);
    let wst = contiguous_as(ws, w.stride(), either);
    let (mut xg, mut wg, mut og) = (xs.to_vec(), ws.to_vec(), out_sizes.to_vec());
    xg[1] /= groups;
    wg[0] /= groups;
    og[1] /= groups;
    let xgs = contiguous_as(&xg, &xst, suggests_cl(&xg, &xst));
    let wgs = contiguous_as(&wg, &wst, suggests_cl(&wg, &wst));
    let cl = suggests_cl(&xg, &xgs) || suggests_cl(&wg, &wgs);
    if groups == 1 {
        return cl;
    }
    // every group has the same geometry; `cat` keeps channels-last when its pieces suggest it
    let ogs = if cl {
        channels_last_strides(&og)
    } else {
        contiguous_strides(&og)
    };
    suggests_cl(&og, &ogs)
}

/// Whether PyTorch's CPU `_select_conv_backend` picks oneDNN: float32 unless a single small
/// ungrouped image with a small kernel, bfloat16, and float16 on CPUs with FP16 support
/// ([`onednn_has_fp16`]); never a transposed convolution whose output padding reaches its
/// stride.
pub(crate) fn uses_onednn(x: &Tensor, w: &Tensor, groups: usize, outpad_big: bool) -> bool {
    let (xs, ws) = (x.size(), w.size());
    let nd = xs.len();
    match x.dtype() {
        DType::Float32 => {
            !outpad_big
                && (groups > 1
                    || (ws[nd - 1] > 3 && ws[nd - 2] > 3)
                    || xs[0] > 1
                    || xs[0] * xs[1] * xs[2] * xs[3] > 20480)
        }
        DType::BFloat16 => !outpad_big,
        DType::Float16 => !outpad_big && onednn_has_fp16(),
        _ => false,
    }
}

/// PyTorch's `mkldnn_fp16_device_check` on x86: oneDNN takes float16 convolutions only on a
/// CPU with AVX512-FP16 or AMX-FP16; elsewhere they run PyTorch's slow kernels (whose
/// layouts and rounding differ). Read once from the CPU, as PyTorch reads it.
fn onednn_has_fp16() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        // every CPU with AMX-FP16 has AVX512-FP16 too (whose detection is stable in Rust)
        *HAS.get_or_init(|| std::arch::is_x86_feature_detected!("avx512fp16"))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `at::_convolution` on a batched input.
pub(crate) fn convolution_impl(
    x: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    p: &Params,
) -> Result<Tensor> {
    let g = Geo::new(
        weight.dim(),
        &p.stride,
        &p.padding,
        &p.dilation,
        &p.output_padding,
        p.groups,
        p.transposed,
    )?;
    let dim = weight.dim() - 2;
    debug_assert_eq!(p.bias_present, bias.is_some());
    gc::check_shape_forward(x.size(), weight.size(), bias.map(|b| b.size()), &g)?;
    let xs = x.size();
    let out = gc::output_sizes(xs, weight.size(), &g)?;
    // 1-d runs as 2-d on input.contiguous().unsqueeze(2), weight.unsqueeze(2)
    let one_d = dim == 1;
    let (x4, w4, g4) = if one_d {
        let geo = g.as_2d();
        (x.try_contiguous()?.unsqueeze(2)?, weight.unsqueeze(2)?, geo)
    } else {
        (x.alias(), weight.alias(), g)
    };
    let g = g4;
    let mut out4 = out.clone();
    if one_d {
        out4.insert(2, 1);
    }
    if xs[0] == 0 || xs[1] == 0 {
        let r = empty_backend(&x4, &w4, bias, &out4)?;
        return if one_d { r.squeeze_dim(2) } else { Ok(r) };
    }
    if x.numel() == 0 {
        return Err(Error::runtime(format!(
            "Only zero batch or zero channel inputs are supported, but got input shape: {}",
            fmt_list(xs)
        )));
    }
    let nsp = x4.dim() - 2;
    let outpad_big = g.transposed
        && g.output_padding
            .iter()
            .zip(&g.stride)
            .any(|(&o, &s)| o >= s);
    // the slow transposed kernels check the output size before the operands' dtypes
    if g.transposed {
        gc::check_output_padding(&g, nsp)?;
        // oneDNN gives an empty output for a size of 0 (and fails below it); the slow
        // kernels refuse both
        let least = if uses_onednn(&x4, &w4, g.groups as usize, outpad_big) {
            0
        } else {
            1
        };
        gc::check_transposed_output(&x4.size()[2..], &out4[2..], least)?;
    }
    if x.dtype() != weight.dtype() {
        return Err(Error::runtime(format!(
            "Input type ({}) and weight type ({}) should be the same or input should be a MKLDNN tensor and weight is a dense tensor",
            x.dtype().legacy_type_name(),
            weight.dtype().legacy_type_name()
        )));
    }
    if let Some(b) = bias
        && b.dtype() != x.dtype()
    {
        return Err(Error::runtime(format!(
            "Input type ({}) and bias type ({}) should be the same or input should be a MKLDNN tensor and bias is a dense tensor",
            x.dtype().legacy_type_name(),
            b.dtype().legacy_type_name()
        )));
    }
    check_integer_backend(x.dtype(), &g, x4.dim())?;
    let groups = g.groups as usize;
    let out_sizes: Vec<usize> = out4.iter().map(|&v| v as usize).collect();
    let cl = output_channels_last(&x4, &w4, groups, outpad_big, &out_sizes);
    let slow = !uses_onednn(&x4, &w4, groups, outpad_big);
    let r = compute(&x4, &w4, bias, &g, &out_sizes, cl, slow)?;
    if one_d { r.squeeze_dim(2) } else { Ok(r) }
}

/// The dtype lists of PyTorch's slow CPU convolution kernels, which run every integer
/// convolution (oneDNN takes only float types): `slow_conv2d_cpu` and `slow_conv3d_cpu`
/// (non-dilated) take every integer dtype; `slow_conv_dilated<>` (any dilation above 1) and the
/// transposed kernels take int64 only; none takes bool. Float dtypes pass.
///
/// Errors (NotImplementedError): `"slow_conv2d_cpu" not implemented for 'Bool'` (likewise
/// `"slow_conv_dilated<>"`, `"slow_conv_transpose2d_out_cpu"`, `"slow_conv_transpose3d_out_cpu"`,
/// `"compute_columns3d"`, with PyTorch's name of the dtype).
fn check_integer_backend(dt: DType, g: &Geo, rank: usize) -> Result<()> {
    if dt.is_floating_point() {
        return Ok(());
    }
    let dilated = g.dilation.iter().any(|&d| d != 1);
    let (kernel, ok) = match (g.transposed, dilated, rank) {
        (true, _, 4) => ("slow_conv_transpose2d_out_cpu", dt == DType::Int64),
        (true, _, _) => ("slow_conv_transpose3d_out_cpu", dt == DType::Int64),
        (false, true, _) => ("slow_conv_dilated<>", dt == DType::Int64),
        (false, false, 4) => ("slow_conv2d_cpu", dt != DType::Bool),
        (false, false, _) => ("compute_columns3d", dt != DType::Bool),
    };
    if ok {
        Ok(())
    } else {
        Err(Error::not_implemented_for(kernel, dt))
    }
}

/// PyTorch's `ConvBackend::Empty` (zero batch or zero channels), done as PyTorch does it:
/// `input * weight.flatten()[0]` (zero channels: `input.view(-1) * weight.flatten()`),
/// `+= bias[0]`, viewed as the output shape. So the dtype is the product's and the strides
/// are the pointwise result's (kept by `view` when the shapes agree; else contiguous).
pub(crate) fn empty_backend(
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    out: &[i64],
) -> Result<Tensor> {
    let wv = w.reshape(-1)?;
    let y = if x.size()[1] == 0 {
        x.reshape(-1)?.mul(&wv)?
    } else {
        x.mul(&wv.select(0, 0)?)?
    };
    if let Some(b) = bias {
        y.add_(&b.select(0, 0)?)?;
    }
    y.view(out)
}

/// A dense copy of `t` with `strides` and dtype `dt` (`t` itself when it already is).
pub(crate) fn dense_as(t: &Tensor, strides: &[usize], dt: DType) -> Result<Tensor> {
    if t.dtype() == dt && t.stride() == strides {
        Ok(t.alias())
    } else {
        copy_with_strides(t, strides, dt)
    }
}

/// Pads a per-spatial-dim list to 3 entries with leading `fill`s.
pub(crate) fn pad3<T: Copy>(v: &[T], fill: T) -> [T; 3] {
    let mut r = [fill; 3];
    let off = 3 - v.len();
    r[off..].copy_from_slice(v);
    r
}

/// Runs the convolution on 4-d/5-d operands into an output of `out_sizes`, channels-last
/// when `cl`; `slow` when PyTorch runs its own (non-oneDNN) kernel, whose transposed path
/// stores every step of a float16/bfloat16 computation in that dtype.
pub(crate) fn compute(
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    g: &Geo,
    out_sizes: &[usize],
    cl: bool,
    slow: bool,
) -> Result<Tensor> {
    let dt = x.dtype();
    let cd = if dt == DType::Float64 {
        DType::Float64
    } else {
        DType::Float32
    };
    let (xs, ws) = (x.size(), w.size());
    let u = |v: &[i64]| -> Vec<usize> { v.iter().map(|&a| a as usize).collect() };
    let (in_sp, out_sp) = (&xs[2..], &out_sizes[2..]);
    let (img, blk) = if g.transposed {
        (out_sp, in_sp)
    } else {
        (in_sp, out_sp)
    };
    let win = Window {
        img: pad3(img, 1),
        blk: pad3(blk, 1),
        k: pad3(&ws[2..], 1),
        stride: pad3(&u(&g.stride), 1),
        pad: pad3(&u(&g.padding), 0),
        dil: pad3(&u(&g.dilation), 1),
    };
    let geom = ConvGeom {
        n: xs[0],
        c: xs[1],
        o: out_sizes[1],
        groups: g.groups as usize,
        win,
        // only the slow transposed path stores its steps in the reduced dtype; oneDNN's
        // accumulates in float32
        round: match dt {
            DType::BFloat16 if g.transposed && slow => Some(|v| half::bf16::from_f32(v).to_f32()),
            DType::Float16 if g.transposed && slow => Some(|v| half::f16::from_f32(v).to_f32()),
            _ => None,
        },
    };
    let strides = if cl {
        channels_last_strides(out_sizes)
    } else {
        contiguous_strides(out_sizes)
    };
    if !dt.is_floating_point() {
        let dense = |t: &Tensor| dense_as(t, &contiguous_strides(t.size()), DType::Int64);
        let (xc, wc) = (dense(x)?, dense(w)?);
        let bc = bias.map(dense).transpose()?;
        let y = Tensor::try_alloc(out_sizes, &contiguous_strides(out_sizes), DType::Int64)?;
        if y.numel() != 0 {
            let mut ins = vec![&xc, &wc];
            ins.extend(&bc);
            // dense NCHW (made so above): slices in that order
            crate::iter::dense(&[&y], &ins, |mut s| {
                let b = bc.is_some().then(|| s.input::<i64>(2)).transpose()?;
                kconv::conv_int(g.transposed, s.input(0)?, s.input(1)?, b, s.out(0)?, &geom);
                Ok(())
            })?;
        }
        return copy_with_strides(&y, &strides, dt);
    }
    let nhwc = cl && !g.transposed;
    let kind = if g.transposed {
        ConvKind::Transposed
    } else if nhwc {
        ConvKind::Nhwc
    } else {
        ConvKind::Nchw
    };
    let layout = |s: &[usize]| {
        if nhwc {
            channels_last_strides(s)
        } else {
            contiguous_strides(s)
        }
    };
    let xc = dense_as(x, &layout(xs), cd)?;
    let wc = dense_as(w, &layout(ws), cd)?;
    let bc = bias.map(|b| dense_as(b, &[1], cd)).transpose()?;
    let y = Tensor::try_alloc(out_sizes, &layout(out_sizes), cd)?;
    if y.numel() != 0 {
        let mut ins = vec![&xc, &wc];
        ins.extend(&bc);
        // dense in the layout `kind` names (made so above): slices in that order
        crate::iter::dense(&[&y], &ins, |mut s| match cd {
            DType::Float64 => conv_dense::<f64>(&mut s, kind, bc.is_some(), &geom),
            _ => conv_dense::<f32>(&mut s, kind, bc.is_some(), &geom),
        })?;
    }
    if dt == cd && y.stride() == &strides[..] {
        Ok(y)
    } else {
        copy_with_strides(&y, &strides, dt)
    }
}

/// The convolution kernel over [`crate::iter::dense`]'s slices: input, weight and (when
/// `bias`) bias in `T`, output first.
pub(crate) fn conv_dense<T: ConvElem + crate::Element>(
    s: &mut crate::iter::Slices<'_>,
    kind: ConvKind,
    bias: bool,
    geom: &ConvGeom,
) -> Result<()> {
    let b = bias.then(|| s.input::<T>(2)).transpose()?;
    kconv::conv::<T>(kind, s.input(0)?, s.input(1)?, b, s.out(0)?, geom);
    Ok(())
}

/// The weight gradient of a (non-transposed) convolution `y = conv{1,2,3}d(x, w)` with
/// these `stride`/`padding`/`dilation`/`groups`, for the output gradient `g`: `x` `(N, C, …)`,
/// `g` `(N, O, …)` (the output's sizes), result `(O, C/groups, k…)` = `w_sizes`, contiguous,
/// in `x`'s dtype. Computed directly (im2col + one product per chunk of images, in
/// `kernels::conv::weight_grad`) for float32 and float64; `None` for other dtypes, whose
/// gradient goes through a convolution of tensile's own (`formulas::conv::weight_grad`),
/// rounding as PyTorch's reduced-precision kernels do. Errors: only the allocator's.
pub(crate) fn conv_weight_grad(
    x: &Tensor,
    g: &Tensor,
    w_sizes: &[usize],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    groups: i64,
) -> Result<Option<Tensor>> {
    let dt = x.dtype();
    let nsp = x.dim().saturating_sub(2);
    if !matches!(dt, DType::Float32 | DType::Float64)
        || g.dtype() != dt
        || !(1..=3).contains(&nsp)
        || g.dim() != x.dim()
        || w_sizes.len() != x.dim()
        || groups < 1
    {
        return Ok(None);
    }
    let u = |v: &[i64]| -> Vec<usize> { v.iter().map(|&a| a.max(0) as usize).collect() };
    let win = Window {
        img: pad3(&x.size()[2..], 1),
        blk: pad3(&g.size()[2..], 1),
        k: pad3(&w_sizes[2..], 1),
        stride: pad3(&u(stride), 1),
        pad: pad3(&u(padding), 0),
        dil: pad3(&u(dilation), 1),
    };
    let geom = ConvGeom {
        n: x.size()[0],
        c: x.size()[1],
        o: g.size()[1],
        groups: groups as usize,
        win,
        round: None,
    };
    let xc = dense_as(x, &contiguous_strides(x.size()), dt)?;
    let gc = dense_as(g, &contiguous_strides(g.size()), dt)?;
    let gw = Tensor::try_alloc(w_sizes, &contiguous_strides(w_sizes), dt)?;
    if gw.numel() != 0 {
        // dense NCHW (made so above): slices in that order
        crate::iter::dense(&[&gw], &[&xc, &gc], |mut s| {
            match dt {
                DType::Float64 => {
                    kconv::weight_grad::<f64>(s.input(0)?, s.input(1)?, s.out(0)?, &geom)
                }
                _ => kconv::weight_grad::<f32>(s.input(0)?, s.input(1)?, s.out(0)?, &geom),
            }
            Ok(())
        })?;
    }
    Ok(Some(gw))
}

pub(crate) fn unfold_impl(input: &Tensor, kernel_size: &IntList, o: &UnfoldOpts) -> Result<Tensor> {
    let win = window(kernel_size, o)?;
    let (bh, bw) = gc::unfold_blocks(input.size(), &win)?;
    let nd = input.dim();
    let x = if nd == 3 {
        input.unsqueeze(0)?
    } else {
        input.alias()
    };
    let (h, w) = (x.size()[2] as i64, x.size()[3] as i64);
    let Window2 { k, d, p, s } = win;
    let dt = input.dtype();
    // the float dtypes and bool (computed as 0/1 in float32; `fold`'s overlapping sums
    // come back as their `!= 0`, C++'s `bool += bool`)
    if !(dt.is_floating_point() || dt == DType::Bool) {
        return Err(Error::not_implemented_for("im2col_out_cpu", dt));
    }
    let (n, c) = (x.size()[0], x.size()[1]);
    let (ckk, l) = gc::unfold_output(c, &win, bh, bw)?;
    let win = Window {
        img: [1, h as usize, w as usize],
        blk: [1, bh as usize, bw as usize],
        k: [1, k[0] as usize, k[1] as usize],
        stride: [1, s[0] as usize, s[1] as usize],
        pad: [0, p[0] as usize, p[1] as usize],
        dil: [1, d[0] as usize, d[1] as usize],
    };
    let out_sizes = [n, ckk, l];
    let cd = if dt == DType::Float64 {
        DType::Float64
    } else {
        DType::Float32
    };
    let xc = dense_as(&x, &contiguous_strides(x.size()), cd)?;
    let y = Tensor::try_alloc_contiguous(&out_sizes, cd)?;
    if y.numel() != 0 {
        // contiguous (made so above): slices in row-major order
        crate::iter::dense(&[&y], &[&xc], |mut s| {
            match cd {
                DType::Float64 => kconv::unfold::<f64>(s.input(0)?, s.out(0)?, n, c, &win),
                _ => kconv::unfold::<f32>(s.input(0)?, s.out(0)?, n, c, &win),
            }
            Ok(())
        })?;
    }
    let y = if cd == dt { y } else { y.to(dt)? };
    if nd == 3 { y.squeeze_dim(0) } else { Ok(y) }
}

pub(crate) fn fold_impl(
    input: &Tensor,
    output_size: &IntList,
    kernel_size: &IntList,
    o: &FoldOpts,
) -> Result<Tensor> {
    let os = gc::pair(output_size, "output_size")?;
    let win = window(kernel_size, o)?;
    let (c, bh, bw) = gc::fold_blocks(input.size(), os, &win)?;
    let nd = input.dim();
    let x = if nd == 2 {
        input.unsqueeze(0)?
    } else {
        input.alias()
    };
    let Window2 { k, d, p, s } = win;
    let dt = input.dtype();
    // the float dtypes and bool (computed as 0/1 in float32; `fold`'s overlapping sums
    // come back as their `!= 0`, C++'s `bool += bool`)
    if !(dt.is_floating_point() || dt == DType::Bool) {
        return Err(Error::not_implemented_for("col2im_out_cpu", dt));
    }
    let n = x.size()[0];
    let win = Window {
        img: [1, os[0] as usize, os[1] as usize],
        blk: [1, bh as usize, bw as usize],
        k: [1, k[0] as usize, k[1] as usize],
        stride: [1, s[0] as usize, s[1] as usize],
        pad: [0, p[0] as usize, p[1] as usize],
        dil: [1, d[0] as usize, d[1] as usize],
    };
    let cd = if dt == DType::Float64 {
        DType::Float64
    } else {
        DType::Float32
    };
    let xc = dense_as(&x, &contiguous_strides(x.size()), cd)?;
    let out_sizes = [n, c, os[0] as usize, os[1] as usize];
    let y = Tensor::try_alloc_contiguous(&out_sizes, cd)?;
    if y.numel() != 0 {
        // contiguous (made so above): slices in row-major order
        crate::iter::dense(&[&y], &[&xc], |mut s| {
            match cd {
                DType::Float64 => kconv::fold::<f64>(s.input(0)?, s.out(0)?, n, c, &win),
                _ => kconv::fold::<f32>(s.input(0)?, s.out(0)?, n, c, &win),
            }
            Ok(())
        })?;
    }
    let y = if cd == dt { y } else { y.to(dt)? };
    if nd == 2 { y.squeeze_dim(0) } else { Ok(y) }
}

/// `F.unfold`'s optional arguments (`dilation=1, padding=0, stride=1`), for
/// [`crate::nn::functional::unfold_with`]; from a single value (dilation) or a tuple in
/// PyTorch's order. One int applies to both dims.
#[derive(Clone, Debug, PartialEq)]
pub struct UnfoldOpts {
    pub dilation: IntList,
    pub padding: IntList,
    pub stride: IntList,
}
/// `F.fold`'s optional arguments: the same as [`UnfoldOpts`].
pub type FoldOpts = UnfoldOpts;
impl Default for UnfoldOpts {
    fn default() -> Self {
        UnfoldOpts {
            dilation: 1.into_shape(),
            padding: 0.into_shape(),
            stride: 1.into_shape(),
        }
    }
}
impl<D: IntoShape> From<D> for UnfoldOpts {
    fn from(d: D) -> Self {
        UnfoldOpts {
            dilation: d.into_shape(),
            ..Default::default()
        }
    }
}
impl<D: IntoShape, P: IntoShape> From<(D, P)> for UnfoldOpts {
    fn from((d, p): (D, P)) -> Self {
        UnfoldOpts {
            dilation: d.into_shape(),
            padding: p.into_shape(),
            ..Default::default()
        }
    }
}
impl<D: IntoShape, P: IntoShape, S: IntoShape> From<(D, P, S)> for UnfoldOpts {
    fn from((d, p, s): (D, P, S)) -> Self {
        UnfoldOpts {
            dilation: d.into_shape(),
            padding: p.into_shape(),
            stride: s.into_shape(),
        }
    }
}

/// The window of `F.unfold` / `F.fold` (its lists paired, not yet checked).
pub(crate) fn window(kernel_size: &IntList, o: &UnfoldOpts) -> Result<Window2> {
    Window2::new(kernel_size, &o.dilation, &o.padding, &o.stride)
}
