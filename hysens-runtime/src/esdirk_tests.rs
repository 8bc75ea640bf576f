//! Tests of the ESDIRK integrator: fixed-step convergence orders, exactness properties,
//! adaptive accuracy against closed forms and literature references, DAEs, error returns.
#![allow(clippy::excessive_precision)] // reference values are quoted with all printed digits

use super::*;
use crate::tableau::{ESDIRK23, ESDIRK34, ESDIRK436L2SA};
use std::vec::Vec;

// ---------------------------------------------------------------------------------------------
// Test models (hand-written SmoothMode implementations).
// ---------------------------------------------------------------------------------------------

/// y1' = −y1², y2' = cos(t)·y2; exact y1 = 1/(1+t) (y1(0) = 1), y2 = exp(sin t) (y2(0) = 1).
#[derive(Debug)]
struct Smooth;
impl SmoothMode<2, 0, 0> for Smooth {
    fn f(&self, t: f64, y: &[f64; 2], _: &[f64; 0], _: &[f64; 0], o: &mut [f64; 2]) {
        o[0] = -y[0] * y[0];
        o[1] = libm::cos(t) * y[1];
    }
    fn g(&self, _: f64, _: &[f64; 2], _: &[f64; 0], _: &[f64; 0], _: &mut [f64; 0]) {}
    fn jacobian(
        &self,
        t: f64,
        y: &[f64; 2],
        _: &[f64; 0],
        _: &[f64; 0],
        j: &mut ModeJacobian<2, 0>,
    ) {
        j.fy[0][0] = -2.0 * y[0];
        j.fy[1][1] = libm::cos(t);
    }
    fn parameter_jacobian(
        &self,
        _: f64,
        _: &[f64; 2],
        _: &[f64; 0],
        _: &[f64; 0],
        _: &mut [[f64; 0]; 2],
        _: &mut [[f64; 0]; 0],
    ) {
    }
}
fn smooth_exact(t: f64) -> [f64; 2] {
    [1.0 / (1.0 + t), libm::exp(libm::sin(t))]
}

/// Test DAE of note 003_004 §6 item 2 (script Part C):
/// x1' = −u x1 + z, x2' = x1 − x2 z, 0 = z³ + z − x1 x2 − u, with p = [u].
#[derive(Debug)]
struct NoteDae;
impl SmoothMode<2, 1, 1> for NoteDae {
    fn f(&self, _: f64, x: &[f64; 2], z: &[f64; 1], p: &[f64; 1], o: &mut [f64; 2]) {
        o[0] = -p[0] * x[0] + z[0];
        o[1] = x[0] - x[1] * z[0];
    }
    fn g(&self, _: f64, x: &[f64; 2], z: &[f64; 1], p: &[f64; 1], o: &mut [f64; 1]) {
        o[0] = z[0] * z[0] * z[0] + z[0] - x[0] * x[1] - p[0];
    }
    fn jacobian(
        &self,
        _: f64,
        x: &[f64; 2],
        z: &[f64; 1],
        p: &[f64; 1],
        j: &mut ModeJacobian<2, 1>,
    ) {
        j.fy = [[-p[0], 0.0], [1.0, -z[0]]];
        j.fz = [[1.0], [-x[1]]];
        j.gy = [[-x[1], -x[0]]];
        j.gz = [[3.0 * z[0] * z[0] + 1.0]];
    }
    fn parameter_jacobian(
        &self,
        _: f64,
        x: &[f64; 2],
        _: &[f64; 1],
        _: &[f64; 1],
        fp: &mut [[f64; 1]; 2],
        gp: &mut [[f64; 1]; 1],
    ) {
        fp[0][0] = -x[0];
        gp[0][0] = -1.0;
    }
}
/// An affine semi-explicit index-1 DAE with a stiff forced component:
/// y1' = −p y1 + z, y2' = −1000 (y2 − cos t), 0 = z − y2/2 + y1. Its Jacobian is constant;
/// `declared` says whether it tells the integrator so ([`SmoothMode::jacobian_is_constant`]).
#[derive(Debug)]
struct AffineDae {
    declared: bool,
}
impl SmoothMode<2, 1, 1> for AffineDae {
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

/// Reference of note 003_004 §6 item 2 at t = 1 (ESDIRK34 with N = 4096 in 50-digit
/// arithmetic; its own error is ≈ 6.2e-6·(10/4096)³ ≈ 1e-13).
const NOTE_DAE_X1: [f64; 2] = [1.116889410843720, 0.916851892065798];
const NOTE_DAE_Z1: f64 = 0.927118543605219;

/// Linear system with closed form: a damped oscillator y1' = −y1 + 10 y2, y2' = −10 y1 − y2
/// and a stiff forced component y3' = −1000 (y3 − cos t) − sin t.
/// Exact: y1 = e^{−t}(cos 10t + sin 10t), y2 = e^{−t}(cos 10t − sin 10t) for y(0) = (1, 1),
/// y3 = cos t + e^{−1000 t} for y3(0) = 2.
#[derive(Debug)]
struct Linear;
impl SmoothMode<3, 0, 0> for Linear {
    fn f(&self, t: f64, y: &[f64; 3], _: &[f64; 0], _: &[f64; 0], o: &mut [f64; 3]) {
        o[0] = -y[0] + 10.0 * y[1];
        o[1] = -10.0 * y[0] - y[1];
        o[2] = -1000.0 * (y[2] - libm::cos(t)) - libm::sin(t);
    }
    fn g(&self, _: f64, _: &[f64; 3], _: &[f64; 0], _: &[f64; 0], _: &mut [f64; 0]) {}
    fn jacobian(
        &self,
        _: f64,
        _: &[f64; 3],
        _: &[f64; 0],
        _: &[f64; 0],
        j: &mut ModeJacobian<3, 0>,
    ) {
        j.fy = [[-1.0, 10.0, 0.0], [-10.0, -1.0, 0.0], [0.0, 0.0, -1000.0]];
    }
    fn parameter_jacobian(
        &self,
        _: f64,
        _: &[f64; 3],
        _: &[f64; 0],
        _: &[f64; 0],
        _: &mut [[f64; 0]; 3],
        _: &mut [[f64; 0]; 0],
    ) {
    }
}
fn linear_exact(t: f64) -> [f64; 3] {
    let e = libm::exp(-t);
    let (s, c) = (libm::sin(10.0 * t), libm::cos(10.0 * t));
    [
        e * (c + s),
        e * (c - s),
        libm::cos(t) + libm::exp(-1000.0 * t),
    ]
}

/// Robertson's chemical kinetics (Hairer & Wanner II, §IV.1, eq. (1.4)), ODE form.
#[derive(Debug)]
struct Robertson;
impl SmoothMode<3, 0, 0> for Robertson {
    fn f(&self, _: f64, y: &[f64; 3], _: &[f64; 0], _: &[f64; 0], o: &mut [f64; 3]) {
        o[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
        o[2] = 3e7 * y[1] * y[1];
        o[1] = -o[0] - o[2];
    }
    fn g(&self, _: f64, _: &[f64; 3], _: &[f64; 0], _: &[f64; 0], _: &mut [f64; 0]) {}
    fn jacobian(
        &self,
        _: f64,
        y: &[f64; 3],
        _: &[f64; 0],
        _: &[f64; 0],
        j: &mut ModeJacobian<3, 0>,
    ) {
        j.fy[0] = [-0.04, 1e4 * y[2], 1e4 * y[1]];
        j.fy[2] = [0.0, 6e7 * y[1], 0.0];
        j.fy[1] = [0.04, -1e4 * y[2] - 6e7 * y[1], -1e4 * y[1]];
    }
    fn parameter_jacobian(
        &self,
        _: f64,
        _: &[f64; 3],
        _: &[f64; 0],
        _: &[f64; 0],
        _: &mut [[f64; 0]; 3],
        _: &mut [[f64; 0]; 0],
    ) {
    }
}

/// Robertson in DAE form (note 003_004 §6 item 4): y3 = z algebraic, 0 = y1 + y2 + z − 1.
#[derive(Debug)]
struct RobertsonDae;
impl SmoothMode<2, 1, 0> for RobertsonDae {
    fn f(&self, _: f64, y: &[f64; 2], z: &[f64; 1], _: &[f64; 0], o: &mut [f64; 2]) {
        o[0] = -0.04 * y[0] + 1e4 * y[1] * z[0];
        o[1] = 0.04 * y[0] - 1e4 * y[1] * z[0] - 3e7 * y[1] * y[1];
    }
    fn g(&self, _: f64, y: &[f64; 2], z: &[f64; 1], _: &[f64; 0], o: &mut [f64; 1]) {
        o[0] = y[0] + y[1] + z[0] - 1.0;
    }
    fn jacobian(
        &self,
        _: f64,
        y: &[f64; 2],
        z: &[f64; 1],
        _: &[f64; 0],
        j: &mut ModeJacobian<2, 1>,
    ) {
        j.fy = [[-0.04, 1e4 * z[0]], [0.04, -1e4 * z[0] - 6e7 * y[1]]];
        j.fz = [[1e4 * y[1]], [-1e4 * y[1]]];
        j.gy = [[1.0, 1.0]];
        j.gz = [[1.0]];
    }
    fn parameter_jacobian(
        &self,
        _: f64,
        _: &[f64; 2],
        _: &[f64; 1],
        _: &[f64; 0],
        _: &mut [[f64; 0]; 2],
        _: &mut [[f64; 0]; 1],
    ) {
    }
}
/// Robertson at t = 40, Hairer & Wanner II §IV.10 reference values (computed at very high
/// accuracy; quoted in the task brief as standard literature values).
const ROBER_40: [f64; 3] = [0.7158270687193, 9.185534764557e-6, 0.2841637457452];

/// Semi-explicit index-1 DAE with known solution: y1' = y2, y2' = −z,
/// 0 = z + z³ − y1 − y1³ (g_z = 1 + 3z² > 0, so z = y1 is the unique root).
/// Exact for y(0) = (1, 0): y1 = cos t, y2 = −sin t, z = cos t.
#[derive(Debug)]
struct Pendulumish;
impl SmoothMode<2, 1, 0> for Pendulumish {
    fn f(&self, _: f64, y: &[f64; 2], z: &[f64; 1], _: &[f64; 0], o: &mut [f64; 2]) {
        o[0] = y[1];
        o[1] = -z[0];
    }
    fn g(&self, _: f64, y: &[f64; 2], z: &[f64; 1], _: &[f64; 0], o: &mut [f64; 1]) {
        o[0] = z[0] + z[0] * z[0] * z[0] - y[0] - y[0] * y[0] * y[0];
    }
    fn jacobian(
        &self,
        _: f64,
        y: &[f64; 2],
        z: &[f64; 1],
        _: &[f64; 0],
        j: &mut ModeJacobian<2, 1>,
    ) {
        j.fy = [[0.0, 1.0], [0.0, 0.0]];
        j.fz = [[0.0], [-1.0]];
        j.gy = [[-1.0 - 3.0 * y[0] * y[0], 0.0]];
        j.gz = [[1.0 + 3.0 * z[0] * z[0]]];
    }
    fn parameter_jacobian(
        &self,
        _: f64,
        _: &[f64; 2],
        _: &[f64; 1],
        _: &[f64; 0],
        _: &mut [[f64; 0]; 2],
        _: &mut [[f64; 0]; 1],
    ) {
    }
}

/// Scalar y' = λ y + a·3t² with λ and a as parameters (for exactness checks).
#[derive(Debug)]
struct Scalar;
impl SmoothMode<1, 0, 2> for Scalar {
    fn f(&self, t: f64, y: &[f64; 1], _: &[f64; 0], p: &[f64; 2], o: &mut [f64; 1]) {
        o[0] = p[0] * y[0] + p[1] * 3.0 * t * t;
    }
    fn g(&self, _: f64, _: &[f64; 1], _: &[f64; 0], _: &[f64; 2], _: &mut [f64; 0]) {}
    fn jacobian(
        &self,
        _: f64,
        _: &[f64; 1],
        _: &[f64; 0],
        p: &[f64; 2],
        j: &mut ModeJacobian<1, 0>,
    ) {
        j.fy[0][0] = p[0];
    }
    fn parameter_jacobian(
        &self,
        t: f64,
        y: &[f64; 1],
        _: &[f64; 0],
        _: &[f64; 2],
        fp: &mut [[f64; 2]; 1],
        _: &mut [[f64; 2]; 0],
    ) {
        fp[0] = [y[0], 3.0 * t * t];
    }
}

/// y' = y², y(0) = 1: exact y = 1/(1 − t), which blows up at t = 1. Used to check that the
/// failure is reported as an error, not a panic or an infinite loop.
#[derive(Debug)]
struct Blowup;
impl SmoothMode<1, 0, 0> for Blowup {
    fn f(&self, _: f64, y: &[f64; 1], _: &[f64; 0], _: &[f64; 0], o: &mut [f64; 1]) {
        o[0] = y[0] * y[0];
    }
    fn g(&self, _: f64, _: &[f64; 1], _: &[f64; 0], _: &[f64; 0], _: &mut [f64; 0]) {}
    fn jacobian(
        &self,
        _: f64,
        y: &[f64; 1],
        _: &[f64; 0],
        _: &[f64; 0],
        j: &mut ModeJacobian<1, 0>,
    ) {
        j.fy[0][0] = 2.0 * y[0];
    }
    fn parameter_jacobian(
        &self,
        _: f64,
        _: &[f64; 1],
        _: &[f64; 0],
        _: &[f64; 0],
        _: &mut [[f64; 0]; 1],
        _: &mut [[f64; 0]; 0],
    ) {
    }
}

/// Constraint without a real root (g = z² + 1) or with singular g_z (g = y − 1).
#[derive(Debug)]
struct BadConstraint {
    singular: bool,
}
impl SmoothMode<1, 1, 0> for BadConstraint {
    fn f(&self, _: f64, _: &[f64; 1], z: &[f64; 1], _: &[f64; 0], o: &mut [f64; 1]) {
        o[0] = z[0];
    }
    fn g(&self, _: f64, y: &[f64; 1], z: &[f64; 1], _: &[f64; 0], o: &mut [f64; 1]) {
        o[0] = if self.singular {
            y[0] - 1.0
        } else {
            z[0] * z[0] + 1.0
        };
    }
    fn jacobian(
        &self,
        _: f64,
        _: &[f64; 1],
        z: &[f64; 1],
        _: &[f64; 0],
        j: &mut ModeJacobian<1, 1>,
    ) {
        j.fz[0][0] = 1.0;
        if self.singular {
            j.gy[0][0] = 1.0;
        } else {
            j.gz[0][0] = 2.0 * z[0];
        }
    }
    fn parameter_jacobian(
        &self,
        _: f64,
        _: &[f64; 1],
        _: &[f64; 1],
        _: &[f64; 0],
        _: &mut [[f64; 0]; 1],
        _: &mut [[f64; 0]; 1],
    ) {
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers.
// ---------------------------------------------------------------------------------------------

fn no_obs<const S: usize, const NY: usize, const NZ: usize>(_: &StepRecord<'_, S, NY, NZ>) {}

fn max_abs_diff<const K: usize>(a: &[f64; K], b: &[f64; K]) -> f64 {
    a.iter()
        .zip(b)
        .fold(0.0_f64, |m, (x, y)| m.max((x - y).abs()))
}

fn max_rel_diff<const K: usize>(a: &[f64; K], b: &[f64; K]) -> f64 {
    a.iter()
        .zip(b)
        .fold(0.0_f64, |m, (x, y)| m.max(((x - y) / y).abs()))
}

/// Fixed-step options: tight tolerances so that the Newton error (≤ newton_tol·1e-12) is far
/// below the discretization errors measured (≥ 1e-10 at the finest grids used), and a fresh
/// Jacobian every step.
fn fixed_opts<const NY: usize, const NZ: usize>() -> Options<NY, NZ> {
    let mut o = Options::new(1e-12, 1e-12);
    o.jacobian_reuse_rate = 0.0;
    o.max_newton_iterations = 20;
    o
}

/// Errors formatted in scientific notation for printing.
fn sci(v: &[f64]) -> Vec<std::string::String> {
    v.iter().map(|e| std::format!("{e:.3e}")).collect()
}

/// Observed orders log2(e_N / e_2N) of a fixed-step sequence of errors.
fn observed_orders(errs: &[f64]) -> Vec<f64> {
    errs.windows(2).map(|w| libm::log2(w[0] / w[1])).collect()
}

fn fixed_smooth<const S: usize>(tab: &Tableau<S>, n: usize) -> f64 {
    let tf = 2.0;
    let mut it =
        Esdirk::<_, S, 2, 0, 0, 2>::new(&Smooth, tab, 0, [], 0.0, [1.0, 1.0], [], fixed_opts())
            .unwrap();
    for _ in 0..n {
        it.step_fixed(tf / n as f64, no_obs).unwrap();
    }
    max_abs_diff(it.y(), &smooth_exact(it.t()))
}

fn fixed_note_dae<const S: usize>(tab: &Tableau<S>, n: usize) -> (f64, f64) {
    let mut it = Esdirk::<_, S, 2, 1, 1, 3>::new(
        &NoteDae,
        tab,
        0,
        [0.7],
        0.0,
        [1.0, 0.5],
        [1.0],
        fixed_opts(),
    )
    .unwrap();
    for _ in 0..n {
        it.step_fixed(1.0 / n as f64, no_obs).unwrap();
    }
    (
        max_abs_diff(it.y(), &NOTE_DAE_X1),
        (it.z()[0] - NOTE_DAE_Z1).abs(),
    )
}

// ---------------------------------------------------------------------------------------------
// Fixed-step convergence orders.
// ---------------------------------------------------------------------------------------------

/// Observed global order on a smooth nonlinear, non-autonomous ODE with known solution must be
/// within 0.2 of the tableau's order p (the task's criterion). Grids N = 20..320 on [0, 2]
/// (h = 0.1 … 0.00625) are in the asymptotic range for all three methods; the finest errors
/// (≥ ~1e-10) stay far above the Newton tolerance (~1e-14).
#[test]
fn fixed_step_orders_smooth_ode() {
    let ns = [20, 40, 80, 160, 320];
    let e23: Vec<f64> = ns.iter().map(|&n| fixed_smooth(&ESDIRK23, n)).collect();
    let e34: Vec<f64> = ns.iter().map(|&n| fixed_smooth(&ESDIRK34, n)).collect();
    let e4: Vec<f64> = ns
        .iter()
        .map(|&n| fixed_smooth(&ESDIRK436L2SA, n))
        .collect();
    for (errs, p, name) in [
        (&e23, 2.0, "ESDIRK23"),
        (&e34, 3.0, "ESDIRK34"),
        (&e4, 4.0, "ESDIRK4(3)6L"),
    ] {
        let ord = observed_orders(errs);
        std::println!("{name}: errors {:?}, orders {ord:.3?}", sci(errs));
        // The last two ratios (finest grids) must match p within 0.2.
        for o in &ord[ord.len() - 2..] {
            assert!((o - p).abs() < 0.2, "{name}: observed order {o} vs {p}");
        }
    }
}

/// The same on the note's test DAE, in the differential (x) and algebraic (z) variables: no
/// order reduction in z for stiffly accurate methods (note §1.3, "observed global orders").
/// Also cross-checks the ESDIRK34 errors against the independent implementation of the note's
/// script (Appendix A: 6.220e-6, 8.052e-7, 1.025e-7, 1.293e-8 for N = 10..80); agreement to 1%
/// is expected since both run the same method on the same grid and the Newton errors of both are
/// ≪ 1% of these values.
#[test]
fn fixed_step_orders_note_dae() {
    // N ≤ 80: at N = 160 the ESDIRK4(3)6L error (4.8e-13) reaches the accuracy of the reference
    // (≈ 1e-13), which would distort the observed order.
    let ns = [10, 20, 40, 80];
    for (name, p, run) in [
        (
            "ESDIRK23",
            2.0,
            &(|n| fixed_note_dae(&ESDIRK23, n)) as &dyn Fn(usize) -> (f64, f64),
        ),
        ("ESDIRK34", 3.0, &|n| fixed_note_dae(&ESDIRK34, n)),
        ("ESDIRK4(3)6L", 4.0, &|n| fixed_note_dae(&ESDIRK436L2SA, n)),
    ] {
        let (ex, ez): (Vec<f64>, Vec<f64>) = ns.iter().map(|&n| run(n)).unzip();
        let (ox, oz) = (observed_orders(&ex), observed_orders(&ez));
        std::println!(
            "{name}: err_x {:?} orders {ox:.3?}; err_z {:?} orders {oz:.3?}",
            sci(&ex),
            sci(&ez)
        );
        for o in ox[ox.len() - 2..].iter().chain(&oz[oz.len() - 2..]) {
            assert!((o - p).abs() < 0.2, "{name}: observed order {o} vs {p}");
        }
        if name == "ESDIRK34" {
            let script = [6.220e-6, 8.052e-7, 1.025e-7, 1.293e-8];
            for (e, s) in ex.iter().zip(script) {
                assert!(
                    ((e - s) / s).abs() < 0.01,
                    "ESDIRK34 error {e:e} vs script {s:e}"
                );
            }
        }
    }
}

/// One step on y' = λy returns R(hλ)·y_n (note §1.3), tying the integrator to the tableau's
/// stability function. The problem is linear and the Jacobian exact, so Newton converges in
/// one iteration up to round-off: 1e-14 (≈ 100 ulps of O(1) stage values) is generous.
#[test]
fn one_step_equals_stability_function() {
    fn check<const S: usize>(tab: &Tableau<S>) {
        for (lambda, h) in [(-1.0, 1.0), (-10.0, 1.0), (-100.0, 0.5), (-3.0, 0.1)] {
            let mut it = Esdirk::<_, S, 1, 0, 2, 1>::new(
                &Scalar,
                tab,
                0,
                [lambda, 0.0],
                0.0,
                [1.0],
                [],
                fixed_opts(),
            )
            .unwrap();
            it.step_fixed(h, no_obs).unwrap();
            let r = tab.stability(h * lambda);
            assert!(
                (it.y()[0] - r).abs() < 1e-14,
                "{} z={}: {} vs {}",
                tab.name,
                h * lambda,
                it.y()[0],
                r
            );
        }
    }
    check(&ESDIRK23);
    check(&ESDIRK34);
    check(&ESDIRK436L2SA);
}

/// Methods of order ≥ 3 integrate y' = 3t² exactly for any h (quadrature order ≥ 3; note
/// §1.3). Error bound 1e-13: 10 steps of round-off on values up to 8.
#[test]
fn cubic_quadrature_is_exact() {
    fn check<const S: usize>(tab: &Tableau<S>) {
        let mut it = Esdirk::<_, S, 1, 0, 2, 1>::new(
            &Scalar,
            tab,
            0,
            [0.0, 1.0],
            0.0,
            [0.0],
            [],
            fixed_opts(),
        )
        .unwrap();
        for _ in 0..10 {
            it.step_fixed(0.2, no_obs).unwrap();
        }
        assert!(
            (it.y()[0] - 8.0).abs() < 1e-13,
            "{}: {}",
            tab.name,
            it.y()[0]
        );
    }
    check(&ESDIRK34);
    check(&ESDIRK436L2SA);
}

// ---------------------------------------------------------------------------------------------
// Adaptive integration.
// ---------------------------------------------------------------------------------------------

/// Adaptive solves of the linear system vs its closed form, at three tolerances.
///
/// Bound: the controller keeps each step's estimated local error ≤ 1 in the WRMS norm, i.e. each
/// component's local error ≤ √3·w with w = atol + rtol|y| ≤ 2.5·tol (|y_i| ≤ 1.5 after the
/// first steps). The problem is non-expansive (eigenvalues −1 ± 10i, −1000), so the global
/// error is at most the sum of the local errors: err ≤ √3·2.5·tol·steps ≈ 4.3·tol·steps
/// ("error per step" control; for the low-order ESDIRK23 err/tol is indeed O(10–100)). We also
/// require tolerance proportionality: err must drop ≥ 10x per 100x tolerance reduction
/// (theory: (1/100)^{p/(p+1)} ≤ 1/21 for p ≥ 2).
#[test]
fn adaptive_linear_vs_closed_form() {
    fn run<const S: usize>(tab: &Tableau<S>, rtol: f64) -> (f64, Stats) {
        let opts = Options::new(rtol, rtol);
        let mut it =
            Esdirk::<_, S, 3, 0, 0, 3>::new(&Linear, tab, 0, [], 0.0, [1.0, 1.0, 2.0], [], opts)
                .unwrap();
        let mut n_obs = 0;
        let mut t_end = 0.0;
        it.integrate_to(3.0, |r| {
            n_obs += 1;
            t_end = r.t + r.h;
        })
        .unwrap();
        assert_eq!(it.t(), 3.0, "lands exactly on the final time");
        assert_eq!(
            n_obs,
            it.stats().steps,
            "one observer call per accepted step"
        );
        assert_eq!(t_end, 3.0);
        (max_abs_diff(it.y(), &linear_exact(3.0)), *it.stats())
    }
    fn check<const S: usize>(tab: &Tableau<S>) {
        let mut prev = f64::INFINITY;
        for rtol in [1e-4, 1e-6, 1e-8] {
            let (err, st) = run(tab, rtol);
            std::println!(
                "{} rtol={rtol:e}: err={err:.3e} err/tol={:.1} {st:?}",
                tab.name,
                err / rtol
            );
            assert!(
                err <= 4.3 * rtol * st.steps as f64,
                "{}: err {err:e} at rtol {rtol:e}",
                tab.name
            );
            assert!(
                err < prev / 10.0,
                "{}: no tolerance proportionality",
                tab.name
            );
            // Linear problem: the Jacobian is reused (fewer evaluations than steps).
            assert!(st.jacobian_evals < st.steps, "{}: {st:?}", tab.name);
            prev = err;
        }
    }
    check(&ESDIRK23);
    check(&ESDIRK34);
    check(&ESDIRK436L2SA);
}

/// Robertson (stiff) over [0, 40] at rtol = 1e-8 against the literature reference. Absolute
/// tolerances are scaled to each component's magnitude (y2 ~ 1e-5). Expected global relative
/// error: a small multiple of rtol; we require 1e-6 relative in every component (100·rtol),
/// and 2e-6 for the second-order ESDIRK23: its global error accumulates over ~500 steps, and
/// with the filtered error estimate (note 003_004 §7.2 P9), which lets stiff phases take the
/// steps their damping allows, it measured 1.27e-6 (8.8e-7 with the raw estimate, which in
/// exchange made long stiff runs chatter and fail).
#[test]
fn robertson_ode_and_dae() {
    fn run<const S: usize>(tab: &Tableau<S>) {
        let bound = if S == 3 { 2e-6 } else { 1e-6 };
        let mut opts = Options::new(1e-8, 1e-10);
        opts.atol_y = [1e-10, 1e-14, 1e-10];
        let mut it =
            Esdirk::<_, S, 3, 0, 0, 3>::new(&Robertson, tab, 0, [], 0.0, [1.0, 0.0, 0.0], [], opts)
                .unwrap();
        it.integrate_to(40.0, no_obs).unwrap();
        let rel = max_rel_diff(it.y(), &ROBER_40);
        std::println!(
            "{} Robertson ODE: max rel err {rel:.3e} {:?}",
            tab.name,
            it.stats()
        );
        assert!(rel < bound, "{}: {rel:e}", tab.name);

        let mut opts = Options::new(1e-8, 1e-10);
        opts.atol_y = [1e-10, 1e-14];
        let mut it = Esdirk::<_, S, 2, 1, 0, 3>::new(
            &RobertsonDae,
            tab,
            0,
            [],
            0.0,
            [1.0, 0.0],
            [0.0],
            opts,
        )
        .unwrap();
        it.integrate_to(40.0, no_obs).unwrap();
        let y = [it.y()[0], it.y()[1], it.z()[0]];
        let rel = max_rel_diff(&y, &ROBER_40);
        std::println!(
            "{} Robertson DAE: max rel err {rel:.3e} {:?}",
            tab.name,
            it.stats()
        );
        assert!(rel < bound, "{}: {rel:e}", tab.name);
    }
    run(&ESDIRK23);
    run(&ESDIRK34);
    run(&ESDIRK436L2SA);
}

/// Index-1 DAE with known solution over [0, 10] at rtol = atol = 1e-8; also starts from an
/// inconsistent z0 = 0.5 that must be corrected to z0 = y1(0) = 1. Error bound: the per-step
/// accumulation bound of `adaptive_linear_vs_closed_form`, 2·√2·tol·steps (two components,
/// w ≤ 2·tol, the harmonic oscillator is non-expansive); z = y1 + O(constraint residual)
/// inherits the bound. The algebraic variable is not error-controlled (note §2.3).
#[test]
fn index1_dae_known_solution() {
    fn run<const S: usize>(tab: &Tableau<S>) {
        let opts = Options::new(1e-8, 1e-8);
        let mut it =
            Esdirk::<_, S, 2, 1, 0, 3>::new(&Pendulumish, tab, 0, [], 0.0, [1.0, 0.0], [0.5], opts)
                .unwrap();
        assert!((it.z()[0] - 1.0).abs() < 1e-12, "consistent initialization");
        let mut max_g: f64 = 0.0;
        it.integrate_to(10.0, |r| {
            // Every accepted step ends on the constraint (stiffly accurate + converged Newton).
            let (y, z) = (r.y[S - 1], r.z[S - 1]);
            let g = z[0] + z[0] * z[0] * z[0] - y[0] - y[0] * y[0] * y[0];
            max_g = max_g.max(g.abs());
        })
        .unwrap();
        let t = 10.0_f64;
        let ey = max_abs_diff(it.y(), &[libm::cos(t), -libm::sin(t)]);
        let ez = (it.z()[0] - libm::cos(t)).abs();
        std::println!(
            "{}: DAE err y {ey:.3e} z {ez:.3e}, max|g| {max_g:.2e} {:?}",
            tab.name,
            it.stats()
        );
        let bound = 2.0 * core::f64::consts::SQRT_2 * 1e-8 * it.stats().steps as f64;
        assert!(
            ey < bound && ez < bound,
            "{}: {ey:e} {ez:e} bound {bound:e}",
            tab.name
        );
        // Newton stops at 0.05 of the tolerance (~1e-8 · 0.05) in z, times g_z ≤ 4.
        assert!(max_g < 1e-8, "{}: {max_g:e}", tab.name);
    }
    run(&ESDIRK23);
    run(&ESDIRK34);
    run(&ESDIRK436L2SA);
}

// ---------------------------------------------------------------------------------------------
// Error returns (never a panic).
// ---------------------------------------------------------------------------------------------

#[test]
fn nan_initial_value_is_an_error() {
    let e = Esdirk::<_, 4, 2, 0, 0, 2>::new(
        &Smooth,
        &ESDIRK34,
        3,
        [],
        0.0,
        [f64::NAN, 1.0],
        [],
        Options::new(1e-6, 1e-6),
    )
    .unwrap_err();
    assert_eq!(
        e,
        SolveError::NonFiniteValue {
            t: 0.0,
            mode: 3,
            what: "initial y"
        }
    );
    let e = Esdirk::<_, 4, 1, 0, 2, 1>::new(
        &Scalar,
        &ESDIRK34,
        0,
        [f64::INFINITY, 0.0],
        0.0,
        [1.0],
        [],
        Options::new(1e-6, 1e-6),
    )
    .unwrap_err();
    assert!(matches!(
        e,
        SolveError::NonFiniteValue {
            what: "parameters",
            ..
        }
    ));
}

#[test]
fn too_many_steps_keeps_last_state() {
    let mut opts = Options::new(1e-10, 1e-10);
    opts.max_steps = 5;
    let mut it =
        Esdirk::<_, 4, 3, 0, 0, 3>::new(&Linear, &ESDIRK34, 1, [], 0.0, [1.0, 1.0, 2.0], [], opts)
            .unwrap();
    let e = it.integrate_to(100.0, no_obs).unwrap_err();
    assert!(
        matches!(
            e,
            SolveError::TooManySteps {
                mode: 1,
                max_steps: 5,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(it.t() > 0.0 && it.t() < 100.0 && it.t() == e.time());
    assert!(it.stats().steps <= 5);
    // The state is the last accepted one and can be continued.
    assert!(it.y().iter().all(|v| v.is_finite()));
}

/// A commit accepts only the step just computed, to its size and end time (up to round-off):
/// anything else is an error that leaves the integrator as it was.
#[test]
fn commit_accepts_only_the_step_just_computed() {
    let mut it = Esdirk::<_, 4, 3, 0, 0, 3>::new(
        &Linear,
        &ESDIRK34,
        0,
        [],
        0.0,
        [1.0, 1.0, 2.0],
        [],
        Options::new(1e-8, 1e-8),
    )
    .unwrap();
    let rejected = |r: Result<(), SolveError>| {
        matches!(
            r,
            Err(SolveError::InvalidArgument {
                what: "step to accept (not the step just computed, or t_end ≠ t + h)",
                ..
            })
        )
    };
    let y0 = *it.y();
    assert!(rejected(it.commit_fixed(
        0.1,
        0.1,
        StepLength::Fixed,
        &mut no_obs
    )));
    it.evaluate_fixed(0.1).unwrap();
    assert!(rejected(it.commit_fixed(
        0.2,
        0.2,
        StepLength::Fixed,
        &mut no_obs
    )));
    assert!(rejected(it.commit_fixed(
        0.1,
        0.1 + 1e-9,
        StepLength::Fixed,
        &mut no_obs
    )));
    assert!(rejected(it.commit_fixed(
        0.1,
        f64::NAN,
        StepLength::Fixed,
        &mut no_obs
    )));
    assert_eq!(
        (it.t(), *it.y()),
        (0.0, y0),
        "unchanged by the rejected commits"
    );
    it.commit_fixed(0.1, 0.1, StepLength::Fixed, &mut no_obs)
        .unwrap();
    assert_eq!(it.t(), 0.1);
    assert!(
        rejected(it.commit_fixed(0.1, 0.2, StepLength::Fixed, &mut no_obs)),
        "taken once"
    );
    let trial = it.try_step(1.0).unwrap();
    let forged = Trial {
        h: trial.h * 0.5,
        ..trial
    };
    assert!(rejected(it.commit(&forged, &mut no_obs)));
    it.commit(&trial, &mut no_obs).unwrap();
    assert_eq!(it.t(), trial.t_end);
}

#[test]
fn blowup_is_an_error_not_a_panic() {
    let mut it = Esdirk::<_, 4, 1, 0, 0, 1>::new(
        &Blowup,
        &ESDIRK34,
        0,
        [],
        0.0,
        [1.0],
        [],
        Options::new(1e-6, 1e-6),
    )
    .unwrap();
    let e = it.integrate_to(2.0, no_obs).unwrap_err();
    std::println!("blow-up: {e} after {:?}", it.stats());
    assert!(
        matches!(
            e,
            SolveError::StepSizeTooSmall { .. }
                | SolveError::NewtonFailure { .. }
                | SolveError::NonFiniteValue { .. }
        ),
        "{e:?}"
    );
    // Stopped at the numerical blow-up time, which differs from the exact t = 1 by the global
    // error of the blow-up time (measured 2.6e-5 at rtol = 1e-6); 1e-2 is a loose bracket.
    assert!((it.t() - 1.0).abs() < 1e-2, "{}", it.t());
}

#[test]
fn inconsistent_and_singular_constraints() {
    let opts = Options::new(1e-6, 1e-6);
    let e = Esdirk::<_, 4, 1, 1, 0, 2>::new(
        &BadConstraint { singular: false },
        &ESDIRK34,
        0,
        [],
        0.0,
        [1.0],
        [0.3],
        opts,
    )
    .unwrap_err();
    assert!(
        matches!(e, SolveError::InconsistentInitialValues { .. }),
        "{e:?}"
    );
    let e = Esdirk::<_, 4, 1, 1, 0, 2>::new(
        &BadConstraint { singular: true },
        &ESDIRK34,
        0,
        [],
        0.0,
        [1.0],
        [0.3],
        opts,
    )
    .unwrap_err();
    assert!(matches!(e, SolveError::SingularMatrix { .. }), "{e:?}");
}

#[test]
fn invalid_arguments() {
    let mut it = Esdirk::<_, 4, 2, 0, 0, 2>::new(
        &Smooth,
        &ESDIRK34,
        0,
        [],
        1.0,
        [1.0, 1.0],
        [],
        Options::new(1e-6, 1e-6),
    )
    .unwrap();
    assert!(matches!(
        it.integrate_to(0.5, no_obs),
        Err(SolveError::InvalidArgument { .. })
    ));
    assert!(matches!(
        it.step_fixed(-1.0, no_obs),
        Err(SolveError::InvalidArgument { .. })
    ));
    assert!(matches!(
        it.integrate_to(f64::NAN, no_obs),
        Err(SolveError::InvalidArgument { .. })
    ));
    let e = Esdirk::<_, 4, 2, 0, 0, 2>::new(
        &Smooth,
        &ESDIRK34,
        0,
        [],
        0.0,
        [1.0, 1.0],
        [],
        Options::new(1e-6, 0.0),
    )
    .unwrap_err();
    assert!(matches!(
        e,
        SolveError::InvalidArgument {
            what: "atol (must be finite and > 0)",
            ..
        }
    ));
}

// ---------------------------------------------------------------------------------------------
// Forward sensitivities (esdirk_fsa.rs).
// ---------------------------------------------------------------------------------------------

/// Runs the note's DAE with fixed steps `hs` (a frozen step sequence) at parameter `u`, with or
/// without sensitivities; returns (x, z, ∂x/∂u, ∂z/∂u).
fn replay_note_dae<const S: usize>(
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
        Esdirk::<_, S, 2, 1, 1, 3>::new(&NoteDae, tab, 0, [u], 0.0, [1.0, 0.5], [1.0], opts)
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
/// (note §3.3 "[derived] check"). The step sequence comes from an adaptive run at rtol = 1e-5
/// (varying h). Both runs use tight Newton tolerances (1e-12 · 0.01), so the Newton error
/// (≲ 1e-14) divided by the FD step δ = 1e-5 contributes ≲ 1e-9; the central-difference
/// truncation error is O(δ²) ≈ 1e-10 for O(1) third derivatives. Required: 1e-7 (task brief),
/// i.e. a 100x margin.
#[test]
fn fsa_matches_frozen_step_finite_differences() {
    fn check<const S: usize>(tab: &Tableau<S>) {
        let u = 0.7;
        let mut hs = Vec::new();
        let mut it = Esdirk::<_, S, 2, 1, 1, 3>::new(
            &NoteDae,
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
            let (_, s) = replay_note_dae(tab, u, &hs, true, reuse);
            let d = 1e-5;
            let (xp, _) = replay_note_dae(tab, u + d, &hs, false, reuse);
            let (xm, _) = replay_note_dae(tab, u - d, &hs, false, reuse);
            let mut fd = [0.0; 3];
            for k in 0..3 {
                fd[k] = (xp[k] - xm[k]) / (2.0 * d);
            }
            let diff = max_abs_diff(&s, &fd);
            std::println!(
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

/// FSA in an adaptive run vs the continuous sensitivity of note §6 item 2:
/// ∂x(1)/∂u = (−0.6379207076, −0.3176948925) (ESDIRK34 IND with N = 2048, quoted to 10 digits).
/// The sensitivities are not error-controlled; the discrete sensitivity converges to the
/// continuous one at the method's order, like the states, so we apply the state bound of
/// `adaptive_linear_vs_closed_form` (global error ≤ ~4·tol·steps, error-per-step control).
/// Measured values are printed (ESDIRK23, 92 steps: 1.4e-6 with state error 7.5e-7).
#[test]
fn fsa_adaptive_vs_continuous_sensitivity() {
    fn check<const S: usize>(tab: &Tableau<S>) {
        let mut it = Esdirk::<_, S, 2, 1, 1, 3>::new(
            &NoteDae,
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
        let ex = max_abs_diff(it.y(), &NOTE_DAE_X1);
        std::println!(
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
    for name in ["ESDIRK34", "ESDIRK4(3)6L"] {
        let opts = Options::new(1e-10, 1e-10);
        let (y, s) = if name == "ESDIRK34" {
            let mut it = Esdirk::<_, 4, 1, 0, 2, 1>::new(
                &Scalar,
                &ESDIRK34,
                0,
                [lam, a],
                0.0,
                [1.0],
                [],
                opts,
            )
            .unwrap();
            it.enable_sensitivities([[1.0, 0.0]]).unwrap();
            it.integrate_to(t, no_obs).unwrap();
            (it.y()[0], it.sensitivities().0[0])
        } else {
            let mut it = Esdirk::<_, 6, 1, 0, 2, 1>::new(
                &Scalar,
                &ESDIRK436L2SA,
                0,
                [lam, a],
                0.0,
                [1.0],
                [],
                opts,
            )
            .unwrap();
            it.enable_sensitivities([[1.0, 0.0]]).unwrap();
            it.integrate_to(t, no_obs).unwrap();
            (it.y()[0], it.sensitivities().0[0])
        };
        std::println!("{name}: y {y} vs {y_exact}; s {s:?} vs [{dy_dlam}, {dy_da}]");
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
        std::println!(
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
