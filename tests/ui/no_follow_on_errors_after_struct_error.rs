//! A parameter field of the wrong type makes the parameter struct unusable for generated code,
//! so the model has no shell; it still expands to `Model`, `Memory` and the conversions of its
//! well-formed structs, so the code below reports nothing of its own.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[states] pub struct X { pub h: f64, pub v: f64 }
    #[params] pub struct P { pub g: f32, pub e: f64 }
    #[mode(initial)] fn flight(x: &X, p: &P) -> X { X { h: x.v, v: -p.g } }
}

fn main() {
    let model: ball::Model = ball::Model;
    let x = ball::X::from_array([1.0, 0.0]);
    let memory = ball::Memory { y: x };
    let _ = (model, ball::X::NAMES, memory.y.to_array());
}
