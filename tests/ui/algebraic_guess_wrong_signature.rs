//! `#[algebraic_guess]` functions with the wrong signature: one returns the states, one reads
//! the algebraic variables it gives and the memory (no mode has been entered at `t0`), and a
//! model has one.
use hysens::hybrid_model;

#[hybrid_model] mod tank {
    #[states] pub struct X { pub h: f64 }
    #[algebraic] pub struct Z { pub q: f64 }
    #[params] pub struct P { pub k: f64 }
    #[algebraic_guess] fn states(x: &X, p: &P) -> X { X { h: p.k * x.h } }
    #[algebraic_guess] fn circular(x: &X, z: &Z, m: &Memory) -> Z { Z { q: x.h + z.q + m.y.h } }
    #[mode(initial)] fn draining(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) { (X { h: -z.q }, [z.q - p.k * x.h]) }
}

fn main() {}
