//! A guard has the same name as a mode.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(initial)] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 } }
    #[guard(flight -> flight, falling)] fn flight(x: &X) -> f64 { x.h }
}

fn main() {}
