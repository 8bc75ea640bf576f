//! States as a tuple struct.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X(pub f64, pub f64);
    #[mode(initial)] fn flight(x: &X) -> X { X(x.1, -9.81) }
}

fn main() {}
