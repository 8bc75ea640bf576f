//! A malformed attribute (found while reading the module) and an expression the macro cannot
//! differentiate (found while lowering the functions) are reported together; the code below,
//! which uses the model, reports nothing.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[params] pub struct P { pub g: f64, pub e: f64 }
    #[mode(initial)] fn flight(x: &X, p: &P) -> X { X { h: x.v, v: if x.h > 0.0 { -p.g } else { 0.0 } } }
    #[guard(flight)] fn impact(x: &X) -> f64 { x.h }
    #[cost(terminal)] fn height(x: &X) -> f64 { 2 * x.h }
}

fn main() { let _ = (ball::Model::NP, ball::P::NAMES); }
