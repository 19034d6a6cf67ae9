//! Shape ops (copies unless noted): flips, `roll`, `rot90`, `repeat`, `tile`,
//! `repeat_interleave`, `tril`/`triu`, `F.pad`, `narrow_copy`, the splits, the stacks,
//! `swapaxes`/`swapdims`, `atleast_*d`, `unbind`, `einsum`, `tensordot`, `outer`/`kron`,
//! `block_diag`, `cartesian_prod`, `combinations`, `linalg.cross`, `trace`, and the diagonals.

use super::{Adapter, Arg, Args, Doc, Dom, OpInfo, P, Ret, Sample, Sig, Table, Through, X};
use tensile::nn::functional as F;
use tensile::{RepeatInterleaveOpts, Result, Scalar, Tensor, TensorSplitArg};

/// `tensor_split`'s and `hsplit`'s `indices_or_sections`: a count, an index list or a tensor.
fn split_arg(a: &Args, i: usize) -> TensorSplitArg<'_> {
    match &a.pos[i] {
        Arg::Scalar(Scalar::Int(n)) => (*n).into(),
        Arg::Tensor(t) => t.into(),
        Arg::Ints(v) => v.as_slice().into(),
        _ => panic!("opinfo: a split count, index list or tensor"),
    }
}

fn many(r: Result<Vec<Tensor>>) -> Result<Ret> {
    r.map(Ret::Many)
}

fn roll(a: &Args) -> Result<Tensor> {
    match a.ints_at(2, "dims") {
        Some(d) => a.t(0).roll_with(a.ints(1), d),
        None => a.t(0).roll(a.ints(1)),
    }
}

fn rot90(a: &Args) -> Result<Tensor> {
    match (a.int_at(1, "k"), a.ints_at(2, "dims")) {
        (None, _) => a.t(0).rot90(),
        (Some(k), None) => a.t(0).rot90_with(k, [0, 1]),
        (Some(k), Some(d)) => a.t(0).rot90_with(k, d),
    }
}

fn repeat_interleave(a: &Args) -> Result<Tensor> {
    let Some(r) = a.pos.get(1) else {
        return tensile::repeat_interleave(a.t(0));
    };
    let opts = RepeatInterleaveOpts {
        dim: a.int_at(2, "dim"),
        output_size: a.kw_int("output_size"),
    };
    match r {
        Arg::Scalar(Scalar::Int(n)) => a.t(0).repeat_interleave_with(*n, opts),
        r => a.t(0).repeat_interleave_with(r.tensor(), opts),
    }
}

/// `F.pad(x, pad, mode='constant', value=None)`.
fn pad(a: &Args) -> Result<Tensor> {
    let mode = match a.pos.get(2) {
        Some(Arg::Str(m)) => m.as_str(),
        _ => a.kw_str("mode").unwrap_or("constant"),
    };
    let opts = F::PadOpts {
        mode,
        value: a.kw_f64("value"),
    };
    F::pad_with(a.t(0), a.ints(1), opts)
}

fn atleast(a: &Args, n: usize) -> Result<Ret> {
    match &a.pos[0] {
        Arg::Tensors(ts) => many(match n {
            1 => tensile::atleast_1d(ts),
            2 => tensile::atleast_2d(ts),
            _ => tensile::atleast_3d(ts),
        }),
        x => match n {
            1 => x.tensor().atleast_1d(),
            2 => x.tensor().atleast_2d(),
            _ => x.tensor().atleast_3d(),
        }
        .map(Ret::One),
    }
}

fn einsum(a: &Args) -> Result<Tensor> {
    let Arg::Str(eq) = &a.pos[0] else {
        panic!("opinfo: einsum's equation first")
    };
    let ops: Vec<&Tensor> = a.pos[1..].iter().map(|x| x.tensor()).collect();
    tensile::einsum(eq, &ops)
}

fn tensordot(a: &Args) -> Result<Tensor> {
    match &a.pos[2] {
        Arg::DimLists(x, y) => tensile::tensordot(a.t(0), a.t(1), (x, y)),
        _ => tensile::tensordot(a.t(0), a.t(1), a.int(2)),
    }
}

fn diag_embed(a: &Args) -> Result<Tensor> {
    match a.pos.len() {
        1 => a.t(0).diag_embed(),
        2 => a.t(0).diag_embed_with(a.int(1)),
        3 => a.t(0).diag_embed_with((a.int(1), a.int(2), -1)),
        _ => a.t(0).diag_embed_with((a.int(1), a.int(2), a.int(3))),
    }
}

const fn other(name: &'static str, call: super::Call) -> OpInfo {
    OpInfo::new(name, Sig::Other, call)
}

const fn other_ret(name: &'static str, call: super::CallRet) -> OpInfo {
    OpInfo::new_ret(name, Sig::Other, Adapter::Ret(call))
}

/// A list of two differentiated inputs of these shapes: `two!([2, 3], [2, 1])`.
macro_rules! two {
    ([$($a:expr),*], [$($b:expr),*]) => {
        P::Ts(&[(Dom::Any, &[$($a),*]), (Dom::Any, &[$($b),*])])
    };
}

const X3: P = P::T(Dom::Any, &[3]);
const X33: P = P::T(Dom::Any, &[3, 3]);
const X52: P = P::T(Dom::Any, &[5, 2]);

pub static OPS: &[OpInfo] = &[
    other("flip", |a| a.t(0).flip(a.ints(1)))
        .grad(&[Sample::new(&[X, P::Ints(&[1])])])
        .docs(&[Doc::Row(
            Table::Shape,
            "`torch.flip(x, dims)`, `torch.fliplr(x)`, `torch.flipud(x)`",
            "`x.flip(dims)`, `x.fliplr()`, `x.flipud()`",
        )]),
    other("fliplr", |a| a.t(0).fliplr()).grad(&[Sample::new(&[X])]),
    other("flipud", |a| a.t(0).flipud()).grad(&[Sample::new(&[X])]),
    other("roll", roll)
        .grad(&[Sample::new(&[X, P::Ints(&[1]), P::Ints(&[1])])])
        .bench("roll")
        .docs(&[Doc::Row(
            Table::Shape,
            "`torch.roll(x, shifts)`, `torch.roll(x, shifts, dims)`",
            "`x.roll(shifts)`, `x.roll_with(shifts, dims)`",
        )]),
    other("rot90", rot90)
        .grad(&[Sample::new(&[X])])
        .docs(&[Doc::Row(
            Table::Shape,
            "`torch.rot90(x)`, `torch.rot90(x, k, dims)`",
            "`x.rot90()`, `x.rot90_with(k, dims)`",
        )]),
    other("repeat", |a| a.t(0).repeat(a.ints(1)))
        .grad(&[Sample::new(&[X, P::Ints(&[2, 1, 2])])])
        .bench("T.repeat")
        .docs(&[Doc::Row(
            Table::Shape,
            "`x.repeat(*sizes)`, `torch.tile(x, dims)`",
            "`x.repeat(sizes)`, `x.tile(dims)`",
        )]),
    other("tile", |a| a.t(0).tile(a.ints(1))).grad(&[Sample::new(&[X, P::Ints(&[2])])]),
    other("repeat_interleave", repeat_interleave)
        .grad(&[Sample::new(&[X, P::Int(2)])])
        .bench("T.repeat_interleave")
        .docs(&[Doc::Row(
            Table::Shape,
            "`x.repeat_interleave(r)`, `(r, dim)`, `(r, dim, output_size=n)`; `torch.repeat_interleave(r)`",
            "`x.repeat_interleave(r)`, `x.repeat_interleave_with(r, dim)`, `x.repeat_interleave_with(r, (dim, n))` (`r` an int or `&Tensor`); `tensile::repeat_interleave(&r)`",
        )]),
    other("tril", |a| {
        let k = a.int_at(1, "diagonal").unwrap_or(0);
        if a.inplace {
            a.t(0).tril_with_(k)
        } else {
            a.t(0).tril_with(k)
        }
    })
    .in_place()
    .grad(&[
        Sample::new(&[X33]),
        Sample::new(&[X33, P::Int(-1)])
            .in_place(Through::Base)
            .named("tril_"),
    ])
    .docs(&[Doc::Row(
        Table::Shape,
        "`torch.tril(x)`, `torch.tril(x, k)`; `triu` likewise",
        "`x.tril()`, `x.tril_with(k)`; `x.triu()`, `x.triu_with(k)`",
    )]),
    other("triu", |a| {
        let k = a.int_at(1, "diagonal").unwrap_or(0);
        if a.inplace {
            a.t(0).triu_with_(k)
        } else {
            a.t(0).triu_with(k)
        }
    })
    .in_place()
    .grad(&[
        Sample::new(&[X33, P::Int(1)]),
        Sample::new(&[P::T(Dom::Any, &[3, 4])])
            .in_place(Through::View(|y| y.narrow(0, 1, 2)))
            .named("triu_ (through a view)"),
    ])
    .bench("triu"),
    other("pad", pad)
        .grad(&[
            Sample::new(&[P::T(Dom::Any, &[1, 2, 3]), P::Ints(&[1, 2])]).named("pad (constant)"),
            Sample::new(&[P::T(Dom::Any, &[1, 2, 4]), P::Ints(&[2, 1]), P::Str("reflect")])
                .named("pad (reflect)"),
            Sample::new(&[P::T(Dom::Any, &[1, 2, 3]), P::Ints(&[2, 1]), P::Str("replicate")])
                .named("pad (replicate)"),
            Sample::new(&[P::T(Dom::Any, &[1, 2, 3]), P::Ints(&[2, 1]), P::Str("circular")])
                .named("pad (circular)"),
        ])
        .bench("F.pad")
        .docs(&[Doc::Row(
            Table::Shape,
            "`F.pad(x, pad)`, `F.pad(x, pad, mode, value)`",
            "`F::pad(&x, pad)`, `F::pad_with(&x, pad, \"reflect\")`, `F::pad_with(&x, pad, (\"constant\", v))`",
        )]),
    other("narrow_copy", |a| a.t(0).narrow_copy(a.int(1), a.int(2), a.int(3)))
        .grad(&[Sample::new(&[
            P::T(Dom::Any, &[3, 4]),
            P::Int(1),
            P::Int(1),
            P::Int(2),
        ])])
        .bench("narrow_copy")
        .docs(&[Doc::Row(
            Table::Shape,
            "`torch.narrow_copy(x, d, start, len)`",
            "`x.narrow_copy(d, start, len)`",
        )]),
    other_ret("split_with_sizes", |a| {
        many(a.t(0).split_with_sizes(a.ints(1), a.int_at(2, "dim").unwrap_or(0)))
    })
    .grad(&[Sample::new(&[X52, P::Ints(&[1, 4]), P::Int(0)])])
    .docs(&[Doc::Row(
        Table::Shape,
        "`torch.split_with_sizes(x, sizes, d)`",
        "`x.split_with_sizes(sizes, d)` (views)",
    )]),
    other_ret("tensor_split", |a| {
        many(match a.int_at(2, "dim") {
            Some(d) => a.t(0).tensor_split_with(split_arg(a, 1), d),
            None => a.t(0).tensor_split(split_arg(a, 1)),
        })
    })
    .grad(&[Sample::new(&[X52, P::Int(3)])])
    .docs(&[Doc::Row(
        Table::Shape,
        "`torch.tensor_split(x, n_or_idx)`, `(…, dim)`",
        "`x.tensor_split(n)`, `x.tensor_split(&[1, 3])`, `x.tensor_split(&idx_tensor)`, `x.tensor_split_with(arg, dim)` (views)",
    )]),
    other_ret("hsplit", |a| many(a.t(0).hsplit(split_arg(a, 1))))
        .grad(&[Sample::new(&[P::T(Dom::Any, &[2, 4]), P::Int(2)])])
        .docs(&[Doc::Row(
            Table::Shape,
            "`torch.hsplit(x, a)`, `vsplit`, `dsplit`",
            "`x.hsplit(a)`, `x.vsplit(a)`, `x.dsplit(a)` (views; `a` a count or index list)",
        )]),
    other_ret("vsplit", |a| many(a.t(0).vsplit(split_arg(a, 1))))
        .grad(&[Sample::new(&[P::T(Dom::Any, &[4, 2]), P::Int(2)])]),
    other_ret("dsplit", |a| many(a.t(0).dsplit(split_arg(a, 1))))
        .grad(&[Sample::new(&[P::T(Dom::Any, &[2, 2, 4]), P::Int(2)])]),
    other("hstack", |a| tensile::hstack(&a.tensors()))
        .grad(&[Sample::new(&[two!([2, 3], [2, 1])])])
        .docs(&[Doc::Row(
            Table::Shape,
            "`torch.hstack(ts)`, `vstack`, `dstack`, `column_stack`",
            "`tensile::hstack(&ts)`, `tensile::vstack(&ts)`, `tensile::dstack(&ts)`, `tensile::column_stack(&ts)`",
        )]),
    other("vstack", |a| tensile::vstack(&a.tensors())).grad(&[Sample::new(&[two!([2, 3], [3])])]),
    other("dstack", |a| tensile::dstack(&a.tensors()))
        .grad(&[Sample::new(&[two!([2, 3], [2, 3])])]),
    other("column_stack", |a| tensile::column_stack(&a.tensors()))
        .grad(&[Sample::new(&[two!([3], [3, 2])])]),
    other("swapaxes", |a| a.t(0).swapaxes(a.int(1), a.int(2)))
        .grad(&[Sample::new(&[X, P::Int(0), P::Int(1)])])
        .docs(&[Doc::Row(
            Table::Shape,
            "`torch.swapaxes(x, a, b)`, `torch.swapdims(x, a, b)`",
            "`x.swapaxes(a, b)`, `x.swapdims(a, b)` (views)",
        )]),
    other("swapdims", |a| a.t(0).swapdims(a.int(1), a.int(2)))
        .grad(&[Sample::new(&[X, P::Int(0), P::Int(1)])]),
    other_ret("atleast_1d", |a| atleast(a, 1))
        .grad(&[
            Sample::new(&[P::T(Dom::Any, &[])]),
            Sample::new(&[two!([], [2])]).named("atleast_1d (list)"),
        ])
        .docs(&[Doc::Row(
            Table::Shape,
            "`torch.atleast_1d(x)` / `(*ts)`; `2d`, `3d` likewise",
            "`x.atleast_1d()` / `tensile::atleast_1d(&ts)`; `atleast_2d`, `atleast_3d` likewise (views)",
        )]),
    other_ret("atleast_2d", |a| atleast(a, 2)).grad(&[Sample::new(&[X3])]),
    other_ret("atleast_3d", |a| atleast(a, 3)).grad(&[Sample::new(&[X3])]),
    other_ret("unbind", |a| {
        many(a.t(0).unbind_with(a.int_at(1, "dim").unwrap_or(0)))
    })
    .grad(&[Sample::new(&[P::T(Dom::Any, &[3, 2])])])
    .docs(&[Doc::Row(
        Table::Shape,
        "`x.unbind()`, `x.unbind(d)`",
        "`x.unbind()`, `x.unbind_with(d)` (views)",
    )]),
    other("einsum", einsum)
        .grad(&[Sample::new(&[
            P::Str("ij,jk->ik"),
            X,
            P::T(Dom::Any, &[3, 4]),
        ])
        .no_bcast()])
        .docs(&[Doc::Row(
            Table::Shape,
            "`torch.einsum(eq, *ops)`",
            "`tensile::einsum(eq, &ops)`",
        )]),
    other("tensordot", tensordot)
        .grad(&[Sample::new(&[
            P::T(Dom::Any, &[2, 3, 2]),
            P::T(Dom::Any, &[3, 2, 2]),
            P::Int(2),
        ])
        .no_bcast()])
        .docs(&[Doc::Row(
            Table::Shape,
            "`torch.tensordot(a, b, n)`, `(a, b, ([..], [..]))`",
            "`tensile::tensordot(&a, &b, n)`, `tensile::tensordot(&a, &b, (da, db))`",
        )]),
    other("outer", |a| a.t(0).outer(a.t(1)))
        .grad(&[Sample::new(&[X3, P::T(Dom::Any, &[2])]).no_bcast()])
        .bench("outer")
        .docs(&[Doc::Row(
            Table::Shape,
            "`torch.outer(a, b)`, `torch.kron(a, b)`",
            "`a.outer(&b)`, `a.kron(&b)`",
        )]),
    other("kron", |a| a.t(0).kron(a.t(1)))
        .grad(&[Sample::new(&[P::T(Dom::Any, &[2, 2]), P::T(Dom::Any, &[2, 1])]).no_bcast()])
        .bench("kron"),
    other("block_diag", |a| tensile::block_diag(&a.tensors()))
        .grad(&[Sample::new(&[two!([2, 3], [1, 2])])])
        .docs(&[Doc::Row(
            Table::Shape,
            "`torch.block_diag(*ts)`, `torch.cartesian_prod(*ts)`",
            "`tensile::block_diag(&ts)`, `tensile::cartesian_prod(&ts)`",
        )]),
    other("cartesian_prod", |a| tensile::cartesian_prod(&a.tensors()))
        .grad(&[Sample::new(&[two!([3], [2])])]),
    other("combinations", |a| {
        let r = a.int_at(1, "r").unwrap_or(2);
        let w = a.kw_bool("with_replacement").unwrap_or(false);
        tensile::combinations_with(a.t(0), (r, w))
    })
    .grad(&[Sample::new(&[P::T(Dom::Any, &[4])])])
    .docs(&[Doc::Row(
        Table::Shape,
        "`torch.combinations(x)`, `(x, r, with_replacement)`",
        "`tensile::combinations(&x)`, `tensile::combinations_with(&x, (r, w))`",
    )]),
    other("linalg.cross", |a| {
        tensile::linalg::cross_with(a.t(0), a.t(1), a.kw_int("dim").unwrap_or(-1))
    })
    .grad(&[Sample::new(&[P::T(Dom::Any, &[2, 3]), P::T(Dom::Any, &[2, 3])])
        .named("cross")
        .bcast(&[&[2, 1, 3], &[1, 2, 3]])])
    .bench("linalg.cross")
    .docs(&[Doc::Row(
        Table::Shape,
        "`torch.linalg.cross(a, b)`, `(…, dim=d)`",
        "`tensile::linalg::cross(&a, &b)`, `tensile::linalg::cross_with(&a, &b, d)`",
    )]),
    other("trace", |a| a.t(0).trace())
        .grad(&[Sample::new(&[X33])])
        .docs(&[Doc::Row(Table::Shape, "`torch.trace(x)`", "`x.trace()`")]),
    other("diag", |a| match a.int_at(1, "diagonal") {
        Some(k) => a.t(0).diag_with(k),
        None => a.t(0).diag(),
    })
    .grad(&[
        Sample::new(&[X3]),
        Sample::new(&[X33, P::Int(1)]).named("diag (matrix)"),
    ])
    .docs(&[Doc::Row(
        Table::Shape,
        "`torch.diag(x)`, `(x, k)`; `diagflat` likewise",
        "`x.diag()`, `x.diag_with(k)`; `x.diagflat()`, `x.diagflat_with(k)`",
    )]),
    other("diagflat", |a| match a.int_at(1, "offset") {
        Some(k) => a.t(0).diagflat_with(k),
        None => a.t(0).diagflat(),
    })
    .grad(&[Sample::new(&[P::T(Dom::Any, &[2, 2])])]),
    other("diag_embed", diag_embed)
        .grad(&[Sample::new(&[X])])
        .bench("diag_embed")
        .docs(&[Doc::Row(
            Table::Shape,
            "`torch.diag_embed(x)`, `(x, offset, dim1, dim2)`",
            "`x.diag_embed()`, `x.diag_embed_with(offset)`, `x.diag_embed_with((offset, d1, d2))`",
        )]),
];
