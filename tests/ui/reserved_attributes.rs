//! The reserved attributes `#[constraint]` and `#[mass_matrix]` give their "reserved" message
//! wherever they are: alone, both on one function (each reported), or next to `#[mode]`
//! (reported as reserved, not as a second role).
use hysens::hybrid_model;

#[hybrid_model] mod pendulum {
    #[states] pub struct X { pub q: f64, pub w: f64 }
    #[mode(initial)] #[mass_matrix] fn swing(x: &X) -> X { X { q: x.w, w: -x.q } }
    #[mode] fn rest(_x: &X) -> X { X { q: 0.0, w: 0.0 } }
    #[constraint] fn rod(x: &X) -> f64 { x.q * x.q - 1.0 }
    #[mass_matrix] #[constraint] fn inertia(x: &X) -> f64 { x.q }
}

fn main() {
    let _ = pendulum::Model::mode_name(0);
}
