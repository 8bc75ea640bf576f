//! An `f64` parameter that is not named `t`.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(initial)] fn flight(x: &X, time: f64) -> X { X { h: x.v, v: -9.81 * time } }
}

fn main() {}
