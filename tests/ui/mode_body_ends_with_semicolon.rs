//! A mode body whose value is a statement.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[params] pub struct P { pub g: f64, pub e: f64 }
    #[mode(initial)] fn flight(x: &X, p: &P) -> X { return X { h: x.v, v: -p.g }; }
}

fn main() {}
