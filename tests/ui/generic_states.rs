//! A generic states struct.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X<T> { pub h: T, pub v: T }
    #[mode(initial)] fn flight(x: &X<f64>) -> X<f64> { X { h: x.v, v: -9.81 } }
}

fn main() {}
