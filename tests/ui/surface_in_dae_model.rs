//! A switching surface in a model with algebraic variables (its modes are index-1 DAEs), and
//! one that reads an algebraic variable: not supported yet.
use hysens::hybrid_model;

#[hybrid_model] mod relay {
    #[states] pub struct X { pub x: f64 }
    #[algebraic] pub struct Z { pub w: f64 }
    #[mode(initial)] fn low(z: &Z) -> (X, [f64; 1]) { (X { x: 1.0 }, [z.w - 1.0]) }
    #[mode] fn high(z: &Z) -> (X, [f64; 1]) { (X { x: -1.0 }, [z.w + 1.0]) }
    #[switching_surface(low, high)] fn wall(x: &X, z: &Z) -> f64 { x.x - z.w }
}

fn main() {
    let _ = relay::Model::mode_name(0);
}
