//! Mistakes of different kinds, found by different stages of the macro, in one compilation:
//! the arguments (an unknown argument), the attributes (an unknown cost kind, an unknown
//! direction), the variable structs (a field that is not `f64`), the names (a guard to an
//! unknown mode, a reset for an unknown guard, a duplicate name) and the signatures (a mode
//! without a return type, a cost returning the states).
use hysens::hybrid_model;

#[hybrid_model(stiff)] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[params] pub struct P { pub g: f64, pub e: i32 }
    #[mode(initial)] fn flight(x: &X, p: &P) -> X { X { h: x.v, v: -p.g } }
    #[mode] fn resting(x: &X) {}
    #[guard(flight -> landed, falling)] fn impact(x: &X) -> f64 { x.h }
    #[guard(resting -> flight, upward)] fn lift(x: &X) -> f64 { x.v }
    #[reset(impakt)] fn bounce(x: &X) -> X { X { h: x.h, v: -x.v } }
    #[cost(final)] fn height(x: &X) -> f64 { x.h }
    #[cost(terminal)] fn state(x: &X) -> X { X { h: x.h, v: x.v } }
    fn flight(x: &X) -> f64 { x.h }
}

fn main() {}
