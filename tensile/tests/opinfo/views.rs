//! Views and shape (all views unless noted): `view`, `reshape`, `flatten`, `ravel`,
//! `unflatten`, `squeeze`, `unsqueeze`, the transposes, `permute`, `movedim`, `narrow`,
//! `select`, `slice`, indexing (`x[…]`, `x[…] = v`, `index_put`), `expand` and
//! `broadcast_to`, `broadcast_tensors`, `diagonal`, `unfold`, `as_strided`, `split`, `chunk`,
//! `contiguous`, `clone`, and `cat`/`stack` (copies).

use super::{Adapter, Arg, Args, Doc, Dom, Ix, OpInfo, P, Ret, Sample, Sig, Table, Through, X};
use tensile::{Result, Scalar, Tensor};

/// `cat`'s and `stack`'s dim: after a list, or `dim=` (default 0).
fn cat_dim(a: &Args) -> i64 {
    match a.pos.first() {
        Some(Arg::Tensors(_)) => a.int_at(1, "dim"),
        _ => a.kw_int("dim"),
    }
    .unwrap_or(0)
}

/// `cat`/`stack` (`f`) of the call's tensors along [`cat_dim`]; two tensors given one by one
/// (the bench's `cat_pair`) are passed without collecting them, so the adapter adds no
/// allocation to the op it times.
fn cat_like(a: &Args, f: fn(&[&Tensor], i64) -> Result<Tensor>) -> Result<Tensor> {
    let d = cat_dim(a);
    match a.pos.as_slice() {
        [Arg::Tensor(x), Arg::Tensor(y)] => f(&[x, y], d),
        _ => f(&a.tensors(), d),
    }
}

/// The index list at position `i` (`x[items]`).
fn items(a: &Args, i: usize) -> &[tensile::TensorIndex] {
    match a.pos.get(i) {
        Some(Arg::Index(v)) => v,
        _ => panic!("opinfo: argument {i} is an index"),
    }
}

/// The list of index tensors at position 1 (`index_put`).
fn index_list(a: &Args) -> &[Tensor] {
    match a.pos.get(1) {
        Some(Arg::Tensors(ts)) => ts,
        _ => panic!("opinfo: index_put takes a list of index tensors"),
    }
}

fn squeeze(a: &Args) -> Result<Tensor> {
    match a.pos.get(1) {
        None => a.t(0).squeeze(),
        Some(Arg::Scalar(Scalar::Int(d))) => a.t(0).squeeze_dim(*d),
        Some(Arg::Ints(d)) => a.t(0).squeeze_dim(d),
        _ => panic!("opinfo: squeeze takes an int or dims"),
    }
}

fn slice(a: &Args) -> Result<Tensor> {
    let opt = |i: usize| match a.pos.get(i) {
        Some(Arg::Scalar(Scalar::Int(n))) => Some(*n),
        _ => None,
    };
    a.t(0).slice(
        a.int_at(1, "dim").unwrap_or(0),
        opt(2),
        opt(3),
        opt(4).unwrap_or(1),
    )
}

fn as_strided(a: &Args) -> Result<Tensor> {
    match a.int_at(3, "storage_offset") {
        Some(o) => a.t(0).as_strided_with(a.ints(1), a.ints(2), o),
        None => a.t(0).as_strided(a.ints(1), a.ints(2)),
    }
}

fn split_chunk(a: &Args, split: bool) -> Result<Ret> {
    let d = a.int_at(2, "dim").unwrap_or(0);
    if split {
        match a.pos.get(1) {
            Some(Arg::Ints(sizes)) => a.t(0).split_with(sizes.clone(), d),
            _ => a.t(0).split_with(a.int(1), d),
        }
    } else {
        let k = a.int(1);
        a.t(0).chunk_with(k, d)
    }
    .map(Ret::Many)
}

const fn other(name: &'static str, call: super::Call) -> OpInfo {
    OpInfo::new(name, Sig::Other, call)
}

const fn t(shape: &'static [usize]) -> P {
    P::T(Dom::Any, shape)
}

const X34: P = P::T(Dom::Any, &[3, 4]);
const X52: P = P::T(Dom::Any, &[5, 2]);
const X232: P = P::T(Dom::Any, &[2, 3, 2]);

pub static OPS: &[OpInfo] = &[
    other("view", |a| a.t(0).view(a.ints(1)))
        .grad(&[Sample::new(&[
            P::Contig(Dom::Any, &[2, 3]),
            P::Ints(&[3, 2]),
        ])])
        .bench("T.view")
        .docs(&[Doc::Row(
            Table::Views,
            "`x.view(*shape)`, `x.view_as(y)`",
            "`x.view(shape)`, `x.view_as(&y)`",
        )]),
    other("view_as", |a| a.t(0).view_as(a.t(1)))
        .grad(&[Sample::new(&[t(&[6]), P::Zeros(&[2, 3])])]),
    other("reshape", |a| a.t(0).reshape(a.ints(1)))
        .grad(&[Sample::new(&[X, P::Ints(&[3, 2])])])
        .bench("T.reshape")
        .docs(&[Doc::Row(
            Table::Views,
            "`x.reshape(*shape)`, `x.reshape_as(y)`",
            "`x.reshape(shape)`, `x.reshape_as(&y)` (a copy when needed)",
        )]),
    other("reshape_as", |a| a.t(0).reshape_as(a.t(1))).grad(&[Sample::new(&[X, P::Zeros(&[6])])]),
    other("flatten", |a| {
        a.t(0).flatten_with((
            a.int_at(1, "start_dim").unwrap_or(0),
            a.int_at(2, "end_dim").unwrap_or(-1),
        ))
    })
    .grad(&[Sample::new(&[X])])
    .docs(&[Doc::Row(
        Table::Views,
        "`x.flatten()`, `x.flatten(s)`, `x.flatten(s, e)`",
        "`x.flatten()`, `x.flatten_with(s)`, `x.flatten_with((s, e))`",
    )]),
    other("ravel", |a| a.t(0).ravel())
        .grad(&[Sample::new(&[X])])
        .docs(&[Doc::Row(
            Table::Views,
            "`x.ravel()`",
            "`x.ravel()` (a copy unless contiguous)",
        )]),
    other("unflatten", |a| a.t(0).unflatten(a.int(1), a.ints(2)))
        .grad(&[Sample::new(&[t(&[6]), P::Int(0), P::Ints(&[2, 3])])])
        .docs(&[Doc::Row(
            Table::Views,
            "`x.unflatten(d, sizes)`",
            "`x.unflatten(d, sizes)`",
        )]),
    other("squeeze", squeeze)
        .grad(&[
            Sample::new(&[t(&[2, 1, 3])]),
            Sample::new(&[t(&[2, 1, 3]), P::Int(1)]).named("squeeze_dim"),
        ])
        .docs(&[Doc::Row(
            Table::Views,
            "`x.squeeze()`, `x.squeeze(d)`, `x.squeeze((d1, d2))`",
            "`x.squeeze()`, `x.squeeze_dim(d)`, `x.squeeze_dim([d1, d2])`",
        )]),
    other("unsqueeze", |a| a.t(0).unsqueeze(a.int(1)))
        .grad(&[Sample::new(&[X, P::Int(1)])])
        .docs(&[Doc::Row(
            Table::Views,
            "`x.unsqueeze(d)`",
            "`x.unsqueeze(d)`",
        )]),
    other("transpose", |a| a.t(0).transpose(a.int(1), a.int(2)))
        .grad(&[Sample::new(&[X, P::Int(0), P::Int(1)])])
        .bench("T.transpose")
        .docs(&[Doc::Row(
            Table::Views,
            "`x.transpose(d0, d1)`, `x.t()`, `x.T`, `x.mT`",
            "`x.transpose(d0, d1)`, `x.t()`, `x.T()`, `x.mT()`",
        )]),
    other("t", |a| a.t(0).t()).grad(&[Sample::new(&[X])]),
    other("T", |a| a.t(0).T()).grad(&[Sample::new(&[X232])]),
    other("mT", |a| a.t(0).mT()).grad(&[Sample::new(&[t(&[2, 2, 3])])]),
    other("permute", |a| a.t(0).permute(a.ints(1)))
        .grad(&[Sample::new(&[X232, P::Ints(&[2, 0, 1])])])
        .bench("T.permute")
        .docs(&[Doc::Row(
            Table::Views,
            "`x.permute(*dims)`",
            "`x.permute(dims)`",
        )]),
    other("movedim", |a| a.t(0).movedim(a.ints(1), a.ints(2)))
        .aliases(&["moveaxis"])
        .grad(&[Sample::new(&[X232, P::Int(0), P::Int(2)])])
        .docs(&[Doc::Row(
            Table::Views,
            "`x.movedim(src, dst)`",
            "`x.movedim(src, dst)` (ints or lists)",
        )]),
    other("narrow", |a| a.t(0).narrow(a.int(1), a.int(2), a.int(3)))
        .grad(&[Sample::new(&[X34, P::Int(1), P::Int(1), P::Int(2)])])
        .docs(&[Doc::Row(
            Table::Views,
            "`x.narrow(d, start, length)`",
            "`x.narrow(d, start, length)`",
        )]),
    other("select", |a| a.t(0).select(a.int(1), a.int(2)))
        .grad(&[Sample::new(&[X34, P::Int(0), P::Int(1)])])
        .docs(&[Doc::Row(
            Table::Views,
            "`x.select(d, i)`",
            "`x.select(d, i)`",
        )]),
    other("slice", slice)
        .grad(&[Sample::new(&[
            t(&[3, 5]),
            P::Int(1),
            P::Int(0),
            P::Int(5),
            P::Int(2),
        ])])
        .docs(&[Doc::Row(
            Table::Views,
            "`x[:, a:b:c]` on one dim",
            "`x.slice(d, Some(a), Some(b), c)`",
        )]),
    // `x[items]`, or `x[t]` with one index tensor (the bench's `getitem_tensor`)
    other("index", |a| match a.pos.get(1) {
        Some(Arg::Tensor(t)) => a.t(0).index(&[tensile::TensorIndex::Tensor(t.alias())]),
        _ => a.t(0).index(items(a, 1)),
    })
    .grad(&[
        Sample::new(&[
            X34,
            P::Index(&[Ix::Slice(Some(1), None, Some(2)), Ix::Int(1)]),
        ])
        .named("index (basic)"),
        Sample::new(&[X34, P::Index(&[Ix::Idx(&[2, 0, 2], &[3])])]).named("index (advanced)"),
    ])
    .bench("getitem_tensor")
    .docs(&[
        Doc::Row(
            Table::Views,
            "`x[i, a:b, None, ...]`",
            "`x.index(&s![i, a..b, None, ...])`",
        ),
        Doc::Row(
            Table::Views,
            "`x[idx, :, [0, 2]]`, `x[mask]`, `x[..., True]` (advanced: a copy)",
            "`x.index(&s![&idx, .., [0, 2]])`, `x.index(&s![&mask])`, `x.index(&s![..., true])`",
        ),
    ]),
    // in place: its gradient is checked through a non-leaf (`tests/gradcheck/table.rs`)
    other("setitem", |a| a.t(0).index_set_(items(a, 1), a.operand(2)))
        .grad(&[Sample::new(&[
            X34,
            P::Index(&[Ix::Slice(None, None, None), Ix::Idx(&[2, 0], &[2])]),
            t(&[3, 2]),
        ])
        .in_place(Through::Base)
        .named("index_set_")])
        .docs(&[Doc::Row(
            Table::Views,
            "`x[items] = v` (`v` a tensor or a number)",
            "`x.index_set_(&s![items], v)`",
        )]),
    other("index_put", |a| {
        let acc = a.kw_bool("accumulate").unwrap_or(false);
        if a.inplace {
            a.t(0).index_put_with_(index_list(a), a.t(2), acc)
        } else {
            a.t(0).index_put_with(index_list(a), a.t(2), acc)
        }
    })
    .in_place()
    .grad(&[
        Sample::new(&[X34, P::Idxs(&[(&[2, 0], &[2])]), t(&[2, 4])]).no_bcast(),
        Sample::new(&[X34, P::Idxs(&[(&[2, 0], &[2])]), t(&[2, 4])])
            .in_place(Through::Base)
            .named("index_put_"),
        Sample::new(&[X34, P::Idxs(&[(&[2, 0, 2], &[3])]), X34])
            .kw(&[("accumulate", P::Bool(true))])
            .named("index_put (accumulate)")
            .no_bcast(),
    ])
    .docs(&[
        Doc::Row(
            Table::Views,
            "`x.index_put_(indices, v)`, `(…, accumulate=True)`",
            "`x.index_put_([&i, &j], &v)`, `x.index_put_with_([Some(&i), None], &v, true)`",
        ),
        Doc::Row(
            Table::Views,
            "`torch.index_put(x, indices, v)`, `(…, accumulate=True)`",
            "`x.index_put(&[&i], &v)`, `x.index_put_with(&[&i], &v, true)`",
        ),
    ]),
    other("expand", |a| a.t(0).expand(a.ints(1)))
        .grad(&[Sample::new(&[t(&[3, 1]), P::Ints(&[2, 3, 4])])])
        .docs(&[Doc::Row(
            Table::Views,
            "`x.expand(*sizes)`, `x.expand_as(y)`, `torch.broadcast_to(x, shape)`",
            "`x.expand(sizes)`, `x.expand_as(&y)`, `x.broadcast_to(shape)`",
        )]),
    other("expand_as", |a| a.t(0).expand_as(a.t(1)))
        .grad(&[Sample::new(&[t(&[3, 1]), P::Zeros(&[3, 4])])]),
    other("broadcast_to", |a| a.t(0).broadcast_to(a.ints(1)))
        .grad(&[Sample::new(&[t(&[3, 1]), P::Ints(&[3, 4])])]),
    OpInfo::new_ret(
        "broadcast_tensors",
        Sig::Other,
        Adapter::Ret(|a| Tensor::broadcast_tensors(&a.tensors()).map(Ret::Many)),
    )
    .grad(&[Sample::new(&[P::Ts(&[
        (Dom::Any, &[3, 1]),
        (Dom::Any, &[4]),
    ])])])
    .docs(&[Doc::Row(
        Table::Views,
        "`torch.broadcast_tensors(*ts)`",
        "`tensile::broadcast_tensors(&[&a, &b])`",
    )]),
    other("diagonal", |a| {
        a.t(0).diagonal_with((
            a.int_at(1, "offset").unwrap_or(0),
            a.int_at(2, "dim1").unwrap_or(0),
            a.int_at(3, "dim2").unwrap_or(1),
        ))
    })
    .grad(&[Sample::new(&[X34])])
    .docs(&[Doc::Row(
        Table::Views,
        "`x.diagonal()`, `x.diagonal(o)`, `x.diagonal(o, d1, d2)`",
        "`x.diagonal()`, `x.diagonal_with(o)`, `x.diagonal_with((o, d1, d2))`",
    )]),
    OpInfo::new("unfold", Sig::Args(4), |a| {
        a.t(0).unfold(a.int(1), a.int(2), a.int(3))
    })
    .grad(&[Sample::new(&[t(&[2, 5]), P::Int(1), P::Int(2), P::Int(1)])])
    .docs(&[Doc::Row(
        Table::Views,
        "`x.unfold(d, size, step)`",
        "`x.unfold(d, size, step)`",
    )]),
    other("as_strided", as_strided)
        .grad(&[Sample::new(&[
            P::Contig(Dom::Any, &[3, 3]),
            P::Ints(&[2, 2]),
            P::Ints(&[1, 2]),
        ])])
        .docs(&[Doc::Row(
            Table::Views,
            "`x.as_strided(size, stride)`, `(…, storage_offset)`",
            "`x.as_strided(size, stride)`, `x.as_strided_with(size, stride, offset)`",
        )]),
    OpInfo::new_ret("split", Sig::Other, Adapter::Ret(|a| split_chunk(a, true)))
        .grad(&[Sample::new(&[X52, P::Int(2)])])
        .docs(&[Doc::Row(
            Table::Views,
            "`x.split(k)`, `x.split(k, d)`, `x.split([a, b], d)`",
            "`x.split(k)`, `x.split_with(k, d)`, `x.split_with([a, b], d)`",
        )]),
    OpInfo::new_ret("chunk", Sig::Other, Adapter::Ret(|a| split_chunk(a, false)))
        .grad(&[Sample::new(&[X52, P::Int(3)])])
        .docs(&[Doc::Row(
            Table::Views,
            "`x.chunk(n)`, `x.chunk(n, d)`",
            "`x.chunk(n)`, `x.chunk_with(n, d)`",
        )]),
    other("contiguous", |a| a.t(0).try_contiguous())
        .grad(&[Sample::new(&[X])])
        .bench("T.contiguous"),
    other("clone", |a| a.t(0).try_clone())
        .grad(&[Sample::new(&[X]).named("try_clone")])
        .bench("T.clone"),
    other("cat", |a| cat_like(a, |ts, d| tensile::cat_with(ts, d)))
        .grad(&[Sample::new(&[P::Ts(&[
            (Dom::Any, &[2, 3]),
            (Dom::Any, &[1, 3]),
        ])])])
        .bench("cat_pair")
        .docs(&[Doc::Row(
            Table::Views,
            "`torch.cat(ts)`, `torch.cat(ts, d)`",
            "`tensile::cat(&ts)`, `tensile::cat_with(&ts, d)` (a copy)",
        )]),
    other("stack", |a| cat_like(a, |ts, d| tensile::stack_with(ts, d)))
        .grad(&[Sample::new(&[
            P::Ts(&[(Dom::Any, &[2, 3]), (Dom::Any, &[2, 3])]),
            P::Int(1),
        ])])
        .bench("stack_pair")
        .docs(&[Doc::Row(
            Table::Views,
            "`torch.stack(ts)`, `torch.stack(ts, d)`",
            "`tensile::stack(&ts)`, `tensile::stack_with(&ts, d)` (a copy)",
        )]),
];
