//! Integrator settings: tolerances, step-size limits, Newton and controller parameters.
//!
//! Defaults and their sources are stated per field; the values the papers do not fix come from
//! the DTU ESDIRK code of Jørgensen, Kristensen & Thomsen (the "DTU defaults" below) or common
//! practice (Hairer & Wanner,
//! *Solving ODEs II*, §IV.8), as noted.

/// Settings for [`crate::smooth::Esdirk`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options<const NY: usize, const NZ: usize> {
    /// Relative tolerance per differential component.
    pub rtol_y: [f64; NY],
    /// Absolute tolerance per differential component (must be > 0).
    pub atol_y: [f64; NY],
    /// Relative tolerance per algebraic component (Newton convergence test only: as in Kristensen
    /// et al. 2005, Eq. 21, the local error test covers the differential states).
    pub rtol_z: [f64; NZ],
    /// Absolute tolerance per algebraic component (must be > 0).
    pub atol_z: [f64; NZ],
    /// Initial step size; `None` selects it automatically (Hairer, Nørsett & Wanner I, §II.4).
    pub h_init: Option<f64>,
    /// Largest allowed step size.
    pub h_max: f64,
    /// Smallest allowed step size (in addition to the round-off limit `16 ε |t|`).
    pub h_min: f64,
    /// Maximum number of step attempts (accepted + rejected) per call of
    /// [`crate::smooth::Esdirk::integrate_to`], or per mode segment of a hybrid solve.
    pub max_steps: usize,
    /// Maximum Newton iterations per stage (the DTU defaults use 20; Hairer's RADAU5 uses 7;
    /// default 10: with 7 the "predicted failure" test rejected iterations converging at rate θ ≈
    /// 0.09 from a first correction ~1e4 times the tolerance, measured on the index-1 test DAE at
    /// 1e-8).
    pub max_newton_iterations: usize,
    /// Newton convergence: stop when the estimated remaining error `θ/(1−θ)‖Δ‖` is at most
    /// `newton_tol` in the WRMS norm (1 = the error tolerance). The DTU defaults use 0.08; default
    /// 0.01, because the stage derivatives `F_i = (Y_i − ψ_i)/(hγ)` carry the Newton error into
    /// the error estimate without an `h` factor: on Robertson (DAE form, rtol 1e-8, ESDIRK34)
    /// 0.05 gave an estimate dominated by Newton noise and more steps than 0.01.
    pub newton_tol: f64,
    /// Reuse the Jacobian on the next step if the worst Newton contraction rate of this step was
    /// at most this value (Jacobian reuse across steps; 0 disables reuse). Default 0.01: the
    /// iteration matrix is refactorized every step anyway (`h` changes), so reuse saves only the
    /// Jacobian evaluation, which for the macro's analytic Jacobians costs about an `f`
    /// evaluation, while a fresh Jacobian saves Newton iterations. Measured with FSA against
    /// 0.1 (callgrind instructions): Robertson [0, 1e5] −4.8%, [0, 4e10] −2.9%, Van der Pol
    /// μ = 1000 to T = 500 −1.4%, to T = 2000 −14% (Newton iterations 7628 → 5652).
    pub jacobian_reuse_rate: f64,
    /// Include the forward sensitivities in the local error test (when they are enabled):
    /// a step must pass the test for the states *and* for `∂y/∂p`, estimated like the states'
    /// error (`h Σ d_j dF_j`, filtered through the iteration matrix) and weighted with the
    /// states' tolerances, `atol + rtol·|∂y/∂p|` (CVODES' `errconS` with parameter scales 1).
    /// The test is on `∂y(t)/∂p` at fixed `t`, the sensitivities the caller receives, also on a
    /// grid shifted by an event (`fsa/error_test.rs`).
    /// Default `false`: the sensitivities are the exact derivative of whatever steps the states
    /// choose; `true` makes the steps resolve the sensitivities too, at the cost of computing
    /// them for every attempt that passes the state test.
    pub sensitivity_error_test: bool,
    /// Whether the quadrature of the integral cost `∫ L dt` is in the local error test, and
    /// with which tolerances (CVODES' `errconQ`; [`CostErrorTest`]). Default
    /// [`CostErrorTest::StateTolerances`]: in the test, with the states' tolerances, so that
    /// by default the steps resolve `G` to the tolerances they resolve the states to (and its
    /// gradient, the derivative of the same quadrature, follows). Without it the
    /// steps resolve only the states, and the quadrature of `L` on them may be much worse:
    /// `tests/cost_error_test.rs` measures a thermostat's `G = ∫ (T − T_set)² dt` off by
    /// 43 rtol and `dG/dp` by up to 3.7e-4 relative at the default tolerances of
    /// [`crate::Solver`] (with the test, 0.67 rtol and 1.2e-5, in 1.8 times the steps).
    /// [`CostErrorTest::Off`] leaves the cost out (the steps the states choose, as before
    /// this default; fewer steps where `L` is harder to integrate than the states).
    /// The mode must have an integral cost ([`crate::smooth::SmoothMode::has_integral_cost`]; the
    /// modes of a [`crate::HybridModel`] do when it declares one), else this has no effect.
    /// For a hybrid model `L` is the sum of its integral costs, whatever the run's
    /// [`crate::HybridRun::objective`]: the steps are the same for every objective.
    ///
    /// In the test, each attempt also estimates the quadrature's local error like the states',
    /// `e_q = h Σ_j d_j L(T_j, Y_j, Z_j)` (Kristensen et al. 2005, Eq. 20, for the augmented
    /// state `q' = L`), weighted by `1/(atol_q + rtol_q·max(|Q_n|, |Q_n + h Σ_i b_i L_i|))`
    /// with `Q_n` the integral cost accumulated so far (not filtered through the iteration
    /// matrix: `q` does not feed back into the states). A step must pass the states' test
    /// *and* this one: the error norm is the larger of the two, as in CVODES. (As one more
    /// component of the states' WRMS norm, the quadrature's error, when small, diluted the
    /// states' test by `√(NY/(NY+1))`: on examples/relay_sliding the sliding arc took longer
    /// steps and the event times lost accuracy, 7.4e-10 → 4.4e-9.) The cost is still the
    /// quadrature of the accepted steps (`fsa/cost.rs`), and its gradient the exact
    /// derivative of it; only the step sequence changes: without the test, steps that grow on
    /// arcs where the states are resolved easily (polynomial, say) may integrate `L` poorly.
    pub cost_error_test: CostErrorTest,
    /// Safety target `ε` of the controller: the step aims at error `ε` (Kristensen et al. 2005,
    /// Eq. 29; `ε = 0.8` as in the DTU defaults).
    pub target: f64,
    /// Smallest and largest step-size ratio per step (default 0.2 and 5).
    pub fac_min: f64,
    /// See [`Options::fac_min`].
    pub fac_max: f64,
}

impl<const NY: usize, const NZ: usize> Options<NY, NZ> {
    /// Uniform scalar tolerances and the defaults documented on each field.
    pub fn new(rtol: f64, atol: f64) -> Self {
        Options {
            rtol_y: [rtol; NY],
            atol_y: [atol; NY],
            rtol_z: [rtol; NZ],
            atol_z: [atol; NZ],
            h_init: None,
            h_max: f64::INFINITY,
            h_min: 0.0,
            max_steps: 100_000,
            max_newton_iterations: 10,
            newton_tol: 0.01,
            jacobian_reuse_rate: 0.01,
            sensitivity_error_test: false,
            cost_error_test: CostErrorTest::StateTolerances,
            target: 0.8,
            fac_min: 0.2,
            fac_max: 5.0,
        }
    }

    /// The first setting outside its documented range, named with the rule it breaks (`None`
    /// if all are valid). [`crate::smooth::Esdirk::new`] reports it as
    /// [`crate::SolveError::InvalidArgument`], so that a nonsensical setting is named up front
    /// rather than surfacing later as a failed step or, worse, as a solve that "succeeds" with
    /// a controller that cannot work (a NaN `target`, `fac_max < 1`, …).
    pub fn invalid_setting(&self) -> Option<&'static str> {
        let finite_nonneg = |x: &f64| x.is_finite() && *x >= 0.0;
        let finite_positive = |x: &f64| x.is_finite() && *x > 0.0;
        let checks: [(bool, &'static str); 12] = [
            (
                self.rtol_y.iter().chain(&self.rtol_z).all(finite_nonneg),
                "rtol (must be finite and ≥ 0)",
            ),
            (
                self.atol_y.iter().chain(&self.atol_z).all(finite_positive),
                "atol (must be finite and > 0)",
            ),
            (
                self.h_init.as_ref().is_none_or(finite_positive),
                "h_init (must be finite and > 0)",
            ),
            (self.h_max > 0.0, "h_max (must be > 0)"),
            (
                finite_nonneg(&self.h_min) && self.h_min <= self.h_max,
                "h_min (must be finite, ≥ 0 and ≤ h_max)",
            ),
            (
                self.max_newton_iterations >= 1,
                "max_newton_iterations (must be ≥ 1)",
            ),
            (
                finite_positive(&self.newton_tol),
                "newton_tol (must be finite and > 0)",
            ),
            (
                self.jacobian_reuse_rate >= 0.0,
                "jacobian_reuse_rate (must be ≥ 0)",
            ),
            (
                match self.cost_error_test {
                    CostErrorTest::Tolerances { rtol, atol } => {
                        finite_nonneg(&rtol) && finite_positive(&atol)
                    }
                    CostErrorTest::Off | CostErrorTest::StateTolerances => true,
                },
                "cost_error_test (rtol_q must be finite and ≥ 0, atol_q finite and > 0)",
            ),
            (
                self.target > 0.0 && self.target <= 1.0,
                "target (must be in (0, 1])",
            ),
            (
                self.fac_min > 0.0 && self.fac_min <= 1.0,
                "fac_min (must be in (0, 1])",
            ),
            (
                self.fac_max.is_finite() && self.fac_max >= 1.0,
                "fac_max (must be finite and ≥ 1)",
            ),
        ];
        checks.iter().find(|(ok, _)| !ok).map(|(_, what)| *what)
    }

    /// The tolerances `(rtol_q, atol_q)` of the integral cost's error test
    /// ([`Options::cost_error_test`]), or `None` when it is off. With
    /// [`CostErrorTest::StateTolerances`] they are the smallest `rtol_y` and the smallest
    /// `atol_y` (the strictest of the differential states'; for the uniform tolerances of
    /// [`Options::new`], `rtol` and `atol`); a model without differential states has none, and
    /// the test is then off.
    pub fn cost_tolerances(&self) -> Option<(f64, f64)> {
        match self.cost_error_test {
            CostErrorTest::Off => None,
            CostErrorTest::Tolerances { rtol, atol } => Some((rtol, atol)),
            CostErrorTest::StateTolerances if NY == 0 => None,
            CostErrorTest::StateTolerances => {
                let smallest = |v: &[f64; NY]| v.iter().fold(f64::INFINITY, |a, &b| a.min(b));
                Some((smallest(&self.rtol_y), smallest(&self.atol_y)))
            }
        }
    }
}

/// Whether, and with which tolerances, the integral cost's quadrature is in the local error
/// test ([`Options::cost_error_test`], where the test is described).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CostErrorTest {
    /// Not in the test: the steps are those the states choose (CVODES' default).
    Off,
    /// In the test with the states' tolerances: `rtol_q` the smallest `rtol_y`, `atol_q` the
    /// smallest `atol_y`, read when the solve starts, so that they follow
    /// [`crate::Solver::tolerances`]. The default.
    StateTolerances,
    /// In the test with its own tolerances for the accumulated cost (`rtol ≥ 0`, `atol > 0`,
    /// both finite).
    Tolerances {
        /// `rtol_q`, relative to the accumulated cost `|Q|`.
        rtol: f64,
        /// `atol_q`, in the cost's units.
        atol: f64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The integral cost's error test: on by default with the strictest differential state's
    /// tolerances (not the algebraic ones, which only stop Newton), off, or its own.
    #[test]
    fn cost_tolerances_follow_the_setting() {
        let mut o = Options::<2, 1>::new(1e-6, 1e-9);
        assert_eq!(o.cost_error_test, CostErrorTest::StateTolerances);
        assert_eq!(o.cost_tolerances(), Some((1e-6, 1e-9)));
        (o.rtol_y, o.atol_y) = ([1e-5, 1e-7], [1e-8, 1e-10]);
        (o.rtol_z, o.atol_z) = ([1e-9], [1e-12]);
        assert_eq!(o.cost_tolerances(), Some((1e-7, 1e-10)));
        o.cost_error_test = CostErrorTest::Off;
        assert_eq!(o.cost_tolerances(), None);
        o.cost_error_test = CostErrorTest::Tolerances {
            rtol: 1e-4,
            atol: 1e-3,
        };
        assert_eq!(o.cost_tolerances(), Some((1e-4, 1e-3)));
        let no_states = Options::<0, 1>::new(1e-6, 1e-9);
        assert_eq!(no_states.cost_tolerances(), None);
    }

    /// Each setting, broken alone, is named; the defaults are valid.
    #[test]
    fn each_invalid_setting_is_named() {
        let ok = Options::<2, 1>::new(1e-6, 1e-9);
        assert_eq!(ok.invalid_setting(), None);
        let mut with_h_init = ok;
        with_h_init.h_init = Some(1e-3);
        assert_eq!(with_h_init.invalid_setting(), None);
        let mut with_cost_test = ok;
        with_cost_test.cost_error_test = CostErrorTest::Tolerances {
            rtol: 1e-6,
            atol: 1e-9,
        };
        assert_eq!(with_cost_test.invalid_setting(), None);
        type Edit = fn(&mut Options<2, 1>);
        let cases: [(Edit, &str); 19] = [
            (|o| o.rtol_y[1] = -1e-6, "rtol"),
            (|o| o.rtol_z[0] = f64::NAN, "rtol"),
            (|o| o.atol_y[0] = 0.0, "atol"),
            (|o| o.atol_z[0] = f64::INFINITY, "atol"),
            (|o| o.h_init = Some(-1.0), "h_init"),
            (|o| o.h_init = Some(f64::NAN), "h_init"),
            (|o| o.h_max = 0.0, "h_max"),
            (|o| o.h_max = f64::NAN, "h_max"),
            (|o| o.h_min = f64::INFINITY, "h_min"),
            (|o| (o.h_min, o.h_max) = (2.0, 1.0), "h_min"),
            (|o| o.max_newton_iterations = 0, "max_newton_iterations"),
            (|o| o.newton_tol = 0.0, "newton_tol"),
            (|o| o.jacobian_reuse_rate = f64::NAN, "jacobian_reuse_rate"),
            (
                |o| {
                    o.cost_error_test = CostErrorTest::Tolerances {
                        rtol: -1.0,
                        atol: 1e-9,
                    }
                },
                "cost_error_test",
            ),
            (
                |o| {
                    o.cost_error_test = CostErrorTest::Tolerances {
                        rtol: 1e-6,
                        atol: 0.0,
                    }
                },
                "cost_error_test",
            ),
            (|o| o.target = 1.5, "target"),
            (|o| o.fac_min = 0.0, "fac_min"),
            (|o| o.fac_max = 0.5, "fac_max"),
            (|o| o.fac_max = f64::INFINITY, "fac_max"),
        ];
        for (edit, field) in cases {
            let mut o = ok;
            edit(&mut o);
            let what = o.invalid_setting().expect("an invalid setting");
            assert!(what.starts_with(field), "{field}: {what}");
        }
    }
}
