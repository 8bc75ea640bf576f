//! A misspelled `crate = path` is reported at the argument; the model still expands (with the
//! default path), so its use below reports nothing.
use hysens::hybrid_model;

#[hybrid_model(krate = hysens)] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(initial)] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 } }
}

fn main() { let _ = ball::Model::NY; }
