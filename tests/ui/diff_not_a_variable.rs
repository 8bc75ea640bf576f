//! `diff(e, v)` differentiates with respect to a variable of the model: a derivative with
//! respect to a constant or an expression is reported at that argument, and `diff` takes two
//! arguments. The code below, which uses the model, reports nothing.
use hysens::hybrid_model;

#[hybrid_model] mod bar {
    #[states] pub struct X { pub q: f64, pub v: f64 }
    #[params] pub struct P { pub k: f64 }
    #[mode(initial)] fn moving(x: &X, p: &P) -> X {
        let energy = 0.5 * p.k * x.q * x.q;
        X { q: x.v, v: -diff(energy, 2.0 * x.q) - diff(energy) }
    }
}

fn main() {
    let _ = bar::Model::NY;
}
