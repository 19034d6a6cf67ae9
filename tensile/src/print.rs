//! PyTorch's `repr(tensor)`, character for character.
//!
//! This module mirrors `torch/_tensor_str.py` (torch 2.15) with the default print options
//! (`precision=4, threshold=1000, edgeitems=3, linewidth=80, sci_mode=None`):
//!
//! * [`Formatter`] is `_Formatter`: it looks at the values that will be shown and picks
//!   integer mode, scientific mode and a common column width.
//! * [`Layout`] is `_tensor_str_with_formatter` / `_vector_str` / `_scalar_str`: the nested
//!   bracket layout, line wrapping of 1-d rows and summarization (`...`).
//! * [`add_suffixes`] is `_add_suffixes`: the `size=` / `dtype=` suffixes and their wrapping.
//! * [`format_repr`] is `_str_intern`: it puts the pieces together.
//!
//! Python's number formatting is reproduced by [`fmt_fixed`] (`format(v, ".{p}f")`) and
//! [`fmt_sci`] (`format(v, ".{p}e")`): round-half-even on the exact binary value, `nan`,
//! `inf`, `-inf`, a kept sign on negative zero, and exponents written `e+05` / `e-05`.
//!
//! See `shared/spec/pytorch-semantics.md` §7 for the rules in prose.

use std::ops::Range;

use crate::dtype::DType;

/// `PRINT_OPTS.precision`: digits after the point in fixed and scientific mode.
const PRECISION: usize = 4;
/// `PRINT_OPTS.threshold`: tensors with more elements than this are summarized.
const THRESHOLD: usize = 1000;
/// `PRINT_OPTS.edgeitems`: items kept at each end of a summarized dimension.
const EDGEITEMS: usize = 3;
/// `PRINT_OPTS.linewidth`: the line width that 1-d rows and suffixes wrap at.
const LINEWIDTH: usize = 80;
/// The text before the body; its length is the indent of every continuation line.
const PREFIX: &str = "tensor(";

/// The values of a tensor in row-major (logical) order, as printing needs them.
/// Floats of every float dtype are widened to f64 exactly; ints to i64.
pub(crate) enum PrintValues<'a> {
    Bool(&'a [bool]),
    Int(&'a [i64]),
    Float(&'a [f64]),
    /// Elements read on demand (flat row-major index → value), with the element count: a
    /// summarized tensor reads only the edge items it prints.
    Lazy(&'a dyn Fn(usize) -> Option<Scalar>, usize),
}

/// One element, as Python sees it after `.tolist()` / `.item()`.
#[derive(Clone, Copy)]
pub(crate) enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl PrintValues<'_> {
    /// The element at flat (row-major) index `i`, or `None` if the slice is too short.
    fn get(&self, i: usize) -> Option<Scalar> {
        match self {
            PrintValues::Bool(v) => v.get(i).copied().map(Scalar::Bool),
            PrintValues::Int(v) => v.get(i).copied().map(Scalar::Int),
            PrintValues::Float(v) => v.get(i).copied().map(Scalar::Float),
            PrintValues::Lazy(f, n) => (i < *n).then(|| f(i)).flatten(),
        }
    }

    /// How many elements were given.
    fn len(&self) -> usize {
        match self {
            PrintValues::Bool(v) => v.len(),
            PrintValues::Int(v) => v.len(),
            PrintValues::Float(v) => v.len(),
            PrintValues::Lazy(_, n) => *n,
        }
    }

    /// `tensor.dtype.is_floating_point`.
    fn is_floating(&self) -> bool {
        match self {
            PrintValues::Float(_) => true,
            PrintValues::Lazy(f, n) => *n > 0 && matches!(f(0), Some(Scalar::Float(_))),
            _ => false,
        }
    }
}

/// `repr(t)` of a tensor. Up to the threshold the values are gathered once; above it only the
/// elements printed (`get_summarized_data`'s edge items, at most `2 * edgeitems` per dim) are
/// read, one by one, so printing `zeros(1).expand(10^13)` reads 6 elements and never
/// materialises the tensor.
pub(crate) fn repr(t: &crate::Tensor) -> String {
    let sizes = t.size();
    let numel = sizes.iter().try_fold(1usize, |acc, &s| acc.checked_mul(s));
    let dtype = t.dtype();
    if numel.is_some_and(|n| n <= THRESHOLD) || sizes.contains(&0) {
        return match dtype {
            DType::Bool => format_repr(dtype, sizes, PrintValues::Bool(&t.to_vec::<bool>())),
            d if d.is_floating_point() => {
                format_repr(dtype, sizes, PrintValues::Float(&t.to_vec::<f64>()))
            }
            _ => format_repr(dtype, sizes, PrintValues::Int(&t.to_vec::<i64>())),
        };
    }
    let Some(numel) = numel else {
        return format!("{PREFIX}<size={} overflows>)", python_tuple(sizes));
    };
    let row_major = crate::layout::contiguous_strides(sizes);
    let read = |i: usize| -> Option<Scalar> {
        // The storage offset of flat index i; each coordinate is < its size, and the tensor's
        // layout was checked to fit its storage when it was made, so the sum cannot overflow.
        let mut off = t.storage_offset();
        let mut rest = i;
        for ((&rs, &st), &sz) in row_major.iter().zip(t.stride()).zip(sizes) {
            let c = rest / rs.max(1);
            rest %= rs.max(1);
            if c >= sz {
                return None;
            }
            off += c * st;
        }
        let e = t.view_with(crate::tensor::Dims::new(), crate::tensor::Dims::new(), off);
        Some(match dtype {
            DType::Bool => Scalar::Bool(e.to_vec::<bool>()[0]),
            d if d.is_floating_point() => Scalar::Float(e.to_vec::<f64>()[0]),
            _ => Scalar::Int(e.to_vec::<i64>()[0]),
        })
    };
    format_repr(dtype, sizes, PrintValues::Lazy(&read, numel))
}

/// PyTorch's repr: `tensor([[1., 2.],\n        [3., 4.]])`, with the default print options
/// (precision 4, threshold 1000, edgeitems 3, linewidth 80).
///
/// `values` must hold the `product(sizes)` elements in row-major order (extra ones are
/// ignored). Mirrors `_str_intern` (dense CPU tensor, no grad) in `torch/_tensor_str.py`.
/// This never panics: if `values` is too short for the shape, the result is the marker
/// `tensor(<N values for size=(…)>)`, which PyTorch never prints.
pub(crate) fn format_repr(dtype: DType, sizes: &[usize], values: PrintValues<'_>) -> String {
    let indent = PREFIX.len();
    let mut suffixes = Vec::new();
    let numel = sizes.iter().try_fold(1usize, |acc, &s| acc.checked_mul(s));
    let body = if sizes.contains(&0) {
        // Empty: there are no elements to infer the dtype from, so it is shown unless it is
        // the default dtype; the shape is shown unless it is (0,).
        if sizes.len() != 1 {
            suffixes.push(format!("size={}", python_tuple(sizes)));
        }
        if dtype != DType::Float32 {
            suffixes.push(format!("dtype=torch.{}", dtype.name()));
        }
        String::from("[]")
    } else if numel.is_none_or(|n| n > values.len()) {
        return format!(
            "{PREFIX}<{} values for size={}>)",
            values.len(),
            python_tuple(sizes)
        );
    } else {
        // `has_default_dtype`: float32 (the default), int64 and bool print no dtype.
        if !matches!(dtype, DType::Float32 | DType::Int64 | DType::Bool) {
            suffixes.push(format!("dtype=torch.{}", dtype.name()));
        }
        let summarize = numel.is_some_and(|n| n > THRESHOLD);
        tensor_str(sizes, &values, summarize, indent)
    };
    add_suffixes(format!("{PREFIX}{body}"), &suffixes, indent)
}

/// `_tensor_str` for a non-empty tensor whose `values` cover its shape: build the formatter
/// over the values that will be shown (`summarize` is `numel > threshold`), then lay the
/// tensor out.
fn tensor_str(sizes: &[usize], values: &PrintValues<'_>, summarize: bool, indent: usize) -> String {
    let layout = Layout::new(sizes, values, summarize);
    let formatter = Formatter::new(values.is_floating(), layout.shown_values());
    layout.format(&formatter, indent)
}

/// Mirrors `_Formatter`: one per tensor, built from the values that will be printed (the
/// `get_summarized_data` subset when summarizing).
struct Formatter {
    /// `floating_dtype`: float values use the float rules below, others print as `str(v)`.
    floating: bool,
    /// Every non-zero finite value is an integer: print `3.` instead of `3.0000`.
    int_mode: bool,
    /// Print `1.0000e-05` style.
    sci_mode: bool,
    /// Every element is left-padded to this width (never truncated).
    max_width: usize,
}

impl Formatter {
    /// `_Formatter.__init__`.
    fn new(floating: bool, values: impl Iterator<Item = Scalar>) -> Self {
        let mut f = Formatter {
            floating,
            int_mode: true,
            sci_mode: false,
            max_width: 1,
        };
        if !floating {
            for v in values {
                f.max_width = f.max_width.max(python_str(v).len());
            }
            return f;
        }
        // Only non-zero finite values influence the format; nan, ±inf and ±0 never do.
        let vals: Vec<f64> = values
            .filter_map(|v| match v {
                Scalar::Float(x) if x.is_finite() && x != 0.0 => Some(x),
                _ => None,
            })
            .collect();
        if vals.is_empty() {
            return f;
        }
        // Python computes these on the values converted to double; ours already are.
        let abs_min = vals.iter().fold(f64::INFINITY, |m, x| m.min(x.abs()));
        let abs_max = vals.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        f.int_mode = vals.iter().all(|x| *x == x.ceil());
        // In int mode the values are whole, so `abs_min < 1e-4` cannot hold; PyTorch omits it.
        f.sci_mode = abs_max / abs_min > 1000.0 || abs_max > 1.0e8 || abs_min < 1.0e-4;
        f.max_width = vals
            .iter()
            .map(|&x| {
                if f.sci_mode {
                    fmt_sci(x).len()
                } else if f.int_mode {
                    fmt_fixed(x, 0).len() + 1 // room for the trailing "."
                } else {
                    fmt_fixed(x, PRECISION).len()
                }
            })
            .fold(f.max_width, usize::max);
        f
    }

    /// `_Formatter.format`: one element, left-padded to the common width.
    fn format(&self, value: Scalar) -> String {
        let s = match value {
            Scalar::Float(x) if self.floating => {
                if self.sci_mode {
                    fmt_sci(x)
                } else if self.int_mode {
                    let mut s = fmt_fixed(x, 0);
                    if !x.is_nan() && !x.is_infinite() {
                        s.push('.');
                    }
                    s
                } else {
                    fmt_fixed(x, PRECISION)
                }
            }
            other => python_str(other),
        };
        pad_left(&s, self.max_width)
    }

    /// `_Formatter.width`.
    fn width(&self) -> usize {
        self.max_width
    }
}

/// Which indices of a dimension are printed, as one or two ranges.
///
/// Mirrors the `size(0) > 2 * edgeitems` test used alike by `get_summarized_data`,
/// `_tensor_str_with_formatter` and `_vector_str`: a summarized long dimension keeps its first
/// and last `edgeitems` entries, with a `...` between them.
fn shown_ranges(size: usize, summarize: bool) -> (Range<usize>, Option<Range<usize>>) {
    if summarize && size > 2 * EDGEITEMS {
        (0..EDGEITEMS, Some(size - EDGEITEMS..size))
    } else {
        (0..size, None)
    }
}

/// The shape being printed, with its row-major strides and the summarize flag.
///
/// Sub-tensors (`self[i]` in Python) are addressed by the flat index of their first element
/// and the dimension they start at. Built only for shapes whose element count fits in `usize`
/// and in `values`, so offset arithmetic cannot overflow.
struct Layout<'a> {
    sizes: &'a [usize],
    strides: Vec<usize>,
    values: &'a PrintValues<'a>,
    summarize: bool,
}

impl<'a> Layout<'a> {
    fn new(sizes: &'a [usize], values: &'a PrintValues<'a>, summarize: bool) -> Self {
        let mut strides = vec![1usize; sizes.len()];
        let mut acc = 1usize;
        for (stride, &size) in strides.iter_mut().zip(sizes).rev() {
            *stride = acc;
            acc *= size;
        }
        Layout {
            sizes,
            strides,
            values,
            summarize,
        }
    }

    /// The flat index of `self[i]` for the sub-tensor at `offset` spanning dims `dim..`.
    fn child_offset(&self, dim: usize, offset: usize, i: usize) -> usize {
        offset + i * self.strides[dim]
    }

    /// Mirrors `get_summarized_data(self).reshape(-1)`: the values shown, in order.
    fn shown_values(&self) -> impl Iterator<Item = Scalar> + '_ {
        let mut offsets = vec![0usize];
        for (dim, &size) in self.sizes.iter().enumerate() {
            let (head, tail) = shown_ranges(size, self.summarize);
            offsets = offsets
                .iter()
                .flat_map(|&o| {
                    head.clone()
                        .chain(tail.clone().into_iter().flatten())
                        .map(move |i| self.child_offset(dim, o, i))
                })
                .collect();
        }
        offsets.into_iter().filter_map(|o| self.values.get(o))
    }

    /// `_tensor_str_with_formatter(self, indent, summarize, formatter)` for the whole tensor.
    fn format(&self, formatter: &Formatter, indent: usize) -> String {
        self.format_sub(formatter, 0, 0, indent)
    }

    /// `_tensor_str_with_formatter` for the sub-tensor starting at flat index `offset` that
    /// spans dimensions `dim..`: 0-d prints the bare value, 1-d goes to [`Self::vector`], and
    /// higher dims print one "row" per slice, separated by `,` plus `ndim - 1` newlines.
    fn format_sub(
        &self,
        formatter: &Formatter,
        dim: usize,
        offset: usize,
        indent: usize,
    ) -> String {
        let ndim = self.sizes.len() - dim;
        if ndim == 0 {
            // `_scalar_str`
            return self.element(formatter, offset);
        }
        if ndim == 1 {
            return self.vector(formatter, dim, offset, indent);
        }
        // A size-1 dim is one slice and no separator: `"[" + self[0] + "]"`. Runs of them are
        // peeled here without recursing, so the recursion depth is bounded by the number of
        // dims of size >= 2 (at most 64, as numel fits in usize) whatever the ndim.
        let ones = self.sizes[dim..self.sizes.len() - 1]
            .iter()
            .take_while(|&&s| s == 1)
            .count();
        if ones > 0 {
            let inner = self.format_sub(formatter, dim + ones, offset, indent + ones);
            return format!("{}{inner}{}", "[".repeat(ones), "]".repeat(ones));
        }
        let (head, tail) = shown_ranges(self.sizes[dim], self.summarize);
        let row = |i| {
            self.format_sub(
                formatter,
                dim + 1,
                self.child_offset(dim, offset, i),
                indent + 1,
            )
        };
        let mut slices: Vec<String> = head.map(row).collect();
        if let Some(tail) = tail {
            slices.push(String::from("..."));
            slices.extend(tail.map(row));
        }
        let sep = format!(",{}{}", "\n".repeat(ndim - 1), " ".repeat(indent + 1));
        format!("[{}]", slices.join(&sep))
    }

    /// `_vector_str`: a 1-d row, wrapped so that each line holds
    /// `max(1, floor((linewidth - indent) / (width + 2)))` elements.
    fn vector(&self, formatter: &Formatter, dim: usize, offset: usize, indent: usize) -> String {
        let element_length = formatter.width() + 2;
        let per_line = (LINEWIDTH.saturating_sub(indent) / element_length).max(1);
        let (head, tail) = shown_ranges(self.sizes[dim], self.summarize);
        let elem = |i| self.element(formatter, self.child_offset(dim, offset, i));
        let mut data: Vec<String> = head.map(elem).collect();
        if let Some(tail) = tail {
            data.push(String::from(" ...")); // the leading space is PyTorch's
            data.extend(tail.map(elem));
        }
        let lines: Vec<String> = data.chunks(per_line).map(|c| c.join(", ")).collect();
        format!(
            "[{}]",
            lines.join(&format!(",\n{}", " ".repeat(indent + 1)))
        )
    }

    /// One formatted element (`values` covers the shape, so the blank never shows).
    fn element(&self, formatter: &Formatter, offset: usize) -> String {
        match self.values.get(offset) {
            Some(v) => formatter.format(v),
            None => pad_left("", formatter.width()),
        }
    }
}

/// Mirrors `_add_suffixes`: each suffix goes after `", "` on the current line, or on a new
/// line indented by `indent` if it would pass the line width. PyTorch's length of the last
/// line is 2 more than its real length (`len(s) - s.rfind("\n") + 1`); that is reproduced.
fn add_suffixes(mut out: String, suffixes: &[String], indent: usize) -> String {
    let mut last_line_len = match out.rfind('\n') {
        Some(p) => out.len() - p + 1,
        None => out.len() + 2,
    };
    for suffix in suffixes {
        if last_line_len + suffix.len() + 2 > LINEWIDTH {
            out.push_str(",\n");
            out.push_str(&" ".repeat(indent));
            last_line_len = indent + suffix.len();
        } else {
            out.push_str(", ");
            last_line_len += suffix.len() + 2;
        }
        out.push_str(suffix);
    }
    out.push(')');
    out
}

/// Python's `str(tuple(shape))`: `(0, 3)`, `(0,)`, `()`.
fn python_tuple(sizes: &[usize]) -> String {
    let items: Vec<String> = sizes.iter().map(usize::to_string).collect();
    match items.len() {
        1 => format!("({},)", items[0]),
        _ => format!("({})", items.join(", ")),
    }
}

/// Python's `str(v)` / `f"{v}"` for a non-float element: `True`, `False`, `-20`.
fn python_str(v: Scalar) -> String {
    match v {
        Scalar::Bool(true) => String::from("True"),
        Scalar::Bool(false) => String::from("False"),
        Scalar::Int(i) => i.to_string(),
        // Only reached for float values given with a non-float dtype; not a PyTorch case.
        Scalar::Float(x) => fmt_fixed(x, PRECISION),
    }
}

/// Python's spelling of a non-finite float in `f` and `e` formats.
fn fmt_non_finite(x: f64) -> String {
    String::from(if x.is_nan() {
        "nan"
    } else if x > 0.0 {
        "inf"
    } else {
        "-inf"
    })
}

/// Python's `format(x, ".{precision}f")`: correctly rounded (half-even on the exact binary
/// value), `-0.0000` keeps its sign. Rust's `{:.N}` on f64 rounds the same way.
fn fmt_fixed(x: f64, precision: usize) -> String {
    if x.is_finite() {
        format!("{x:.precision$}")
    } else {
        fmt_non_finite(x)
    }
}

/// Python's `format(x, ".4e")`: `1.0000e-05`, `-1.2346e+08`, `1.0000e+100`.
///
/// Rust's `{:.4e}` rounds correctly, carrying into the exponent (`9.99996e-05` gives
/// `1.0000e-4`); only the exponent needs rewriting with a sign and at least two digits.
fn fmt_sci(x: f64) -> String {
    if !x.is_finite() {
        return fmt_non_finite(x);
    }
    let rust = format!("{x:.PRECISION$e}");
    let (mantissa, exponent) = rust.split_once('e').unwrap_or((rust.as_str(), "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.unsigned_abs())
}

/// Right-aligns `s` in `width` columns; longer strings are kept whole.
fn pad_left(s: &str, width: usize) -> String {
    format!("{s:>width$}")
}

/// The first line of C++'s `operator<<` for a tensor of 2 or more dims (PyTorch quotes it in
/// some errors): for 2-d, the first row, each value right-aligned in the common width and
/// separated by a space — whole numbers (every value of the tensor whole) with width
/// `eMax + 1`, others fixed with 4 decimals and width `eMax + 6` (`eMax` the decimal exponent
/// `floor(log10(max|x|)) + 1`, at least 1); for more dims the block header `(1,.,.) = `.
/// The scaled and scientific formats of large or tiny values are not reproduced.
pub(crate) fn cpp_first_line(t: &crate::Tensor) -> String {
    if t.dim() > 2 {
        return format!(
            "({}) = ",
            ["1"]
                .iter()
                .chain([".", "."].iter())
                .chain(std::iter::repeat_n(&".", t.dim() - 3))
                .copied()
                .collect::<Vec<_>>()
                .join(",")
        );
    }
    let vals = t.to_vec::<f64>();
    let finite: Vec<f64> = vals.iter().copied().filter(|v| v.is_finite()).collect();
    let int_mode = finite.iter().all(|v| v.fract() == 0.0);
    let max = finite.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let e_max = if max > 0.0 {
        (max.log10().floor() as i64 + 1).max(1)
    } else {
        1
    };
    let cols = t.size().get(1).copied().unwrap_or(0);
    vals.iter()
        .take(cols)
        .map(|v| {
            if int_mode {
                format!("{:>w$}", *v as i64, w = (e_max + 1) as usize)
            } else {
                format!("{:>w$.4}", v, w = (e_max + 6) as usize)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(sizes: &[usize], v: &[f64]) -> String {
        format_repr(DType::Float32, sizes, PrintValues::Float(v))
    }

    fn i64s(sizes: &[usize], v: &[i64]) -> String {
        format_repr(DType::Int64, sizes, PrintValues::Int(v))
    }

    /// The float32 value nearest `x`, widened back to f64 (what a float32 tensor holds).
    fn as_f32(x: f64) -> f64 {
        f64::from(x as f32)
    }

    #[test]
    fn spec_7_4_ints_and_bools() {
        assert_eq!(i64s(&[3], &[1, 2, 3]), "tensor([1, 2, 3])");
        assert_eq!(i64s(&[3], &[1, -20, 300]), "tensor([  1, -20, 300])");
        assert_eq!(
            format_repr(DType::Bool, &[2], PrintValues::Bool(&[true, false])),
            "tensor([ True, False])"
        );
        assert_eq!(i64s(&[], &[7]), "tensor(7)");
        assert_eq!(
            format_repr(DType::Bool, &[], PrintValues::Bool(&[true])),
            "tensor(True)"
        );
    }

    #[test]
    fn spec_7_4_floats() {
        assert_eq!(f32s(&[3], &[1., 2., 3.]), "tensor([1., 2., 3.])");
        assert_eq!(
            f32s(&[3], &[1.5, 2., 3.]),
            "tensor([1.5000, 2.0000, 3.0000])"
        );
        assert_eq!(
            f32s(&[2], &[as_f32(1.12345), -2.5]),
            "tensor([ 1.1235, -2.5000])"
        );
        assert_eq!(f32s(&[2], &[1., 1000.]), "tensor([   1., 1000.])");
        assert_eq!(f32s(&[2], &[1.5, 1001.]), "tensor([   1.5000, 1001.0000])");
        assert_eq!(
            f32s(&[2], &[as_f32(1e-5), 1.]),
            "tensor([1.0000e-05, 1.0000e+00])"
        );
        assert_eq!(f32s(&[2], &[f64::NAN, 1.]), "tensor([nan, 1.])");
        assert_eq!(
            f32s(&[2], &[f64::INFINITY, 1.5]),
            "tensor([   inf, 1.5000])"
        );
        assert_eq!(
            f32s(&[2], &[f64::INFINITY, as_f32(1e-5)]),
            "tensor([       inf, 1.0000e-05])"
        );
        assert_eq!(f32s(&[2], &[0., -0.]), "tensor([0., -0.])");
        assert_eq!(f32s(&[], &[3.]), "tensor(3.)");
        assert_eq!(f32s(&[], &[3.5]), "tensor(3.5000)");
        assert_eq!(f32s(&[], &[-0.]), "tensor(-0.)");
        assert_eq!(f32s(&[], &[as_f32(1e-5)]), "tensor(1.0000e-05)");
    }

    #[test]
    fn spec_7_4_nested() {
        assert_eq!(
            i64s(&[2, 2], &[1, 2, 3, 4]),
            "tensor([[1, 2],\n        [3, 4]])"
        );
        assert_eq!(
            i64s(&[2, 2, 2], &[1, 2, 3, 4, 5, 6, 7, 8]),
            "tensor([[[1, 2],\n         [3, 4]],\n\n        [[5, 6],\n         [7, 8]]])"
        );
    }

    #[test]
    fn spec_7_2_thresholds() {
        assert_eq!(
            f32s(&[2], &[as_f32(1e-4), 1.]),
            "tensor([1.0000e-04, 1.0000e+00])"
        );
        assert_eq!(f32s(&[1], &[1e8]), "tensor([100000000.])");
        assert_eq!(f32s(&[1], &[123456789.]), "tensor([1.2346e+08])");
        assert_eq!(f32s(&[2], &[3., 3000.]), "tensor([   3., 3000.])");
        assert_eq!(f32s(&[2], &[1., 1001.]), "tensor([1.0000e+00, 1.0010e+03])");
        assert_eq!(f32s(&[1], &[as_f32(12345.6789)]), "tensor([12345.6787])");
        assert_eq!(
            format_repr(DType::Float64, &[2], PrintValues::Float(&[1.5, 2.])),
            "tensor([1.5000, 2.0000], dtype=torch.float64)"
        );
    }

    #[test]
    fn python_number_formatting() {
        assert_eq!(fmt_sci(9.99996e-05), "1.0000e-04");
        assert_eq!(fmt_sci(-9.99996e99), "-1.0000e+100");
        assert_eq!(fmt_sci(1e-300), "1.0000e-300");
        assert_eq!(fmt_sci(0.0), "0.0000e+00");
        assert_eq!(fmt_sci(-0.0), "-0.0000e+00");
        assert_eq!(fmt_sci(123455.0), "1.2346e+05"); // exact tie: half-even
        assert_eq!(fmt_sci(123465.0), "1.2346e+05");
        assert_eq!(fmt_fixed(0.125, 2), "0.12");
        assert_eq!(fmt_fixed(0.375, 2), "0.38");
        assert_eq!(fmt_fixed(2.5, 0), "2");
        assert_eq!(fmt_fixed(-0.00001, 4), "-0.0000");
        assert_eq!(fmt_fixed(f64::NEG_INFINITY, 4), "-inf");
        assert_eq!(fmt_sci(-f64::NAN), "nan");
    }

    #[test]
    fn wrapping_and_suffixes() {
        let v: Vec<i64> = (0..30).collect();
        let s = i64s(&[30], &v);
        assert!(s.starts_with("tensor([ 0,  1,"));
        assert!(s.contains("17,\n        18,"));
        let v: Vec<i64> = (0..17).collect();
        let s = format_repr(DType::Int32, &[17], PrintValues::Int(&v));
        assert!(s.ends_with("16],\n       dtype=torch.int32)"));
        let v: Vec<i64> = (0..19).collect();
        let s = format_repr(DType::Int32, &[19], PrintValues::Int(&v));
        assert!(s.ends_with("\n        18], dtype=torch.int32)"));
    }

    #[test]
    fn summarization() {
        let v: Vec<i64> = (0..1000).collect();
        assert!(!i64s(&[1000], &v).contains("..."));
        let v: Vec<i64> = (0..1001).collect();
        assert_eq!(
            i64s(&[1001], &v),
            "tensor([   0,    1,    2,  ...,  998,  999, 1000])"
        );
        let ones = vec![1.0; 7000];
        let row = "[1., 1., 1.,  ..., 1., 1., 1.]";
        let expect = format!(
            "tensor([{row},\n        {row},\n        {row},\n        ...,\n        {row},\n        {row},\n        {row}])"
        );
        assert_eq!(f32s(&[7, 1000], &ones), expect);
    }

    #[test]
    fn empty_tensors() {
        assert_eq!(f32s(&[0], &[]), "tensor([])");
        assert_eq!(f32s(&[0, 3], &[]), "tensor([], size=(0, 3))");
        assert_eq!(
            i64s(&[0, 3], &[]),
            "tensor([], size=(0, 3), dtype=torch.int64)"
        );
        assert_eq!(i64s(&[0], &[]), "tensor([], dtype=torch.int64)");
        assert_eq!(f32s(&[1, 0], &[]), "tensor([], size=(1, 0))");
        assert_eq!(f32s(&[1, 0, 2], &[]), "tensor([], size=(1, 0, 2))");
        assert_eq!(
            format_repr(DType::Int16, &[], PrintValues::Int(&[2])),
            "tensor(2, dtype=torch.int16)"
        );
    }

    #[test]
    fn hostile_inputs_do_not_panic() {
        // Shapes whose element count overflows, and values shorter than the shape.
        assert_eq!(i64s(&[5, 5], &[1, 2]), "tensor(<2 values for size=(5, 5)>)");
        assert_eq!(f32s(&[], &[]), "tensor(<0 values for size=()>)");
        let _ = f32s(&[usize::MAX, usize::MAX, 2], &[1.0; 4]);
        let _ = f32s(&[2; 100], &[1.0; 4]);
        assert_eq!(
            f32s(&[0, usize::MAX, usize::MAX], &[]),
            format!("tensor([], size=(0, {m}, {m}))", m = usize::MAX)
        );
        assert_eq!(
            f32s(&[2], &[f64::MAX, -f64::MAX]),
            "tensor([ 1.7977e+308, -1.7977e+308])"
        );
        // Thousands of size-1 dims: no deep recursion.
        let deep = f32s(&[1; 100_000], &[2.5]);
        let brackets = |b: &str| b.repeat(100_000);
        assert_eq!(
            deep,
            format!("tensor({}2.5000{})", brackets("["), brackets("]"))
        );
        let s = f32s(&[1, 2, 1, 1, 2], &[1., 2., 3., 4.]);
        assert_eq!(s, "tensor([[[[[1., 2.]]],\n\n\n         [[[3., 4.]]]]])");
    }
}
