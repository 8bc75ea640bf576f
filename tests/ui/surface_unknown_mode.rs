//! A switching surface names a mode that is not declared.
use hysens::hybrid_model;

#[hybrid_model] mod relay {
    #[states] pub struct X { pub x: f64 }
    #[mode(initial)] fn low() -> X { X { x: 1.0 } }
    #[mode] fn high() -> X { X { x: -1.0 } }
    #[switching_surface(low, hihg)] fn wall(x: &X) -> f64 { x.x }
}

fn main() {
    let _ = relay::Model::mode_name(0);
}
