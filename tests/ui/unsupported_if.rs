//! An `if` in a mode: switching belongs in modes and guards.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[params] pub struct P { pub g: f64, pub e: f64 }
    #[mode(initial)] fn flight(x: &X, p: &P) -> X { X { h: x.v, v: if x.h > 0.0 { -p.g } else { 0.0 } } }
}

fn main() {}
