//! `einsum` subscripts: PyTorch's parsing and validation of an equation against the operands'
//! ranks, and the placement of every label in the aligned operands (output dims first, then
//! the contracted ones), as `torch.einsum` computes it without `opt_einsum`.

use crate::error::{Error, Result};

/// Letters per case.
const LETTERS: usize = 26;
/// The number of labels (`A-Z`, then `a-z`).
pub const TOTAL_LABELS: usize = 2 * LETTERS;
/// The label standing for `...` in an operand's label list.
pub const ELLIPSIS: usize = TOTAL_LABELS;

/// The label index of an ASCII letter (`A-Z` → 0..26, `a-z` → 26..52).
fn label_to_subscript(c: u8) -> usize {
    if c.is_ascii_uppercase() {
        (c - b'A') as usize
    } else {
        (c - b'a') as usize + LETTERS
    }
}

/// The letter of a label index (`0..52`).
pub fn subscript_to_label(s: usize) -> char {
    if s < LETTERS {
        (b'A' + s as u8) as char
    } else {
        (b'a' + (s - LETTERS) as u8) as char
    }
}

/// A parsed, validated `einsum` equation. The operands are aligned to `perm_len` dims: the
/// `out_num_dim` output dims (the ellipsis dims at `ell_index..ell_index + ell_num_dim`, the
/// output labels at their `label_perm_index`), then the contracted labels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subscripts {
    /// Each operand's labels in order ([`ELLIPSIS`] for `...`).
    pub op_labels: Vec<Vec<usize>>,
    /// Each label's dim among the aligned dims (`-1`: the label is not used).
    pub label_perm_index: Vec<i64>,
    /// The number of dims the ellipsis covers (the most any operand gives it).
    pub ell_num_dim: usize,
    /// The first aligned dim of the ellipsis.
    pub ell_index: usize,
    /// The number of output dims.
    pub out_num_dim: usize,
    /// The number of aligned dims (output and contracted).
    pub perm_len: usize,
}

/// Parses `equation` for operands of ranks `ndims`, in PyTorch's order of checks. Spaces are
/// ignored; without `->` the output is the ellipsis dims then the labels seen once, in
/// alphabetical order (capitals first).
///
/// Errors (RuntimeError): `einsum(): must provide at least one operand`; `einsum(): found '.'
/// for operand 0 for which an ellipsis was already found`; `einsum(): found '.' for operand 0
/// that is not part of any ellipsis`; `einsum(): fewer operands were provided than specified
/// in the equation`; `einsum(): invalid subscript given at index 2 in the equation string,
/// subscripts must be in [a-zA-Z]`; `einsum(): more operands were provided than specified in
/// the equation`; `einsum(): the number of subscripts in the equation (2) does not match the
/// number of dimensions (3) for operand 0 and no ellipsis was given` (with an ellipsis: `(3)
/// is more than the number of dimensions (2) for operand 0`); `einsum(): found '.' for output
/// but an ellipsis (...) was already found`; `einsum(): found '.' for output that is not part
/// of any ellipsis (...)`; `einsum(): output subscript k does not appear in the equation for
/// any input operand`; `einsum(): output subscript i appears more than once in the output`.
pub fn parse(equation: &str, ndims: &[usize]) -> Result<Subscripts> {
    if ndims.is_empty() {
        return Err(Error::runtime(
            "einsum(): must provide at least one operand",
        ));
    }
    let num_ops = ndims.len();
    let eq = equation.as_bytes();
    let arrow = equation.find("->");
    let lhs = &eq[..arrow.unwrap_or(eq.len())];

    let mut op_labels: Vec<Vec<usize>> = vec![Vec::new(); num_ops];
    let mut ell_in_input = false;
    let mut curr = 0usize;
    let mut i = 0usize;
    while i < lhs.len() {
        let c = lhs[i];
        match c {
            b' ' => {}
            b'.' => {
                if ell_in_input {
                    return Err(Error::runtime(format!(
                        "einsum(): found '.' for operand {curr} for which an ellipsis was already found"
                    )));
                }
                if !(i + 2 < lhs.len() && lhs[i + 1] == b'.' && lhs[i + 2] == b'.') {
                    return Err(Error::runtime(format!(
                        "einsum(): found '.' for operand {curr} that is not part of any ellipsis"
                    )));
                }
                i += 2;
                op_labels[curr].push(ELLIPSIS);
                ell_in_input = true;
            }
            b',' => {
                curr += 1;
                if curr >= num_ops {
                    return Err(Error::runtime(
                        "einsum(): fewer operands were provided than specified in the equation",
                    ));
                }
                ell_in_input = false;
            }
            _ => {
                if !c.is_ascii_alphabetic() {
                    return Err(Error::runtime(format!(
                        "einsum(): invalid subscript given at index {i} in the equation string, subscripts must be in [a-zA-Z]"
                    )));
                }
                op_labels[curr].push(label_to_subscript(c));
            }
        }
        i += 1;
    }
    if curr != num_ops - 1 {
        return Err(Error::runtime(
            "einsum(): more operands were provided than specified in the equation",
        ));
    }

    let mut label_count = [0i64; TOTAL_LABELS];
    let mut ell_num_dim = 0usize;
    for (i, (&nd, labels)) in ndims.iter().zip(&op_labels).enumerate() {
        let ndims = nd as i64;
        let mut nlabels = labels.len() as i64;
        let mut has_ell = false;
        for &l in labels {
            if l == ELLIPSIS {
                nlabels -= 1;
                has_ell = true;
                ell_num_dim = ell_num_dim.max((ndims - nlabels).max(0) as usize);
            } else {
                label_count[l] += 1;
            }
        }
        let ok = if has_ell {
            nlabels <= ndims
        } else {
            nlabels == ndims
        };
        if !ok {
            return Err(Error::runtime(format!(
                "einsum(): the number of subscripts in the equation ({nlabels}{}{ndims}) for operand {i}{}",
                if has_ell {
                    ") is more than the number of dimensions ("
                } else {
                    ") does not match the number of dimensions ("
                },
                if has_ell {
                    ""
                } else {
                    " and no ellipsis was given"
                }
            )));
        }
    }

    let mut label_perm_index = vec![-1i64; TOTAL_LABELS];
    let mut perm_index = 0usize;
    let mut ell_index = 0usize;
    let mut ell_in_output = false;
    match arrow {
        None => {
            perm_index = ell_num_dim;
            ell_in_output = true;
            for l in 0..TOTAL_LABELS {
                if label_count[l] == 1 {
                    label_perm_index[l] = perm_index as i64;
                    perm_index += 1;
                }
            }
        }
        Some(pos) => {
            let rhs = &eq[pos + 2..];
            let mut i = 0usize;
            while i < rhs.len() {
                let c = rhs[i];
                match c {
                    b' ' => {}
                    b'.' => {
                        if ell_in_output {
                            return Err(Error::runtime(
                                "einsum(): found '.' for output but an ellipsis (...) was already found",
                            ));
                        }
                        if !(i + 2 < rhs.len() && rhs[i + 1] == b'.' && rhs[i + 2] == b'.') {
                            return Err(Error::runtime(
                                "einsum(): found '.' for output that is not part of any ellipsis (...)",
                            ));
                        }
                        i += 2;
                        ell_index = perm_index;
                        perm_index += ell_num_dim;
                        ell_in_output = true;
                    }
                    _ => {
                        if !c.is_ascii_alphabetic() {
                            return Err(Error::runtime(format!(
                                "einsum(): invalid subscript given at index {} in the equation string, subscripts must be in [a-zA-Z]",
                                lhs.len() + 2 + i
                            )));
                        }
                        let s = label_to_subscript(c);
                        if !(label_count[s] > 0 && label_perm_index[s] == -1) {
                            return Err(Error::runtime(format!(
                                "einsum(): output subscript {}{}",
                                c as char,
                                if label_perm_index[s] > -1 {
                                    " appears more than once in the output"
                                } else {
                                    " does not appear in the equation for any input operand"
                                }
                            )));
                        }
                        label_perm_index[s] = perm_index as i64;
                        perm_index += 1;
                    }
                }
                i += 1;
            }
        }
    }
    let out_num_dim = perm_index;
    if !ell_in_output {
        ell_index = perm_index;
        perm_index += ell_num_dim;
    }
    for l in 0..TOTAL_LABELS {
        if label_count[l] > 0 && label_perm_index[l] == -1 {
            label_perm_index[l] = perm_index as i64;
            perm_index += 1;
        }
    }
    Ok(Subscripts {
        op_labels,
        label_perm_index,
        ell_num_dim,
        ell_index,
        out_num_dim,
        perm_len: perm_index,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn lab(c: char) -> usize {
        label_to_subscript(c as u8)
    }

    #[test]
    fn implicit_and_explicit_outputs() {
        // "ij,jk": output ik (labels seen once, alphabetical), j contracted last
        let s = parse("ij,jk", &[2, 2]).unwrap();
        assert_eq!(s.out_num_dim, 2);
        assert_eq!(s.perm_len, 3);
        assert_eq!(s.label_perm_index[lab('i')], 0);
        assert_eq!(s.label_perm_index[lab('k')], 1);
        assert_eq!(s.label_perm_index[lab('j')], 2);
        // capitals sort first: "bA" gives output "Ab"
        let s = parse("bA", &[2]).unwrap();
        assert_eq!(s.label_perm_index[lab('A')], 0);
        assert_eq!(s.label_perm_index[lab('b')], 1);
        // an ellipsis of 2 dims in front by default, where "->" puts it explicitly
        let s = parse("...ij->j...", &[4]).unwrap();
        assert_eq!(
            (s.ell_num_dim, s.ell_index, s.out_num_dim, s.perm_len),
            (2, 1, 3, 4)
        );
        assert_eq!(s.op_labels[0], vec![ELLIPSIS, lab('i'), lab('j')]);
        assert_eq!(subscript_to_label(lab('q')), 'q');
    }

    /// PyTorch's messages (`torch.einsum`).
    #[test]
    fn errors_match_pytorch() {
        let e = |eq: &str, nd: &[usize]| parse(eq, nd).unwrap_err().message().to_string();
        assert_eq!(e("ij", &[]), "einsum(): must provide at least one operand");
        assert_eq!(
            e("ij", &[3]),
            "einsum(): the number of subscripts in the equation (2) does not match the number of dimensions (3) for operand 0 and no ellipsis was given"
        );
        assert_eq!(
            e("ij...k", &[2]),
            "einsum(): the number of subscripts in the equation (3) is more than the number of dimensions (2) for operand 0"
        );
        assert_eq!(
            e("i,j", &[1]),
            "einsum(): fewer operands were provided than specified in the equation"
        );
        assert_eq!(
            e("i", &[1, 1]),
            "einsum(): more operands were provided than specified in the equation"
        );
        assert_eq!(
            e("i1", &[2]),
            "einsum(): invalid subscript given at index 1 in the equation string, subscripts must be in [a-zA-Z]"
        );
        assert_eq!(
            e("ij->k", &[2]),
            "einsum(): output subscript k does not appear in the equation for any input operand"
        );
        assert_eq!(
            e("ij->ii", &[2]),
            "einsum(): output subscript i appears more than once in the output"
        );
        assert_eq!(
            e("i..j", &[2]),
            "einsum(): found '.' for operand 0 that is not part of any ellipsis"
        );
    }

    proptest! {
        /// Any equation over any ranks parses or errors, never panics; a parsed one places
        /// every used label once, inside the aligned dims, the output labels first.
        #[test]
        fn parse_never_panics(eq in "[a-dA-B.,> -]{0,14}", ndims in proptest::collection::vec(0usize..5, 0..4)) {
            if let Ok(s) = parse(&eq, &ndims) {
                let mut seen: Vec<i64> = s.label_perm_index.iter().copied().filter(|&p| p >= 0).collect();
                seen.sort_unstable();
                let n = seen.len();
                seen.dedup();
                prop_assert_eq!(seen.len(), n);
                prop_assert!(seen.iter().all(|&p| (p as usize) < s.perm_len));
                prop_assert_eq!(s.perm_len, n + s.ell_num_dim);
                prop_assert!(s.out_num_dim <= s.perm_len);
                prop_assert!(s.ell_index + s.ell_num_dim <= s.perm_len);
                prop_assert_eq!(s.op_labels.len(), ndims.len());
            }
        }
    }
}
