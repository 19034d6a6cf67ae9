//! Warnings (PyTorch's `UserWarning`s) go through one replaceable hook, so programs and tests
//! can capture them.

use std::sync::RwLock;

type Hook = Box<dyn Fn(&str) + Send + Sync>;

static HOOK: RwLock<Option<Hook>> = RwLock::new(None);

/// Replaces the warning hook; `None` restores the default (print `UserWarning: {msg}` to
/// stderr). Returns nothing; the hook receives the bare warning text.
pub fn set_warning_hook(hook: Option<Hook>) {
    *HOOK.write().unwrap_or_else(|e| e.into_inner()) = hook;
}

/// Emits a warning through the current hook.
pub fn warn(msg: &str) {
    let g = HOOK.read().unwrap_or_else(|e| e.into_inner());
    match g.as_ref() {
        Some(h) => h(msg),
        None => eprintln!("UserWarning: {msg}"),
    }
}
