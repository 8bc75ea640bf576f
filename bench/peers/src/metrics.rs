//! Error of a solution against its case's reference.
//!
//! Both errors are *mixed relative* errors with the case's `atol` as the floor, i.e. relative
//! where a reference value is large compared to `atol`, absolute (in units of 1) below:
//!
//! ```text
//! err_states = max_i      |a_i - r_i| / (|r_i| + atol)
//! err_sens   = max_{i,j}  |p_j (a_ij - r_ij)| / (|p_j r_ij| + atol)
//! ```
//!
//! Sensitivities are compared in scaled form `p_j d out_i / d p_j` (the change of out_i per
//! relative change of p_j): this puts k1 = 0.04 and k2 = 3e7 of Robertson on the same footing
//! and makes the atol floor meaningful in the units of the outputs.

use crate::case::{Case, Solution};

/// Largest mixed relative error of the outputs. `inf` on a shape mismatch.
pub fn state_error(case: &Case, sol: &Solution) -> f64 {
    let r = &case.reference.outputs;
    if sol.outputs.len() != r.len() {
        return f64::INFINITY;
    }
    // a NaN (failed component or missing reference) must win over every finite error
    sol.outputs
        .iter()
        .zip(r)
        .map(|(a, r)| (a - r).abs() / (r.abs() + case.atol))
        .fold(0.0, |m, e| {
            if e.is_nan() || m.is_nan() {
                f64::NAN
            } else {
                m.max(e)
            }
        })
}

/// Largest mixed relative error of the scaled sensitivities, with the (param, output) index
/// where it occurs. `inf` on a shape mismatch.
pub fn sens_error(case: &Case, sol: &Solution) -> (f64, (usize, usize)) {
    let r = &case.reference.sens;
    if sol.sens.len() != r.len() || sol.sens.iter().zip(r).any(|(a, r)| a.len() != r.len()) {
        return (f64::INFINITY, (0, 0));
    }
    let mut worst = (0.0, (0, 0));
    for (j, (aj, rj)) in sol.sens.iter().zip(r).enumerate() {
        let pj = case.params[j].abs();
        for (i, (a, r)) in aj.iter().zip(rj).enumerate() {
            let e = pj * (a - r).abs() / (pj * r.abs() + case.atol);
            // NaN counts as worst
            if e.is_nan() || e > worst.0 {
                worst = (e, (j, i));
            }
        }
    }
    worst
}
