//! Unknown names in attributes (the guard of `initial_if`, a guard's target mode, a switching
//! surface's mode) and the mistakes in the functions' bodies are reported in one compilation.
//! A function whose signature is wrong (a guard returning the states) is reported once: its
//! body, which cannot be read as a guard's, adds nothing.
use hysens::hybrid_model;

#[hybrid_model] mod relay {
    #[states] pub struct X { pub x: f64, pub y: f64 }
    #[params] pub struct P { pub c: f64 }
    #[mode(initial_if(wal, negative))] fn below(x: &X) -> X { X { x: 1.0, y: x.y.powi(n) } }
    #[mode(initial)] fn above(_x: &X, p: &P) -> X { X { x: -p.c, y: 1 } }
    #[guard(above -> stuck, falling)] fn fall(x: &X) -> X { X { x: x.x, y: x.y } }
    #[switching_surface(below, abvoe)] fn wall(x: &X, p: &P) -> f64 { x.x - p.d }
}

fn main() {}
