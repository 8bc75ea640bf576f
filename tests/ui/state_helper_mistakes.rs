//! Helpers that return the states: one calls a function the symbolic engine does not know,
//! one leaves a state out.
use hysens::hybrid_model;

fn gravity() -> f64 { 9.81 }

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    fn falling(x: &X) -> X { X { h: x.v, v: -super::gravity() } }
    fn resting(x: &X) -> X { X { h: 0.0 * x.h } }
    #[mode(initial)] fn flight(x: &X) -> X { falling(x) }
    #[mode] fn rest(x: &X) -> X { resting(x) }
    #[guard(flight -> rest, falling)] fn lands(x: &X) -> f64 { x.h }
}

fn main() {}
