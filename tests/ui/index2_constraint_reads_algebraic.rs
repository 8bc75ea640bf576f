//! The constraints of an index-2 mode are `0 = k(t, y, p)`: an equation that reads an
//! algebraic variable is reported at the equation, with its index and the variable it reads
//! (here equation 1 reads `u`; equation 0 is fine). The code below, which uses the model,
//! reports nothing.
use hysens::hybrid_model;

#[hybrid_model] mod cart {
    #[states] pub struct X { pub q: f64, pub v: f64 }
    #[algebraic] pub struct Z { pub w: f64, pub u: f64 }
    #[params] pub struct P { pub a: f64 }
    #[mode(initial, index2)] fn held(t: f64, x: &X, z: &Z, p: &P) -> (X, [f64; 2]) {
        (X { q: x.v + z.u, v: z.w }, [x.q - p.a * t, x.v + z.u * x.q])
    }
}

fn main() {
    let _ = cart::Model::NZ;
}
