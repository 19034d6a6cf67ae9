//! Convolution geometry: the per-dim arguments of `F.conv*d` / `F.conv_transpose*d`
//! (expanded and checked), PyTorch's `check_shape_forward`, the output sizes of a convolution
//! and of a transposed one, `padding="same"`, the output padding that inverts a convolution
//! (its input gradient), and the sliding-block counts of `F.unfold` (im2col) and `F.fold`
//! (col2im), with PyTorch 2.15's error texts.
//!
//! Sizes are element counts, `x` `(N, C, *spatial)` and `w` `(O, C/groups, *kernel)` (a
//! transposed convolution's `w` is `(C, O/groups, *kernel)`). Size arithmetic runs in
//! `i128`, where sizes near 2^62 and paddings, strides or dilations near `i64::MAX` cannot
//! overflow; a result past int64 is an error.

use crate::error::{Error, Result, fmt_list};

/// `expand_param_if_needed`: one value for every spatial dim, or exactly `dim` values.
///
/// Error: `expected stride to be a single integer value or a list of 2 values to match the convolution dimensions, but got stride=[1, 1, 1]`.
pub fn expand_param(v: &[i64], name: &str, dim: usize) -> Result<Vec<i64>> {
    if v.len() == 1 {
        Ok(vec![v[0]; dim])
    } else if v.len() != dim {
        Err(Error::runtime(format!(
            "expected {name} to be a single integer value or a list of {dim} values to match the convolution dimensions, but got {name}={}",
            fmt_list(v)
        )))
    } else {
        Ok(v.to_vec())
    }
}

/// `_convolution`'s first checks on the weight's rank and the group count.
///
/// Errors: `weight should have at least three dimensions`; `non-positive groups is not supported`.
pub fn check_weight_and_groups(weight_dim: usize, groups: i64) -> Result<()> {
    if weight_dim <= 2 {
        return Err(Error::runtime(
            "weight should have at least three dimensions",
        ));
    }
    if groups <= 0 {
        return Err(Error::runtime("non-positive groups is not supported"));
    }
    Ok(())
}

/// The checked geometry of one convolution: per spatial dim, the stride, padding, dilation
/// and output padding (0 for a plain convolution).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvGeometry {
    pub stride: Vec<i64>,
    pub padding: Vec<i64>,
    pub dilation: Vec<i64>,
    pub output_padding: Vec<i64>,
    pub groups: i64,
    pub transposed: bool,
}

impl ConvGeometry {
    /// The arguments as given (one value or one per dim each) expanded to `dim` spatial dims,
    /// after [`check_weight_and_groups`] on a weight of `weight_dim` dims.
    ///
    /// Errors: those of [`check_weight_and_groups`]; those of [`expand_param`] for `stride`,
    /// `padding`, `dilation`, `output_padding`, in that order.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        weight_dim: usize,
        stride: &[i64],
        padding: &[i64],
        dilation: &[i64],
        output_padding: &[i64],
        groups: i64,
        transposed: bool,
    ) -> Result<ConvGeometry> {
        check_weight_and_groups(weight_dim, groups)?;
        let dim = weight_dim - 2;
        Ok(ConvGeometry {
            stride: expand_param(stride, "stride", dim)?,
            padding: expand_param(padding, "padding", dim)?,
            dilation: expand_param(dilation, "dilation", dim)?,
            output_padding: expand_param(output_padding, "output_padding", dim)?,
            groups,
            transposed,
        })
    }

    /// The same convolution as a 2-d one over `(1, L)`: how PyTorch runs a 1-d convolution
    /// (on `input.unsqueeze(2)`, `weight.unsqueeze(2)`).
    pub fn as_2d(&self) -> ConvGeometry {
        ConvGeometry {
            stride: vec![1, self.stride[0]],
            padding: vec![0, self.padding[0]],
            dilation: vec![1, self.dilation[0]],
            output_padding: vec![0, self.output_padding[0]],
            ..self.clone()
        }
    }
}

/// `check_shape_forward`, in PyTorch's order, for an input of sizes `x`, a weight of sizes
/// `w` and a bias of sizes `bias` (when given).
///
/// Errors: `negative padding is not supported`; `negative output_padding is not supported`;
/// `non-positive stride is not supported`; `dilation should be greater than zero`;
/// `Expected 4-dimensional input for 4-dimensional weight [2, 3, 2, 3], but got 3-dimensional input of size [1, 3, 2] instead`;
/// `Given groups=2, expected weight to be at least 2 at dimension 0, but got weight of size [1, 3, 2, 3] instead`;
/// `Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of size [[3, 3, 2, 3]] instead`;
/// `Given groups=1, weight of size [2, 3, 2, 3], expected input[1, 4, 2, 2] to have 3 channels, but got 4 channels instead`;
/// `Given weight of size [2, 3, 2, 3], expected bias to be 1-dimensional with 2 elements, but got bias of size [4] instead`;
/// `Calculated padded input size per channel: (2 x 2). Kernel size: (2 x 3). Kernel size can't be greater than actual input size`;
/// transposed: `Given transposed=1, weight of size [2, 3, 2, 3], expected input[1, 3, 2, 2] to have 2 channels, but got 3 channels instead`,
/// `Given transposed=1, weight of size [2, 3, 2, 3], expected bias to be 1-dimensional with 3 elements, but got bias of size [4] instead`.
#[allow(clippy::needless_range_loop)]
pub fn check_shape_forward(
    x: &[usize],
    w: &[usize],
    bias: Option<&[usize]>,
    g: &ConvGeometry,
) -> Result<()> {
    let k = x.len();
    if g.padding.iter().any(|&p| p < 0) {
        return Err(Error::runtime("negative padding is not supported"));
    }
    if g.output_padding.iter().any(|&p| p < 0) {
        return Err(Error::runtime("negative output_padding is not supported"));
    }
    if g.stride.iter().any(|&s| s <= 0) {
        return Err(Error::runtime("non-positive stride is not supported"));
    }
    if g.dilation.iter().any(|&d| d < 0) {
        return Err(Error::runtime("dilation should be greater than zero"));
    }
    let ws = fmt_list(w);
    if w.len() != k {
        return Err(Error::runtime(format!(
            "Expected {}-dimensional input for {}-dimensional weight {ws}, but got {k}-dimensional input of size {} instead",
            w.len(),
            w.len(),
            fmt_list(x)
        )));
    }
    let groups = g.groups;
    if (w[0] as i64) < groups {
        return Err(Error::runtime(format!(
            "Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got weight of size {ws} instead"
        )));
    }
    if w[0] as i64 % groups != 0 {
        return Err(Error::runtime(format!(
            "Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got weight of size [{ws}] instead"
        )));
    }
    let bias_bad = |n: i128| bias.is_some_and(|b| b.len() != 1 || b[0] as i128 != n);
    let bias_size = || fmt_list(bias.unwrap_or(&[]));
    // in i128, where sizes near 2^62 (an expanded or empty weight) and paddings near
    // i64::MAX cannot overflow; the output sizes are checked against int64 afterwards
    let groups128 = groups as i128;
    if !g.transposed {
        let want = w[1] as i128 * groups128;
        if x[1] as i128 != want {
            return Err(Error::runtime(format!(
                "Given groups={groups}, weight of size {ws}, expected input{} to have {want} channels, but got {} channels instead",
                fmt_list(x),
                x[1]
            )));
        }
        if bias_bad(w[0] as i128) {
            return Err(Error::runtime(format!(
                "Given weight of size {ws}, expected bias to be 1-dimensional with {} elements, but got bias of size {} instead",
                w[0],
                bias_size()
            )));
        }
        let mut ok = true;
        let mut ins = vec![];
        let mut ks = vec![];
        for i in 2..k {
            let a = x[i] as i128 + 2 * g.padding[i - 2] as i128;
            let b = g.dilation[i - 2] as i128 * (w[i] as i128 - 1) + 1;
            ok &= a >= b;
            ins.push(a.to_string());
            ks.push(b.to_string());
        }
        if !ok {
            return Err(Error::runtime(format!(
                "Calculated padded input size per channel: ({}). Kernel size: ({}). Kernel size can't be greater than actual input size",
                ins.join(" x "),
                ks.join(" x ")
            )));
        }
    } else {
        if x[1] != w[0] {
            return Err(Error::runtime(format!(
                "Given transposed=1, weight of size {ws}, expected input{} to have {} channels, but got {} channels instead",
                fmt_list(x),
                w[0],
                x[1]
            )));
        }
        let want = w[1] as i128 * groups128;
        if bias_bad(want) {
            return Err(Error::runtime(format!(
                "Given transposed=1, weight of size {ws}, expected bias to be 1-dimensional with {want} elements, but got bias of size {} instead",
                bias_size()
            )));
        }
    }
    Ok(())
}

/// The output sizes `(N, O, *spatial)` of the convolution `g` of an input of sizes `x` with a
/// weight of sizes `w` (checked by [`check_shape_forward`]): per spatial dim
/// `(n + 2·padding − dilation·(k−1) − 1) / stride + 1`, or for a transposed convolution
/// `(n−1)·stride − 2·padding + dilation·(k−1) + output_padding + 1` (which may be 0 or less:
/// see [`check_transposed_output`]).
///
/// Error: `convolution: the calculated output size (…) overflows int64`.
pub fn output_sizes(x: &[usize], w: &[usize], g: &ConvGeometry) -> Result<Vec<i64>> {
    let dim = w.len() - 2;
    // in i128 (PyTorch's int64 arithmetic wraps for sizes near 2^62 and paddings, strides or
    // dilations near i64::MAX); a size past int64 is refused
    let mut out128 = vec![
        x[0] as i128,
        if g.transposed {
            w[1] as i128 * g.groups as i128
        } else {
            w[0] as i128
        },
    ];
    for i in 0..dim {
        let (n, kk) = (x[i + 2] as i128, w[i + 2] as i128);
        let (s, pd, d) = (
            g.stride[i] as i128,
            g.padding[i] as i128,
            g.dilation[i] as i128,
        );
        out128.push(if g.transposed {
            (n - 1) * s - 2 * pd + d * (kk - 1) + 1 + g.output_padding[i] as i128
        } else {
            (n + 2 * pd - d * (kk - 1) - 1) / s + 1
        });
    }
    out128
        .iter()
        .map(|&v| i64::try_from(v))
        .collect::<std::result::Result<Vec<i64>, _>>()
        .map_err(|_| {
            let shown: Vec<String> = out128.iter().map(|v| v.to_string()).collect();
            Error::runtime(format!(
                "convolution: the calculated output size ({}) overflows int64",
                shown.join(", ")
            ))
        })
}

/// A transposed convolution's check that each output padding is below its stride or its
/// dilation (`nsp` = 2 or 3 spatial dims, naming them `height, width` or `depth, height,
/// width`).
///
/// Error: `output padding must be smaller than either stride or dilation, but got output_padding_height: 2 output_padding_width: 1 stride_height: 2 stride_width: 1 dilation_height: 1 dilation_width: 1`.
pub fn check_output_padding(g: &ConvGeometry, nsp: usize) -> Result<()> {
    let ok = g
        .output_padding
        .iter()
        .zip(g.stride.iter().zip(&g.dilation))
        .all(|(&o, (&s, &d))| o < s || o < d);
    if ok {
        return Ok(());
    }
    let names: &[&str] = if nsp == 2 {
        &["height", "width"]
    } else {
        &["depth", "height", "width"]
    };
    let mut msg =
        String::from("output padding must be smaller than either stride or dilation, but got");
    for (label, v) in [
        ("output_padding", &g.output_padding),
        ("stride", &g.stride),
        ("dilation", &g.dilation),
    ] {
        for (nm, x) in names.iter().zip(v.iter()) {
            msg.push_str(&format!(" {label}_{nm}: {x}"));
        }
    }
    Err(Error::runtime(msg))
}

/// A transposed convolution's output sizes `out_sp` (spatial) must be at least `least` (0 for
/// PyTorch's oneDNN path, 1 for its slow kernels); `in_sp` are the input's.
///
/// Error: `Given input size per channel: (1 x 2). Calculated output size per channel: (1 x 0). Output size is too small`.
pub fn check_transposed_output(in_sp: &[usize], out_sp: &[i64], least: i64) -> Result<()> {
    if out_sp.iter().any(|&o| o < least) {
        let ins: Vec<String> = in_sp.iter().map(|v| v.to_string()).collect();
        let outs: Vec<String> = out_sp.iter().map(|v| v.to_string()).collect();
        return Err(Error::runtime(format!(
            "Given input size per channel: ({}). Calculated output size per channel: ({}). Output size is too small",
            ins.join(" x "),
            outs.join(" x ")
        )));
    }
    Ok(())
}

/// `padding="same"`: the padding each spatial dim gets on the left (`dilation·(k−1)/2`), and
/// when some total is odd the extra `F.pad` list (last dim first, right side only) that adds
/// the odd element after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SamePadding {
    pub left: Vec<i64>,
    /// `None` when every total is even (the padding is symmetric).
    pub extra: Option<Vec<i64>>,
}

/// `at::_convolution_same`'s checks and padding for an input of sizes `x`, a weight of sizes
/// `w`, `stride` and `dilation` as given (one value or one per dim), and `groups`.
///
/// Errors: `weight should have at least three dimensions`; `non-positive groups is not supported`;
/// `Expected 4-dimensional input for 4-dimensional weight[2, 3, 2, 3], but got 3-dimensional input of size [1, 3, 2] instead`;
/// `stride cannot broadcast to 2 dimensions`; `dilation cannot broadcast to 2 dimensions`;
/// `padding='same' is not supported for strided convolutions`;
/// `padding='same': the total padding dilation * (kernel_size - 1) overflows int64 (dilation=…, kernel_size=…)`.
pub fn same_padding(
    x: &[usize],
    w: &[usize],
    stride: &[i64],
    dilation: &[i64],
    groups: i64,
) -> Result<SamePadding> {
    let k = w.len();
    check_weight_and_groups(k, groups)?;
    let dim = k - 2;
    if k != x.len() {
        return Err(Error::runtime(format!(
            "Expected {k}-dimensional input for {k}-dimensional weight{}, but got {}-dimensional input of size {} instead",
            fmt_list(w),
            x.len(),
            fmt_list(x)
        )));
    }
    if stride.len() != dim && stride.len() != 1 {
        return Err(Error::runtime(format!(
            "stride cannot broadcast to {dim} dimensions"
        )));
    }
    if dilation.len() != dim && dilation.len() != 1 {
        return Err(Error::runtime(format!(
            "dilation cannot broadcast to {dim} dimensions"
        )));
    }
    if stride.iter().any(|&s| s != 1) {
        return Err(Error::runtime(
            "padding='same' is not supported for strided convolutions",
        ));
    }
    let mut left = Vec::with_capacity(dim);
    let mut pad_nd = vec![0i64; 2 * dim];
    let mut symmetric = true;
    for i in 0..dim {
        let d = if dilation.len() == 1 {
            dilation[0]
        } else {
            dilation[i]
        };
        let total = d.checked_mul(w[i + 2] as i64 - 1).ok_or_else(|| {
            Error::runtime(format!(
                "padding='same': the total padding dilation * (kernel_size - 1) overflows int64 (dilation={d}, kernel_size={})",
                w[i + 2]
            ))
        })?;
        let (l, r) = (total / 2, total - total / 2);
        left.push(l);
        if l != r {
            symmetric = false;
            let idx = 2 * (dim - 1 - i);
            pad_nd[idx + 1] = r - l;
        }
    }
    Ok(SamePadding {
        left,
        extra: (!symmetric).then_some(pad_nd),
    })
}

/// The output padding of the transposed convolution that takes the gradient of the output
/// of `conv(x, w)` (`g_sp` its spatial sizes) back to the input's spatial sizes `x_sp`:
/// `n + 2·padding − dilation·(k−1) − 1 − stride·(o−1)` per dim (`w_sp` the kernel's sizes),
/// computed in `i128` (the paddings of a valid convolution may be near `i64::MAX`; the result
/// lies in `[0, stride)`).
pub fn input_grad_output_padding(
    x_sp: &[usize],
    w_sp: &[usize],
    g_sp: &[usize],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
) -> Vec<i64> {
    (0..x_sp.len())
        .map(|i| {
            let (n, k, o) = (x_sp[i] as i128, w_sp[i] as i128, g_sp[i] as i128);
            let (s, p, d) = (stride[i] as i128, padding[i] as i128, dilation[i] as i128);
            (n + 2 * p - d * (k - 1) - 1 - s * (o - 1)) as i64
        })
        .collect()
}

// ------------------------------------------------------------------ unfold / fold

/// `_pair`: one int for both dims, or the list itself.
///
/// Error: `It is expected kernel_size equals to 2, but got size 3` (`name` in place of
/// `kernel_size`).
pub fn pair(v: &[i64], name: &str) -> Result<[i64; 2]> {
    match v.len() {
        1 => Ok([v[0], v[0]]),
        2 => Ok([v[0], v[1]]),
        n => Err(Error::runtime(format!(
            "It is expected {name} equals to 2, but got size {n}"
        ))),
    }
}

/// The window of `F.unfold` / `F.fold`: kernel size, dilation, padding, stride, each
/// `[height, width]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window2 {
    pub k: [i64; 2],
    pub d: [i64; 2],
    pub p: [i64; 2],
    pub s: [i64; 2],
}

impl Window2 {
    /// The four lists as given (one int for both dims, or two), paired in this order.
    ///
    /// Error: `It is expected kernel_size equals to 2, but got size 3` (likewise `dilation`,
    /// `padding`, `stride`).
    pub fn new(
        kernel_size: &[i64],
        dilation: &[i64],
        padding: &[i64],
        stride: &[i64],
    ) -> Result<Window2> {
        Ok(Window2 {
            k: pair(kernel_size, "kernel_size")?,
            d: pair(dilation, "dilation")?,
            p: pair(padding, "padding")?,
            s: pair(stride, "stride")?,
        })
    }

    /// `im2col`'s (`fold = false`) or `col2im`'s (`fold = true`) argument checks, in their
    /// order (kernel, then dilation, padding, stride for `im2col`; kernel, stride, dilation,
    /// padding for `col2im`).
    ///
    /// Errors: `kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 1`;
    /// `dilation should be greater than zero, but got dilation_height: 0 dilation_width: 1`;
    /// `padding should be non-negative, but got pad_height: -1 pad_width: 0`;
    /// `stride should be greater than zero, but got stride_height: 0 stride_width: 1`.
    pub fn check(&self, fold: bool) -> Result<()> {
        let (k, d, p, s) = (self.k, self.d, self.p, self.s);
        let kcheck = || {
            if k[0] <= 0 || k[1] <= 0 {
                return Err(Error::runtime(format!(
                    "kernel size should be greater than zero, but got kernel_height: {} kernel_width: {}",
                    k[0], k[1]
                )));
            }
            Ok(())
        };
        let dcheck = || {
            if d[0] <= 0 || d[1] <= 0 {
                return Err(Error::runtime(format!(
                    "dilation should be greater than zero, but got dilation_height: {} dilation_width: {}",
                    d[0], d[1]
                )));
            }
            Ok(())
        };
        let pcheck = || {
            if p[0] < 0 || p[1] < 0 {
                return Err(Error::runtime(format!(
                    "padding should be non-negative, but got pad_height: {} pad_width: {}",
                    p[0], p[1]
                )));
            }
            Ok(())
        };
        let scheck = || {
            if s[0] <= 0 || s[1] <= 0 {
                return Err(Error::runtime(format!(
                    "stride should be greater than zero, but got stride_height: {} stride_width: {}",
                    s[0], s[1]
                )));
            }
            Ok(())
        };
        kcheck()?;
        if fold {
            scheck()?;
            dcheck()?;
            pcheck()?;
        } else {
            dcheck()?;
            pcheck()?;
            scheck()?;
        }
        Ok(())
    }

    /// The sliding blocks `(bH, bW)` over an image of `(h, w)` positions ([`blocks`]).
    pub fn blocks(&self, h: i64, w: i64) -> (i128, i128) {
        (
            blocks(h, self.k[0], self.d[0], self.p[0], self.s[0]),
            blocks(w, self.k[1], self.d[1], self.p[1], self.s[1]),
        )
    }
}

/// `div_rtn(a, b) + 1`: the number of sliding blocks along one dim of `n` positions
/// (`(n + 2·p − (d·(k−1) + 1)) / s + 1`, floor division), in `i128`: PyTorch's int64
/// expression overflows for paddings or dilations near `i64::MAX`. A stride of 0 (refused
/// by [`Window2::check`] first) counts no block.
pub fn blocks(n: i64, k: i64, d: i64, p: i64, s: i64) -> i128 {
    let (n, k, d, p, s) = (n as i128, k as i128, d as i128, p as i128, s as i128);
    (n + 2 * p - (d * (k - 1) + 1))
        .checked_div_euclid(s)
        .map_or(0, |b| b + 1)
}

/// The product of `i128` factors as a tensor size.
///
/// Error: `{op}: the calculated {what} overflows int64`.
pub fn fit_size(factors: &[i128], op: &str, what: &str) -> Result<usize> {
    factors
        .iter()
        .try_fold(1i128, |a, &f| a.checked_mul(f))
        .and_then(|v| i64::try_from(v).ok())
        .map(|v| v as usize)
        .ok_or_else(|| Error::runtime(format!("{op}: the calculated {what} overflows int64")))
}

/// `F.unfold` (`im2col`)'s checks on an input of `sizes` (`(C, H, W)` or `(N, C, H, W)`) with
/// window `win` (its own checks first): returns the sliding blocks `(bH, bW)`, each at least 1.
///
/// Errors: those of [`Window2::check`]; `Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: [1, 2, 1, 4, 3]`;
/// `Given input with spatial size (3, 2), kernel_size=(3, 2), dilation=(2, 2), padding=(0, 0), calculated shape of the array of sliding blocks as (0, 0), but its components must be at least one.`
pub fn unfold_blocks(sizes: &[usize], win: &Window2) -> Result<(i128, i128)> {
    win.check(false)?;
    let sz = sizes;
    let nd = sz.len();
    let valid = nd >= 3 && sz[1] != 0 && sz[2] != 0;
    if !((nd == 3 && sz[0] != 0 && valid) || (nd == 4 && valid && sz[3] != 0)) {
        return Err(Error::runtime(format!(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: {}",
            fmt_list(sz)
        )));
    }
    let (h, w) = (sz[nd - 2] as i64, sz[nd - 1] as i64);
    let (bh, bw) = win.blocks(h, w);
    let (k, d, p) = (win.k, win.d, win.p);
    if bh < 1 || bw < 1 {
        return Err(Error::runtime(format!(
            "Given input with spatial size ({h}, {w}), kernel_size=({}, {}), dilation=({}, {}), padding=({}, {}), calculated shape of the array of sliding blocks as ({bh}, {bw}), but its components must be at least one.",
            k[0], k[1], d[0], d[1], p[0], p[1]
        )));
    }
    Ok((bh, bw))
}

/// `F.unfold`'s output sizes `(C·kH·kW, bH·bW)` for `c` channels (an empty batch leaves both
/// unbounded by any allocation).
///
/// Errors: `unfold: the calculated number of output rows C·kH·kW overflows int64`;
/// `unfold: the calculated number of sliding blocks bH·bW overflows int64`.
pub fn unfold_output(c: usize, win: &Window2, bh: i128, bw: i128) -> Result<(usize, usize)> {
    let ckk = fit_size(
        &[c as i128, win.k[0] as i128, win.k[1] as i128],
        "unfold",
        "number of output rows C·kH·kW",
    )?;
    let l = fit_size(&[bh, bw], "unfold", "number of sliding blocks bH·bW")?;
    Ok((ckk, l))
}

/// `F.fold` (`col2im`)'s checks on an input of `sizes` (`(C·kH·kW, L)` or `(N, C·kH·kW, L)`)
/// folded into an image of `output_size` `(H, W)` with window `win` (its own checks first):
/// returns the channels `C` and the sliding blocks `(bH, bW)`.
///
/// Errors: those of [`Window2::check`]; `Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: [2, 0]`;
/// `Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)=10 and kernel_size=(3, 1).`;
/// `Given output_size=(1, 4), kernel_size=(2, 2), dilation=(1, 1), padding=(1, 1), stride=(2, 1), expected size of input's dimension 2 to match the calculated number of sliding blocks 1 * 5 = 5, but got input.size(2)=6.`;
/// `Given output_size=(…), …, calculated shape of the array of sliding blocks as (0, 1), which is invalid.`
pub fn fold_blocks(
    sizes: &[usize],
    output_size: [i64; 2],
    win: &Window2,
) -> Result<(usize, i128, i128)> {
    win.check(true)?;
    let sz = sizes;
    let nd = sz.len();
    if !((nd == 2 && sz[0] != 0 && sz[1] != 0) || (nd == 3 && sz[1] != 0 && sz[2] != 0)) {
        return Err(Error::runtime(format!(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: {}",
            fmt_list(sz)
        )));
    }
    let (ck, l) = (sz[nd - 2] as i64, sz[nd - 1] as i64);
    let (os, k, d, p, s) = (output_size, win.k, win.d, win.p, win.s);
    // kH·kW and bH·bW in i128: kernel sizes near 2^62 (whose product passes int64) are
    // refused by the divisibility check, not an overflow
    let kk = k[0] as i128 * k[1] as i128;
    if ck as i128 % kk != 0 {
        return Err(Error::runtime(format!(
            "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)={ck} and kernel_size=({}, {}).",
            k[0], k[1]
        )));
    }
    let (bh, bw) = win.blocks(os[0], os[1]);
    let head = format!(
        "Given output_size=({}, {}), kernel_size=({}, {}), dilation=({}, {}), padding=({}, {}), stride=({}, {}),",
        os[0], os[1], k[0], k[1], d[0], d[1], p[0], p[1], s[0], s[1]
    );
    let nblocks = bh.checked_mul(bw);
    if nblocks != Some(l as i128) {
        return Err(Error::runtime(format!(
            "{head} expected size of input's dimension 2 to match the calculated number of sliding blocks {bh} * {bw} = {}, but got input.size(2)={l}.",
            nblocks.map_or("(overflow)".to_string(), |v| v.to_string())
        )));
    }
    if bh < 1 || bw < 1 {
        return Err(Error::runtime(format!(
            "{head} calculated shape of the array of sliding blocks as ({bh}, {bw}), which is invalid."
        )));
    }
    Ok(((ck as i128 / kk) as usize, bh, bw))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn geo(
        stride: &[i64],
        padding: &[i64],
        dilation: &[i64],
        op: &[i64],
        g: i64,
        t: bool,
        wd: usize,
    ) -> ConvGeometry {
        ConvGeometry::new(wd, stride, padding, dilation, op, g, t).unwrap()
    }

    /// Checked against PyTorch (`F.conv2d`, `F.conv_transpose2d`, `F.conv3d` output shapes).
    #[test]
    fn output_sizes_match_pytorch() {
        // F.conv2d(zeros(2, 4, 9, 7), zeros(6, 2, 3, 2), stride=(2, 1), padding=(1, 2),
        // dilation=(2, 3), groups=2).shape == (2, 6, 4, 8)
        let g = geo(&[2, 1], &[1, 2], &[2, 3], &[0], 2, false, 4);
        check_shape_forward(&[2, 4, 9, 7], &[6, 2, 3, 2], None, &g).unwrap();
        assert_eq!(
            output_sizes(&[2, 4, 9, 7], &[6, 2, 3, 2], &g).unwrap(),
            vec![2, 6, 4, 8]
        );
        // F.conv_transpose2d(zeros(1, 4, 3, 5), zeros(4, 3, 3, 2), stride=(2, 3), padding=(1, 0),
        // output_padding=(1, 2), groups=2, dilation=(1, 2)).shape == (1, 6, 6, 17)
        let g = geo(&[2, 3], &[1, 0], &[1, 2], &[1, 2], 2, true, 4);
        check_shape_forward(&[1, 4, 3, 5], &[4, 3, 3, 2], None, &g).unwrap();
        assert_eq!(
            output_sizes(&[1, 4, 3, 5], &[4, 3, 3, 2], &g).unwrap(),
            vec![1, 6, 6, 17]
        );
        check_output_padding(&g, 2).unwrap();
        // F.conv3d(zeros(1, 1, 5, 6, 7), zeros(2, 1, 2, 3, 4), stride=2).shape == (1, 2, 2, 2, 2)
        let g = geo(&[2], &[0], &[1], &[0], 1, false, 5);
        assert_eq!(
            output_sizes(&[1, 1, 5, 6, 7], &[2, 1, 2, 3, 4], &g).unwrap(),
            vec![1, 2, 2, 2, 2]
        );
    }

    #[test]
    fn errors_match_pytorch() {
        let g = geo(&[1], &[0], &[1], &[0], 1, false, 4);
        assert_eq!(
            check_shape_forward(&[1, 4, 2, 2], &[2, 3, 2, 3], None, &g)
                .unwrap_err()
                .message(),
            "Given groups=1, weight of size [2, 3, 2, 3], expected input[1, 4, 2, 2] to have 3 channels, but got 4 channels instead"
        );
        assert_eq!(
            check_shape_forward(&[1, 3, 2, 2], &[2, 3, 2, 3], Some(&[4]), &g)
                .unwrap_err()
                .message(),
            "Given weight of size [2, 3, 2, 3], expected bias to be 1-dimensional with 2 elements, but got bias of size [4] instead"
        );
        assert_eq!(
            check_shape_forward(&[1, 3, 2, 2], &[2, 3, 2, 3], None, &g)
                .unwrap_err()
                .message(),
            "Calculated padded input size per channel: (2 x 2). Kernel size: (2 x 3). Kernel size can't be greater than actual input size"
        );
        assert_eq!(
            ConvGeometry::new(4, &[1, 1, 1], &[0], &[1], &[0], 1, false)
                .unwrap_err()
                .message(),
            "expected stride to be a single integer value or a list of 2 values to match the convolution dimensions, but got stride=[1, 1, 1]"
        );
        assert_eq!(
            ConvGeometry::new(2, &[1], &[0], &[1], &[0], 1, false)
                .unwrap_err()
                .message(),
            "weight should have at least three dimensions"
        );
        let g = geo(&[2, 1], &[0], &[1], &[2, 1], 1, true, 4);
        assert_eq!(
            check_output_padding(&g, 2).unwrap_err().message(),
            "output padding must be smaller than either stride or dilation, but got output_padding_height: 2 output_padding_width: 1 stride_height: 2 stride_width: 1 dilation_height: 1 dilation_width: 1"
        );
        assert_eq!(
            check_transposed_output(&[1, 2], &[1, 0], 1)
                .unwrap_err()
                .message(),
            "Given input size per channel: (1 x 2). Calculated output size per channel: (1 x 0). Output size is too small"
        );
        assert!(
            output_sizes(
                &[1, 1, 4, 4],
                &[1, 1, 1, 1],
                &geo(&[1], &[1 << 62], &[1], &[0], 1, false, 4)
            )
            .unwrap_err()
            .message()
            .contains("overflows int64")
        );
    }

    /// `F.conv2d(x, w, padding="same", dilation=(1, 2))` with a `(3, 4)` kernel: left padding
    /// `(1, 3)`; with a `(2, 4)` kernel the odd totals 1 and 3 get their extra element after.
    #[test]
    fn same_padding_rule() {
        let s = same_padding(&[1, 1, 5, 5], &[1, 1, 3, 4], &[1], &[1, 2], 1).unwrap();
        assert_eq!(s.left, vec![1, 3]);
        assert_eq!(s.extra, None);
        let s = same_padding(&[1, 1, 5, 5], &[1, 1, 2, 4], &[1], &[1], 1).unwrap();
        // totals 1 and 3: one more after each (`F.pad` list: last dim first)
        assert_eq!(s.left, vec![0, 1]);
        assert_eq!(s.extra, Some(vec![0, 1, 0, 1]));
        assert_eq!(
            same_padding(&[1, 1, 5, 5], &[1, 1, 2, 4], &[2], &[1], 1)
                .unwrap_err()
                .message(),
            "padding='same' is not supported for strided convolutions"
        );
    }

    /// `F.unfold(zeros(2, 3, 5, 6), (2, 3), dilation=(2, 1), padding=(1, 0), stride=(1, 2))`
    /// is `(2, 18, 10)`; `F.fold` of it back to `(5, 6)` is `(2, 3, 5, 6)`.
    #[test]
    fn fold_unfold_blocks_match_pytorch() {
        let win = Window2::new(&[2, 3], &[2, 1], &[1, 0], &[1, 2]).unwrap();
        let (bh, bw) = unfold_blocks(&[2, 3, 5, 6], &win).unwrap();
        assert_eq!((bh, bw), (5, 2));
        assert_eq!(unfold_output(3, &win, bh, bw).unwrap(), (18, 10));
        assert_eq!(fold_blocks(&[2, 18, 10], [5, 6], &win).unwrap(), (3, 5, 2));
        assert_eq!(
            fold_blocks(&[2, 18, 11], [5, 6], &win)
                .unwrap_err()
                .message(),
            "Given output_size=(5, 6), kernel_size=(2, 3), dilation=(2, 1), padding=(1, 0), stride=(1, 2), expected size of input's dimension 2 to match the calculated number of sliding blocks 5 * 2 = 10, but got input.size(2)=11."
        );
        assert_eq!(
            Window2::new(&[1, 2, 3], &[1], &[0], &[1])
                .unwrap_err()
                .message(),
            "It is expected kernel_size equals to 2, but got size 3"
        );
        let e = unfold_output(
            1,
            &Window2::new(&[1], &[1], &[0], &[1]).unwrap(),
            1 << 62,
            4,
        );
        assert!(e.unwrap_err().message().contains("bH·bW"));
    }

    proptest! {
        /// The output size of a convolution is the number of window starts `o·stride` whose
        /// dilated window fits the padded input (direct enumeration); the transposed output
        /// size inverts it: convolving the transposed output gives back the input size, and
        /// the output padding of the input gradient lies in `[0, stride)`.
        #[test]
        fn conv_size_formula_matches_enumeration(
            n in 1usize..30, k in 1usize..6, s in 1i64..5, d in 1i64..4, p in 0i64..4,
        ) {
            let g = ConvGeometry::new(3, &[s], &[p], &[d], &[0], 1, false).unwrap();
            let (x, w) = ([1usize, 1, n], [1usize, 1, k]);
            let fits = n as i64 + 2 * p > d * (k as i64 - 1);
            prop_assert_eq!(check_shape_forward(&x, &w, None, &g).is_ok(), fits);
            prop_assume!(fits);
            let o = output_sizes(&x, &w, &g).unwrap()[2];
            let want = (0..200i64)
                .filter(|&o| o * s + d * (k as i64 - 1) < n as i64 + 2 * p)
                .count() as i64;
            prop_assert_eq!(o, want);
            // the input gradient's output padding gives back n exactly
            let op = input_grad_output_padding(&[n], &[k], &[o as usize], &[s], &[p], &[d]);
            prop_assert!(op[0] >= 0 && op[0] < s);
            let t = ConvGeometry::new(3, &[s], &[p], &[d], &op, 1, true).unwrap();
            let back = output_sizes(&[1, 1, o as usize], &[1, 1, k], &t).unwrap()[2];
            prop_assert_eq!(back, n as i64);
            // unfold's block count is the same formula
            prop_assert_eq!(blocks(n as i64, k as i64, d, p, s), o as i128);
        }
    }
}
