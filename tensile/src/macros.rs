//! The `tensor!` literal macro (`torch.tensor([...])`).

/// A tensor from a nested list literal, like `torch.tensor([...])`.
///
/// The arguments are the elements of the outermost list: numbers (or any expression of an
/// [`Element`](crate::Element) type, or a [`Scalar`](crate::Scalar)) and nested lists
/// `[...]`. The result is a contiguous [`Tensor`](crate::Tensor) of the list's shape; its
/// dtype is inferred as `torch.tensor` infers it:
///
/// * any float element makes it **float32** (the default float dtype; ints and bools in it
///   become 1.0/0.0 as in PyTorch, `[True, 2.5]` → `[1., 2.5]`);
/// * otherwise any int makes it **int64** (`[True, 1]` → int64);
/// * otherwise (all bools) it is **bool**; and an empty list is float32, `torch.tensor([])`.
///
/// ```
/// use tensile::{tensor, DType};
/// let a = tensor![1, 2, 3];                          // torch.tensor([1, 2, 3])
/// assert_eq!((a.size(), a.dtype()), (&[3][..], DType::Int64));
/// let b = tensor![[1.0, 2.0], [3.0, 4.0]];           // torch.tensor([[1., 2.], [3., 4.]])
/// assert_eq!((b.size(), b.dtype()), (&[2, 2][..], DType::Float32));
/// let c = tensor![true, false];                      // bool
/// assert_eq!(c.dtype(), DType::Bool);
/// let d = tensor!(3.5);                              // torch.tensor(3.5): 0-d
/// assert_eq!((d.size(), d.to_string().as_str()), (&[][..], "tensor(3.5000)"));
/// let e = tensor![3.5,];                             // torch.tensor([3.5]): shape (1,)
/// assert_eq!(e.size(), &[1]);
/// let f = tensor![[1, 2],];                          // torch.tensor([[1, 2]]): shape (1, 2)
/// assert_eq!(f.size(), &[1, 2]);
/// let g = tensor![[], []];                           // torch.tensor([[], []]): (2, 0) float32
/// assert_eq!((g.size(), g.dtype()), (&[2, 0][..], DType::Float32));
/// let x = 0.25f32;
/// let h = tensor![[x, -x], [2.0 * x, 1]];            // expressions are fine
/// assert_eq!(h.to_vec::<f32>(), vec![0.25, -0.25, 0.5, 1.0]);
/// ```
///
/// Shapes in/out: the nesting is the shape, outermost list first; `tensor!(v)` with a single
/// element and no comma is 0-d. Like a Python tuple, a trailing comma makes a list of one:
/// `tensor![3.5,]` is `(1,)`.
///
/// Errors: none at run time. A ragged list (`tensor![[1, 2], [3]]`, `tensor![1, [2]]`) does
/// not compile (mismatched array lengths or types), where PyTorch raises `ValueError:
/// expected sequence of length 2 at dim 1 (got 1)`. A lone bracketed list without a trailing
/// comma, `tensor![[1, 2]]` (which is also what `tensor!([1, 2])` looks like to the macro),
/// does not compile either, because it could mean `torch.tensor([1, 2])` or
/// `torch.tensor([[1, 2]])`: write `tensor![1, 2]` for the first and `tensor![[1, 2],]` for
/// the second.
///
/// Integer literals are int64 (`tensor![3_000_000_000]` is fine). An element may be any
/// expression of type `i64`, `f64`, `f32`, `f16`, `bf16`, `bool` or [`Scalar`](crate::Scalar);
/// other integer types are not accepted (so that literals stay int64): cast them, `x as i64`.
/// Each element is a plain expression; wrap one that contains a top-level comma (a generic call
/// `f::<A, B>(x)`) in parentheses. Works from any crate (it only names `$crate` paths).
#[macro_export]
macro_rules! tensor {
    () => {
        $crate::explain::__tensor_macro::build(&$crate::explain::__tensor_macro::empty())
    };
    ([$($inner:tt)*]) => {
        ::core::compile_error!(
            "tensor!: a lone list is ambiguous: write `tensor![1, 2]` for torch.tensor([1, 2]), or `tensor![[1, 2],]` (trailing comma) for torch.tensor([[1, 2]])"
        )
    };
    ($($t:tt)+) => {
        $crate::__tensor_top!([] $($t)+)
    };
}

/// Implementation detail of [`tensor!`]: decides between a 0-d scalar (no top-level comma)
/// and a list.
#[doc(hidden)]
#[macro_export]
macro_rules! __tensor_top {
    ([$($cur:tt)+]) => {
        $crate::explain::__tensor_macro::build(&$crate::explain::__tensor_macro::leaf($($cur)+))
    };
    ([$($cur:tt)+] , $($rest:tt)*) => {
        $crate::explain::__tensor_macro::build(&$crate::__tensor_list!([] [] $($cur)+ , $($rest)*))
    };
    ([$($cur:tt)*] $t:tt $($rest:tt)*) => {
        $crate::__tensor_top!([$($cur)* $t] $($rest)*)
    };
}

/// Implementation detail of [`tensor!`]: turns a comma-separated list into a Rust array of
/// elements (so a ragged list is a type error).
#[doc(hidden)]
#[macro_export]
macro_rules! __tensor_list {
    // All elements taken: an empty list gets an explicit element type.
    ([] []) => {
        $crate::explain::__tensor_macro::empty()
    };
    ([$($done:expr,)*] []) => {
        [$($done,)*]
    };
    ([$($done:expr,)*] [$($cur:tt)+]) => {
        [$($done,)* $crate::__tensor_elem!($($cur)+)]
    };
    // A comma ends the current element.
    ([$($done:expr,)*] [$($cur:tt)+] , $($rest:tt)*) => {
        $crate::__tensor_list!([$($done,)* $crate::__tensor_elem!($($cur)+),] [] $($rest)*)
    };
    // Any other token belongs to the current element.
    ([$($done:expr,)*] [$($cur:tt)*] $t:tt $($rest:tt)*) => {
        $crate::__tensor_list!([$($done,)*] [$($cur)* $t] $($rest)*)
    };
}

/// Implementation detail of [`tensor!`]: one element, a nested list or a number.
#[doc(hidden)]
#[macro_export]
macro_rules! __tensor_elem {
    ([$($inner:tt)*]) => {
        $crate::__tensor_list!([] [] $($inner)*)
    };
    ($($e:tt)+) => {
        $crate::explain::__tensor_macro::leaf($($e)+)
    };
}

/// Run-time support of [`tensor!`] (public only so the macro works from other crates).
#[doc(hidden)]
pub mod support {
    use crate::dtype::DType;
    use crate::element::Element;
    use crate::tensor::{Scalar, Tensor};

    /// A nested array of [`Scalar`]s: its type is its shape.
    pub trait NestedList {
        /// Appends the dims of this level and below.
        fn dims(out: &mut Vec<usize>);
        /// Appends the values in row-major order.
        fn values(&self, out: &mut Vec<Scalar>);
    }

    impl NestedList for Scalar {
        fn dims(_: &mut Vec<usize>) {}
        fn values(&self, out: &mut Vec<Scalar>) {
            out.push(*self);
        }
    }

    impl<T: NestedList, const N: usize> NestedList for [T; N] {
        fn dims(out: &mut Vec<usize>) {
            out.push(N);
            T::dims(out);
        }
        fn values(&self, out: &mut Vec<Scalar>) {
            for x in self {
                x.values(out);
            }
        }
    }

    /// An element of a `tensor!` literal: `i64` is the only integer type, so that integer
    /// literals infer as int64 (Python ints); floats of every width and bools are accepted.
    pub trait Leaf {
        /// The element as a Python scalar.
        fn to_scalar(self) -> Scalar;
    }

    macro_rules! leaf_impl {
        ($($t:ty),*) => {$(
            impl Leaf for $t {
                fn to_scalar(self) -> Scalar {
                    match <$t as Element>::DTYPE {
                        DType::Bool => Scalar::Bool(self.is_nonzero()),
                        d if d.is_floating_point() => Scalar::Float(self.to_f64()),
                        _ => Scalar::Int(self.to_i64()),
                    }
                }
            }
        )*};
    }
    leaf_impl!(i64, f64, f32, half::f16, half::bf16, bool);

    impl Leaf for Scalar {
        fn to_scalar(self) -> Scalar {
            self
        }
    }

    /// One element of the literal.
    pub fn leaf(x: impl Leaf) -> Scalar {
        x.to_scalar()
    }

    /// The empty list `[]`, typed.
    pub fn empty() -> [Scalar; 0] {
        []
    }

    /// The tensor of a nested list: shape from the nesting, dtype as `torch.tensor` infers it.
    pub fn build<L: NestedList>(list: &L) -> Tensor {
        let mut shape = Vec::new();
        L::dims(&mut shape);
        let mut vals = Vec::new();
        list.values(&mut vals);
        let built = if vals.iter().any(|v| matches!(v, Scalar::Float(_))) || vals.is_empty() {
            Tensor::from_vec(
                vals.iter().map(|v| v.to_f64() as f32).collect::<Vec<f32>>(),
                &shape,
            )
        } else if vals.iter().any(|v| matches!(v, Scalar::Int(_))) {
            let ints = vals.iter().map(|v| match *v {
                Scalar::Int(i) => i,
                Scalar::Bool(b) => i64::from(b),
                Scalar::Float(f) => f as i64,
            });
            Tensor::from_vec(ints.collect::<Vec<i64>>(), &shape)
        } else {
            Tensor::from_vec(
                vals.iter()
                    .map(|v| v.to_f64() != 0.0)
                    .collect::<Vec<bool>>(),
                &shape,
            )
        };
        // The value count is the product of the dims by construction (arrays are rectangular).
        match built {
            Ok(t) => t,
            Err(e) => unreachable!("tensor!: a rectangular literal has the right length: {e}"),
        }
    }
}
