//! `k_y f_z` of an index-2 mode must be structurally nonsingular, or the hidden constraint
//! `k_y f + k_t = 0` does not define the algebraic variables: a constraint whose derivative
//! reads no algebraic variable (`flat`: `r' = 1`), an algebraic variable no derivative reads
//! (`lopsided`: `s`), and a pattern without a zero row or column that still has no perfect
//! matching (`tangled`: the derivatives of `v` and `r` both read only `w`). The code below,
//! which uses the model, reports nothing.
use hysens::hybrid_model;

#[hybrid_model] mod chain {
    #[states] pub struct X { pub q: f64, pub v: f64, pub r: f64 }
    #[algebraic] pub struct Z { pub w: f64, pub u: f64, pub s: f64 }
    #[mode(initial, index2)] fn flat(x: &X, z: &Z) -> (X, [f64; 3]) {
        (X { q: z.w, v: z.u, r: 1.0 }, [x.q, x.v, x.r])
    }
    #[mode(index2)] fn lopsided(x: &X, z: &Z) -> (X, [f64; 3]) {
        (X { q: z.w, v: z.u, r: z.w }, [x.q, x.v, x.r])
    }
    #[mode(index2)] fn tangled(x: &X, z: &Z) -> (X, [f64; 3]) {
        (X { q: z.w + z.u * z.s, v: z.w, r: 2.0 * z.w }, [x.q, x.v, x.r])
    }
}

fn main() {
    let _ = chain::Model::NZ;
}
