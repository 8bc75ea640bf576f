//! A model without `#[states]`.
use hysens::hybrid_model;

#[hybrid_model] mod ball {
    #[params] pub struct P { pub g: f64 }
    #[mode(initial)] fn flight(p: &P) -> f64 { p.g }
}

fn main() {}
