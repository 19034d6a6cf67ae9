//! `F.softmax` and `F.log_softmax` along one dim (`dim` positional or by keyword).

use super::{OpInfo, P, Sample, Sig, X};

pub static OPS: &[OpInfo] = &[
    OpInfo::new("softmax", Sig::Other, |a| {
        a.t(0)
            .softmax(a.int_at(1, "dim").expect("opinfo: softmax takes dim"))
    })
    .grad(&[Sample::new(&[X, P::Int(1)])])
    .bench("F.softmax"),
    OpInfo::new("log_softmax", Sig::Other, |a| {
        a.t(0)
            .log_softmax(a.int_at(1, "dim").expect("opinfo: log_softmax takes dim"))
    })
    .grad(&[Sample::new(&[X, P::Int(0)])])
    .bench("F.log_softmax"),
];
