//! Several unsupported expressions in different functions: all are reported.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[params] pub struct P { pub g: f64, pub e: f64 }
    #[mode(initial)] fn flight(x: &X, p: &P) -> X { X { h: x.v * 2, v: -p.g.min(x.h) } }
    #[guard(flight -> flight, falling)] fn impact(x: &X) -> f64 { x.height }
    #[output] fn energy(x: &X, p: &P) -> f64 { p.g * x.h + 0.5 * x.v.powi(two) }
}

fn main() {}
