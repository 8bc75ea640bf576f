//! An `#[algebraic_guess]` that reads the parameters in a model whose modes read `Memory`: the
//! first mode's memory `z*` is the guess, and its dependence on `p` would not be differentiated.
use hysens::hybrid_model;

#[hybrid_model] mod tank {
    #[states] pub struct X { pub h: f64 }
    #[algebraic] pub struct Z { pub q: f64 }
    #[params] pub struct P { pub k: f64 }
    #[algebraic_guess] fn guess(x: &X, p: &P) -> Z { Z { q: p.k * x.h } }
    #[mode(initial)] fn draining(x: &X, z: &Z, p: &P, m: &Memory) -> (X, [f64; 1]) { (X { h: -z.q }, [z.q - p.k * x.h - m.z.q]) }
}

fn main() {}
