//! Switching surfaces with the wrong return type, without one, reading the memory, or taking
//! an `f64` that is not the time.
use hysens::hybrid_model;

#[hybrid_model] mod relay {
    #[states] pub struct X { pub x: f64 }
    #[params] pub struct P { pub c: f64 }
    #[mode(initial)] fn low() -> X { X { x: 1.0 } }
    #[mode] fn high() -> X { X { x: -1.0 } }
    #[switching_surface(low, high)] fn wall(x: &X) -> X { X { x: x.x } }
    #[switching_surface(low, high)] fn gate(x: &X) { let _ = x.x; }
    #[switching_surface(low, high)] fn edge(x: &X, m: &Memory) -> f64 { x.x - m.y.x }
    #[switching_surface(low, high)] fn rim(x: &X, c: f64) -> f64 { x.x - c }
}

fn main() {
    let _ = relay::Model::mode_name(0);
}
