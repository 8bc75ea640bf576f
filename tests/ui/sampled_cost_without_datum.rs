//! A sampled cost without the measured datum parameter.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(initial)] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 } }
    #[cost(sampled)] fn misfit(x: &X) -> f64 { x.h * x.h }
}

fn main() {}
