//! `store =` takes `heap` or `inline`.
use hysens::hybrid_model;

#[hybrid_model(store = stack)] mod ball {
    #[states] pub struct X { pub h: f64 }
    #[mode(initial)] fn decay(x: &X) -> X { X { h: -x.h } }
}

fn main() {}
