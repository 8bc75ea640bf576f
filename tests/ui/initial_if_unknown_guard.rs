//! The first mode is chosen by a guard that does not exist.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(initial_if(above, positive))] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 } }
}

fn main() {}
