//! A helper called with the wrong number of arguments.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    fn drag(v: f64, c: f64) -> f64 { c * v * v }
    #[mode(initial)] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 - drag(x.v) } }
}

fn main() {}
