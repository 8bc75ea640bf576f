//! `#[hybrid_model]` on a function instead of a module.
use hysens::hybrid_model;

#[hybrid_model]
fn ball() {}

fn main() {}
