//! Recurrent cells (LSTM, GRU, Elman tanh/ReLU) over plain slices, for `crate::ops::rnn`.
//!
//! A whole-sequence layer direction runs as one GEMM for the input projection of every time
//! step (`X·W_ihᵀ + b_ih`, `(T·N, G·H)`), then per step one GEMM for `h·W_hhᵀ + b_hh` and one
//! fused pass over the gates (nonlinearities, cell update, the new hidden state written
//! straight into the layer's output). Buffers are allocated once per direction.
//!
//! Matrices are row-major slices; every `*_rs` is a row stride in elements. Float32 gate math
//! uses polynomial `exp` (relative error about 1e-7, branch-free so the gate loop vectorises,
//! with AVX2+FMA when the CPU has it); float64 uses the standard library's `exp`/`tanh`.

use rayon::prelude::*;

use super::mm::{MmElem, mm};
use super::vmath::{sigmoid_f32, tanh_f32};

pub(crate) use crate::geometry::rnn::CellKind;

/// The element types the kernels run on: float32 and float64.
pub(crate) trait RnnFloat:
    MmElem
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
{
    fn sigmoid(self) -> Self;
    fn tanh(self) -> Self;
    /// `max(x, 0)`, NaN kept (PyTorch's `relu` is `clamp_min(0)`, which propagates NaN).
    fn relu(self) -> Self {
        if self < Self::ZERO { Self::ZERO } else { self }
    }
    /// Whether the gate pass should be compiled for AVX2+FMA (float32 only).
    const VECTOR: bool;
}

impl RnnFloat for f32 {
    const VECTOR: bool = true;
    #[inline(always)]
    fn sigmoid(self) -> f32 {
        sigmoid_f32(self)
    }
    #[inline(always)]
    fn tanh(self) -> f32 {
        tanh_f32(self)
    }
}

impl RnnFloat for f64 {
    const VECTOR: bool = false;
    #[inline(always)]
    fn sigmoid(self) -> f64 {
        1.0 / (1.0 + (-self).exp())
    }
    #[inline(always)]
    fn tanh(self) -> f64 {
        f64::tanh(self)
    }
}

/// Below this many multiply-adds a product runs on the calling thread.
const PAR_FLOPS: usize = 1 << 20;

/// `out[r, j] (+)= Σ_p a[r, p] · w[j, p]` for `r < m`, `j < n`, `p < k`: `a` is `m×k` with row
/// stride `a_rs`, `w` is `n×k` with row stride `k` (a weight used transposed), `out` is `m×n`
/// with row stride `out_rs`. `acc` adds to `out`'s contents instead of overwriting them.
#[allow(clippy::too_many_arguments)]
fn gemm_nt<T: RnnFloat>(
    m: usize,
    n: usize,
    k: usize,
    a: &[T],
    a_rs: usize,
    w: &[T],
    out: &mut [T],
    out_rs: usize,
    acc: bool,
) {
    if m == 0 || n == 0 {
        return;
    }
    assert!(a.len() >= (m - 1) * a_rs + k, "gemm_nt: lhs too short");
    assert!(w.len() >= n * k, "gemm_nt: weight too short");
    assert!(
        out.len() >= (m - 1) * out_rs + n,
        "gemm_nt: output too short"
    );
    let threads = if m * n * k >= PAR_FLOPS {
        crate::kernels::par::threads()
    } else {
        1
    };
    // SAFETY: the asserts above show `a` holds the m×k matrix at row stride `a_rs`, `w` the
    // n×k weight (read as its k×n transpose: row stride 1, column stride k) and `out` the m×n
    // result at row stride `out_rs`; `out` is borrowed mutably, so it aliases neither input.
    unsafe {
        mm::<T>(
            m,
            n,
            k,
            out.as_mut_ptr(),
            out_rs as isize,
            1,
            acc,
            a.as_ptr(),
            a_rs as isize,
            1,
            w.as_ptr(),
            1,
            k as isize,
            threads,
        )
    }
}

/// A bias broadcast over rows: `values` is one row (`row_stride` 0) or a full matrix.
#[derive(Clone, Copy)]
pub(crate) struct Bias<'a, T> {
    pub values: &'a [T],
    pub row_stride: usize,
}

/// `out (m×n, row stride n) = a·wᵀ + bias` (`a` `m×k` at row stride `a_rs`, `w` `n×k`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn linear<T: RnnFloat>(
    m: usize,
    n: usize,
    k: usize,
    a: &[T],
    a_rs: usize,
    w: &[T],
    bias: Option<Bias<'_, T>>,
    out: &mut [T],
) {
    if let Some(b) = bias {
        for r in 0..m {
            let src = &b.values[r * b.row_stride..r * b.row_stride + n];
            out[r * n..(r + 1) * n].copy_from_slice(src);
        }
    }
    gemm_nt(m, n, k, a, a_rs, w, out, n, bias.is_some());
}

/// The fused gate pass of one step for rows `n` of width `h`: `gx` and `gh` are `N×G·H`
/// (the input and hidden projections, biases included), `hx`/`cx` the previous states
/// (`N×H`, row stride `hx_rs`), `h_out` the new hidden state (row stride `h_rs`), `c_out`
/// the new cell state (LSTM, `N×H`).
#[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
#[inline(always)]
fn gates_rows<T: RnnFloat>(
    kind: CellKind,
    rows: std::ops::Range<usize>,
    h: usize,
    gx: &[T],
    gh: &[T],
    hx: &[T],
    hx_rs: usize,
    cx: &[T],
    h_out: &mut [T],
    h_rs: usize,
    c_out: &mut [T],
) {
    let g = kind.gates() * h;
    for r in rows {
        let x = &gx[r * g..(r + 1) * g];
        let y = &gh[r * g..(r + 1) * g];
        let ho = &mut h_out[r * h_rs..r * h_rs + h];
        match kind {
            CellKind::Lstm => {
                let c = &cx[r * h..(r + 1) * h];
                let co = &mut c_out[r * h..(r + 1) * h];
                for j in 0..h {
                    let i = (y[j] + x[j]).sigmoid();
                    let f = (y[h + j] + x[h + j]).sigmoid();
                    let gg = (y[2 * h + j] + x[2 * h + j]).tanh();
                    let o = (y[3 * h + j] + x[3 * h + j]).sigmoid();
                    let cy = f * c[j] + i * gg;
                    co[j] = cy;
                    ho[j] = o * cy.tanh();
                }
            }
            CellKind::Gru => {
                let hp = &hx[r * hx_rs..r * hx_rs + h];
                for j in 0..h {
                    let rg = (y[j] + x[j]).sigmoid();
                    let z = (y[h + j] + x[h + j]).sigmoid();
                    let nn = (x[2 * h + j] + y[2 * h + j] * rg).tanh();
                    ho[j] = (hp[j] - nn) * z + nn;
                }
            }
            CellKind::RnnTanh => {
                for j in 0..h {
                    ho[j] = (y[j] + x[j]).tanh();
                }
            }
            CellKind::RnnRelu => {
                for j in 0..h {
                    ho[j] = (y[j] + x[j]).relu();
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
fn gates_rows_avx2<T: RnnFloat>(
    kind: CellKind,
    rows: std::ops::Range<usize>,
    h: usize,
    gx: &[T],
    gh: &[T],
    hx: &[T],
    hx_rs: usize,
    cx: &[T],
    h_out: &mut [T],
    h_rs: usize,
    c_out: &mut [T],
) {
    gates_rows(kind, rows, h, gx, gh, hx, hx_rs, cx, h_out, h_rs, c_out)
}

/// Below this many gate elements a step's gate pass runs on the calling thread.
const PAR_GATES: usize = 1 << 13;

/// The gate pass over all `n` rows (`h_out`, `c_out` contiguous `N×H`), in parallel over
/// row blocks when large.
#[allow(clippy::too_many_arguments)]
fn gates<T: RnnFloat>(
    kind: CellKind,
    n: usize,
    h: usize,
    gx: &[T],
    gh: &[T],
    hx: &[T],
    cx: &[T],
    h_out: &mut [T],
    c_out: &mut [T],
) {
    #[cfg(target_arch = "x86_64")]
    let avx2 =
        T::VECTOR && std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma");
    let g = kind.gates() * h;
    let lstm = kind == CellKind::Lstm;
    // rows `s..s+rows` of the whole, with re-based input slices
    let run = |s: usize, rows: usize, hb: &mut [T], cb: &mut [T]| {
        let gxs = &gx[s * g..];
        let ghs = &gh[s * g..];
        let hxs = if kind == CellKind::Gru {
            &hx[s * h..]
        } else {
            hx
        };
        let cxs = if lstm { &cx[s * h..] } else { cx };
        #[cfg(target_arch = "x86_64")]
        if avx2 {
            // SAFETY: the CPU has AVX2 and FMA (checked above).
            unsafe { gates_rows_avx2(kind, 0..rows, h, gxs, ghs, hxs, h, cxs, hb, h, cb) };
            return;
        }
        gates_rows(kind, 0..rows, h, gxs, ghs, hxs, h, cxs, hb, h, cb)
    };
    if n < 2 || h == 0 || n * g < PAR_GATES || crate::kernels::par::threads() <= 1 {
        run(0, n, h_out, c_out);
        return;
    }
    let per = n.div_ceil(crate::kernels::par::threads());
    crate::kernels::par::run(|| {
        if lstm {
            h_out
                .par_chunks_mut(per * h)
                .zip(c_out.par_chunks_mut(per * h))
                .enumerate()
                .for_each(|(b, (hb, cb))| run(b * per, hb.len() / h, hb, cb));
        } else {
            h_out
                .par_chunks_mut(per * h)
                .enumerate()
                .for_each(|(b, hb)| run(b * per, hb.len() / h, hb, &mut []));
        }
    });
}

/// One cell step: `h_out`/`c_out` (`N×H`, contiguous) from the input projection `gx`
/// (`N×G·H`, b_ih included), the previous states `hx`/`cx` (`N×H`) and `w_hh` (`G·H×H`),
/// `b_hh`; `gh` is an `N×G·H` scratch buffer.
#[allow(clippy::too_many_arguments)]
pub(crate) fn cell_step<T: RnnFloat>(
    kind: CellKind,
    n: usize,
    h: usize,
    gx: &[T],
    hx: &[T],
    cx: &[T],
    w_hh: &[T],
    b_hh: Option<Bias<'_, T>>,
    gh: &mut [T],
    h_out: &mut [T],
    c_out: &mut [T],
) {
    let g = kind.gates() * h;
    linear(n, g, h, hx, h, w_hh, b_hh, gh);
    gates(kind, n, h, gx, gh, hx, cx, h_out, c_out);
}

/// The shapes of one direction of one layer of a sequence RNN.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DirShape {
    pub kind: CellKind,
    /// Time steps `T ≥ 1`, batch `N`, input features, hidden size `H`.
    pub steps: usize,
    pub batch: usize,
    pub input: usize,
    pub hidden: usize,
    /// Directions of the layer (the output's row is `dirs·H` wide) and which one this is.
    pub dirs: usize,
    pub dir: usize,
}

/// The weights of one direction: `w_ih` `(G·H, in)`, `w_hh` `(G·H, H)`, biases of `G·H`.
pub(crate) struct DirWeights<'a, T> {
    pub w_ih: &'a [T],
    pub w_hh: &'a [T],
    pub b_ih: Option<&'a [T]>,
    pub b_hh: Option<&'a [T]>,
}

/// Runs one direction of one layer over the whole sequence `x` (`T×N×in`, contiguous):
/// writes `h_t` into columns `dir·H..(dir+1)·H` of `out` (`T×N×dirs·H`), the final hidden
/// state into `h_n` and (LSTM) the final cell state into `c_n` (both `N×H`), starting from
/// `h0`/`c0` (`N×H`). The reverse direction (`dir == 1`) walks `t = T−1 … 0`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_direction<T: RnnFloat>(
    s: DirShape,
    x: &[T],
    w: &DirWeights<'_, T>,
    h0: &[T],
    c0: &[T],
    out: &mut [T],
    h_n: &mut [T],
    c_n: &mut [T],
) {
    let (tn, n, h) = (s.steps, s.batch, s.hidden);
    let g = s.kind.gates() * h;
    let lstm = s.kind == CellKind::Lstm;
    let mut gx = vec![T::ZERO; tn * n * g];
    let b_ih = w.b_ih.map(|v| Bias {
        values: v,
        row_stride: 0,
    });
    let b_hh = w.b_hh.map(|v| Bias {
        values: v,
        row_stride: 0,
    });
    linear(tn * n, g, s.input, x, s.input, w.w_ih, b_ih, &mut gx);
    let mut gh = vec![T::ZERO; n * g];
    let mut hcur = h0.to_vec();
    let mut hnext = vec![T::ZERO; n * h];
    let mut ccur = if lstm { c0.to_vec() } else { Vec::new() };
    let mut cnext = if lstm {
        vec![T::ZERO; n * h]
    } else {
        Vec::new()
    };
    let ld = s.dirs * h;
    for step in 0..tn {
        let t = if s.dir == 1 { tn - 1 - step } else { step };
        let gxt = &gx[t * n * g..(t + 1) * n * g];
        cell_step(
            s.kind, n, h, gxt, &hcur, &ccur, w.w_hh, b_hh, &mut gh, &mut hnext, &mut cnext,
        );
        for r in 0..n {
            let o = (t * n + r) * ld + s.dir * h;
            out[o..o + h].copy_from_slice(&hnext[r * h..(r + 1) * h]);
        }
        std::mem::swap(&mut hcur, &mut hnext);
        if lstm {
            std::mem::swap(&mut ccur, &mut cnext);
        }
    }
    h_n.copy_from_slice(&hcur);
    if lstm {
        c_n.copy_from_slice(&ccur);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float32_gate_functions_match_float64() {
        let mut worst_s = 0f64;
        let mut worst_t = 0f64;
        let mut x = -30.0f32;
        while x <= 30.0 {
            let xd = x as f64;
            let s = 1.0 / (1.0 + (-xd).exp());
            let t = xd.tanh();
            worst_s = worst_s.max(((sigmoid_f32(x) as f64 - s) / s.abs().max(1e-30)).abs());
            worst_t = worst_t.max(((tanh_f32(x) as f64 - t) / t.abs().max(1e-30)).abs());
            x += 0.000_731;
        }
        assert!(worst_s < 4e-7, "sigmoid relative error {worst_s}");
        assert!(worst_t < 4e-7, "tanh relative error {worst_t}");
        assert!(sigmoid_f32(f32::NAN).is_nan() && tanh_f32(f32::NAN).is_nan());
        assert_eq!(sigmoid_f32(-200.0).min(1e-30), sigmoid_f32(-200.0));
        assert_eq!(sigmoid_f32(200.0), 1.0);
        assert_eq!(tanh_f32(200.0), 1.0);
        assert_eq!(tanh_f32(-200.0), -1.0);
        assert_eq!(tanh_f32(0.0), 0.0);
    }
}
