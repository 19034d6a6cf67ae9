//! The one error type of tensile.
//!
//! Every fallible operation returns [`Result<T>`]. The error's text is PyTorch's message,
//! character for character where PyTorch's text is stable, and [`Error::kind`] tells which
//! Python exception class PyTorch raises for it (`RuntimeError`, `IndexError`, `ValueError`,
//! `NotImplementedError`). Users porting code that matches on PyTorch's messages can match
//! on ours.

use std::fmt;

/// The Python exception class PyTorch raises for an error.
///
/// `TORCH_CHECK` raises `RuntimeError`, `TORCH_CHECK_INDEX` raises `IndexError`,
/// `TORCH_CHECK_VALUE` raises `ValueError`, `TORCH_CHECK_NOT_IMPLEMENTED` raises
/// `NotImplementedError`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// `RuntimeError`: shape, dtype, overlap and most other checks.
    RuntimeError,
    /// `IndexError`: dimension wrapping and out-of-range indices.
    IndexError,
    /// `ValueError`: bad values such as a zero slice step.
    ValueError,
    /// `NotImplementedError`: an op that has no kernel for a dtype.
    NotImplementedError,
    /// `TypeError`: an argument of the wrong kind (`torch.finfo(torch.int64)`).
    TypeError,
    /// `AssertionError`: a Python-level `assert` of `torch.nn.functional` (`F.embedding`'s
    /// `Padding_idx must be within num_embeddings`).
    AssertionError,
    /// `KeyError`: a missing dict key (`optimizer.state_dict()` when the state holds a
    /// parameter that is no longer in any group).
    KeyError,
    /// `torch.linalg.LinAlgError` (a `RuntimeError`; Python's class name `_LinAlgError`):
    /// a factorisation that cannot be completed (`linalg.cholesky` of a matrix that is not
    /// positive-definite).
    LinAlgError,
}

impl ErrorKind {
    /// The Python class name, e.g. `"RuntimeError"`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::RuntimeError => "RuntimeError",
            ErrorKind::IndexError => "IndexError",
            ErrorKind::ValueError => "ValueError",
            ErrorKind::NotImplementedError => "NotImplementedError",
            ErrorKind::TypeError => "TypeError",
            ErrorKind::AssertionError => "AssertionError",
            ErrorKind::KeyError => "KeyError",
            ErrorKind::LinAlgError => "_LinAlgError",
        }
    }
}

/// An error with PyTorch's message and exception class.
///
/// `Display` prints the bare message (no class prefix), exactly as `str(e)` does in Python.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
        }
    }
    /// A `RuntimeError`.
    pub fn runtime(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::RuntimeError, message)
    }
    /// PyTorch's CPU allocator failure for `bytes` bytes (a `RuntimeError`):
    /// `[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate 4398046511104 bytes. Error code 12 (Cannot allocate memory)`.
    pub fn alloc(bytes: u128) -> Error {
        Error::runtime(format!(
            "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate {bytes} bytes. Error code 12 (Cannot allocate memory)"
        ))
    }
    /// An `IndexError`.
    pub fn index(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::IndexError, message)
    }
    /// A `ValueError`.
    pub fn value(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::ValueError, message)
    }
    /// A `TypeError`.
    pub fn type_error(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::TypeError, message)
    }
    /// An `AssertionError` (a failed Python `assert` in `torch.nn.functional`).
    pub fn assertion(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::AssertionError, message)
    }
    /// A `KeyError` (its message is the key, as `str(e)` prints it).
    pub fn key(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::KeyError, message)
    }
    /// A `NotImplementedError`.
    pub fn not_implemented(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::NotImplementedError, message)
    }

    /// An `AT_DISPATCH` refusal, NotImplementedError `"kernel" not implemented for 'Long'`:
    /// the kernel `kernel` has no instance for `dtype` (named as PyTorch names scalar types).
    pub(crate) fn not_implemented_for(kernel: &str, dtype: crate::dtype::DType) -> Error {
        Error::not_implemented(format!(
            "\"{kernel}\" not implemented for '{}'",
            dtype.scalar_type_name()
        ))
    }
    /// The Python exception class PyTorch raises here.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
    /// PyTorch's message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// `Result<T, tensile::Error>`.
pub type Result<T> = std::result::Result<T, Error>;

/// Formats an integer list the way C++ prints `IntArrayRef`: `[2, 3]`, `[]`.
pub fn fmt_list<T: fmt::Display>(xs: &[T]) -> String {
    let parts: Vec<String> = xs.iter().map(|x| x.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// Formats an integer list as a Python tuple: `(2, 3)`, `(3,)`, `()`.
pub fn fmt_tuple<T: fmt::Display>(xs: &[T]) -> String {
    match xs.len() {
        1 => format!("({},)", xs[0]),
        _ => {
            let parts: Vec<String> = xs.iter().map(|x| x.to_string()).collect();
            format!("({})", parts.join(", "))
        }
    }
}

/// A `Vec` with room for `n` elements of `T`, or PyTorch's allocator error
/// ([`Error::alloc`]: `… DefaultCPUAllocator: can't allocate memory: you tried to allocate N bytes. …`)
/// instead of `Vec`'s abort or capacity-overflow panic. For buffers sized by user input.
pub(crate) fn try_vec<T>(n: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| Error::alloc((n as u128) * (std::mem::size_of::<T>() as u128)))?;
    Ok(v)
}

/// `vec![value; n]` with [`try_vec`]'s error instead of an abort.
pub(crate) fn try_filled<T: Clone>(value: T, n: usize) -> Result<Vec<T>> {
    let mut v = try_vec(n)?;
    v.resize(n, value);
    Ok(v)
}

/// Prints `e` and aborts, as `Vec` does when its allocation fails: the fate of the infallible
/// copies (`Clone::clone`, `Tensor::contiguous`, `Tensor::to_vec`) when memory runs out.
pub(crate) fn abort_with(e: Error) -> ! {
    eprintln!("tensile: {e}");
    std::process::abort()
}

/// Formats a double as C++'s `operator<<` does by default (6 significant digits, `%g`).
pub(crate) fn fmt_g(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    if x == 0.0 {
        return "0".into();
    }
    let exp = x.abs().log10().floor() as i32;
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if (-5..6).contains(&exp) {
        trim(format!("{:.*}", (5 - exp).max(0) as usize, x))
    } else {
        let s = format!("{:.5e}", x);
        let (m, e) = s.split_once('e').unwrap();
        let e: i32 = e.parse().unwrap();
        format!(
            "{}e{}{:02}",
            trim(m.to_string()),
            if e < 0 { '-' } else { '+' },
            e.abs()
        )
    }
}

/// A Python float as `str(x)` / f-strings print it: the shortest round-trip digits,
/// positional for exponents in `[-4, 16)` with at least one decimal (`1.0`, `-0.1`),
/// otherwise scientific with a signed two-digit exponent (`1e-08`, `1.5e+16`); `nan`, `inf`.
pub(crate) fn py_float(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let sci = format!("{x:e}"); // shortest digits: "-1.5e-7"
    let (mant, exp) = sci.split_once('e').expect("`{:e}` has an exponent");
    let exp: i32 = exp.parse().expect("`{:e}`'s exponent is an integer");
    if (-4..16).contains(&exp) {
        let s = format!("{x}");
        if s.contains('.') { s } else { format!("{s}.0") }
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::py_float;

    #[test]
    fn floats_print_as_python_prints_them() {
        assert_eq!(py_float(-0.1), "-0.1");
        assert_eq!(py_float(-1.0), "-1.0");
        assert_eq!(py_float(-1e-8), "-1e-08");
        assert_eq!(py_float(-1e-5), "-1e-05");
        assert_eq!(py_float(1e-4), "0.0001");
        assert_eq!(py_float(1.5e16), "1.5e+16");
        assert_eq!(py_float(1e15), "1000000000000000.0");
        assert_eq!(py_float(f64::NAN), "nan");
        assert_eq!(py_float(-0.0), "-0.0");
        assert_eq!(py_float(-2.5e-7), "-2.5e-07");
    }
}
