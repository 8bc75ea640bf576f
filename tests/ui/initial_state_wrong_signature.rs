//! `#[initial_state]` functions with the wrong signature: one returns a scalar, one reads the
//! memory and the algebraic variables (no mode has been entered at `t0`), and a model has one.
use hysens::hybrid_model;

#[hybrid_model] mod tank {
    #[states] pub struct X { pub h: f64 }
    #[algebraic] pub struct Z { pub q: f64 }
    #[params] pub struct P { pub k: f64 }
    #[initial_state] fn level(x: &X, p: &P) -> f64 { p.k * x.h }
    #[initial_state] fn remembered(x: &X, z: &Z, m: &Memory) -> X { X { h: x.h + z.q + m.y.h } }
    #[mode(initial)] fn draining(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) { (X { h: -z.q }, [z.q - p.k * x.h]) }
}

fn main() {}
