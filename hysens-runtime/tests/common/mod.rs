//! Models shared by the Robertson integration tests (`robertson_fsa.rs`,
//! `fsa_frozen_fd.rs`).
#![allow(dead_code)] // each test binary uses a subset

use hysens_runtime::{ModeJacobian, SmoothMode};

/// Robertson's chemical kinetics with the rate constants as parameters `p = (k1, k2, k3)`:
///
/// ```text
/// y1' = −k1 y1 + k3 y2 y3
/// y2' =  k1 y1 − k3 y2 y3 − k2 y2²
/// y3' =  k2 y2²
/// ```
///
/// Jacobians are exact (hand-derived; the same formulas are in
/// `bench/reference/robertson_fsa.py`, whose sensitivity equations were checked there against
/// central differences of state-only solves).
#[derive(Debug)]
pub struct Robertson;

/// Nominal rate constants `(k1, k2, k3)`.
pub const K: [f64; 3] = [0.04, 3.0e7, 1.0e4];

/// Initial state.
pub const Y0: [f64; 3] = [1.0, 0.0, 0.0];

impl SmoothMode<3, 0, 3> for Robertson {
    fn f(&self, _: f64, y: &[f64; 3], _: &[f64; 0], p: &[f64; 3], o: &mut [f64; 3]) {
        let [k1, k2, k3] = *p;
        o[0] = -k1 * y[0] + k3 * y[1] * y[2];
        o[1] = k1 * y[0] - k3 * y[1] * y[2] - k2 * y[1] * y[1];
        o[2] = k2 * y[1] * y[1];
    }
    fn g(&self, _: f64, _: &[f64; 3], _: &[f64; 0], _: &[f64; 3], _: &mut [f64; 0]) {}
    fn jacobian(
        &self,
        _: f64,
        y: &[f64; 3],
        _: &[f64; 0],
        p: &[f64; 3],
        j: &mut ModeJacobian<3, 0>,
    ) {
        let [k1, k2, k3] = *p;
        j.fy = [
            [-k1, k3 * y[2], k3 * y[1]],
            [k1, -k3 * y[2] - 2.0 * k2 * y[1], -k3 * y[1]],
            [0.0, 2.0 * k2 * y[1], 0.0],
        ];
    }
    fn parameter_jacobian(
        &self,
        _: f64,
        y: &[f64; 3],
        _: &[f64; 0],
        _: &[f64; 3],
        fp: &mut [[f64; 3]; 3],
        _: &mut [[f64; 3]; 0],
    ) {
        fp[0] = [-y[0], 0.0, y[1] * y[2]];
        fp[1] = [y[0], -y[1] * y[1], -y[1] * y[2]];
        fp[2] = [0.0, y[1] * y[1], 0.0];
    }
}
