//! A mode returning `f64` instead of the states.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(initial)] fn flight(x: &X) -> f64 { x.v }
}

fn main() {}
