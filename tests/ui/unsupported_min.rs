//! `min` is not smooth.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(initial)] fn flight(x: &X) -> X { X { h: x.v.min(0.0), v: -9.81 } }
}

fn main() {}
