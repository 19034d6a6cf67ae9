//! `torch.nn`: for now its functional half, [`functional`] (`use tensile::nn::functional as F;`).
pub(crate) mod activation;
pub(crate) mod conv;
pub mod functional;
pub(crate) mod pad;
