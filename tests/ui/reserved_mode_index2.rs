//! `#[mode(index2)]` is reserved.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(index2)] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 } }
}

fn main() {}
