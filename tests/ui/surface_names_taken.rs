//! Two switching surfaces with the same name, a surface named like a mode, and surfaces whose
//! sliding mode or guard would take the name of a mode or a guard (one of its four, or the one
//! that watches another surface while sliding on it).
use hysens::hybrid_model;

#[hybrid_model] mod relay {
    #[states] pub struct X { pub x: f64 }
    #[mode(initial)] fn low() -> X { X { x: 1.0 } }
    #[mode] fn high() -> X { X { x: -1.0 } }
    #[mode] fn gate_sliding() -> X { X { x: 0.0 } }
    #[guard(high -> low, falling)] fn edge_from_low(x: &X) -> f64 { x.x - 3.0 }
    #[guard(high -> low, falling)] fn wall_meets_edge(x: &X) -> f64 { x.x - 6.0 }
    #[switching_surface(low, high)] fn wall(x: &X) -> f64 { x.x }
    #[switching_surface(low, high)] fn wall(x: &X) -> f64 { x.x - 1.0 }
    #[switching_surface(low, high)] fn high(x: &X) -> f64 { x.x - 2.0 }
    #[switching_surface(low, high)] fn gate(x: &X) -> f64 { x.x - 4.0 }
    #[switching_surface(low, high)] fn edge(x: &X) -> f64 { x.x - 5.0 }
}

fn main() {
    let _ = relay::Model::guard_name(0);
}
