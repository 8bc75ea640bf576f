//! An unknown guard in `#[reset(..)]` hides none of the model's other mistakes: those in the
//! functions' bodies (an `if` in a mode, an integer literal in a guard, an unknown field in the
//! reset itself, an unsupported `max` in a cost) are reported with it, each at its span. The
//! code below, which uses the model, reports nothing.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[params] pub struct P { pub g: f64, pub e: f64 }
    #[mode(initial)] fn flight(x: &X, p: &P) -> X { X { h: x.v, v: if x.h > 0.0 { -p.g } else { 0.0 } } }
    #[guard(flight -> flight, falling)] fn impact(x: &X) -> f64 { 2 * x.h }
    #[reset(impakt)] fn bounce(x: &X, p: &P) -> X { X { h: x.h, v: -p.e * x.w } }
    #[cost(terminal)] fn height(x: &X) -> f64 { x.h.max(0.0) }
}

fn main() {
    let _ = (ball::Model::NP, ball::P::NAMES, ball::Model::guard_name(0));
}
