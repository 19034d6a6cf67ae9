//! Deep autograd graphs (issue 27, item 2): a chain of 10^6 nodes is built, differentiated
//! and dropped on a thread with a 2 MiB stack, as PyTorch does (its `deleteNode` frees a
//! graph iteratively). Before `impl Drop for Node`, dropping such a chain freed its
//! `Arc<Node>`s recursively and overflowed the stack (the test process aborted).

use tensile::Tensor;

const N: usize = 1_000_000;

/// Runs `f` on a thread with a 2 MiB stack (Rust's default for spawned threads, set
/// explicitly) and propagates its panic.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

fn leaf(v: f32) -> Tensor {
    Tensor::from_vec(vec![v], [1])
        .unwrap()
        .requires_grad_(true)
        .unwrap()
}

#[test]
fn a_deep_chain_is_differentiated_and_dropped() {
    on_small_stack(|| {
        let x = leaf(1.0);
        let mut y = x.alias();
        for _ in 0..N {
            y = y.mul(1.0).unwrap();
        }
        assert_eq!(y.grad_fn().unwrap().name(), "MulBackward0");
        y.backward().unwrap();
        assert_eq!(x.grad().unwrap().to_vec::<f32>(), vec![1.0]);
        drop(y);
        drop(x);
    });
}

#[test]
fn a_deep_chain_is_dropped_without_backward() {
    on_small_stack(|| {
        let x = leaf(1.0);
        let mut y = x.alias();
        for _ in 0..N {
            y = y.mul(1.0).unwrap();
        }
        drop(x);
        drop(y);
    });
}

/// `mul` by a tensor that requires grad saves both inputs, and `sin` saves its input: each
/// node then also holds the previous output, whose autograd meta holds the previous node
/// (the saved tensor → meta → `grad_fn` path).
#[test]
fn a_deep_chain_holding_saved_tensors_is_dropped_without_backward() {
    on_small_stack(|| {
        let x = leaf(0.5);
        let w = leaf(1.0);
        let mut y = x.alias();
        for i in 0..N {
            y = if i % 2 == 0 {
                y.mul(&w).unwrap()
            } else {
                y.sin().unwrap()
            };
        }
        drop(x);
        drop(w);
        drop(y);
    });
}

#[test]
fn a_deep_chain_holding_saved_tensors_is_differentiated_and_dropped() {
    on_small_stack(|| {
        let x = leaf(1.0);
        let w = leaf(1.0);
        let mut y = x.alias();
        for _ in 0..N {
            y = y.mul(&w).unwrap();
        }
        y.backward().unwrap();
        assert_eq!(x.grad().unwrap().to_vec::<f32>(), vec![1.0]);
        // d(x * w^N)/dw = N at w = 1 (each step adds 1: exact in float32)
        assert_eq!(w.grad().unwrap().to_vec::<f32>(), vec![N as f32]);
        drop(y);
    });
}

/// With `retain_graph` the saved tensors survive the backward, so the drop afterwards walks
/// both the next edges and the saved tensors.
#[test]
fn a_deep_chain_retained_after_backward_is_dropped() {
    on_small_stack(|| {
        let x = leaf(1.0);
        let w = leaf(1.0);
        let mut y = x.alias();
        for _ in 0..N {
            y = y.mul(&w).unwrap();
        }
        y.backward_with(None, true).unwrap();
        y.backward_with(None, true).unwrap();
        assert_eq!(x.grad().unwrap().to_vec::<f32>(), vec![2.0]);
        assert_eq!(w.grad().unwrap().to_vec::<f32>(), vec![2.0 * N as f32]);
        drop(x);
        drop(w);
        drop(y);
    });
}

/// In-place ops on a view: each makes a `CopySlices` node (holding the op's node in its
/// formula) that becomes the base's `grad_fn`, and regenerates the view's node.
#[test]
fn a_deep_chain_of_in_place_ops_on_a_view_is_differentiated_and_dropped() {
    on_small_stack(|| {
        let x = Tensor::from_vec(vec![1.0f32, 2.0], [2])
            .unwrap()
            .requires_grad_(true)
            .unwrap();
        let base = x.mul(1.0).unwrap();
        let v = base.select(0, 0).unwrap();
        for _ in 0..N / 4 {
            v.mul_(1.0).unwrap();
        }
        assert_eq!(base.grad_fn().unwrap().name(), "CopySlices");
        base.sum().unwrap().backward().unwrap();
        assert_eq!(x.grad().unwrap().to_vec::<f32>(), vec![1.0, 1.0]);
        drop(v);
        drop(base);
    });
}

/// The goal, checked by hand (too slow and too large for every `cargo test`): a chain
/// of `TENSILE_DEEP_N` nodes (default 10^7) of `TENSILE_DEEP_OP` (`add`: `y.add(0.0)`, about
/// 0.35 KB a node; `mul`: `y.mul(1.0)`, which saves its scalar operand, about 1.4 KB a node)
/// built, differentiated and dropped on a 2 MiB stack, with the time of each phase:
/// `TENSILE_DEEP_N=10000000 cargo test --release --test deep_graph -- --ignored --nocapture`.
#[test]
#[ignore]
fn a_chain_of_ten_million_nodes() {
    let n: usize = std::env::var("TENSILE_DEEP_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000_000);
    let mul = std::env::var("TENSILE_DEEP_OP").is_ok_and(|s| s == "mul");
    on_small_stack(move || {
        let t = std::time::Instant::now();
        let x = leaf(1.0);
        let mut y = x.alias();
        for _ in 0..n {
            y = if mul { y.mul(1.0) } else { y.add(0.0) }.unwrap();
        }
        let built = t.elapsed();
        y.backward().unwrap();
        let differentiated = t.elapsed();
        assert_eq!(x.grad().unwrap().to_vec::<f32>(), vec![1.0]);
        drop(y);
        let dropped = t.elapsed();
        println!(
            "{n} nodes of {}: built in {built:.2?}, backward done at {differentiated:.2?}, dropped at {dropped:.2?}",
            if mul { "mul" } else { "add" }
        );
    });
}
