//! THE OP TABLE (OpInfo, after PyTorch's `torch/testing/_internal/common_methods_invocations.py`):
//! one entry per op, read by every test-side consumer so that an op is written down once:
//!
//! * the conformance runner (`tests/conformance.rs`) dispatches a corpus case by the entry's
//!   [`OpInfo::name`] (and `name_` to its in-place form) through [`OpInfo::run`];
//! * the gradient check (`tests/gradcheck.rs`) makes one row per [`Sample`] in
//!   [`OpInfo::grad`], calling the same adapter, and takes [`OpInfo::nograd`] as the reason an
//!   op has none;
//! * the benchmark (`examples/bench_ops`) runs the `bench/ops.txt` rows whose op is
//!   [`OpInfo::bench`] through the same adapter;
//! * the fuzzer (`fuzz/src/program.rs`) calls every [`Sig::Unary`] and [`Sig::Binary`] entry
//!   with [`OpInfo::fuzz`] from its pointwise arms, every [`Sig::Reduce`] and
//!   [`Sig::ReduceDim`] one from its reduction arm, every [`Sig::Scan`] one from its scan arm,
//!   and every entry with a [`Sample`] from its sample arm (the sample's argument structure
//!   with the fuzzer's tensors and numbers);
//! * `tests/op_table.rs` renders README.md's call tables from [`OpInfo::docs`] and fails
//!   when they differ.
//!
//! The families live in one file each (`unary.rs`, `binary.rs`, `ternary.rs`, `reduce.rs`,
//! `scan.rs`, `sort.rs`, `index.rs`, `shape.rs`, `views.rs`, `creation.rs`, `attention.rs`, `rnn.rs`,
//! `conv.rs`, `pool.rs`, `matmul.rs`, `linalg.rs`, `softmax.rs`, `tensor.rs`, `loss.rs`, `norm.rs`,
//! `random.rs`);
//! [`families`] lists them. The module depends on `tensile` alone (the fuzz crate and the bench example
//! include it with `#[path]`).
#![allow(dead_code)]

/// An adapter calling the method `x.$f(ARGS…)`, or `x.$f_(ARGS…)` for the in-place form,
/// each argument an expression of the call's [`Args`] `$a`: `method!(a => fmod, fmod_,
/// a.operand(1))`.
macro_rules! method {
    ($a:ident => $f:ident, $f_:ident $(, $arg:expr)*) => {
        |$a: &Args| {
            if $a.inplace {
                $a.t(0).$f_($($arg),*)
            } else {
                $a.t(0).$f($($arg),*)
            }
        }
    };
}

/// An adapter calling the function `$f(x, ARGS…)`, or `$f_(x, ARGS…)` for the in-place form
/// or `inplace=True` (an activation's keyword): `function!(a => F::elu_with, F::elu_with_,
/// alpha(a))`.
macro_rules! function {
    ($a:ident => $f:path, $f_:path $(, $arg:expr)*) => {
        |$a: &Args| {
            if $a.in_place() {
                $f_($a.t(0) $(, $arg)*)
            } else {
                $f($a.t(0) $(, $arg)*)
            }
        }
    };
}

/// An adapter calling `x.$f(ARG)` / `x.$f_(ARG)`, or with keyword `$k` (read by
/// `Args::$get`) `x.$fk(ARG, k)` / `x.$fk_(ARG, k)`: `add` with `alpha=`, `div` with
/// `rounding_mode=`, `cumsum` with `dtype=`.
macro_rules! with_kw {
    ($a:ident => $get:ident($k:literal), $f:ident, $f_:ident, $fk:ident, $fk_:ident, $arg:expr) => {
        |$a: &Args| {
            let (x, y) = ($a.t(0), $arg);
            match ($a.$get($k), $a.inplace) {
                (None, false) => x.$f(y),
                (None, true) => x.$f_(y),
                (Some(k), false) => x.$fk(y, k),
                (Some(k), true) => x.$fk_(y, k),
            }
        }
    };
}

pub mod attention;
pub mod binary;
pub mod conv;
pub mod creation;
pub mod index;
pub mod linalg;
pub mod loss;
pub mod matmul;
pub mod norm;
pub mod pool;
pub mod random;
pub mod reduce;
pub mod rnn;
pub mod scan;
pub mod shape;
pub mod softmax;
pub mod sort;
pub mod tensor;
pub mod ternary;
pub mod unary;
pub mod views;

use tensile::{DType, Generator, Operand, Result, Scalar, Tensor};

// ------------------------------------------------------------------------------------------
// the entry

/// How an op is called, as far as the generic consumers need to know: the fuzzer calls
/// `Unary` entries with one tensor and `Binary` entries with a tensor and a tensor-or-number;
/// the conformance runner only hands a `Ternary` entry a call with three positional arguments
/// (`torch.where(cond)` with one is another op).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sig {
    /// `f(x, **kwargs)`.
    Unary,
    /// `f(x, y, **kwargs)`, `y` a tensor or a number.
    Binary,
    /// `f(x, y, z, **kwargs)`.
    Ternary,
    /// A reduction `f(x, dim=None, keepdim=False, **kwargs)`, `dim` an int or a list (the
    /// fuzzer passes it by keyword).
    Reduce,
    /// A reduction over every dim or one: `f(x, dim=None, keepdim=False)`, `dim` an int.
    ReduceDim,
    /// A scan along one dim, `f(x, dim=…, **kwargs)` (the fuzzer passes `dim=` by keyword).
    Scan,
    /// Exactly this many positional arguments: `torch.where(cond)` (1) is another op than
    /// the three-argument `where`, `F.unfold(x, kernel_size=…)` (1) than `x.unfold(d, size,
    /// step)` (4).
    Args(usize),
    /// Anything else (positional arguments as the adapter reads them).
    Other,
}

impl Sig {
    /// Whether a call with `n` positional arguments is this op's.
    pub fn takes(self, n: usize) -> bool {
        match self {
            Sig::Ternary => n == 3,
            Sig::Args(k) => n == k,
            _ => n >= 1,
        }
    }
}

/// An op's call adapter: the one function every consumer calls.
pub type Call = fn(&Args) -> Result<Tensor>;
/// The call adapter of an op with several outputs (or one, depending on the call).
pub type CallRet = fn(&Args) -> Result<Ret>;

/// What a call returned: one tensor, several (`max(x, dim)`: values and indices), or a
/// Python value that is no tensor (`torch.broadcast_shapes`, `x.is_contiguous()`,
/// `torch.result_type`, `repr(x)`).
pub enum Ret {
    One(Tensor),
    Many(Vec<Tensor>),
    /// A shape (a `torch.Size`).
    Shape(Vec<i64>),
    Bool(bool),
    DType(DType),
    Str(String),
}

impl Ret {
    /// The output, or the first of several (panics on a result that is no tensor: the
    /// consumer called a query).
    pub fn first(self) -> Tensor {
        self.tensor().expect("opinfo: a result that is no tensor")
    }
    /// The output, or the first of several; `None` for a result that is no tensor.
    pub fn tensor(self) -> Option<Tensor> {
        match self {
            Ret::One(t) => Some(t),
            Ret::Many(ts) => ts.into_iter().next(),
            _ => None,
        }
    }
}

/// Two outputs (values and indices, var and mean) as a [`Ret`].
pub fn pair(r: Result<(Tensor, Tensor)>) -> Result<Ret> {
    r.map(|(a, b)| Ret::Many(vec![a, b]))
}

/// An entry's adapter: of a one-output op, or of one whose outputs depend on the call.
#[derive(Clone, Copy)]
pub enum Adapter {
    One(Call),
    Ret(CallRet),
}

/// One op.
pub struct OpInfo {
    /// PyTorch's name, as the corpus's `op` writes it (`exp`, `logaddexp`, `special.xlog1py`,
    /// `relu`); `NAME_` names its in-place form when [`OpInfo::inplace`].
    pub name: &'static str,
    /// The call's shape (for the fuzzer's arms and the conformance runner's arity check).
    pub sig: Sig,
    /// The op has an in-place form `NAME_` (the adapter reads [`Args::inplace`]).
    pub inplace: bool,
    /// Other names the corpus gives the op (`max_dim` for `max(x, dim)`).
    pub aliases: &'static [&'static str],
    /// The call adapter: positional and keyword arguments as PyTorch takes them, defaults as
    /// PyTorch's (called through [`OpInfo::run`]).
    pub call: Adapter,
    /// The gradient-check rows (empty: none here; see [`OpInfo::nograd`]).
    pub grad: &'static [Sample],
    /// Why the op has no gradient-check row (`integer`, `comparison`, `pytorch`: PyTorch
    /// defines no derivative either), or `None`.
    pub nograd: Option<&'static str>,
    /// The op key of its `bench/ops.txt` rows (`exp`, `F.relu`; in-place rows are
    /// `T.NAME_`), or `None` when the suite has none.
    pub bench: Option<&'static str>,
    /// Called by the fuzzer's pointwise arms (`Sig::Unary` / `Sig::Binary` only).
    pub fuzz: bool,
    /// Its README rows.
    pub docs: &'static [Doc],
}

impl OpInfo {
    /// An entry with no in-place form, no samples, no bench rows, no docs, not fuzzed.
    pub const fn new(name: &'static str, sig: Sig, call: Call) -> OpInfo {
        OpInfo::new_ret(name, sig, Adapter::One(call))
    }
    /// As [`OpInfo::new`], for an adapter of either kind.
    pub const fn new_ret(name: &'static str, sig: Sig, call: Adapter) -> OpInfo {
        OpInfo {
            name,
            sig,
            aliases: &[],
            inplace: false,
            call,
            grad: &[],
            nograd: None,
            bench: None,
            fuzz: false,
            docs: &[],
        }
    }
    /// `f(x)` with an in-place form `f_`, fuzzed.
    pub const fn unary(name: &'static str, call: Call) -> OpInfo {
        OpInfo {
            inplace: true,
            fuzz: true,
            ..OpInfo::new(name, Sig::Unary, call)
        }
    }
    /// `f(x, y)` with an in-place form `f_`, fuzzed.
    pub const fn binary(name: &'static str, call: Call) -> OpInfo {
        OpInfo {
            inplace: true,
            fuzz: true,
            ..OpInfo::new(name, Sig::Binary, call)
        }
    }
    /// An in-place form `NAME_` (the adapter reads [`Args::inplace`]).
    pub const fn in_place(self) -> OpInfo {
        OpInfo {
            inplace: true,
            ..self
        }
    }
    /// No in-place form.
    pub const fn no_inplace(self) -> OpInfo {
        OpInfo {
            inplace: false,
            ..self
        }
    }
    /// Called by the fuzzer's pointwise arms.
    pub const fn fuzz(self) -> OpInfo {
        OpInfo { fuzz: true, ..self }
    }
    /// Not called by the fuzzer's pointwise arms.
    pub const fn no_fuzz(self) -> OpInfo {
        OpInfo {
            fuzz: false,
            ..self
        }
    }
    /// Its gradient-check rows.
    pub const fn grad(self, grad: &'static [Sample]) -> OpInfo {
        OpInfo { grad, ..self }
    }
    /// Why it has no gradient-check row.
    pub const fn nograd(self, why: &'static str) -> OpInfo {
        OpInfo {
            nograd: Some(why),
            ..self
        }
    }
    /// The op key of its `bench/ops.txt` rows.
    pub const fn bench(self, key: &'static str) -> OpInfo {
        OpInfo {
            bench: Some(key),
            ..self
        }
    }
    /// Its README rows.
    pub const fn docs(self, docs: &'static [Doc]) -> OpInfo {
        OpInfo { docs, ..self }
    }
    /// Other names of the op.
    pub const fn aliases(self, aliases: &'static [&'static str]) -> OpInfo {
        OpInfo { aliases, ..self }
    }
    /// Calls the op.
    pub fn run(&self, a: &Args) -> Result<Ret> {
        match self.call {
            Adapter::One(f) => f(a).map(Ret::One),
            Adapter::Ret(f) => f(a),
        }
    }
}

/// Every family's entries, in the order the consumers walk them.
pub fn families() -> [&'static [OpInfo]; 21] {
    [
        unary::OPS,
        binary::OPS,
        ternary::OPS,
        reduce::OPS,
        scan::OPS,
        sort::OPS,
        index::OPS,
        shape::OPS,
        views::OPS,
        creation::OPS,
        attention::OPS,
        rnn::OPS,
        conv::OPS,
        pool::OPS,
        matmul::OPS,
        linalg::OPS,
        softmax::OPS,
        tensor::OPS,
        loss::OPS,
        norm::OPS,
        random::OPS,
    ]
}

/// Every entry.
pub fn all() -> impl Iterator<Item = &'static OpInfo> {
    families().into_iter().flatten()
}

/// The entry a call of op `op` with `nargs` positional arguments calls (its name or an alias,
/// and a [`Sig`] that takes `nargs`: `where(c)` and `where(c, x, y)` are two entries), and
/// whether it names the in-place form (`exp_`): `None` when no entry has that name (or
/// `NAME_` names an entry without an in-place form).
pub fn lookup(op: &str, nargs: usize) -> Option<(&'static OpInfo, bool)> {
    let takes = |i: &&OpInfo| i.sig.takes(nargs);
    if let Some(i) = all()
        .filter(takes)
        .find(|i| i.name == op || i.aliases.contains(&op))
    {
        return Some((i, false));
    }
    let base = op.strip_suffix('_')?;
    all()
        .filter(takes)
        .find(|i| i.name == base && i.inplace)
        .map(|i| (i, true))
}

/// The entry whose `bench/ops.txt` rows use op key `key` (`exp`, `F.relu`), or whose in-place
/// form `T.NAME_` it is; with whether the in-place form is meant.
pub fn lookup_bench(key: &str) -> Option<(&'static OpInfo, bool)> {
    if let Some(i) = all().find(|i| i.bench == Some(key)) {
        return Some((i, false));
    }
    let base = key.strip_prefix("T.")?.strip_suffix('_')?;
    all()
        .find(|i| i.name == base && i.inplace && i.bench.is_some())
        .map(|i| (i, true))
}

/// The fuzzer's entries of signature `sig`, in table order.
pub fn fuzzed(sig: Sig) -> Vec<&'static OpInfo> {
    all().filter(|i| i.fuzz && i.sig == sig).collect()
}

// ------------------------------------------------------------------------------------------
// arguments

/// One argument of a call, whoever makes it (the corpus, gradcheck, bench, the fuzzer).
pub enum Arg {
    Tensor(Tensor),
    /// A Python number or bool (ints too: a dim, a count).
    Scalar(Scalar),
    /// A Python list of ints.
    Ints(Vec<i64>),
    /// A Python string.
    Str(String),
    /// A `torch.dtype`.
    DType(DType),
    /// A Python list of tensors (`torch.hstack(ts)`).
    Tensors(Vec<Tensor>),
    /// `tensordot`'s pair of dim lists.
    DimLists(Vec<i64>, Vec<i64>),
    /// The items of `x[items]`.
    Index(Vec<tensile::TensorIndex>),
    /// A Python list of ints some of which are `None` (an adaptive pool's `output_size`).
    OptInts(Vec<Option<i64>>),
    /// A Python list of floats (`scale_factor=[2.0, 1.5]`).
    Floats(Vec<f64>),
    /// A `torch.Generator` (`generator=`; a clone is another handle to the same state, as
    /// passing PyTorch's generator object is).
    Generator(Generator),
}

impl Arg {
    /// The argument as a tensor (panics when it is not one: the caller built a wrong call).
    pub fn tensor(&self) -> &Tensor {
        match self {
            Arg::Tensor(t) => t,
            _ => panic!("opinfo: expected a tensor"),
        }
    }
    /// The argument as a tensor-or-number operand.
    pub fn operand(&self) -> Operand<'_> {
        match self {
            Arg::Tensor(t) => Operand::Tensor(t),
            Arg::Scalar(s) => Operand::Scalar(*s),
            _ => panic!("opinfo: expected a tensor or a number"),
        }
    }
}

/// A call's arguments: positional, keyword (a keyword given as `None` is left out), and
/// whether the in-place form `NAME_` is called.
#[derive(Default)]
pub struct Args {
    pub pos: Vec<Arg>,
    pub kw: Vec<(String, Arg)>,
    pub inplace: bool,
}

impl Args {
    /// Positional arguments only.
    pub fn new(pos: Vec<Arg>) -> Args {
        Args {
            pos,
            ..Args::default()
        }
    }
    /// The tensor at position `i` (panics when it is not one: the caller built a wrong call).
    pub fn t(&self, i: usize) -> &Tensor {
        match self.pos.get(i) {
            Some(Arg::Tensor(t)) => t,
            _ => panic!("opinfo: argument {i} must be a tensor"),
        }
    }
    /// The tensor-or-number at position `i`.
    pub fn operand(&self, i: usize) -> Operand<'_> {
        match self.pos.get(i) {
            Some(a) => a.operand(),
            None => panic!("opinfo: argument {i} is missing"),
        }
    }
    /// The number at position `i`, if given.
    pub fn opt_scalar(&self, i: usize) -> Option<Scalar> {
        match self.pos.get(i)? {
            Arg::Scalar(s) => Some(*s),
            _ => panic!("opinfo: argument {i} must be a number"),
        }
    }
    /// The number at position `i`.
    pub fn scalar(&self, i: usize) -> Scalar {
        self.opt_scalar(i)
            .unwrap_or_else(|| panic!("opinfo: argument {i} is missing"))
    }
    /// The argument at position `i`, else keyword `k` (`""`: positional only).
    pub fn arg(&self, i: usize, k: &str) -> Option<&Arg> {
        self.pos.get(i).or(self.kw_arg(k))
    }
    /// An int at position `i` or in keyword `k` (panics on another kind: a wrong call).
    pub fn int_at(&self, i: usize, k: &str) -> Option<i64> {
        match self.arg(i, k)? {
            Arg::Scalar(Scalar::Int(v)) => Some(*v),
            _ => panic!("opinfo: argument {i} ({k}) is an int"),
        }
    }
    /// A bool at position `i` or in keyword `k`.
    pub fn bool_at(&self, i: usize, k: &str) -> Option<bool> {
        match self.arg(i, k)? {
            Arg::Scalar(Scalar::Bool(v)) => Some(*v),
            _ => panic!("opinfo: argument {i} ({k}) is a bool"),
        }
    }
    /// An int list at position `i` or in keyword `k`; a lone int is a 1-list.
    pub fn ints_at(&self, i: usize, k: &str) -> Option<&[i64]> {
        match self.arg(i, k)? {
            Arg::Scalar(Scalar::Int(v)) => Some(std::slice::from_ref(v)),
            Arg::Ints(v) => Some(v),
            _ => panic!("opinfo: argument {i} ({k}) is an int or a list of ints"),
        }
    }
    /// The int at position `i`.
    pub fn int(&self, i: usize) -> i64 {
        self.int_at(i, "")
            .unwrap_or_else(|| panic!("opinfo: argument {i} is missing"))
    }
    /// The int list at position `i` (a lone int is a 1-list).
    pub fn ints(&self, i: usize) -> &[i64] {
        self.ints_at(i, "")
            .unwrap_or_else(|| panic!("opinfo: argument {i} is missing"))
    }
    /// The tensors of a call taking a list first (`torch.cat(ts)`) or `*tensors`.
    pub fn tensors(&self) -> Vec<&Tensor> {
        match self.pos.first() {
            Some(Arg::Tensors(ts)) => ts.iter().collect(),
            _ => self
                .pos
                .iter()
                .filter_map(|x| match x {
                    Arg::Tensor(t) => Some(t),
                    _ => None,
                })
                .collect(),
        }
    }
    /// Keyword `k`, if given.
    pub fn kw_arg(&self, k: &str) -> Option<&Arg> {
        self.kw.iter().find(|(n, _)| n == k).map(|(_, a)| a)
    }
    /// Keyword `k` as a number (a string such as `"inf"` is no number: `None`).
    pub fn kw_scalar(&self, k: &str) -> Option<Scalar> {
        match self.kw_arg(k)? {
            Arg::Scalar(s) => Some(*s),
            _ => None,
        }
    }
    /// Keyword `k` as a float.
    pub fn kw_f64(&self, k: &str) -> Option<f64> {
        self.kw_scalar(k).map(|s| s.to_f64())
    }
    /// Keyword `k` as an int.
    pub fn kw_int(&self, k: &str) -> Option<i64> {
        match self.kw_scalar(k)? {
            Scalar::Int(i) => Some(i),
            _ => None,
        }
    }
    /// Keyword `k` as a bool.
    pub fn kw_bool(&self, k: &str) -> Option<bool> {
        match self.kw_scalar(k)? {
            Scalar::Bool(b) => Some(b),
            _ => None,
        }
    }
    /// Keyword `k` as a string.
    pub fn kw_str(&self, k: &str) -> Option<&str> {
        match self.kw_arg(k)? {
            Arg::Str(s) => Some(s),
            _ => None,
        }
    }
    /// Keyword `k` as a dtype (its object, or its name: `float16`).
    pub fn kw_dtype(&self, k: &str) -> Option<DType> {
        match self.kw_arg(k)? {
            Arg::DType(d) => Some(*d),
            Arg::Str(s) => DType::from_name(s),
            _ => None,
        }
    }
    /// Keyword `k` as a tensor (a number or a list is none).
    pub fn kw_tensor(&self, k: &str) -> Option<&Tensor> {
        match self.kw_arg(k)? {
            Arg::Tensor(t) => Some(t),
            _ => None,
        }
    }
    /// Keyword `k` as a generator (`generator=`).
    pub fn kw_generator(&self, k: &str) -> Option<&Generator> {
        match self.kw_arg(k)? {
            Arg::Generator(g) => Some(g),
            _ => None,
        }
    }
    /// Keyword `k` as a tensor-or-number operand.
    pub fn kw_operand(&self, k: &str) -> Option<Operand<'_>> {
        self.kw_arg(k).map(Arg::operand)
    }
    /// The in-place form is called: `NAME_`, or the `inplace=True` keyword of an activation.
    pub fn in_place(&self) -> bool {
        self.inplace || self.kw_bool("inplace") == Some(true)
    }
}

// ------------------------------------------------------------------------------------------
// gradient-check samples

/// Where a gradient-check input's random values are drawn from (so that the op is smooth
/// there).
#[derive(Clone, Copy, Debug)]
pub enum Dom {
    /// `±[0.2, 2]`: away from 0 (the kink of abs/relu/sign-like ops).
    Any,
    /// `[0.5, 2]`: log, sqrt, pow bases, divisors, variances.
    Pos,
    /// `±[0.1, 0.8]`: asin, acos, atanh, erfinv.
    Unit,
    /// `[0.15, 0.85]`: probabilities (logit, binary_cross_entropy).
    Prob,
    /// `[1.5, 3]`: acosh.
    Big,
}

/// One argument of a gradient-check sample.
#[derive(Clone, Copy, Debug)]
pub enum P {
    /// A differentiated float64 input of this domain and shape.
    T(Dom, &'static [usize]),
    /// A Python float.
    Num(f64),
    /// A Python int.
    Int(i64),
    /// A Python string.
    Str(&'static str),
    /// A Python bool.
    Bool(bool),
    /// A Python list of ints.
    Ints(&'static [i64]),
    /// A bool tensor of these values and shape (not differentiated).
    Mask(&'static [bool], &'static [usize]),
    /// An int64 tensor of these values and shape (an index; not differentiated).
    Idx(&'static [i64], &'static [usize]),
    /// A float64 tensor of these values and shape (not differentiated: `batch_norm`'s
    /// running statistics, a `±1` target, a probability target).
    Vals(&'static [f64], &'static [usize]),
    /// A Python list of differentiated float64 inputs of these domains and shapes.
    Ts(&'static [(Dom, &'static [usize])]),
    /// A differentiated float64 input made contiguous before the call (an op that refuses
    /// the checker's non-contiguous layout: `view`, `as_strided`).
    Contig(Dom, &'static [usize]),
    /// A differentiated float64 input passed through the function before the call, as
    /// PyTorch's OpInfo `gradcheck_wrapper` does (`x·xᵀ + I`: cholesky's positive-definite
    /// input; `x + 3·I`: a triangular solve's well-conditioned matrix; `ctc_loss`'s
    /// log-probabilities, the `log_softmax` of the input).
    Wrap(Dom, &'static [usize], fn(&Tensor) -> Result<Tensor>),
    /// A float64 tensor of zeros of this shape (not differentiated: `view_as`'s target).
    Zeros(&'static [usize]),
    /// The items of `x[items]`.
    Index(&'static [Ix]),
    /// A Python list of int64 index tensors (`index_put`'s indices; not differentiated).
    Idxs(&'static [(&'static [i64], &'static [usize])]),
}

/// One item of a [`P::Index`] (`x[1::2, 1]`, `x[idx]`).
#[derive(Clone, Copy, Debug)]
pub enum Ix {
    Int(i64),
    Slice(Option<i64>, Option<i64>, Option<i64>),
    NewAxis,
    Ellipsis,
    /// An int64 index tensor of these values and shape.
    Idx(&'static [i64], &'static [usize]),
}

impl Ix {
    fn item(&self) -> Result<tensile::TensorIndex> {
        use tensile::TensorIndex as I;
        Ok(match *self {
            Ix::Int(i) => I::Int(i),
            Ix::Slice(a, b, c) => I::Slice(a, b, c),
            Ix::NewAxis => I::NewAxis,
            Ix::Ellipsis => I::Ellipsis,
            Ix::Idx(v, s) => I::Tensor(Tensor::from_vec(v.to_vec(), s)?),
        })
    }
}

/// A `[2, 3]` input drawn from `±[0.2, 2]`.
pub const X: P = P::T(Dom::Any, &[2, 3]);
/// A `[2, 3]` input drawn from `[0.5, 2]`.
pub const POS: P = P::T(Dom::Pos, &[2, 3]);
/// A `[2, 3]` input drawn from `±[0.1, 0.8]`.
pub const UNIT: P = P::T(Dom::Unit, &[2, 3]);
/// A `[2, 3]` input drawn from `[0.15, 0.85]`.
pub const PROB: P = P::T(Dom::Prob, &[2, 3]);
/// A `[2, 3]` input drawn from `[1.5, 3]`.
pub const BIG: P = P::T(Dom::Big, &[2, 3]);

/// One gradient-check row: the call's arguments and, for several tensor inputs, the shapes of
/// the broadcasting variant.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// The row's name (`None`: the op's name).
    pub name: Option<&'static str>,
    pub args: &'static [P],
    pub kw: &'static [(&'static str, P)],
    /// One shape per [`P::T`] input for the broadcast variant, or `None`.
    pub bcast: Option<&'static [&'static [usize]]>,
    /// The in-place form, called on a non-leaf made from input 0 (or on a view of it), the
    /// row's output being that non-leaf: PyTorch's in-place gradient checks
    /// (`test_inplace_grad`), and the view + in-place rule (the base's `grad_fn` rebased).
    pub through: Option<Through>,
}

/// Where a [`Sample`]'s in-place call writes: input 0 times one (a non-leaf), or a view of
/// it (`select(0, 1)`, `t()`).
#[derive(Clone, Copy, Debug)]
pub enum Through {
    Base,
    View(fn(&Tensor) -> Result<Tensor>),
}

const BCAST2: &[&[usize]] = &[&[3, 1], &[4]];
const BCAST3: &[&[usize]] = &[&[3, 1], &[4], &[1, 1]];

impl Sample {
    /// A sample; two tensor inputs broadcast as `[3, 1]` and `[4]`, three as `[3, 1]`, `[4]`,
    /// `[1, 1]`.
    pub const fn new(args: &'static [P]) -> Sample {
        let mut n = 0;
        let mut i = 0;
        while i < args.len() {
            if let P::T(..) = args[i] {
                n += 1;
            }
            i += 1;
        }
        let bcast = match n {
            2 => Some(BCAST2),
            3 => Some(BCAST3),
            _ => None,
        };
        Sample {
            name: None,
            args,
            kw: &[],
            bcast,
            through: None,
        }
    }
    /// The in-place form through a non-leaf (see [`Sample::through`]); no broadcast variant
    /// (input 0 is the one written).
    pub const fn in_place(self, through: Through) -> Sample {
        Sample {
            through: Some(through),
            bcast: None,
            ..self
        }
    }
    /// The row's name, when not the op's.
    pub const fn named(self, name: &'static str) -> Sample {
        Sample {
            name: Some(name),
            ..self
        }
    }
    /// Keyword arguments.
    pub const fn kw(self, kw: &'static [(&'static str, P)]) -> Sample {
        Sample { kw, ..self }
    }
    /// These broadcast shapes.
    pub const fn bcast(self, b: &'static [&'static [usize]]) -> Sample {
        Sample {
            bcast: Some(b),
            ..self
        }
    }
    /// No broadcast variant.
    pub const fn no_bcast(self) -> Sample {
        Sample {
            bcast: None,
            ..self
        }
    }
    /// The inputs: every [`P::T`] and every member of a [`P::Ts`], in order (positional
    /// arguments, then keywords: `b_ih=`).
    pub fn inputs(&self) -> impl Iterator<Item = (Dom, &'static [usize])> + '_ {
        let kw = self.kw.iter().map(|(_, p)| p);
        self.args.iter().chain(kw).flat_map(|p| match *p {
            P::T(d, s) | P::Contig(d, s) | P::Wrap(d, s, _) => vec![(d, s)],
            P::Ts(ts) => ts.to_vec(),
            _ => Vec::new(),
        })
    }
    /// The call's arguments, with `inputs` (one per [`Sample::inputs`], in order) in their
    /// places.
    pub fn args_with(&self, inputs: &[Tensor]) -> Result<Args> {
        let mut k = 0;
        let mut lit = |p: &P| -> Result<Arg> {
            Ok(match *p {
                P::T(..) => {
                    k += 1;
                    Arg::Tensor(inputs[k - 1].alias())
                }
                P::Num(v) => Arg::Scalar(Scalar::Float(v)),
                P::Int(v) => Arg::Scalar(Scalar::Int(v)),
                P::Str(s) => Arg::Str(s.to_string()),
                P::Bool(b) => Arg::Scalar(Scalar::Bool(b)),
                P::Ints(v) => Arg::Ints(v.to_vec()),
                P::Mask(v, s) => Arg::Tensor(Tensor::from_vec(v.to_vec(), s)?),
                P::Idx(v, s) => Arg::Tensor(Tensor::from_vec(v.to_vec(), s)?),
                P::Vals(v, s) => Arg::Tensor(Tensor::from_vec(v.to_vec(), s)?),
                P::Ts(ts) => {
                    k += ts.len();
                    Arg::Tensors(inputs[k - ts.len()..k].iter().map(|t| t.alias()).collect())
                }
                P::Contig(..) => {
                    k += 1;
                    Arg::Tensor(inputs[k - 1].contiguous())
                }
                P::Wrap(_, _, f) => {
                    k += 1;
                    Arg::Tensor(f(&inputs[k - 1])?)
                }
                P::Zeros(s) => Arg::Tensor(Tensor::zeros_with(s, DType::Float64)?),
                P::Index(items) => Arg::Index(items.iter().map(Ix::item).collect::<Result<_>>()?),
                P::Idxs(v) => Arg::Tensors(
                    v.iter()
                        .map(|&(v, s)| Tensor::from_vec(v.to_vec(), s))
                        .collect::<Result<_>>()?,
                ),
            })
        };
        let pos = self.args.iter().map(&mut lit).collect::<Result<Vec<_>>>()?;
        let kw = self
            .kw
            .iter()
            .map(|(n, p)| Ok((n.to_string(), lit(p)?)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Args {
            pos,
            kw,
            inplace: false,
        })
    }
}

// ------------------------------------------------------------------------------------------
// README rows

/// A README call table (`### HEADING`, then `| PyTorch | tensile |`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    Pointwise,
    MathBinary,
    MathUnary,
    Reductions,
    Scans,
    Sorting,
    Index,
    Shape,
    Views,
}

impl Table {
    /// Every rendered table.
    pub const ALL: [Table; 9] = [
        Table::Pointwise,
        Table::MathBinary,
        Table::MathUnary,
        Table::Reductions,
        Table::Scans,
        Table::Sorting,
        Table::Index,
        Table::Shape,
        Table::Views,
    ];
    /// The README heading the table follows.
    pub fn heading(self) -> &'static str {
        match self {
            Table::Pointwise => "### Pointwise",
            Table::MathBinary => "### Math: binary and ternary",
            Table::MathUnary => "### Unary math and activations",
            Table::Reductions => "### Reductions",
            Table::Scans => "### Scans",
            Table::Sorting => "### Sorting and searching",
            Table::Index => "### Gather, scatter, index ops and masks",
            Table::Shape => "### Shape ops (copies unless noted)",
            Table::Views => "### Views and shape (all views unless noted)",
        }
    }
    /// The families whose rows it holds, in row order.
    pub fn families(self) -> Vec<&'static [OpInfo]> {
        match self {
            Table::Pointwise => vec![binary::OPS, ternary::OPS, unary::OPS],
            Table::MathBinary => vec![binary::OPS, ternary::OPS],
            Table::MathUnary => vec![unary::OPS],
            Table::Reductions => vec![reduce::OPS],
            Table::Scans => vec![scan::OPS],
            Table::Sorting => vec![sort::OPS],
            Table::Index => vec![index::OPS],
            Table::Shape => vec![shape::OPS],
            Table::Views => vec![views::OPS],
        }
    }
}

/// A README row naming several ops: `HEAD` + each member's name through `ITEM` (`{}` the
/// name), joined by `SEP`, + `TAIL`, then the tensile cell.
pub struct Group {
    pub table: Table,
    pub head: &'static str,
    pub item: &'static str,
    pub sep: &'static str,
    pub tail: &'static str,
    pub tensile: &'static str,
}

/// One README row of an entry.
pub enum Doc {
    /// A row of its own: the PyTorch cell and the tensile cell, as Markdown.
    Row(Table, &'static str, &'static str),
    /// A place in a group row (the row stands where its first member's entry stands).
    In(&'static Group),
}

/// The rows of README table `t`, as Markdown lines (`| … | … |`).
pub fn readme_rows(t: Table) -> Vec<String> {
    let mut out = Vec::new();
    let mut groups_done: Vec<*const Group> = Vec::new();
    let fams = t.families();
    for info in fams.iter().flat_map(|f| f.iter()) {
        for d in info.docs {
            match d {
                Doc::Row(table, py, rs) if *table == t => out.push(format!("| {py} | {rs} |")),
                Doc::In(g) if g.table == t && !groups_done.contains(&(*g as *const Group)) => {
                    groups_done.push(*g as *const Group);
                    let names: Vec<String> = fams
                        .iter()
                        .flat_map(|f| f.iter())
                        .filter(|i| {
                            i.docs
                                .iter()
                                .any(|d| matches!(d, Doc::In(h) if std::ptr::eq(*h, *g)))
                        })
                        .map(|i| g.item.replace("{}", i.name))
                        .collect();
                    out.push(format!(
                        "| {}{}{} | {} |",
                        g.head,
                        names.join(g.sep),
                        g.tail,
                        g.tensile
                    ));
                }
                _ => {}
            }
        }
    }
    out
}
