//! A guard watched in `stop`: a terminal guard ends the solve, nothing follows it.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(initial)] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 } }
    #[guard(flight -> stop, falling)] fn impact(x: &X) -> f64 { x.h }
    #[guard(stop -> flight, rising)] fn restart(x: &X) -> f64 { x.v }
}

fn main() {}
