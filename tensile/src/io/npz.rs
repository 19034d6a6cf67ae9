//! NumPy's `.npz` format (`numpy.savez`, `numpy.savez_compressed` / `numpy.load`): a zip
//! archive of `.npy` files, one per array, named `<name>.npy`. Arrays as in [`super::npy`].

use std::io::{Cursor, Read, Write};
use std::path::Path;

use zip::CompressionMethod;
use zip::write::SimpleFileOptions;

use super::{Source, ferr, label, map_file};
use crate::Tensor;
use crate::error::Result;

/// `numpy.load(path)` of a `.npz` file: every array as `(name, tensor)` in the archive's
/// order (NumPy's `NpzFile.files`), the name without its `.npy` suffix. Arrays are read as by
/// [`super::npy::read`]: an uncompressed member (`numpy.savez`) is viewed in the privately
/// memory-mapped file without a copy when aligned; a deflated one (`numpy.savez_compressed`)
/// is decompressed. As with any memory map, the file must not be truncated or rewritten by
/// another process while tensors view it.
///
/// Errors (RuntimeError, starting with the path): `[Errno 2] No such file or directory:
/// 'a.npz'`; `a.npz: corrupt zip archive: …` (a truncated file, a bad central directory, a
/// CRC mismatch in a compressed member, a member whose local header disagrees with the
/// central directory — `a.npz: corrupt zip archive: member 'x.npy': invalid Zip archive:
/// header inconsistency detected: Local file header filename mismatch (does not match central
/// directory)`, where NumPy's `zipfile` says `File name in directory 'x.npy' and header
/// b'y.npy' differ.` —, members that overlap: `a.npz: corrupt zip archive: members 'x.npy'
/// and 'y.npy' overlap`); `a.npz: unsupported zip compression in member 'x.npy'`;
/// the errors of [`super::npy::read`] for a member, starting with `a.npz/x.npy` (bad header,
/// dtype not supported, size mismatch).
pub fn read(path: impl AsRef<Path>) -> Result<Vec<(String, Tensor)>> {
    let path = path.as_ref();
    let file = label(path);
    let mut map = map_file(path)?;
    let members = plan(map.bytes().unwrap_or(&[]), &file)?;
    build(members, Source::Mapped(&mut map))
}

/// [`read`] from bytes in memory; the data is copied. Errors as [`read`], starting with
/// `<bytes>`.
pub fn read_bytes(data: &[u8]) -> Result<Vec<(String, Tensor)>> {
    build(plan(data, "<bytes>")?, Source::Bytes(data))
}

/// One array of the archive: its key, its label for errors (`a.npz/x.npy`), its checked
/// `.npy` plan, and where its bytes are: at `base` in the file (a stored member, read in
/// place) or in `owned` (a compressed member, inflated).
struct Member {
    key: String,
    label: String,
    npy: super::npy::Planned,
    base: usize,
    owned: Option<Vec<u8>>,
}

/// The arrays of the archive, each as a tensor over a storage of its own.
fn build(members: Vec<Member>, mut src: Source) -> Result<Vec<(String, Tensor)>> {
    let mut out = Vec::with_capacity(members.len());
    for m in members {
        let t = match &m.owned {
            Some(v) => m.npy.build(&mut Source::Bytes(v), 0, &m.label)?,
            None => m.npy.build(&mut src, m.base, &m.label)?,
        };
        out.push((m.key, t));
    }
    Ok(out)
}

/// The archive in `bytes`, checked (zip structure, each member's `.npy` header).
fn plan(bytes: &[u8], file: &str) -> Result<Vec<Member>> {
    let corrupt = |e: zip::result::ZipError| ferr(file, format!("corrupt zip archive: {e}"));
    // Members checked against the central directory and apart from each other: two arrays
    // never view the same bytes of the file.
    let mut z = super::open_zip(bytes, file)?;
    let mut out = Vec::with_capacity(z.len());
    for i in 0..z.len() {
        let mut f = z.by_index(i).map_err(corrupt)?;
        let name = f.name().map_err(corrupt)?.into_owned();
        if f.is_dir() {
            continue;
        }
        let member = format!("{file}/{name}");
        let key = name.strip_suffix(".npy").unwrap_or(&name).to_string();
        let stored = f.compression() == CompressionMethod::Stored && !f.encrypted();
        let range = f.data_start().and_then(|s| {
            let s = usize::try_from(s).ok()?;
            let e = s.checked_add(usize::try_from(f.size()).ok()?)?;
            (stored && f.compressed_size() == f.size() && e <= bytes.len()).then_some(s..e)
        });
        let m = match range {
            Some(r) => {
                // Stored: read the member in place (its CRC is checked by `read`, below, only
                // for members that are copied; PyTorch and NumPy's mmap mode skip it too).
                Member {
                    npy: super::npy::plan(&bytes[r.clone()], &member)?,
                    key,
                    label: member,
                    base: r.start,
                    owned: None,
                }
            }
            None => {
                let mut v = Vec::new();
                f.read_to_end(&mut v).map_err(|e| match e.kind() {
                    std::io::ErrorKind::Unsupported => ferr(
                        file,
                        format!("unsupported zip compression in member '{name}'"),
                    ),
                    _ => ferr(file, format!("corrupt zip archive: member '{name}': {e}")),
                })?;
                Member {
                    npy: super::npy::plan(&v, &member)?,
                    key,
                    label: member,
                    base: 0,
                    owned: Some(v),
                }
            }
        };
        out.push(m);
    }
    Ok(out)
}

/// `numpy.savez(path, **{name: t.numpy()})`: writes `(name, tensor)` pairs as an uncompressed
/// zip of `<name>.npy` members (each as [`super::npy::write`] writes it), in the given order.
/// Accepts any slice of pairs (`&[("w", &w)]`, the `Vec<(String, Tensor)>` that [`read`]
/// returns).
///
/// Errors (RuntimeError, starting with the path): `a.npz: duplicate array name 'x'`; the
/// errors of [`super::npy::write`] (bfloat16 refused); an I/O error.
pub fn write<K: AsRef<str>, T: AsRef<Tensor>>(
    path: impl AsRef<Path>,
    arrays: &[(K, T)],
) -> Result<()> {
    let path = path.as_ref();
    let bytes = write_impl(arrays, &label(path), CompressionMethod::Stored)?;
    super::write_all(path, &bytes)
}

/// `numpy.savez_compressed(path, …)`: as [`write`] with deflated members.
pub fn write_compressed<K: AsRef<str>, T: AsRef<Tensor>>(
    path: impl AsRef<Path>,
    arrays: &[(K, T)],
) -> Result<()> {
    let path = path.as_ref();
    let bytes = write_impl(arrays, &label(path), CompressionMethod::Deflated)?;
    super::write_all(path, &bytes)
}

fn write_impl<K: AsRef<str>, T: AsRef<Tensor>>(
    arrays: &[(K, T)],
    file: &str,
    method: CompressionMethod,
) -> Result<Vec<u8>> {
    let zerr = |e: zip::result::ZipError| ferr(file, format!("cannot write zip archive: {e}"));
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let mut seen = std::collections::HashSet::new();
    for (k, t) in arrays {
        let (k, t) = (k.as_ref(), t.as_ref());
        if !seen.insert(k) {
            return Err(ferr(file, format!("duplicate array name '{k}'")));
        }
        let member = format!("{k}.npy");
        let data = super::npy::to_bytes_impl(t, &format!("{file}/{member}"))?;
        let opts = SimpleFileOptions::default()
            .compression_method(method)
            .large_file(data.len() as u64 >= u32::MAX as u64);
        w.start_file(member, opts).map_err(zerr)?;
        w.write_all(&data)
            .map_err(|e| ferr(file, format!("cannot write zip archive: {e}")))?;
    }
    Ok(w.finish().map_err(zerr)?.into_inner())
}
