//! The core group: Normal (the trait's defaults, validation, repr, expand).

use tensile::Result;
use tensile::distributions::*;

use crate::common::Params;

pub fn build(name: &str, p: &Params, validate: bool) -> Option<Result<Box<dyn Distribution>>> {
    let d: Result<Box<dyn Distribution>> = match name {
        "Normal" => {
            Normal::new_with(p.op("loc"), p.op("scale"), validate).map(|d| Box::new(d) as _)
        }
        _ => return None,
    };
    Some(d)
}
