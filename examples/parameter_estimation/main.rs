//! Parameter estimation: gravity `g` and restitution `e` of a bouncing ball from its sampled
//! heights, with argmin's optimizers on `hysens::argmin::Fit` (feature `argmin`).
//!
//! The ball is dropped from 1 m at rest; its height is measured every 0.04 s up to 1.5 s (37
//! samples; two impacts, near 0.45 s and 1.17 s, for the true `g = 9.81`, `e = 0.8`; the third
//! comes at 1.75 s, so the number of impacts in the window does not change near the truth).
//! The first flight determines `g`, the second `e`. The objective is the model's sampled cost
//! `G(g, e) = ½ Σ_k (h(t_k) − d_k)²`. The data are the closed-form heights (piecewise
//! parabolas), independent of the solver. From the poor guess `g = 8`, `e = 0.6` (three
//! impacts in the window):
//!
//! (a) noise-free data, L-BFGS with hysens gradients (the discrete adjoint): the truth is
//!     recovered to 1e-6 relative (checked, as are (b) and (c));
//! (b) the same L-BFGS with central finite differences of the same solver, for the solves and
//!     the time the exact gradient saves;
//! (c) the same data with Gauss–Newton on the residuals and their Jacobian from the forward
//!     sensitivities;
//! (d) noisy data (σ = 1 cm, a fixed seed): Gauss–Newton, then the linearized covariance
//!     `σ²(JᵀJ)⁻¹` at the estimate; the estimate lies within 3 standard deviations of the
//!     truth (checked). The checks end the output, as a table against the truth; the run
//!     fails if one does not hold.
//!
//! The samples are 0.04 s apart, not 0.05 s: from the guess the first impact is at exactly
//! `√(2/8) = 0.5 s`, and a sample time exactly at an event time can make the solve fail with a
//! step-size underflow (a runtime limitation found while writing this example).
//!
//! Run with (the example needs the facade's `argmin` feature):
//!
//! ```sh
//! cargo run --release -p hysens-examples --features argmin --example parameter_estimation
//! ```

use std::sync::{Arc, Mutex};
use std::time::Instant;

use hysens::argmin::core::observers::{Observe, ObserverMode};
use hysens::argmin::core::{
    CostFunction, Error, Executor, Gradient, IterState, Jacobian, Operator, OptimizationResult,
    Solver, State, KV,
};
use hysens::argmin::solver::gaussnewton::GaussNewton;
use hysens::argmin::solver::linesearch::MoreThuenteLineSearch;
use hysens::argmin::solver::quasinewton::LBFGS;
use hysens::argmin::{DMatrix, DVector, Fit, FitCounts};

#[path = "../common/check.rs"]
mod check;
mod model;
use model::ball;

/// The true gravity and restitution.
const TRUTH: [f64; 2] = [9.81, 0.8];
/// The initial guess of `(g, e)`.
const GUESS: [f64; 2] = [8.0, 0.6];
/// The drop height (m).
const H0: f64 = 1.0;
/// The end of the window (s).
const TF: f64 = 1.5;
/// Sampling period (s).
const PERIOD: f64 = 0.04;
/// Standard deviation of the measurement noise (m).
const SIGMA: f64 = 0.01;
/// The seed of the noise.
const SEED: u64 = 2024;
/// Solver tolerances (relative, absolute).
const TOLERANCES: (f64, f64) = (1e-10, 1e-12);
/// Each fit is run this many times more for its mean wall time (after the run that prints):
/// fewer in a debug build, which CI runs and whose times mean little.
const TIMING_RUNS: u32 = if cfg!(debug_assertions) { 3 } else { 50 };

/// The closed-form height at `t` of a ball dropped from `h0` at rest at `t = 0`: parabolas
/// `h + v s − g s²/2` between impacts, each impact at `τ = (v + √(v² + 2gh))/g` after the
/// last, with the velocity reversed and scaled by `e`.
fn closed_form_height(t: f64, h0: f64, g: f64, e: f64) -> f64 {
    let (mut start, mut h, mut v) = (0.0, h0, 0.0);
    for _ in 0..1000 {
        let tau = (v + (v * v + 2.0 * g * h).sqrt()) / g;
        if t <= start + tau {
            let s = t - start;
            return h + v * s - 0.5 * g * s * s;
        }
        (start, h, v) = (start + tau, 0.0, -e * (v - g * tau));
    }
    0.0
}

/// Standard normal deviates from a fixed seed: SplitMix64 (Steele, Lea & Flood 2014) for
/// uniforms, the Box–Muller transform for normals.
struct Normal(u64);

impl Normal {
    /// A uniform deviate in `(0, 1]`.
    fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        ((z >> 11) as f64 + 1.0) / (1u64 << 53) as f64
    }

    /// A standard normal deviate: `√(−2 ln u₁) cos(2π u₂)`.
    fn sample(&mut self) -> f64 {
        let (u1, u2) = (self.uniform(), self.uniform());
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

/// A cost with its gradient by central differences (for comparison with the exact one):
/// `∂G/∂θ_j ≈ (G(θ + δ_j e_j) − G(θ − δ_j e_j)) / 2δ_j`, `δ_j = ε^{1/3} max(|θ_j|, 1)`, the
/// step that balances truncation and round-off (Nocedal & Wright 2006, §8.1).
#[derive(Clone, Copy)]
struct CentralDifferences<O>(O);

impl<O: CostFunction<Param = DVector<f64>, Output = f64>> CostFunction for CentralDifferences<O> {
    type Param = DVector<f64>;
    type Output = f64;

    fn cost(&self, theta: &DVector<f64>) -> Result<f64, Error> {
        self.0.cost(theta)
    }
}

impl<O: CostFunction<Param = DVector<f64>, Output = f64>> Gradient for CentralDifferences<O> {
    type Param = DVector<f64>;
    type Gradient = DVector<f64>;

    fn gradient(&self, theta: &DVector<f64>) -> Result<DVector<f64>, Error> {
        let mut gradient = DVector::zeros(theta.len());
        for j in 0..theta.len() {
            let delta = f64::EPSILON.cbrt() * theta[j].abs().max(1.0);
            let (mut plus, mut minus) = (theta.clone(), theta.clone());
            plus[j] += delta;
            minus[j] -= delta;
            gradient[j] = (self.0.cost(&plus)? - self.0.cost(&minus)?) / (2.0 * delta);
        }
        Ok(gradient)
    }
}

/// One iteration as printed: the cost `½‖r‖²`, the gradient norm (if the method has one)
/// and `θ = (g, e)`.
#[derive(Clone, Debug)]
struct Row {
    iteration: u64,
    cost: f64,
    gradient_norm: Option<f64>,
    theta: DVector<f64>,
}

/// Records every iteration of a run.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<Row>>>);

impl Recorder {
    fn push(&self, row: Option<Row>) {
        if let (Some(row), Ok(mut rows)) = (row, self.0.lock()) {
            rows.push(row);
        }
    }

    fn rows(&self) -> Vec<Row> {
        self.0.lock().map(|rows| rows.clone()).unwrap_or_default()
    }
}

/// The state of L-BFGS: the cost is `G`, the gradient is in the state.
type LbfgsState = IterState<DVector<f64>, DVector<f64>, (), (), (), f64>;
/// The state of Gauss–Newton: argmin's cost is `‖r‖`, the residuals are in the state.
type GaussNewtonState = IterState<DVector<f64>, (), DMatrix<f64>, (), DVector<f64>, f64>;

/// The states whose iterations a [`Recorder`] records.
trait Recorded: State {
    /// The row of this state as iteration `iteration`, if it has parameters.
    fn row(&self, iteration: u64) -> Option<Row>;
}

impl Recorded for LbfgsState {
    fn row(&self, iteration: u64) -> Option<Row> {
        Some(Row {
            iteration,
            cost: self.get_cost(),
            gradient_norm: self.get_gradient().map(|g| g.norm()),
            theta: self.get_param()?.clone(),
        })
    }
}

impl Recorded for GaussNewtonState {
    /// Gauss–Newton's iterations: its state has `‖r‖`, not the gradient `Jᵀr` (filled in
    /// after the run by [`fill_gradient_norms`]).
    fn row(&self, iteration: u64) -> Option<Row> {
        Some(Row {
            iteration,
            cost: 0.5 * self.get_cost().powi(2),
            gradient_norm: None,
            theta: self.get_param()?.clone(),
        })
    }
}

impl<S: Recorded> Observe<S> for Recorder {
    fn observe_init(&mut self, _: &str, state: &S, _: &KV) -> Result<(), Error> {
        self.push(state.row(0));
        Ok(())
    }

    fn observe_iter(&mut self, state: &S, _: &KV) -> Result<(), Error> {
        // argmin counts the iteration after observing it.
        self.push(state.row(state.get_iter() + 1));
        Ok(())
    }
}

/// What a fit found and what it took.
struct Outcome {
    theta: DVector<f64>,
    iterations: u64,
    termination: String,
    rows: Vec<Row>,
    /// The solves of one fit.
    counts: FitCounts,
    /// Mean wall time of one fit (s).
    seconds: f64,
}

/// The result of one argmin run over `θ = (g, e)`.
type Run<O, S, G, J, R> =
    Result<OptimizationResult<O, S, IterState<DVector<f64>, G, J, (), R, f64>>, Error>;

/// Minimizes `problem` with L-BFGS (More–Thuente line search, memory 5) from `guess`;
/// `counts` reads the problem's solve counter.
fn lbfgs<O>(
    problem: O,
    guess: &DVector<f64>,
    counts: impl Fn() -> FitCounts,
) -> Result<Outcome, Error>
where
    O: Clone
        + CostFunction<Param = DVector<f64>, Output = f64>
        + Gradient<Param = DVector<f64>, Gradient = DVector<f64>>,
{
    let run = |recorder: Option<Recorder>| {
        let solver = LBFGS::new(MoreThuenteLineSearch::new(), 5)
            .with_tolerance_grad(1e-10)?
            .with_tolerance_cost(0.0)?;
        execute(problem.clone(), solver, guess, 200, recorder)
    };
    timed(run, counts)
}

/// Minimizes `½‖r‖²` of `problem` with Gauss–Newton (full steps) from `guess`, then fills in
/// the gradient norms of its rows ([`fill_gradient_norms`]).
fn gauss_newton<O>(
    problem: O,
    guess: &DVector<f64>,
    counts: impl Fn() -> FitCounts,
) -> Result<Outcome, Error>
where
    O: Clone
        + Operator<Param = DVector<f64>, Output = DVector<f64>>
        + Jacobian<Param = DVector<f64>, Jacobian = DMatrix<f64>>
        + Gradient<Param = DVector<f64>, Gradient = DVector<f64>>,
{
    let run = |recorder: Option<Recorder>| {
        let solver = GaussNewton::new().with_tolerance(1e-14)?;
        execute(problem.clone(), solver, guess, 50, recorder)
    };
    let mut outcome = timed(run, counts)?;
    fill_gradient_norms(&mut outcome.rows, &problem)?;
    Ok(outcome)
}

/// Runs `solver` on `problem` from `guess` for at most `max_iters` iterations, observed by
/// `recorder` if there is one.
fn execute<O, S, G, J, R>(
    problem: O,
    solver: S,
    guess: &DVector<f64>,
    max_iters: u64,
    recorder: Option<Recorder>,
) -> Run<O, S, G, J, R>
where
    S: Solver<O, IterState<DVector<f64>, G, J, (), R, f64>>,
    IterState<DVector<f64>, G, J, (), R, f64>: Recorded<Float = f64>,
{
    let mut executor = Executor::new(problem, solver)
        .configure(|state| state.param(guess.clone()).max_iters(max_iters));
    if let Some(recorder) = recorder {
        executor = executor.add_observer(recorder, ObserverMode::Always);
    }
    executor.run()
}

/// Runs `run` once with a recorder and reads the solves it took from `counts`, then runs it
/// [`TIMING_RUNS`] times more for the mean wall time.
fn timed<O, S, G, J, R>(
    run: impl Fn(Option<Recorder>) -> Run<O, S, G, J, R>,
    counts: impl Fn() -> FitCounts,
) -> Result<Outcome, Error> {
    let before = counts();
    let recorder = Recorder::default();
    let result = run(Some(recorder.clone()))?;
    let after = counts();
    let state = result.state();
    let theta = state
        .get_best_param()
        .cloned()
        .ok_or_else(|| Error::msg("the run has no parameters"))?;
    let start = Instant::now();
    for _ in 0..TIMING_RUNS {
        run(None)?;
    }
    Ok(Outcome {
        theta,
        iterations: state.get_iter(),
        termination: state.get_termination_status().to_string(),
        rows: recorder.rows(),
        counts: FitCounts {
            plain: after.plain - before.plain,
            forward_sensitivities: after.forward_sensitivities - before.forward_sensitivities,
            adjoint: after.adjoint - before.adjoint,
            reused: after.reused - before.reused,
        },
        seconds: start.elapsed().as_secs_f64() / f64::from(TIMING_RUNS),
    })
}

/// Prints the iterations of a run.
fn print_rows(rows: &[Row]) {
    println!("  iter        cost      |grad|                g                e");
    for row in rows {
        let gradient = row
            .gradient_norm
            .map_or_else(|| "-".to_string(), |n| format!("{n:.2e}"));
        println!(
            "  {:>4}  {:>10.3e}  {gradient:>10}  {:>15.12}  {:>15.12}",
            row.iteration, row.cost, row.theta[0], row.theta[1]
        );
    }
}

/// The gradient norms `‖Jᵀr‖` of the rows that lack them (Gauss–Newton's), by the adjoint,
/// after the run (these solves are not counted in the run's).
fn fill_gradient_norms<O>(rows: &mut [Row], problem: &O) -> Result<(), Error>
where
    O: Gradient<Param = DVector<f64>, Gradient = DVector<f64>>,
{
    for row in rows.iter_mut().filter(|row| row.gradient_norm.is_none()) {
        row.gradient_norm = Some(problem.gradient(&row.theta)?.norm());
    }
    Ok(())
}

/// The relative errors of `(g, e)` against the truth.
fn relative_errors(theta: &DVector<f64>) -> [f64; 2] {
    [0, 1].map(|j| ((theta[j] - TRUTH[j]) / TRUTH[j]).abs())
}

/// Prints the iterations of a fit, then what it found and took.
fn print_outcome(outcome: &Outcome) {
    print_rows(&outcome.rows);
    let [dg, de] = relative_errors(&outcome.theta);
    let c = &outcome.counts;
    println!(
        "  {} after {} iterations: g = {:.12}, e = {:.12}; relative errors {dg:.1e}, {de:.1e}",
        outcome.termination, outcome.iterations, outcome.theta[0], outcome.theta[1]
    );
    println!(
        "  solves per fit: {} ({} plain, {} with forward sensitivities, {} adjoint), {} reused; \
         wall time per fit {:.3} ms (mean of {TIMING_RUNS})",
        c.solves(),
        c.plain,
        c.forward_sensitivities,
        c.adjoint,
        c.reused,
        outcome.seconds * 1e3
    );
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let times: Vec<f64> = (1..)
        .map(|k| PERIOD * f64::from(k))
        .take_while(|&t| t <= TF + 1e-12)
        .collect();
    let clean: Vec<f64> = times
        .iter()
        .map(|&t| closed_form_height(t, H0, TRUTH[0], TRUTH[1]))
        .collect();
    let mut normal = Normal(SEED);
    let noisy: Vec<f64> = clean.iter().map(|d| d + SIGMA * normal.sample()).collect();

    let x0 = ball::X { h: H0, v: 0.0 };
    let p = |[g, e]: [f64; 2]| ball::P { g, e };
    let solver = ball::Model.solver().tolerances(TOLERANCES.0, TOLERANCES.1);
    let impacts = |theta| -> Result<Vec<String>, Box<dyn std::error::Error>> {
        let solution = solver.solve(0.0, TF, &x0, &p(theta))?;
        Ok(solution
            .events
            .iter()
            .map(|e| format!("{:.3}", e.t))
            .collect())
    };
    println!(
        "Bouncing ball dropped from {H0} m: fit g and e to {} heights sampled every {PERIOD} s on [0, {TF}] s",
        times.len()
    );
    println!(
        "  truth g = {}, e = {} (impacts at {} s); guess g = {}, e = {} (impacts at {} s)",
        TRUTH[0],
        TRUTH[1],
        impacts(TRUTH)?.join(", "),
        GUESS[0],
        GUESS[1],
        impacts(GUESS)?.join(", ")
    );
    println!("  solver rtol {:e}, atol {:e}", TOLERANCES.0, TOLERANCES.1);
    check::model(&[
        "h' = v, v' = -g in the one mode flight; flight -> flight when h falls through 0, with \
         the reset v⁺ = -e v⁻;",
        "G = ½ Σ_k (h(t_k) - d_k)², minimized over (g, e)",
    ]);

    // (a) Noise-free data, L-BFGS with the adjoint gradient.
    let fit = Fit::new(solver, 0.0, TF, &x0, &p(GUESS))
        .samples(&times, &clean)
        .free(["g", "e"])?
        .observe("h")?;
    let guess = fit.initial_guess();
    println!("\n(a) noise-free data, L-BFGS with hysens gradients (discrete adjoint)");
    let adjoint = lbfgs(&fit, &guess, || fit.counts())?;
    print_outcome(&adjoint);
    let [dg, de] = relative_errors(&adjoint.theta);
    println!("recovered (adjoint L-BFGS): relative error g {dg:.2e}, e {de:.2e}");

    // (b) The same optimizer with central differences of the same solver.
    let plain = Fit::new(solver, 0.0, TF, &x0, &p(GUESS))
        .samples(&times, &clean)
        .free(["g", "e"])?
        .derivatives_with_values(false);
    println!("\n(b) the same L-BFGS with central finite differences of the same solver");
    let differences = lbfgs(CentralDifferences(&plain), &guess, || plain.counts())?;
    print_outcome(&differences);

    // (c) Gauss–Newton with the residual Jacobian from forward sensitivities.
    let residuals = Fit::new(solver, 0.0, TF, &x0, &p(GUESS))
        .samples(&times, &clean)
        .free(["g", "e"])?
        .observe("h")?;
    println!("\n(c) noise-free data, Gauss–Newton with the forward-sensitivity Jacobian");
    let newton = gauss_newton(&residuals, &guess, || residuals.counts())?;
    print_outcome(&newton);

    println!("\nsummary, noise-free data (per fit):");
    println!("  method                          iterations  solves  wall time  rel. error g   rel. error e");
    for (name, outcome) in [
        ("L-BFGS, adjoint gradient", &adjoint),
        ("L-BFGS, central differences", &differences),
        ("Gauss-Newton, FSA Jacobian", &newton),
    ] {
        let [dg, de] = relative_errors(&outcome.theta);
        println!(
            "  {name:<30}  {:>10}  {:>6}  {:>6.3} ms  {dg:>12.2e}  {de:>13.2e}",
            outcome.iterations,
            outcome.counts.solves(),
            outcome.seconds * 1e3
        );
    }

    // (d) Noisy data: Gauss–Newton, then the linearized covariance at the estimate.
    let noisy_fit = Fit::new(solver, 0.0, TF, &x0, &p(GUESS))
        .samples(&times, &noisy)
        .free(["g", "e"])?
        .observe("h")?;
    println!("\n(d) noisy data (σ = {SIGMA} m, seed {SEED}), Gauss–Newton with the forward-sensitivity Jacobian");
    let estimate = gauss_newton(&noisy_fit, &guess, || noisy_fit.counts())?;
    print_outcome(&estimate);
    let theta = estimate.theta.as_slice();
    let covariance = noisy_fit.covariance(theta, SIGMA)?;
    let residual_norm = noisy_fit.apply(&estimate.theta)?.norm();
    let dof = (times.len() - theta.len()) as f64;
    println!(
        "  residual RMS {:.4} m for σ = {SIGMA} m (s = ‖r‖/√(m − n) = {:.4} m)",
        residual_norm / (times.len() as f64).sqrt(),
        residual_norm / dof.sqrt()
    );
    let mut worst: f64 = 0.0;
    let sds = [0, 1].map(|j| covariance[(j, j)].sqrt());
    for (j, name) in noisy_fit.names().iter().enumerate() {
        let sd = sds[j];
        let z = (theta[j] - TRUTH[j]) / sd;
        worst = worst.max(z.abs());
        println!(
            "  {name} = {:.6} ± {sd:.6} (1 sd, σ²(JᵀJ)⁻¹); truth {}; error {:+.6} = {z:+.2} sd",
            theta[j],
            TRUTH[j],
            theta[j] - TRUTH[j]
        );
    }
    let correlation = covariance[(0, 1)] / (covariance[(0, 0)] * covariance[(1, 1)]).sqrt();
    println!("  correlation of g and e {correlation:+.3}");
    println!("noisy estimate within {worst:.2} standard deviations of the truth");
    let noise_free = [
        ("(a) adjoint L-BFGS", &adjoint),
        ("(b) difference L-BFGS", &differences),
        ("(c) Gauss-Newton", &newton),
    ];
    let verdict = against_truth(noise_free, theta, sds);
    Ok(verdict.into_result()?)
}

/// Prints the table of the estimates against the truth: those of the noise-free fits within
/// 1e-6, the noisy one (`noisy`, with its standard deviations `sds`) within 3 standard
/// deviations; returns its verdict.
fn against_truth(
    noise_free: [(&str, &Outcome); 3],
    noisy: &[f64],
    sds: [f64; 2],
) -> check::Verdict {
    let mut comparison = check::Comparison::new("the truth the data were made from").bound(
        1e-6,
        "noise-free data: the fit ends at the truth up to the solver's tolerance (rtol 1e-10) \
         times the conditioning of the fit, far below 1e-6",
    );
    for (name, outcome) in noise_free {
        comparison = comparison
            .row(format!("g, {name}"), outcome.theta[0], TRUTH[0])
            .row(format!("e, {name}"), outcome.theta[1], TRUTH[1]);
    }
    let reason = |p: &str| {
        format!(
            "3 standard deviations of {p} (σ²(JᵀJ)⁻¹ at the estimate, σ = {SIGMA} m), relative: \
             the noise, not the solver, sets this error"
        )
    };
    comparison
        .bound(3.0 * sds[0] / TRUTH[0], reason("g"))
        .row("g, (d) noisy Gauss-Newton", noisy[0], TRUTH[0])
        .bound(3.0 * sds[1] / TRUTH[1], reason("e"))
        .row("e, (d) noisy Gauss-Newton", noisy[1], TRUTH[1])
        .print()
}
