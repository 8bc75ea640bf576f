//! Integral costs limited to modes: an unknown mode, and `modes(..)` on a terminal cost.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(initial)] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 } }
    #[cost(integral, modes(flight, contact))] fn effort(x: &X) -> f64 { x.v * x.v }
    #[cost(terminal, modes(flight))] fn height(x: &X) -> f64 { x.h }
}

fn main() {}
