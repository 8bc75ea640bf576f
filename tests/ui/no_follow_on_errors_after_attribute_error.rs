//! A malformed attribute (an unknown crossing direction, a mistake `parse` finds) is the only
//! error: the reset naming that guard is not also called unknown, and the code below, which
//! uses the generated items, reports nothing of its own.
use hysens::hybrid_model;

#[hybrid_model] pub mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[params] pub struct P { pub g: f64, pub e: f64 }
    #[mode(initial)] fn flight(x: &X, p: &P) -> X { X { h: x.v, v: -p.g } }
    #[guard(flight -> flight, downward)] fn impact(x: &X, _p: &P) -> f64 { x.h }
    #[reset(impact)] pub fn bounce(x: &X, p: &P) -> X { X { h: x.h, v: -p.e * x.v } }
    #[output] fn energy(x: &X, p: &P) -> f64 { 0.5 * x.v * x.v + p.g * x.h }
}

fn main() {
    let x = ball::X::from_array([1.0, 0.0]);
    let _ = (x.to_array(), ball::Model::OUTPUT_NAMES, ball::Model::mode_name(0));
    let _ = ball::bounce(&x, &ball::P { g: 9.81, e: 0.9 });
}
