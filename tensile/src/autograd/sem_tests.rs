//! Unit tests of the autograd rules fixed against PyTorch 2.15 (each checked with torch).

use crate::index::TensorIndex::{self, Slice};
use crate::{Tensor, no_grad};

fn leaf(v: &[f64], shape: &[usize]) -> Tensor {
    let t = Tensor::from_vec(v.to_vec(), shape).unwrap();
    t.requires_grad_(true).unwrap();
    t
}

const FULL: TensorIndex = Slice(None, None, None);

/// `x[:, :]` / `x[:, 0:100]` / `x[(slice(None),)]` skip their full slices and return an
/// alias (`AliasBackward0`); `x[:, -4:]` is not skipped (the start is compared unnormalized).
#[test]
fn full_slices_of_a_tuple_index_give_an_alias() {
    let a = leaf(&[1.0; 12], &[3, 4]);
    let name = |t: Tensor| t.grad_fn().unwrap().name().to_string();
    assert_eq!(name(a.index(&[FULL, FULL]).unwrap()), "AliasBackward0");
    assert_eq!(
        name(a.index(&[Slice(Some(0), Some(100), None), FULL]).unwrap()),
        "AliasBackward0"
    );
    assert_eq!(name(a.index(&[FULL]).unwrap()), "AliasBackward0");
    assert_eq!(
        name(a.index(&[FULL, Slice(Some(-4), None, None)]).unwrap()),
        "SliceBackward0"
    );
}

/// `dot` unpacks `self` before `tensor`: the first modified one is reported.
#[test]
fn dot_reports_self_first() {
    let a = leaf(&[0.5], &[1]);
    let t2 = a.clone();
    let t3 = t2.transpose(0, -1).unwrap();
    let y = t2.dot(&t3).unwrap();
    {
        let _g = no_grad();
        t2.detach().fill_(1.0).unwrap();
    }
    let e = y.backward().unwrap_err();
    assert!(
        e.message().contains("which is output 0 of Clone,"),
        "{}",
        e.message()
    );
}

/// The saved result of an in-place op on a view is the view: the error names the view's
/// regenerated node (`AsStrided`) while it is alive.
#[test]
fn inplace_on_view_saved_result_names_as_strided() {
    let a = leaf(&[0.5, 1.0, 1.5, 2.0], &[2, 2]);
    let x = a.mul(2.0).unwrap();
    let v = x.diagonal().unwrap();
    v.exp_().unwrap();
    {
        let _g = no_grad();
        v.add_(1.0).unwrap();
    }
    let e = x.sum().unwrap().backward().unwrap_err();
    assert!(
        e.message().contains("which is output 0 of AsStrided,"),
        "{}",
        e.message()
    );
}

/// An in-place op on an expanded view of a non-leaf is refused by the op itself, before any
/// `CopySlices` is built (PyTorch's overlap error, as without autograd).
#[test]
fn inplace_on_an_expanded_view_fails() {
    let a = leaf(&[1.0, 2.0, 3.0], &[3]);
    let x = a.mul(2.0).unwrap();
    let v = x.expand([2, 3]).unwrap();
    let e = v.mul_(3.0).unwrap_err();
    assert!(
        e.message()
            .starts_with("unsupported operation: more than one element"),
        "{}",
        e.message()
    );
    // the refused op changed nothing: backward runs
    x.sum().unwrap().backward().unwrap();
    assert_eq!(a.grad().unwrap().to_vec::<f64>(), [2.0, 2.0, 2.0]);
}

/// A view of an expanded leaf: the gradient follows the logical layout (no sum over the
/// aliased storage elements).
#[test]
fn views_of_an_expanded_leaf() {
    let base = Tensor::from_vec(vec![1.0f64, 2.0, 3.0], [3]).unwrap();
    let x = base.expand([2, 3]).unwrap().detach();
    x.requires_grad_(true).unwrap();
    let parts = x.split_with(2, -1).unwrap();
    let g = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], [2, 2]).unwrap();
    parts[0].backward_with(Some(&g), false).unwrap();
    assert_eq!(
        x.grad().unwrap().to_vec::<f64>(),
        [1.0, 2.0, 0.0, 3.0, 4.0, 0.0]
    );
    let y = x.squeeze_dim(0).unwrap();
    assert_eq!(y.grad_fn().unwrap().name(), "SqueezeBackward1");
}
