//! `#[mode(index2)]` in a model without `#[algebraic]` variables: an index-2 mode is a DAE
//! mode. The code below, which uses the model, reports nothing.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[mode(index2, initial)] fn flight(x: &X) -> X { X { h: x.v, v: -9.81 } }
}

fn main() {
    let _ = ball::Model::NY;
}
