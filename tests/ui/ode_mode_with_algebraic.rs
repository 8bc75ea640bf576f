//! A mode returning only `X` in a model with algebraic variables.
use hysens::hybrid_model;

#[hybrid_model] mod circuit {
    #[states] pub struct X { pub q: f64 }
    #[algebraic] pub struct Z { pub i: f64, pub u: f64 }
    #[mode(initial)] fn on(x: &X, z: &Z) -> X { X { q: z.i } }
}

fn main() {}
