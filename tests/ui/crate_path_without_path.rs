//! `crate =` needs a path.
use hysens::hybrid_model;

#[hybrid_model(crate = )] mod ball {
    #[states] pub struct X { pub h: f64 }
    #[mode(initial)] fn decay(x: &X) -> X { X { h: -x.h } }
}

fn main() {}
