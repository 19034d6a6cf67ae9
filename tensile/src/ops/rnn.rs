//! The forward code of the recurrent cells and layers (`torch.lstm_cell`, `gru_cell`,
//! `rnn_tanh_cell`, `rnn_relu_cell`, `torch.lstm`, `gru`, `rnn_tanh`, `rnn_relu`; their
//! functions and the choice of PyTorch's recorded composite are `crate::optable::rnn`'s):
//! the checks in PyTorch's order and the fused kernels. Records nothing.
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
        _ => Err(Error::not_implemented_for(op, dt)),
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

/// A cell's checks, in the order PyTorch's cell makes them (see `crate::optable::rnn`'s
/// cells for the errors); gives the hidden size.
pub(crate) fn cell_check(
    kind: CellKind,
    input: &Tensor,
    hx: &[&Tensor],
    w_ih: &Tensor,
    w_hh: &Tensor,
    opts: &RnnCellOpts<'_>,
) -> Result<usize> {
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
    Ok(hidden)
}

/// One step of a cell by the fused kernels, after [`cell_check`] gave `hidden`: `(h', c')`
/// (`c'` for LSTM only), fresh, of `input`'s dtype (GRU's `h'` laid out after `hx`, as
/// TensorIterator lays out `(hx - n)·z + n`). Records nothing.
pub(crate) fn cell_fused(
    kind: CellKind,
    input: &Tensor,
    hx: &[&Tensor],
    w_ih: &Tensor,
    w_hh: &Tensor,
    opts: RnnCellOpts<'_>,
    hidden: usize,
) -> Result<(Tensor, Option<Tensor>)> {
    let dt = input.dtype();
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

/// The weights of one cell (layer and direction), checked against the shapes of the step.
pub(crate) struct CellParams<'a> {
    pub(crate) w_ih: &'a Tensor,
    pub(crate) w_hh: &'a Tensor,
    pub(crate) b_ih: Option<&'a Tensor>,
    pub(crate) b_hh: Option<&'a Tensor>,
}

/// Layer and parameter counting in PyTorch's order (`gather_params`, `pair_vec`,
/// `apply_layer_stack`): the cells' parameters, or the error.
pub(crate) fn gather<'a>(
    params: &[&'a Tensor],
    hiddens: usize,
    o: &RnnOpts,
) -> Result<Vec<CellParams<'a>>> {
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
/// What [`sequence_check`] settles: the time-major input `x`, the cells (layer by layer,
/// direction by direction), the number of directions and the hidden size.
pub(crate) struct SeqPlan<'a> {
    pub(crate) x: Tensor,
    pub(crate) cells: Vec<CellParams<'a>>,
    pub(crate) dirs: usize,
    pub(crate) hid: usize,
}

/// A whole sequence's checks, in PyTorch's order (see `crate::optable::rnn::lstm_with` for
/// the errors).
pub(crate) fn sequence_check<'a>(
    kind: CellKind,
    input: &Tensor,
    hx: &[&Tensor],
    params: &[&'a Tensor],
    o: &RnnOpts,
) -> Result<SeqPlan<'a>> {
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
    let cells = gather(params, hx[0].size()[0], o)?;
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
    Ok(SeqPlan {
        x,
        cells,
        dirs,
        hid,
    })
}

/// A whole sequence by the fused kernels, after [`sequence_check`] gave `plan`: `(output,
/// h_n, c_n)` (`c_n` for LSTM only), fresh, of `input`'s dtype, `output` transposed back
/// when `batch_first`. Records nothing.
pub(crate) fn sequence_fused(
    kind: CellKind,
    input: &Tensor,
    hx: &[&Tensor],
    plan: &SeqPlan<'_>,
    o: RnnOpts,
) -> Result<(Tensor, Tensor, Option<Tensor>)> {
    let dt = input.dtype();
    let (x, cells, dirs, hid) = (&plan.x, &plan.cells, plan.dirs, plan.hid);
    let (out, h_n, c_n) = match work_dtype(dt, op_name(kind, false))? {
        DType::Float64 => sequence_typed::<f64>(kind, x, hx, cells, dirs, hid)?,
        _ => sequence_typed::<f32>(kind, x, hx, cells, dirs, hid)?,
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
