//! NumPy's `.npy` format (`numpy.save` / `numpy.load`): the magic `\x93NUMPY`, a version
//! (1.0, 2.0 or 3.0), a header that is a Python dict literal
//! (`{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`), then the raw data.
//!
//! dtypes (`descr`, any byte order `<`, `>`, `=`, `|`): `b1`/`?` bool, `u1` uint8, `i1` int8,
//! `i2` int16, `i4` int32, `i8` int64, `f2` float16, `f4` float32, `f8` float64. Big-endian
//! data is byte-swapped on read. NumPy has no bfloat16: writing one is refused. Other dtypes
//! (`<u2`, `<c8`, `|O`, structured arrays, …) are refused on read.

use std::path::Path;

use super::{Source, ferr, label, map_file};
use crate::Tensor;
use crate::dtype::DType;
use crate::error::{Error, Result, fmt_tuple};

const MAGIC: &[u8] = b"\x93NUMPY";

/// A parsed header.
pub(crate) struct Header {
    dtype: DType,
    big_endian: bool,
    fortran: bool,
    shape: Vec<usize>,
    descr: String,
}

/// `numpy.load(path)` of a `.npy` file: a tensor of the array's shape and dtype. A C-order
/// array is a contiguous tensor; a `fortran_order=True` array is the column-major view NumPy
/// gives (strides `(1, d0, d0·d1, …)`, `is_contiguous()` false); a 0-d array is a 0-d tensor.
///
/// The file is memory-mapped privately (copy-on-write): little-endian data (NumPy aligns it to
/// 64 bytes) is viewed without a copy, and in-place ops never write to the file; as with any
/// memory map, the file must not be truncated or rewritten by another process meanwhile.
/// Big-endian data is copied and byte-swapped.
///
/// Errors (RuntimeError, starting with the path): `[Errno 2] No such file or directory:
/// 'a.npy'`; `a.npy: not a .npy file (bad magic)`; `a.npy: truncated file: …`;
/// `a.npy: unsupported .npy version 4.0`; `a.npy: bad header: …` (not a dict literal, an
/// ill-typed value; keys other than exactly `descr`, `fortran_order` and `shape`, as NumPy
/// refuses them: `a.npy: bad header: does not contain the correct keys: ['descr', 'extra',
/// 'fortran_order', 'shape']`); `a.npy: bad header: the shape (0, 9223372036854775807) is too
/// large` (NumPy's limit: the itemsize times the product of the non-zero sizes must fit in
/// int64, else NumPy's `array is too big`); `a.npy: dtype not supported: '<u2'`; `a.npy: data
/// holds 20 bytes but the header's shape (2, 3) of dtype '<f4' needs 24`; `a.npy: invalid
/// bool value 2 in the data (expected 0 or 1)`.
pub fn read(path: impl AsRef<Path>) -> Result<Tensor> {
    let path = path.as_ref();
    let file = label(path);
    let mut map = map_file(path)?;
    let p = plan(map.bytes().unwrap_or(&[]), &file)?;
    p.build(&mut Source::Mapped(&mut map), 0, &file)
}

/// [`read`] from bytes in memory (`numpy.load(io.BytesIO(data))`); the data is copied. Errors
/// as [`read`], starting with `<bytes>`.
pub fn read_bytes(data: &[u8]) -> Result<Tensor> {
    plan(data, "<bytes>")?.build(&mut Source::Bytes(data), 0, "<bytes>")
}

/// A checked `.npy` array: its header and the byte range of its data in the file.
pub(crate) struct Planned {
    h: Header,
    start: usize,
    len: usize,
}

impl Planned {
    /// The array as a tensor over a storage of its own from `src`, its data at `base` plus
    /// the planned start.
    pub(crate) fn build(&self, src: &mut Source, base: usize, file: &str) -> Result<Tensor> {
        let h = &self.h;
        let storage = src.storage(base + self.start, self.len, h.dtype, h.big_endian, file)?;
        let strides = if h.fortran {
            let rev: Vec<usize> = h.shape.iter().rev().copied().collect();
            crate::layout::contiguous_strides(&rev)
                .into_iter()
                .rev()
                .collect()
        } else {
            crate::layout::contiguous_strides(&h.shape)
        };
        Tensor::from_storage(&storage, 0, &h.shape, &strides).map_err(|e| ferr(file, e.message()))
    }
}

/// The array of the `.npy` file in `bytes`, checked (header, dtype, data size).
pub(crate) fn plan(bytes: &[u8], file: &str) -> Result<Planned> {
    let (h, start) = parse_header(bytes, file)?;
    let fits = numpy_fits(&h.shape, h.dtype);
    let need = super::nbytes_of(&h.shape, h.dtype)
        .filter(|_| fits)
        .ok_or_else(|| {
            ferr(
                file,
                format!("bad header: the shape {} is too large", fmt_tuple(&h.shape)),
            )
        })?;
    let data = &bytes[start..];
    if data.len() < need {
        return Err(ferr(
            file,
            format!(
                "data holds {} bytes but the header's shape {} of dtype '{}' needs {need}",
                data.len(),
                fmt_tuple(&h.shape),
                h.descr
            ),
        ));
    }
    Ok(Planned {
        h,
        start,
        len: need,
    })
}

fn truncated(file: &str, what: &str) -> Error {
    ferr(file, format!("truncated file: {what}"))
}

/// Parses the magic, version and header; returns the header and where the data starts.
pub(crate) fn parse_header(b: &[u8], file: &str) -> Result<(Header, usize)> {
    if b.len() < MAGIC.len() || &b[..MAGIC.len()] != MAGIC {
        if MAGIC.starts_with(b) {
            return Err(truncated(file, "the magic string is cut short"));
        }
        return Err(ferr(file, "not a .npy file (bad magic)"));
    }
    if b.len() < 8 {
        return Err(truncated(file, "no version"));
    }
    let (major, minor) = (b[6], b[7]);
    let (hlen, start) = match major {
        1 => {
            if b.len() < 10 {
                return Err(truncated(file, "no header length"));
            }
            (u16::from_le_bytes([b[8], b[9]]) as usize, 10usize)
        }
        2 | 3 => {
            if b.len() < 12 {
                return Err(truncated(file, "no header length"));
            }
            (u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize, 12)
        }
        _ => {
            return Err(ferr(
                file,
                format!("unsupported .npy version {major}.{minor}"),
            ));
        }
    };
    let end = start
        .checked_add(hlen)
        .filter(|&e| e <= b.len())
        .ok_or_else(|| truncated(file, &format!("the header of {hlen} bytes is cut short")))?;
    let text = std::str::from_utf8(&b[start..end])
        .map_err(|_| ferr(file, "bad header: not UTF-8 text"))?;
    let mut h = parse_dict(text).map_err(|m| ferr(file, format!("bad header: {m}")))?;
    (h.dtype, h.big_endian) = parse_descr(&h.descr)
        .ok_or_else(|| ferr(file, format!("dtype not supported: '{}'", h.descr)))?;
    Ok((h, end))
}

/// A value of the header's dict literal.
enum Lit {
    Str(String),
    Bool(bool),
    Tuple(Vec<usize>),
    Other,
}

/// A tiny reader of the Python literal NumPy writes.
struct P<'a> {
    s: &'a [u8],
    i: usize,
}

impl P<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && (self.s[self.i] as char).is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn string(&mut self) -> std::result::Result<String, String> {
        let q = self.peek().ok_or("unexpected end")?;
        if q != b'\'' && q != b'"' {
            return Err(format!("expected a string at byte {}", self.i));
        }
        self.i += 1;
        let st = self.i;
        while self.i < self.s.len() && self.s[self.i] != q {
            self.i += 1;
        }
        if self.i >= self.s.len() {
            return Err("unterminated string".into());
        }
        let v = String::from_utf8_lossy(&self.s[st..self.i]).into_owned();
        self.i += 1;
        Ok(v)
    }
    fn int(&mut self) -> std::result::Result<usize, String> {
        self.ws();
        let st = self.i;
        while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
            self.i += 1;
        }
        let t = std::str::from_utf8(&self.s[st..self.i]).unwrap_or("");
        let v = t
            .parse::<usize>()
            .map_err(|_| format!("expected a non-negative integer at byte {st}"))?;
        if self.i < self.s.len() && self.s[self.i] == b'L' {
            self.i += 1; // Python 2's long suffix
        }
        Ok(v)
    }
    fn value(&mut self) -> std::result::Result<Lit, String> {
        match self.peek().ok_or("unexpected end")? {
            b'\'' | b'"' => Ok(Lit::Str(self.string()?)),
            b'(' => {
                self.i += 1;
                let mut v = Vec::new();
                loop {
                    if self.eat(b')') {
                        return Ok(Lit::Tuple(v));
                    }
                    v.push(self.int()?);
                    if !self.eat(b',') {
                        if self.eat(b')') {
                            return Ok(Lit::Tuple(v));
                        }
                        return Err("expected ',' or ')' in the shape".into());
                    }
                }
            }
            _ => {
                let rest = &self.s[self.i..];
                for (w, l) in [("True", Lit::Bool(true)), ("False", Lit::Bool(false))] {
                    if rest.starts_with(w.as_bytes()) {
                        self.i += w.len();
                        return Ok(l);
                    }
                }
                // Anything else (a structured descr list, …): skip to the next top-level ','.
                let mut depth = 0i32;
                while self.i < self.s.len() {
                    match self.s[self.i] {
                        b'[' | b'(' | b'{' => depth += 1,
                        b']' | b')' | b'}' if depth > 0 => depth -= 1,
                        b',' | b'}' if depth == 0 => break,
                        _ => {}
                    }
                    self.i += 1;
                }
                Ok(Lit::Other)
            }
        }
    }
}

fn parse_dict(text: &str) -> std::result::Result<Header, String> {
    let mut p = P {
        s: text.as_bytes(),
        i: 0,
    };
    if !p.eat(b'{') {
        return Err("not a dict literal".into());
    }
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    let mut keys = std::collections::BTreeSet::new();
    loop {
        if p.eat(b'}') {
            break;
        }
        let k = p.string()?;
        keys.insert(k.clone());
        if !p.eat(b':') {
            return Err(format!("expected ':' after '{k}'"));
        }
        let v = p.value()?;
        match (k.as_str(), v) {
            ("descr", Lit::Str(s)) => descr = Some(s),
            ("descr", _) => {
                return Err(
                    "'descr' is not a simple dtype string (structured arrays are not supported)"
                        .into(),
                );
            }
            ("fortran_order", Lit::Bool(b)) => fortran = Some(b),
            ("shape", Lit::Tuple(t)) => shape = Some(t),
            ("fortran_order" | "shape", _) => return Err(format!("'{k}' has the wrong type")),
            _ => {} // refused below, once every key is known
        }
        if !p.eat(b',') {
            if p.eat(b'}') {
                break;
            }
            return Err("expected ',' or '}'".into());
        }
    }
    // NumPy: `if EXPECTED_KEYS != d.keys(): raise ValueError("Header does not contain the
    // correct keys: …")` with the keys sorted (a key given twice counts once, the last wins).
    if !keys
        .iter()
        .map(String::as_str)
        .eq(["descr", "fortran_order", "shape"])
    {
        let list: Vec<String> = keys.iter().map(|k| super::py_repr(k)).collect();
        return Err(format!(
            "does not contain the correct keys: [{}]",
            list.join(", ")
        ));
    }
    let (Some(descr), Some(fortran), Some(shape)) = (descr, fortran, shape) else {
        return Err("does not contain the correct keys".into());
    };
    Ok(Header {
        dtype: DType::Bool,
        big_endian: false,
        fortran,
        shape,
        descr,
    })
}

fn parse_descr(d: &str) -> Option<(DType, bool)> {
    let (order, code) = match d.as_bytes().first()? {
        b'<' | b'>' | b'=' | b'|' => (d.as_bytes()[0], &d[1..]),
        _ => (b'=', d),
    };
    let dtype = match code {
        "b1" | "?" => DType::Bool,
        "u1" => DType::UInt8,
        "i1" => DType::Int8,
        "i2" => DType::Int16,
        "i4" => DType::Int32,
        "i8" => DType::Int64,
        "f2" => DType::Float16,
        "f4" => DType::Float32,
        "f8" => DType::Float64,
        _ => return None,
    };
    let big = order == b'>' || (order == b'=' && cfg!(target_endian = "big"));
    Some((dtype, big))
}

/// The `descr` NumPy writes for a dtype (little-endian), `None` for bfloat16.
fn descr_of(d: DType) -> Option<&'static str> {
    Some(match d {
        DType::Bool => "|b1",
        DType::UInt8 => "|u1",
        DType::Int8 => "|i1",
        DType::Int16 => "<i2",
        DType::Int32 => "<i4",
        DType::Int64 => "<i8",
        DType::Float16 => "<f2",
        DType::Float32 => "<f4",
        DType::Float64 => "<f8",
        DType::BFloat16 => return None,
    })
}

/// `numpy.save(path, t.numpy())`: writes `t` as a `.npy` file, byte for byte as NumPy writes
/// the same array: version 1.0 (2.0 when the header exceeds 65535 bytes), the header padded
/// with spaces to a multiple of 64 bytes, little-endian data. A tensor that is column-major
/// (Fortran) contiguous but not row-major contiguous (`x.t()` of a contiguous matrix) is
/// written with `fortran_order: True` and its data as laid out, as NumPy does for an
/// F-contiguous array; any other tensor is written in C order (a contiguous copy).
///
/// Errors (RuntimeError, starting with the path): `a.npy: dtype not supported: torch.bfloat16
/// (NumPy has no bfloat16)`; `a.npy: array is too big; `arr.size * arr.dtype.itemsize` is
/// larger than the maximum possible size.` (a shape NumPy cannot hold, such as
/// `(2^62 + 1, 0)`: `t.numpy()`'s error); an I/O error (`[Errno 2] No such file or directory: 'no/dir/a.npy'`).
pub fn write(path: impl AsRef<Path>, t: &Tensor) -> Result<()> {
    let path = path.as_ref();
    let bytes = to_bytes_impl(t, &label(path))?;
    super::write_all(path, &bytes)
}

/// [`write`] to bytes in memory. Errors as [`write`], starting with `<bytes>`.
pub fn to_bytes(t: &Tensor) -> Result<Vec<u8>> {
    to_bytes_impl(t, "<bytes>")
}

/// NumPy's limit on an array (`PyArray_NewFromDescr`): the itemsize times every non-zero
/// size fits in an `npy_intp`. A zero size does not excuse the others: (0, 2^63 - 1) of '<f4'
/// is refused ("array is too big"), while its data holds 0 bytes. PyTorch allows such a
/// tensor (`torch.empty(2**62 + 1, 0)`), but its `.numpy()` fails, so it has no `.npy` form.
fn numpy_fits(shape: &[usize], dtype: DType) -> bool {
    shape
        .iter()
        .filter(|&&n| n != 0)
        .try_fold(dtype.itemsize(), |a, &n| a.checked_mul(n))
        .is_some_and(|n| n <= isize::MAX as usize)
}

pub(crate) fn to_bytes_impl(t: &Tensor, file: &str) -> Result<Vec<u8>> {
    if !numpy_fits(t.size(), t.dtype()) {
        return Err(ferr(
            file,
            "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.",
        ));
    }
    let descr = descr_of(t.dtype()).ok_or_else(|| {
        ferr(
            file,
            format!("dtype not supported: {} (NumPy has no bfloat16)", t.dtype()),
        )
    })?;
    let fortran = t.dim() > 1 && !t.is_contiguous() && {
        let rev: Vec<i64> = (0..t.dim() as i64).rev().collect();
        t.permute(rev.as_slice())?.is_contiguous()
    };
    let data = if fortran {
        let rev: Vec<i64> = (0..t.dim() as i64).rev().collect();
        t.permute(rev.as_slice())?.to_le_bytes()?
    } else {
        t.to_le_bytes()?
    };
    let dict = format!(
        "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {}, }}",
        if fortran { "True" } else { "False" },
        fmt_tuple(t.size())
    );
    // NumPy's `_write_array_header`: spare spaces so that the growth axis' size can be
    // rewritten in place (21 digits), then padding so that magic + version + length + header
    // + '\n' is a multiple of 64 (a full 64 spaces when it already is).
    let mut dict = dict;
    if t.dim() > 0 {
        let axis = if fortran { t.dim() - 1 } else { 0 };
        let digits = t.size()[axis].to_string().len();
        dict.extend(std::iter::repeat_n(' ', 21usize.saturating_sub(digits)));
    }
    let hlen = dict.len() + 1;
    let pad1 = 64 - (10 + hlen) % 64;
    let (ver, pre, pad) = if hlen + pad1 <= 65535 {
        (1u8, 10usize, pad1)
    } else {
        (2u8, 12usize, 64 - (12 + hlen) % 64)
    };
    let total_h = hlen + pad;
    let mut out = Vec::with_capacity(pre + total_h + data.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[ver, 0]);
    if ver == 1 {
        out.extend_from_slice(&(total_h as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(total_h as u32).to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out.extend(std::iter::repeat_n(b' ', pad));
    out.push(b'\n');
    out.extend_from_slice(&data);
    Ok(out)
}
