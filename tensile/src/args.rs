//! The calling convention's argument types: how PyTorch's Python arguments map to Rust.
//!
//! * [`Int`]: any Rust integer where PyTorch takes a Python `int` (a dim, an index, a length,
//!   a count): `x.narrow(1, 0, t)` with `t: usize`, `x.select(0, -1)`.
//! * [`IntoShape`] / [`IntoDims`]: a list of ints (a shape, a list of dims, per-dim shifts):
//!   `&[usize]` (so `x.size()` itself), `&[i64]`, arrays `[2, 3]` and `&[2, 3]`, `Vec`s, and a
//!   single integer for a one-element list (`x.view(-1)`, `x.sum_dim(1, false)`). `()` is the
//!   empty list.
//! * Numbers: `impl Into<Scalar>` (or `impl Into<Operand>` where a tensor may stand instead)
//!   from every Rust integer and float type, `usize` and `half`'s `f16`/`bf16` included.
//!
//! A `usize`/`u64` above `i64::MAX` becomes a negative `int`, which PyTorch refuses as it
//! refuses any negative size or dim (`Trying to create tensor with negative dimension -1: …`).

use smallvec::SmallVec;

use crate::tensor::Scalar;

/// A list of ints as PyTorch's `IntArrayRef` holds them: signed, inline up to 6 entries.
pub type IntList = SmallVec<[i64; 6]>;

/// A Rust integer standing for a Python `int`: `i8`…`i64`, `isize`, `u8`…`u64`, `usize`.
///
/// Values above `i64::MAX` (only `u64`/`usize` can hold them) wrap to negative ints, which
/// every op then refuses with PyTorch's error for a negative value.
pub trait Int: Copy {
    /// The value as PyTorch's `int64_t`.
    fn to_i64(self) -> i64;
}

macro_rules! int_impl {
    ($($t:ty),*) => {$(
        impl Int for $t {
            #[inline]
            fn to_i64(self) -> i64 {
                self as i64
            }
        }
    )*};
}
int_impl!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

/// A list of ints: a shape (`view`, `reshape`, `expand`, `zeros`, …), a list of dims
/// (`permute`, `sum_dim`, `flip`, …) or per-dim values (`roll` shifts, `pad` widths).
///
/// Implemented for slices, arrays, references to arrays and `Vec`s of any [`Int`] type (so
/// `x.size()` and `&[2, 3]` both work), for a single [`Int`] (a one-element list, as
/// PyTorch accepts `x.view(-1)` or `x.flip(0)`), and for `()` (the empty list).
pub trait IntoShape {
    /// The list as signed ints.
    fn into_shape(self) -> IntList;

    /// Whether the list was given as a single int (`1`) rather than a list (`[1]`): where
    /// PyTorch has both an int and a list overload with different autograd nodes
    /// (`squeeze.dim`, `SqueezeBackward1`, against `squeeze.dims`, `SqueezeBackward2`), the
    /// op picks the one the caller's argument selects, as Python's argument parser does.
    fn is_single_int(&self) -> bool {
        false
    }
}

/// A list of dims: the same trait as [`IntoShape`], named for what the argument holds.
pub use IntoShape as IntoDims;

impl<T: Int> IntoShape for T {
    fn into_shape(self) -> IntList {
        smallvec::smallvec![self.to_i64()]
    }
    fn is_single_int(&self) -> bool {
        true
    }
}
impl<T: Int> IntoShape for &[T] {
    fn into_shape(self) -> IntList {
        self.iter().map(|x| x.to_i64()).collect()
    }
}
impl<T: Int> IntoShape for &mut [T] {
    fn into_shape(self) -> IntList {
        self.iter().map(|x| x.to_i64()).collect()
    }
}
impl<T: Int, const N: usize> IntoShape for [T; N] {
    fn into_shape(self) -> IntList {
        self.iter().map(|x| x.to_i64()).collect()
    }
}
impl<T: Int, const N: usize> IntoShape for &[T; N] {
    fn into_shape(self) -> IntList {
        self.iter().map(|x| x.to_i64()).collect()
    }
}
impl<T: Int> IntoShape for Vec<T> {
    fn into_shape(self) -> IntList {
        self.iter().map(|x| x.to_i64()).collect()
    }
}
impl<T: Int> IntoShape for &Vec<T> {
    fn into_shape(self) -> IntList {
        self.iter().map(|x| x.to_i64()).collect()
    }
}
impl IntoShape for () {
    fn into_shape(self) -> IntList {
        IntList::new()
    }
}
impl IntoShape for IntList {
    fn into_shape(self) -> IntList {
        self
    }
}

/// A Rust number standing for a Python number (`int`, `float` or `bool`): every integer and
/// float type, `usize` and `half::f16`/`bf16` included, `bool`, and [`Scalar`] itself. The
/// operator traits take it on the right (`&x * n` with `n: usize`, `&x + 0.5`).
pub trait Number: Copy {
    /// The value as PyTorch's Python scalar: integers become `int`, floats `float`.
    fn to_scalar(self) -> Scalar;
}
macro_rules! number_impl {
    ($($t:ty),*) => {$(
        impl Number for $t {
            #[inline]
            fn to_scalar(self) -> Scalar {
                Scalar::from(self)
            }
        }
    )*};
}
number_impl!(
    i8,
    i16,
    i32,
    i64,
    isize,
    u8,
    u16,
    u32,
    u64,
    usize,
    f32,
    f64,
    bool,
    half::f16,
    half::bf16
);
impl Number for Scalar {
    #[inline]
    fn to_scalar(self) -> Scalar {
        self
    }
}

/// A shape for a new tensor: every entry must be ≥ 0.
///
/// Error (RuntimeError): `Trying to create tensor with negative dimension -1: [-1, 3]`.
pub(crate) fn new_sizes(shape: impl IntoShape) -> crate::Result<crate::tensor::Dims> {
    let s = shape.into_shape();
    if let Some(&neg) = s.iter().find(|&&x| x < 0) {
        return Err(crate::Error::runtime(format!(
            "Trying to create tensor with negative dimension {neg}: {}",
            crate::error::fmt_list(&s)
        )));
    }
    Ok(s.iter().map(|&x| x as usize).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: impl IntoShape) -> Vec<i64> {
        x.into_shape().to_vec()
    }

    #[test]
    fn every_list_form_gives_the_same_ints() {
        let sizes: &[usize] = &[2, 3];
        assert_eq!(s(sizes), [2, 3]);
        assert_eq!(s([2, 3]), [2, 3]);
        assert_eq!(s([2i64, 3]), [2, 3]);
        assert_eq!(s(vec![2u32, 3]), [2, 3]);
        assert_eq!(s(vec![2usize, 3]), [2, 3]);
        assert_eq!(s(-1), [-1]);
        assert_eq!(s(()), Vec::<i64>::new());
    }

    #[test]
    fn huge_unsigned_sizes_are_negative_dimensions() {
        let e = new_sizes([usize::MAX, 0]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Trying to create tensor with negative dimension -1: [-1, 0]"
        );
        assert_eq!(new_sizes([2, 0]).unwrap().to_vec(), [2, 0]);
    }
}
