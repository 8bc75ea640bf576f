//! A switching surface with the same mode on both sides.
use hysens::hybrid_model;

#[hybrid_model] mod relay {
    #[states] pub struct X { pub x: f64 }
    #[mode(initial)] fn low() -> X { X { x: 1.0 } }
    #[switching_surface(low, low)] fn wall(x: &X) -> f64 { x.x }
}

fn main() {}
