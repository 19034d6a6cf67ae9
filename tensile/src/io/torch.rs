//! PyTorch's `torch.save` files (`.pt`, `.pth`, `.bin`): the zip format of torch ≥ 1.6. The
//! archive holds `<archive>/data.pkl` (a pickle of the saved object whose tensors refer to
//! storages by persistent id), `<archive>/data/<key>` (each storage's raw bytes, stored
//! uncompressed and 64-byte aligned), `<archive>/byteorder` (`little` or `big`) and
//! `<archive>/version`.
//!
//! The pickle is read by a restricted unpickler that never executes code (see
//! `io/pickle.rs`): only tensors, dicts (`dict`, `OrderedDict`), lists, tuples (and
//! `torch.Size`), ints, floats, bools, strings, bytes and `None` are built, as PyTorch's
//! `torch.load(path, weights_only=True)` does; any other global is an error naming it.
//!
//! Storage dtypes: `torch.FloatStorage`, `DoubleStorage`, `HalfStorage`, `BFloat16Storage`,
//! `LongStorage`, `IntStorage`, `ShortStorage`, `CharStorage`, `ByteStorage`, `BoolStorage`.
//! Others (complex, quantized, float8, unsigned 16/32/64-bit) are refused:
//! `w.pt: dtype not supported: torch.ComplexFloatStorage`.

use std::collections::HashMap;
use std::io::{Cursor, Read};
use std::path::Path;

use zip::CompressionMethod;

use super::{Source, ferr, label, map_file};
use crate::dtype::DType;
use crate::error::Result;
use crate::{Tensor, TypedStorage};

pub use super::pickle::Value;

/// `torch.load(path, weights_only=True)` of a zip-format `torch.save` file: the saved object
/// as a [`Value`] tree.
///
/// The file is memory-mapped privately (copy-on-write): a storage stored uncompressed at an
/// address aligned for its dtype (as `torch.save` writes them) becomes a tensile storage
/// viewing the mapping without a copy, shared by every tensor that shared it in PyTorch, and
/// in-place ops never write to the file; others are copied (and byte-swapped for a
/// big-endian file). As with any memory map (PyTorch's `mmap=True`), the file must not be
/// truncated or rewritten by another process while tensors view it.
///
/// Errors (RuntimeError, starting with the path): `[Errno 2] No such file or directory:
/// 'w.pt'`; `w.pt: not a zip archive: only the zip format of torch.save (torch ≥ 1.6) is
/// supported` (the legacy format, empty or foreign files); `w.pt: corrupt zip archive: …`
/// (truncated, bad central directory, CRC mismatch, a member whose local header disagrees
/// with the central directory, members that overlap: see below); `w.pt: no data.pkl in the
/// archive`;
/// `w.pt: unsupported pickle global 'os.system'`; `w.pt: unsupported pickle opcode 0x81
/// (NEWOBJ) at byte 12`; `w.pt: truncated pickle data (…)`; `w.pt: dtype not supported:
/// torch.ComplexFloatStorage`; `w.pt: missing storage 'archive/data/3'`; `w.pt: storage
/// 'archive/data/0' holds 20 bytes but its persistent id says 6 elements of torch.float32
/// (24 bytes)`; `w.pt: tensor of size [3, 2], stride [1, 3] and storage offset 1 does not fit
/// in its storage of 6 elements`; `w.pt: pickle nests containers deeper than 100`.
///
/// A hostile archive whose members share bytes (a `data/1` record pointing at `data/0`'s
/// local header, a member inside another's data) is refused: `w.pt: corrupt zip archive:
/// member 'archive/data/1': invalid Zip archive: header inconsistency detected: Local file
/// header filename mismatch (does not match central directory)`, `w.pt: corrupt zip archive:
/// members 'archive/data/1' and 'archive/data/0' overlap`. (PyTorch's default load copies
/// each storage, and its `mmap=True` load gives two storages over the same bytes; tensile's
/// storages never alias, so it refuses as NumPy's `zipfile` does.)
pub fn load(path: impl AsRef<Path>) -> Result<Value> {
    let path = path.as_ref();
    let file = label(path);
    let mut map = map_file(path)?;
    let a = plan(map.bytes().unwrap_or(&[]), &file)?;
    unpickle(a, Source::Mapped(&mut map), &file)
}

/// [`load`] from bytes in memory (`torch.load(io.BytesIO(data), weights_only=True)`); the
/// storages are copied. Errors as [`load`], starting with `<bytes>`.
pub fn load_bytes(data: &[u8]) -> Result<Value> {
    unpickle(plan(data, "<bytes>")?, Source::Bytes(data), "<bytes>")
}

/// `torch.load(path, weights_only=True)` of a saved `model.state_dict()`: its `(name, tensor)`
/// entries in the file's order (PyTorch's dotted names, `0.weight`, `1.running_mean`, …). The
/// `_metadata` that PyTorch attaches to a state dict is dropped.
///
/// Errors: those of [`load`], and `w.pt: not a state dict: the file holds a list` /
/// `w.pt: not a state dict: the value of 'step' is a int, not a tensor` /
/// `w.pt: not a state dict: a key is a int, not a str`.
pub fn load_state_dict(path: impl AsRef<Path>) -> Result<Vec<(String, Tensor)>> {
    let path = path.as_ref();
    state_dict_of(load(path)?, &label(path))
}

/// [`load_state_dict`] from bytes in memory.
pub fn load_state_dict_bytes(data: &[u8]) -> Result<Vec<(String, Tensor)>> {
    state_dict_of(load_bytes(data)?, "<bytes>")
}

fn state_dict_of(v: Value, file: &str) -> Result<Vec<(String, Tensor)>> {
    let d = match v {
        Value::Dict(d) => d,
        other => {
            return Err(ferr(
                file,
                format!("not a state dict: the file holds a {}", other.kind()),
            ));
        }
    };
    let mut out = Vec::with_capacity(d.len());
    for (k, v) in d {
        let k = match k {
            Value::Str(s) => s,
            other => {
                return Err(ferr(
                    file,
                    format!("not a state dict: a key is a {}, not a str", other.kind()),
                ));
            }
        };
        match v {
            Value::Tensor(t) => out.push((k, t)),
            other => {
                return Err(ferr(
                    file,
                    format!(
                        "not a state dict: the value of '{k}' is a {}, not a tensor",
                        other.kind()
                    ),
                ));
            }
        }
    }
    Ok(out)
}

/// A checked archive: the pickle's bytes, the byte order of the storages, and each storage
/// member (`<archive>/data/<key>`) by name: its size and where its bytes are.
struct Archive {
    pickle: Vec<u8>,
    prefix: String,
    big_endian: bool,
    members: HashMap<String, (u64, Member)>,
}

/// Where a storage member's bytes are.
enum Member {
    /// Stored uncompressed at this offset of the file: a storage views it in place.
    At(usize),
    /// Compressed: inflated here.
    Owned(Vec<u8>),
    /// Compressed and unreadable: the error, returned if the pickle names the member.
    Bad(crate::Error),
}

fn plan(bytes: &[u8], file: &str) -> Result<Archive> {
    if !bytes.starts_with(b"PK\x03\x04") {
        return Err(ferr(
            file,
            "not a zip archive: only the zip format of torch.save (torch ≥ 1.6) is supported",
        ));
    }
    let corrupt = |e: zip::result::ZipError| ferr(file, format!("corrupt zip archive: {e}"));
    // Members checked against the central directory and apart from each other: two storages
    // never view the same bytes of the file.
    let mut z = super::open_zip(bytes, file)?;
    // The pickle: `<archive>/data.pkl`, the archive folder named by torch.save.
    let pkl = (0..z.len())
        .filter_map(|i| {
            z.name_for_index(i)
                .and_then(|n| n.ok())
                .map(|n| (i, n.to_string()))
        })
        .find(|(_, n)| {
            n.strip_suffix("data.pkl").is_some_and(|p| {
                p.is_empty() || (p.ends_with('/') && !p[..p.len() - 1].contains('/'))
            })
        })
        .ok_or_else(|| ferr(file, "no data.pkl in the archive"))?;
    let prefix = pkl.1[..pkl.1.len() - "data.pkl".len()].to_string();
    let read_entry =
        |z: &mut zip::ZipArchive<Cursor<&[u8]>>, i: usize, name: &str| -> Result<Vec<u8>> {
            let mut f = z.by_index(i).map_err(corrupt)?;
            let mut v = Vec::new();
            f.read_to_end(&mut v)
                .map_err(|e| ferr(file, format!("corrupt zip archive: member '{name}': {e}")))?;
            Ok(v)
        };
    let big_endian = match z.index_for_name(&format!("{prefix}byteorder")) {
        Some(i) => {
            let b = read_entry(&mut z, i, "byteorder")?;
            match &b[..] {
                b"little" => false,
                b"big" => true,
                _ => {
                    return Err(ferr(
                        file,
                        "bad byteorder record (expected 'little' or 'big')",
                    ));
                }
            }
        }
        None => false,
    };
    let pickle = read_entry(&mut z, pkl.0, &pkl.1)?;
    let data_prefix = format!("{prefix}data/");
    let mut members = HashMap::new();
    for i in 0..z.len() {
        let Some(name) = z
            .name_for_index(i)
            .and_then(|n| n.ok())
            .filter(|n| n.starts_with(&data_prefix))
            .map(|n| n.to_string())
        else {
            continue;
        };
        let (size, at) = {
            let f = z.by_index_raw(i).map_err(corrupt)?;
            let size = f.size();
            let at = f.data_start().and_then(|s| {
                let s = usize::try_from(s).ok()?;
                let e = s.checked_add(usize::try_from(size).ok()?)?;
                (f.compression() == CompressionMethod::Stored
                    && !f.encrypted()
                    && f.compressed_size() == size
                    && e <= bytes.len())
                .then_some(s)
            });
            (size, at)
        };
        let m = match at {
            Some(s) => Member::At(s),
            None => match read_entry(&mut z, i, &name) {
                Ok(v) => Member::Owned(v),
                Err(e) => Member::Bad(e),
            },
        };
        members.insert(name, (size, m));
    }
    Ok(Archive {
        pickle,
        prefix,
        big_endian,
        members,
    })
}

/// Unpickles the archive's object, each storage it names over `src` (or its inflated bytes).
fn unpickle(a: Archive, mut src: Source, file: &str) -> Result<Value> {
    let mut loader = |key: &str, dtype: DType, numel: usize| -> Result<TypedStorage> {
        let name = format!("{}data/{key}", a.prefix);
        let (size, m) = a
            .members
            .get(&name)
            .ok_or_else(|| ferr(file, format!("missing storage '{name}'")))?;
        let want = numel.checked_mul(dtype.itemsize());
        if want.map(|w| w as u64) != Some(*size) {
            return Err(ferr(
                file,
                format!(
                    "storage '{name}' holds {size} bytes but its persistent id says {numel} elements of {dtype} ({} bytes)",
                    want.map_or("too many".to_string(), |w| w.to_string())
                ),
            ));
        }
        let n = *size as usize;
        match m {
            Member::At(s) => src.storage(*s, n, dtype, a.big_endian, file),
            Member::Owned(v) => Source::Bytes(v).storage(0, n, dtype, a.big_endian, file),
            Member::Bad(e) => Err(e.clone()),
        }
    };
    super::pickle::unpickle(&a.pickle, file, &mut loader)
}
