//! A mistake in a mode's body does not hide one in a switching surface's body: every body is
//! read, even though the sliding mode, which needs both, cannot be built.
use hysens::hybrid_model;

#[hybrid_model] mod relay {
    #[states] pub struct X { pub x: f64 }
    #[params] pub struct P { pub c: f64 }
    #[mode(initial)] fn low(p: &P) -> X { X { x: p.a } }
    #[mode] fn high() -> X { X { x: -1.0 } }
    #[switching_surface(low, high)] fn wall(x: &X, p: &P) -> f64 { x.x - 2 * p.c }
}

fn main() {
    let _ = relay::Model::mode_name(2);
}
