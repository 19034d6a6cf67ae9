//! The safetensors format (`safetensors.torch.save_file` / `load_file`), through the
//! `safetensors` crate: an 8-byte little-endian header length, a JSON header naming each
//! tensor's dtype, shape and byte range, then the raw little-endian data.
//!
//! dtypes: `BOOL`, `U8`, `I8`, `I16`, `I32`, `I64`, `F16`, `BF16`, `F32`, `F64` ↔ tensile's
//! bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64. The format's
//! other dtypes (`U16`, `U32`, `U64`, the 8-, 6- and 4-bit floats) are refused on load:
//! `w.safetensors: dtype not supported: U16 (tensor 'x')`.

use std::borrow::Cow;
use std::path::Path;

use safetensors::tensor::{Dtype, SafeTensors, View};

use super::{Source, ferr, label, map_file};
use crate::Tensor;
use crate::dtype::DType;
use crate::error::Result;

/// The tensile dtype of a safetensors dtype, `None` for the ones tensile lacks.
fn from_st(d: Dtype) -> Option<DType> {
    Some(match d {
        Dtype::BOOL => DType::Bool,
        Dtype::U8 => DType::UInt8,
        Dtype::I8 => DType::Int8,
        Dtype::I16 => DType::Int16,
        Dtype::I32 => DType::Int32,
        Dtype::I64 => DType::Int64,
        Dtype::F16 => DType::Float16,
        Dtype::BF16 => DType::BFloat16,
        Dtype::F32 => DType::Float32,
        Dtype::F64 => DType::Float64,
        _ => return None,
    })
}

fn to_st(d: DType) -> Dtype {
    match d {
        DType::Bool => Dtype::BOOL,
        DType::UInt8 => Dtype::U8,
        DType::Int8 => Dtype::I8,
        DType::Int16 => Dtype::I16,
        DType::Int32 => Dtype::I32,
        DType::Int64 => Dtype::I64,
        DType::Float16 => Dtype::F16,
        DType::BFloat16 => Dtype::BF16,
        DType::Float32 => Dtype::F32,
        DType::Float64 => Dtype::F64,
    }
}

/// `safetensors.torch.load_file(path)`: every tensor of a safetensors file, sorted by name
/// (the order of `safe_open(path).keys()`).
///
/// The file is memory-mapped privately (copy-on-write): a tensor whose data starts at an
/// address aligned for its dtype (every tensor of a file written by the `safetensors`
/// library, which aligns the data section to 8 bytes) views the mapping without a copy, and
/// in-place ops on it never write to the file; other tensors are copied. Each tensor has its
/// own storage. As with any memory map (PyTorch's `mmap=True`, safetensors' `safe_open`), the
/// file must not be truncated or rewritten by another process while tensors view it.
///
/// Errors (RuntimeError, each starting with the path): `[Errno 2] No such file or directory:
/// 'w.safetensors'`; `w.safetensors: invalid safetensors file: …` with the crate's reason for
/// a truncated file or a bad header (`header too small`, `invalid JSON in header: …`,
/// `metadata incomplete buffer`, the size of a tensor not matching its shape and dtype …);
/// `w.safetensors: dtype not supported: U16 (tensor 'x')`; `w.safetensors: invalid bool
/// value 2 in the data (expected 0 or 1)`.
pub fn load(path: impl AsRef<Path>) -> Result<Vec<(String, Tensor)>> {
    let path = path.as_ref();
    let file = label(path);
    let mut map = map_file(path)?;
    let plan = plan(map.bytes().unwrap_or(&[]), &file)?;
    build(plan, Source::Mapped(&mut map), &file)
}

/// [`load`] from bytes in memory (`safetensors.torch.load(data)`); the data is copied. Errors
/// as [`load`], starting with `<bytes>`.
pub fn load_bytes(data: &[u8]) -> Result<Vec<(String, Tensor)>> {
    build(plan(data, "<bytes>")?, Source::Bytes(data), "<bytes>")
}

/// One tensor of a file: its name, dtype, shape and the byte range of its data.
struct Planned {
    name: String,
    dtype: DType,
    sizes: Vec<usize>,
    start: usize,
    len: usize,
}

/// The tensors of the file in `bytes`, sorted by name, checked (header, dtypes, sizes).
fn plan(bytes: &[u8], file: &str) -> Result<Vec<Planned>> {
    let st = SafeTensors::deserialize(bytes)
        .map_err(|e| ferr(file, format!("invalid safetensors file: {e}")))?;
    let mut views = st.tensors();
    views.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = Vec::with_capacity(views.len());
    for (name, v) in views {
        let dtype = from_st(v.dtype()).ok_or_else(|| {
            ferr(
                file,
                format!("dtype not supported: {:?} (tensor '{name}')", v.dtype()),
            )
        })?;
        let sizes = v.shape().to_vec();
        // The crate checked that the byte range matches the shape and dtype.
        let n = super::nbytes_of(&sizes, dtype);
        if n != Some(v.data().len()) {
            return Err(ferr(
                file,
                format!(
                    "tensor '{name}' holds {} bytes but its shape {:?} of dtype {:?} needs {}",
                    v.data().len(),
                    sizes,
                    v.dtype(),
                    n.map_or("more than 2^64".to_string(), |n| n.to_string())
                ),
            ));
        }
        out.push(Planned {
            name,
            dtype,
            sizes,
            start: v.data().as_ptr() as usize - bytes.as_ptr() as usize,
            len: v.data().len(),
        });
    }
    Ok(out)
}

/// The planned tensors, each over a storage of its own from `src`.
fn build(plan: Vec<Planned>, mut src: Source, file: &str) -> Result<Vec<(String, Tensor)>> {
    let mut out = Vec::with_capacity(plan.len());
    for p in plan {
        let storage = src.storage(p.start, p.len, p.dtype, false, file)?;
        let strides = crate::layout::contiguous_strides(&p.sizes);
        let t = Tensor::from_storage(&storage, 0, &p.sizes, &strides)
            .map_err(|e| ferr(file, e.message()))?;
        out.push((p.name, t));
    }
    Ok(out)
}

/// One tensor's contiguous bytes, for the crate's serializer.
struct Entry {
    dtype: Dtype,
    shape: Vec<usize>,
    data: Vec<u8>,
}

impl View for &Entry {
    fn dtype(&self) -> Dtype {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self.data)
    }
    fn data_len(&self) -> usize {
        self.data.len()
    }
}

/// The groups of names whose tensors share memory, as `safetensors.torch`'s
/// `_find_shared_tensors` finds them: tensors over one storage (a storage of 0 bytes aside),
/// sorted by `(data_ptr, end_ptr, name)`, a tensor joining the group of the one before it
/// when it starts before that one's end. Groups of one name are left out; groups in the order
/// of their first name in `tensors`, names in `tensors`' order.
fn shared_groups(tensors: &[(&str, &Tensor)]) -> Vec<Vec<usize>> {
    let mut by_storage: Vec<Vec<usize>> = Vec::new();
    let mut slot = std::collections::HashMap::new();
    for (i, (_, t)) in tensors.iter().enumerate() {
        if t.storage_nbytes() == 0 {
            continue;
        }
        let j = *slot.entry(t.storage().data_ptr()).or_insert_with(|| {
            by_storage.push(Vec::new());
            by_storage.len() - 1
        });
        by_storage[j].push(i);
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for members in by_storage.into_iter().filter(|v| v.len() > 1) {
        // `_end_ptr`: one past the last element reached (`view(-1)[-1]` of a contiguous
        // tensor), the start for an empty one. Byte offsets within the one storage.
        let mut areas: Vec<(usize, usize, &str, usize)> = members
            .iter()
            .map(|&i| {
                let (name, t) = tensors[i];
                let isz = t.dtype().itemsize();
                let start = t.storage_offset().saturating_mul(isz);
                let end = if t.numel() == 0 {
                    start
                } else {
                    super::extent(t.size(), t.stride(), t.storage_offset())
                        .map_or(usize::MAX, |e| e.saturating_mul(isz))
                };
                (start, end, name, i)
            })
            .collect();
        areas.sort();
        let mut last_stop = areas[0].1;
        let mut cur = vec![areas[0].3];
        for &(start, stop, _, i) in &areas[1..] {
            if start >= last_stop {
                groups.push(std::mem::replace(&mut cur, vec![i]));
            } else {
                cur.push(i);
            }
            last_stop = stop;
        }
        groups.push(cur);
    }
    groups.retain(|g| g.len() > 1);
    for g in &mut groups {
        g.sort_unstable();
    }
    groups.sort_unstable();
    groups
}

fn entries<K: AsRef<str>, T: AsRef<Tensor>>(
    tensors: &[(K, T)],
    file: &str,
) -> Result<Vec<(String, Entry)>> {
    let mut out: Vec<(String, Entry)> = Vec::with_capacity(tensors.len());
    let mut seen = std::collections::HashSet::new();
    for (k, _) in tensors {
        let k = k.as_ref();
        if !seen.insert(k) {
            return Err(ferr(file, format!("duplicate tensor name '{k}'")));
        }
    }
    let named: Vec<(&str, &Tensor)> = tensors
        .iter()
        .map(|(k, t)| (k.as_ref(), t.as_ref()))
        .collect();
    let shared = shared_groups(&named);
    if !shared.is_empty() {
        let sets: Vec<String> = shared
            .iter()
            .map(|g| {
                let names: Vec<String> = g.iter().map(|&i| super::py_repr(named[i].0)).collect();
                format!("{{{}}}", names.join(", "))
            })
            .collect();
        return Err(ferr(
            file,
            format!(
                "Some tensors share memory, this will lead to duplicate memory on disk and potential differences when loading them again: [{}]. More information at https://huggingface.co/docs/safetensors/torch_shared_tensors",
                sets.join(", ")
            ),
        ));
    }
    for (k, t) in named {
        out.push((
            k.to_string(),
            Entry {
                dtype: to_st(t.dtype()),
                shape: t.size().to_vec(),
                data: t.to_le_bytes()?,
            },
        ));
    }
    Ok(out)
}

/// `safetensors.torch.save_file(tensors, path)`: writes `(name, tensor)` pairs to a
/// safetensors file (the `safetensors` crate lays them out: by dtype alignment, then name).
/// Every tensile dtype is supported; a non-contiguous tensor is written as its contiguous
/// copy (where `save_file` refuses it). Tensors that share memory are refused, as `save_file`
/// refuses them (they would be written twice and load as two independent tensors): two
/// tensors over one storage whose bytes overlap, grouped as `safetensors.torch`'s
/// `_find_shared_tensors` groups them (`w` and `w[1]`, `w` and `w.t()`; two disjoint rows of
/// one matrix are fine, so are empty tensors): save a `clone()` of all but one of them
/// instead. No `__metadata__` is written, as `save_file(…, metadata=None)`.
///
/// Accepts any slice of pairs: `&[("w", &w), ("b", &b)]`, or the `Vec<(String, Tensor)>`
/// that [`load`] returns.
///
/// Errors (RuntimeError): `w.safetensors: duplicate tensor name 'x'`; `w.safetensors: Some
/// tensors share memory, this will lead to duplicate memory on disk and potential differences
/// when loading them again: [{'w', 'w_row'}]. More information at
/// https://huggingface.co/docs/safetensors/torch_shared_tensors` (`save_file`'s text, without
/// its advice to use `save_model`, which tensile lacks; the names of each group in the order
/// given); an I/O error starting
/// with the path (`[Errno 2] No such file or directory: 'no/dir/w.safetensors'` for a missing
/// directory); the allocator's error when the contiguous copy can't be had.
pub fn save<K: AsRef<str>, T: AsRef<Tensor>>(
    tensors: &[(K, T)],
    path: impl AsRef<Path>,
) -> Result<()> {
    let path = path.as_ref();
    let file = label(path);
    let bytes = save_impl(tensors, &file)?;
    super::write_all(path, &bytes)
}

/// [`save`] to bytes in memory (`safetensors.torch.save(tensors)`). Errors as [`save`],
/// starting with `<bytes>`.
pub fn save_bytes<K: AsRef<str>, T: AsRef<Tensor>>(tensors: &[(K, T)]) -> Result<Vec<u8>> {
    save_impl(tensors, "<bytes>")
}

fn save_impl<K: AsRef<str>, T: AsRef<Tensor>>(tensors: &[(K, T)], file: &str) -> Result<Vec<u8>> {
    let es = entries(tensors, file)?;
    safetensors::tensor::serialize(es.iter().map(|(k, e)| (k.as_str(), e)), None)
        .map_err(|e| ferr(file, format!("cannot serialize: {e}")))
}
