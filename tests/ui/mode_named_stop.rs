//! A mode named `stop`: the name is the target of terminal guards.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(initial)] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 } }
    #[mode] fn stop(x: &X) -> X { X { h: 0.0 * x.h, v: 0.0 } }
    #[guard(flight -> stop, falling)] fn impact(x: &X) -> f64 { x.h }
}

fn main() {}
