//! `#[mode(sliding)]` is reserved: a sliding mode is generated from its switching surface.
use hysens::hybrid_model;

#[hybrid_model] mod relay {
    #[states] pub struct X { pub x: f64 }
    #[mode(initial)] fn low() -> X { X { x: 1.0 } }
    #[mode(sliding)] fn on_the_wall() -> X { X { x: 0.0 } }
}

fn main() {}
