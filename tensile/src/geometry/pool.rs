//! Pooling geometry: output sizes (`pooling_output_shape`), the per-dim windows the pooling
//! kernels (`crate::kernels::pool`) reduce and the average-pooling formulas differentiate,
//! and the argument and shape checks of `F.max_pool*d`, `F.avg_pool*d`,
//! `F.adaptive_*_pool*d` and `F.max_unpool*d`, with PyTorch 2.15's error texts.
//!
//! Sizes are element counts; a pooled dim's arguments are `i64` as given (a per-dim list is
//! expanded by [`expand_param`]). Window arithmetic runs in `i128`, where sizes near 2^62 and
//! paddings near 2^61 cannot overflow.

use crate::error::{Error, Result, fmt_list, try_vec};

/// One output index's window along one dim: input positions `lo, lo+step, … < hi`; `padded`
/// is the window's length counting padding (average pooling's `count_include_pad` divisor).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Win {
    pub lo: usize,
    pub hi: usize,
    pub step: usize,
    pub padded: usize,
}

impl Win {
    /// The window of a dim that is not pooled: the one position 0.
    pub const UNIT: Win = Win {
        lo: 0,
        hi: 1,
        step: 1,
        padded: 1,
    };

    /// The number of input positions in the window.
    pub fn len(&self) -> usize {
        if self.hi <= self.lo {
            0
        } else {
            (self.hi - self.lo).div_ceil(self.step)
        }
    }

    /// Whether the window holds no input position.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// How windows are reduced.
#[derive(Clone, Copy, Debug)]
pub enum Reduce {
    /// The maximum, NaN winning (PyTorch's `val > max || isnan(val)`), with the flat in-plane
    /// index of the winner; an empty window gives `-inf` at the window's first position.
    Max,
    /// The sum divided by `divisor_override`, or the padded window size (`count_include_pad`),
    /// or the number of input positions; an empty window gives 0.
    Avg {
        divisor_override: Option<i64>,
        count_include_pad: bool,
    },
}

/// `div_rtn`: division rounding toward negative infinity (in `i128`, where the pooling
/// geometry of `i64` sizes and arguments cannot overflow).
fn div_floor(a: i128, b: i128) -> i128 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

/// `pooling_output_shape`: the output length of a pooled dim of `input` positions, with
/// PyTorch's checks (stride nonzero, `0 <= pad <= effective kernel / 2`):
/// `⌊(input + 2·pad − dilation·(k−1) − 1 (+ stride − 1 in ceil mode)) / stride⌋ + 1`; in ceil
/// mode the last window must start inside the input or its left padding. May be 0 or
/// negative (the shape checks refuse it).
///
/// Errors: `stride should not be zero`; `pad must be non-negative, but got pad: -1`;
/// `effective kernel size overflows, but got kernel_size=… and dilation=…`;
/// `pad should be at most half of effective kernel size, but got pad=2, kernel_size=1 and dilation=1`;
/// `pooling output size overflows int64: … (input size …, padding …, stride …)`.
pub fn pooling_output_shape(
    input: i64,
    k: i64,
    pad: i64,
    stride: i64,
    dilation: i64,
    ceil_mode: bool,
) -> Result<i64> {
    if stride == 0 {
        return Err(Error::runtime("stride should not be zero"));
    }
    if pad < 0 {
        return Err(Error::runtime(format!(
            "pad must be non-negative, but got pad: {pad}"
        )));
    }
    let eff = k
        .checked_sub(1)
        .and_then(|km1| km1.checked_mul(dilation))
        .and_then(|x| x.checked_add(1))
        .ok_or_else(|| {
            Error::runtime(format!(
                "effective kernel size overflows, but got kernel_size={k} and dilation={dilation}"
            ))
        })?;
    if pad > eff / 2 {
        return Err(Error::runtime(format!(
            "pad should be at most half of effective kernel size, but got pad={pad}, kernel_size={k} and dilation={dilation}"
        )));
    }
    // PyTorch's int64 arithmetic, here in i128: an input near 2^62 plus a padding near 2^62
    // passes i64 (the sum is still a valid output length once divided by the stride)
    let (input, pad, stride, eff) = (input as i128, pad as i128, stride as i128, eff as i128);
    let mut out = div_floor(
        input + 2 * pad - eff + if ceil_mode { stride - 1 } else { 0 },
        stride,
    ) + 1;
    if ceil_mode && (out - 1) * stride >= input + pad {
        out -= 1;
    }
    i64::try_from(out).map_err(|_| {
        Error::runtime(format!(
            "pooling output size overflows int64: {out} (input size {input}, padding {pad}, stride {stride})"
        ))
    })
}

/// Max-pooling windows along one dim of `input` positions: for each of `out` outputs, the
/// positions `o·s − p + j·dil` (`j < k`) inside the input.
///
/// Error: PyTorch's allocator error when `out` windows cannot be had (an `out` near 2^62
/// with an empty batch, whose output tensor PyTorch makes without windows).
pub fn max_wins(input: usize, out: usize, k: i64, s: i64, p: i64, dil: i64) -> Result<Vec<Win>> {
    let mut v = try_vec(out)?;
    // in i128: `o·s - p + (k - 1)·dil` passes i64 for sizes and paddings near 2^62
    let (k, s, p, dil) = (k as i128, s as i128, p as i128, dil as i128);
    v.extend((0..out as i128).map(|o| {
        let mut start = o * s - p;
        let end = (start + (k - 1) * dil + 1).min(input as i128);
        if start < 0 {
            // the first tap at or after 0 (a loop of `start += dil` runs 2^61 times for a
            // padding near 2^61)
            start += (-start + dil - 1) / dil * dil;
        }
        Win {
            lo: start as usize,
            hi: end.max(start) as usize,
            step: dil as usize,
            padded: 0,
        }
    }));
    Ok(v)
}

/// Average-pooling windows along one dim: `[o·s − p, o·s − p + k)` cut at `input + p`
/// (`padded` counts that), then clipped to the input.
///
/// Error: as [`max_wins`]'.
pub fn avg_wins(input: usize, out: usize, k: i64, s: i64, p: i64) -> Result<Vec<Win>> {
    let mut v = try_vec(out)?;
    let (n, k, s, p) = (input as i128, k as i128, s as i128, p as i128);
    v.extend((0..out as i128).map(|o| {
        let start = o * s - p;
        let end = (start + k).min(n + p);
        let (lo, hi) = (start.max(0), end.min(n));
        Win {
            lo: lo as usize,
            hi: hi.max(lo) as usize,
            step: 1,
            padded: (end - start).max(0) as usize,
        }
    }));
    Ok(v)
}

/// Adaptive windows: output `o` of `out` covers `[⌊o·in/out⌋, ⌈(o+1)·in/out⌉)`.
///
/// Error: as [`max_wins`]' (an `output_size` near 2^62 with an empty batch).
pub fn adaptive_wins(input: usize, out: usize) -> Result<Vec<Win>> {
    let mut v = try_vec(out)?;
    // in i128: `(o + 1)·in` passes i64 for an (expanded) input near 2^62
    let (i, n) = (input as i128, out as i128);
    v.extend((0..n).map(|o| {
        let lo = (o / n) * i + ((o % n) * i) / n;
        let hi = 1 + ((o + 1) * i - 1) / n;
        Win {
            lo: lo as usize,
            hi: hi as usize,
            step: 1,
            padded: (hi - lo) as usize,
        }
    }));
    Ok(v)
}

/// A per-dim argument (`kernel_size`, `stride`, ...) expanded to `d` entries: one entry
/// repeats, `d` entries stay; anything else is PyTorch's error `msg` (RuntimeError).
pub fn expand_param(v: &[i64], d: usize, msg: &str) -> Result<Vec<i64>> {
    match v.len() {
        1 => Ok(vec![v[0]; d]),
        n if n == d => Ok(v.to_vec()),
        _ => Err(Error::runtime(msg.to_string())),
    }
}

/// `pool2d_shape_check` for an input of `sizes` (3-d or 4-d) with `planes` channels, pooled
/// dims `sp` and computed output sizes `outs`; `cl`: the input suggests channels-last.
///
/// Errors: `kernel size should be greater than zero, but got kH: 0 kW: 1`; `stride should be
/// greater than zero, but got dH: 0 dW: 1`; `dilation should be greater than zero, but got
/// dilationH: 0 dilationW: 1`; `Expected 4D (batch mode) tensor expected for input with
/// channels_last layout with optional 0 dim batch size for input, but got: [..]`; `Expected 3D
/// or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[..]`; `pad
/// should be smaller than or equal to half of kernel size, but got padW = 0, padH = 2, kW = 2,
/// kH = 3`; `Given input size: (1x5x4). Calculated output size: (1x3x0). Output size is too
/// small`.
#[allow(clippy::too_many_arguments)]
pub fn pool2d_shape_check(
    sizes: &[usize],
    k: &[i64],
    s: &[i64],
    p: &[i64],
    dil: &[i64],
    planes: usize,
    sp: &[usize],
    outs: &[i64],
    cl: bool,
) -> Result<()> {
    let (kh, kw, dh, dw, ph, pw) = (k[0], k[1], s[0], s[1], p[0], p[1]);
    if kw <= 0 || kh <= 0 {
        return Err(Error::runtime(format!(
            "kernel size should be greater than zero, but got kH: {kh} kW: {kw}"
        )));
    }
    if dw <= 0 || dh <= 0 {
        return Err(Error::runtime(format!(
            "stride should be greater than zero, but got dH: {dh} dW: {dw}"
        )));
    }
    if dil[0] <= 0 || dil[1] <= 0 {
        return Err(Error::runtime(format!(
            "dilation should be greater than zero, but got dilationH: {} dilationW: {}",
            dil[0], dil[1]
        )));
    }
    let sz = sizes;
    let nd = sz.len();
    let valid_dims = sz[1] != 0 && sz[2] != 0;
    if cl {
        if !(nd == 4 && valid_dims && sz[3] != 0) {
            return Err(Error::runtime(format!(
                "Expected 4D (batch mode) tensor expected for input with channels_last layout with optional 0 dim batch size for input, but got: {}",
                fmt_list(sz)
            )));
        }
    } else if !((nd == 3 && sz[0] != 0 && valid_dims) || (nd == 4 && valid_dims && sz[3] != 0)) {
        return Err(Error::runtime(format!(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:{}",
            fmt_list(sz)
        )));
    }
    if !(kw / 2 >= pw && kh / 2 >= ph) {
        return Err(Error::runtime(format!(
            "pad should be smaller than or equal to half of kernel size, but got padW = {pw}, padH = {ph}, kW = {kw}, kH = {kh}"
        )));
    }
    if outs[1] < 1 || outs[0] < 1 {
        return Err(Error::runtime(format!(
            "Given input size: ({planes}x{}x{}). Calculated output size: ({planes}x{}x{}). Output size is too small",
            sp[0], sp[1], outs[0], outs[1]
        )));
    }
    Ok(())
}

/// `pool3d_shape_check` (with `check_input_size` for average pooling) for an input of
/// `sizes` (4-d or 5-d), as [`pool2d_shape_check`].
///
/// Errors: `kernel size should be greater than zero, but got kT: 0 kH: 1 kW: 1`; `stride
/// should be greater than zero, but got dT: …`; `dilation should be greater than zero, but
/// got dilationT: …`; `max_pool3d_with_indices_out_cpu_template(): Expected input's non-batch
/// dimensions to have positive length, but input has a shape of [..] and non-batch dimension
/// 0 has length zero!` (`avg_pool3d()` for average pooling); `input image (T: 1 H: 1 W: 1)
/// smaller than kernel size (kT: 2 kH: 2 kW: 2)` (average pooling); `pad should be smaller
/// than or equal to half of kernel size, but got kT: 1 kW: 1 kH: 1 padT: 1 padW: 0 padH: 0`;
/// `Given input size: (1x1x2x2). Calculated output size: (1x0x1x1). Output size is too small`.
#[allow(clippy::too_many_arguments)]
pub fn pool3d_shape_check(
    sizes: &[usize],
    k: &[i64],
    s: &[i64],
    p: &[i64],
    dil: &[i64],
    planes: usize,
    sp: &[usize],
    outs: &[i64],
    check_input_size: bool,
) -> Result<()> {
    let fn_name = if check_input_size {
        "avg_pool3d()"
    } else {
        "max_pool3d_with_indices_out_cpu_template()"
    };
    let (kt, kh, kw) = (k[0], k[1], k[2]);
    if !(kt > 0 && kw > 0 && kh > 0) {
        return Err(Error::runtime(format!(
            "kernel size should be greater than zero, but got kT: {kt} kH: {kh} kW: {kw}"
        )));
    }
    if !(s[0] > 0 && s[2] > 0 && s[1] > 0) {
        return Err(Error::runtime(format!(
            "stride should be greater than zero, but got dT: {} dH: {} dW: {}",
            s[0], s[1], s[2]
        )));
    }
    if !(dil[0] > 0 && dil[2] > 0 && dil[1] > 0) {
        return Err(Error::runtime(format!(
            "dilation should be greater than zero, but got dilationT: {} dilationH: {} dilationW: {}",
            dil[0], dil[1], dil[2]
        )));
    }
    let sz = sizes;
    for (i, &n) in sz.iter().enumerate().skip(1) {
        if n == 0 {
            return Err(Error::runtime(format!(
                "{fn_name}: Expected input to have non-zero size for non-batch dimensions, but input has sizes {} with dimension {i} being empty",
                fmt_list(sz)
            )));
        }
    }
    let (it, ih, iw) = (sp[0] as i64, sp[1] as i64, sp[2] as i64);
    if check_input_size && !(it >= kt && ih >= kh && iw >= kw) {
        return Err(Error::runtime(format!(
            "input image (T: {it} H: {ih} W: {iw}) smaller than kernel size (kT: {kt} kH: {kh} kW: {kw})"
        )));
    }
    if !(kt / 2 >= p[0] && kw / 2 >= p[2] && kh / 2 >= p[1]) {
        return Err(Error::runtime(format!(
            "pad should be smaller than or equal to half of kernel size, but got kT: {kt} kW: {kw} kH: {kh} padT: {} padW: {} padH: {}",
            p[0], p[2], p[1]
        )));
    }
    if outs[0] < 1 || outs[2] < 1 || outs[1] < 1 {
        return Err(Error::runtime(format!(
            "Given input size: ({planes}x{it}x{ih}x{iw}). Calculated output size: ({planes}x{}x{}x{}). Output size is too small",
            outs[0], outs[1], outs[2]
        )));
    }
    Ok(())
}

/// The checked geometry of a 2-d or 3-d pooling: per pooled dim, the kernel size, stride,
/// padding and dilation (expanded to `d` entries) and the output size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolPlan {
    pub kernel: Vec<i64>,
    pub stride: Vec<i64>,
    pub padding: Vec<i64>,
    pub dilation: Vec<i64>,
    /// Output sizes of the pooled dims (each at least 1).
    pub outs: Vec<i64>,
}

impl PoolPlan {
    /// The plan with its output sizes, computed for an input of `sizes` (its last
    /// `kernel.len()` dims pooled) and checked by PyTorch's shape check (`avg`: average
    /// pooling's, which checks the input against the kernel too).
    ///
    /// Errors: those of [`pooling_output_shape`], [`pool2d_shape_check`] and
    /// [`pool3d_shape_check`].
    fn with_outputs(
        mut self,
        sizes: &[usize],
        ceil_mode: bool,
        cl: bool,
        avg: bool,
    ) -> Result<PoolPlan> {
        let (d, nd) = (self.kernel.len(), sizes.len());
        let sp = &sizes[nd - d..];
        let mut outs = Vec::with_capacity(d);
        for (j, &size) in sp.iter().enumerate() {
            outs.push(pooling_output_shape(
                size as i64,
                self.kernel[j],
                self.padding[j],
                self.stride[j],
                self.dilation[j],
                ceil_mode,
            )?);
        }
        let planes = sizes[nd - d - 1];
        let (k, s, p, dil) = (&self.kernel, &self.stride, &self.padding, &self.dilation);
        if d == 2 {
            pool2d_shape_check(sizes, k, s, p, dil, planes, sp, &outs, cl)?;
        } else {
            pool3d_shape_check(sizes, k, s, p, dil, planes, sp, &outs, avg)?;
        }
        self.outs = outs;
        Ok(self)
    }

    /// The max-pooling windows of pooled dim `j` over `input` positions ([`max_wins`]).
    pub fn max_wins(&self, j: usize, input: usize) -> Result<Vec<Win>> {
        max_wins(
            input,
            self.outs[j] as usize,
            self.kernel[j],
            self.stride[j],
            self.padding[j],
            self.dilation[j],
        )
    }

    /// The average-pooling windows of pooled dim `j` over `input` positions ([`avg_wins`]).
    pub fn avg_wins(&self, j: usize, input: usize) -> Result<Vec<Win>> {
        avg_wins(
            input,
            self.outs[j] as usize,
            self.kernel[j],
            self.stride[j],
            self.padding[j],
        )
    }
}

fn words(d: usize) -> &'static str {
    if d == 2 { "two" } else { "three" }
}

/// `kernel_size` and `stride` (omitted or empty: the kernel size) of a `d`-dim pooling
/// `name`, expanded.
fn kernel_and_stride(
    name: &str,
    d: usize,
    kernel_size: &[i64],
    stride: Option<&[i64]>,
) -> Result<(Vec<i64>, Vec<i64>)> {
    let w = words(d);
    let ks = expand_param(
        kernel_size,
        d,
        &format!("{name}: kernel_size must either be a single int, or a tuple of {w} ints"),
    )?;
    let stride = match stride {
        Some(s) if !s.is_empty() => expand_param(
            s,
            d,
            &format!("{name}: stride must either be omitted, a single int, or a tuple of {w} ints"),
        )?,
        _ => ks.clone(),
    };
    Ok((ks, stride))
}

/// `max_pool2d_with_indices` / `max_pool3d_with_indices` (`d` = 2 or 3 pooled dims) on an
/// input of `sizes`, `cl` when it suggests channels-last: the arguments expanded, the input
/// rank checked, the output sizes computed and PyTorch's shape check run, in PyTorch's order.
///
/// Errors: `max_pool2d: kernel_size must either be a single int, or a tuple of two ints`
/// (likewise `stride must either be omitted, …`, `padding must either be …`, `dilation must
/// be either …`; `max_pool3d: … three ints`); `non-empty 4D (batch mode) tensor expected for
/// input with channels_last layout`; `non-empty 3D or 4D (batch mode) tensor expected for
/// input`; `Unsupported memory format. Supports only ChannelsLast3d, Contiguous`; `non-empty
/// 4D or 5D (batch mode) tensor expected for input`; those of [`pooling_output_shape`],
/// [`pool2d_shape_check`] and [`pool3d_shape_check`].
#[allow(clippy::too_many_arguments)]
pub fn max_pool_plan(
    sizes: &[usize],
    d: usize,
    kernel_size: &[i64],
    stride: Option<&[i64]>,
    padding: &[i64],
    dilation: &[i64],
    ceil_mode: bool,
    cl: bool,
) -> Result<PoolPlan> {
    let name = if d == 2 { "max_pool2d" } else { "max_pool3d" };
    let (ks, stride) = kernel_and_stride(name, d, kernel_size, stride)?;
    let w = words(d);
    let pad = expand_param(
        padding,
        d,
        &format!("{name}: padding must either be a single int, or a tuple of {w} ints"),
    )?;
    let dil = expand_param(
        dilation,
        d,
        &format!("{name}: dilation must be either a single int, or a tuple of {w} ints"),
    )?;
    let nd = sizes.len();
    if d == 2 {
        if cl && nd != 4 {
            return Err(Error::runtime(
                "non-empty 4D (batch mode) tensor expected for input with channels_last layout",
            ));
        }
        if !cl && nd != 3 && nd != 4 {
            return Err(Error::runtime(
                "non-empty 3D or 4D (batch mode) tensor expected for input",
            ));
        }
    } else if cl && nd == 4 {
        return Err(Error::runtime(
            "Unsupported memory format. Supports only ChannelsLast3d, Contiguous",
        ));
    } else if nd != 4 && nd != 5 {
        return Err(Error::runtime(
            "non-empty 4D or 5D (batch mode) tensor expected for input",
        ));
    }
    let plan = PoolPlan {
        kernel: ks,
        stride,
        padding: pad,
        dilation: dil,
        outs: Vec::new(),
    };
    plan.with_outputs(sizes, ceil_mode, cl, false)
}

/// `avg_pool2d` / `avg_pool3d` (`d` = 2 or 3 pooled dims) on an input of `sizes`, `cl` when
/// it suggests channels-last: as [`max_pool_plan`] with dilation 1, checking
/// `divisor_override` too.
///
/// Errors: `avg_pool2d: kernel_size must either be a single int, or a tuple of two ints`
/// (likewise `stride`, `padding`; `avg_pool3d: … three ints`); `non-empty 4D or 5D (batch
/// mode) tensor expected for input`; `Expected 3D or 4D (batch mode) tensor with optional 0
/// dim batch size for input, but got:[..]`; `divisor must be not zero`; those of
/// [`pooling_output_shape`], [`pool2d_shape_check`] and [`pool3d_shape_check`].
#[allow(clippy::too_many_arguments)]
pub fn avg_pool_plan(
    sizes: &[usize],
    d: usize,
    kernel_size: &[i64],
    stride: Option<&[i64]>,
    padding: &[i64],
    ceil_mode: bool,
    divisor_override: Option<i64>,
    cl: bool,
) -> Result<PoolPlan> {
    let name = if d == 2 { "avg_pool2d" } else { "avg_pool3d" };
    let (ks, stride) = kernel_and_stride(name, d, kernel_size, stride)?;
    let pad = expand_param(
        padding,
        d,
        &format!(
            "{name}: padding must either be a single int, or a tuple of {} ints",
            words(d)
        ),
    )?;
    let nd = sizes.len();
    if d == 3 && nd != 4 && nd != 5 {
        return Err(Error::runtime(
            "non-empty 4D or 5D (batch mode) tensor expected for input",
        ));
    }
    if d == 2 && nd != 3 && nd != 4 {
        return Err(Error::runtime(format!(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:{}",
            fmt_list(sizes)
        )));
    }
    if divisor_override == Some(0) {
        return Err(Error::runtime("divisor must be not zero"));
    }
    let plan = PoolPlan {
        kernel: ks,
        stride,
        padding: pad,
        dilation: vec![1; d],
        outs: Vec::new(),
    };
    plan.with_outputs(sizes, ceil_mode, cl, true)
}

/// `F.max_pool1d`'s checks on an input of `sizes` (2-d or 3-d) and the one-dim arguments as
/// given: returns `(kernel, stride, padding, dilation, output length)`.
///
/// Errors (RuntimeError), in PyTorch's order: `max_pool1d() Expected 2D or 3D input tensor,
/// but got [..]`; `max_pool1d() kernel_size must be an int, list of ints or tuple of ints of
/// size 1 but got size 2` (likewise `stride must be None, an int, …`, `padding must be an int,
/// …`, `dilation must be an int, …`); `max_pool1d() kernel_size must be greater than zero, but
/// got 0`; `max_pool1d() stride must be greater than zero, but got 0`; `max_pool1d() padding
/// must be non-negative, but got -1`; `max_pool1d() padding should be at most half of kernel
/// size, but got padding=2 and kernel_size=3`; `max_pool1d() dilation must be greater than
/// zero, but got 0`; those of [`pooling_output_shape`]; `max_pool1d() Invalid computed output
/// size: 0`.
pub fn max_pool1d_params(
    sizes: &[usize],
    kernel_size: &[i64],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    ceil_mode: bool,
) -> Result<(i64, i64, i64, i64, i64)> {
    let nd = sizes.len();
    if nd != 2 && nd != 3 {
        return Err(Error::runtime(format!(
            "max_pool1d() Expected 2D or 3D input tensor, but got {}",
            fmt_list(sizes)
        )));
    }
    if kernel_size.len() != 1 {
        return Err(Error::runtime(format!(
            "max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 but got size {}",
            kernel_size.len()
        )));
    }
    if stride.len() > 1 {
        return Err(Error::runtime(format!(
            "max_pool1d() stride must be None, an int, list of ints, or tuple of ints of size 1 but got size {}",
            stride.len()
        )));
    }
    if padding.len() != 1 {
        return Err(Error::runtime(format!(
            "max_pool1d() padding must be an int, list of ints, or tuple of ints of size 1 but got size {}",
            padding.len()
        )));
    }
    if dilation.len() != 1 {
        return Err(Error::runtime(format!(
            "max_pool1d() dilation must be an int, list of ints or tuple of ints of size 1 but got size {}",
            dilation.len()
        )));
    }
    let k = kernel_size[0];
    let s = if stride.is_empty() { k } else { stride[0] };
    let (p, dl) = (padding[0], dilation[0]);
    if k <= 0 {
        return Err(Error::runtime(format!(
            "max_pool1d() kernel_size must be greater than zero, but got {k}"
        )));
    }
    if s <= 0 {
        return Err(Error::runtime(format!(
            "max_pool1d() stride must be greater than zero, but got {s}"
        )));
    }
    if p < 0 {
        return Err(Error::runtime(format!(
            "max_pool1d() padding must be non-negative, but got {p}"
        )));
    }
    if p > k / 2 {
        return Err(Error::runtime(format!(
            "max_pool1d() padding should be at most half of kernel size, but got padding={p} and kernel_size={k}"
        )));
    }
    if dl <= 0 {
        return Err(Error::runtime(format!(
            "max_pool1d() dilation must be greater than zero, but got {dl}"
        )));
    }
    let l = sizes[nd - 1];
    let ow = pooling_output_shape(l as i64, k, p, s, dl, ceil_mode)?;
    if ow <= 0 {
        return Err(Error::runtime(format!(
            "max_pool1d() Invalid computed output size: {ow}"
        )));
    }
    Ok((k, s, p, dl, ow))
}

/// The adaptive output sizes for an input of `sizes`: `None` entries take the input's size
/// (of the last `os.len()` dims).
///
/// Error (ValueError), as Python's `_list_with_default`, which every list `output_size` (more
/// than one entry, or a `None`) goes through and a single int does not: the input has
/// `os.len()` dims or fewer, `Input dimension should be at least 3`.
pub fn adaptive_sizes(sizes: &[usize], os: &[Option<i64>]) -> Result<Vec<i64>> {
    let nd = sizes.len();
    let k = os.len();
    if (k > 1 || os.iter().any(Option::is_none)) && nd <= k {
        return Err(Error::value(format!(
            "Input dimension should be at least {}",
            k + 1
        )));
    }
    Ok(os
        .iter()
        .enumerate()
        .map(|(j, v)| v.unwrap_or_else(|| sizes[nd - k + j] as i64))
        .collect())
}

/// `F.adaptive_avg_pool2d`'s (`d = 2`) or `F.adaptive_avg_pool3d`'s (`d = 3`) output size for
/// an input of `sizes`: one entry for every dim, `None` entries from the input
/// ([`adaptive_sizes`], first, as Python resolves them), each non-negative.
///
/// Errors: ValueError `Input dimension should be at least 3`; RuntimeError
/// `adaptive_avg_pool2d: output_size must be 2`; RuntimeError `adaptive_avg_pool2d: elements
/// of output_size must be greater than or equal to 0 but received {1, -1}` (3-d: `… received
/// {2, -1,3}`, PyTorch's spacing).
pub fn adaptive_avg_pool_size(d: usize, sizes: &[usize], os: &[Option<i64>]) -> Result<Vec<i64>> {
    let name = if d == 2 {
        "adaptive_avg_pool2d"
    } else {
        "adaptive_avg_pool3d"
    };
    let os = adaptive_sizes(sizes, os)?;
    let os = match os.len() {
        1 => vec![os[0]; d],
        _ => os,
    };
    if os.len() != d {
        return Err(Error::runtime(format!("{name}: output_size must be {d}")));
    }
    if os.iter().any(|&v| v < 0) {
        let shown = if d == 2 {
            format!("{}, {}", os[0], os[1])
        } else {
            format!("{}, {},{}", os[0], os[1], os[2])
        };
        return Err(Error::runtime(format!(
            "{name}: elements of output_size must be greater than or equal to 0 but received {{{shown}}}"
        )));
    }
    Ok(os)
}

/// `F.adaptive_max_pool2d`'s (`d = 2`) or `F.adaptive_max_pool3d`'s (`d = 3`) checks and
/// output size for an input of `sizes`: one entry for every dim, `None` entries from the input
/// ([`adaptive_sizes`], first, as Python resolves them), each non-negative.
///
/// Errors (RuntimeError unless noted): ValueError `Input dimension should be at least 3`;
/// `adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: [..]` (3-d: `4D or 5D`);
/// `adaptive_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, but
/// input has sizes [..] with dimension 1 being empty`; `adaptive_max_pool2d(): internal
/// error: output_size.size() must be 2`; `Trying to create tensor with negative dimension -1:
/// [2, 3, -1, 1]`.
pub fn adaptive_max_pool_size(d: usize, sizes: &[usize], os: &[Option<i64>]) -> Result<Vec<i64>> {
    let name = if d == 2 {
        "adaptive_max_pool2d"
    } else {
        "adaptive_max_pool3d"
    };
    let os = adaptive_sizes(sizes, os)?;
    let os = match os.len() {
        1 => vec![os[0]; d],
        _ => os,
    };
    let nd = sizes.len();
    if nd != d + 1 && nd != d + 2 {
        return Err(Error::runtime(format!(
            "{name}(): Expected {}D or {}D tensor, but got: {}",
            d + 1,
            d + 2,
            fmt_list(sizes)
        )));
    }
    for (i, &n) in sizes.iter().enumerate().skip(1) {
        if n == 0 {
            return Err(Error::runtime(format!(
                "{name}(): Expected input to have non-zero size for non-batch dimensions, but input has sizes {} with dimension {i} being empty",
                fmt_list(sizes)
            )));
        }
    }
    if os.len() != d {
        return Err(Error::runtime(format!(
            "{name}(): internal error: output_size.size() must be {d}"
        )));
    }
    if let Some(&neg) = os.iter().find(|&&v| v < 0) {
        let mut s: Vec<i64> = sizes[..nd - d].iter().map(|&v| v as i64).collect();
        s.extend_from_slice(&os);
        return Err(Error::runtime(format!(
            "Trying to create tensor with negative dimension {neg}: {}",
            fmt_list(&s)
        )));
    }
    Ok(os)
}

/// `max_unpool{1,2}d`'s `kernel_size`, `stride` (omitted or empty: the kernel size) and
/// `padding`, expanded to `d` entries.
///
/// Errors: `max_unpool2d: bad kernel_size`, `max_unpool2d: bad stride`, `max_unpool2d: bad
/// padding` (`max_unpool1d: …` for `d = 1`).
pub fn unpool_params(
    d: usize,
    kernel_size: &[i64],
    stride: Option<&[i64]>,
    padding: &[i64],
) -> Result<(Vec<i64>, Vec<i64>, Vec<i64>)> {
    let name = format!("max_unpool{d}d");
    let k = expand_param(kernel_size, d, &format!("{name}: bad kernel_size"))?;
    let s = match stride {
        Some(s) if !s.is_empty() => expand_param(s, d, &format!("{name}: bad stride"))?,
        _ => k.clone(),
    };
    let p = expand_param(padding, d, &format!("{name}: bad padding"))?;
    Ok((k, s, p))
}

/// `_unpool_output_size` for an input of `sizes`: the default `(in − 1)·stride + k − 2·pad`
/// per dim, or the given `output_size` (its last `d` entries when it has `d + 2`), which must
/// lie strictly within `stride` of the default.
///
/// Errors: IndexError `tuple index out of range` when the input has fewer dims than the
/// kernel; ValueError `output_size should be a sequence containing 2 or 4 elements, but it
/// has a length of '3'`; ValueError `invalid output_size "[8, 5]" (dim 0 must be between 2
/// and 4)`; RuntimeError `Overflow when unpacking long` (a default size past int64).
pub fn unpool_output_size(
    sizes: &[usize],
    k: &[i64],
    s: &[i64],
    p: &[i64],
    output_size: Option<&[i64]>,
) -> Result<Vec<i64>> {
    let d = k.len();
    let nd = sizes.len();
    if nd < d {
        // Python's `input.size()[-len(kernel_size) + j]` on too few dims
        return Err(Error::index("tuple index out of range"));
    }
    // Python's exact integers, here i128; a default size past int64 fails where PyTorch
    // converts it for `max_unpool2d`
    let default: Vec<i128> = (0..d)
        .map(|j| (sizes[nd - d + j] as i128 - 1) * s[j] as i128 + k[j] as i128 - 2 * p[j] as i128)
        .collect();
    let Some(os) = output_size else {
        return default
            .into_iter()
            .map(|v| i64::try_from(v).map_err(|_| Error::runtime("Overflow when unpacking long")))
            .collect();
    };
    let os = if os.len() == d + 2 { &os[2..] } else { os };
    if os.len() != d {
        return Err(Error::value(format!(
            "output_size should be a sequence containing {d} or {} elements, but it has a length of '{}'",
            d + 2,
            os.len()
        )));
    }
    for j in 0..d {
        let (lo, hi) = (default[j] - s[j] as i128, default[j] + s[j] as i128);
        if !(lo < os[j] as i128 && (os[j] as i128) < hi) {
            return Err(Error::value(format!(
                "invalid output_size \"{}\" (dim {j} must be between {lo} and {hi})",
                fmt_list(os)
            )));
        }
    }
    Ok(os.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Found by the fuzzer: an unpooling input with fewer dims than the kernel indexed its
    /// size below 0 and panicked; PyTorch's Python indexing raises IndexError.
    #[test]
    fn unpooling_inputs_with_too_few_dims_are_index_errors() {
        for (shape, d) in [(&[][..], 1), (&[3][..], 2), (&[2, 3][..], 3)] {
            let e =
                unpool_output_size(shape, &vec![2; d], &vec![2; d], &vec![0; d], None).unwrap_err();
            assert_eq!(e.message(), "tuple index out of range");
            assert_eq!(e.kind(), crate::error::ErrorKind::IndexError);
        }
    }

    /// Checked against PyTorch 2.x (`torch.nn.functional`, the venv's torch).
    #[test]
    fn output_shape_rules() {
        // floor mode, ceil mode, and ceil mode's "last window starts inside" rule
        assert_eq!(pooling_output_shape(5, 2, 0, 2, 1, false).unwrap(), 2);
        assert_eq!(pooling_output_shape(5, 2, 0, 2, 1, true).unwrap(), 3);
        assert_eq!(pooling_output_shape(4, 2, 1, 2, 1, true).unwrap(), 3);
        assert_eq!(pooling_output_shape(1, 3, 1, 3, 1, true).unwrap(), 1);
        // F.max_pool1d(torch.zeros(1, 1, 10), 3, 2, 1, dilation=2, ceil_mode=True): 5
        assert_eq!(pooling_output_shape(10, 3, 1, 2, 2, true).unwrap(), 5);
        // F.max_pool1d(torch.zeros(1, 1, 7), 2, 3, 1, ceil_mode=True): 3
        assert_eq!(pooling_output_shape(7, 2, 1, 3, 1, true).unwrap(), 3);
        // F.avg_pool1d(torch.zeros(1, 1, 6), 4, 3, 2, ceil_mode=True): 3
        assert_eq!(pooling_output_shape(6, 4, 2, 3, 1, true).unwrap(), 3);
        // negative sizes floor toward minus infinity
        assert_eq!(pooling_output_shape(2, 3, 0, 2, 2, false).unwrap(), -1);
        assert_eq!(
            pooling_output_shape(3, 1, 2, 1, 1, false)
                .unwrap_err()
                .to_string(),
            "pad should be at most half of effective kernel size, but got pad=2, kernel_size=1 and dilation=1"
        );
        assert_eq!(
            pooling_output_shape(3, 1, 0, 0, 1, false)
                .unwrap_err()
                .to_string(),
            "stride should not be zero"
        );
    }

    #[test]
    fn window_rules() {
        // avg: window cut at size + pad, divisor counts the padded part
        let w = avg_wins(3, 2, 3, 2, 1).unwrap();
        assert_eq!((w[0].lo, w[0].hi, w[0].padded), (0, 2, 3));
        assert_eq!((w[1].lo, w[1].hi, w[1].padded), (1, 3, 3));
        // adaptive: [floor(o*in/out), ceil((o+1)*in/out))
        let w = adaptive_wins(5, 3).unwrap();
        let r: Vec<(usize, usize)> = w.iter().map(|w| (w.lo, w.hi)).collect();
        assert_eq!(r, vec![(0, 2), (1, 4), (3, 5)]);
        // max with dilation skips positions in the padding
        let w = max_wins(5, 3, 3, 2, 2, 2).unwrap();
        assert_eq!((w[0].lo, w[0].hi, w[0].step), (0, 3, 2));
        assert_eq!(Win::UNIT.len(), 1);
        assert!(max_wins(1, 1 << 62, 1, 1, 0, 1).is_err());
    }

    /// `F.max_pool2d(torch.zeros(1, 1, 5, 4), (3, 2), stride=(1, 2), padding=(1, 0),
    /// dilation=(2, 1), ceil_mode=True)` is `(1, 1, 3, 2)`; PyTorch's messages for the bad
    /// cases.
    #[test]
    fn plans_match_pytorch() {
        let p = max_pool_plan(
            &[1, 1, 5, 4],
            2,
            &[3, 2],
            Some(&[1, 2]),
            &[1, 0],
            &[2, 1],
            true,
            false,
        )
        .unwrap();
        assert_eq!(p.outs, vec![3, 2]);
        let e = max_pool_plan(&[1, 5, 4], 2, &[3, 2], None, &[2], &[1], false, false);
        assert_eq!(
            e.unwrap_err().message(),
            "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and dilation=1"
        );
        let e = max_pool_plan(&[1, 5, 4], 2, &[3, 2, 1], None, &[0], &[1], false, false);
        assert_eq!(
            e.unwrap_err().message(),
            "max_pool2d: kernel_size must either be a single int, or a tuple of two ints"
        );
        let e = max_pool_plan(&[1, 5, 1], 2, &[3, 2], None, &[0], &[1], false, false);
        assert_eq!(
            e.unwrap_err().message(),
            "Given input size: (1x5x1). Calculated output size: (1x1x0). Output size is too small"
        );
        // F.avg_pool3d(torch.zeros(1, 1, 3, 3, 3), 2, stride=2, ceil_mode=True): (1, 1, 2, 2, 2)
        let p = avg_pool_plan(
            &[1, 1, 3, 3, 3],
            3,
            &[2],
            Some(&[2]),
            &[0],
            true,
            None,
            false,
        );
        assert_eq!(p.unwrap().outs, vec![2, 2, 2]);
        let e = avg_pool_plan(&[1, 1, 3, 3], 2, &[2], None, &[0], false, Some(0), false);
        assert_eq!(e.unwrap_err().message(), "divisor must be not zero");
        assert_eq!(
            max_pool1d_params(&[1, 5], &[3], &[], &[2], &[1], false)
                .unwrap_err()
                .message(),
            "max_pool1d() padding should be at most half of kernel size, but got padding=2 and kernel_size=3"
        );
        assert_eq!(
            max_pool1d_params(&[1, 5], &[3], &[], &[1], &[1], true).unwrap(),
            (3, 3, 1, 1, 2)
        );
        // F.max_unpool2d(x of (1, 1, 2, 3), idx, 2): (1, 1, 4, 6)
        assert_eq!(
            unpool_output_size(&[1, 1, 2, 3], &[2, 2], &[2, 2], &[0, 0], None).unwrap(),
            vec![4, 6]
        );
        assert_eq!(
            unpool_output_size(&[1, 1, 2, 3], &[2, 2], &[2, 2], &[0, 0], Some(&[8, 5]))
                .unwrap_err()
                .message(),
            "invalid output_size \"[8, 5]\" (dim 0 must be between 2 and 6)"
        );
        assert_eq!(
            adaptive_max_pool_size(2, &[2, 3, 4], &[Some(-1), Some(1)])
                .unwrap_err()
                .message(),
            "Trying to create tensor with negative dimension -1: [2, -1, 1]"
        );
        assert_eq!(
            adaptive_avg_pool_size(2, &[2, 3], &[None, Some(2)])
                .unwrap_err()
                .message(),
            "Input dimension should be at least 3"
        );
        assert_eq!(
            unpool_params(1, &[2, 2], None, &[0]).unwrap_err().message(),
            "max_unpool1d: bad kernel_size"
        );
    }

    proptest! {
        /// Every output's window lies inside the input (its positions do); every window of a
        /// valid pooling is inside the padded input, and in ceil mode the last window starts
        /// inside the input or its left padding.
        #[test]
        fn windows_inside_the_padded_input(
            input in 1usize..40, k in 1i64..6, s in 1i64..5, dil in 1i64..4,
            p_frac in 0i64..4, ceil in any::<bool>(),
        ) {
            let eff = (k - 1) * dil + 1;
            let p = (eff / 2).min(p_frac);
            let out = pooling_output_shape(input as i64, k, p, s, dil, ceil).unwrap();
            if out < 1 { return Ok(()); }
            let wins = max_wins(input, out as usize, k, s, p, dil).unwrap();
            for (o, w) in wins.iter().enumerate() {
                let start = o as i64 * s - p;
                // the window's taps lie in [-p, input + p)
                prop_assert!(start >= -p);
                let slack = if ceil { s - 1 } else { 0 };
                prop_assert!(start + eff <= input as i64 + p + slack);
                prop_assert!((w.lo..w.hi).step_by(w.step).all(|t| t < input));
                // the taps are those of the window that fall inside the input
                let taps: Vec<i64> = (0..k).map(|j| start + j * dil).filter(|&t| t >= 0 && t < input as i64).collect();
                let got: Vec<i64> = (w.lo..w.hi).step_by(w.step).map(|t| t as i64).collect();
                prop_assert_eq!(got, taps);
            }
            let last = (out - 1) * s - p;
            prop_assert!(last < input as i64, "the last window starts inside the input or its left padding");
            let avg = avg_wins(input, out as usize, k, s, p).unwrap();
            for w in &avg {
                prop_assert!(w.hi <= input && w.padded as i64 <= k && w.len() <= w.padded);
            }
        }

        /// The output size counts the window starts `o·s − p` (o ≥ 0) whose window fits the
        /// padded input (floor mode); in ceil mode, those `⌈⌉`-rounding admits that start
        /// inside the input or its left padding (direct enumeration).
        #[test]
        fn output_size_matches_enumeration(
            input in 0i64..40, k in 1i64..6, s in 1i64..5, dil in 1i64..4,
            p_frac in 0i64..4, ceil in any::<bool>(),
        ) {
            let eff = (k - 1) * dil + 1;
            let p = (eff / 2).min(p_frac);
            prop_assume!(input + 2 * p >= eff);
            let out = pooling_output_shape(input, k, p, s, dil, ceil).unwrap();
            let want = (0..200i64)
                .filter(|o| if ceil {
                    o * s < input + 2 * p - eff + s && o * s - p < input
                } else {
                    o * s + eff <= input + 2 * p
                })
                .count() as i64;
            prop_assert_eq!(out, want);
        }

        /// Adaptive windows cover the input, in order, each non-empty when out <= in.
        #[test]
        fn adaptive_windows_cover(input in 1usize..50, out in 1usize..50) {
            let w = adaptive_wins(input, out).unwrap();
            prop_assert_eq!(w.len(), out);
            prop_assert_eq!(w[0].lo, 0);
            prop_assert_eq!(w[out - 1].hi, input);
            for pair in w.windows(2) {
                prop_assert!(pair[0].lo <= pair[1].lo && pair[1].lo <= pair[0].hi);
            }
            prop_assert!(w.iter().all(|x| x.hi <= input && !x.is_empty()));
        }
    }
}
