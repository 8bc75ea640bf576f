//! `#[hybrid_model]` on a module declared without a body.
use hysens::hybrid_model;

#[hybrid_model]
mod ball;

fn main() {}
