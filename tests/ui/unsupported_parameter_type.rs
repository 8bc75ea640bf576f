//! A mode parameter of a type the macro does not know.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[params] pub struct P { pub g: f64, pub e: f64 }
    #[mode(initial)] fn flight(x: &X, p: &P, n: usize) -> X { X { h: x.v, v: -p.g * n } }
}

fn main() {}
