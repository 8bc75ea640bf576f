//! A reset names a guard that does not exist.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(initial)] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 } }
    #[guard(flight -> flight, falling)] fn impact(x: &X) -> f64 { x.h }
    #[reset(impakt)] fn bounce(x: &X) -> X { X { h: x.h, v: -x.v } }
}

fn main() {}
