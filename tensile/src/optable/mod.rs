//! The op table: each op is declared once, as one row of a per-family table, and the row
//! generates the rest, as PyTorch's `native_functions.yaml` and `derivatives.yaml` entries
//! generate its variants and its `VariableType` wrappers:
//!
//! * the public methods (`f`; `f_`, in place; `f_out`, `out=`, where the family has it) with
//!   their docs;
//! * the op's id ([`OpId`]), its name, and the list of every op ([`OpId::all`]);
//! * the recording: the generated method runs the forward function the row names (in
//!   [`crate::ops`], which never names autograd) and records the row's derivative, picked by
//!   an exhaustive `match` on the id (no string dispatch, no silent fallthrough);
//! * the in-place form, derived from the out-of-place one (the result written back into
//!   `self`, with the autograd checks of [`crate::autograd`]'s in-place rule) unless the row
//!   names an in-place kernel.
//!
//! A row carries its derivative beside its forward function (tinygrad's `Function`s have the
//! two side by side), so a reader finds an op's forward, variants and gradient on one line, and
//! a new pointwise op is a row here, a kernel in `ops/` when it needs a new one, and a test
//! entry. Formulas that are more than an elementwise derivative live in
//! `autograd/formulas/` and the row names them.
//!
//! Families: [`unary`] (one tensor in, one out: `exp`, `tan`, `relu`, …), [`binary`] (two
//! operands that broadcast: `add`, `fmod`, `logaddexp`, `fmax`, …), [`ternary`] (three
//! operands: `where`, `lerp`, `addcmul`, `addcdiv`, `clamp`), [`masked`] (`masked_fill`,
//! `masked_select`, `masked_scatter`), [`copy`] (`copy_`, `fill_`, `to`, `contiguous`,
//! `clone`), [`shape`] (the shape ops that copy: `cat`, `stack`, `flip`, `roll`, `repeat`,
//! `tril`, `triu`, `narrow_copy`, `diag`, `diag_embed`, `block_diag`), [`scan`] (`cumsum`,
//! `cumprod`, `logcumsumexp` along a dim), [`softmax`] (`softmax`, `log_softmax`),
//! [`select`] (values and their indices along a dim: `cummax`, `sort`, `topk`, `max_dim`, …),
//! [`reduce`] (reductions with one result, `sum`, `var`, `norm`, …, and `var_mean`, `std_mean`),
//! [`linalg`] (the matrix products `matmul`, `mm`, `bmm`, `mv`, `dot`, `addmm`, `baddbmm`,
//! `linear`, and `linalg.cholesky`, `cholesky_ex`, `solve_triangular`), [`nn`] (the
//! `torch.nn.functional` ops whose forward code is in `ops/`: `layer_norm`),
//! [`index`] (`index_select`, `index_add`, `index_copy`, `index_fill`, `index_reduce`,
//! `x[idx]`, `index_put`, `x[idx] = v`, `embedding`; the methods of `gather`, `scatter`,
//! `scatter_add`, `scatter_reduce`, `take` in [`scatter`]), [`view`] (the ops that return
//! views: `view`, `reshape`, `squeeze`, `transpose`, `permute`, `narrow`, `select`, `expand`,
//! `diagonal`, `unfold`, `as_strided`, `split`, `chunk`, `unbind`, …).
//! A family whose ops share no signature declares its ids with `op_ids!` (one row an op: its
//! name and methods) and, by hand, the forward function each method calls and the derivative
//! picked by a `match` on the op, as the row macros would.

/// Declares a family's id enum from its rows: each variant with its doc, PyTorch's name of
/// the op and the methods the table declares for it (none for a free function); generates
/// the enum, `ALL` (the rows in table order), `name()` and `methods()`.
macro_rules! op_ids {
    (
        $(#[$meta:meta])*
        pub enum $id:ident {
            $( $(#[$vmeta:meta])* $v:ident = $name:literal [$($m:literal),* $(,)?], )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $id {
            $( $(#[$vmeta])* $v, )*
        }

        impl $id {
            /// Every op of the family, in table order.
            pub const ALL: &'static [$id] = &[$($id::$v),*];

            /// PyTorch's name of the op.
            pub fn name(self) -> &'static str {
                match self {
                    $($id::$v => $name,)*
                }
            }

            /// The methods the table declares for the op (none for a free function).
            pub fn methods(self) -> &'static [&'static str] {
                match self {
                    $($id::$v => &[$($m),*],)*
                }
            }
        }
    };
}

pub(crate) mod activation;
pub(crate) mod binary;
pub(crate) mod conv;
pub(crate) mod copy;
pub(crate) mod index;
pub(crate) mod linalg;
pub(crate) mod loss_class;
pub mod loss_opts;
pub(crate) mod masked;
pub(crate) mod nn;
pub(crate) mod norm;
pub(crate) mod optim;
pub(crate) mod pool;
pub(crate) mod random;
pub(crate) mod reduce;
pub(crate) mod resample;
pub(crate) mod rnn;
pub(crate) mod scan;
pub(crate) mod scatter;
pub(crate) mod select;
pub(crate) mod shape;
pub(crate) mod softmax;
pub(crate) mod ternary;
pub(crate) mod unary;
pub(crate) mod view;

pub use activation::ActivationId;
pub use binary::{BinaryId, MathId};
pub use conv::ConvId;
pub use copy::CopyId;
pub use index::IndexId;
pub use linalg::LinalgId;
pub use loss_class::LossId;
pub use masked::MaskedId;
pub use nn::NnId;
pub use norm::NormId;
pub use optim::OptimId;
pub use pool::PoolId;
pub use random::RandomId;
pub use reduce::{MomentsId, ReduceId};
pub use resample::ResampleId;
pub use rnn::RnnId;
pub use scan::ScanId;
pub use select::SelectId;
pub use shape::ShapeId;
pub use softmax::SoftmaxId;
pub use ternary::TernaryId;
pub use unary::UnaryId;
pub use view::ViewId;

/// An op of the table (its family and its row). [`OpId::name`] is PyTorch's name of the op
/// (`"exp"`, `"logaddexp"`); [`OpId::all`] lists every op the table declares, in table order,
/// for tools that need the op list (coverage tests, registries).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpId {
    /// A unary pointwise op.
    Unary(UnaryId),
    /// An arithmetic, comparison, logical or bitwise binary op (`add`, `eq`, `bitwise_and`, …).
    Binary(BinaryId),
    /// A binary math function (`fmod`, `hypot`, `logaddexp`, `fmax`, …).
    Math(MathId),
    /// A pointwise op of three operands (`where`, `lerp`, `addcmul`, `clamp`, …).
    Ternary(TernaryId),
    /// A mask op (`masked_fill`, `masked_select`, `masked_scatter`).
    Masked(MaskedId),
    /// A copy or cast (`copy_`, `fill_`, `to`, `contiguous`, `clone`).
    Copy(CopyId),
    /// A shape op that copies (`cat`, `stack`, `flip`, `roll`, `repeat`, `tril`, `diag`, …).
    Shape(ShapeId),
    /// A scan along a dim (`cumsum`, `cumprod`, `logcumsumexp`).
    Scan(ScanId),
    /// `softmax` or `log_softmax`.
    Softmax(SoftmaxId),
    /// An op that returns values and their indices along a dim (`cummax`, `sort`, `topk`, …).
    Select(SelectId),
    /// A reduction with one result (`sum`, `mean`, `amax`, `var`, `norm`, `median`, …).
    Reduce(ReduceId),
    /// `var_mean` or `std_mean`.
    Moments(MomentsId),
    /// A matrix product or factorisation (`matmul`, `mm`, `addmm`, `linear`, `linalg.cholesky`, …).
    Linalg(LinalgId),
    /// A `torch.nn.functional` op (`layer_norm`, `one_hot`, `cdist`, `pdist`,
    /// `scaled_dot_product_attention`).
    Nn(NnId),
    /// An index op (`index_select`, `gather`, `scatter`, `take`, `x[idx]`, `index_put`,
    /// `embedding`, …).
    Index(IndexId),
    /// A view op (`view`, `reshape`, `transpose`, `permute`, `narrow`, `expand`, `split`, …).
    View(ViewId),
    /// `F.pad`, `F.pixel_shuffle`, `F.pixel_unshuffle` or `F.interpolate`.
    Resample(ResampleId),
    /// A pooling op (`max_pool2d`, `avg_pool1d`, `adaptive_avg_pool2d`, `max_unpool2d`, …).
    Pool(PoolId),
    /// A convolution (`conv2d`, `conv_transpose1d`, …), `unfold` or `fold`.
    Conv(ConvId),
    /// A recurrent cell or layer (`lstm_cell`, `gru`, …).
    Rnn(RnnId),
    /// A normalisation (`batch_norm`, `group_norm`, `rms_norm`, …; `layer_norm` is
    /// [`OpId::Nn`]).
    Norm(NormId),
    /// An activation of `torch.nn.functional` (`softplus`, `elu`, `hardtanh`, `gelu`, `glu`, …).
    Activation(ActivationId),
    /// A class-index loss (`nll_loss`, `cross_entropy`, `ctc_loss`).
    Loss(LossId),
    /// A random fill (`uniform_`, `normal_`, `bernoulli_`, …) or `poisson`.
    Random(RandomId),
    /// An optimizer's update of one parameter (`sgd_step_`, `adam_step_`).
    Optim(OptimId),
}

impl OpId {
    /// PyTorch's name of the op (the method's name: `"exp"`, `"add"`, `"fmax"`).
    pub fn name(self) -> &'static str {
        match self {
            OpId::Unary(u) => u.name(),
            OpId::Binary(b) => b.name(),
            OpId::Math(m) => m.name(),
            OpId::Ternary(t) => t.name(),
            OpId::Masked(m) => m.name(),
            OpId::Copy(c) => c.name(),
            OpId::Shape(s) => s.name(),
            OpId::Scan(s) => s.name(),
            OpId::Softmax(s) => s.name(),
            OpId::Select(s) => s.name(),
            OpId::Reduce(r) => r.name(),
            OpId::Moments(m) => m.name(),
            OpId::Linalg(l) => l.name(),
            OpId::Nn(n) => n.name(),
            OpId::Index(i) => i.name(),
            OpId::View(v) => v.name(),
            OpId::Resample(r) => r.name(),
            OpId::Pool(p) => p.name(),
            OpId::Conv(c) => c.name(),
            OpId::Rnn(r) => r.name(),
            OpId::Norm(n) => n.name(),
            OpId::Activation(a) => a.name(),
            OpId::Loss(l) => l.name(),
            OpId::Random(r) => r.name(),
            OpId::Optim(o) => o.name(),
        }
    }

    /// The methods the op's row generates (`["exp", "exp_"]`, `["add", "add_", "add_out"]`;
    /// none for an op that is a free function only, such as `special.xlog1py`).
    pub fn methods(self) -> &'static [&'static str] {
        match self {
            OpId::Unary(u) => u.methods(),
            OpId::Binary(b) => b.methods(),
            OpId::Math(m) => m.methods(),
            OpId::Ternary(t) => t.methods(),
            OpId::Masked(m) => m.methods(),
            OpId::Copy(c) => c.methods(),
            OpId::Shape(s) => s.methods(),
            OpId::Scan(s) => s.methods(),
            OpId::Softmax(s) => s.methods(),
            OpId::Select(s) => s.methods(),
            OpId::Reduce(r) => r.methods(),
            OpId::Moments(m) => m.methods(),
            OpId::Linalg(l) => l.methods(),
            OpId::Nn(n) => n.methods(),
            OpId::Index(i) => i.methods(),
            OpId::View(v) => v.methods(),
            OpId::Resample(r) => r.methods(),
            OpId::Pool(p) => p.methods(),
            OpId::Conv(c) => c.methods(),
            OpId::Rnn(r) => r.methods(),
            OpId::Norm(n) => n.methods(),
            OpId::Activation(a) => a.methods(),
            OpId::Loss(l) => l.methods(),
            OpId::Random(r) => r.methods(),
            OpId::Optim(o) => o.methods(),
        }
    }

    /// Every op of the table, family by family, in table order.
    pub fn all() -> impl Iterator<Item = OpId> {
        let u = UnaryId::ALL.iter().map(|&u| OpId::Unary(u));
        let b = BinaryId::ALL.iter().map(|&b| OpId::Binary(b));
        let m = MathId::ALL.iter().map(|&m| OpId::Math(m));
        let t = TernaryId::ALL.iter().map(|&t| OpId::Ternary(t));
        let k = MaskedId::ALL.iter().map(|&k| OpId::Masked(k));
        let c = CopyId::ALL.iter().map(|&c| OpId::Copy(c));
        let s = ShapeId::ALL.iter().map(|&s| OpId::Shape(s));
        let scan = ScanId::ALL.iter().map(|&s| OpId::Scan(s));
        let soft = SoftmaxId::ALL.iter().map(|&s| OpId::Softmax(s));
        let sel = SelectId::ALL.iter().map(|&s| OpId::Select(s));
        let red = ReduceId::ALL.iter().map(|&r| OpId::Reduce(r));
        let mom = MomentsId::ALL.iter().map(|&m| OpId::Moments(m));
        let lin = LinalgId::ALL.iter().map(|&l| OpId::Linalg(l));
        let nn = NnId::ALL.iter().map(|&n| OpId::Nn(n));
        let idx = IndexId::ALL.iter().map(|&i| OpId::Index(i));
        let view = ViewId::ALL.iter().map(|&v| OpId::View(v));
        let resample = ResampleId::ALL.iter().map(|&r| OpId::Resample(r));
        let pool = PoolId::ALL.iter().map(|&p| OpId::Pool(p));
        let conv = ConvId::ALL.iter().map(|&c| OpId::Conv(c));
        let rnn = RnnId::ALL.iter().map(|&r| OpId::Rnn(r));
        let norm = NormId::ALL.iter().map(|&n| OpId::Norm(n));
        let act = ActivationId::ALL.iter().map(|&a| OpId::Activation(a));
        let loss = LossId::ALL.iter().map(|&l| OpId::Loss(l));
        let random = RandomId::ALL.iter().map(|&r| OpId::Random(r));
        let optim = OptimId::ALL.iter().map(|&o| OpId::Optim(o));
        u.chain(b)
            .chain(m)
            .chain(t)
            .chain(k)
            .chain(c)
            .chain(s)
            .chain(scan)
            .chain(soft)
            .chain(sel)
            .chain(red)
            .chain(mom)
            .chain(lin)
            .chain(nn)
            .chain(idx)
            .chain(view)
            .chain(resample)
            .chain(pool)
            .chain(conv)
            .chain(rnn)
            .chain(norm)
            .chain(act)
            .chain(loss)
            .chain(random)
            .chain(optim)
    }
}
