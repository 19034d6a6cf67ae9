//! `torch.nn`: for now its functional half, [`functional`] (`use tensile::nn::functional as F;`).
pub(crate) mod activation;
pub(crate) mod attention;
pub(crate) mod conv;
pub(crate) mod distance;
pub(crate) mod dropout;
pub(crate) mod embedding;
pub mod functional;
pub(crate) mod interpolate;
pub(crate) mod loss;
pub(crate) mod loss_class;
pub(crate) mod loss_fast;
pub mod loss_opts;
pub(crate) mod norm;
pub(crate) mod pad;
pub(crate) mod pixel_shuffle;
pub(crate) mod pool;
pub(crate) mod rnn;
