//! A switching surface that does not name the modes on its two sides, or names them with a
//! guard's arrow.
use hysens::hybrid_model;

#[hybrid_model] mod relay {
    #[states] pub struct X { pub x: f64 }
    #[mode(initial)] fn low() -> X { X { x: 1.0 } }
    #[mode] fn high() -> X { X { x: -1.0 } }
    #[switching_surface] fn wall(x: &X) -> f64 { x.x }
    #[switching_surface(low -> high)] fn gate(x: &X) -> f64 { x.x - 1.0 }
    #[switching_surface(low, high, rising)] fn edge(x: &X) -> f64 { x.x - 2.0 }
}

fn main() {
    let _ = relay::Model::mode_name(0);
}
