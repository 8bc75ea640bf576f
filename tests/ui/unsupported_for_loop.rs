//! A `for` loop in a mode.
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
    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        let mut a = 0.0;
        for _ in 0..3 {
            a += x.h;
        }
        X {
            h: x.v,
            v: -p.g * a,
        }
    }
}

fn main() {}
