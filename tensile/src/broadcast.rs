//! Broadcast shape inference: PyTorch's `infer_size` (C++ message) and
//! `torch.broadcast_shapes` (Python message). Pure functions over shapes.

use crate::error::{Error, Result, fmt_tuple};
use crate::tensor::Dims;

/// `infer_size(a, b)`: align trailing dims; sizes must be equal or one of them 1 (or missing).
///
/// The result takes, per dim, the other size where one is 1 (even 0): `(0,)+(1,)` → `(0,)`.
/// Error (RuntimeError), reporting the rightmost clash with its index in the result:
/// `The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1`.
pub fn infer_size(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    infer_size_dims(a, b).map(|d| d.to_vec())
}

/// [`infer_size`] into inline dims, for the engine's hot path (no allocation for ≤ 6 dims).
pub(crate) fn infer_size_dims(a: &[usize], b: &[usize]) -> Result<Dims> {
    let n = a.len().max(b.len());
    let mut out: Dims = smallvec::smallvec![0; n];
    for i in (0..n).rev() {
        let off = n - 1 - i;
        let sa = if off < a.len() {
            a[a.len() - 1 - off]
        } else {
            1
        };
        let sb = if off < b.len() {
            b[b.len() - 1 - off]
        } else {
            1
        };
        if !(sa == sb || sa == 1 || sb == 1) {
            return Err(Error::runtime(format!(
                "The size of tensor a ({sa}) must match the size of tensor b ({sb}) at non-singleton dimension {i}"
            )));
        }
        out[i] = if sa == 1 { sb } else { sa };
    }
    Ok(out)
}

/// The broadcast shape of several shapes, folded left to right with [`infer_size`]
/// (`broadcast_tensors`, TensorIterator): "tensor a" is the shape accumulated so far.
pub fn infer_size_all<'a>(shapes: impl IntoIterator<Item = &'a [usize]>) -> Result<Vec<usize>> {
    let mut acc: Vec<usize> = Vec::new();
    for s in shapes {
        acc = infer_size(&acc, s)?;
    }
    Ok(acc)
}

/// `torch.broadcast_shapes(*shapes)`, with the Python reference's own message:
/// `Attempting to broadcast a dimension of length 2 at -1! Mismatching argument at index 1 had (2,); but expected shape should be broadcastable to [3]`.
/// A negative size gives ValueError `Attempting to broadcast a dimension with negative length!`.
pub fn broadcast_shapes(shapes: &[&[i64]]) -> Result<Vec<i64>> {
    let n = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut common = vec![1i64; n];
    for (k, shape) in shapes.iter().enumerate() {
        for j in 1..=shape.len() {
            let (c, s) = (n - j, shape.len() - j);
            if common[c] == shape[s] {
                continue;
            }
            if common[c] == 1 {
                if shape[s] < 0 {
                    return Err(Error::value(
                        "Attempting to broadcast a dimension with negative length!",
                    ));
                }
                common[c] = shape[s];
                continue;
            }
            if shape[s] == 1 {
                continue;
            }
            let common_list: Vec<String> = common.iter().map(|x| x.to_string()).collect();
            return Err(Error::runtime(format!(
                "Attempting to broadcast a dimension of length {} at -{j}! Mismatching argument at index {k} had {}; but expected shape should be broadcastable to [{}]",
                shape[s],
                fmt_tuple(shape),
                common_list.join(", ")
            )));
        }
    }
    Ok(common)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds() {
        assert_eq!(
            infer_size(&[5, 3, 4, 1], &[3, 1, 1]).unwrap(),
            vec![5, 3, 4, 1]
        );
        assert_eq!(
            infer_size(&[5, 1, 4, 1], &[3, 1, 2]).unwrap(),
            vec![5, 3, 4, 2]
        );
        assert_eq!(
            infer_size(&[5, 2, 4, 1], &[3, 1, 1]).unwrap_err().message(),
            "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"
        );
        assert_eq!(infer_size(&[0], &[1]).unwrap(), vec![0]);
        assert!(infer_size(&[0], &[2, 2]).is_err());
    }
}
