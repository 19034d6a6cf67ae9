//! The backwards-compatibility broadcast warning (`torch.utils.backcompat.broadcast_warning`),
//! captured through the warning hook.
//!
//! The switch and the hook are process-global, so everything is in one `#[test]` function:
//! tests of the same binary run on parallel threads and would otherwise race.

use std::sync::{Arc, Mutex};

use tensile::backcompat::{BROADCAST_WARNING, set_broadcast_warning};
use tensile::warnings::set_warning_hook;
use tensile::{DType, Tensor};

#[test]
fn broadcast_warning_is_captured_only_when_meaning_changed_and_switched_on() {
    let captured: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&captured);
    set_warning_hook(Some(Box::new(move |msg: &str| {
        sink.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(msg.to_string());
    })));
    let take = || std::mem::take(&mut *captured.lock().unwrap_or_else(|e| e.into_inner()));

    let a = Tensor::ones_with([4, 1], DType::Float32).unwrap();
    let b = Tensor::randn_with(
        [4],
        (&tensile::Generator::new().manual_seed(0), DType::Float32),
    )
    .unwrap();

    // Switch on: add(ones(4,1), randn(4)) is (4,4) now, was (4,1) before broadcasting: warns.
    set_broadcast_warning(true);
    let r = a.add(&b).unwrap();
    assert_eq!(r.size(), &[4, 4]);
    assert_eq!(take(), vec![BROADCAST_WARNING.to_string()]);
    assert_eq!(
        BROADCAST_WARNING,
        "self and other do not have the same shape, but are broadcastable, and have the same number of elements.  Changing behavior in a backwards incompatible manner to broadcasting rather than viewing as 1-dimensional."
    );
    // The operator goes through the same op, so it warns too.
    assert_eq!((&a + &b).size(), &[4, 4]);
    assert_eq!(take().len(), 1);

    // Switch on, (4,4)+(4,): broadcastable but different element counts: no warning.
    let r = Tensor::ones_with([4, 4], DType::Float32)
        .unwrap()
        .add(&b)
        .unwrap();
    assert_eq!(r.size(), &[4, 4]);
    assert_eq!(take(), Vec::<String>::new());
    // Same shapes: no warning; a number operand: no warning.
    a.add(&a).unwrap();
    b.add(1.0).unwrap();
    assert_eq!(take(), Vec::<String>::new());
    // Same element count, not broadcastable: an error, never the old 1-D fallback, no warning.
    let e = Tensor::ones_with([3, 4], DType::Float32)
        .unwrap()
        .add(&Tensor::ones_with([12], DType::Float32).unwrap())
        .unwrap_err();
    assert_eq!(
        e.message(),
        "The size of tensor a (4) must match the size of tensor b (12) at non-singleton dimension 1"
    );
    assert_eq!(take(), Vec::<String>::new());

    // Switch off (PyTorch 2.15's behaviour): silent, same result.
    set_broadcast_warning(false);
    let r = a.add(&b).unwrap();
    assert_eq!(r.size(), &[4, 4]);
    assert_eq!(take(), Vec::<String>::new());

    set_warning_hook(None);
}
