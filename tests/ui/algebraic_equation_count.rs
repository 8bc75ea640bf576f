//! Two algebraic variables but one algebraic equation in the return type.
use hysens::hybrid_model;

#[hybrid_model] mod circuit {
    #[states] pub struct X { pub q: f64 }
    #[algebraic] pub struct Z { pub i: f64, pub u: f64 }
    #[mode(initial)] fn on(x: &X, z: &Z) -> (X, [f64; 1]) { (X { q: z.i }, [z.u - 2.0 * z.i]) }
}

fn main() {}
