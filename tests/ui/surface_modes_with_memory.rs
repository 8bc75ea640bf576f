//! A switching surface between modes that read the memory: not supported yet.
use hysens::hybrid_model;

#[hybrid_model] mod relay {
    #[states] pub struct X { pub x: f64 }
    #[mode(initial)] fn low(m: &Memory) -> X { X { x: 1.0 + m.y.x } }
    #[mode] fn high(memory: &Memory) -> X { X { x: -1.0 - memory.y.x } }
    #[switching_surface(low, high)] fn wall(x: &X) -> f64 { x.x }
}

fn main() {
    let _ = relay::Model::mode_name(0);
}
