//! `initial_if` without the sign of the guard.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(initial_if(above))] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 } }
    #[mode] fn resting(_x: &X) -> X { X { h: 0.0, v: 0.0 } }
    #[guard(resting -> flight, rising)] fn above(x: &X) -> f64 { x.h - 1.0 }
}

fn main() {}
