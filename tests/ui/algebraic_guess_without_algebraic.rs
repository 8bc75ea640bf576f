//! `#[algebraic_guess]` in a model without algebraic variables: nothing to guess.
use hysens::hybrid_model;

#[hybrid_model] mod decay {
    #[states] pub struct X { pub y: f64 }
    #[params] pub struct P { pub k: f64 }
    #[algebraic_guess] fn guess(x: &X) -> X { X { y: x.y } }
    #[mode(initial)] fn decaying(x: &X, p: &P) -> X { X { y: -p.k * x.y } }
}

fn main() {}
