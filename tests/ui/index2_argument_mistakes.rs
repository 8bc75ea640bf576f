//! `index2` takes no arguments and is written once; both mistakes are reported, each at its
//! span, with `initial` in any position next to it.
use hysens::hybrid_model;

#[hybrid_model] mod pendulum {
    #[states] pub struct X { pub q: f64, pub v: f64 }
    #[algebraic] pub struct Z { pub w: f64 }
    #[mode(initial, index2(1))] fn held(x: &X, z: &Z) -> (X, [f64; 1]) {
        (X { q: x.v, v: z.w }, [x.q - 1.0])
    }
    #[mode(index2, index2)] fn pushed(x: &X, z: &Z) -> (X, [f64; 1]) {
        (X { q: x.v, v: z.w }, [x.q + 1.0])
    }
}

fn main() {
    let _ = pendulum::Model::NZ;
}
