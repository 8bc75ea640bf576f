//! An `if` in a guard.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(initial)] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 } }
    #[guard(flight -> flight, falling)] fn impact(x: &X) -> f64 { if x.v < 0.0 { x.h } else { 1.0 } }
}

fn main() {}
