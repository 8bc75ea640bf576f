//! A DAE mode in a model with no `#[algebraic]` struct.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(initial)] fn flight(x: &X) -> (X, [f64; 1]) { (X { h: x.v, v: -9.81 }, [x.h]) }
}

fn main() {}
