//! An `#[initial_state]` function that leaves a state out.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[params] pub struct P { pub v0: f64 }
    #[initial_state] fn thrown(x: &X, p: &P) -> X { X { h: x.h } }
    #[mode(initial)] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 } }
}

fn main() {}
