//! A reset returning the parameters struct.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[params] pub struct P { pub g: f64, pub e: f64 }
    #[mode(initial)] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 } }
    #[guard(flight -> flight, falling)] fn impact(x: &X) -> f64 { x.h }
    #[reset(impact)] fn bounce(p: &P) -> P { P { g: p.g, e: p.e } }
}

fn main() {}
