//! A helper function that calls itself.
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
    fn drag(v: f64) -> f64 {
        0.1 * drag(v)
    }
    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        X {
            h: x.v,
            v: -p.g - drag(x.v),
        }
    }
}

fn main() {}
