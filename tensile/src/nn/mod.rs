//! `torch.nn`: for now its functional half, [`functional`] (`use tensile::nn::functional as F;`).
pub(crate) mod activation;
pub mod functional;
pub(crate) mod pad;
pub(crate) mod rnn;
