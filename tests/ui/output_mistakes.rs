//! Outputs of the wrong shape, each reported at its own span: a return type that is not one
//! `f64`, an `f64` parameter that is not the time (an output has no datum), and a function the
//! model language does not have.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[params] pub struct P { pub g: f64 }
    #[mode(initial)] fn flight(x: &X, p: &P) -> X { X { h: x.v, v: -p.g } }
    #[output] fn state(x: &X) -> X { X { h: x.h, v: x.v } }
    #[output] fn misfit(x: &X, d: f64) -> f64 { x.h - d }
    #[output] fn smooth_height(x: &X) -> f64 { erf(x.h) }
    #[output] fn height(x: &X) -> f64 { x.h }
}

fn main() {
    // The model's names still compile next to its errors.
    let _ = ball::Model::OUTPUT_NAMES;
}
