//! The argmin adapter `hysens::argmin::Fit` (feature `argmin`) on the bouncing ball of
//! `examples/parameter_estimation/model.rs` (a sampled cost `½(h(t_k) − d_k)²`):
//!
//! - L-BFGS (adjoint gradient) and Gauss–Newton (forward-sensitivity Jacobian) recover the
//!   true `g` and `e` from noise-free data to 1e-6;
//! - the adapter's gradient, by the adjoint or from the residuals' forward sensitivities,
//!   equals `Solver::solve`'s forward-sensitivity `cost_gradient` to 1e-10 relative, with
//!   free parameters and a free initial state in any order;
//! - the residual Jacobian equals central differences of the residuals, also for an
//!   algebraic variable observed in a switching index-1 DAE;
//! - every failure (a bad setting, a non-finite or misshapen `θ`, missing data or
//!   observation, unknown names) is an `Err` (an argmin `Error` wrapping a `FitError` from the
//!   traits), never a panic, also inside argmin's `Executor`.
#![cfg(feature = "argmin")]

use hysens::argmin::core::{CostFunction, Error, Executor, Gradient, Jacobian, Operator, State};
use hysens::argmin::solver::gaussnewton::GaussNewton;
use hysens::argmin::solver::linesearch::MoreThuenteLineSearch;
use hysens::argmin::solver::quasinewton::LBFGS;
use hysens::argmin::{DMatrix, DVector, Fit, FitCounts, FitError};
use hysens::hybrid_model;
use hysens::runtime::{InitialStates, Params, SolveError, Wrt};

use crate::estimation_model::ball;

const TRUTH: [f64; 2] = [9.81, 0.8];
const TF: f64 = 1.5;

/// Sample times every 0.04 s on `(0, 1.5]`.
fn times() -> Vec<f64> {
    (1..=37).map(|k| 0.04 * f64::from(k)).collect()
}

fn params([g, e]: [f64; 2]) -> ball::P {
    ball::P { g, e }
}

const X0: ball::X = ball::X { h: 1.0, v: 0.0 };

/// The heights of the model itself at `θ` (from 1 m at rest).
fn heights(times: &[f64], theta: [f64; 2]) -> Vec<f64> {
    // The model's sampled cost needs a datum per sample: zeros (that misfit is not read).
    let zeros = vec![0.0; times.len()];
    let solution = ball::Model
        .solver()
        .tolerances(1e-10, 1e-12)
        .samples(times)
        .data(&zeros)
        .solve(0.0, TF, &X0, &params(theta))
        .expect("the data solve succeeds");
    solution.samples.iter().map(|s| s.x.h).collect()
}

/// The `FitError` inside an argmin error.
fn fit_error(error: &hysens::argmin::core::Error) -> FitError {
    error
        .downcast_ref::<FitError>()
        .unwrap_or_else(|| panic!("not a FitError: {error}"))
        .clone()
}

/// Checks `jacobian`, the residual Jacobian of `fit` at `theta`, column by column against
/// central differences of the residuals (step `1e-6·max(|θ_j|, 1)`), to `1e-6` of its
/// largest entry.
fn assert_jacobian_matches_central_differences<F>(
    fit: &F,
    theta: &DVector<f64>,
    jacobian: &DMatrix<f64>,
) where
    F: Operator<Param = DVector<f64>, Output = DVector<f64>>,
{
    let scale = jacobian.amax();
    for j in 0..theta.len() {
        let delta = 1e-6 * theta[j].abs().max(1.0);
        let (mut plus, mut minus) = (theta.clone(), theta.clone());
        plus[j] += delta;
        minus[j] -= delta;
        let column = (fit.apply(&plus).unwrap() - fit.apply(&minus).unwrap()) / (2.0 * delta);
        for k in 0..jacobian.nrows() {
            let (exact, differences) = (jacobian[(k, j)], column[k]);
            assert!(
                (exact - differences).abs() <= 1e-6 * scale,
                "J[{k}, {j}] = {exact:e}, central differences {differences:e}"
            );
        }
    }
}

/// The outcome of each of the four argmin trait methods of `fit` at `theta` (cost,
/// gradient, residuals, Jacobian), their values dropped.
fn every_trait_method<F>(fit: &F, theta: &DVector<f64>) -> [Result<(), Error>; 4]
where
    F: CostFunction<Param = DVector<f64>, Output = f64>
        + Gradient<Param = DVector<f64>, Gradient = DVector<f64>>
        + Operator<Param = DVector<f64>, Output = DVector<f64>>
        + Jacobian<Param = DVector<f64>, Jacobian = DMatrix<f64>>,
{
    [
        fit.cost(theta).map(|_| ()),
        fit.gradient(theta).map(|_| ()),
        fit.apply(theta).map(|_| ()),
        fit.jacobian(theta).map(|_| ()),
    ]
}

#[test]
fn noise_free_fits_recover_the_truth() {
    let times = times();
    let data = heights(&times, TRUTH);
    let fit = Fit::new(
        ball::Model.solver().tolerances(1e-10, 1e-12),
        0.0,
        TF,
        &X0,
        &params([8.0, 0.6]),
    )
    .samples(&times, &data)
    .free(["g", "e"])
    .unwrap()
    .observe("h")
    .unwrap();
    let guess = fit.initial_guess();
    assert_eq!(guess.as_slice(), [8.0, 0.6]);
    assert_eq!(fit.names(), ["g", "e"]);
    let close =
        |theta: &DVector<f64>| (0..2).all(|j| ((theta[j] - TRUTH[j]) / TRUTH[j]).abs() < 1e-6);

    let lbfgs = LBFGS::new(MoreThuenteLineSearch::new(), 5)
        .with_tolerance_grad(1e-10)
        .unwrap();
    let result = Executor::new(&fit, lbfgs)
        .configure(|state| state.param(guess.clone()).max_iters(100))
        .run()
        .unwrap();
    let theta = result.state().get_best_param().unwrap();
    assert!(close(theta), "L-BFGS: {theta}");
    let counts = fit.counts();
    assert!(counts.adjoint > 0 && counts.plain == 0 && counts.forward_sensitivities == 0);
    // Each trial point's gradient comes with its cost.
    assert!(counts.reused >= counts.adjoint, "{counts:?}");

    let result = Executor::new(&fit, GaussNewton::new())
        .configure(|state| state.param(guess.clone()).max_iters(30))
        .run()
        .unwrap();
    let theta = result.state().get_best_param().unwrap();
    assert!(close(theta), "Gauss–Newton: {theta}");
    // One solve with sensitivities per iterate: the Jacobian comes with the residuals.
    let newton = fit.counts();
    assert_eq!(newton.plain, 0);
    assert!(newton.forward_sensitivities > 0);
    assert!(newton.reused - counts.reused >= newton.forward_sensitivities - 1);

    // The covariance at the truth exists, and is symmetric and positive.
    let covariance = fit.covariance(theta.as_slice(), 0.01).unwrap();
    assert!(covariance[(0, 0)] > 0.0 && covariance[(1, 1)] > 0.0);
    assert!((covariance[(0, 1)] - covariance[(1, 0)]).abs() <= 1e-12 * covariance[(0, 0)]);
}

/// The forward-sensitivity gradient `dG/dθ` of `Solver::solve` for the entries `wrt`.
fn forward_gradient(
    times: &[f64],
    data: &[f64],
    x0: &ball::X,
    p: &ball::P,
    wrt: &[Wrt<'_>],
) -> Vec<f64> {
    let solution = ball::Model
        .solver()
        .tolerances(1e-10, 1e-12)
        .samples(times)
        .data(data)
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, TF, x0, p)
        .unwrap();
    wrt.iter()
        .map(|&w| solution.cost_gradient(w).unwrap())
        .collect()
}

fn assert_relative(a: &[f64], b: &[f64], tolerance: f64, what: &str) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        let scale = x.abs().max(y.abs()).max(1e-300);
        assert!(
            (x - y).abs() <= tolerance * scale,
            "{what}: {a:?} vs {b:?} (relative {:e})",
            (x - y).abs() / scale
        );
    }
}

#[test]
fn gradient_equals_the_forward_sensitivities_of_solve() {
    let times = times();
    let data = heights(&times, TRUTH);
    // Points with two and with three impacts in the window; away from the optimum.
    for theta in [[8.0, 0.6], [9.0, 0.75], [10.5, 0.85], [9.81, 0.8]] {
        for h0 in [1.0, 1.3] {
            let x0 = ball::X { h: h0, v: 0.0 };
            let p = params(theta);
            let setups: [(&[Wrt<'_>], Vec<f64>); 2] = [
                (&[Wrt::Param("g"), Wrt::Param("e")], theta.to_vec()),
                (
                    &[Wrt::InitialState("h"), Wrt::Param("e")],
                    vec![h0, theta[1]],
                ),
            ];
            for (free, at) in setups {
                let reference = forward_gradient(&times, &data, &x0, &p, free);
                let fit = || {
                    Fit::new(
                        ball::Model.solver().tolerances(1e-10, 1e-12),
                        0.0,
                        TF,
                        &x0,
                        &p,
                    )
                    .samples(&times, &data)
                    .free(free.iter().copied())
                    .unwrap()
                    .observe("h")
                    .unwrap()
                };
                let at = DVector::from_vec(at);
                // By the adjoint.
                let adjoint = fit();
                assert_eq!(adjoint.initial_guess(), at);
                let gradient = adjoint.gradient(&at).unwrap();
                assert_eq!(adjoint.counts().adjoint, 1);
                assert_relative(gradient.as_slice(), &reference, 1e-10, "adjoint");
                // From the forward sensitivities of the residuals' solve.
                let forward = fit();
                forward.apply(&at).unwrap();
                let gradient = forward.gradient(&at).unwrap();
                let counts = forward.counts();
                assert_eq!((counts.forward_sensitivities, counts.reused), (1, 1));
                assert_relative(gradient.as_slice(), &reference, 1e-12, "forward");
                // The cost is the model's: ½‖r‖² for this model.
                let r = forward.apply(&at).unwrap();
                let cost = forward.cost(&at).unwrap();
                assert_relative(&[cost], &[0.5 * r.norm_squared()], 1e-12, "cost");
            }
        }
    }
}

#[test]
fn residual_jacobian_equals_central_differences() {
    let times = times();
    let data = heights(&times, TRUTH);
    let x0 = ball::X { h: 1.2, v: 0.5 };
    let fit = Fit::new(
        ball::Model.solver().tolerances(1e-12, 1e-14),
        0.0,
        TF,
        &x0,
        &params([9.0, 0.7]),
    )
    .samples(&times, &data)
    .free([Wrt::Param("g"), Wrt::Param("e"), Wrt::InitialState("v")])
    .unwrap()
    .observe("h")
    .unwrap();
    let theta = fit.initial_guess();
    let jacobian = fit.jacobian(&theta).unwrap();
    assert_eq!(jacobian.shape(), (times.len(), 3));
    assert_jacobian_matches_central_differences(&fit, &theta, &jacobian);
}

/// A relay: a mass driven by a spring force `f` (an algebraic variable) whose rest position
/// flips at `q = ±0.5`, with a reset; the data measure the force.
#[hybrid_model]
pub mod relay {
    /// Position and velocity.
    #[states]
    pub struct X {
        /// Position.
        pub q: f64,
        /// Velocity.
        pub v: f64,
    }
    /// The force.
    #[algebraic]
    pub struct Z {
        /// Force.
        pub f: f64,
    }
    /// Stiffness and damping.
    #[params]
    pub struct P {
        /// Stiffness.
        pub k: f64,
        /// Damping.
        pub c: f64,
    }
    #[mode(initial)]
    fn push(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
        (
            X {
                q: x.v,
                v: z.f - p.c * x.v,
            },
            [z.f + p.k * (x.q - 1.0)],
        )
    }
    #[mode]
    fn pull(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
        (
            X {
                q: x.v,
                v: z.f - p.c * x.v,
            },
            [z.f + p.k * (x.q + 1.0)],
        )
    }
    #[guard(push -> pull, rising)]
    fn far(x: &X) -> f64 {
        x.q - 0.5
    }
    #[guard(pull -> push, falling)]
    fn near(x: &X) -> f64 {
        x.q + 0.5
    }
    #[reset(far)]
    fn brake(x: &X) -> X {
        X {
            q: x.q,
            v: 0.5 * x.v,
        }
    }
    /// `½ (f(t_k) − d_k)²`
    #[cost(sampled)]
    fn misfit(z: &Z, d: f64) -> f64 {
        0.5 * (z.f - d).powi(2)
    }
}

#[test]
fn algebraic_observation_of_a_dae() {
    let times: Vec<f64> = (1..=40).map(|k| 0.2 * f64::from(k)).collect();
    let x0 = relay::X { q: 0.0, v: 0.0 };
    let truth = relay::P { k: 2.0, c: 0.3 };
    let solver = relay::Model.solver().tolerances(1e-10, 1e-12);
    let zeros = vec![0.0; times.len()];
    let solution = solver
        .samples(&times)
        .data(&zeros)
        .solve(0.0, 8.0, &x0, &truth)
        .unwrap();
    assert!(solution.events.len() >= 2, "{:?}", solution.events);
    let data: Vec<f64> = solution.samples.iter().map(|s| s.z[0] + 0.01).collect();
    let fit = Fit::new(solver, 0.0, 8.0, &x0, &relay::P { k: 2.2, c: 0.25 })
        .samples(&times, &data)
        .free([Wrt::Param("k"), Wrt::Param("c"), Wrt::InitialState("v")])
        .unwrap()
        .observe("f")
        .unwrap();
    let theta = fit.initial_guess();
    assert_eq!(theta.as_slice(), [2.2, 0.25, 0.0]);
    // The gradient: adjoint, forward sensitivities and ½‖r‖² agree.
    let adjoint = fit.gradient(&theta).unwrap();
    let residuals = fit.apply(&theta).unwrap();
    let jacobian = fit.jacobian(&theta).unwrap();
    assert_relative(
        adjoint.as_slice(),
        (jacobian.transpose() * &residuals).as_slice(),
        1e-9,
        "adjoint vs Jᵀr",
    );
    // The Jacobian: central differences, with the same events on both sides.
    assert_jacobian_matches_central_differences(&fit, &theta, &jacobian);
}

#[test]
fn failures_are_argmin_errors_not_panics() {
    let times = times();
    let data = heights(&times, TRUTH);
    let good = DVector::from_vec(vec![9.0, 0.7]);

    // A negative tolerance: every trait method fails with the solver's error.
    let fit = Fit::new(
        ball::Model.solver().tolerances(-1e-8, 1e-10),
        0.0,
        TF,
        &X0,
        &params([9.0, 0.7]),
    )
    .samples(&times, &data)
    .observe("h")
    .unwrap();
    for failure in every_trait_method(&fit, &good) {
        let error = fit_error(&failure.unwrap_err());
        assert!(
            matches!(
                error,
                FitError::Solve {
                    error: SolveError::InvalidArgument { .. },
                    ..
                }
            ),
            "{error:?}"
        );
        assert!(!error.to_string().is_empty());
    }
    assert!(matches!(
        fit.objective(&[9.0, 0.7]),
        Err(FitError::Solve { .. })
    ));
    assert!(matches!(
        fit.covariance(&[9.0, 0.7], 0.01),
        Err(FitError::Solve { .. })
    ));

    // Through argmin's Executor: L-BFGS and Gauss–Newton end with the error.
    let lbfgs = LBFGS::new(MoreThuenteLineSearch::new(), 5);
    let run = Executor::new(&fit, lbfgs)
        .configure(|state| state.param(good.clone()).max_iters(10))
        .run();
    assert!(matches!(
        fit_error(&run.err().expect("the run fails")),
        FitError::Solve { .. }
    ));
    let run = Executor::new(&fit, GaussNewton::new())
        .configure(|state| state.param(good.clone()).max_iters(10))
        .run();
    assert!(matches!(
        fit_error(&run.err().expect("the run fails")),
        FitError::Solve { .. }
    ));

    // Non-finite parameters, with good settings.
    let fit = Fit::new(
        ball::Model.solver().tolerances(1e-8, 1e-10),
        0.0,
        TF,
        &X0,
        &params([9.0, 0.7]),
    )
    .samples(&times, &data)
    .observe("h")
    .unwrap();
    for bad in [
        [f64::NAN, 0.7],
        [9.0, f64::INFINITY],
        [f64::NEG_INFINITY, f64::NAN],
    ] {
        let bad = DVector::from_vec(bad.to_vec());
        for failure in every_trait_method(&fit, &bad) {
            let error = fit_error(&failure.unwrap_err());
            assert!(matches!(error, FitError::Solve { .. }), "{error:?}");
        }
    }
    let lbfgs = LBFGS::new(MoreThuenteLineSearch::new(), 5);
    let nan = DVector::from_vec(vec![f64::NAN, 0.7]);
    let run = Executor::new(&fit, lbfgs)
        .configure(|state| state.param(nan.clone()).max_iters(10))
        .run();
    assert!(run.is_err());

    // A parameter vector of the wrong length.
    let short = DVector::from_vec(vec![9.0]);
    let error = fit_error(&fit.cost(&short).unwrap_err());
    assert_eq!(
        error,
        FitError::Dimension {
            expected: 2,
            got: 1
        }
    );
    assert!(fit.values(&[1.0, 2.0, 3.0]).is_err());

    // Residuals without an observed variable, or with data of the wrong length.
    let unobserved =
        Fit::new(ball::Model.solver(), 0.0, TF, &X0, &params([9.0, 0.7])).samples(&times, &data);
    assert_eq!(
        fit_error(&unobserved.apply(&good).unwrap_err()),
        FitError::NoObservation
    );
    assert!(unobserved.cost(&good).is_ok());
    let mismatched = Fit::new(ball::Model.solver(), 0.0, TF, &X0, &params([9.0, 0.7]))
        .samples(&times, &data[1..])
        .observe("h")
        .unwrap();
    assert_eq!(
        fit_error(&mismatched.jacobian(&good).unwrap_err()),
        FitError::DataLength {
            times: times.len(),
            data: times.len() - 1
        }
    );
    assert!(mismatched.cost(&good).is_err());

    // Unknown and repeated names.
    let fit = || Fit::new(ball::Model.solver(), 0.0, TF, &X0, &params([9.0, 0.7]));
    assert!(matches!(
        fit().free(["q"]),
        Err(FitError::UnknownName {
            kind: "parameter",
            ..
        })
    ));
    assert!(matches!(
        fit().free([Wrt::InitialState("g")]),
        Err(FitError::UnknownName {
            kind: "initial state",
            ..
        })
    ));
    assert!(matches!(
        fit().free(["g", "p.g"]),
        Err(FitError::Duplicate { .. })
    ));
    assert!(matches!(
        fit().observe("w"),
        Err(FitError::UnknownName {
            kind: "variable",
            ..
        })
    ));

    // Data that cannot determine `e` (every sample before the first impact): no covariance.
    let early: Vec<f64> = (1..=10).map(|k| 0.04 * f64::from(k)).collect();
    let early_data = heights(&early, TRUTH);
    let fit = fit().samples(&early, &early_data).observe("h").unwrap();
    assert_eq!(fit.covariance(&TRUTH, 0.01), Err(FitError::Singular));
}

/// The cost and its gradient of `fit` at `theta`, after which its residuals and their
/// Jacobian are evaluated too (in the order argmin's methods would ask).
fn cost_gradient_residuals_jacobian<F>(fit: &F, theta: &DVector<f64>) -> (f64, DVector<f64>)
where
    F: CostFunction<Param = DVector<f64>, Output = f64>
        + Gradient<Param = DVector<f64>, Gradient = DVector<f64>>
        + Operator<Param = DVector<f64>, Output = DVector<f64>>
        + Jacobian<Param = DVector<f64>, Jacobian = DMatrix<f64>>,
{
    let values = (fit.cost(theta).unwrap(), fit.gradient(theta).unwrap());
    fit.apply(theta).unwrap();
    fit.jacobian(theta).unwrap();
    values
}

#[test]
fn derivatives_with_values_decides_what_a_cost_solves() {
    let times = times();
    let data = heights(&times, TRUTH);
    let theta = DVector::from_vec(vec![9.0, 0.7]);
    let fit = |eager| {
        Fit::new(
            ball::Model.solver().tolerances(1e-8, 1e-10),
            0.0,
            TF,
            &X0,
            &params([9.0, 0.7]),
        )
        .samples(&times, &data)
        .observe("h")
        .unwrap()
        .derivatives_with_values(eager)
    };
    // Eager (the default): the cost brings its gradient, the residuals their Jacobian.
    let eager = fit(true);
    let values = cost_gradient_residuals_jacobian(&eager, &theta);
    let expected = FitCounts {
        plain: 0,
        forward_sensitivities: 1,
        adjoint: 1,
        reused: 2,
    };
    assert_eq!(eager.counts(), expected);
    assert_eq!(eager.counts().solves(), 2);
    // Lazy: values alone are plain solves; derivatives solve again. The same numbers.
    let lazy = fit(false);
    assert_eq!(cost_gradient_residuals_jacobian(&lazy, &theta), values);
    assert_eq!(
        lazy.counts(),
        FitCounts {
            plain: 2,
            reused: 0,
            ..expected
        }
    );
    // Changing the point solves again.
    let other = DVector::from_vec(vec![9.5, 0.7]);
    lazy.cost(&other).unwrap();
    assert_eq!(lazy.counts().plain, 3);
}
