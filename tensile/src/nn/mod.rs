//! `torch.nn`: for now its functional half, [`functional`] (`use tensile::nn::functional as F;`).
pub mod functional;
pub(crate) mod pad;
