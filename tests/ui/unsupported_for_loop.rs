//! A `for` loop in a mode.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(initial)] fn flight(x: &X) -> X {
        let mut a = 0.0;
        for _ in 0..3 { a += x.h; }
        X { h: x.v, v: -9.81 * a }
    }
}

fn main() {}
