//! Forward sensitivities equal central differences of the same integrator with the step
//! sequence frozen, on a stiff nonlinear problem with several parameters.
//!
//! What this file proves: for Robertson's problem with p = (k1, k2, k3) (three parameters that
//! enter nonlinearly and with magnitudes 0.04 … 3e7), the FSA of `Esdirk` (internal numerical
//! differentiation of the converged stage equations) is the exact derivative of
//! the discrete solution map: replaying a recorded adaptive step sequence with `step_fixed`, the
//! FSA agrees with central differences of replays at `k_q(1 ± δ)` to 1e-7 in the normalized
//! sensitivities `(k_q/y_i) ∂y_i/∂k_q`, for every tableau, with a fresh Jacobian every step and
//! with Jacobian reuse (stale Newton matrix / sensitivity preconditioner).
//!
//! The test `fsa_matches_frozen_step_finite_differences` (`esdirk_fsa.rs`) checks the
//! same property on a small index-1 DAE with one parameter; this one adds several
//! parameters, stiffness (recorded steps up to h ≈ 1.5 (ESDIRK23) … 5.7 (ESDIRK4(3)6L) while
//! the stiff eigenvalue is |λ| ≈ k3 y3 + 2 k2 y2 ≈ 3.4e3 at t = 40, so h|λ| reaches ~1e4) and
//! parameters of very different magnitudes.
#![allow(missing_docs)]
#![allow(clippy::needless_range_loop)] // index loops over the 3×3 sensitivity matrix

use crate::models;
use crate::runtime;
use crate::smooth_modes;

use hysens::runtime::smooth::Esdirk;
use hysens::runtime::{Options, Tableau, ESDIRK23, ESDIRK34, ESDIRK436L2SA};
use models::{robertson, ROBERTSON_K as K, ROBERTSON_Y0 as Y0};
use runtime::no_obs;
use smooth_modes::ModeOf;

/// Robertson's kinetics (P3 of `support/models.rs`), its one mode as a smooth mode.
const ROBERTSON: ModeOf<'static, robertson::Model> = ModeOf::first(&robertson::Model);

/// Horizon: [0, 40] covers the initial transient (y2 peaks at ~3.6e-5 near t = 4e-4) and the
/// slow phase; the adaptive run at rtol 1e-6 takes 41 (ESDIRK4(3)6L) to 185 (ESDIRK23) steps.
const TF: f64 = 40.0;

/// Replays the step sequence `hs` at parameters `p`; returns (y, ∂y/∂p if `fsa`).
///
/// Newton tolerances: rtol 1e-13 with atol 1e-13 relative to each component's scale
/// (y1, y3 ~ 1, y2 ≤ 3.6e-5), newton_tol 0.01, up to 30 iterations: the converged stages are
/// accurate to ~1e-15 relative (the iteration stops at round-off in most stages), so the
/// Newton error divided by the relative difference step δ = 1e-6 contributes ≲ 1e-9 to the
/// normalized finite differences.
fn replay<const S: usize>(
    tab: &Tableau<S>,
    p: [f64; 3],
    hs: &[f64],
    fsa: bool,
    reuse: bool,
) -> ([f64; 3], [[f64; 3]; 3]) {
    let mut opts = Options::new(1e-13, 1e-13);
    opts.atol_y = [1e-13, 1e-18, 1e-13];
    opts.newton_tol = 0.01;
    opts.max_newton_iterations = 30;
    opts.jacobian_reuse_rate = if reuse { 0.1 } else { 0.0 };
    let mut it =
        Esdirk::<_, S, 3, 0, 3, 3>::new(&ROBERTSON, tab, 0, p, 0.0, Y0, [], opts).expect("init");
    if fsa {
        it.enable_sensitivities([[0.0; 3]; 3]).expect("fsa");
    }
    for &h in hs {
        it.step_fixed(h, no_obs).expect("replayed step");
    }
    (*it.y(), *it.sensitivities().0)
}

fn check<const S: usize>(tab: &Tableau<S>) {
    // Step sequence of an adaptive run at rtol 1e-6, atol 1e-10.
    let mut hs = Vec::new();
    let mut it = Esdirk::<_, S, 3, 0, 3, 3>::new(
        &ROBERTSON,
        tab,
        0,
        K,
        0.0,
        Y0,
        [],
        Options::new(1e-6, 1e-10),
    )
    .expect("init");
    it.integrate_to(TF, |r| hs.push(r.h)).expect("adaptive run");
    let hmax = hs.iter().cloned().fold(0.0, f64::max);
    for reuse in [false, true] {
        let (y, s) = replay(tab, K, &hs, true, reuse);
        // Relative difference step δ = 1e-6: central-difference truncation O(δ²) ≈ 1e-12 in the
        // normalized sensitivities (their second logarithmic derivatives are O(1)), round-off
        // and Newton noise ≲ 1e-15/δ ≈ 1e-9. Bound 1e-7: ≥ 100x margin.
        let delta = 1e-6;
        let mut worst = 0.0_f64;
        for q in 0..3 {
            let (mut pp, mut pm) = (K, K);
            pp[q] *= 1.0 + delta;
            pm[q] *= 1.0 - delta;
            let (yp, _) = replay(tab, pp, &hs, false, reuse);
            let (ym, _) = replay(tab, pm, &hs, false, reuse);
            for i in 0..3 {
                let fd = (yp[i] - ym[i]) / (2.0 * delta * K[q]);
                // Normalized (logarithmic) sensitivities: dimensionless and O(1e-3…1) here,
                // so an absolute bound is meaningful for every (i, q).
                let n_fsa = s[i][q] * K[q] / y[i];
                let n_fd = fd * K[q] / y[i];
                let err = (n_fsa - n_fd).abs();
                println!(
                    "{} reuse={reuse} dy{}/dk{}: FSA {:.15e} FD {:.15e} normalized {n_fsa:+.6e} \
                     |diff| {err:.2e}",
                    tab.name,
                    i + 1,
                    q + 1,
                    s[i][q],
                    fd
                );
                worst = worst.max(err);
            }
        }
        println!(
            "{} reuse={reuse}: {} steps, max h {hmax:.3e}, max normalized |FSA − FD| {worst:.2e}",
            tab.name,
            hs.len()
        );
        assert!(
            worst < 1e-7,
            "{} reuse={reuse}: FSA vs frozen-step FD {worst:e}",
            tab.name
        );
    }
}

#[test]
fn robertson_fsa_equals_frozen_step_fd_esdirk23() {
    check(&ESDIRK23);
}

#[test]
fn robertson_fsa_equals_frozen_step_fd_esdirk34() {
    check(&ESDIRK34);
}

#[test]
fn robertson_fsa_equals_frozen_step_fd_esdirk436() {
    check(&ESDIRK436L2SA);
}
