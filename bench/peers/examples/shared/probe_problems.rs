//! The problems the hysens probes (`hysens_stats`, `hysens_adjoint`) time, written once: P3,
//! Robertson's kinetics in its classic setting (`models::ROBERTSON_K`, `models::ROBERTSON_Y0`),
//! and P4, Van der Pol with `μ = 1000` from `(2, 0)`, each from `t = 0` to a final time of the
//! probe's choice. A probe includes this file by `#[path]` next to `tests/support/models.rs`
//! (as `crate::models`); the folder has no `main.rs`, so Cargo builds no example of its own.

use crate::models::{robertson, vdp, ROBERTSON_K, ROBERTSON_Y0};
use hysens::runtime::HybridProblem;

/// P3 on `[0, tf]` (P3a: `tf = 1e5`, P3b: `4e10`), without sensitivities.
pub fn robertson_to(tf: f64) -> HybridProblem<'static, 3, 0, 3> {
    let y0 = robertson::X::from_array(ROBERTSON_Y0);
    robertson::Model::problem(0.0, tf, &y0, &robertson::P::from_array(ROBERTSON_K))
}

/// P4 on `[0, tf]` (P4a: `tf = 500`, P4b: `2000`), without sensitivities.
pub fn van_der_pol_to(tf: f64) -> HybridProblem<'static, 2, 0, 1> {
    vdp::Model::problem(
        0.0,
        tf,
        &vdp::X { y1: 2.0, y2: 0.0 },
        &vdp::P { mu: 1000.0 },
    )
}
