//! The examples the project started from (`shared/spec/seed-examples.md`: tutorial notes on
//! broadcasting and contiguity), reproduced and explained by tensile.
//!
//! ```sh
//! cargo run --release --example seeds
//! ```
//!
//! For each example it prints the input shapes, the dimension-by-dimension broadcast
//! walk-through ([`tensile::explain::explain_broadcast`]), the result shape or PyTorch's exact
//! error, strides, contiguity, and the tensors as PyTorch prints them. Every outcome the notes
//! state is also checked; the program ends with the count and exits with status 1 on any
//! mismatch.

use std::sync::{Arc, Mutex};

use tensile::backcompat::{BROADCAST_WARNING, set_broadcast_warning};
use tensile::error::{fmt_list, fmt_tuple};
use tensile::explain::explain_broadcast;
use tensile::warnings::set_warning_hook;
use tensile::{DType, Tensor, s};

/// Counts the checks against the notes, and the mismatches.
#[derive(Default)]
struct Checks {
    total: usize,
    failed: Vec<String>,
}

impl Checks {
    fn check(&mut self, ok: bool, what: impl Into<String>) {
        self.total += 1;
        if !ok {
            let what = what.into();
            println!("  !! MISMATCH with the notes: {what}");
            self.failed.push(what);
        }
    }
}

/// A float32 tensor of `shape` holding 0, 1, 2, … (row-major).
fn arange_f32(shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::from_vec((0..n).map(|i| i as f32).collect::<Vec<f32>>(), shape)
        .expect("n values for the shape")
}

fn heading(title: &str) {
    println!();
    println!("{}", "=".repeat(88));
    println!("{title}");
    println!("{}", "=".repeat(88));
}

fn case(title: &str) {
    println!();
    println!("--- {title}");
    println!();
}

/// Indents every line of `text` by `n` spaces.
fn indent(text: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    text.lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A size as PyTorch prints `x.size()`: `torch.Size([5, 3, 4, 1])`.
fn torch_size(sizes: &[usize]) -> String {
    format!("torch.Size({})", fmt_list(sizes))
}

/// `name: size torch.Size([..]), strides (..), contiguous: …`, then the tensor as PyTorch prints it when it
/// is small enough to read.
fn show(name: &str, t: &Tensor) {
    println!(
        "{name}: size {}, strides {}, contiguous: {}, dtype {}",
        torch_size(t.size()),
        fmt_tuple(t.stride()),
        t.is_contiguous(),
        t.dtype().name()
    );
    if t.numel() <= 24 {
        println!("{}", indent(&t.to_string(), 4));
    } else {
        println!("    ({} values, not printed)", t.numel());
    }
}

/// `size torch.Size([4, 4])` or `error: …`.
fn shape_or_error(r: &tensile::Result<Tensor>) -> String {
    match r {
        Ok(t) => format!("size {}", torch_size(t.size())),
        Err(e) => format!("error: {e}"),
    }
}

/// The rule `is_contiguous` applies, walked dim by dim (last to first, size-1 dims skipped,
/// each stride must be the product of the sizes to its right).
fn contiguity_walk(t: &Tensor) -> bool {
    println!("is_contiguous, walked from the last dim to the first (size-1 dims skipped):");
    if t.numel() == 0 {
        println!("    no elements: contiguous");
        return true;
    }
    let mut expected = 1usize;
    let mut ok = true;
    for d in (0..t.dim()).rev() {
        let (size, stride) = (t.size()[d], t.stride()[d]);
        if size == 1 {
            println!("    dim {d}: size 1, skipped");
            continue;
        }
        let good = stride == expected;
        println!(
            "    dim {d}: size {size}, stride {stride}, needs {expected} (product of the sizes to its right) -> {}",
            if good { "ok" } else { "no" }
        );
        ok &= good;
        expected *= size;
    }
    println!(
        "    => {}",
        if ok { "contiguous" } else { "not contiguous" }
    );
    ok
}

/// One broadcasting pair: walk-through, then `x + y` through tensile's op.
fn broadcast_pair(
    c: &mut Checks,
    x: &[usize],
    y: &[usize],
    note: &str,
    expect: Result<&[usize], &str>,
) {
    case(&format!("x {}, y {}: {note}", torch_size(x), torch_size(y)));
    let e = explain_broadcast(&[x, y]);
    println!("{}", indent(&e.to_string(), 2));
    println!();
    let (tx, ty) = (arange_f32(x), arange_f32(y));
    show("x", &tx);
    show("y", &ty);
    match tx.add(&ty) {
        Ok(z) => {
            show("x + y", &z);
            c.check(
                expect == Ok(z.size()),
                format!("{x:?} + {y:?} should be {expect:?}, got {:?}", z.size()),
            );
            c.check(
                e.result().as_ref().ok() == Some(&z.size().to_vec()),
                "explain agrees with add",
            );
        }
        Err(err) => {
            println!("x + y: RuntimeError: {err}");
            match expect {
                Err(msg) if !msg.is_empty() => {
                    c.check(err.message() == msg, format!("message for {x:?}+{y:?}"))
                }
                Err(_) => {}
                Ok(s) => c.check(
                    false,
                    format!("{x:?} + {y:?} should be {s:?}, got an error"),
                ),
            }
            c.check(
                e.result().as_ref().err() == Some(&err),
                "explain gives add's error",
            );
        }
    }
}

/// A broadcasting example: x, y, the notes' comment, and the outcome (shape or message).
type Pair<'a> = (
    &'a [usize],
    &'a [usize],
    &'a str,
    Result<&'a [usize], &'a str>,
);

fn broadcasting(c: &mut Checks) {
    heading("1. Broadcasting: when two shapes are broadcastable");
    let msg_0_2 =
        "The size of tensor a (0) must match the size of tensor b (2) at non-singleton dimension 1";
    let msg_2_3 =
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1";
    let msg_3_2 =
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0";
    let pairs: &[Pair] = &[
        (
            &[5, 7, 3],
            &[5, 7, 3],
            "same shapes always broadcast",
            Ok(&[5, 7, 3]),
        ),
        (
            &[0],
            &[2, 2],
            "not broadcastable (the notes say \"x has no dimension\"; in fact the trailing sizes 0 and 2 clash)",
            Err(msg_0_2),
        ),
        (
            &[5, 3, 4, 1],
            &[3, 1, 1],
            "broadcastable: trailing dims 1/1, 4/1, 3/3, 5/missing",
            Ok(&[5, 3, 4, 1]),
        ),
        (
            &[5, 2, 4, 1],
            &[3, 1, 1],
            "not broadcastable: third trailing dim 2 != 3",
            Err(msg_2_3),
        ),
        (
            &[5, 1, 4, 1],
            &[3, 1, 1],
            "broadcastable",
            Ok(&[5, 3, 4, 1]),
        ),
        (&[1], &[3, 1, 7], "broadcastable", Ok(&[3, 1, 7])),
        (&[5, 2, 4, 1], &[1, 1], "broadcastable", Ok(&[5, 2, 4, 1])),
        (
            &[5, 1, 4, 1],
            &[3, 1, 2],
            "y is implicitly y[None, :], shape (1, 3, 1, 2)",
            Ok(&[5, 3, 4, 2]),
        ),
        (
            &[4, 3],
            &[1, 3],
            "the single row of y is repeated",
            Ok(&[4, 3]),
        ),
        (&[2, 3], &[2, 1], "NumPy's example", Ok(&[2, 3])),
        (&[2, 3, 2], &[3, 2], "broadcastable", Ok(&[2, 3, 2])),
        (&[3, 4, 5], &[4, 5], "broadcastable", Ok(&[3, 4, 5])),
        (&[3, 4], &[4], "broadcastable", Ok(&[3, 4])),
        (&[4, 5], &[4, 1], "broadcastable", Ok(&[4, 5])),
        (&[3, 3], &[2, 3], "not broadcastable", Err(msg_3_2)),
    ];
    for (x, y, note, expect) in pairs {
        broadcast_pair(c, x, y, note, *expect);
    }

    case("y (3, 1, 2) is implicitly y[None, :]: a view with a new leading size-1 dim");
    let y = arange_f32(&[3, 1, 2]);
    match y.index(&s![None, ..]) {
        Ok(v) => {
            show("y", &y);
            show("y[None, :]", &v);
            c.check(
                v.size() == [1, 3, 1, 2] && v.stride() == [6, 2, 2, 1],
                "y[None, :] geometry",
            );
            c.check(v.shares_storage(&y), "y[None, :] is a view");
            let x = arange_f32(&[5, 1, 4, 1]);
            let same = match (x.add(&y), x.add(&v)) {
                (Ok(a), Ok(b)) => a.size() == b.size() && a.to_vec::<f32>() == b.to_vec::<f32>(),
                _ => false,
            };
            println!("x + y == x + y[None, :]: {same}");
            c.check(same, "x + y equals x + y[None, :]");
        }
        Err(e) => c.check(false, format!("y[None, :] failed: {e}")),
    }
}

fn in_place(c: &mut Checks) {
    heading("2. In-place: the other operand may broadcast, self's shape may not change");

    case("x (5, 3, 4, 1).add_(y (3, 1, 1)): works, x keeps its shape");
    let x = Tensor::zeros_with([5, 3, 4, 1], DType::Float32).unwrap();
    let y = arange_f32(&[3, 1, 1]);
    println!(
        "{}",
        indent(&explain_broadcast(&[x.size(), y.size()]).to_string(), 2)
    );
    println!();
    let ptr = x.data_ptr();
    match x.add_(&y) {
        Ok(_) => {
            show("x after x.add_(y)", &x);
            println!("same storage as before: {}", x.data_ptr() == ptr);
            c.check(
                x.size() == [5, 3, 4, 1] && x.data_ptr() == ptr,
                "add_ keeps x's shape and storage",
            );
            let v = x.to_vec::<f32>();
            c.check(v[0] == 0.0 && v[4] == 1.0 && v[8] == 2.0, "add_ values");
        }
        Err(e) => c.check(false, format!("x.add_(y) failed: {e}")),
    }

    case("x (1, 3, 1).add_(y (3, 1, 7)): fails, the broadcast shape (3, 3, 7) is not x's shape");
    let x = arange_f32(&[1, 3, 1]);
    let y = Tensor::ones_with([3, 1, 7], DType::Float32).unwrap();
    println!(
        "{}",
        indent(&explain_broadcast(&[x.size(), y.size()]).to_string(), 2)
    );
    println!(
        "  ... but in place the result must keep x's size {}",
        torch_size(x.size())
    );
    println!();
    match x.add_(&y) {
        Ok(_) => c.check(false, "x (1,3,1).add_(y (3,1,7)) should fail"),
        Err(e) => {
            println!("x.add_(y): RuntimeError: {e}");
            c.check(
                e.message()
                    == "output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]",
                "in-place shape message",
            );
        }
    }
    show("x, unchanged", &x);
    c.check(
        x.to_vec::<f32>() == vec![0.0, 1.0, 2.0],
        "x unchanged after the failed add_",
    );
    match x.expand([3, 3, 7]) {
        Ok(v) => {
            println!(
                "x.expand(3, 3, 7) reads as that shape without copying (stride 0 repeats), but cannot be written:"
            );
            show("x.expand(3, 3, 7)", &v);
            c.check(v.stride() == [0, 1, 0], "expand strides (0, 1, 0)");
        }
        Err(e) => c.check(false, format!("expand failed: {e}")),
    }
}

fn backwards_compatibility(c: &mut Checks) {
    heading("3. Backwards compatibility: the pre-broadcasting 1-D behaviour");

    case("add(ones(4, 1), randn(4)): (4, 4) now; before broadcasting existed it was (4, 1)");
    let a = Tensor::ones_with([4, 1], DType::Float32).unwrap();
    let b = match Tensor::randn_with(
        [4],
        (&tensile::Generator::new().manual_seed(0), DType::Float32),
    ) {
        Ok(b) => b,
        Err(e) => return c.check(false, format!("randn failed: {e}")),
    };
    println!(
        "{}",
        indent(&explain_broadcast(&[a.size(), b.size()]).to_string(), 2)
    );
    println!();
    let captured: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&captured);
    set_warning_hook(Some(Box::new(move |m: &str| {
        sink.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(m.to_string())
    })));
    let take = || std::mem::take(&mut *captured.lock().unwrap_or_else(|e| e.into_inner()));

    set_broadcast_warning(true);
    let r = a.add(&b);
    let warned = take();
    println!("with tensile::backcompat::set_broadcast_warning(true):");
    println!("    add(ones(4, 1), randn(4)): {}", shape_or_error(&r));
    for w in &warned {
        println!("    UserWarning (captured by the hook): {w}");
    }
    c.check(
        r.as_ref().map(|t| t.size() == [4, 4]).unwrap_or(false),
        "backcompat result (4, 4)",
    );
    c.check(
        warned == vec![BROADCAST_WARNING.to_string()],
        "the warning is captured once, verbatim",
    );

    let r = Tensor::ones_with([4, 4], DType::Float32).unwrap().add(&b);
    let warned = take();
    println!(
        "    ones(4, 4) + randn(4): {}, warnings: {}",
        shape_or_error(&r),
        warned.len()
    );
    c.check(warned.is_empty(), "no warning for (4, 4) + (4,)");

    set_broadcast_warning(false);
    let r = a.add(&b);
    let warned = take();
    println!("with the switch off (the default, and PyTorch 2.15's behaviour):");
    println!(
        "    add(ones(4, 1), randn(4)): {}, warnings: {}",
        shape_or_error(&r),
        warned.len()
    );
    c.check(warned.is_empty(), "no warning with the switch off");
    set_warning_hook(None);

    case(
        "ones(3, 4) + ones(12): same number of elements, not broadcastable: an error (the old 1-D fallback is gone)",
    );
    let (x, y) = (
        Tensor::ones_with([3, 4], DType::Float32).unwrap(),
        Tensor::ones_with([12], DType::Float32).unwrap(),
    );
    println!(
        "{}",
        indent(&explain_broadcast(&[x.size(), y.size()]).to_string(), 2)
    );
    println!();
    match x.add(&y) {
        Ok(_) => c.check(false, "(3,4)+(12,) should fail"),
        Err(e) => {
            println!("x + y: RuntimeError: {e}");
            c.check(
                e.message() == "The size of tensor a (4) must match the size of tensor b (12) at non-singleton dimension 1",
                "(3,4)+(12,) message",
            );
        }
    }
}

fn contiguity(c: &mut Checks) -> tensile::Result<()> {
    heading("4. Contiguity: strides, transpose, view vs reshape");

    case("t = arange(12).reshape(3, 4)");
    let t = Tensor::arange_with((0.0, 12.0, 1.0), DType::Int64)?.reshape([3, 4])?;
    show("t", &t);
    let walk = contiguity_walk(&t);
    let bytes: Vec<usize> = t.stride().iter().map(|s| s * t.element_size()).collect();
    println!(
        "strides in bytes (NumPy's way: stride x item size {}): {}",
        t.element_size(),
        fmt_tuple(&bytes)
    );
    c.check(
        t.stride() == [4, 1] && t.is_contiguous() && walk,
        "t strides (4, 1), contiguous",
    );
    c.check(
        t.to_string()
            == "tensor([[ 0,  1,  2,  3],\n        [ 4,  5,  6,  7],\n        [ 8,  9, 10, 11]])",
        "t prints as in the notes",
    );

    case("t2 = t.transpose(0, 1)");
    let t2 = t.transpose(0, 1)?;
    show("t2", &t2);
    println!("same storage as t: {}", t2.shares_storage(&t));
    let walk2 = contiguity_walk(&t2);
    println!(
        "t2's strides (1, 4) are the column-major (Fortran) strides of shape (4, 3): t2 reads t's memory in Fortran order"
    );
    c.check(
        t2.stride() == [1, 4] && !t2.is_contiguous() && !walk2,
        "t2 strides (1, 4), not contiguous",
    );
    c.check(t2.shares_storage(&t), "t2 shares t's storage");
    c.check(
        t2.to_string()
            == "tensor([[ 0,  4,  8],\n        [ 1,  5,  9],\n        [ 2,  6, 10],\n        [ 3,  7, 11]])",
        "t2 prints as in the notes",
    );

    case("t2.view(-1): fails, no strides can walk t2's elements in row-major order");
    match t2.view([-1]) {
        Ok(_) => c.check(false, "t2.view(-1) should fail"),
        Err(e) => {
            println!("t2.view(-1): RuntimeError: {e}");
            c.check(
                e.message()
                    == "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
                "view error message",
            );
        }
    }
    let tv = t.view([-1])?;
    show("t.view(-1) (t is contiguous: a view)", &tv);
    println!("same storage as t: {}", tv.shares_storage(&t));
    c.check(
        tv.shares_storage(&t) && tv.stride() == [1],
        "t.view(-1) is a view",
    );
    let t26 = t.view([2, 6])?;
    show("t.view(2, 6)", &t26);
    c.check(
        t26.shares_storage(&t) && t26.stride() == [6, 1],
        "t.view(2, 6) is a view",
    );
    let tf = t.flatten_with((0, -1))?;
    c.check(tf.shares_storage(&t), "t.flatten() is a view");

    case("t3 = t2.contiguous(): new storage, t2's elements in row-major order");
    let t3 = t2.contiguous();
    show("t3", &t3);
    println!("same storage as t: {}", t3.shares_storage(&t));
    println!("storage order of t3: {:?}", t3.to_vec::<i64>());
    c.check(
        !t3.shares_storage(&t)
            && t3.stride() == [3, 1]
            && t3.to_vec::<i64>() == vec![0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11],
        "t3 is a row-major copy",
    );
    contiguity_walk(&t3);

    case("t2.reshape(-1): a view is impossible, so it copies the same way");
    let r = t2.reshape([-1])?;
    show("t2.reshape(-1)", &r);
    println!("same storage as t: {}", r.shares_storage(&t));
    c.check(
        !r.shares_storage(&t) && r.to_vec::<i64>() == vec![0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11],
        "t2.reshape(-1) copies",
    );
    Ok(())
}

fn main() {
    println!("tensile: the seed examples (shared/spec/seed-examples.md), reproduced");
    let mut c = Checks::default();
    broadcasting(&mut c);
    in_place(&mut c);
    backwards_compatibility(&mut c);
    if let Err(e) = contiguity(&mut c) {
        c.check(false, format!("contiguity examples: unexpected error: {e}"));
    }
    println!();
    println!("{}", "=".repeat(88));
    if c.failed.is_empty() {
        println!("all {} checks agree with the notes", c.total);
    } else {
        println!(
            "{} of {} checks disagree with the notes:",
            c.failed.len(),
            c.total
        );
        for f in &c.failed {
            println!("  {f}");
        }
        std::process::exit(1);
    }
}
