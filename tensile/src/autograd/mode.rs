//! Grad mode: PyTorch's thread-local `torch.is_grad_enabled()` flag and its RAII guards.

use std::cell::Cell;

thread_local! {
    static GRAD_ENABLED: Cell<bool> = const { Cell::new(true) };
    /// Depth of in-place ops being run (an in-place op implemented with another one bumps
    /// the version and records once, at the outer call).
    pub(crate) static INPLACE_DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// `torch.is_grad_enabled()`: whether ops record their backward (thread-local, default true).
#[inline]
pub fn is_grad_enabled() -> bool {
    GRAD_ENABLED.with(|g| g.get())
}

/// `torch.set_grad_enabled(b)` (the function form): sets this thread's grad mode.
pub fn set_grad_enabled(enabled: bool) {
    GRAD_ENABLED.with(|g| g.set(enabled));
}

/// Restores the previous grad mode when dropped. Made by [`no_grad`] and [`enable_grad`].
#[must_use = "grad mode is restored when the guard is dropped"]
pub struct GradModeGuard {
    prev: bool,
}

impl Drop for GradModeGuard {
    fn drop(&mut self) {
        set_grad_enabled(self.prev);
    }
}

/// The guard of `with torch.no_grad():`.
pub type NoGradGuard = GradModeGuard;
/// The guard of `with torch.enable_grad():`.
pub type EnableGradGuard = GradModeGuard;

fn guard(enabled: bool) -> GradModeGuard {
    let prev = is_grad_enabled();
    set_grad_enabled(enabled);
    GradModeGuard { prev }
}

/// `with torch.no_grad():` — ops run while the guard lives record nothing; outputs are leaves.
pub fn no_grad() -> NoGradGuard {
    guard(false)
}

/// `with torch.enable_grad():` — recording on again (inside a `no_grad` block) while the guard
/// lives.
pub fn enable_grad() -> EnableGradGuard {
    guard(true)
}
