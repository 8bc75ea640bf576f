//! A model without any mode.
use hysens::hybrid_model;

#[hybrid_model]
mod ball {
    #[states]
    pub struct X {
        pub h: f64,
        pub v: f64,
    }
    #[params]
    pub struct P {
        pub g: f64,
        pub e: f64,
    }
}

fn main() {}
