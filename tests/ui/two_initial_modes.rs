//! Two modes both marked initial.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(initial)] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 } }
    #[mode(initial)] fn resting(_x: &X) -> X { X { h: 0.0, v: 0.0 } }
}

fn main() {}
