//! A terminal cost reading the memory.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(initial)] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 } }
    #[cost(terminal)] fn drop(x: &X, m: &Memory) -> f64 { m.y.h - x.h }
}

fn main() {}
