//! An index-2 mode may mix equations that read algebraic variables (index-1 equations, such as
//! a mechanism's `M a + Φ_qᵀ λ = F`) with its constraints `0 = k(t, y, p)`, but it needs at
//! least one constraint (`loose`: every equation reads `z`), and its condition on `z` — the
//! constraints' derivatives `k_y f + k_t` and the other equations as they are — must be
//! structurally nonsingular (`cart`: `w` is read by neither `v + u − a`, the constraint's
//! derivative, nor `v + u q`). The code below, which uses the model, reports nothing.
use hysens::hybrid_model;

#[hybrid_model] mod cart {
    #[states] pub struct X { pub q: f64, pub v: f64 }
    #[algebraic] pub struct Z { pub w: f64, pub u: f64 }
    #[params] pub struct P { pub a: f64 }
    #[mode(initial, index2)] fn held(t: f64, x: &X, z: &Z, p: &P) -> (X, [f64; 2]) {
        (X { q: x.v + z.u, v: z.w }, [x.q - p.a * t, x.v + z.u * x.q])
    }
    #[mode(index2)] fn loose(x: &X, z: &Z) -> (X, [f64; 2]) {
        (X { q: z.w, v: z.u }, [z.w - x.q, z.u * z.u - x.v])
    }
}

fn main() {
    let _ = cart::Model::NZ;
}
