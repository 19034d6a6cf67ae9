//! Helpers shared by the layers.

use crate::Tensor;
use crate::dtype::DType;
use crate::error::Result;

/// The `type_name` and `training_flag` methods of a layer struct with a `training` field.
macro_rules! module_common {
    ($name:literal) => {
        fn type_name(&self) -> &'static str {
            $name
        }
        fn training_flag(&self) -> &$crate::nn::modules::module::Training {
            &self.training
        }
    };
}

/// An uninitialised tensor for a parameter (filled by the caller, then
/// [`into_param`]).
pub(crate) fn empty(shape: &[usize], dtype: DType) -> Result<Tensor> {
    Tensor::zeros_with(shape, dtype)
}

/// Marks an initialised tensor as a parameter (a leaf requiring grad).
pub(crate) fn into_param(t: Tensor) -> Result<Tensor> {
    t.requires_grad_(true)
}

/// `("name", tensor)` for the local-state lists.
pub(crate) fn named(name: &str, t: &Tensor) -> (String, Tensor) {
    (name.to_string(), t.alias())
}
