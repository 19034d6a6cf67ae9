//! Recurrent layers: which recurrence a cell runs ([`CellKind`]) and its gate count, the
//! number of `hidden_size` row blocks of its weights (`w_ih` is `(G·hidden, input)`).

/// Which recurrence: the gate count `G` and the gate math.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum CellKind {
    /// Gates i, f, g, o: `c' = σ(f)·c + σ(i)·tanh(g)`, `h' = σ(o)·tanh(c')`.
    Lstm,
    /// Gates r, z, n: `n = tanh(xn + σ(r)·hn)`, `h' = (1 − σ(z))·n + σ(z)·h`.
    Gru,
    /// `h' = tanh(x·W_ihᵀ + b_ih + h·W_hhᵀ + b_hh)`.
    RnnTanh,
    /// As [`CellKind::RnnTanh`] with `relu`.
    RnnRelu,
}

impl CellKind {
    /// Gates per hidden unit: 4 (LSTM), 3 (GRU), 1 (tanh/ReLU).
    pub(crate) fn gates(self) -> usize {
        match self {
            CellKind::Lstm => 4,
            CellKind::Gru => 3,
            CellKind::RnnTanh | CellKind::RnnRelu => 1,
        }
    }
}
