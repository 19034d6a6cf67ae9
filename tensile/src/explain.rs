//! Why shapes broadcast, or why they don't: a dimension-by-dimension walk-through.
//!
//! PyTorch and NumPy only say *that* two shapes clash (and PyTorch names one dimension).
//! [`explain_broadcast`] shows the whole reasoning the tutorials walk through by hand: the
//! shapes right-aligned (missing leading dims shown as `-`), then, from the trailing dimension
//! to the leading one, which rule applies (sizes equal, one of them is 1 and is stretched, one
//! of them is missing and counts as 1, or the clash), ending with the result shape or
//! PyTorch's exact error.
//!
//! ```
//! use tensile::explain::explain_broadcast;
//! let e = explain_broadcast(&[&[5, 2, 4, 1], &[3, 1, 1]]);
//! assert_eq!(
//!     e.result().as_ref().unwrap_err().message(),
//!     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"
//! );
//! println!("{e}");
//! ```
//! prints
//! ```text
//! broadcast a=(5, 2, 4, 1) with b=(3, 1, 1)
//!
//!   dim  0  1  2  3
//!   a    5  2  4  1
//!   b    -  3  1  1
//!           ^ clash
//!
//!   dim  a  b  out  rule
//!     3  1  1    1  equal
//!     2  4  1    4  b is 1: stretched to 4
//!     1  2  3    !  clash: 2 vs 3, neither is 1  <- the dimension in PyTorch's error
//!     0  5  -    5  b is missing: counts as 1, stretched to 5  (not reached by PyTorch)
//!
//! error: The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1
//! ```

use std::fmt;

use crate::broadcast::infer_size;
use crate::error::{Error, fmt_tuple};

/// Run-time support of the [`tensor!`](crate::tensor) macro. It lives in the private `macros`
/// module; this is its public path, so the macro works from other crates. Not an API.
#[doc(hidden)]
pub use crate::macros::support as __tensor_macro;

/// Which operand of one pairwise broadcast step: PyTorch's "tensor a" (the shape accumulated
/// so far) or "tensor b" (the next operand).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// "tensor a": the first shape, or the broadcast of all shapes before `b`.
    A,
    /// "tensor b": the operand being broadcast into `a`.
    B,
}

impl Side {
    /// `"a"` or `"b"`.
    pub fn name(self) -> &'static str {
        match self {
            Side::A => "a",
            Side::B => "b",
        }
    }
}

/// The broadcasting rule that decides one dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Both sizes are equal (including both 1, or both 0): the size is kept.
    Equal,
    /// The given side has size 1 and is stretched to the other side's size (which may be 0).
    Stretched(Side),
    /// The given side has no dimension here (its shape is shorter): it counts as a leading 1
    /// and takes the other side's size.
    Missing(Side),
    /// The sizes differ and neither is 1: the shapes are not broadcastable.
    Clash,
}

/// One dimension of one pairwise broadcast step.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Step {
    /// Which pairwise step of the left-to-right fold this belongs to: `k` means the shape so
    /// far (shapes `0..k` broadcast together) against shape `k`. With two shapes it is always 1.
    pub stage: usize,
    /// The dimension's index in this step's result, counted from the left: the number PyTorch
    /// puts after "at non-singleton dimension".
    pub dim: usize,
    /// The dimension's position counted from the right: 1 is the trailing dimension.
    pub from_right: usize,
    /// "tensor a"'s size here, `None` when its shape is too short.
    pub a: Option<usize>,
    /// "tensor b"'s size here, `None` when its shape is too short.
    pub b: Option<usize>,
    /// The rule that applies.
    pub rule: Rule,
    /// The resulting size; `None` for a clash.
    pub size: Option<usize>,
    /// Whether this is the clash PyTorch reports (the rightmost clash of the first failing step).
    pub reported: bool,
    /// Whether PyTorch looks at this dimension at all: it walks right to left and stops at the
    /// first clash, so dimensions to the left of the reported clash are shown for information.
    pub checked_by_pytorch: bool,
}

impl Step {
    /// The rule in words, as the table prints it (e.g. `b is 1: stretched to 4`).
    pub fn describe(&self) -> String {
        let other = |s: Side| match s {
            Side::A => self.b.unwrap_or(1),
            Side::B => self.a.unwrap_or(1),
        };
        match self.rule {
            Rule::Equal => "equal".to_string(),
            Rule::Stretched(s) if other(s) == 0 => {
                format!("{} is 1: takes the other size, 0", s.name())
            }
            Rule::Stretched(s) => format!("{} is 1: stretched to {}", s.name(), other(s)),
            Rule::Missing(s) if other(s) == 1 => format!("{} is missing: counts as 1", s.name()),
            Rule::Missing(s) => {
                format!(
                    "{} is missing: counts as 1, stretched to {}",
                    s.name(),
                    other(s)
                )
            }
            Rule::Clash => {
                let (a, b) = (self.a.unwrap_or(1), self.b.unwrap_or(1));
                if a == 0 || b == 0 {
                    format!("clash: {a} vs {b}, neither is 1 (0 only matches 0 or 1)")
                } else {
                    format!("clash: {a} vs {b}, neither is 1")
                }
            }
        }
    }
}

/// One pairwise step's "tensor a" (the shape so far) and its result.
type StageInput = (Vec<usize>, Result<Vec<usize>, Error>);

/// The walk-through of one broadcast: the shapes, every per-dimension step, and the result.
///
/// `Display` prints it as a small aligned table (see the [module docs](self)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    shapes: Vec<Vec<usize>>,
    steps: Vec<Step>,
    stage_inputs: Vec<StageInput>,
    result: Result<Vec<usize>, Error>,
}

/// Explains broadcasting `shapes` together, dimension by dimension.
///
/// Mirrors `infer_size` / `torch.broadcast_tensors` (PyTorch's C++ `infer_size_impl`, folded
/// left to right over 3+ shapes, as TensorIterator does): shapes are aligned on their trailing
/// dims; per dim the sizes must be equal, or one of them 1 (stretched), or missing (a leading
/// 1). "tensor a" is the shape accumulated so far, "tensor b" the next shape.
///
/// Shapes in: any number of shapes, each of any rank (0-d is `&[]`). Out: an [`Explanation`]
/// whose [`result`](Explanation::result) is exactly
/// [`infer_size_all`](crate::broadcast::infer_size_all)'s: the broadcast shape (`[]` for no
/// shapes), or its RuntimeError, e.g.
/// `The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1`.
/// Never panics.
pub fn explain_broadcast(shapes: &[&[usize]]) -> Explanation {
    let shapes: Vec<Vec<usize>> = shapes.iter().map(|s| s.to_vec()).collect();
    let mut steps = Vec::new();
    let mut stage_inputs = Vec::new();
    let mut acc: Vec<usize> = match shapes.first() {
        Some(s) => s.clone(),
        None => Vec::new(),
    };
    let mut result = Ok(acc.clone());
    for (k, b) in shapes.iter().enumerate().skip(1) {
        let stage_result = infer_size(&acc, b);
        let n = acc.len().max(b.len());
        let mut clash_seen = false;
        for i in (0..n).rev() {
            let off = n - 1 - i;
            let sa = (off < acc.len()).then(|| acc[acc.len() - 1 - off]);
            let sb = (off < b.len()).then(|| b[b.len() - 1 - off]);
            let (rule, size) = match (sa, sb) {
                (Some(x), Some(y)) if x == y => (Rule::Equal, Some(x)),
                (Some(1), Some(y)) => (Rule::Stretched(Side::A), Some(y)),
                (Some(x), Some(1)) => (Rule::Stretched(Side::B), Some(x)),
                (Some(_), Some(_)) => (Rule::Clash, None),
                (None, Some(y)) => (Rule::Missing(Side::A), Some(y)),
                (Some(x), None) => (Rule::Missing(Side::B), Some(x)),
                (None, None) => (Rule::Equal, Some(1)),
            };
            let reported = rule == Rule::Clash && !clash_seen;
            steps.push(Step {
                stage: k,
                dim: i,
                from_right: off + 1,
                a: sa,
                b: sb,
                rule,
                size,
                reported,
                checked_by_pytorch: !clash_seen,
            });
            clash_seen |= rule == Rule::Clash;
        }
        stage_inputs.push((acc.clone(), stage_result.clone()));
        match stage_result {
            Ok(s) => {
                acc = s.clone();
                result = Ok(s);
            }
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    Explanation {
        shapes,
        steps,
        stage_inputs,
        result,
    }
}

impl Explanation {
    /// The input shapes, as given.
    pub fn shapes(&self) -> &[Vec<usize>] {
        &self.shapes
    }

    /// The number of dims of the broadcast (the longest input shape's rank).
    pub fn ndim(&self) -> usize {
        self.shapes.iter().map(Vec::len).max().unwrap_or(0)
    }

    /// The input shapes right-aligned to [`ndim`](Self::ndim) dims; `None` marks a missing
    /// leading dim (printed `-`). `(3, 1, 1)` against a 4-d shape is `[None, Some(3), Some(1), Some(1)]`.
    pub fn aligned(&self) -> Vec<Vec<Option<usize>>> {
        let n = self.ndim();
        self.shapes
            .iter()
            .map(|s| {
                (0..n)
                    .map(|i| (i + s.len()).checked_sub(n).map(|j| s[j]))
                    .collect()
            })
            .collect()
    }

    /// Every per-dimension step, stage by stage (see [`Step::stage`]), each stage from the
    /// trailing dimension to the leading one. A stage that clashes lists all its dims (see
    /// [`Step::checked_by_pytorch`]); stages after it are not run. Empty for fewer than 2 shapes.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// The steps of one stage (`1..shapes().len()`); empty if that stage was not reached.
    pub fn stage_steps(&self, stage: usize) -> impl Iterator<Item = &Step> {
        self.steps.iter().filter(move |s| s.stage == stage)
    }

    /// The step PyTorch reports in its error (the rightmost clash of the failing stage), if any.
    pub fn clash(&self) -> Option<&Step> {
        self.steps.iter().find(|s| s.reported)
    }

    /// The broadcast shape, or PyTorch's RuntimeError (identical to
    /// [`infer_size_all`](crate::broadcast::infer_size_all)'s).
    pub fn result(&self) -> &Result<Vec<usize>, Error> {
        &self.result
    }

    /// Whether the shapes broadcast.
    pub fn is_ok(&self) -> bool {
        self.result.is_ok()
    }
}

/// Right-aligns each column of `rows` to its widest cell, except the columns in `left`,
/// which are left-aligned; cells are separated by two spaces, trailing spaces are trimmed.
fn table(rows: &[Vec<String>], left: &[usize]) -> Vec<String> {
    let ncol = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..ncol)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    rows.iter()
        .map(|r| {
            let cells: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(c, s)| {
                    if left.contains(&c) {
                        format!("{s:<w$}", w = widths[c])
                    } else {
                        format!("{s:>w$}", w = widths[c])
                    }
                })
                .collect();
            cells.join("  ").trim_end().to_string()
        })
        .collect()
}

fn opt(x: Option<usize>) -> String {
    x.map_or_else(|| "-".to_string(), |v| v.to_string())
}

impl fmt::Display for Explanation {
    /// The walk-through as an aligned table:
    ///
    /// * a header naming the shapes (`a`, `b` for two shapes; `shape 0`, `shape 1`, … for more);
    /// * the shapes right-aligned under their dim indices, missing leading dims as `-`, then
    ///   the `out` row, or `^` under each clashing dimension;
    /// * per pairwise step, one row per dimension from the trailing one: the dim index (as
    ///   PyTorch counts it in its error), both sizes, the resulting size (`!` for a clash) and
    ///   the rule;
    /// * the result shape (`= (5, 3, 4, 1)`) or `error: ` and PyTorch's message.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.ndim();
        let pair = self.shapes.len() == 2;
        let labels: Vec<String> = if pair {
            vec!["a".into(), "b".into()]
        } else {
            (0..self.shapes.len())
                .map(|k| format!("shape {k}"))
                .collect()
        };
        match self.shapes.len() {
            0 => return write!(f, "broadcast of no shapes\n\n= ()"),
            2 => writeln!(
                f,
                "broadcast a={} with b={}",
                fmt_tuple(&self.shapes[0]),
                fmt_tuple(&self.shapes[1])
            )?,
            _ => {
                let list: Vec<String> = self.shapes.iter().map(|s| fmt_tuple(s)).collect();
                writeln!(f, "broadcast {}", list.join(", "))?;
                if self.shapes.len() > 2 {
                    writeln!(
                        f,
                        "(folded left to right: \"tensor a\" is the shape so far, \"tensor b\" the next shape)"
                    )?;
                }
            }
        }

        // The aligned shapes, under their dim indices.
        if n > 0 {
            let mut rows: Vec<Vec<String>> = vec![
                std::iter::once("dim".to_string())
                    .chain((0..n).map(|i| i.to_string()))
                    .collect(),
            ];
            rows.extend(self.aligned().iter().zip(&labels).map(|(row, l)| {
                std::iter::once(l.clone())
                    .chain(row.iter().map(|&x| opt(x)))
                    .collect()
            }));
            let mut carets = None;
            match &self.result {
                Ok(shape) => {
                    rows.push(
                        std::iter::once("out".to_string())
                            .chain(shape.iter().map(|x| x.to_string()))
                            .collect(),
                    );
                }
                Err(_) => {
                    // Carets under the clashing columns of the failing step (its dims are
                    // counted in that step's result, which is right-aligned like the rest).
                    let stage = self.clash().map_or(0, |s| s.stage);
                    let cols: Vec<usize> = self
                        .stage_steps(stage)
                        .filter(|s| s.rule == Rule::Clash)
                        .map(|s| n - s.from_right)
                        .collect();
                    let tag = if cols.len() > 1 { "clashes" } else { "clash" };
                    let mut r = vec![String::new()];
                    r.extend((0..n).map(|c| {
                        if cols.contains(&c) {
                            "^".to_string()
                        } else {
                            String::new()
                        }
                    }));
                    carets = Some((rows.len(), tag));
                    rows.push(r);
                }
            }
            writeln!(f)?;
            for (i, line) in table(&rows, &[0]).iter().enumerate() {
                match carets {
                    Some((ci, tag)) if ci == i => writeln!(f, "  {line} {tag}")?,
                    _ => writeln!(f, "  {line}")?,
                }
            }
        }

        // The per-dimension walk, step by step.
        for (idx, (acc, stage_result)) in self.stage_inputs.iter().enumerate() {
            let stage = idx + 1;
            writeln!(f)?;
            if !pair {
                let a_name = if stage == 1 { "shape 0" } else { "so far" };
                writeln!(
                    f,
                    "  step {stage}: a={} ({a_name}) with b={} (shape {stage})",
                    fmt_tuple(acc),
                    fmt_tuple(&self.shapes[stage])
                )?;
            }
            let steps: Vec<&Step> = self.stage_steps(stage).collect();
            if steps.is_empty() {
                writeln!(f, "  (both 0-d: nothing to align)")?;
            } else {
                let mut rows = vec![vec![
                    "dim".to_string(),
                    "a".into(),
                    "b".into(),
                    "out".into(),
                    "rule".into(),
                ]];
                for s in &steps {
                    let mut rule = s.describe();
                    if s.reported {
                        rule.push_str("  <- the dimension in PyTorch's error");
                    } else if !s.checked_by_pytorch {
                        rule.push_str("  (not reached by PyTorch)");
                    }
                    let out = s.size.map_or_else(|| "!".to_string(), |v| v.to_string());
                    rows.push(vec![s.dim.to_string(), opt(s.a), opt(s.b), out, rule]);
                }
                for line in table(&rows, &[4]) {
                    writeln!(f, "  {line}")?;
                }
            }
            if let (false, Ok(s)) = (pair, stage_result) {
                writeln!(f, "  so far: {}", fmt_tuple(s))?;
            }
        }

        writeln!(f)?;
        match &self.result {
            Ok(shape) => write!(f, "= {}", fmt_tuple(shape)),
            Err(e) => write!(f, "error: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broadcast::infer_size_all;

    fn ex(shapes: &[&[usize]]) -> Explanation {
        let e = explain_broadcast(shapes);
        // The result is always infer_size_all's, error text included.
        assert_eq!(e.result(), &infer_size_all(shapes.iter().copied()));
        e
    }

    #[test]
    fn seed_pairs_match_infer_size() {
        let ok: &[(&[usize], &[usize], &[usize])] = &[
            (&[5, 7, 3], &[5, 7, 3], &[5, 7, 3]),
            (&[5, 3, 4, 1], &[3, 1, 1], &[5, 3, 4, 1]),
            (&[5, 1, 4, 1], &[3, 1, 1], &[5, 3, 4, 1]),
            (&[1], &[3, 1, 7], &[3, 1, 7]),
            (&[5, 2, 4, 1], &[1, 1], &[5, 2, 4, 1]),
            (&[5, 1, 4, 1], &[3, 1, 2], &[5, 3, 4, 2]),
            (&[4, 3], &[1, 3], &[4, 3]),
            (&[2, 3], &[2, 1], &[2, 3]),
            (&[2, 3, 2], &[3, 2], &[2, 3, 2]),
            (&[3, 4, 5], &[4, 5], &[3, 4, 5]),
            (&[3, 4], &[4], &[3, 4]),
            (&[4, 5], &[4, 1], &[4, 5]),
            (&[4, 1], &[4], &[4, 4]),
            (&[], &[3, 1, 7], &[3, 1, 7]),
            (&[0], &[1], &[0]),
            (&[2, 0], &[3, 1, 1], &[3, 2, 0]),
        ];
        for (a, b, r) in ok {
            let e = ex(&[a, b]);
            assert_eq!(e.result().as_ref().unwrap(), r);
            assert!(e.clash().is_none());
            assert_eq!(e.steps().len(), r.len());
            let sizes: Vec<usize> = e.steps().iter().rev().map(|s| s.size.unwrap()).collect();
            assert_eq!(&sizes, r);
        }
        let bad: &[(&[usize], &[usize], &str)] = &[
            (
                &[0],
                &[2, 2],
                "The size of tensor a (0) must match the size of tensor b (2) at non-singleton dimension 1",
            ),
            (
                &[5, 2, 4, 1],
                &[3, 1, 1],
                "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1",
            ),
            (
                &[3, 3],
                &[2, 3],
                "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0",
            ),
            (
                &[3, 4],
                &[12],
                "The size of tensor a (4) must match the size of tensor b (12) at non-singleton dimension 1",
            ),
        ];
        for (a, b, msg) in bad {
            let e = ex(&[a, b]);
            assert_eq!(e.result().as_ref().unwrap_err().message(), *msg);
            let c = e.clash().unwrap();
            assert_eq!(c.rule, Rule::Clash);
            assert!(msg.ends_with(&format!("dimension {}", c.dim)));
            assert!(msg.contains(&format!("tensor a ({})", c.a.unwrap())));
            assert!(msg.contains(&format!("tensor b ({})", c.b.unwrap())));
        }
    }

    #[test]
    fn rules_per_dim() {
        let e = ex(&[&[5, 3, 4, 1], &[3, 1, 1]]);
        let rules: Vec<Rule> = e.steps().iter().map(|s| s.rule).collect();
        assert_eq!(
            rules,
            vec![
                Rule::Equal,
                Rule::Stretched(Side::B),
                Rule::Equal,
                Rule::Missing(Side::B)
            ]
        );
        let dims: Vec<usize> = e.steps().iter().map(|s| s.dim).collect();
        assert_eq!(dims, vec![3, 2, 1, 0]);
        assert_eq!(e.steps()[3].b, None);
        assert_eq!(e.steps()[1].describe(), "b is 1: stretched to 4");
        assert_eq!(
            e.steps()[3].describe(),
            "b is missing: counts as 1, stretched to 5"
        );
        let e = ex(&[&[1], &[3, 1, 7]]);
        assert_eq!(e.steps()[0].rule, Rule::Stretched(Side::A));
        assert_eq!(e.steps()[1].rule, Rule::Missing(Side::A));
        assert_eq!(e.steps()[1].describe(), "a is missing: counts as 1");
    }

    #[test]
    fn aligned_shapes() {
        let e = ex(&[&[5, 3, 4, 1], &[3, 1, 1]]);
        assert_eq!(e.ndim(), 4);
        assert_eq!(
            e.aligned(),
            vec![
                vec![Some(5), Some(3), Some(4), Some(1)],
                vec![None, Some(3), Some(1), Some(1)]
            ]
        );
        assert_eq!(ex(&[&[], &[2]]).aligned(), vec![vec![None], vec![Some(2)]]);
    }

    #[test]
    fn all_clashes_shown_but_only_rightmost_reported() {
        let e = ex(&[&[3, 3], &[2, 4]]);
        assert_eq!(
            e.result().as_ref().unwrap_err().message(),
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"
        );
        let s = e.steps();
        assert_eq!(s.len(), 2);
        assert!(s[0].reported && s[0].checked_by_pytorch);
        assert!(!s[1].reported && !s[1].checked_by_pytorch);
        assert_eq!(s[1].rule, Rule::Clash);
        let text = e.to_string();
        assert!(text.contains("       ^  ^ clashes\n"), "{text}");
        assert!(
            text.contains(
                "    0  3  2    !  clash: 3 vs 2, neither is 1  (not reached by PyTorch)\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn zero_size_clash_is_explained() {
        let e = ex(&[&[0], &[2, 2]]);
        assert_eq!(
            e.clash().unwrap().describe(),
            "clash: 0 vs 2, neither is 1 (0 only matches 0 or 1)"
        );
        assert_eq!(
            ex(&[&[0], &[1]]).steps()[0].describe(),
            "b is 1: takes the other size, 0"
        );
    }

    #[test]
    fn fold_of_three_shapes() {
        // addcmul(ones(2,3), ones(3), ones(5,1)): the accumulated (2,3) against (5,1).
        let e = ex(&[&[2, 3], &[3], &[5, 1]]);
        assert_eq!(
            e.result().as_ref().unwrap_err().message(),
            "The size of tensor a (2) must match the size of tensor b (5) at non-singleton dimension 0"
        );
        let c = e.clash().unwrap();
        assert_eq!((c.stage, c.dim, c.a, c.b), (2, 0, Some(2), Some(5)));
        assert_eq!(e.stage_steps(1).count(), 2);
        // Dimension numbers are the stage's: (3,) vs (2,1,1) after (4,) gives (2,1,4) etc.
        let e = ex(&[&[4], &[2, 1, 1], &[3, 1, 3]]);
        let c = e.clash().unwrap();
        assert_eq!((c.stage, c.dim, c.a, c.b), (2, 2, Some(4), Some(3)));
        let e = ex(&[&[1], &[3, 1], &[1, 1, 5]]);
        assert_eq!(e.result().as_ref().unwrap(), &vec![1, 3, 5]);
        let text = e.to_string();
        assert!(
            text.contains("step 2: a=(3, 1) (so far) with b=(1, 1, 5) (shape 2)"),
            "{text}"
        );
        assert!(text.ends_with("= (1, 3, 5)"), "{text}");
    }

    #[test]
    fn degenerate_inputs() {
        let e = ex(&[]);
        assert_eq!(e.result().as_ref().unwrap(), &Vec::<usize>::new());
        assert_eq!(e.to_string(), "broadcast of no shapes\n\n= ()");
        let e = ex(&[&[2, 3]]);
        assert_eq!(e.result().as_ref().unwrap(), &vec![2, 3]);
        assert!(e.steps().is_empty());
        assert!(e.to_string().ends_with("= (2, 3)"));
        let e = ex(&[&[], &[]]);
        assert_eq!(e.result().as_ref().unwrap(), &Vec::<usize>::new());
        assert!(e.to_string().contains("both 0-d"));
    }

    #[test]
    fn display_pair() {
        let e = ex(&[&[5, 3, 4, 1], &[3, 1, 1]]);
        let expected = "\
broadcast a=(5, 3, 4, 1) with b=(3, 1, 1)

  dim  0  1  2  3
  a    5  3  4  1
  b    -  3  1  1
  out  5  3  4  1

  dim  a  b  out  rule
    3  1  1    1  equal
    2  4  1    4  b is 1: stretched to 4
    1  3  3    3  equal
    0  5  -    5  b is missing: counts as 1, stretched to 5

= (5, 3, 4, 1)";
        assert_eq!(e.to_string(), expected, "\n{e}");
    }

    #[test]
    fn display_clash_matches_module_docs() {
        let e = ex(&[&[5, 2, 4, 1], &[3, 1, 1]]);
        let doc: String = include_str!("explain.rs")
            .split("//! ```text\n")
            .nth(1)
            .and_then(|rest| rest.split("//! ```").next())
            .unwrap_or_default()
            .lines()
            .map(|l| {
                l.strip_prefix("//! ")
                    .or_else(|| l.strip_prefix("//!"))
                    .unwrap_or(l)
            })
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(e.to_string(), doc, "\n{e}");
    }
}
