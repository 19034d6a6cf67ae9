//! `torch.utils.data.default_collate` and `default_convert`, as a trait over sample types.

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

use crate::Tensor;
use crate::dtype::DType;
use crate::error::{Error, Result};

/// A sample type that `default_collate` knows: how a list of samples becomes one batch.
///
/// | sample | batch (PyTorch's `default_collate`) |
/// |---|---|
/// | `Tensor` | `torch.stack(samples, 0)` |
/// | `f64`, `f32` | a float64 tensor (`torch.tensor(samples, dtype=torch.float64)`) |
/// | `i64`, `i32`, `usize`, … | an int64 tensor (`torch.tensor(samples)`) |
/// | `bool` | a bool tensor |
/// | `String` | the list of strings |
/// | a tuple `(A, B, …)` | a tuple of the collated fields (PyTorch returns a list of them) |
/// | `Vec<T>` | one collated batch per position: `Vec<T::Batch>` |
/// | `BTreeMap<K, T>` / `HashMap<K, T>` | one collated batch per key |
pub trait Collate: Sized + Send + 'static {
    /// The collated batch.
    type Batch: Send + 'static;

    /// `default_collate(samples)` for a non-empty list.
    ///
    /// Errors: RuntimeError `stack expects each tensor to be equal size, but got [2] at entry
    /// 0 and [3] at entry 1` (tensors of different shapes); RuntimeError `each element in
    /// list of batch should be of equal size` (lists of different lengths); KeyError naming a
    /// key that a later map lacks (`'b'`).
    fn collate(samples: Vec<Self>) -> Result<Self::Batch>;

    /// `default_convert(sample)`, used when the loader does not batch (`batch_size: None`):
    /// a tensor as it is, a number as a 0-d tensor (PyTorch leaves a Python number as it is;
    /// here one loader yields one type), containers field by field.
    fn convert(sample: Self) -> Result<Self::Batch> {
        Self::collate(vec![sample])
    }
}

impl Collate for Tensor {
    type Batch = Tensor;
    fn collate(samples: Vec<Tensor>) -> Result<Tensor> {
        crate::stack(&samples)
    }
    fn convert(sample: Tensor) -> Result<Tensor> {
        Ok(sample)
    }
}

macro_rules! collate_numbers {
    ($dt:expr, $conv:ty => $($t:ty),*) => {$(
        impl Collate for $t {
            type Batch = Tensor;
            fn collate(samples: Vec<$t>) -> Result<Tensor> {
                let n = samples.len();
                let v: Vec<$conv> = samples.into_iter().map(|x| x as $conv).collect();
                Tensor::from_vec(v, [n])?.to($dt)
            }
            fn convert(sample: $t) -> Result<Tensor> {
                Tensor::from_vec(vec![sample as $conv], [0usize; 0])?.to($dt)
            }
        }
    )*};
}
collate_numbers!(DType::Float64, f64 => f64, f32);
collate_numbers!(DType::Int64, i64 => i64, i32, i16, i8, u32, u16, u8, usize);

impl Collate for bool {
    type Batch = Tensor;
    fn collate(samples: Vec<bool>) -> Result<Tensor> {
        let n = samples.len();
        Tensor::from_vec(samples, [n])
    }
    fn convert(sample: bool) -> Result<Tensor> {
        Tensor::from_vec(vec![sample], [0usize; 0])
    }
}

impl Collate for String {
    type Batch = Vec<String>;
    fn collate(samples: Vec<String>) -> Result<Vec<String>> {
        Ok(samples)
    }
    fn convert(sample: String) -> Result<Vec<String>> {
        Ok(vec![sample])
    }
}

impl<T: Collate> Collate for Vec<T> {
    type Batch = Vec<T::Batch>;
    fn collate(samples: Vec<Vec<T>>) -> Result<Vec<T::Batch>> {
        let k = samples.first().map_or(0, Vec::len);
        if samples.iter().any(|s| s.len() != k) {
            return Err(Error::runtime(
                "each element in list of batch should be of equal size",
            ));
        }
        let mut cols: Vec<Vec<T>> = (0..k).map(|_| Vec::with_capacity(samples.len())).collect();
        for s in samples {
            for (c, x) in cols.iter_mut().zip(s) {
                c.push(x);
            }
        }
        cols.into_iter().map(T::collate).collect()
    }
    fn convert(sample: Vec<T>) -> Result<Vec<T::Batch>> {
        sample.into_iter().map(T::convert).collect()
    }
}

/// A map's batch, key by key: the first sample's keys, each taken out of every sample (KeyError
/// `'b'` when one lacks it) and its column collated.
fn collate_columns<K: std::fmt::Debug, T: Collate, M>(
    samples: &mut [M],
    keys: Vec<K>,
    take: impl Fn(&mut M, &K) -> Option<T>,
) -> Result<Vec<(K, T::Batch)>> {
    keys.into_iter()
        .map(|k| {
            let col = samples
                .iter_mut()
                .map(|m| take(m, &k).ok_or_else(|| Error::key(format!("{k:?}").replace('"', "'"))))
                .collect::<Result<Vec<T>>>()?;
            Ok((k, T::collate(col)?))
        })
        .collect()
}

impl<K: Ord + Clone + Send + std::fmt::Debug + 'static, T: Collate> Collate for BTreeMap<K, T> {
    type Batch = BTreeMap<K, T::Batch>;
    /// The first sample's keys; each is looked up in every sample (KeyError when missing).
    fn collate(mut samples: Vec<BTreeMap<K, T>>) -> Result<Self::Batch> {
        let keys = samples
            .first()
            .map_or(Vec::new(), |m| m.keys().cloned().collect());
        Ok(collate_columns(&mut samples, keys, |m, k| m.remove(k))?
            .into_iter()
            .collect())
    }
    fn convert(sample: BTreeMap<K, T>) -> Result<Self::Batch> {
        sample
            .into_iter()
            .map(|(k, v)| Ok((k, T::convert(v)?)))
            .collect()
    }
}

impl<K: Eq + Hash + Clone + Send + std::fmt::Debug + 'static, T: Collate> Collate
    for HashMap<K, T>
{
    type Batch = HashMap<K, T::Batch>;
    /// The first sample's keys; each is looked up in every sample (KeyError when missing).
    fn collate(mut samples: Vec<HashMap<K, T>>) -> Result<Self::Batch> {
        let keys = samples
            .first()
            .map_or(Vec::new(), |m| m.keys().cloned().collect());
        Ok(collate_columns(&mut samples, keys, |m, k| m.remove(k))?
            .into_iter()
            .collect())
    }
    fn convert(sample: HashMap<K, T>) -> Result<Self::Batch> {
        sample
            .into_iter()
            .map(|(k, v)| Ok((k, T::convert(v)?)))
            .collect()
    }
}

macro_rules! collate_tuple {
    ($($T:ident $v:ident $i:tt),+) => {
        impl<$($T: Collate),+> Collate for ($($T,)+) {
            type Batch = ($($T::Batch,)+);
            fn collate(samples: Vec<Self>) -> Result<Self::Batch> {
                $(let mut $v = Vec::with_capacity(samples.len());)+
                for s in samples {
                    $($v.push(s.$i);)+
                }
                Ok(($($T::collate($v)?,)+))
            }
            fn convert(sample: Self) -> Result<Self::Batch> {
                Ok(($($T::convert(sample.$i)?,)+))
            }
        }
    };
}
collate_tuple!(A a 0);
collate_tuple!(A a 0, B b 1);
collate_tuple!(A a 0, B b 1, C c 2);
collate_tuple!(A a 0, B b 1, C c 2, D d 3);
collate_tuple!(A a 0, B b 1, C c 2, D d 3, E e 4);
collate_tuple!(A a 0, B b 1, C c 2, D d 3, E e 4, F f 5);

/// `torch.utils.data.default_collate(batch)`: see [`Collate`]. Errors as
/// [`Collate::collate`]; an empty batch is IndexError `list index out of range` (PyTorch
/// reads `batch[0]`).
pub fn default_collate<T: Collate>(batch: Vec<T>) -> Result<T::Batch> {
    if batch.is_empty() {
        return Err(Error::index("list index out of range"));
    }
    T::collate(batch)
}

/// `torch.utils.data.default_convert(data)`: see [`Collate::convert`].
pub fn default_convert<T: Collate>(data: T) -> Result<T::Batch> {
    T::convert(data)
}
