//! Several independent mistakes: all are reported in one compilation.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f32 }
    #[mode(initial)] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 } }
    #[guard(flight -> landed, falling)] fn impact(x: &X) -> f64 { x.h }
    #[reset(impakt)] fn bounce(x: &X) -> X { X { h: x.h, v: -x.v } }
}

fn main() {}
