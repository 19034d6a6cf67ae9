//! The backwards-compatibility broadcast warning (`torch.utils.backcompat.broadcast_warning`).
//!
//! Before broadcasting existed, pointwise ops viewed operands with the same number of
//! elements as 1-D. PyTorch documents an opt-in warning for calls whose meaning changed: the
//! two shapes differ, are broadcastable, and hold the same number of elements (the classic case
//! is `add(ones(4,1), ones(4))`: `(4,1)` then, `(4,4)` now). PyTorch 2.15 keeps the flag but no
//! longer emits the warning; tensile honours the documented behaviour behind this switch, off by
//! default. The warning goes through [`crate::warnings::warn`], so it can be captured.

use std::sync::atomic::{AtomicBool, Ordering};

static ENABLED: AtomicBool = AtomicBool::new(false);

/// The warning's text, exactly as PyTorch documented it (two spaces after `elements.`).
pub const BROADCAST_WARNING: &str = "self and other do not have the same shape, but are broadcastable, and have the same number of elements.  Changing behavior in a backwards incompatible manner to broadcasting rather than viewing as 1-dimensional.";

/// Turns the warning on or off (`torch.utils.backcompat.broadcast_warning.enabled = …`).
pub fn set_broadcast_warning(enabled: bool) {
    ENABLED.store(enabled, Ordering::Relaxed);
}

/// Whether the warning is on.
pub fn broadcast_warning_enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Whether shapes `a` and `b` are the case the warning is about: different, broadcastable,
/// same number of elements. Element counts are products that wrap, as PyTorch's int64
/// `numel()` does, so shapes of no real tensor give an answer rather than an overflow.
pub fn changes_meaning(a: &[usize], b: &[usize]) -> bool {
    let numel = |s: &[usize]| s.iter().fold(1usize, |n, &d| n.wrapping_mul(d));
    a != b && crate::broadcast::infer_size(a, b).is_ok() && numel(a) == numel(b)
}

/// Emits the warning for a binary op on shapes `a` and `b` when the switch is on.
pub(crate) fn maybe_warn(a: &[usize], b: &[usize]) {
    if broadcast_warning_enabled() && changes_meaning(a, b) {
        crate::warnings::warn(BROADCAST_WARNING);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classic_case() {
        assert!(changes_meaning(&[4, 1], &[4]));
        assert!(!changes_meaning(&[4, 4], &[4]));
        assert!(!changes_meaning(&[3, 4], &[12]));
        assert!(!changes_meaning(&[4], &[4]));
        // no overflow on shapes of no real tensor
        assert!(!changes_meaning(&[usize::MAX, 3], &[3]));
    }
}
