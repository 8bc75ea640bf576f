//! An output reading the memory: the results evaluate outputs at stored states (samples, the
//! final state, dense output), which do not carry the memory.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(initial)] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 } }
    #[output] fn fallen(x: &X, m: &Memory) -> f64 { m.y.h - x.h }
}

fn main() {}
