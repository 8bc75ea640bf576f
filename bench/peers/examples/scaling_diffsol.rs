//! The scaling benchmark's diffsol side: a 1-D rod of `N` cells with a thermostat-switched
//! heater, solved by diffsol 0.18's BDF with its **sparse** faer backend (`FaerSparseMat<f64>`,
//! `FaerSparseLU<f64>`), without sensitivities (`plain`), with forward sensitivities to all 10
//! parameters (`fsa`), or with the gradient of the terminal cost by diffsol's adjoint
//! (`adjoint`). Prints one JSON line per run (the same fields as `scaling_hysens`).
//!
//! # The model
//!
//! States `u_0 … u_{N−1}`, parameters `p = (κ0, κ1, κ2, κ3, κ4, q, hl, ua, Thi, Tlo)`
//! `= (1.0, 0.8, 1.2, 0.9, 1.1, 2.0, 2.0, 0.0, 1.0, 0.8)`, sensor `m = N/2`:
//!
//! ```text
//! zone(i) = min(5i / N, 4)                      (integer division)
//! c_i     = κ_zone(i) · N²                      (conductance between cells i and i+1)
//! u_i'    = c_{i−1}(u_{i−1} − u_i) [i > 0] + c_i (u_{i+1} − u_i) [i < N−1]
//!           + q·N [i = 0, heating] − hl·N·(u_{N−1} − ua) [i = N−1]
//! heating → cooling when u_m − Thi crosses 0 rising, cooling → heating when u_m − Tlo
//! crosses 0 falling; the state is continuous at a switch
//! u(0) = 0, t ∈ [0, 2], rtol 1e-6, atol 1e-8
//! cost φ = u_m(T) + u_{N−1}(T)
//! ```
//!
//! # How it is written in diffsol
//!
//! diffsol has one right-hand side per problem, so (as `src/runners/diffsol/p1_serban.rs`) the
//! discrete mode is an extra state `s = u_N` (0 heating, 1 cooling) with `s' = 0`:
//!
//! ```text
//! rhs    u_0' gets (1 − s)·q·N,   s' = 0
//! root   r(u, p) = u_m − (1 − s)·Thi − s·Tlo    (u_m − Thi when heating, u_m − Tlo cooling)
//! reset  R(u) = (u_0 … u_{N−1}, 1 − s)           (state continuous, mode flipped)
//! ```
//!
//! Only the crossing of the active guard can happen (the state is continuous and starts on the
//! right side of it), so diffsol's two-sided root detection gives the right directions. After a
//! reset the root function jumps away from 0 (to ±(Thi − Tlo)), so the re-armed root finder
//! does not see the same crossing again.
//!
//! At a root, [`integrate`] does what `solve_dense_sensitivities` does: `state_mut_back(t*)`,
//! then `apply_reset_with_sens` (fsa) or `apply_reset` (plain). diffsol's jump for the
//! sensitivities (`ode_solver/state.rs`) is
//! `τ = −(r_x s⁻ + r_p)/(r_x f⁻ + r_t)`, `s⁺ = R_x s⁻ + R_p + (R_x f⁻ + R_t − f⁺) τ`; here
//! `R_x = diag(1, …, 1, −1)`, `R_p = 0`, `r_t = R_t = 0` and the mode components of `s⁻`, `f⁻`
//! are 0, so it is exactly `s⁺ = s⁻ − (f⁺ − f⁻)·dt*/dp` with
//! `dt*/dp = −(h_u s⁻ + h_p)/(h_u f⁻)`, `h = u_m − Thresh`: the jump the benchmark asks for.
//!
//! The adjoint uses diffsol's checkpointed adjoint with resets: the forward solve
//! (`solve_dense_with_checkpointing`) splits the checkpoints into one segment per mode, and the
//! backward pass applies the adjoint of the jump (`apply_reset_with_adjoint`) between
//! segments. The cost is the output `out(u) = u_m + u_{N−1}`, taken at `t = T`.
//!
//! # The restart defect, and the modes
//!
//! diffsol 0.18 changes the augmented state at an event but not its time derivative:
//! `apply_reset_with_sens` updates `s` and `dy` but leaves `ds` at its pre-switch value; the
//! adjoint's terminal `dg/dout` jump and `apply_reset_with_adjoint` update `λ` but leave `dλ`
//! (and the gradient quadrature's `dsg`) stale. BDF restarts its history from these
//! derivatives, so the first step after the event has a predictor error `≈ h |Δds|`, and the
//! error test shrinks `h` until that is below the tolerance. `|Δds| ~ |J Δs| ~ κN²·qN·τ` grows
//! like N³: at rtol 1e-6 the step falls below diffsol's minimum (1e-13) for N ≥ 1000 (forward)
//! and N = 5000 (adjoint), and at rtol 1e-10 already at N = 10. Hence the modes:
//!
//! * `plain`: states only;
//! * `fsa`: forward sensitivities, with `ds = f_u s + f_p` recomputed after each reset
//!   ([`refresh_ds`], a few lines of user code);
//! * `adjoint`: [`backward_pass`] — diffsol's backward pass step by step, with `λ(T)` set as
//!   the initial adjoint state (so diffsol computes a consistent `dλ(T)`) and `dλ`, `dsg`
//!   recomputed after each reset correction; every forward step is kept (no replay solver, see
//!   [`solve_adjoint`]);
//! * `fsa-asis`, `adjoint-asis`: diffsol's own handling (`apply_reset_with_sens`;
//!   `solve_adjoint_backwards_pass` with `dg/dout = 1` at `t_eval = [T]`), for comparison.
//!
//! The fixes change no formula, only the restart, and the gradients agree with the as-is ones
//! where those run (`check`).
//!
//! diffsol's adjoint closures return the *negated* transposed products (`−J^T v`,
//! `−f_p^T v`, `−r_x^T v`, …), as its own test models do.
//!
//! # Sparsity
//!
//! With a sparse matrix type diffsol finds the Jacobian's pattern by NaN propagation through
//! the `J v` closure (one probe lane per column: an `(N+1) × (N+1)` dense probe, so building the
//! problem is O(N²) in time and memory), colours it, and assembles the Jacobian from a few `J v`
//! products. The pattern is the tridiagonal conduction part plus the one entry `∂u_0'/∂s`:
//! `nnz = 3N − 1` (reported as `nnz_jacobian`). The closures must not branch on `v`.
//!
//! # Settings
//!
//! As the other diffsol runners (`src/runners/diffsol/mod.rs`): sensitivities in the error
//! test with `sens_rtol = rtol`, `sens_atol = atol`, `param_scales = |p|` — except `ua = 0`,
//! whose scale is 1 (diffsol rejects a zero scale). For the adjoint the parameter-gradient
//! quadrature is in the error test with `param_rtol = rtol`, `param_atol = atol`. Default
//! diffsol options otherwise (initial step, Newton, derivative-solve tolerance).
//!
//! # Usage
//!
//! ```text
//! scaling_diffsol N MODE [REPEAT]   MODE = plain | fsa | adjoint | fsa-asis | adjoint-asis
//! scaling_diffsol N check           the checks: switch times; every gradient mode at rtol 1e-6
//!                                   and 1e-10 against central finite differences of plain
//!                                   solves at rtol 1e-10, atol 1e-12, relative step 1e-6
//! ```
//!
//! `median_s` is the median over `REPEAT` solves of the wall time of one solve, building the
//! problem included; `build_s` is the median of the building part alone (the O(N²) sparsity
//! probe). `steps` counts the accepted forward steps; `adjoint` also reports `steps_backward`.
//!
//! Run: `cargo run --release --example scaling_diffsol -- N MODE [REPEAT]`
//! (`scaling_diffsol.sh` runs every cell in its own process under `/usr/bin/time -v`).

use diffsol::matrix::sparsity::MatrixSparsity;
use diffsol::{
    AdjointOdeSolverMethod, DefaultDenseMatrix, DenseMatrix, FaerSparseLU, FaerSparseMat, FaerVec,
    Matrix, NonLinearOpJacobian, OdeBuilder, OdeEquations, OdeSolverMethod, OdeSolverState,
    OdeSolverStopReason, Vector,
};
use std::time::Instant;

type M = FaerSparseMat<f64>;
type LS = FaerSparseLU<f64>;
type DM = <FaerVec<f64> as DefaultDenseMatrix>::M;

/// `(κ0 … κ4, q, hl, ua, Thi, Tlo)`.
const P: [f64; 10] = [1.0, 0.8, 1.2, 0.9, 1.1, 2.0, 2.0, 0.0, 1.0, 0.8];
const NP: usize = 10;
const T_END: f64 = 2.0;
const RTOL: f64 = 1e-6;
const ATOL: f64 = 1e-8;

/// The rod at size `n`; states `u_0 … u_{n−1}` and the mode `s = u_n`. The methods are the
/// closures handed to `OdeBuilder` (`Copy`, so every closure owns one).
#[derive(Clone, Copy)]
struct Rod {
    n: usize,
    /// Sensor cell `n / 2`.
    m: usize,
    /// `n` as a float.
    nf: f64,
}

impl Rod {
    fn new(n: usize) -> Self {
        assert!(n >= 2, "N must be at least 2");
        Rod {
            n,
            m: n / 2,
            nf: n as f64,
        }
    }

    fn zone(&self, i: usize) -> usize {
        ((5 * i) / self.n).min(4)
    }

    /// Conductance `c_i` between cells `i` and `i + 1`.
    fn c(&self, p: &[f64], i: usize) -> f64 {
        p[self.zone(i)] * self.nf * self.nf
    }

    /// `f(u, p)`.
    fn rhs(&self, u: &[f64], p: &[f64], f: &mut [f64]) {
        let n = self.n;
        f[..n].fill(0.0);
        for i in 0..n - 1 {
            let flux = self.c(p, i) * (u[i + 1] - u[i]);
            f[i] += flux;
            f[i + 1] -= flux;
        }
        f[0] += (1.0 - u[n]) * p[5] * self.nf;
        f[n - 1] -= p[6] * self.nf * (u[n - 1] - p[7]);
        f[n] = 0.0;
    }

    /// `J v`, `J = ∂f/∂u` (no branch on `v`: diffsol probes the pattern with NaNs in `v`).
    fn jac_mul(&self, p: &[f64], v: &[f64], y: &mut [f64]) {
        let n = self.n;
        y[..n].fill(0.0);
        for i in 0..n - 1 {
            let flux = self.c(p, i) * (v[i + 1] - v[i]);
            y[i] += flux;
            y[i + 1] -= flux;
        }
        y[0] -= p[5] * self.nf * v[n];
        y[n - 1] -= p[6] * self.nf * v[n - 1];
        y[n] = 0.0;
    }

    /// `−J^T v` (the conduction part is symmetric; column `n` holds `∂u_0'/∂s = −q N`).
    fn jac_adj_mul(&self, p: &[f64], v: &[f64], y: &mut [f64]) {
        let n = self.n;
        y[..n].fill(0.0);
        for i in 0..n - 1 {
            let flux = self.c(p, i) * (v[i + 1] - v[i]);
            y[i] -= flux;
            y[i + 1] += flux;
        }
        y[n - 1] += p[6] * self.nf * v[n - 1];
        y[n] = p[5] * self.nf * v[0];
    }

    /// `f_p v` (`v` has one entry per parameter).
    fn sens_mul(&self, u: &[f64], p: &[f64], v: &[f64], y: &mut [f64]) {
        let n = self.n;
        let n2 = self.nf * self.nf;
        y.fill(0.0);
        for i in 0..n - 1 {
            let flux = n2 * v[self.zone(i)] * (u[i + 1] - u[i]);
            y[i] += flux;
            y[i + 1] -= flux;
        }
        y[0] += (1.0 - u[n]) * self.nf * v[5];
        y[n - 1] += -self.nf * (u[n - 1] - p[7]) * v[6] + p[6] * self.nf * v[7];
    }

    /// `−f_p^T v` (`v` has one entry per state, the result one per parameter).
    fn sens_adj_mul(&self, u: &[f64], p: &[f64], v: &[f64], y: &mut [f64]) {
        let n = self.n;
        let n2 = self.nf * self.nf;
        y.fill(0.0);
        for i in 0..n - 1 {
            y[self.zone(i)] -= n2 * (u[i + 1] - u[i]) * (v[i] - v[i + 1]);
        }
        y[5] = -(1.0 - u[n]) * self.nf * v[0];
        y[6] = self.nf * (u[n - 1] - p[7]) * v[n - 1];
        y[7] = -p[6] * self.nf * v[n - 1];
    }

    /// The guard of the active mode: `u_m − Thi` (heating) or `u_m − Tlo` (cooling).
    fn root(&self, u: &[f64], p: &[f64], r: &mut [f64]) {
        let s = u[self.n];
        r[0] = u[self.m] - (1.0 - s) * p[8] - s * p[9];
    }

    fn root_jac_mul(&self, p: &[f64], v: &[f64], r: &mut [f64]) {
        r[0] = v[self.m] + (p[8] - p[9]) * v[self.n];
    }

    fn root_sens_mul(&self, u: &[f64], v: &[f64], r: &mut [f64]) {
        let s = u[self.n];
        r[0] = -(1.0 - s) * v[8] - s * v[9];
    }

    /// `−r_x^T v`.
    fn root_adj_mul(&self, p: &[f64], v: &[f64], y: &mut [f64]) {
        y.fill(0.0);
        y[self.m] = -v[0];
        y[self.n] = -(p[8] - p[9]) * v[0];
    }

    /// `−r_p^T v`.
    fn root_sens_adj_mul(&self, u: &[f64], v: &[f64], y: &mut [f64]) {
        let s = u[self.n];
        y.fill(0.0);
        y[8] = (1.0 - s) * v[0];
        y[9] = s * v[0];
    }

    /// `R(u) = (u_0 … u_{n−1}, 1 − s)`.
    fn reset(&self, u: &[f64], r: &mut [f64]) {
        r[..self.n].copy_from_slice(&u[..self.n]);
        r[self.n] = 1.0 - u[self.n];
    }

    fn reset_jac_mul(&self, v: &[f64], y: &mut [f64]) {
        y[..self.n].copy_from_slice(&v[..self.n]);
        y[self.n] = -v[self.n];
    }

    /// `−R_x^T v`.
    fn reset_adj_mul(&self, v: &[f64], y: &mut [f64]) {
        for (yi, vi) in y[..self.n].iter_mut().zip(&v[..self.n]) {
            *yi = -vi;
        }
        y[self.n] = v[self.n];
    }

    /// The cost `u_m + u_{n−1}` as the output (adjoint).
    fn out(&self, u: &[f64], y: &mut [f64]) {
        y[0] = u[self.m] + u[self.n - 1];
    }

    fn out_jac_mul(&self, v: &[f64], y: &mut [f64]) {
        y[0] = v[self.m] + v[self.n - 1];
    }

    /// `−out_x^T v`.
    fn out_adj_mul(&self, v: &[f64], y: &mut [f64]) {
        y.fill(0.0);
        y[self.m] -= v[0];
        y[self.n - 1] -= v[0];
    }
}

/// Sensitivity tolerance scale of each parameter: `|p|`, or 1 for a zero parameter (`ua`).
fn param_scales(p: &[f64]) -> Vec<f64> {
    p.iter()
        .map(|x| if *x == 0.0 { 1.0 } else { x.abs() })
        .collect()
}

/// What one solve reports.
#[derive(Clone, Debug, Default)]
struct Run {
    build_s: f64,
    steps: usize,
    switch_times: Vec<f64>,
    u_sensor: f64,
    u_last: f64,
    /// `d u_m(T)/dp` and `d u_{N−1}(T)/dp` (fsa only).
    sens_sensor: Option<Vec<f64>>,
    sens_last: Option<Vec<f64>>,
    /// `dφ/dp` (fsa, adjoint).
    gradient: Option<Vec<f64>>,
    /// Accepted steps of the adjoint's backward pass (`adjoint` only).
    steps_backward: Option<usize>,
    nnz_jacobian: usize,
}

impl Run {
    fn cost(&self) -> f64 {
        self.u_sensor + self.u_last
    }
}

/// What is solved. `Fsa` and `Adjoint` are the benchmark's; the `AsIs` variants are diffsol's
/// own event handling without the restart fixes (see the module docs).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Plain,
    /// Forward sensitivities, `ds` recomputed after every reset ([`refresh_ds`]).
    Fsa,
    /// Forward sensitivities with diffsol's `apply_reset_with_sens` alone.
    FsaAsIs,
    /// Adjoint by [`backward_pass`].
    Adjoint,
    /// Adjoint by diffsol's `solve_adjoint_backwards_pass` with `dg/dout` at `t_eval = [T]`.
    AdjointAsIs,
}

impl Mode {
    const ALL: [(&'static str, Mode); 5] = [
        ("plain", Mode::Plain),
        ("fsa", Mode::Fsa),
        ("fsa-asis", Mode::FsaAsIs),
        ("adjoint", Mode::Adjoint),
        ("adjoint-asis", Mode::AdjointAsIs),
    ];
}

/// The number of non-zeros diffsol found in the rhs Jacobian (its sparsity pattern) of
/// `problem`. A macro because the equations' type is the builder's closure types.
macro_rules! nnz_jacobian {
    ($problem:expr) => {
        $problem
            .eqn
            .rhs()
            .jacobian_sparsity()
            .map_or(0, |s| MatrixSparsity::<M>::indices(&s).len())
    };
}

/// Step `solver` to `T_END`, handling every root as `solve_dense_sensitivities` does
/// (`state_mut_back` to the root, then `reset`); returns the switch times.
fn integrate<'a, Eqn, S>(
    solver: &mut S,
    reset: impl Fn(&mut S, usize) -> Result<(), diffsol::DiffsolError>,
) -> Result<Vec<f64>, String>
where
    Eqn: OdeEquations<T = f64> + 'a,
    S: OdeSolverMethod<'a, Eqn>,
{
    let e = |e: diffsol::DiffsolError| format!("diffsol: {e}");
    let mut switches = Vec::new();
    solver.set_stop_time(T_END).map_err(e)?;
    loop {
        match solver.step().map_err(e)? {
            OdeSolverStopReason::InternalTimestep => {}
            OdeSolverStopReason::TstopReached => break,
            OdeSolverStopReason::RootFound(t, idx) => {
                switches.push(t);
                solver.state_mut_back(t).map_err(e)?;
                reset(solver, idx).map_err(e)?;
                if solver.state().t < T_END {
                    solver.set_stop_time(T_END).map_err(e)?;
                } else {
                    break;
                }
            }
        }
    }
    Ok(switches)
}

/// Recompute the sensitivities' time derivative `ds_j = f_u s_j + f_p e_j` at the current state.
///
/// diffsol 0.18's `apply_reset_with_sens` updates `s` and `dy` but leaves `ds` at its pre-event
/// value, and BDF restarts its sensitivity history from it (`initialise_sdiff_to_first_order`);
/// see the module docs. Called after every reset in the `fsa` mode (not in `fsa-asis`).
fn refresh_ds(rod: &Rod, p: &[f64], state: diffsol::StateRefMut<'_, FaerVec<f64>>) {
    let y = state.y.clone_as_vec();
    let sens = state.s.clone();
    let mut col = vec![0.0; rod.n + 1];
    state.ds.for_each_batch_host([&sens], |d, [sj], lane| {
        rod.jac_mul(p, sj, d);
        let mut e = [0.0; NP];
        e[lane % NP] = 1.0;
        rod.sens_mul(&y, p, &e, &mut col);
        for (di, ci) in d.iter_mut().zip(&col) {
            *di += ci;
        }
    });
}

/// Solve once (plain or fsa) at tolerances `rtol`, `atol`, parameters `p`.
fn solve_forward(n: usize, mode: Mode, p: &[f64], rtol: f64, atol: f64) -> Result<Run, String> {
    let rod = Rod::new(n);
    let t0 = Instant::now();
    let problem = OdeBuilder::<M>::new()
        .p(p.iter().copied())
        .rtol(rtol)
        .atol([atol])
        .sens_rtol(rtol)
        .sens_atol([atol])
        .param_scales(param_scales(p))
        .rhs_sens_implicit(
            move |u, p, _t, f| rod.rhs(u, p, f),
            move |_u, p, _t, v, y| rod.jac_mul(p, v, y),
            move |u, p, _t, v, y| rod.sens_mul(u, p, v, y),
        )
        .init_sens(|_p, _t, u| u.fill(0.0), |_p, _t, _v, s| s.fill(0.0), n + 1)
        .root_sens_implicit(
            move |u, p, _t, r| rod.root(u, p, r),
            move |_u, p, _t, v, r| rod.root_jac_mul(p, v, r),
            move |u, _p, _t, v, r| rod.root_sens_mul(u, v, r),
            1,
        )
        .reset_sens_implicit(
            move |u, _p, _t, r| rod.reset(u, r),
            move |_u, _p, _t, v, y| rod.reset_jac_mul(v, y),
            |_u, _p, _t, _v, y| y.fill(0.0),
        )
        .build()
        .map_err(|e| format!("diffsol build: {e}"))?;
    let build_s = t0.elapsed().as_secs_f64();
    let nnz_jacobian = nnz_jacobian!(problem);
    let mut run = Run {
        build_s,
        nnz_jacobian,
        ..Default::default()
    };
    let y = match mode {
        Mode::Plain => {
            let mut solver = problem.bdf::<LS>().map_err(|e| e.to_string())?;
            run.switch_times = integrate(&mut solver, |s, _| s.apply_reset())?;
            run.steps = solver.get_statistics().number_of_steps;
            solver.state().y.clone_as_vec()
        }
        Mode::Fsa | Mode::FsaAsIs => {
            let mut solver = problem.bdf_sens::<LS>().map_err(|e| e.to_string())?;
            let refresh = mode == Mode::Fsa;
            run.switch_times = integrate(&mut solver, |s, idx| {
                s.apply_reset_with_sens(idx)?;
                if refresh {
                    refresh_ds(&rod, p, s.state_mut());
                }
                Ok(())
            })?;
            run.steps = solver.get_statistics().number_of_steps;
            // one batch lane per parameter, lane j holding d u / d p_j
            let s = solver.state().s.clone_as_vec();
            let ns = n + 1;
            let lane = |j: usize, i: usize| s[j * ns + i];
            let sens_sensor: Vec<f64> = (0..NP).map(|j| lane(j, rod.m)).collect();
            let sens_last: Vec<f64> = (0..NP).map(|j| lane(j, n - 1)).collect();
            run.gradient = Some((0..NP).map(|j| sens_sensor[j] + sens_last[j]).collect());
            run.sens_sensor = Some(sens_sensor);
            run.sens_last = Some(sens_last);
            solver.state().y.clone_as_vec()
        }
        Mode::Adjoint | Mode::AdjointAsIs => unreachable!(),
    };
    run.u_sensor = y[rod.m];
    run.u_last = y[n - 1];
    Ok(run)
}

/// Solve once with diffsol's adjoint: checkpointed forward solve, backward pass with the
/// reset corrections; the gradient of `φ = out(u(T))`.
fn solve_adjoint(n: usize, p: &[f64], rtol: f64, atol: f64, as_is: bool) -> Result<Run, String> {
    let rod = Rod::new(n);
    let e = |e: diffsol::DiffsolError| format!("diffsol: {e}");
    let t0 = Instant::now();
    let problem = OdeBuilder::<M>::new()
        .p(p.iter().copied())
        .rtol(rtol)
        .atol([atol])
        .param_rtol(rtol)
        .param_atol([atol])
        .rhs_adjoint_implicit(
            move |u, p, _t, f| rod.rhs(u, p, f),
            move |_u, p, _t, v, y| rod.jac_mul(p, v, y),
            move |_u, p, _t, v, y| rod.jac_adj_mul(p, v, y),
            move |u, p, _t, v, y| rod.sens_adj_mul(u, p, v, y),
        )
        .init_adjoint(|_p, _t, u| u.fill(0.0), |_p, _t, _v, y| y.fill(0.0), n + 1)
        .out_adjoint_implicit(
            move |u, _p, _t, y| rod.out(u, y),
            move |_u, _p, _t, v, y| rod.out_jac_mul(v, y),
            move |_u, _p, _t, v, y| rod.out_adj_mul(v, y),
            |_u, _p, _t, _v, y| y.fill(0.0),
            1,
        )
        .root_adjoint_implicit(
            move |u, p, _t, r| rod.root(u, p, r),
            move |_u, p, _t, v, r| rod.root_jac_mul(p, v, r),
            move |_u, p, _t, v, y| rod.root_adj_mul(p, v, y),
            move |u, _p, _t, v, y| rod.root_sens_adj_mul(u, v, y),
            1,
        )
        .reset_adjoint_implicit(
            move |u, _p, _t, r| rod.reset(u, r),
            move |_u, _p, _t, v, y| rod.reset_jac_mul(v, y),
            move |_u, _p, _t, v, y| rod.reset_adj_mul(v, y),
            |_u, _p, _t, _v, y| y.fill(0.0),
        )
        .build()
        .map_err(|e| format!("diffsol build: {e}"))?;
    let build_s = t0.elapsed().as_secs_f64();
    let nnz_jacobian = nnz_jacobian!(problem);

    // `adjoint` keeps every forward step (one Hermite interpolant per mode segment), so the
    // backward pass needs no replay solver: diffsol's replay (re-stepping the forward solver from
    // a checkpoint, every 500 steps by default) runs into the root finder near a switch and
    // panics (`InterpolationTimeAfterCurrentTime` in `RootFinder::check_root`), seen at rtol
    // 1e-10. At rtol 1e-6 no segment has 500 steps, so both settings store the same.
    let max_steps_between_checkpoints = if as_is { None } else { Some(usize::MAX / 2) };
    let mut solver = problem.bdf::<LS>().map_err(e)?;
    let (checkpoints, _ys, stop) = solver
        .solve_dense_with_checkpointing(&[T_END], max_steps_between_checkpoints)
        .map_err(e)?;
    if stop != OdeSolverStopReason::TstopReached {
        return Err(format!("forward solve stopped: {stop:?}"));
    }
    let steps = solver.get_statistics().number_of_steps;
    // each checkpointing segment that ended on a root ends at a switch
    let switch_times: Vec<f64> = checkpoints
        .iter()
        .filter(|c| c.terminal_reset_root_idx().is_some())
        .map(|c| c.last_checkpoint().as_ref().t)
        .collect();
    let y = solver.state().y.clone_as_vec();

    let (sg, steps_backward) = if as_is {
        // diffsol's documented way: dg/dout = 1 at t_eval = [T], `solve_adjoint_backwards_pass`
        let ctx = *problem.context();
        let mut dgdu = DM::zeros(1, 1, ctx);
        dgdu.set_index(0, 0, 1.0);
        let adjoint = problem
            .bdf_solver_adjoint::<LS, _>(checkpoints, Some(solver), Some(1))
            .map_err(e)?;
        let state = adjoint
            .solve_adjoint_backwards_pass(&[T_END], &[&dgdu])
            .map_err(e)?
            .0;
        (state.as_ref().sg.clone_as_vec(), None)
    } else {
        drop(solver);
        backward_pass(&problem, checkpoints, &switch_times, &[rod.m, n - 1])?
    };
    let gradient = sg;
    Ok(Run {
        build_s,
        steps,
        switch_times,
        u_sensor: y[rod.m],
        u_last: y[n - 1],
        sens_sensor: None,
        sens_last: None,
        gradient: Some(gradient),
        steps_backward,
        nnz_jacobian,
    })
}

/// The adjoint backward pass written out (diffsol's `solve_adjoint_backwards_pass` step by step,
/// with the same public pieces), with two changes that keep the BDF restarts consistent:
///
/// * the terminal condition `λ(T) = ∂φ/∂u = e_m + e_{N−1}` is written into the adjoint state
///   *before* the solver is created, so `bdf_solver_adjoint_from_state` computes a consistent
///   `dλ(T)` (diffsol adds `dg/dout` as a jump after the solver exists and keeps `dλ(T) = 0`);
/// * after each reset correction (`apply_reset_with_adjoint`) `dλ` and the gradient
///   quadrature's derivative `dsg` are recomputed from the corrected `λ` (diffsol leaves both at
///   their values before the jump).
///
/// Both are the same defect as the forward one (see [`refresh_ds`]): BDF restarts from a stale
/// derivative, which at N = 5000 shrinks the step below the minimum. Sign convention: diffsol's
/// `λ(T) = out_x^T dg/dout` (its delta does `λ −= (−out_x^T) dg/dout`).
///
/// `sensor` lists the states whose sum is the cost. Returns the gradient and the number of
/// backward steps.
fn backward_pass<'a, Eqn>(
    problem: &'a diffsol::OdeSolverProblem<Eqn>,
    checkpoints: diffsol::CheckpointingPath<Eqn, diffsol::BdfState<FaerVec<f64>>>,
    switch_times: &[f64],
    sensor: &[usize],
) -> Result<(Vec<f64>, Option<usize>), String>
where
    Eqn: diffsol::OdeEquationsImplicitAdjoint<
        M = M,
        V = FaerVec<f64>,
        T = f64,
        C = diffsol::FaerContext,
    >,
{
    use diffsol::{AugmentedOdeSolverMethod, NonLinearOp, OdeSolverState};
    let e = |e: diffsol::DiffsolError| format!("diffsol: {e}");
    let root_idx: Vec<usize> = checkpoints
        .iter()
        .filter_map(|c| c.terminal_reset_root_idx())
        .collect();
    let mut adj_eqn = problem
        .adjoint_equations(checkpoints, None::<diffsol::Bdf<'a, Eqn, LS>>, Some(1))
        .map_err(e)?;
    let mut state = problem
        .bdf_state_adjoint::<LS, _>(&mut adj_eqn)
        .map_err(e)?;
    {
        // λ(T), and the gradient quadrature's derivative dsg(T) = out(λ(T)) (the state was
        // created with λ = 0; `bdf_solver_adjoint_from_state` recomputes dλ but not dsg)
        let st = state.as_mut();
        st.s.fill(0.0);
        for &i in sensor {
            st.s.set_index(i, 1.0);
        }
        if let Some(out) = adj_eqn.out() {
            out.call_inplace(&*st.s, *st.t, &mut *st.dsg);
        }
    }
    let mut adjoint = problem
        .bdf_solver_adjoint_from_state::<LS, _>(state, adj_eqn)
        .map_err(e)?;
    // segments [t_k, t_{k+1}] with t_0 = 0, t_1 … = switch times, backwards
    for seg in (0..=switch_times.len()).rev() {
        let start = if seg == 0 { 0.0 } else { switch_times[seg - 1] };
        adjoint.set_stop_time(start).map_err(e)?;
        while adjoint.step().map_err(e)? != OdeSolverStopReason::TstopReached {}
        if seg > 0 {
            let aug = adjoint.augmented_eqn_mut().unwrap();
            let after = aug.pop_last_checkpointing().map_err(e)?;
            let before = aug.checkpointing_last_state(seg - 1);
            adjoint
                .apply_reset_with_adjoint(
                    root_idx[seg - 1],
                    before.as_ref(),
                    after.first_checkpoint().as_ref(),
                )
                .map_err(e)?;
            // dλ, dsg from the corrected λ (forward state: the segment before the switch)
            let (st, aug) = adjoint.state_and_augmented_eqn_mut().unwrap();
            let t = *st.t;
            aug.rhs().call_inplace(&*st.s, t, &mut *st.ds);
            if let Some(out) = aug.out() {
                out.call_inplace(&*st.s, t, &mut *st.dsg);
            }
        }
    }
    let steps = adjoint.get_statistics().number_of_steps;
    let (mut state, aug) = adjoint.into_state_and_eqn();
    let aug = aug.unwrap();
    {
        let st = state.as_mut();
        aug.correct_sg_for_init(0.0, &*st.s, &mut *st.sg);
    }
    Ok((state.as_ref().sg.clone_as_vec(), Some(steps)))
}

fn solve(n: usize, mode: Mode, p: &[f64], rtol: f64, atol: f64) -> Result<Run, String> {
    match mode {
        Mode::Adjoint => solve_adjoint(n, p, rtol, atol, false),
        Mode::AdjointAsIs => solve_adjoint(n, p, rtol, atol, true),
        _ => solve_forward(n, mode, p, rtol, atol),
    }
}

fn json_f64s(xs: &[f64]) -> String {
    let items: Vec<String> = xs.iter().map(|x| format!("{x:e}")).collect();
    format!("[{}]", items.join(","))
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let k = xs.len();
    if k % 2 == 1 {
        xs[k / 2]
    } else {
        0.5 * (xs[k / 2 - 1] + xs[k / 2])
    }
}

/// `REPEAT` timed solves; one JSON line.
fn bench(n: usize, mode: Mode, mode_name: &str, repeat: usize) -> Result<(), String> {
    let mut times = Vec::with_capacity(repeat);
    let mut builds = Vec::with_capacity(repeat);
    let mut last = None;
    for _ in 0..repeat {
        let t0 = Instant::now();
        let run = solve(n, mode, &P, RTOL, ATOL)?;
        times.push(t0.elapsed().as_secs_f64());
        builds.push(run.build_s);
        last = Some(run);
    }
    let run = last.expect("REPEAT >= 1");
    let mut line = format!(
        "{{\"tool\":\"diffsol-bdf-sparse\",\"n\":{n},\"mode\":\"{mode_name}\",\"median_s\":{:e},\
         \"build_s\":{:e},\"repeats\":{repeat},\"steps\":{}",
        median(times),
        median(builds),
        run.steps
    );
    if let Some(b) = run.steps_backward {
        line += &format!(",\"steps_backward\":{b}");
    }
    line += &format!(
        ",\"switch_times\":{},\"u_sensor_T\":{:e},\"u_last_T\":{:e},\"cost_T\":{:e}",
        json_f64s(&run.switch_times),
        run.u_sensor,
        run.u_last,
        run.cost()
    );
    if let Some(g) = &run.gradient {
        line += &format!(",\"d_cost_dp\":{}", json_f64s(g));
    }
    line += &format!(",\"nnz_jacobian\":{}}}", run.nnz_jacobian);
    println!("{line}");
    Ok(())
}

/// Central finite differences of `φ`, `u_m(T)`, `u_{N−1}(T)` by plain solves at `rtol`, `atol`,
/// relative step `rel` (absolute `rel` for a zero parameter).
fn finite_differences(n: usize, rtol: f64, atol: f64, rel: f64) -> Result<[Vec<f64>; 3], String> {
    let mut out = [vec![0.0; NP], vec![0.0; NP], vec![0.0; NP]];
    for j in 0..NP {
        let h = if P[j] == 0.0 { rel } else { rel * P[j].abs() };
        let mut pp = P;
        pp[j] = P[j] + h;
        let plus =
            solve(n, Mode::Plain, &pp, rtol, atol).map_err(|e| format!("FD + p[{j}]: {e}"))?;
        pp[j] = P[j] - h;
        let minus =
            solve(n, Mode::Plain, &pp, rtol, atol).map_err(|e| format!("FD - p[{j}]: {e}"))?;
        out[0][j] = (plus.cost() - minus.cost()) / (2.0 * h);
        out[1][j] = (plus.u_sensor - minus.u_sensor) / (2.0 * h);
        out[2][j] = (plus.u_last - minus.u_last) / (2.0 * h);
    }
    Ok(out)
}

fn rel_diff(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs() / y.abs().max(1e-300))
        .collect()
}

fn fmt_row(xs: &[f64]) -> String {
    xs.iter()
        .map(|x| format!("{x:10.3e}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The checks: switch times; fsa (and adjoint) gradients against central finite differences of
/// plain solves at rtol 1e-10, atol 1e-12, relative step 1e-6.
fn check(n: usize) -> Result<(), String> {
    let names = ["κ0", "κ1", "κ2", "κ3", "κ4", "q", "hl", "ua", "Thi", "Tlo"];
    println!("N = {n}");
    let tight = solve(n, Mode::Plain, &P, 1e-10, 1e-12)?;
    let plain = solve(n, Mode::Plain, &P, RTOL, ATOL)?;
    println!("switch times (rtol 1e-10): {:?}", tight.switch_times);
    println!("switch times (rtol 1e-6) : {:?}", plain.switch_times);
    println!(
        "cost (1e-10) = {:.12}, u_m = {:.12}, u_last = {:.12}; nnz(J) = {}",
        tight.cost(),
        tight.u_sensor,
        tight.u_last,
        tight.nnz_jacobian
    );
    let fd = finite_differences(n, 1e-10, 1e-12, 1e-6)?;
    println!(
        "{:>30} {}",
        "",
        names
            .iter()
            .map(|s| format!("{s:>10}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!("{:>30} {}", "dφ/dp FD (rtol 1e-10)", fmt_row(&fd[0]));
    for (name, mode) in [
        ("fsa", Mode::Fsa),
        ("fsa-asis", Mode::FsaAsIs),
        ("adjoint", Mode::Adjoint),
        ("adjoint-asis", Mode::AdjointAsIs),
    ] {
        for (rtol, atol) in [(RTOL, ATOL), (1e-10, 1e-12)] {
            let label = format!("{name} (rtol {rtol:e})");
            // diffsol panics in some failures (see `solve_adjoint`): report them as failures
            let result = std::panic::catch_unwind(|| solve(n, mode, &P, rtol, atol))
                .unwrap_or_else(|_| Err("panicked inside diffsol (message above)".to_string()));
            match result {
                Ok(r) => {
                    let g = r.gradient.as_ref().unwrap();
                    println!("{label:>30} {}", fmt_row(g));
                    println!(
                        "{:>30} {}",
                        "rel. diff. to FD",
                        fmt_row(&rel_diff(g, &fd[0]))
                    );
                    if let (Some(ss), Some(sl)) = (&r.sens_sensor, &r.sens_last) {
                        let worst: Vec<f64> = rel_diff(ss, &fd[1])
                            .iter()
                            .zip(rel_diff(sl, &fd[2]))
                            .map(|(a, b)| a.max(b))
                            .collect();
                        println!("{:>30} {}", "max rel. diff. u_m, u_N−1", fmt_row(&worst));
                    }
                    let max = rel_diff(g, &fd[0]).into_iter().fold(0.0, f64::max);
                    println!(
                        "{:>30} max rel. diff. {max:.2e}, steps {} (backward {:?})",
                        "", r.steps, r.steps_backward
                    );
                }
                Err(e) => println!("{label:>30} fails: {e}"),
            }
        }
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage =
        "usage: scaling_diffsol N (plain|fsa|adjoint|fsa-asis|adjoint-asis) [REPEAT]\n       \
                 scaling_diffsol N check";
    if args.len() < 3 {
        eprintln!("{usage}");
        std::process::exit(2);
    }
    let n: usize = args[1].parse().expect("N: a positive integer");
    let mode_name = args[2].as_str();
    let repeat: usize = args
        .get(3)
        .map_or(1, |r| r.parse().expect("REPEAT: an integer"));
    let result = if mode_name == "check" {
        check(n)
    } else if let Some(&(_, mode)) = Mode::ALL.iter().find(|(name, _)| *name == mode_name) {
        bench(n, mode, mode_name, repeat.max(1))
    } else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    if let Err(err) = result {
        eprintln!("scaling_diffsol: {err}");
        std::process::exit(1);
    }
}
