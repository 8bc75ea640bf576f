//! The guard that picks the first mode reads the memory, which no mode entry has set at t0.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(initial_if(above, positive))] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 } }
    #[mode] fn resting(_x: &X) -> X { X { h: 0.0, v: 0.0 } }
    #[guard(resting -> flight, rising)] fn above(x: &X, m: &Memory) -> f64 { x.h - m.y.h }
}

fn main() {}
