//! `#[hybrid_model]` takes no arguments but `crate = path`: another is reported at its span.
use hysens::hybrid_model;

#[hybrid_model(stiff)] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(initial)] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 } }
}

fn main() {}
