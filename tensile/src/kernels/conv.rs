//! Convolution kernels: im2col / col2im over `(C, D, H, W)` images, convolutions lowered onto
//! the `gemm` crate, and a direct loop for depthwise convolutions.
//!
//! Every image is seen as 3-d (1-d and 2-d problems have leading size-1 spatial dims).
//! Layouts, all dense: NCHW images are `(C, D, H, W)` row-major; NHWC (channels-last) images
//! are `(D, H, W, C)` row-major. A [`Window`] relates image positions to block (output)
//! positions: block `b` tap `k` reads image position `b*stride - pad + k*dil`.
//!
//! * forward convolution, NCHW: per image and group, `col[(c,k), b]` by im2col, then
//!   `y_g (Og×P) = W_g (Og×Cg·K) · col` (a 1×1 unit-stride unpadded convolution needs no col:
//!   it is `W_g · x_g`); depthwise groups (one input channel) run a direct row-axpy loop.
//! * forward convolution, NHWC: `col[b, (k,c)]`, then `y (P×Og, row stride O) = col · W_gᵀ`,
//!   which writes channels-last output in place (1×1: `x · W_gᵀ`, no col).
//! * transposed convolution: `col (Og·K×P_in) = W_gᵀ · x_g`, then col2im adds it into `y`.
//!
//! Work is split over images on the intra-op pool ([`crate::kernels::par`]) when there are
//! enough of them, otherwise each product splits itself. Scratch (the col buffer) is a
//! per-thread vector reused across calls.

use super::mm::{MmElem, mm};
use super::par;
use rayon::prelude::*;
use std::cell::RefCell;

/// The sliding-window relation of im2col/col2im; spatial dims padded to 3 with leading 1s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Window {
    /// Image sizes (D, H, W).
    pub img: [usize; 3],
    /// Block (output-position) sizes.
    pub blk: [usize; 3],
    pub k: [usize; 3],
    pub stride: [usize; 3],
    pub pad: [usize; 3],
    pub dil: [usize; 3],
}

impl Window {
    fn img_len(&self) -> usize {
        self.img.iter().product()
    }
    fn blk_len(&self) -> usize {
        self.blk.iter().product()
    }
    fn k_len(&self) -> usize {
        self.k.iter().product()
    }
    /// A 1×1 window with unit stride and no padding: the image is its own col.
    fn is_pointwise(&self) -> bool {
        self.k_len() == 1 && self.stride == [1; 3] && self.pad == [0; 3] && self.img == self.blk
    }
}

/// Blocks `lo..hi` of `0..nb` whose tap at offset `koff` (= `k*dil`) lands inside `0..n`.
#[inline]
fn valid_range(nb: usize, n: usize, s: usize, p: usize, koff: usize) -> (usize, usize) {
    let lo = if koff >= p { 0 } else { (p - koff).div_ceil(s) };
    let hi = if n + p > koff {
        ((n + p - koff - 1) / s + 1).min(nb)
    } else {
        0
    };
    (lo.min(nb), hi.max(lo.min(nb)))
}

/// Image index `b*s + koff - p` along one dim, if inside `0..n`.
#[inline]
fn pos(b: usize, s: usize, koff: usize, p: usize, n: usize) -> Option<usize> {
    let q = (b * s + koff).checked_sub(p)?;
    (q < n).then_some(q)
}

/// For a window whose rows of output positions are narrow (fewer than 16: small images), the
/// input element each tap reads: `tab[κ·P + b]` is the in-plane index that kernel offset `κ`
/// reads for output position `b`, or `u32::MAX` where the tap falls in the padding. With it
/// im2col is one branch-free gather per element; without it (wide rows) each row of output
/// positions is a `memcpy` between two `memset`s, which for rows of 3 or 4 elements costs
/// far more than the copy.
pub(crate) struct Taps(Vec<u32>);

impl Taps {
    /// The table of `w`, when its rows are narrow and the table small (≤ 2^16 entries).
    pub(crate) fn of(w: &Window) -> Option<Taps> {
        let (pb, kl) = (w.blk_len(), w.k_len());
        if w.blk[2] >= 16 || kl.saturating_mul(pb) > 1 << 16 || w.img_len() >= u32::MAX as usize {
            return None;
        }
        let [_, ih_n, iw_n] = w.img;
        let mut tab = Vec::with_capacity(kl * pb);
        for kd in 0..w.k[0] {
            for kh in 0..w.k[1] {
                for kw in 0..w.k[2] {
                    for bd in 0..w.blk[0] {
                        let id = pos(bd, w.stride[0], kd * w.dil[0], w.pad[0], w.img[0]);
                        for bh in 0..w.blk[1] {
                            let ih = pos(bh, w.stride[1], kh * w.dil[1], w.pad[1], ih_n);
                            for bw in 0..w.blk[2] {
                                let iw = pos(bw, w.stride[2], kw * w.dil[2], w.pad[2], iw_n);
                                tab.push(match (id, ih, iw) {
                                    (Some(d), Some(h), Some(x)) => {
                                        ((d * ih_n + h) * iw_n + x) as u32
                                    }
                                    _ => u32::MAX,
                                });
                            }
                        }
                    }
                }
            }
        }
        Some(Taps(tab))
    }
}

/// im2col of `ch` NCHW channels: `col[(c, kd, kh, kw), b]`, zeros where a tap falls in the
/// padding; `img` holds `ch` planes, `col` `ch·K` rows of `P` elements, `pitch ≥ P` elements apart (row `r` is
/// `col[r·pitch..r·pitch + P]`; the rest of each pitch is left alone), so the cols of several
/// images can sit side by side in one matrix; `taps` is `w`'s [`Taps`] when it has one.
pub(crate) fn im2col_nchw_pitched<T: Copy + Default>(
    img: &[T],
    ch: usize,
    w: &Window,
    col: &mut [T],
    pitch: usize,
    taps: Option<&Taps>,
) {
    let (pin, pb) = (w.img_len(), w.blk_len());
    if let Some(Taps(tab)) = taps {
        let kl = w.k_len();
        for c in 0..ch {
            let plane = &img[c * pin..(c + 1) * pin];
            for (k, t) in tab.chunks_exact(pb.max(1)).enumerate().take(kl) {
                let row = &mut col[(c * kl + k) * pitch..][..pb];
                for (o, &i) in row.iter_mut().zip(t) {
                    *o = plane.get(i as usize).copied().unwrap_or_default();
                }
            }
        }
        return;
    }
    let [_, ih_n, iw_n] = w.img;
    let [bd_n, bh_n, bw_n] = w.blk;
    let mut r = 0;
    for c in 0..ch {
        let plane = &img[c * pin..(c + 1) * pin];
        for kd in 0..w.k[0] {
            for kh in 0..w.k[1] {
                for kw in 0..w.k[2] {
                    let row = &mut col[r * pitch..r * pitch + pb];
                    r += 1;
                    let koff = kw * w.dil[2];
                    let (lo, hi) = valid_range(bw_n, iw_n, w.stride[2], w.pad[2], koff);
                    for bd in 0..bd_n {
                        let id = pos(bd, w.stride[0], kd * w.dil[0], w.pad[0], w.img[0]);
                        for bh in 0..bh_n {
                            let out = &mut row[(bd * bh_n + bh) * bw_n..][..bw_n];
                            let ih = pos(bh, w.stride[1], kh * w.dil[1], w.pad[1], ih_n);
                            let (Some(id), Some(ih)) = (id, ih) else {
                                for o in out.iter_mut() {
                                    *o = T::default();
                                }
                                continue;
                            };
                            let src = &plane[(id * ih_n + ih) * iw_n..][..iw_n];
                            out[..lo].fill(T::default());
                            out[hi..].fill(T::default());
                            if lo < hi {
                                let first = lo * w.stride[2] + koff - w.pad[2];
                                if w.stride[2] == 1 {
                                    out[lo..hi].copy_from_slice(&src[first..first + hi - lo]);
                                } else {
                                    for (o, x) in out[lo..hi]
                                        .iter_mut()
                                        .zip(src[first..].iter().step_by(w.stride[2]))
                                    {
                                        *o = *x;
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// col2im: adds `col[(c, kd, kh, kw), b]` into the NCHW image of `ch` channels (taps in the
/// padding are dropped). The inverse data movement of [`im2col_nchw_pitched`], summing
/// overlaps.
///
/// With `round`, each addition is rounded as PyTorch's `col2im` rounds when it accumulates in
/// a reduced dtype (the additions to one image element happen in PyTorch's order: channel,
/// then kernel offset).
pub(crate) fn col2im_nchw<T: ConvElem>(
    col: &[T],
    ch: usize,
    w: &Window,
    img: &mut [T],
    round: Option<Round>,
    taps: Option<&Taps>,
) {
    let (pin, pb) = (w.img_len(), w.blk_len());
    if let Some(Taps(tab)) = taps {
        // the same additions in the same order: per image element, by channel, then by
        // kernel offset (one output position per offset reaches a given element)
        let kl = w.k_len();
        let mut rows = col.chunks_exact(pb.max(1));
        for c in 0..ch {
            let plane = &mut img[c * pin..(c + 1) * pin];
            for t in tab.chunks_exact(pb.max(1)).take(kl) {
                let row = rows.next().expect("col holds ch·K rows");
                for (&v, &i) in row.iter().zip(t) {
                    if let Some(o) = plane.get_mut(i as usize) {
                        *o = if round.is_some() {
                            (*o + v).rounded(round)
                        } else {
                            *o + v
                        };
                    }
                }
            }
        }
        return;
    }
    let [_, ih_n, iw_n] = w.img;
    let [bd_n, bh_n, bw_n] = w.blk;
    let mut rows = col.chunks_exact(pb);
    for c in 0..ch {
        let plane = &mut img[c * pin..(c + 1) * pin];
        for kd in 0..w.k[0] {
            for kh in 0..w.k[1] {
                for kw in 0..w.k[2] {
                    let row = rows.next().expect("col holds ch·K rows");
                    let koff = kw * w.dil[2];
                    let (lo, hi) = valid_range(bw_n, iw_n, w.stride[2], w.pad[2], koff);
                    if lo >= hi {
                        continue;
                    }
                    for bd in 0..bd_n {
                        let Some(id) = pos(bd, w.stride[0], kd * w.dil[0], w.pad[0], w.img[0])
                        else {
                            continue;
                        };
                        for bh in 0..bh_n {
                            let Some(ih) = pos(bh, w.stride[1], kh * w.dil[1], w.pad[1], ih_n)
                            else {
                                continue;
                            };
                            let src = &row[(bd * bh_n + bh) * bw_n..][..bw_n];
                            let dst = &mut plane[(id * ih_n + ih) * iw_n..][..iw_n];
                            let first = lo * w.stride[2] + koff - w.pad[2];
                            let pairs = src[lo..hi]
                                .iter()
                                .zip(dst[first..].iter_mut().step_by(w.stride[2]));
                            if round.is_some() {
                                pairs.for_each(|(x, o)| *o = (*o + *x).rounded(round));
                            } else {
                                pairs.for_each(|(x, o)| *o += *x);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// im2col of channels `c0..c0+cg` of an NHWC image with `ch` channels:
/// `col[b, (kd, kh, kw, c)]`, zeros in the padding.
fn im2col_nhwc<T: Copy + Default>(
    img: &[T],
    ch: usize,
    c0: usize,
    cg: usize,
    w: &Window,
    col: &mut [T],
) {
    let [id_n, ih_n, iw_n] = w.img;
    let [bd_n, bh_n, bw_n] = w.blk;
    let row_len = w.k_len() * cg;
    let mut rows = col.chunks_exact_mut(row_len);
    for bd in 0..bd_n {
        for bh in 0..bh_n {
            for bw in 0..bw_n {
                let row = rows.next().expect("col holds P rows");
                let mut taps = row.chunks_exact_mut(cg);
                for kd in 0..w.k[0] {
                    let id = pos(bd, w.stride[0], kd * w.dil[0], w.pad[0], id_n);
                    for kh in 0..w.k[1] {
                        let ih = pos(bh, w.stride[1], kh * w.dil[1], w.pad[1], ih_n);
                        for kw in 0..w.k[2] {
                            let out = taps.next().expect("K taps per row");
                            let iw = pos(bw, w.stride[2], kw * w.dil[2], w.pad[2], iw_n);
                            match (id, ih, iw) {
                                (Some(id), Some(ih), Some(iw)) => {
                                    let at = ((id * ih_n + ih) * iw_n + iw) * ch + c0;
                                    out.copy_from_slice(&img[at..at + cg]);
                                }
                                _ => out.fill(T::default()),
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The element types the convolution kernels compute in: float32 and float64.
pub(crate) trait ConvElem:
    MmElem
    + Copy
    + Default
    + Send
    + Sync
    + std::ops::AddAssign
    + std::ops::Add<Output = Self>
    + std::ops::Mul<Output = Self>
    + 'static
{
    /// Runs `f` on a scratch slice of `len` elements (contents unspecified), reusing a
    /// per-thread buffer. Re-entrant: a nested call gets a fresh buffer.
    fn with_scratch<R>(len: usize, f: impl FnOnce(&mut [Self]) -> R) -> R;
    /// `self` rounded by `r` (a float32 → reduced precision → float32 round trip) when given
    /// (only ever given for a float32 computation); unchanged otherwise.
    fn rounded(self, r: Option<Round>) -> Self;
}

/// A float32 → float16/bfloat16 → float32 round trip: the rounding PyTorch's slow kernels
/// apply at every step they store in the tensor's reduced dtype.
pub(crate) type Round = fn(f32) -> f32;

macro_rules! conv_elem {
    ($t:ty, $tl:ident) => {
        thread_local! {
            static $tl: RefCell<Vec<$t>> = const { RefCell::new(Vec::new()) };
        }
        impl ConvElem for $t {
            fn with_scratch<R>(len: usize, f: impl FnOnce(&mut [$t]) -> R) -> R {
                // take the buffer out, so a nested call (work stealing inside gemm's split)
                // never finds it borrowed
                let mut buf = $tl.with(|c| std::mem::take(&mut *c.borrow_mut()));
                if buf.len() < len {
                    buf.resize(len, 0.0);
                }
                let r = f(&mut buf[..len]);
                $tl.with(|c| {
                    let mut slot = c.borrow_mut();
                    if slot.len() < buf.len() {
                        *slot = buf;
                    }
                });
                r
            }
            fn rounded(self, r: Option<Round>) -> Self {
                match r {
                    Some(r) => r(self as f32) as $t,
                    None => self,
                }
            }
        }
    };
}
conv_elem!(f32, SCRATCH_F32);
conv_elem!(f64, SCRATCH_F64);

/// One convolution: `n` images of `c` channels into `o` channels, in `groups` groups.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ConvGeom {
    pub n: usize,
    pub c: usize,
    pub o: usize,
    pub groups: usize,
    /// For a forward convolution `img` is the input and `blk` the output; for a transposed
    /// one `blk` is the input and `img` the output.
    pub win: Window,
    /// For a transposed convolution of a float16/bfloat16 tensor computed in float32:
    /// PyTorch's slow path stores the product's columns, each `col2im` addition and the bias
    /// addition in the reduced dtype, so each is rounded with this.
    pub round: Option<Round>,
}

/// Below this many multiply-adds a convolution runs on the calling thread.
const PAR_WORK: usize = 1 << 18;

/// Runs `per_image(image index, output chunk, threads for the product)` over the output's
/// per-image chunks: in parallel over images when there are enough, otherwise one image after
/// another with the products splitting themselves.
fn over_images<T: Send>(
    y: &mut [T],
    chunk: usize,
    work: usize,
    per_image: impl Fn(usize, &mut [T], usize) + Sync,
) {
    if chunk == 0 {
        return;
    }
    let threads = if work < PAR_WORK { 1 } else { par::threads() };
    let n = y.len() / chunk;
    if threads <= 1 {
        y.chunks_mut(chunk)
            .enumerate()
            .for_each(|(i, c)| per_image(i, c, 1));
    } else if n >= threads {
        par::run(|| {
            y.par_chunks_mut(chunk)
                .enumerate()
                .for_each(|(i, c)| per_image(i, c, 1))
        });
    } else {
        // one image after another, each product split over the pool
        par::run(|| {
            y.chunks_mut(chunk)
                .enumerate()
                .for_each(|(i, c)| per_image(i, c, threads))
        });
    }
}

/// Fills each of the `rows` rows of `len` elements (NCHW: a row per channel) or each of the
/// `len` rows of `rows` elements (NHWC) with the bias, or zeros.
fn fill_bias<T: ConvElem>(y: &mut [T], bias: Option<&[T]>, o: usize, nhwc: bool) {
    match bias {
        None => y.fill(T::default()),
        Some(b) if nhwc => y.chunks_exact_mut(o).for_each(|r| r.copy_from_slice(b)),
        Some(b) => {
            let p = y.len() / o.max(1);
            for (r, &v) in y.chunks_exact_mut(p.max(1)).zip(b) {
                r.fill(v);
            }
        }
    }
}

/// Depthwise group (one input channel) of a forward NCHW convolution, direct: each output
/// row accumulates `weight · input row` per tap.
fn depthwise_plane<T: ConvElem>(x: &[T], wk: &[T], y: &mut [T], w: &Window) {
    let [_, ih_n, iw_n] = w.img;
    let [bd_n, bh_n, bw_n] = w.blk;
    let s = w.stride[2];
    for bd in 0..bd_n {
        for bh in 0..bh_n {
            let out = &mut y[(bd * bh_n + bh) * bw_n..][..bw_n];
            for kd in 0..w.k[0] {
                let Some(id) = pos(bd, w.stride[0], kd * w.dil[0], w.pad[0], w.img[0]) else {
                    continue;
                };
                for kh in 0..w.k[1] {
                    let Some(ih) = pos(bh, w.stride[1], kh * w.dil[1], w.pad[1], ih_n) else {
                        continue;
                    };
                    let src = &x[(id * ih_n + ih) * iw_n..][..iw_n];
                    for kw in 0..w.k[2] {
                        let wv = wk[(kd * w.k[1] + kh) * w.k[2] + kw];
                        let koff = kw * w.dil[2];
                        let (lo, hi) = valid_range(bw_n, iw_n, s, w.pad[2], koff);
                        if lo >= hi {
                            continue;
                        }
                        let first = lo * s + koff - w.pad[2];
                        if s == 1 {
                            for (o, &v) in out[lo..hi].iter_mut().zip(&src[first..]) {
                                *o += wv * v;
                            }
                        } else {
                            for (o, &v) in
                                out[lo..hi].iter_mut().zip(src[first..].iter().step_by(s))
                            {
                                *o += wv * v;
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Forward convolution of one NCHW image `x` (`c·P_in`) into `y` (`o·P`).
fn forward_nchw<T: ConvElem>(
    x: &[T],
    wt: &[T],
    bias: Option<&[T]>,
    y: &mut [T],
    g: &ConvGeom,
    threads: usize,
    taps: Option<&Taps>,
) {
    let w = &g.win;
    let (pin, p, kl) = (w.img_len(), w.blk_len(), w.k_len());
    let (cg, og) = (g.c / g.groups, g.o / g.groups);
    if g.round.is_some() {
        // PyTorch's slow path: zeros, col2im, then `output.add_(bias)`, each step stored.
        y.fill(T::default());
    } else {
        fill_bias(y, bias, g.o, false);
    }
    for gi in 0..g.groups {
        let xg = &x[gi * cg * pin..(gi + 1) * cg * pin];
        let wg = &wt[gi * og * cg * kl..(gi + 1) * og * cg * kl];
        let yg = &mut y[gi * og * p..(gi + 1) * og * p];
        if cg == 1 && og <= 4 {
            for (oi, yp) in yg.chunks_exact_mut(p.max(1)).enumerate() {
                depthwise_plane(xg, &wg[oi * kl..(oi + 1) * kl], yp, w);
            }
        } else if w.is_pointwise() {
            // SAFETY: yg is og×p (row stride p), wg og×cg, xg cg×p, all inside their slices.
            unsafe {
                mm::<T>(
                    og,
                    p,
                    cg,
                    yg.as_mut_ptr(),
                    p as isize,
                    1,
                    true,
                    wg.as_ptr(),
                    cg as isize,
                    1,
                    xg.as_ptr(),
                    p as isize,
                    1,
                    threads,
                )
            }
        } else {
            T::with_scratch(cg * kl * p, |col| {
                im2col_nchw_pitched(xg, cg, w, col, p, taps);
                // SAFETY: yg is og×p, wg og×(cg·K), col (cg·K)×p, all inside their slices;
                // col is this call's own scratch.
                unsafe {
                    mm::<T>(
                        og,
                        p,
                        cg * kl,
                        yg.as_mut_ptr(),
                        p as isize,
                        1,
                        true,
                        wg.as_ptr(),
                        (cg * kl) as isize,
                        1,
                        col.as_ptr(),
                        p as isize,
                        1,
                        threads,
                    )
                }
            });
        }
    }
}

/// Forward convolution of one NHWC image `x` (`P_in·c`) into `y` (`P·o`); the weight is
/// `(o, kd, kh, kw, cg)` row-major.
fn forward_nhwc<T: ConvElem>(
    x: &[T],
    wt: &[T],
    bias: Option<&[T]>,
    y: &mut [T],
    g: &ConvGeom,
    threads: usize,
) {
    let w = &g.win;
    let (p, kl) = (w.blk_len(), w.k_len());
    let (cg, og) = (g.c / g.groups, g.o / g.groups);
    fill_bias(y, bias, g.o, true);
    for gi in 0..g.groups {
        let wg = &wt[gi * og * cg * kl..(gi + 1) * og * cg * kl];
        let yg = &mut y[gi * og..];
        if w.is_pointwise() {
            // SAFETY: yg is p×og with row stride o (the last row ends inside y); x_g is p×cg
            // with row stride c starting at channel gi·cg; wgᵀ is cg×og.
            unsafe {
                mm::<T>(
                    p,
                    og,
                    cg,
                    yg.as_mut_ptr(),
                    g.o as isize,
                    1,
                    true,
                    x[gi * cg..].as_ptr(),
                    g.c as isize,
                    1,
                    wg.as_ptr(),
                    1,
                    cg as isize,
                    threads,
                )
            }
        } else {
            T::with_scratch(p * kl * cg, |col| {
                im2col_nhwc(x, g.c, gi * cg, cg, w, col);
                // SAFETY: yg is p×og with row stride o inside y; col is p×(K·cg), this
                // call's own scratch; wgᵀ is (K·cg)×og.
                unsafe {
                    mm::<T>(
                        p,
                        og,
                        kl * cg,
                        yg.as_mut_ptr(),
                        g.o as isize,
                        1,
                        true,
                        col.as_ptr(),
                        (kl * cg) as isize,
                        1,
                        wg.as_ptr(),
                        1,
                        (kl * cg) as isize,
                        threads,
                    )
                }
            });
        }
    }
}

/// Transposed convolution of one NCHW image `x` (`c·P_in`, `P_in` = the window's blocks)
/// into `y` (`o·P_out`, the window's image); weight `(c, og, K)` row-major.
fn transposed_nchw<T: ConvElem>(
    x: &[T],
    wt: &[T],
    bias: Option<&[T]>,
    y: &mut [T],
    g: &ConvGeom,
    threads: usize,
    taps: Option<&Taps>,
) {
    let w = &g.win;
    let (pin, pout, kl) = (w.blk_len(), w.img_len(), w.k_len());
    let (cg, og) = (g.c / g.groups, g.o / g.groups);
    if g.round.is_some() {
        // PyTorch's slow path: zeros, col2im, then `output.add_(bias)`, each step stored.
        y.fill(T::default());
    } else {
        fill_bias(y, bias, g.o, false);
    }
    for gi in 0..g.groups {
        let xg = &x[gi * cg * pin..(gi + 1) * cg * pin];
        let wg = &wt[gi * cg * og * kl..(gi + 1) * cg * og * kl];
        let yg = &mut y[gi * og * pout..(gi + 1) * og * pout];
        T::with_scratch(og * kl * pin, |col| {
            // SAFETY: col is (og·K)×pin, this call's scratch; wgᵀ is (og·K)×cg (wg is
            // cg×(og·K) row-major); xg is cg×pin.
            unsafe {
                mm::<T>(
                    og * kl,
                    pin,
                    cg,
                    col.as_mut_ptr(),
                    pin as isize,
                    1,
                    false,
                    wg.as_ptr(),
                    1,
                    (og * kl) as isize,
                    xg.as_ptr(),
                    pin as isize,
                    1,
                    threads,
                )
            };
            if g.round.is_some() {
                col.iter_mut().for_each(|v| *v = v.rounded(g.round));
            }
            col2im_nchw(col, og, w, yg, g.round, taps);
        });
    }
    if let (Some(_), Some(b)) = (g.round, bias) {
        for (plane, &v) in y.chunks_exact_mut(pout.max(1)).zip(b) {
            plane
                .iter_mut()
                .for_each(|o| *o = (*o + v).rounded(g.round));
        }
    }
}

/// What a [`conv`] call computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ConvKind {
    /// Forward convolution, NCHW input/weight/output.
    Nchw,
    /// Forward convolution, NHWC input and output, weight `(o, K, cg)`.
    Nhwc,
    /// Transposed convolution, NCHW.
    Transposed,
}

/// Runs the convolution `g` of kind `kind`: `x` holds `n·c·P_in` elements, `w` the weight's
/// `c·(o/groups)·K` (transposed) or `o·(c/groups)·K`, `bias` (when given) `o`, and `y`
/// `n·o·P_out`, all dense in the layout `kind` names (a shorter slice is an internal error:
/// it panics).
pub(crate) fn conv<T: ConvElem>(
    kind: ConvKind,
    x: &[T],
    w: &[T],
    bias: Option<&[T]>,
    y: &mut [T],
    g: &ConvGeom,
) {
    let (pin, pout) = match kind {
        ConvKind::Transposed => (g.win.blk_len(), g.win.img_len()),
        _ => (g.win.img_len(), g.win.blk_len()),
    };
    let kl = g.win.k_len();
    let wlen = match kind {
        ConvKind::Transposed => g.c * (g.o / g.groups) * kl,
        _ => g.o * (g.c / g.groups) * kl,
    };
    let (x, w, y, bias) = (
        &x[..g.n * g.c * pin],
        &w[..wlen],
        &mut y[..g.n * g.o * pout],
        bias.map(|b| &b[..g.o]),
    );
    let work = g.n * pout.max(pin) * g.o * (g.c / g.groups.max(1)).max(1) * kl;
    let img_in = g.c * pin;
    let taps = if kind != ConvKind::Nhwc && !g.win.is_pointwise() {
        Taps::of(&g.win)
    } else {
        None
    };
    over_images(y, g.o * pout, work, |i, yi, threads| {
        let xi = &x[i * img_in..(i + 1) * img_in];
        match kind {
            ConvKind::Nchw => forward_nchw(xi, w, bias, yi, g, threads, taps.as_ref()),
            ConvKind::Nhwc => forward_nhwc(xi, w, bias, yi, g, threads),
            ConvKind::Transposed => transposed_nchw(xi, w, bias, yi, g, threads, taps.as_ref()),
        }
    });
}

/// The cols of at most this many elements are built at once by [`weight_grad`].
const WGRAD_COLS: usize = 1 << 20;

/// The weight gradient of a forward NCHW convolution `g` (`geom.o` output channels):
/// `gw[o, (c, κ)] = Σ_n Σ_b grad[n, o, b] · col_n[(c, κ), b]`, `col_n` the im2col of image
/// `n`'s channels of `o`'s group. Images are taken in chunks whose cols fit in
/// [`WGRAD_COLS`] elements, side by side (`(C/G·K) × (chunk·P)`), with the gradient's rows
/// gathered to match; each chunk is one product `grad_chunk · col_chunkᵀ`, added up in chunk
/// order. (One product per chunk instead of one per image: for small images a product per
/// image is mostly call overhead.)
///
/// `x` holds `n·c·P_in` elements and `grad` `n·o·P`, both dense NCHW, and `gw`
/// `o·(c/groups)·K` (a shorter slice is an internal error: it panics).
pub(crate) fn weight_grad<T: ConvElem>(x: &[T], grad: &[T], gw: &mut [T], geom: &ConvGeom) {
    let w = &geom.win;
    let (pin, p, kl) = (w.img_len(), w.blk_len(), w.k_len());
    let groups = geom.groups.max(1);
    let (cg, og) = (geom.c / groups, geom.o / groups);
    let rows = cg * kl;
    let (x, grad, gw) = (
        &x[..geom.n * geom.c * pin],
        &grad[..geom.n * geom.o * p],
        &mut gw[..geom.o * rows],
    );
    if gw.is_empty() {
        return;
    }
    if p == 0 || geom.n == 0 {
        gw.fill(T::default());
        return;
    }
    let chunk = (WGRAD_COLS / (rows * p).max(1)).clamp(1, geom.n);
    let taps = Taps::of(w);
    for gi in 0..groups {
        let gwg = &mut gw[gi * og * rows..(gi + 1) * og * rows];
        for (ci, n0) in (0..geom.n).step_by(chunk).enumerate() {
            let m = chunk.min(geom.n - n0);
            let width = m * p;
            let threads = if og * rows * width >= PAR_WORK {
                par::threads()
            } else {
                1
            };
            // With a tap table (small images) both operands are built transposed, `gradᵀ`
            // (width × og) and `colᵀ` (width × rows): the layouts the product reads without
            // repacking them. Otherwise `grad` (og × width) and `col` (rows × width), the col
            // by the row-copying im2col. `(a, b)`: each operand's (row, column) strides.
            let (a, b) = if taps.is_some() {
                ((1, og), (rows, 1))
            } else {
                ((width, 1), (1, width))
            };
            T::with_scratch(rows * width + og * width, |buf| {
                let (col, gb) = buf.split_at_mut(rows * width);
                for j in 0..m {
                    let img = &x[(n0 + j) * geom.c * pin + gi * cg * pin..][..cg * pin];
                    match &taps {
                        Some(Taps(tab)) => {
                            for b in 0..p {
                                let dst = &mut col[(j * p + b) * rows..][..rows];
                                for (c, dc) in dst.chunks_exact_mut(kl).enumerate() {
                                    let plane = &img[c * pin..(c + 1) * pin];
                                    for (k, o) in dc.iter_mut().enumerate() {
                                        let at = tab[k * p + b] as usize;
                                        *o = plane.get(at).copied().unwrap_or_default();
                                    }
                                }
                            }
                        }
                        None => im2col_nchw_pitched(img, cg, w, &mut col[j * p..], width, None),
                    }
                    for oi in 0..og {
                        let src = &grad[((n0 + j) * geom.o + gi * og + oi) * p..][..p];
                        for (q, &v) in src.iter().enumerate() {
                            gb[oi * a.0 + (j * p + q) * a.1] = v;
                        }
                    }
                }
                // SAFETY: gwg is og×rows (row stride rows); the gradient operand is og×width
                // and the col operand width×rows, each addressed through the strides `a`, `b`
                // set above for the layout it was built in, inside its slice of this call's
                // own scratch.
                unsafe {
                    mm::<T>(
                        og,
                        rows,
                        width,
                        gwg.as_mut_ptr(),
                        rows as isize,
                        1,
                        ci > 0,
                        gb.as_ptr(),
                        a.0 as isize,
                        a.1 as isize,
                        col.as_ptr(),
                        b.0 as isize,
                        b.1 as isize,
                        threads,
                    )
                }
            });
        }
    }
}

/// `F.unfold`: im2col of `n` NCHW images of `c` channels (`x`: `n·c·P_img`) into `y`
/// (`n·c·K·P_blk`); a shorter slice is an internal error (it panics).
pub(crate) fn unfold<T: ConvElem>(x: &[T], y: &mut [T], n: usize, c: usize, w: &Window) {
    let (pi, po) = (c * w.img_len(), c * w.k_len() * w.blk_len());
    let (x, y) = (&x[..n * pi], &mut y[..n * po]);
    if po == 0 {
        return;
    }
    let taps = Taps::of(w);
    let one = |(i, yi): (usize, &mut [T])| {
        im2col_nchw_pitched(
            &x[i * pi..(i + 1) * pi],
            c,
            w,
            yi,
            w.blk_len(),
            taps.as_ref(),
        )
    };
    if n > 1 && n * po >= 2 * super::loops::GRAIN && par::threads() > 1 {
        par::run(|| y.par_chunks_mut(po).enumerate().for_each(one));
    } else {
        y.chunks_mut(po).enumerate().for_each(one);
    }
}

/// `F.fold`: col2im of `n` columns (`x`: `n·c·K·P_blk`) into `n` NCHW images of `c` channels
/// (`y`: `n·c·P_img`, overwritten); a shorter slice is an internal error (it panics).
pub(crate) fn fold<T: ConvElem>(x: &[T], y: &mut [T], n: usize, c: usize, w: &Window) {
    let (pi, po) = (c * w.k_len() * w.blk_len(), c * w.img_len());
    let (x, y) = (&x[..n * pi], &mut y[..n * po]);
    if po == 0 {
        return;
    }
    let taps = Taps::of(w);
    let one = |(i, yi): (usize, &mut [T])| {
        yi.fill(T::default());
        col2im_nchw(&x[i * pi..(i + 1) * pi], c, w, yi, None, taps.as_ref())
    };
    if n > 1 && n * pi >= 2 * super::loops::GRAIN && par::threads() > 1 {
        par::run(|| y.par_chunks_mut(po).enumerate().for_each(one));
    } else {
        y.chunks_mut(po).enumerate().for_each(one);
    }
}

/// The convolution `g` (forward when `!transposed`) on integers, as PyTorch's slow CPU kernels
/// compute it for integer dtypes: every product and sum in two's-complement arithmetic of the
/// data's width. The values come widened to `i64` (so `x`, `w`, `bias` and `y` are dense NCHW
/// `i64`, with the lengths [`conv`] documents) and the caller narrows `y` back by truncation:
/// since `+` and `·` commute with reduction modulo 2^k, wrapping in `i64` and narrowing at the
/// end gives the narrow type's wrapped result. A direct loop: integer convolutions are rare,
/// and the GEMM kernels are float-only.
pub(crate) fn conv_int(
    transposed: bool,
    x: &[i64],
    w: &[i64],
    bias: Option<&[i64]>,
    y: &mut [i64],
    g: &ConvGeom,
) {
    let win = &g.win;
    let (pin, pout) = if transposed {
        (win.blk_len(), win.img_len())
    } else {
        (win.img_len(), win.blk_len())
    };
    let groups = g.groups.max(1);
    let (cg, og) = (g.c / groups, g.o / groups);
    let kl = win.k_len();
    let y = &mut y[..g.n * g.o * pout];
    for (n, yn) in y.chunks_mut(g.o * pout).enumerate() {
        for (o, yo) in yn.chunks_mut(pout).enumerate() {
            yo.fill(bias.map_or(0, |b| b[o]));
        }
        let xn = &x[n * g.c * pin..(n + 1) * g.c * pin];
        for gi in 0..groups {
            for b0 in 0..win.blk[0] {
                for b1 in 0..win.blk[1] {
                    for b2 in 0..win.blk[2] {
                        let blk = (b0 * win.blk[1] + b1) * win.blk[2] + b2;
                        for k0 in 0..win.k[0] {
                            let Some(i0) =
                                pos(b0, win.stride[0], k0 * win.dil[0], win.pad[0], win.img[0])
                            else {
                                continue;
                            };
                            for k1 in 0..win.k[1] {
                                let Some(i1) =
                                    pos(b1, win.stride[1], k1 * win.dil[1], win.pad[1], win.img[1])
                                else {
                                    continue;
                                };
                                for k2 in 0..win.k[2] {
                                    let Some(i2) = pos(
                                        b2,
                                        win.stride[2],
                                        k2 * win.dil[2],
                                        win.pad[2],
                                        win.img[2],
                                    ) else {
                                        continue;
                                    };
                                    let img = (i0 * win.img[1] + i1) * win.img[2] + i2;
                                    let k = (k0 * win.k[1] + k1) * win.k[2] + k2;
                                    for c in 0..cg {
                                        let ci = gi * cg + c;
                                        for o in 0..og {
                                            let oi = gi * og + o;
                                            if transposed {
                                                let wv = w[(ci * og + o) * kl + k];
                                                let at = oi * pout + img;
                                                yn[at] = yn[at].wrapping_add(
                                                    xn[ci * pin + blk].wrapping_mul(wv),
                                                );
                                            } else {
                                                let wv = w[(oi * cg + c) * kl + k];
                                                let at = oi * pout + blk;
                                                yn[at] = yn[at].wrapping_add(
                                                    xn[ci * pin + img].wrapping_mul(wv),
                                                );
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_ranges_match_a_scan() {
        for nb in 0..6 {
            for n in 1..6 {
                for s in 1..4 {
                    for p in 0..3 {
                        for koff in 0..5 {
                            let want: Vec<usize> = (0..nb)
                                .filter(|&b| pos(b, s, koff, p, n).is_some())
                                .collect();
                            let (lo, hi) = valid_range(nb, n, s, p, koff);
                            assert_eq!(
                                (lo..hi).collect::<Vec<_>>(),
                                want,
                                "{nb} {n} {s} {p} {koff}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn col2im_is_the_adjoint_of_im2col() {
        // <im2col(x), c> == <x, col2im(c)> for any x, c
        let w = Window {
            img: [1, 4, 5],
            blk: [1, 2, 3],
            k: [1, 2, 2],
            stride: [1, 2, 1],
            pad: [0, 1, 0],
            dil: [1, 1, 2],
        };
        let x: Vec<f64> = (0..2 * 20).map(|i| (i * 7 % 11) as f64).collect();
        let c: Vec<f64> = (0..2 * 4 * 6).map(|i| (i * 5 % 13) as f64).collect();
        let mut col = vec![0.0; c.len()];
        im2col_nchw_pitched(&x, 2, &w, &mut col, w.blk_len(), None);
        let mut img = vec![0.0; x.len()];
        col2im_nchw(&c, 2, &w, &mut img, None, None);
        let a: f64 = col.iter().zip(&c).map(|(a, b)| a * b).sum();
        let b: f64 = x.iter().zip(&img).map(|(a, b)| a * b).sum();
        assert_eq!(a, b);
    }

    #[test]
    fn the_tap_table_gives_the_row_copies_result() {
        // every window shape of small images: padding, stride, dilation, 1-3 spatial dims;
        // with a pitch wider than P (the weight gradient's side-by-side cols)
        for (img, k, stride, pad, dil) in [
            ([1, 4, 4], [1, 3, 3], [1, 1, 1], [0, 1, 1], [1, 1, 1]),
            ([1, 8, 8], [1, 3, 3], [1, 2, 2], [0, 1, 1], [1, 1, 1]),
            ([1, 5, 7], [1, 2, 3], [1, 1, 2], [0, 2, 0], [1, 2, 1]),
            ([1, 1, 9], [1, 1, 4], [1, 1, 3], [0, 0, 3], [1, 1, 1]),
            ([3, 4, 5], [2, 2, 2], [1, 2, 1], [1, 0, 1], [2, 1, 1]),
        ] {
            let blk: [usize; 3] = std::array::from_fn(|i| {
                (img[i] + 2 * pad[i] - dil[i] * (k[i] - 1) - 1) / stride[i] + 1
            });
            let w = Window {
                img,
                blk,
                k,
                stride,
                pad,
                dil,
            };
            let ch = 3;
            let x: Vec<f32> = (0..ch * w.img_len()).map(|i| i as f32 + 1.0).collect();
            let (rows, pb) = (ch * w.k_len(), w.blk_len());
            let pitch = pb + 5;
            let mut a = vec![-1f32; rows * pitch];
            let mut b = a.clone();
            let taps = Taps::of(&w).expect("a narrow window");
            im2col_nchw_pitched(&x, ch, &w, &mut a, pitch, None);
            im2col_nchw_pitched(&x, ch, &w, &mut b, pitch, Some(&taps));
            assert_eq!(a, b, "{w:?}");
            // and col2im through the table adds the same values in the same order
            let col: Vec<f32> = (0..rows * pb).map(|i| (i % 7) as f32 * 0.1 + 0.3).collect();
            let mut ia = vec![0.5f32; ch * w.img_len()];
            let mut ib = ia.clone();
            col2im_nchw(&col, ch, &w, &mut ia, None, None);
            col2im_nchw(&col, ch, &w, &mut ib, None, Some(&taps));
            assert_eq!(ia, ib, "{w:?}");
        }
    }
}
