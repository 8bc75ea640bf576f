//! A ball's initial state `X { h, v }` and its parameters `P { g, e }` are both two numbers.
//! The builder takes the model's own types, so passing them swapped is a compile error (not a
//! solve with `g = 1, e = 0` that returns `Ok`, issue #19), for `solve` and `gradient` alike.
use hysens::prelude::*;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[params] pub struct P { pub g: f64, pub e: f64 }
    #[mode(initial)] fn flight(x: &X, p: &P) -> X { X { h: x.v, v: -p.g } }
    #[guard(flight -> flight, falling)] fn impact(x: &X) -> f64 { x.h }
    #[reset(impact)] fn bounce(x: &X, p: &P) -> X { X { h: x.h, v: -p.e * x.v } }
}

fn main() {
    let x0 = ball::X { h: 1.0, v: 0.0 };
    let p = ball::P { g: 9.81, e: 0.9 };
    let _ = ball::Model.solver().solve(0.0, 1.0, &p, &x0);
    let _ = ball::Model.solver().gradient(0.0, 1.0, &p, &x0);
}
