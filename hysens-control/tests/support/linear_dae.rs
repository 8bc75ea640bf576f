//! The linear index-1 DAE of the filter's and the simulator's tests:
//! `x1' = −a x1 + z`, `x2' = −c x2`, `0 = z − b x2`, measured by `m = x1 + 2z`.

use hysens::prelude::*;

#[hybrid_model]
pub mod linear {
    #[states]
    pub struct X {
        pub x1: f64,
        pub x2: f64,
    }
    #[algebraic]
    pub struct Z {
        pub z: f64,
    }
    #[params]
    pub struct P {
        pub a: f64,
        pub b: f64,
        pub c: f64,
    }
    #[mode(initial)]
    fn only(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
        (
            X {
                x1: -p.a * x.x1 + z.z,
                x2: -p.c * x.x2,
            },
            [z.z - p.b * x.x2],
        )
    }
    #[output]
    fn reading(x: &X, z: &Z) -> f64 {
        x.x1 + 2.0 * z.z
    }
}
