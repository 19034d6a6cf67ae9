//! The engine's safe entry point for kernels that are not pointwise: softmax rows, norm rows
//! and planes, convolutions, attention, losses, scans, row copies, optimizer updates (what
//! candle's `Map1`/`Map2` are to its CPU storage).
//!
//! [`dense`] takes the storage locks of its operands (outputs for writing, inputs for
//! reading, in the storage module's order) and calls the kernel with [`Slices`]: each operand's
//! elements as a slice of its element type, `&mut [T]` for an output and `&[T]` for an input,
//! from the operand's first element (index 0) to its last. So a contiguous operand's slice is
//! its row-major values, and any other is addressed as `Σ index·stride` (strides in elements,
//! the tensor's own); the caller makes an operand contiguous first where its kernel needs it.
//! Every `unsafe` step from a tensor to its memory is here: the kernels see slices, sizes and
//! strides.
//!
//! The slices borrow from the call: they cannot outlive the locks. Each output is handed out
//! once, its elements overlap no other operand's (checked), and every operand's span lies
//! inside its storage (checked), so the slices obey Rust's aliasing rules.

use smallvec::SmallVec;
use std::marker::PhantomData;

use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// One operand as [`Slices`] hands it out: the address of its first element and its span.
#[derive(Clone, Copy)]
struct Span {
    /// The element at index 0.
    ptr: *mut u8,
    /// Elements from index 0 to the last element, inclusive (0 for an empty operand).
    len: usize,
    dtype: DType,
}

impl Span {
    /// The byte range `[start, end)` the span covers.
    fn bytes(&self) -> (usize, usize) {
        let start = self.ptr as usize;
        (start, start + self.len * self.dtype.itemsize())
    }
}

/// The operands of a [`dense`] call, outputs first, as typed slices.
pub(crate) struct Slices<'s> {
    /// The operands' spans, borrowed from the [`dense`] call (so the value stays small:
    /// small ops pay for every byte moved).
    spans: &'s [Span],
    n_out: usize,
    /// Bit `k` set: output `k` was handed out (once only, so no two `&mut` alias).
    taken: u64,
    _locks: PhantomData<&'s mut [u8]>,
}

fn internal(what: &str) -> Error {
    Error::runtime(format!("internal error: dense kernel operands: {what}"))
}

impl<'s> Slices<'s> {
    /// Operand `k` (outputs first) checked to hold elements of type `T`.
    fn span<T: Element>(&self, k: usize) -> Result<Span> {
        let sp = *self
            .spans
            .get(k)
            .ok_or_else(|| internal("no such operand"))?;
        if sp.dtype != T::DTYPE || std::mem::size_of::<T>() != sp.dtype.itemsize() {
            return Err(internal("element type is not the operand's dtype"));
        }
        Ok(sp)
    }

    /// Output `k` as `&mut [T]`, from its first element to its last (see the module docs).
    /// Errors (internal): `T` is not the output's dtype; no such output; asked twice.
    pub(crate) fn out<T: Element>(&mut self, k: usize) -> Result<&'s mut [T]> {
        if k >= self.n_out || k >= 64 {
            return Err(internal("no such output"));
        }
        let sp = self.span::<T>(k)?;
        if self.taken & (1 << k) != 0 {
            return Err(internal("an output handed out twice"));
        }
        self.taken |= 1 << k;
        if sp.len == 0 {
            return Ok(&mut []);
        }
        // SAFETY: `dense` checked that the span lies inside the output's storage, which is
        // aligned for every dtype at an element offset of `T` (so aligned for `T`), and that it
        // overlaps no other operand; the storage's write lock is held for as long as `'s`
        // lasts (the slice cannot outlive the kernel call); the bit set just above hands it
        // out once. `T` has the size of the dtype's elements (checked in `span`), and the
        // storage's bytes are that dtype's values.
        Ok(unsafe { std::slice::from_raw_parts_mut(sp.ptr as *mut T, sp.len) })
    }

    /// Input `k` as `&[T]`, from its first element to its last (see the module docs).
    /// Errors (internal): `T` is not the input's dtype; no such input.
    pub(crate) fn input<T: Element>(&self, k: usize) -> Result<&'s [T]> {
        let sp = self.span::<T>(self.n_out + k)?;
        if sp.len == 0 {
            return Ok(&[]);
        }
        // SAFETY: as in `out`, under the storage's read lock; no output overlaps it (checked
        // in `dense`), and other inputs are only read.
        Ok(unsafe { std::slice::from_raw_parts(sp.ptr as *const T, sp.len) })
    }

    /// Output `k`'s bytes, as [`Slices::out`] of a one-byte type: for kernels that only move
    /// elements of any dtype.
    pub(crate) fn out_bytes(&mut self, k: usize) -> Result<&'s mut [u8]> {
        if k >= self.n_out || k >= 64 {
            return Err(internal("no such output"));
        }
        if self.taken & (1 << k) != 0 {
            return Err(internal("an output handed out twice"));
        }
        self.taken |= 1 << k;
        let sp = self.spans[k];
        let (start, end) = sp.bytes();
        if start == end {
            return Ok(&mut []);
        }
        // SAFETY: as in `out`, for bytes (any alignment).
        Ok(unsafe { std::slice::from_raw_parts_mut(sp.ptr, end - start) })
    }

    /// Input `k`'s bytes, as [`Slices::input`] of a one-byte type.
    pub(crate) fn input_bytes(&self, k: usize) -> Result<&'s [u8]> {
        let sp = *self
            .spans
            .get(self.n_out + k)
            .ok_or_else(|| internal("no such operand"))?;
        let (start, end) = sp.bytes();
        if start == end {
            return Ok(&[]);
        }
        // SAFETY: as in `input`, for bytes (any alignment).
        Ok(unsafe { std::slice::from_raw_parts(sp.ptr as *const u8, end - start) })
    }
}

/// The span of `t`'s elements: from the element at index 0 to the last one, in elements (0
/// when `t` has none), and its first element's address. `None` when it does not lie inside
/// the storage (which a tensor's construction rules out).
fn span_of(t: &Tensor) -> Option<Span> {
    let isz = t.dtype.itemsize();
    let len = if t.sizes.contains(&0) {
        0
    } else {
        let mut last = 0usize;
        for (&n, &st) in t.sizes.iter().zip(&t.strides) {
            last = last.checked_add((n - 1).checked_mul(st)?)?;
        }
        last + 1
    };
    let end = t.offset.checked_add(len)?.checked_mul(isz)?;
    if len > 0 && end > t.storage.nbytes() {
        return None;
    }
    Some(Span {
        ptr: t.storage.ptr().wrapping_add(t.offset * isz),
        len,
        dtype: t.dtype,
    })
}

/// Runs a dense kernel: locks the storages of `outs` for writing and of `ins` for reading
/// (`crate::iter::lock_operands`), then calls `kernel` with their elements as slices
/// ([`Slices`]: outputs first, each numbered from 0 in its list), and releases the locks when
/// it returns. An operand's slice runs from its first element to its last, so a contiguous
/// operand's is its `numel` row-major values; a kernel of other layouts is given their
/// strides (elements) by the caller.
///
/// Errors: the kernel's own; internal errors (an output overlapping another operand, a
/// geometry outside its storage) that no caller's operands should produce: outputs are fresh
/// tensors or tensors in other storages than the inputs.
pub(crate) fn dense<R>(
    outs: &[&Tensor],
    ins: &[&Tensor],
    kernel: impl FnOnce(Slices<'_>) -> Result<R>,
) -> Result<R> {
    let mut spans: SmallVec<[Span; 6]> = SmallVec::new();
    for t in outs.iter().chain(ins) {
        spans.push(span_of(t).ok_or_else(|| internal("a geometry outside its storage"))?);
    }
    // An output's bytes overlap no other operand's (in the same storage: different storages
    // never share bytes, see `crate::storage`).
    for (k, o) in outs.iter().enumerate() {
        let (a0, a1) = spans[k].bytes();
        for (j, t) in outs.iter().chain(ins).enumerate() {
            let (b0, b1) = spans[j].bytes();
            if j != k && o.shares_storage(t) && a0 < b1 && b0 < a1 {
                return Err(internal("an output overlaps another operand"));
            }
        }
    }
    let mut entries: SmallVec<[(&crate::storage::Storage, bool); 6]> = SmallVec::new();
    entries.extend(outs.iter().map(|t| (&*t.storage, true)));
    entries.extend(ins.iter().map(|t| (&*t.storage, false)));
    let guard = crate::storage::lock_all(&mut entries);
    let r = kernel(Slices {
        spans: &spans,
        n_out: outs.len(),
        taken: 0,
        _locks: PhantomData,
    });
    drop(guard);
    r
}

/// [`dense`] into a new contiguous output of `sizes` and `dtype`, allocated here and
/// returned with the kernel's result (output 0 of the [`Slices`]; the inputs follow). A new
/// output is seen by nobody else, so only the inputs are locked (for reading) and no overlap
/// needs checking: small ops (a 64-element `cumsum`) spend most of their time in this setup.
///
/// Errors: an allocation failure (`Tensor::try_alloc_contiguous`); the kernel's own; an input
/// geometry outside its storage (internal).
#[inline]
pub(crate) fn dense_new<R>(
    sizes: &[usize],
    dtype: DType,
    ins: &[&Tensor],
    kernel: impl FnOnce(Slices<'_>) -> Result<R>,
) -> Result<(Tensor, R)> {
    dense_into(Tensor::try_alloc_contiguous(sizes, dtype)?, ins, kernel)
}

/// The body of [`dense_new`]: `out` was allocated by the caller in this module, so nobody
/// else holds it.
#[inline]
fn dense_into<R>(
    out: Tensor,
    ins: &[&Tensor],
    kernel: impl FnOnce(Slices<'_>) -> Result<R>,
) -> Result<(Tensor, R)> {
    let mut spans: SmallVec<[Span; 6]> = SmallVec::new();
    for t in std::iter::once(&out).chain(ins.iter().copied()) {
        spans.push(span_of(t).ok_or_else(|| internal("a geometry outside its storage"))?);
    }
    let guard = super::lock_operands(ins, 0);
    let r = kernel(Slices {
        spans: &spans,
        n_out: 1,
        taken: 0,
        _locks: PhantomData,
    });
    drop(guard);
    Ok((out, r?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_are_the_operands_spans() {
        let x = Tensor::from_vec((0..12).map(|v| v as f32).collect::<Vec<_>>(), [3, 4]).unwrap();
        let col = x.select(1, 1).unwrap(); // elements 1, 5, 9: strides (4,)
        let y = Tensor::zeros([3]).unwrap();
        dense(&[&y], &[&col], |mut s| {
            let xs = s.input::<f32>(0)?;
            assert_eq!(xs.len(), 9);
            let ys = s.out::<f32>(0)?;
            for (i, o) in ys.iter_mut().enumerate() {
                *o = xs[i * 4];
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(y.to_vec::<f32>(), vec![1.0, 5.0, 9.0]);
    }

    #[test]
    fn misuse_is_an_error() {
        let x = Tensor::zeros([4]).unwrap();
        let y = Tensor::zeros([4]).unwrap();
        // the wrong element type, an output twice, an input past the list
        let r = dense(&[&y], &[&x], |mut s| {
            assert!(s.input::<f64>(0).is_err());
            assert!(s.input::<f32>(1).is_err());
            s.out::<f32>(0)?;
            assert!(s.out::<f32>(0).is_err());
            assert!(s.out_bytes(0).is_err());
            Ok(7)
        });
        assert_eq!(r.unwrap(), 7);
        // an output overlapping an input of the same storage
        let a = x.narrow(0, 0, 3).unwrap();
        let b = x.narrow(0, 2, 2).unwrap();
        assert!(dense(&[&a], &[&b], |_| Ok(())).is_err());
        // disjoint views of one storage are fine
        let c = x.narrow(0, 3, 1).unwrap();
        assert!(dense(&[&a], &[&c], |_| Ok(())).is_ok());
    }
}
