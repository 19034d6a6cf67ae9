//! Checkpoint and array I/O: the file formats a PyTorch user's tensors live in.
//!
//! | format | read | write | module |
//! |---|---|---|---|
//! | safetensors (`safetensors.torch.save_file` / `load_file`) | [`safetensors::load`] (memory-mapped, zero-copy), [`safetensors::load_bytes`] | [`safetensors::save`], [`safetensors::save_bytes`] | [`safetensors`] |
//! | NumPy `.npy` (`numpy.save` / `numpy.load`) | [`npy::read`], [`npy::read_bytes`] | [`npy::write`], [`npy::to_bytes`] | [`npy`] |
//! | NumPy `.npz` (`numpy.savez`, `savez_compressed` / `numpy.load`) | [`npz::read`] | [`npz::write`] | [`npz`] |
//! | PyTorch `torch.save` zip files (`.pt`, `.bin`, torch ≥ 1.6) | [`torch::load`], [`torch::load_state_dict`] | — | [`torch`] |
//! | `ndarray` arrays (cargo feature `ndarray`, off by default) | [`Tensor::from_ndarray`](crate::Tensor::from_ndarray) | [`Tensor::to_ndarray`](crate::Tensor::to_ndarray) | `ndarray` |
//!
//! Every error is a `RuntimeError` whose text starts with the file's path (or `<bytes>` for
//! an in-memory buffer) and says what is wrong:
//! `[Errno 2] No such file or directory: 'w.pt'` (Python's text for a missing file),
//! `w.safetensors: truncated file: …`, `w.npy: bad header: …`, `w.pt: corrupt zip archive: …`,
//! `w.npy: dtype not supported: '<u2'`,
//! `w.pt: unsupported pickle global 'os.system'`, `w.npy: data holds 20 bytes but the header's shape (2, 3) of dtype '<f4' needs 24`.
//! No input, however corrupt, makes these functions panic.
//!
//! ```
//! use tensile::{io, DType, Tensor};
//! let dir = std::env::temp_dir().join(format!("tensile_io_doc_{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let w = Tensor::arange(6)?.to(DType::Float32)?.view([2, 3])?;
//! // safetensors.torch.save_file({"w": w, "wt": w.t().contiguous()}, path); load_file(path)
//! // (tensors sharing memory, `w` and `w.t()`, are refused as save_file refuses them)
//! io::safetensors::save(&[("w", &w), ("wt", &w.t()?.contiguous())], dir.join("m.safetensors"))?;
//! let sd = io::safetensors::load(dir.join("m.safetensors"))?;
//! assert_eq!(sd[1].0, "wt");
//! assert_eq!(sd[1].1.size(), [3, 2]);
//! // numpy.save / numpy.load
//! io::npy::write(dir.join("w.npy"), &w)?;
//! assert_eq!(io::npy::read(dir.join("w.npy"))?.to_vec::<f32>(), w.to_vec::<f32>());
//! // torch.load(path, weights_only=True) of a saved state dict: missing files are errors.
//! let e = io::torch::load_state_dict(dir.join("nope.pt")).unwrap_err();
//! assert!(e.to_string().starts_with("[Errno 2] No such file or directory: '"));
//! # Ok::<(), tensile::Error>(())
//! ```

use std::path::Path;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::{MappedFile, TypedStorage};

pub mod npy;
pub mod npz;
pub(crate) mod pickle;
pub mod safetensors;
pub mod torch;

#[cfg(feature = "ndarray")]
pub mod ndarray;

/// The label errors start with: the path as given.
pub(crate) fn label(path: &Path) -> String {
    path.display().to_string()
}

/// Python's `repr` of a `str` (for names in messages that mirror Python's): single quotes
/// unless the text holds a `'` and no `"`, backslash escapes for the quote, `\\`, `\n`, `\r`,
/// `\t` and other control characters.
pub(crate) fn py_repr(s: &str) -> String {
    let q = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(q);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(q);
    out
}

/// `"{file}: {msg}"`, a `RuntimeError`.
pub(crate) fn ferr(file: &str, msg: impl std::fmt::Display) -> Error {
    Error::runtime(format!("{file}: {msg}"))
}

/// An I/O error on `path`, in Python's words where Python has them
/// (`[Errno 2] No such file or directory: 'w.pt'`).
pub(crate) fn io_err(path: &Path, e: &std::io::Error) -> Error {
    let p = label(path);
    match e.kind() {
        std::io::ErrorKind::NotFound => {
            Error::runtime(format!("[Errno 2] No such file or directory: '{p}'"))
        }
        std::io::ErrorKind::PermissionDenied => {
            Error::runtime(format!("[Errno 13] Permission denied: '{p}'"))
        }
        _ => Error::runtime(format!("{p}: {e}")),
    }
}

/// Writes a whole file.
pub(crate) fn write_all(path: &Path, data: &[u8]) -> Result<()> {
    std::fs::write(path, data).map_err(|e| io_err(path, &e))
}

/// Where a loader's tensor data comes from: a mapped file, whose byte ranges become storages
/// without a copy ([`MappedFile::storage`]), or bytes in memory, which are copied
/// ([`TypedStorage::from_buffer`]).
pub(crate) enum Source<'a> {
    Mapped(&'a mut MappedFile),
    Bytes(&'a [u8]),
}

impl Source<'_> {
    /// A storage of `dtype` holding bytes `start..start + len` of the source (values in
    /// little-endian byte order, or big-endian when `big_endian`). Errors start with `file`:
    /// `w.pt: invalid bool value 2 in the data (expected 0 or 1)`, a range outside the source
    /// or given to another storage before (which the loaders' own checks rule out first).
    pub(crate) fn storage(
        &mut self,
        start: usize,
        len: usize,
        dtype: DType,
        big_endian: bool,
        file: &str,
    ) -> Result<TypedStorage> {
        let r = match self {
            Source::Mapped(m) => m.storage(start, len, dtype, big_endian),
            Source::Bytes(b) => match start.checked_add(len).and_then(|e| b.get(start..e)) {
                Some(data) => TypedStorage::from_buffer(data, dtype, big_endian),
                None => Err(Error::runtime(format!(
                    "bytes {start}..{} are outside the data of {} bytes",
                    start as u128 + len as u128,
                    b.len()
                ))),
            },
        };
        r.map_err(|e| ferr(file, e.message()))
    }
}

/// Opens the zip archive in `bytes` (a `torch.save` file or a `.npz`) and checks that its
/// members are what its central directory says and lie apart, so that no two members (and no
/// two storages made from them) share a byte:
///
/// * no member name listed twice (`corrupt zip archive: the central directory lists a member
///   name twice`);
/// * each member's local header agrees with its central directory record: the name (as
///   Python's `zipfile` checks: `File name in directory … and header … differ`), compression
///   method, encryption and data-descriptor flags, CRC-32 and sizes, time stamp
///   (`corrupt zip archive: member 'x.npy': invalid Zip archive: header inconsistency
///   detected: Local file header filename mismatch (does not match central directory)`, the
///   `zip` crate's words after the member's name);
/// * no two members' bytes (local header and data) overlap, and none reaches into the
///   central directory (`corrupt zip archive: members 'a/data/0' and 'a/data/1' overlap`,
///   `corrupt zip archive: member 'x.npy' overlaps the central directory`).
///
/// PyTorch's reader (miniz) checks none of this, and with `mmap=True` hands out two storages
/// over the same bytes for such a file; NumPy (Python's `zipfile`) refuses the name mismatch.
/// Errors start with `file`.
pub(crate) fn open_zip<'a>(
    bytes: &'a [u8],
    file: &str,
) -> Result<zip::ZipArchive<std::io::Cursor<&'a [u8]>>> {
    let corrupt = |e: zip::result::ZipError| ferr(file, format!("corrupt zip archive: {e}"));
    let mut z = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(corrupt)?;
    if z.has_duplicate_names() {
        return Err(ferr(
            file,
            "corrupt zip archive: the central directory lists a member name twice",
        ));
    }
    let names: Vec<String> = z
        .file_names_raw()
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .collect();
    let dir = z.central_directory_start();
    let mut spans = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let member = |e: zip::result::ZipError| {
            ferr(file, format!("corrupt zip archive: member '{name}': {e}"))
        };
        // Checks the local header against the central record (before any data is read).
        let opts = zip::read::ZipReadOptions::new()
            .enforce_header_consistency(true)
            .ignore_encryption_flag(true);
        let f = z.by_index_with_options(i, opts).map_err(member)?;
        let end = f
            .data_start()
            .and_then(|s| s.checked_add(f.compressed_size()))
            .ok_or_else(|| {
                member(zip::result::ZipError::InvalidArchive(
                    "bad data range".into(),
                ))
            })?;
        spans.push((f.header_start(), end, i));
    }
    spans.sort_unstable();
    for w in spans.windows(2) {
        if w[0].1 > w[1].0 {
            let (a, b) = (&names[w[0].2], &names[w[1].2]);
            return Err(ferr(
                file,
                format!("corrupt zip archive: members '{a}' and '{b}' overlap"),
            ));
        }
    }
    if let Some(&(_, end, i)) = spans.iter().max_by_key(|s| s.1)
        && end > dir
    {
        return Err(ferr(
            file,
            format!(
                "corrupt zip archive: member '{}' overlaps the central directory",
                names[i]
            ),
        ));
    }
    Ok(z)
}

/// Maps `path` privately (see [`MappedFile`]).
pub(crate) fn map_file(path: &Path) -> Result<MappedFile> {
    MappedFile::open(path).map_err(|e| io_err(path, &e))
}

/// The number of elements a geometry reaches (`offset + 1 + Σ (size-1)·stride`, 0 when empty),
/// `None` on overflow.
pub(crate) fn extent(sizes: &[usize], strides: &[usize], offset: usize) -> Option<usize> {
    if sizes.contains(&0) {
        return Some(0);
    }
    let mut last = offset;
    for (&n, &s) in sizes.iter().zip(strides) {
        last = last.checked_add((n - 1).checked_mul(s)?)?;
    }
    last.checked_add(1)
}

/// The product of `sizes` as a byte count for `dtype`, `None` on overflow. A zero size makes
/// it 0 whatever the other sizes (`[2^63, 0]` holds no element, and saves as such).
pub(crate) fn nbytes_of(sizes: &[usize], dtype: DType) -> Option<usize> {
    if sizes.contains(&0) {
        return Some(0);
    }
    sizes
        .iter()
        .try_fold(dtype.itemsize(), |a, &n| a.checked_mul(n))
}
