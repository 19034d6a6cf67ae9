//! Recurrent cells and layers: `torch.lstm_cell`, `gru_cell`, `rnn_tanh_cell`,
//! `rnn_relu_cell` and the whole-sequence `torch.lstm`, `gru`, `rnn_tanh`, `rnn_relu` with
//! explicit weight lists (what `nn.LSTM`/`nn.GRU`/`nn.RNN` call), re-exported at the crate
//! root and in [`crate::nn::functional`].
//!
//! Gate order is PyTorch's: LSTM `i, f, g, o`, GRU `r, z, n` (row blocks of `H` in every
//! weight and bias). Inputs may have any strides; float32 and float64 run natively, float16
//! and bfloat16 compute in float32 and round the results. The hot loops are in
//! `crate::kernels::rnn` (one GEMM for all time steps' input projection, then per step one
//! GEMM and one fused gate pass).

use crate::Tensor;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernels::rnn::{self as k, Bias, CellKind, DirShape, DirWeights, RnnFloat};

/// The optional biases of a cell (`b_ih=None, b_hh=None` by default), each `(G·H,)` (or any
/// shape that broadcasts to `(N, G·H)`). `From` a single tensor (`b_ih`), a pair of tensors,
/// or a pair of `Option<&Tensor>`.
#[derive(Clone, Copy, Debug, Default)]
pub struct RnnCellOpts<'a> {
    pub b_ih: Option<&'a Tensor>,
    pub b_hh: Option<&'a Tensor>,
}

impl<'a> From<&'a Tensor> for RnnCellOpts<'a> {
    fn from(b_ih: &'a Tensor) -> Self {
        RnnCellOpts {
            b_ih: Some(b_ih),
            b_hh: None,
        }
    }
}
impl<'a> From<(&'a Tensor, &'a Tensor)> for RnnCellOpts<'a> {
    fn from((b_ih, b_hh): (&'a Tensor, &'a Tensor)) -> Self {
        RnnCellOpts {
            b_ih: Some(b_ih),
            b_hh: Some(b_hh),
        }
    }
}
impl<'a> From<(Option<&'a Tensor>, Option<&'a Tensor>)> for RnnCellOpts<'a> {
    fn from((b_ih, b_hh): (Option<&'a Tensor>, Option<&'a Tensor>)) -> Self {
        RnnCellOpts { b_ih, b_hh }
    }
}

/// The flags of `torch.lstm`/`gru`/`rnn_tanh`/`rnn_relu`, in PyTorch's order: `has_biases`,
/// `num_layers`, `dropout`, `train`, `bidirectional`, `batch_first`. PyTorch's functions take
/// them all; the defaults here are `nn.LSTM`'s constructor defaults (`true, 1, 0.0, false,
/// false, false`). `From` `has_biases` alone and from tuples of the leading flags.
#[derive(Clone, Copy, Debug)]
pub struct RnnOpts {
    pub has_biases: bool,
    pub num_layers: i64,
    pub dropout: f64,
    pub train: bool,
    pub bidirectional: bool,
    pub batch_first: bool,
}

impl Default for RnnOpts {
    fn default() -> Self {
        RnnOpts {
            has_biases: true,
            num_layers: 1,
            dropout: 0.0,
            train: false,
            bidirectional: false,
            batch_first: false,
        }
    }
}
impl From<bool> for RnnOpts {
    fn from(has_biases: bool) -> Self {
        RnnOpts {
            has_biases,
            ..Default::default()
        }
    }
}
impl From<(bool, i64)> for RnnOpts {
    fn from((has_biases, num_layers): (bool, i64)) -> Self {
        RnnOpts {
            has_biases,
            num_layers,
            ..Default::default()
        }
    }
}
impl From<(bool, i64, f64)> for RnnOpts {
    fn from((has_biases, num_layers, dropout): (bool, i64, f64)) -> Self {
        RnnOpts {
            has_biases,
            num_layers,
            dropout,
            ..Default::default()
        }
    }
}
impl From<(bool, i64, f64, bool)> for RnnOpts {
    fn from((has_biases, num_layers, dropout, train): (bool, i64, f64, bool)) -> Self {
        RnnOpts {
            has_biases,
            num_layers,
            dropout,
            train,
            ..Default::default()
        }
    }
}
impl From<(bool, i64, f64, bool, bool)> for RnnOpts {
    fn from(
        (has_biases, num_layers, dropout, train, bidirectional): (bool, i64, f64, bool, bool),
    ) -> Self {
        RnnOpts {
            has_biases,
            num_layers,
            dropout,
            train,
            bidirectional,
            batch_first: false,
        }
    }
}
impl From<(bool, i64, f64, bool, bool, bool)> for RnnOpts {
    fn from(
        (has_biases, num_layers, dropout, train, bidirectional, batch_first): (
            bool,
            i64,
            f64,
            bool,
            bool,
            bool,
        ),
    ) -> Self {
        RnnOpts {
            has_biases,
            num_layers,
            dropout,
            train,
            bidirectional,
            batch_first,
        }
    }
}

// ------------------------------------------------------------------ cells

/// `torch.lstm_cell(input, hx, w_ih, w_hh)`: one LSTM step without biases; see
/// [`lstm_cell_with`].
pub fn lstm_cell<T: AsRef<Tensor>>(
    input: &Tensor,
    hx: &[T],
    w_ih: &Tensor,
    w_hh: &Tensor,
) -> Result<(Tensor, Tensor)> {
    lstm_cell_with(input, hx, w_ih, w_hh, RnnCellOpts::default())
}

/// `torch.lstm_cell(input, hx, w_ih, w_hh, b_ih, b_hh)`: one LSTM step, returning `(h', c')`.
///
/// Shapes: `input` `(N, in)`, `hx = [h, c]` each `(N, H)`, `w_ih` `(4H, in)`, `w_hh`
/// `(4H, H)`, biases `(4H)` → `h'`, `c'` `(N, H)`, fresh and contiguous. Gates `i, f, g, o`:
/// `c' = σ(f)·c + σ(i)·tanh(g)`, `h' = σ(o)·tanh(c')` with `gates = input·w_ihᵀ + b_ih +
/// h·w_hhᵀ + b_hh`. Dtypes: one float dtype throughout.
///
/// Errors (RuntimeError unless noted), in PyTorch's order:
/// `lstm_cell expects two hidden states`;
/// `Expected 2D input (batch x feature), but got 1D input`;
/// `input has inconsistent input_size: got 3 expected 4` (`w_ih.size(1)`);
/// `Expected 2D hidden0 (batch x hidden_size), but got 1D tensor` (`hidden1` for `c`);
/// `weight_ih first dim must be 4 * hidden_size = 12, but got 8` (`hidden_size` is
/// `w_hh.size(1)`), likewise `weight_hh`;
/// `Input batch size 2 doesn't match hidden0 batch size 3`;
/// `hidden1 has inconsistent hidden_size: got 3, expected 2`;
/// a 1-D weight: IndexError `Dimension out of range (expected to be in range of [-1, 0], but got 1)`;
/// a weight of 3 or more dims: `t() expects a tensor with <= 2 dimensions, but self is 3D`;
/// a bias that does not broadcast to `(N, 4H)`: `expand`'s error
/// (`The expanded size of the tensor (8) must match the existing size (7) at non-singleton dimension 1.  Target sizes: [2, 8].  Tensor sizes: [7]`);
/// mixed dtypes: `expected m1 and m2 to have the same dtype, but got: double != float`;
/// an integer or bool dtype: NotImplementedError `"lstm_cell" not implemented for 'Long'`.
pub fn lstm_cell_with<'a, T: AsRef<Tensor>>(
    input: &Tensor,
    hx: &[T],
    w_ih: &Tensor,
    w_hh: &Tensor,
    opts: impl Into<RnnCellOpts<'a>>,
) -> Result<(Tensor, Tensor)> {
    if hx.len() != 2 {
        return Err(Error::runtime("lstm_cell expects two hidden states"));
    }
    let hx: Vec<&Tensor> = hx.iter().map(|t| t.as_ref()).collect();
    let (h, c) = cell(CellKind::Lstm, input, &hx, w_ih, w_hh, opts.into())?;
    Ok((h, c.expect("an LSTM cell returns a cell state")))
}

macro_rules! one_state_cell {
    ($name:ident, $name_with:ident, $kind:expr, $g:literal, $torch:literal, $math:literal) => {
        #[doc = concat!("`torch.", $torch, "(input, hx, w_ih, w_hh)`: one step without biases; see [`", stringify!($name_with), "`].")]
        pub fn $name(input: &Tensor, hx: &Tensor, w_ih: &Tensor, w_hh: &Tensor) -> Result<Tensor> {
            $name_with(input, hx, w_ih, w_hh, RnnCellOpts::default())
        }

        #[doc = concat!("`torch.", $torch, "(input, hx, w_ih, w_hh, b_ih, b_hh)`: one step, returning `h'`.")]
        ///
        #[doc = concat!("Shapes: `input` `(N, in)`, `hx` `(N, H)`, `w_ih` `(", $g, "H, in)`, `w_hh` `(", $g, "H, H)`, biases `(", $g, "H)` → `h'` `(N, H)`, fresh and contiguous: ", $math, ". Dtypes: one float dtype throughout.")]
        ///
        /// Errors (RuntimeError unless noted), in PyTorch's order:
        /// `Expected 2D input (batch x feature), but got 1D input`;
        /// `input has inconsistent input_size: got 3 expected 4` (`w_ih.size(1)`);
        /// `Expected 2D hidden0 (batch x hidden_size), but got 1D tensor`;
        #[doc = concat!("`weight_ih first dim must be ", $g, " * hidden_size = 6, but got 5` (`hidden_size` is `w_hh.size(1)`), likewise `weight_hh`;")]
        /// `Input batch size 2 doesn't match hidden0 batch size 3`;
        /// `hidden0 has inconsistent hidden_size: got 2, expected 3`;
        /// a 1-D weight: IndexError `Dimension out of range (expected to be in range of [-1, 0], but got 1)`;
        /// a weight of 3 or more dims: `t() expects a tensor with <= 2 dimensions, but self is 3D`;
        /// a bias that does not broadcast to `(N, G·H)`: `expand`'s error;
        /// mixed dtypes: `expected m1 and m2 to have the same dtype, but got: double != float`;
        #[doc = concat!("an integer or bool dtype: NotImplementedError `\"", $torch, "\" not implemented for 'Long'`.")]
        pub fn $name_with<'a>(
            input: &Tensor,
            hx: &Tensor,
            w_ih: &Tensor,
            w_hh: &Tensor,
            opts: impl Into<RnnCellOpts<'a>>,
        ) -> Result<Tensor> {
            Ok(cell($kind, input, &[hx], w_ih, w_hh, opts.into())?.0)
        }
    };
}

one_state_cell!(
    gru_cell,
    gru_cell_with,
    CellKind::Gru,
    "3",
    "gru_cell",
    "gates `r, z, n`, `n = tanh(xn + σ(r)·hn)`, `h' = (1 − σ(z))·n + σ(z)·h`"
);
one_state_cell!(
    rnn_tanh_cell,
    rnn_tanh_cell_with,
    CellKind::RnnTanh,
    "1",
    "rnn_tanh_cell",
    "`h' = tanh(input·w_ihᵀ + b_ih + hx·w_hhᵀ + b_hh)`"
);
one_state_cell!(
    rnn_relu_cell,
    rnn_relu_cell_with,
    CellKind::RnnRelu,
    "1",
    "rnn_relu_cell",
    "`h' = relu(input·w_ihᵀ + b_ih + hx·w_hhᵀ + b_hh)`"
);

fn op_name(kind: CellKind, cell: bool) -> &'static str {
    match (kind, cell) {
        (CellKind::Lstm, true) => "lstm_cell",
        (CellKind::Gru, true) => "gru_cell",
        (CellKind::RnnTanh, true) => "rnn_tanh_cell",
        (CellKind::RnnRelu, true) => "rnn_relu_cell",
        (CellKind::Lstm, false) => "lstm",
        (CellKind::Gru, false) => "gru",
        (CellKind::RnnTanh, false) => "rnn_tanh",
        (CellKind::RnnRelu, false) => "rnn_relu",
    }
}

/// The dtype the kernels run in for `dt`, or PyTorch-style refusal for non-float dtypes.
fn work_dtype(dt: DType, op: &str) -> Result<DType> {
    match dt {
        DType::Float32 | DType::Float64 => Ok(dt),
        DType::Float16 | DType::BFloat16 => Ok(DType::Float32),
        _ => Err(Error::not_implemented(format!(
            "\"{op}\" not implemented for '{}'",
            dt.scalar_type_name()
        ))),
    }
}

/// Every tensor has the input's dtype, else matmul's dtype error.
fn check_same_dtype<'a>(
    input: &Tensor,
    others: impl IntoIterator<Item = &'a Tensor>,
) -> Result<()> {
    for t in others {
        if t.dtype() != input.dtype() {
            let c = |d: DType| d.scalar_type_name().to_lowercase();
            return Err(Error::runtime(format!(
                "expected m1 and m2 to have the same dtype, but got: {} != {}",
                c(input.dtype()),
                c(t.dtype())
            )));
        }
    }
    Ok(())
}

/// A weight must be a matrix (`t()`'s rule; a 1-D weight fails on `size(1)` first).
fn check_matrix(w: &Tensor) -> Result<()> {
    w.size_of(1)?;
    if w.dim() > 2 {
        return Err(Error::runtime(format!(
            "t() expects a tensor with <= 2 dimensions, but self is {}D",
            w.dim()
        )));
    }
    Ok(())
}

/// A bias broadcast to `(rows, n)`: one row when it broadcasts along rows, else every row.
fn bias_rows<T: Element>(b: &Tensor, rows: usize, n: usize) -> Result<(Vec<T>, usize)> {
    let e = b.expand([rows, n])?;
    if e.stride()[0] == 0 || rows <= 1 {
        let row = e.narrow(0, 0, rows.min(1))?;
        let mut v = row.try_to_vec::<T>()?;
        if rows == 0 {
            v = b.expand([1, n])?.try_to_vec::<T>()?;
        }
        Ok((v, 0))
    } else {
        Ok((e.try_to_vec::<T>()?, n))
    }
}

/// A bias from [`bias_rows`] as the kernels take it.
fn as_bias<T>(b: &Option<(Vec<T>, usize)>) -> Option<Bias<'_, T>> {
    b.as_ref().map(|(v, rs)| Bias {
        values: v,
        row_stride: *rs,
    })
}

/// The shared body of the four cells: validation in PyTorch's order, then one step.
fn cell(
    kind: CellKind,
    input: &Tensor,
    hx: &[&Tensor],
    w_ih: &Tensor,
    w_hh: &Tensor,
    opts: RnnCellOpts<'_>,
) -> Result<(Tensor, Option<Tensor>)> {
    let g = kind.gates();
    let check_input = || -> Result<()> {
        if input.dim() != 2 {
            return Err(Error::runtime(format!(
                "Expected 2D input (batch x feature), but got {}D input",
                input.dim()
            )));
        }
        let in_w = w_ih.size_of(1)?;
        if input.size()[1] != in_w {
            return Err(Error::runtime(format!(
                "input has inconsistent input_size: got {} expected {}",
                input.size()[1],
                in_w
            )));
        }
        Ok(())
    };
    let check_weights = || -> Result<()> {
        let hidden = w_hh.size_of(1)?;
        for (name, w) in [("weight_ih", w_ih), ("weight_hh", w_hh)] {
            // a 0-d weight: PyTorch's `size(0)` IndexError
            let rows = w.size_of(0)?;
            if rows != g * hidden {
                return Err(Error::runtime(format!(
                    "{name} first dim must be {g} * hidden_size = {}, but got {rows}",
                    g * hidden,
                )));
            }
        }
        Ok(())
    };
    let check_hidden = || -> Result<()> {
        let hidden = w_hh.size_of(1)?;
        for (i, t) in hx.iter().enumerate() {
            if t.dim() != 2 {
                return Err(Error::runtime(format!(
                    "Expected 2D hidden{i} (batch x hidden_size), but got {}D tensor",
                    t.dim()
                )));
            }
            if t.size()[0] != input.size()[0] {
                return Err(Error::runtime(format!(
                    "Input batch size {} doesn't match hidden{i} batch size {}",
                    input.size()[0],
                    t.size()[0]
                )));
            }
            if t.size()[1] != hidden {
                return Err(Error::runtime(format!(
                    "hidden{i} has inconsistent hidden_size: got {}, expected {hidden}",
                    t.size()[1]
                )));
            }
        }
        Ok(())
    };
    // PyTorch's cells check in different orders
    match kind {
        CellKind::Lstm => {
            check_input()?;
            check_weights()?;
            check_hidden()?;
        }
        CellKind::Gru => {
            check_input()?;
            check_hidden()?;
            check_weights()?;
        }
        CellKind::RnnTanh | CellKind::RnnRelu => {
            check_weights()?;
            check_input()?;
            check_hidden()?;
        }
    }
    let hidden = w_hh.size()[1];
    let n = input.size()[0];
    check_matrix(w_ih)?;
    check_matrix(w_hh)?;
    let biases: Vec<&Tensor> = [opts.b_ih, opts.b_hh].into_iter().flatten().collect();
    check_same_dtype(
        input,
        hx.iter()
            .copied()
            .chain([w_ih, w_hh])
            .chain(biases.iter().copied()),
    )?;
    let gh = g * hidden;
    for b in &biases {
        b.expand([n, gh])?;
    }
    let dt = input.dtype();
    let mut operands = vec![input, w_ih, w_hh];
    operands.extend(hx.iter().copied());
    operands.extend(biases.iter().copied());
    if crate::autograd::api::any_requires_grad(&operands) && dt.is_floating_point() {
        // recording: PyTorch's composite cell, with recorded ops
        return crate::autograd::formulas::rnn::cell_composite(
            kind, input, hx, w_ih, w_hh, opts.b_ih, opts.b_hh,
        );
    }
    let out = match work_dtype(dt, op_name(kind, true))? {
        DType::Float64 => cell_typed::<f64>(kind, input, hx, w_ih, w_hh, opts, hidden)?,
        _ => cell_typed::<f32>(kind, input, hx, w_ih, w_hh, opts, hidden)?,
    };
    let (h, c) = out;
    let (h, c) = if h.dtype() != dt {
        (h.to(dt)?, c.map(|c| c.to(dt)).transpose()?)
    } else {
        (h, c)
    };
    if kind == CellKind::Gru {
        // `(hx - n)·z + n`: TensorIterator lays the result out after `hx`
        let st = crate::iter::new_output_strides(h.size(), &[hx[0], &h]);
        if st[..] != h.stride()[..] {
            return Ok((crate::ops::copy::copy_with_strides(&h, &st, dt)?, c));
        }
    }
    Ok((h, c))
}

fn cell_typed<T: RnnFloat + Element>(
    kind: CellKind,
    input: &Tensor,
    hx: &[&Tensor],
    w_ih: &Tensor,
    w_hh: &Tensor,
    opts: RnnCellOpts<'_>,
    hidden: usize,
) -> Result<(Tensor, Option<Tensor>)> {
    let (n, ins) = (input.size()[0], input.size()[1]);
    let g = kind.gates() * hidden;
    let x = input.try_to_vec::<T>()?;
    let wi = w_ih.try_to_vec::<T>()?;
    let wh = w_hh.try_to_vec::<T>()?;
    let bi = opts.b_ih.map(|b| bias_rows::<T>(b, n, g)).transpose()?;
    let bh = opts.b_hh.map(|b| bias_rows::<T>(b, n, g)).transpose()?;
    let hv = hx[0].try_to_vec::<T>()?;
    let lstm = kind == CellKind::Lstm;
    let cv = if lstm {
        hx[1].try_to_vec::<T>()?
    } else {
        Vec::new()
    };
    let mut gx = crate::error::try_filled(T::ZERO, n * g)?;
    k::linear(n, g, ins, &x, ins, &wi, as_bias(&bi), &mut gx);
    let mut gh = crate::error::try_filled(T::ZERO, n * g)?;
    let mut h_out = crate::error::try_filled(T::ZERO, n * hidden)?;
    let mut c_out = if lstm {
        crate::error::try_filled(T::ZERO, n * hidden)?
    } else {
        Vec::new()
    };
    k::cell_step(
        kind,
        n,
        hidden,
        &gx,
        &hv,
        &cv,
        &wh,
        as_bias(&bh),
        &mut gh,
        &mut h_out,
        &mut c_out,
    );
    let h = Tensor::from_vec(h_out, [n, hidden])?;
    let c = if lstm {
        Some(Tensor::from_vec(c_out, [n, hidden])?)
    } else {
        None
    };
    Ok((h, c))
}

// ------------------------------------------------------------------ sequences

/// `torch.lstm(input, hx, params, True, 1, 0.0, False, False, False)`; see [`lstm_with`].
pub fn lstm<T: AsRef<Tensor>, P: AsRef<Tensor>>(
    input: &Tensor,
    hx: &[T],
    params: &[P],
) -> Result<(Tensor, Tensor, Tensor)> {
    lstm_with(input, hx, params, RnnOpts::default())
}

/// `torch.lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
/// batch_first)`: a whole multi-layer LSTM over a sequence, returning `(output, h_n, c_n)`.
///
/// Shapes: `input` `(T, N, in)` (`(N, T, in)` when `batch_first`), `hx = [h0, c0]` each
/// `(L·D, N, H)` (`L = num_layers`, `D` = 2 when `bidirectional`, else 1), `params` in
/// `nn.LSTM`'s `_flat_weights` order: per layer, per direction (forward, then reverse),
/// `w_ih (4H, in_l)`, `w_hh (4H, H)`, then `b_ih (4H)`, `b_hh (4H)` when `has_biases`
/// (`in_l` = `in` for layer 0, `D·H` above). Results: `output` `(T, N, D·H)` contiguous (with
/// `batch_first`, its `transpose(0, 1)`: `(N, T, D·H)` with strides `(D·H, N·D·H, 1)`, as
/// PyTorch returns it), `h_n`, `c_n` `(L·D, N, H)` contiguous. Each step is
/// [`lstm_cell_with`]'s math. `dropout` applies between layers only when `train` (not
/// supported: see the errors).
///
/// Errors (RuntimeError unless noted): `lstm expects two hidden states`;
/// `Expected sequence length to be larger than 0 in RNN`;
/// `got an incorrect number of RNN parameters` (not a multiple of 4, or 2 without biases);
/// `Odd number of params or hiddens given to a bidirectional RNN`;
/// `Expected more hidden states in stacked_rnn` (`h0.size(0) != L·D`);
/// `Expected more weights in stacked_rnn`;
/// `Input and parameter tensors are not the same dtype, found input tensor with Float and parameter tensor with Double` (`hidden` likewise);
/// shape mismatches inside the products:
/// `addmm: mat1 and mat2 shapes cannot be multiplied (6x3 and 4x8)` (`mm:` without biases),
/// `weight_hh first dim must be 4 * hidden_size = 8, but got 6`,
/// `The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0`
/// (batch of `h0`/`c0`), `expand`'s error for a bias; an input that is not 3-D: IndexError
/// `Dimension out of range (expected to be in range of [-2, 1], but got 2)` or RuntimeError
/// `input must have 3 dimensions, got 4`; NotImplementedError for dropout > 0 with `train`
/// and several layers (random masks), for LSTM projections (`h0`, `c0` of different sizes),
/// and for integer dtypes.
pub fn lstm_with<T: AsRef<Tensor>, P: AsRef<Tensor>>(
    input: &Tensor,
    hx: &[T],
    params: &[P],
    opts: impl Into<RnnOpts>,
) -> Result<(Tensor, Tensor, Tensor)> {
    if hx.len() != 2 {
        return Err(Error::runtime("lstm expects two hidden states"));
    }
    let hx: Vec<&Tensor> = hx.iter().map(|t| t.as_ref()).collect();
    let params: Vec<&Tensor> = params.iter().map(|t| t.as_ref()).collect();
    let (o, h, c) = sequence(CellKind::Lstm, input, &hx, &params, opts.into())?;
    Ok((o, h, c.expect("an LSTM returns a cell state")))
}

macro_rules! one_state_rnn {
    ($name:ident, $name_with:ident, $kind:expr, $g:literal, $torch:literal, $cell:literal) => {
        #[doc = concat!("`torch.", $torch, "(input, hx, params, True, 1, 0.0, False, False, False)`; see [`", stringify!($name_with), "`].")]
        pub fn $name<P: AsRef<Tensor>>(
            input: &Tensor,
            hx: &Tensor,
            params: &[P],
        ) -> Result<(Tensor, Tensor)> {
            $name_with(input, hx, params, RnnOpts::default())
        }

        #[doc = concat!("`torch.", $torch, "(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)`: a whole multi-layer recurrent layer over a sequence, returning `(output, h_n)`.")]
        ///
        /// Shapes: `input` `(T, N, in)` (`(N, T, in)` when `batch_first`), `hx` `(L·D, N, H)`,
        #[doc = concat!("`params` per layer, per direction: `w_ih (", $g, "H, in_l)`, `w_hh (", $g, "H, H)`, then `b_ih`, `b_hh` `(", $g, "H)` when `has_biases`. Each step is [`", $cell, "`]'s math.")]
        /// Results: `output` `(T, N, D·H)` contiguous (with `batch_first` its
        /// `transpose(0, 1)`), `h_n` `(L·D, N, H)` contiguous. Errors as [`lstm_with`]'s
        /// (without the two-hidden-states one).
        pub fn $name_with<P: AsRef<Tensor>>(
            input: &Tensor,
            hx: &Tensor,
            params: &[P],
            opts: impl Into<RnnOpts>,
        ) -> Result<(Tensor, Tensor)> {
            let params: Vec<&Tensor> = params.iter().map(|t| t.as_ref()).collect();
            let (o, h, _) = sequence($kind, input, &[hx], &params, opts.into())?;
            Ok((o, h))
        }
    };
}

one_state_rnn!(gru, gru_with, CellKind::Gru, "3", "gru", "gru_cell_with");
one_state_rnn!(
    rnn_tanh,
    rnn_tanh_with,
    CellKind::RnnTanh,
    "1",
    "rnn_tanh",
    "rnn_tanh_cell_with"
);
one_state_rnn!(
    rnn_relu,
    rnn_relu_with,
    CellKind::RnnRelu,
    "1",
    "rnn_relu",
    "rnn_relu_cell_with"
);

/// The weights of one cell (layer and direction), checked against the shapes of the step.
struct CellParams<'a> {
    w_ih: &'a Tensor,
    w_hh: &'a Tensor,
    b_ih: Option<&'a Tensor>,
    b_hh: Option<&'a Tensor>,
}

/// Layer and parameter counting in PyTorch's order (`gather_params`, `pair_vec`,
/// `apply_layer_stack`): the cells' parameters, or the error.
fn gather<'a>(params: &[&'a Tensor], hiddens: usize, o: &RnnOpts) -> Result<Vec<CellParams<'a>>> {
    let per = if o.has_biases { 4 } else { 2 };
    if !params.len().is_multiple_of(per) {
        return Err(Error::runtime("got an incorrect number of RNN parameters"));
    }
    let cells: Vec<CellParams<'a>> = params
        .chunks(per)
        .map(|c| CellParams {
            w_ih: c[0],
            w_hh: c[1],
            b_ih: c.get(2).copied(),
            b_hh: c.get(3).copied(),
        })
        .collect();
    let d = if o.bidirectional { 2 } else { 1 };
    if o.bidirectional && (!cells.len().is_multiple_of(2) || !hiddens.is_multiple_of(2)) {
        return Err(Error::runtime(
            "Odd number of params or hiddens given to a bidirectional RNN",
        ));
    }
    if o.num_layers != (hiddens / d) as i64 {
        return Err(Error::runtime("Expected more hidden states in stacked_rnn"));
    }
    if o.num_layers != (cells.len() / d) as i64 {
        return Err(Error::runtime("Expected more weights in stacked_rnn"));
    }
    Ok(cells)
}

/// The shared body of the four sequence ops: `(output, h_n, c_n)`.
fn sequence(
    kind: CellKind,
    input: &Tensor,
    hx: &[&Tensor],
    params: &[&Tensor],
    o: RnnOpts,
) -> Result<(Tensor, Tensor, Option<Tensor>)> {
    let lstm = kind == CellKind::Lstm;
    if lstm && hx[0].dim() < 3 {
        hx[0].size_of(2)?;
    }
    if input.dim() != 3 {
        if input.dim() == 2 && !lstm {
            return Err(Error::index(
                "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
            ));
        }
        return Err(Error::runtime(format!(
            "input must have 3 dimensions, got {}",
            input.dim()
        )));
    }
    for h in hx {
        if h.dim() != 3 {
            return Err(Error::runtime(format!(
                "hx must have 3 dimensions, got {}",
                h.dim()
            )));
        }
    }
    for (name, group) in [("hidden", hx), ("parameter", params)] {
        for t in group {
            if t.dtype() != input.dtype() {
                return Err(Error::runtime(format!(
                    "Input and {name} tensors are not the same dtype, found input tensor with {} and {name} tensor with {}",
                    input.dtype().scalar_type_name(),
                    t.dtype().scalar_type_name()
                )));
            }
        }
    }
    if lstm && hx[0].size() != hx[1].size() {
        if hx[0].size()[2] != hx[1].size()[2] {
            return Err(Error::not_implemented(
                "tensile: LSTM with projections (h0 and c0 of different hidden sizes) is not supported",
            ));
        }
        return Err(Error::runtime(format!(
            "The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton dimension 0",
            hx[1].size()[1],
            hx[0].size()[1]
        )));
    }
    let x = if o.batch_first {
        input.transpose(0, 1)?
    } else {
        input.alias()
    };
    let (steps, batch) = (x.size()[0], x.size()[1]);
    if steps == 0 {
        return Err(Error::runtime(
            "Expected sequence length to be larger than 0 in RNN",
        ));
    }
    let cells = gather(params, hx[0].size()[0], &o)?;
    let dirs = if o.bidirectional { 2 } else { 1 };
    if o.train && o.dropout > 0.0 && o.num_layers > 1 {
        return Err(Error::not_implemented(
            "tensile: dropout between RNN layers in training mode is not supported",
        ));
    }
    // shapes, layer by layer, as the products would find them
    let g = kind.gates();
    let hid = hx[0].size()[2];
    let mut in_l = x.size()[2];
    for (ci, c) in cells.iter().enumerate() {
        check_matrix(c.w_ih)?;
        check_matrix(c.w_hh)?;
        let pre = if c.b_ih.is_some() { "addmm: " } else { "mm: " };
        let (wo, wi) = (c.w_ih.size()[0], c.w_ih.size()[1]);
        if wi != in_l {
            return Err(Error::runtime(format!(
                "{pre}mat1 and mat2 shapes cannot be multiplied ({}x{in_l} and {wi}x{wo})",
                steps * batch
            )));
        }
        let (ho, hi) = (c.w_hh.size()[0], c.w_hh.size()[1]);
        if hi != hid {
            return Err(Error::runtime(format!(
                "{pre}mat1 and mat2 shapes cannot be multiplied ({batch}x{hid} and {hi}x{ho})"
            )));
        }
        for (name, rows) in [("weight_ih", wo), ("weight_hh", ho)] {
            if rows != g * hid {
                return Err(Error::runtime(format!(
                    "{name} first dim must be {g} * hidden_size = {}, but got {rows}",
                    g * hid
                )));
            }
        }
        for b in [c.b_ih, c.b_hh].into_iter().flatten() {
            b.expand([steps * batch, g * hid])?;
        }
        if hx[0].size()[1] != batch {
            return Err(Error::runtime(format!(
                "The size of tensor a ({}) must match the size of tensor b ({batch}) at non-singleton dimension 0",
                hx[0].size()[1]
            )));
        }
        if ci % dirs == dirs - 1 {
            in_l = dirs * hid;
        }
    }
    let dt = input.dtype();
    let operands: Vec<&Tensor> = std::iter::once(input)
        .chain(hx.iter().copied())
        .chain(params.iter().copied())
        .collect();
    if crate::autograd::api::any_requires_grad(&operands) && dt.is_floating_point() {
        // recording: PyTorch's composite, one recorded cell per step
        let cw: Vec<_> = cells
            .iter()
            .map(|c| (c.w_ih, c.w_hh, c.b_ih, c.b_hh))
            .collect();
        let (out, h_n, c_n) =
            crate::autograd::formulas::rnn::sequence_composite(kind, &x, hx, &cw, dirs)?;
        let out = if o.batch_first {
            out.transpose(0, 1)?
        } else {
            out
        };
        return Ok((out, h_n, c_n));
    }
    let (out, h_n, c_n) = match work_dtype(dt, op_name(kind, false))? {
        DType::Float64 => sequence_typed::<f64>(kind, &x, hx, &cells, dirs, hid)?,
        _ => sequence_typed::<f32>(kind, &x, hx, &cells, dirs, hid)?,
    };
    let (out, h_n, c_n) = if out.dtype() != dt {
        (out.to(dt)?, h_n.to(dt)?, c_n.map(|c| c.to(dt)).transpose()?)
    } else {
        (out, h_n, c_n)
    };
    let out = if o.batch_first {
        out.transpose(0, 1)?
    } else {
        out
    };
    Ok((out, h_n, c_n))
}

/// One bias as the kernels take it: a single row of `G·H` values, or (a bias of another
/// broadcastable shape) every row.
fn seq_bias<T: Element>(b: Option<&Tensor>, rows: usize, n: usize) -> Result<Option<Vec<T>>> {
    b.map(|b| {
        let e = b.expand([rows, n])?;
        if e.stride()[0] == 0 || rows <= 1 {
            bias_rows::<T>(b, rows, n).map(|(v, _)| v)
        } else {
            Err(Error::not_implemented(
                "tensile: an RNN bias that varies along the time or batch dims is not supported",
            ))
        }
    })
    .transpose()
}

fn sequence_typed<T: RnnFloat + Element>(
    kind: CellKind,
    x: &Tensor,
    hx: &[&Tensor],
    cells: &[CellParams<'_>],
    dirs: usize,
    hid: usize,
) -> Result<(Tensor, Tensor, Option<Tensor>)> {
    let (steps, batch) = (x.size()[0], x.size()[1]);
    let lstm = kind == CellKind::Lstm;
    let g = kind.gates() * hid;
    let layers = cells.len() / dirs;
    let h0 = hx[0].try_to_vec::<T>()?;
    let c0 = if lstm {
        hx[1].try_to_vec::<T>()?
    } else {
        Vec::new()
    };
    let nh = batch * hid;
    let mut h_n = crate::error::try_filled(T::ZERO, layers * dirs * nh)?;
    let mut c_n = if lstm {
        crate::error::try_filled(T::ZERO, layers * dirs * nh)?
    } else {
        Vec::new()
    };
    let mut cur = x.try_to_vec::<T>()?;
    let mut in_l = x.size()[2];
    for l in 0..layers {
        let mut out = crate::error::try_filled(T::ZERO, steps * batch * dirs * hid)?;
        for d in 0..dirs {
            let c = &cells[l * dirs + d];
            let w_ih = c.w_ih.try_to_vec::<T>()?;
            let w_hh = c.w_hh.try_to_vec::<T>()?;
            let b_ih = seq_bias::<T>(c.b_ih, steps * batch, g)?;
            let b_hh = seq_bias::<T>(c.b_hh, batch, g)?;
            let w = DirWeights {
                w_ih: &w_ih,
                w_hh: &w_hh,
                b_ih: b_ih.as_deref(),
                b_hh: b_hh.as_deref(),
            };
            let s = DirShape {
                kind,
                steps,
                batch,
                input: in_l,
                hidden: hid,
                dirs,
                dir: d,
            };
            let idx = l * dirs + d;
            let hs = &h0[idx * nh..(idx + 1) * nh];
            let cs = if lstm {
                &c0[idx * nh..(idx + 1) * nh]
            } else {
                &[][..]
            };
            let (hn, cn) = (
                &mut h_n[idx * nh..(idx + 1) * nh],
                if lstm {
                    &mut c_n[idx * nh..(idx + 1) * nh]
                } else {
                    &mut [][..]
                },
            );
            k::run_direction(s, &cur, &w, hs, cs, &mut out, hn, cn);
        }
        cur = out;
        in_l = dirs * hid;
    }
    // `in_l` is `dirs·H` after any layer (the input's width for `num_layers = 0`)
    let out = Tensor::from_vec(cur, [steps, batch, in_l])?;
    let h = Tensor::from_vec(h_n, [layers * dirs, batch, hid])?;
    let c = if lstm {
        Some(Tensor::from_vec(c_n, [layers * dirs, batch, hid])?)
    } else {
        None
    };
    Ok((out, h, c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: &[f64], shape: &[usize]) -> Tensor {
        Tensor::from_vec(v.to_vec(), shape).unwrap()
    }

    #[test]
    fn lstm_cell_matches_the_gate_formulas() {
        // N=1, in=1, H=1: gates = x*w_ih + h*w_hh (no biases)
        let x = t(&[0.5], &[1, 1]);
        let h = t(&[0.25], &[1, 1]);
        let c = t(&[-0.5], &[1, 1]);
        let w_ih = t(&[1.0, -1.0, 0.5, 2.0], &[4, 1]);
        let w_hh = t(&[0.5, 0.25, -1.0, 1.0], &[4, 1]);
        let (h1, c1) = lstm_cell(&x, &[&h, &c], &w_ih, &w_hh).unwrap();
        let sg = |v: f64| 1.0 / (1.0 + (-v).exp());
        let gi = sg(0.5 + 0.125);
        let gf = sg(-0.5 + 0.0625);
        let gg = (0.25f64 - 0.25).tanh();
        let go = sg(1.0 + 0.25);
        let cy = gf * -0.5 + gi * gg;
        assert!((c1.item::<f64>().unwrap() - cy).abs() < 1e-15);
        assert!((h1.item::<f64>().unwrap() - go * cy.tanh()).abs() < 1e-15);
    }

    #[test]
    fn parameter_counting_follows_pytorch() {
        let w = t(&[0.0; 3], &[3, 1]);
        let p = [&w, &w, &w];
        let o = RnnOpts::default();
        let e = gather(&p, 1, &o).err().unwrap();
        assert_eq!(e.to_string(), "got an incorrect number of RNN parameters");
        let p4 = [&w, &w, &w, &w];
        let o2 = RnnOpts::from((false, 1));
        assert_eq!(
            gather(&p4, 2, &o2).err().unwrap().to_string(),
            "Expected more hidden states in stacked_rnn"
        );
        assert_eq!(
            gather(&p4, 1, &o2).err().unwrap().to_string(),
            "Expected more weights in stacked_rnn"
        );
        let o3 = RnnOpts {
            bidirectional: true,
            ..o2
        };
        assert_eq!(
            gather(&p4, 1, &o3).err().unwrap().to_string(),
            "Odd number of params or hiddens given to a bidirectional RNN"
        );
        assert_eq!(gather(&p4, 2, &o3).unwrap().len(), 2);
    }

    #[test]
    fn batch_first_output_is_the_transposed_time_major_result() {
        let x = Tensor::from_vec((0..12).map(|i| i as f32 / 16.0).collect(), [2, 3, 2]).unwrap();
        let h0 = Tensor::zeros([1, 2, 2]).unwrap();
        let w_ih = Tensor::from_vec(vec![0.5f32, -0.25, 0.125, 1.0], [2, 2]).unwrap();
        let w_hh = Tensor::from_vec(vec![0.25f32, 0.5, -0.5, 0.75], [2, 2]).unwrap();
        let p = [&w_ih, &w_hh];
        let (o, h) = rnn_tanh_with(&x, &h0, &p, (false, 1, 0.0, false, false, true)).unwrap();
        assert_eq!(o.size(), &[2, 3, 2]);
        assert_eq!(o.stride(), &[2, 4, 1]);
        assert_eq!(h.stride(), &[4, 2, 1]);
        // the last step of each batch row is h_n
        let last = o.select(1, 2).unwrap().contiguous();
        assert_eq!(
            last.to_vec::<f32>(),
            h.select(0, 0).unwrap().to_vec::<f32>()
        );
    }
}
