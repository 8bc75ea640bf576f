//! Forward sensitivities of the ESDIRK integrator on one smooth mode: against central
//! differences of the same integrator with the step sequence frozen, against the continuous
//! sensitivity of a small index-1 DAE (high-precision reference) and against the closed form of
//! a linear ODE; and the path for modes with a constant Jacobian against the general one.
#![allow(clippy::needless_range_loop)]
#![allow(clippy::excessive_precision)] // reference values are quoted with all their digits

use crate::runtime;
use crate::smooth_modes;

use hysens::runtime::smooth::{Esdirk, SmoothMode};
use hysens::runtime::{ModeJacobian, Options, Stats, Tableau, ESDIRK23, ESDIRK34, ESDIRK436L2SA};
use runtime::*;
use smooth_modes::*;

/// An affine semi-explicit index-1 DAE with a stiff forced component:
/// y1' = −p y1 + z, y2' = −1000 (y2 − cos t), 0 = z − y2/2 + y1. Its Jacobian is constant;
/// `declared` says whether it tells the integrator so ([`SmoothMode::jacobian_is_constant`]).
#[derive(Debug)]
struct AffineDae {
    declared: bool,
}
impl SmoothMode<2, 1, 1> for AffineDae {
    type Store = hysens::runtime::Inline;
    fn f(&self, t: f64, x: &[f64; 2], z: &[f64; 1], p: &[f64; 1], o: &mut [f64; 2]) {
        o[0] = -p[0] * x[0] + z[0];
        o[1] = -1000.0 * (x[1] - libm::cos(t));
    }
    fn g(&self, _: f64, x: &[f64; 2], z: &[f64; 1], _: &[f64; 1], o: &mut [f64; 1]) {
        o[0] = z[0] - 0.5 * x[1] + x[0];
    }
    fn jacobian_is_constant(&self) -> bool {
        self.declared
    }
    fn jacobian(
        &self,
        _: f64,
        _: &[f64; 2],
        _: &[f64; 1],
        p: &[f64; 1],
        j: &mut ModeJacobian<2, 1>,
    ) {
        j.fy = [[-p[0], 0.0], [0.0, -1000.0]];
        j.fz = [[1.0], [0.0]];
        j.gy = [[1.0, -0.5]];
        j.gz = [[1.0]];
    }
    fn parameter_jacobian(
        &self,
        _: f64,
        x: &[f64; 2],
        _: &[f64; 1],
        _: &[f64; 1],
        fp: &mut [[f64; 1]; 2],
        _: &mut [[f64; 1]; 1],
    ) {
        fp[0][0] = -x[0];
    }
}

/// Runs `CubicDae` with fixed steps `hs` (a frozen step sequence) at parameter `u`, with or
/// without sensitivities; returns (x, z, ∂x/∂u, ∂z/∂u).
fn replay_cubic_dae<const S: usize>(
    tab: &Tableau<S>,
    u: f64,
    hs: &[f64],
    fsa: bool,
    reuse: bool,
) -> ([f64; 3], [f64; 3]) {
    let mut opts = fixed_opts();
    if reuse {
        // Jacobian reuse: the iteration matrix (and the sensitivity preconditioner) is stale.
        opts.jacobian_reuse_rate = 0.1;
    }
    let mut it =
        Esdirk::<_, S, 2, 1, 1, 3>::new(&CubicDae, tab, 0, [u], 0.0, [1.0, 0.5], [1.0], opts)
            .unwrap();
    if fsa {
        it.enable_sensitivities([[0.0]; 2]).unwrap();
    }
    for &h in hs {
        it.step_fixed(h, no_obs).unwrap();
    }
    let (sy, sz) = it.sensitivities();
    (
        [it.y()[0], it.y()[1], it.z()[0]],
        [sy[0][0], sy[1][0], sz[0][0]],
    )
}

/// FSA against central finite differences of the same integrator with the step sequence frozen
/// (the FSA is the exact derivative of the discrete solution). The step sequence comes from an adaptive run at rtol = 1e-5
/// (varying h). Both runs use tight Newton tolerances (1e-12 · 0.01), so the Newton error
/// (≲ 1e-14) divided by the FD step δ = 1e-5 contributes ≲ 1e-9; the central-difference
/// truncation error is O(δ²) ≈ 1e-10 for O(1) third derivatives. Required: 1e-7,
/// i.e. a 100x margin.
#[test]
fn fsa_matches_frozen_step_finite_differences() {
    fn check<const S: usize>(tab: &Tableau<S>) {
        let u = 0.7;
        let mut hs = Vec::new();
        let mut it = Esdirk::<_, S, 2, 1, 1, 3>::new(
            &CubicDae,
            tab,
            0,
            [u],
            0.0,
            [1.0, 0.5],
            [1.0],
            Options::new(1e-5, 1e-5),
        )
        .unwrap();
        it.integrate_to(1.0, |r| hs.push(r.h)).unwrap();
        // With a fresh Jacobian every step, and with Jacobian reuse (stale iteration matrix as
        // Newton matrix and as preconditioner of the sensitivity solves).
        for reuse in [false, true] {
            let (_, s) = replay_cubic_dae(tab, u, &hs, true, reuse);
            let d = 1e-5;
            let (xp, _) = replay_cubic_dae(tab, u + d, &hs, false, reuse);
            let (xm, _) = replay_cubic_dae(tab, u - d, &hs, false, reuse);
            let mut fd = [0.0; 3];
            for k in 0..3 {
                fd[k] = (xp[k] - xm[k]) / (2.0 * d);
            }
            let diff = max_abs_diff(&s, &fd);
            println!(
                "{} ({} steps, reuse {reuse}): FSA {s:?} FD {fd:?} max diff {diff:.2e}",
                tab.name,
                hs.len()
            );
            assert!(diff < 1e-7, "{}: {diff:e}", tab.name);
        }
    }
    check(&ESDIRK23);
    check(&ESDIRK34);
    check(&ESDIRK436L2SA);
}

/// FSA in an adaptive run vs the continuous sensitivity of `CubicDae`:
/// ∂x(1)/∂u = (−0.6379207076, −0.3176948925) (reference: ESDIRK34 with internal numerical
/// differentiation, N = 2048 fixed steps, quoted to 10 digits).
/// The sensitivities are not error-controlled; the discrete sensitivity converges to the
/// continuous one at the method's order, like the states, so we apply the state bound of
/// `adaptive_linear_vs_closed_form` (global error ≤ ~4·tol·steps, error-per-step control).
/// Measured values are printed (ESDIRK23, 92 steps: 1.4e-6 with state error 7.5e-7).
#[test]
fn fsa_adaptive_vs_continuous_sensitivity() {
    fn check<const S: usize>(tab: &Tableau<S>) {
        let mut it = Esdirk::<_, S, 2, 1, 1, 3>::new(
            &CubicDae,
            tab,
            0,
            [0.7],
            0.0,
            [1.0, 0.5],
            [1.0],
            Options::new(1e-8, 1e-8),
        )
        .unwrap();
        it.enable_sensitivities([[0.0]; 2]).unwrap();
        it.integrate_to(1.0, no_obs).unwrap();
        let (sy, _) = it.sensitivities();
        let s = [sy[0][0], sy[1][0]];
        let e = max_abs_diff(&s, &[-0.6379207076, -0.3176948925]);
        let ex = max_abs_diff(it.y(), &CUBIC_DAE_X1);
        println!(
            "{}: dx/du {s:?}, err {e:.2e} (state err {ex:.2e}) {:?}",
            tab.name,
            it.stats()
        );
        let bound = 4.0 * 1e-8 * it.stats().steps as f64;
        assert!(
            e < bound && ex < bound,
            "{}: {e:e} {ex:e} bound {bound:e}",
            tab.name
        );
    }
    check(&ESDIRK23);
    check(&ESDIRK34);
    check(&ESDIRK436L2SA);
}

/// Closed form for a linear ODE: y' = λy + 3a t², y(0) = 1. With a = 0:
/// ∂y/∂λ = t e^{λt}; and ∂y/∂a = ∫_0^t e^{λ(t−s)} 3s² ds = (for λ = −2, t = 1)
/// 3[ t²/λ' … ] computed below in closed form: with μ = −λ,
/// ∫_0^t e^{−μ(t−s)} 3s² ds = 3[t²/μ − 2t/μ² + 2/μ³ − 2e^{−μt}/μ³].
/// Also checks that a nonzero initial sensitivity is propagated (∂y/∂p(0) = (1, 0) means the
/// first column also carries e^{λt}). Adaptive at rtol = 1e-10: error bound 1e-7 (global error
/// ~ tol × steps ≲ 1e-7 for these few hundred steps).
#[test]
fn fsa_linear_closed_form() {
    let (lam, a) = (-2.0_f64, 0.5_f64);
    let mu = -lam;
    let t = 1.0_f64;
    let e = libm::exp(lam * t);
    let int =
        3.0 * (t * t / mu - 2.0 * t / (mu * mu) + 2.0 / (mu * mu * mu) - 2.0 * e / (mu * mu * mu));
    let y_exact = e + a * int;
    // ∂y/∂λ for the forced problem: d/dλ of e^{λt} + a ∫ e^{λ(t−s)} 3s² ds
    //   = t e^{λt} + a ∫ (t−s) e^{λ(t−s)} 3s² ds; the integral = d/dλ of `int` = −d/dμ:
    let dint_dmu = 3.0
        * (-t * t / (mu * mu) + 4.0 * t / (mu * mu * mu) - 6.0 / mu.powi(4)
            + 6.0 * e / mu.powi(4)
            + 2.0 * t * e / (mu * mu * mu));
    let dy_dlam = t * e - a * dint_dmu + 1.0 * e; // + e^{λt} from the initial sensitivity 1
    let dy_da = int;
    /// `y(t)` and its sensitivities from the initial sensitivity `(1, 0)`, at rtol 1e-10.
    fn integrate<const S: usize>(tab: &Tableau<S>, lam: f64, a: f64, t: f64) -> (f64, [f64; 2]) {
        let opts = Options::new(1e-10, 1e-10);
        let mut it =
            Esdirk::<_, S, 1, 0, 2, 1>::new(&Scalar, tab, 0, [lam, a], 0.0, [1.0], [], opts)
                .unwrap();
        it.enable_sensitivities([[1.0, 0.0]]).unwrap();
        it.integrate_to(t, no_obs).unwrap();
        (it.y()[0], it.sensitivities().0[0])
    }
    for (name, (y, s)) in [
        ("ESDIRK34", integrate(&ESDIRK34, lam, a, t)),
        ("ESDIRK4(3)6L", integrate(&ESDIRK436L2SA, lam, a, t)),
    ] {
        println!("{name}: y {y} vs {y_exact}; s {s:?} vs [{dy_dlam}, {dy_da}]");
        assert!((y - y_exact).abs() < 1e-7);
        assert!(
            (s[0] - dy_dlam).abs() < 1e-7 && (s[1] - dy_da).abs() < 1e-7,
            "{name}: {s:?}"
        );
    }
}

/// A mode declared affine ([`SmoothMode::jacobian_is_constant`]) takes one Newton iteration
/// per stage, one Jacobian evaluation, and no stage-matrix factorizations for the
/// sensitivities, and gives the same solution and sensitivities as the general path: both
/// solve the same linear stage equations, the general path only adds a round-off-level second
/// Newton correction, so they agree to round-off amplified over the run (bound 1e-10 relative,
/// measured ≤ 1e-14 for all three tableaus).
#[test]
fn declared_constant_jacobian_matches_general_path() {
    fn run<const S: usize>(tab: &Tableau<S>, declared: bool) -> ([f64; 3], [f64; 3], Stats) {
        let model = AffineDae { declared };
        let mut it = Esdirk::<_, S, 2, 1, 1, 3>::new(
            &model,
            tab,
            0,
            [2.0],
            0.0,
            [1.0, 0.0],
            [-1.0],
            Options::new(1e-8, 1e-10),
        )
        .unwrap();
        it.enable_sensitivities([[0.0]; 2]).unwrap();
        it.integrate_to(2.0, no_obs).unwrap();
        let (sy, sz) = it.sensitivities();
        (
            [it.y()[0], it.y()[1], it.z()[0]],
            [sy[0][0], sy[1][0], sz[0][0]],
            *it.stats(),
        )
    }
    fn check<const S: usize>(tab: &Tableau<S>) {
        let (y1, s1, st1) = run(tab, true);
        let (y0, s0, st0) = run(tab, false);
        let dy = max_rel_diff(&y1, &y0);
        let ds = max_rel_diff(&s1, &s0);
        println!(
            "{}: declared {st1:?}\n  general {st0:?}\n  state rel diff {dy:.1e}, sens rel diff {ds:.1e}",
            tab.name
        );
        assert!(dy < 1e-10 && ds < 1e-10, "{}", tab.name);
        assert_eq!(st1.jacobian_evals, 1, "{}", tab.name);
        // One iteration per implicit stage of every attempt.
        assert_eq!(
            st1.newton_iterations,
            (st1.steps + st1.rejected_steps) * (S - 1),
            "{}",
            tab.name
        );
        assert!(
            st1.newton_iterations < st0.newton_iterations,
            "{}",
            tab.name
        );
        // Only the Newton matrices, one per attempt (h changes every step), and g_z for the
        // consistent initial z.
        assert!(
            st1.lu_factorizations <= st1.steps + st1.rejected_steps + 1,
            "{}",
            tab.name
        );
    }
    check(&ESDIRK23);
    check(&ESDIRK34);
    check(&ESDIRK436L2SA);
}
