//! End-to-end references for the terms of the sensitivity jump that most models zero out
//! (issue #19): `R_t τ` (a reset that reads the event time), the new memory sensitivities
//! `s*⁺ = s⁺` (a reset into a mode that reads its memory, with `ẏ⁺ τ ≠ 0`), and guards that
//! are near zero, but not on it, at `t0` and right after a reset (the arming rule of
//! `hysens-runtime/src/events/arming.rs`: a guard is on its zero only within round-off of its
//! terms, not within the solver's tolerance).
//!
//! Each model is checked three ways:
//!
//! * the forward sensitivities (`solver().sensitivities_to(Params::All, InitialStates::All)`)
//!   and the adjoint gradient (`solver().gradient(..)`) against a piecewise closed form whose
//!   derivatives along every parameter and initial state are taken with num-dual (`Dual64`),
//!   for the three tableaus;
//! * the forward sensitivities against central differences of the same integrator with the
//!   step sequence frozen (`StepPlan::Replay` of the logged steps at perturbed parameters and
//!   initial states): the FSA is the exact derivative of that discrete map;
//! * the event log (times, guards, count) against the closed form.
//!
//! The dot-product tests of `adjoint/jump.rs` check each forward jump map against its own
//! transpose, so a mistake made the same way in both is invisible to them; these tests compare
//! with derivatives computed independently of the runtime.
#![deny(missing_docs)]
#![allow(clippy::needless_range_loop)] // index loops over sensitivity columns

use hysens::hybrid_model;
use hysens::runtime::{
    solve, AdjointProducts, EventRecord, Fields, Gradient, HybridModel, HybridOptions,
    HybridOutputs, HybridProblem, HybridRun, HybridSolution, InitialStates, LoggedStep, ModelSizes,
    ModelTypes, Params, Solution, Solver, StepPlan, Tableau, Wrt, ESDIRK23, ESDIRK34,
    ESDIRK436L2SA,
};
use num_dual::{Dual64, DualNum};

// ---------------------------------------------------------------------------------------------
// The models.
// ---------------------------------------------------------------------------------------------

/// A ball whose bounce adds a kick that grows with the time of the impact:
/// `v⁺ = −e v⁻ + c t*`. The reset reads `t`, so `R_t = (0, c)` and the jump of the
/// sensitivities has the term `R_t τ`.
#[hybrid_model]
pub mod kicked {
    /// The states.
    #[states]
    pub struct X {
        /// Height.
        pub h: f64,
        /// Velocity.
        pub v: f64,
    }

    /// The parameters.
    #[params]
    pub struct P {
        /// Gravity.
        pub g: f64,
        /// Restitution.
        pub e: f64,
        /// Kick per unit of event time.
        pub c: f64,
    }

    /// Free flight.
    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        X { h: x.v, v: -p.g }
    }

    /// The ball reaches the floor.
    #[guard(flight -> flight, falling)]
    fn impact(x: &X) -> f64 {
        x.h
    }

    /// Bounce with a time-dependent kick.
    #[reset(impact)]
    fn kick(x: &X, p: &P, t: f64) -> X {
        X {
            h: x.h,
            v: -p.e * x.v + p.c * t,
        }
    }

    /// `∫ v dt` (linear in time between events: integrated exactly by every tableau).
    #[cost(integral)]
    fn climb(x: &X) -> f64 {
        x.v
    }

    /// The final mechanical energy per unit mass.
    #[cost(terminal)]
    fn energy(x: &X, p: &P) -> f64 {
        0.5 * x.v.powi(2) + p.g * x.h
    }
}

/// A body that falls, lands, is lifted by `d` and thrown back up with restitution `e`
/// (`x⁺ = x⁻ + d`, `v⁺ = −e v⁻`: a reset that is not the identity), into a mode that reads its
/// memory: `v' = −k (v − r v*)` relaxes the speed towards a fraction `r` of the speed it
/// entered with, and the guard `v − q v*` (falling) ends it when the speed has dropped to a
/// fraction `q` of it. There `ẏ⁺ = (v⁺, −k (1 − r) v⁺) ≠ 0` and `τ ≠ 0`, so the total
/// memory sensitivity `s*⁺ = s⁺` differs from the fixed-time `s⁺ − ẏ⁺ τ` (Serban & Recuero's
/// Eq. 25 read literally; erratum of Serban & Recuero 2019, §4.1, Eq. 25: the memory's
/// sensitivity is the total derivative of the state at the switch, not the fixed-time one) and,
/// through the reset, from `s⁻`.
#[hybrid_model]
pub mod rebound {
    /// The states.
    #[states]
    pub struct X {
        /// Height.
        pub x: f64,
        /// Velocity.
        pub v: f64,
    }

    /// The parameters.
    #[params]
    pub struct P {
        /// Gravity.
        pub g: f64,
        /// Restitution.
        pub e: f64,
        /// Lift at the landing.
        pub d: f64,
        /// Relaxation rate after the landing.
        pub k: f64,
        /// The fraction of the entry speed the speed relaxes to.
        pub r: f64,
        /// The fraction of the entry speed at which the rebound ends.
        pub q: f64,
    }

    /// Free fall.
    #[mode(initial)]
    fn fall(x: &X, p: &P) -> X {
        X { x: x.v, v: -p.g }
    }

    /// After the landing: the speed relaxes towards `r v*`.
    #[mode]
    fn rise(x: &X, p: &P, m: &Memory) -> X {
        X {
            x: x.v,
            v: -p.k * (x.v - p.r * m.y.v),
        }
    }

    /// Landing.
    #[guard(fall -> rise, falling)]
    fn land(x: &X) -> f64 {
        x.x
    }

    /// Lifted and thrown back.
    #[reset(land)]
    fn throw(x: &X, p: &P) -> X {
        X {
            x: x.x + p.d,
            v: -p.e * x.v,
        }
    }

    /// The speed has dropped to `q v*`.
    #[guard(rise -> fall, falling)]
    fn spent(x: &X, p: &P, m: &Memory) -> f64 {
        x.v - p.q * m.y.v
    }

    /// `∫ (x + v v*) dt`: reads the memory.
    #[cost(integral)]
    fn altitude(x: &X, m: &Memory) -> f64 {
        x.x + x.v * m.y.v
    }

    /// The final kinetic energy per unit mass.
    #[cost(terminal)]
    fn kinetic(x: &X) -> f64 {
        0.5 * x.v.powi(2)
    }
}

/// A sawtooth: `x` rises at rate `a` until `x = hi`, drops by `drop` (reset), falls at rate
/// `b` until `x = lo` (no reset), and so on. Started a hair below or above `hi`, or with
/// `hi − drop` a hair above or below `lo`, the guards are near zero (not on it) at `t0` and
/// right after the reset.
#[hybrid_model]
pub mod sawtooth {
    /// The state.
    #[states]
    pub struct X {
        /// The level.
        pub x: f64,
    }

    /// The parameters.
    #[params]
    pub struct P {
        /// Rate of rise.
        pub a: f64,
        /// Rate of fall.
        pub b: f64,
        /// Upper threshold.
        pub hi: f64,
        /// Lower threshold.
        pub lo: f64,
        /// The drop at the upper threshold.
        pub drop: f64,
    }

    /// Rising.
    #[mode(initial)]
    fn up(_x: &X, p: &P) -> X {
        X { x: p.a }
    }

    /// Falling.
    #[mode]
    fn down(_x: &X, p: &P) -> X {
        X { x: -p.b }
    }

    /// The level rises through `hi`.
    #[guard(up -> down, rising)]
    fn top(x: &X, p: &P) -> f64 {
        x.x - p.hi
    }

    /// The drop.
    #[reset(top)]
    fn fall(x: &X, p: &P) -> X {
        X { x: x.x - p.drop }
    }

    /// The level falls through `lo`.
    #[guard(down -> up, falling)]
    fn bottom(x: &X, p: &P) -> f64 {
        x.x - p.lo
    }

    /// `∫ x dt` (linear in time: integrated exactly).
    #[cost(integral)]
    fn area(x: &X) -> f64 {
        x.x
    }

    /// The final level.
    #[cost(terminal)]
    fn level(x: &X) -> f64 {
        x.x
    }
}

// ---------------------------------------------------------------------------------------------
// Closed forms, over `Dual64` (one direction at a time).
// ---------------------------------------------------------------------------------------------

/// The closed form of a solve: final states, events `(guard, time)`, and the objective.
struct Exact<const NY: usize> {
    y: [Dual64; NY],
    events: Vec<(&'static str, Dual64)>,
    cost: Dual64,
}

/// The closed form along direction `k` of the runtime's column order (the parameters, then the
/// initial states).
fn along<const NY: usize, const NP: usize>(
    closed_form: &dyn Fn([Dual64; NY], [Dual64; NP]) -> Exact<NY>,
    y0: [f64; NY],
    p: [f64; NP],
    k: usize,
) -> Exact<NY> {
    let seed = |j: usize, x: f64| Dual64::new(x, if j == k { 1.0 } else { 0.0 });
    let p = core::array::from_fn(|q| seed(q, p[q]));
    let y0 = core::array::from_fn(|i| seed(NP + i, y0[i]));
    closed_form(y0, p)
}

/// `kicked` from `(h0, v0)` to `tf`: free flight between impacts, each impact at
/// `t + (v + √(v² + 2 g h))/g`, where `v⁺ = e w + c t*` (`w` the impact speed).
fn kicked_exact(y0: [Dual64; 2], p: [Dual64; 3], tf: f64) -> Exact<2> {
    let [g, e, c] = p;
    let [mut h, mut v] = y0;
    let mut t = Dual64::from(0.0);
    let mut events = Vec::new();
    let mut cost = Dual64::from(0.0);
    loop {
        let dt = (v + (v * v + g * h * 2.0).sqrt()) / g;
        if (t + dt).re >= tf {
            break;
        }
        cost += v * dt - g * dt * dt * 0.5; // ∫ v over the flight
        t += dt;
        let w = g * dt - v; // impact speed, −v⁻
        (h, v) = (Dual64::from(0.0), e * w + c * t);
        events.push(("impact", t));
    }
    let s = -t + tf;
    cost += v * s - g * s * s * 0.5;
    let (h, v) = (h + v * s - g * s * s * 0.5, v - g * s);
    Exact {
        y: [h, v],
        events,
        cost: cost + v * v * 0.5 + g * h,
    }
}

/// `rebound` from `(x0, v0)` to `tf` (one landing and one end of the rebound before `tf`):
/// after the landing at `t1`, with `x* = d`, `v* = e w`,
/// `v(t1 + s) = v* (r + (1 − r) e^{−ks})`, `x(t1 + s) = x* + v* (r s + (1 − r)(1 − e^{−ks})/k)`,
/// and the rebound ends at `s2 = ln((1 − r)/(q − r))/k`; then free fall.
fn rebound_exact(y0: [Dual64; 2], p: [Dual64; 6], tf: f64) -> Exact<2> {
    let [g, e, d, k, r, q] = p;
    let [x0, v0] = y0;
    // Fall to the floor.
    let t1 = (v0 + (v0 * v0 + g * x0 * 2.0).sqrt()) / g;
    // ∫ x, and ∫ v v* = v* Δx with the memory (x0, v0) of the first mode.
    let mut cost = x0 * t1 + v0 * t1 * t1 * 0.5 - g * t1.powi(3) / 6.0 - v0 * x0;
    let w = g * t1 - v0;
    let (xs, vs) = (d, e * w);
    // The rebound.
    let s2 = ((-r + 1.0) / (q - r)).ln() / k;
    let decay = (-k * s2).exp();
    let t2 = t1 + s2;
    let x2 = xs + vs * (r * s2 + (-r + 1.0) * (-decay + 1.0) / k);
    let v2 = vs * (r + (-r + 1.0) * decay);
    cost += xs * s2
        + vs * (r * s2 * s2 * 0.5 + (-r + 1.0) / k * (s2 - (-decay + 1.0) / k))
        + vs * (x2 - xs);
    // Free fall again, with the memory (x2, v2).
    let s3 = -t2 + tf;
    assert!(s3.re > 0.0);
    cost += x2 * s3 + v2 * s3 * s3 * 0.5 - g * s3.powi(3) / 6.0;
    let (x, v) = (x2 + v2 * s3 - g * s3 * s3 * 0.5, v2 - g * s3);
    assert!(x.re > 0.0, "no second landing before tf");
    cost += v2 * (x - x2);
    Exact {
        y: [x, v],
        events: vec![("land", t1), ("spent", t2)],
        cost: cost + v * v * 0.5,
    }
}

/// `sawtooth` from `x0` in `up` to `tf`. Which events happen is decided on the values (the
/// signs of `hi − x0` and `hi − drop − lo`); their times and the final level follow.
fn sawtooth_exact(y0: [Dual64; 1], p: [Dual64; 5], tf: f64) -> Exact<1> {
    let [a, b, hi, lo, drop] = p;
    let [mut x] = y0;
    let mut t = Dual64::from(0.0);
    let mut up = true;
    let mut events = Vec::new();
    let mut cost = Dual64::from(0.0);
    loop {
        let (rate, ahead, guard) = if up {
            (a, hi - x, "top")
        } else {
            (-b, x - lo, "bottom")
        };
        let dt = ahead / if up { a } else { b };
        if ahead.re <= 0.0 || (t + dt).re >= tf {
            let s = -t + tf;
            cost += x * s + rate * s * s * 0.5;
            x += rate * s;
            break;
        }
        cost += x * dt + rate * dt * dt * 0.5;
        t += dt;
        x = if up { hi - drop } else { lo };
        up = !up;
        events.push((guard, t));
    }
    Exact {
        y: [x],
        events,
        cost: cost + x,
    }
}

// ---------------------------------------------------------------------------------------------
// Checks.
// ---------------------------------------------------------------------------------------------

/// The directions of the runtime's column order, by name: the parameters, then the initial
/// states.
fn directions<const NY: usize, const NP: usize, M: HybridModel<NY, 0, NP>>() -> Vec<Wrt<'static>> {
    M::PARAMETER_NAMES
        .iter()
        .map(|&n| Wrt::Param(n))
        .chain(M::STATE_NAMES.iter().map(|&n| Wrt::InitialState(n)))
        .collect()
}

/// `|a − b| / max(|b|, 1)`.
fn error(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1.0)
}

/// The largest errors of a forward solve and of an adjoint gradient against the closed form.
#[derive(Clone, Copy, Debug, Default)]
struct Worst {
    /// Values: states, event times, the objective.
    value: f64,
    /// Forward sensitivities: states, event times, the objective's gradient.
    fsa: f64,
    /// The adjoint gradient.
    adjoint: f64,
}

impl Worst {
    fn max(self, o: Worst) -> Worst {
        Worst {
            value: self.value.max(o.value),
            fsa: self.fsa.max(o.fsa),
            adjoint: self.adjoint.max(o.adjoint),
        }
    }
}

/// Compares a forward solve (every parameter and initial state) and an adjoint gradient with
/// the closed form; panics naming the first entry off by more than `tol` (in the sense of
/// [`error`]). Returns the largest errors.
fn compare<X: Fields<NY>, M, const NY: usize, const NP: usize>(
    label: &str,
    solution: &Solution<X, NY, 0, NP>,
    adjoint: &Gradient<NY, NP>,
    exact: &dyn Fn(usize) -> Exact<NY>,
    tol: f64,
) -> Worst
where
    M: HybridModel<NY, 0, NP>,
{
    let mut worst = Worst::default();
    let check = |what: String, got: f64, want: f64, slot: &mut f64| {
        let e = error(got, want);
        assert!(
            e <= tol,
            "{label}: {what}: {got:e} vs {want:e} (error {e:.1e})"
        );
        *slot = slot.max(e);
    };
    let nominal = exact(usize::MAX);
    assert_eq!(
        solution.events.iter().map(|e| e.guard).collect::<Vec<_>>(),
        nominal.events.iter().map(|e| e.0).collect::<Vec<_>>(),
        "{label}: the events ({:?})",
        solution.events.iter().map(|e| e.t).collect::<Vec<_>>()
    );
    for i in 0..NY {
        check(
            format!("y[{i}]"),
            solution.y[i],
            nominal.y[i].re,
            &mut worst.value,
        );
    }
    for (k, event) in solution.events.iter().enumerate() {
        let want = nominal.events[k].1.re;
        check(format!("t of event {k}"), event.t, want, &mut worst.value);
    }
    check("G".into(), solution.cost, nominal.cost.re, &mut worst.value);
    assert_eq!(
        adjoint.cost.to_bits(),
        solution.cost.to_bits(),
        "{label}: the same solve"
    );
    for (j, wrt) in directions::<NY, NP, M>().into_iter().enumerate() {
        let exact = exact(j);
        for i in 0..NY {
            let got = solution.sensitivity(M::STATE_NAMES[i], wrt);
            let what = format!("∂y[{i}]/∂{wrt:?}");
            check(
                what,
                got.expect("a direction"),
                exact.y[i].eps,
                &mut worst.fsa,
            );
        }
        for k in 0..solution.events.len() {
            let got = solution
                .event_time_sensitivity(k, wrt)
                .expect("a direction");
            let what = format!("dt{k}/d{wrt:?}");
            check(what, got, exact.events[k].1.eps, &mut worst.fsa);
        }
        let got = solution.cost_gradient(wrt).expect("a direction");
        check(
            format!("dG/d{wrt:?} (forward)"),
            got,
            exact.cost.eps,
            &mut worst.fsa,
        );
        let got = adjoint.wrt(wrt).expect("a name");
        check(
            format!("dG/d{wrt:?} (adjoint)"),
            got,
            exact.cost.eps,
            &mut worst.adjoint,
        );
    }
    worst
}

/// Solves with `solver` (forward sensitivities to everything, and the adjoint gradient) and
/// compares with the closed form (`compare`).
#[allow(clippy::too_many_arguments)]
fn solve_and_compare<
    M,
    const S: usize,
    const NY: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    label: &str,
    solver: Solver<'_, M, S, NY, 0, NP, N, NS>,
    tf: f64,
    y0: [f64; NY],
    p: [f64; NP],
    closed_form: &dyn Fn([Dual64; NY], [Dual64; NP]) -> Exact<NY>,
    tol: f64,
) -> Worst
where
    M: AdjointProducts<NY, 0, NP> + ModelSizes<N, NS> + ModelTypes<NY, 0, NP>,
{
    let (x0, params) = (M::State::from_array(y0), M::Params::from_array(p));
    let solution = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, tf, &x0, &params)
        .unwrap_or_else(|f| panic!("{label}: {}", f.error));
    let adjoint = solver
        .gradient(0.0, tf, &x0, &params)
        .unwrap_or_else(|e| panic!("{label}: {}", e.error));
    let exact = |k: usize| along(closed_form, y0, p, k);
    let worst = compare::<_, M, NY, NP>(label, &solution, &adjoint, &exact, tol);
    println!(
        "{label}: {} steps, {} events; largest error of values {:.1e}, FSA {:.1e}, adjoint {:.1e}",
        solution.stats.steps,
        solution.events.len(),
        worst.value,
        worst.fsa,
        worst.adjoint
    );
    worst
}

/// `solve_and_compare` with ESDIRK23, ESDIRK34 and the default tableau (ESDIRK4(3)6L[2]SA)
/// of `solver`.
#[allow(clippy::too_many_arguments)]
fn every_tableau<M, const NY: usize, const NP: usize, const N: usize, const NS: usize>(
    label: &str,
    solver: Solver<'_, M, 6, NY, 0, NP, N, NS>,
    tf: f64,
    y0: [f64; NY],
    p: [f64; NP],
    closed_form: &dyn Fn([Dual64; NY], [Dual64; NP]) -> Exact<NY>,
    tol: f64,
) -> Worst
where
    M: AdjointProducts<NY, 0, NP> + ModelSizes<N, NS> + ModelTypes<NY, 0, NP>,
{
    let (cf, label) = (closed_form, |t: &str| format!("{label}, {t}"));
    let w23 = solve_and_compare(
        &label("ESDIRK23"),
        solver.tableau(&ESDIRK23),
        tf,
        y0,
        p,
        cf,
        tol,
    );
    let w34 = solve_and_compare(
        &label("ESDIRK34"),
        solver.tableau(&ESDIRK34),
        tf,
        y0,
        p,
        cf,
        tol,
    );
    let w436 = solve_and_compare(&label("ESDIRK4(3)6L"), solver, tf, y0, p, cf, tol);
    w23.max(w34).max(w436)
}

/// The forward sensitivities to every parameter and initial state against central differences
/// of the same integrator on the frozen step sequence: an adaptive solve at `rtol` (atol
/// `rtol·1e-2`, `tableau`) logs its steps; the log is replayed at `θ ± δ_j e_j` for each
/// parameter and initial state `θ_j` (δ_j = `step(j)`). Compared: every event time, every final
/// state, the objective; the difference relative to `max(|FD|, 1)`. Returns the worst.
///
/// The replays run with Newton tolerances 1e-12 and without Jacobian reuse (as
/// `tests/support/runtime.rs`'s `fsa_vs_frozen_fd`); every mode here is linear in the
/// states, so the Newton solves are exact in one iteration anyway. The replay at `θ` must
/// reproduce the adaptive solve (checked), so the FSA of that solve is the derivative of the
/// replayed map.
#[allow(clippy::too_many_arguments)]
fn frozen_fd<M, const S: usize, const NY: usize, const NP: usize, const N: usize, const NS: usize>(
    label: &str,
    model: &M,
    tableau: &Tableau<S>,
    rtol: f64,
    tf: f64,
    y0: [f64; NY],
    p: [f64; NP],
    step: &dyn Fn(usize) -> f64,
) -> f64
where
    M: HybridModel<NY, 0, NP> + ModelSizes<N, NS> + ModelTypes<NY, 0, NP>,
{
    let mut log = vec![LoggedStep::ZERO; 100_000];
    let mut events = vec![EventRecord::<NY, NS>::ZERO; 16];
    let mut fsa = HybridSolution::<NY, 0, NS>::ZERO;
    Solver::new(model)
        .tableau(tableau)
        .tolerances(rtol, rtol * 1e-2)
        .sensitivities_to(Params::All, InitialStates::All)
        .solve_into(
            0.0,
            tf,
            &M::State::from_array(y0),
            &M::Params::from_array(p),
            &mut HybridOutputs {
                samples: &mut [],
                events: Some(&mut events),
                steps: Some(&mut log),
                dense: None,
            },
            &mut fsa,
        )
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    let log = &log[..fsa.n_logged_steps];
    let events = &events[..fsa.n_events];
    let mut tight = HybridOptions::<NY, 0>::new(1e-12, 1e-12);
    tight.integrator.jacobian_reuse_rate = 0.0;
    tight.integrator.max_newton_iterations = 20;
    let replay = |y0: [f64; NY], p: [f64; NP]| {
        let problem = HybridProblem {
            t0: 0.0,
            tf,
            y0,
            z0: [],
            p,
            sensitivities: None,
            sample_times: &[],
            sample_data: &[],
        };
        let mut events = vec![EventRecord::<NY, NP>::ZERO; 16];
        let mut solution = HybridSolution::ZERO;
        solve(
            &HybridRun::new(model, tableau, &problem, &tight).with_plan(StepPlan::Replay(log)),
            &mut HybridOutputs {
                samples: &mut [],
                events: Some(&mut events),
                steps: None,
                dense: None,
            },
            &mut solution,
        )
        .unwrap_or_else(|e| panic!("{label}: replay: {e}"));
        events.truncate(solution.n_events);
        (solution, events)
    };
    let (base, base_events) = replay(y0, p);
    assert_eq!(base_events.len(), events.len(), "{label}: replay");
    for i in 0..NY {
        // The same steps on linear modes (Newton exact either way): round-off only.
        assert!(
            error(base.y[i], fsa.y[i]) < 1e-13,
            "{label}: the replay reproduces the solve: {:?} vs {:?}",
            base.y,
            fsa.y
        );
    }
    let mut worst = 0.0f64;
    for j in 0..NS {
        let d = step(j);
        let (mut yp, mut ym, mut pp, mut pm) = (y0, y0, p, p);
        if j < NP {
            (pp[j], pm[j]) = (p[j] + d, p[j] - d);
        } else {
            (yp[j - NP], ym[j - NP]) = (y0[j - NP] + d, y0[j - NP] - d);
        }
        let ((plus, ev_plus), (minus, ev_minus)) = (replay(yp, pp), replay(ym, pm));
        assert_eq!(ev_plus.len(), events.len(), "{label}: direction {j}, +δ");
        assert_eq!(ev_minus.len(), events.len(), "{label}: direction {j}, −δ");
        let fd = |a: f64, b: f64| (a - b) / (2.0 * d);
        let mut pairs = Vec::new();
        for k in 0..events.len() {
            pairs.push((events[k].tau[j], fd(ev_plus[k].t, ev_minus[k].t)));
        }
        for i in 0..NY {
            pairs.push((fsa.sy[i][j], fd(plus.y[i], minus.y[i])));
        }
        pairs.push((fsa.cost_gradient[j], fd(plus.cost, minus.cost)));
        for (a, b) in pairs {
            worst = worst.max(error(a, b));
        }
    }
    println!(
        "{label} {} (rtol {rtol:.0e}, {} steps, {} events): FSA vs frozen FD worst {worst:.1e}",
        tableau.name,
        fsa.stats.steps,
        events.len()
    );
    worst
}

// ---------------------------------------------------------------------------------------------
// `kicked`: R_t τ.
// ---------------------------------------------------------------------------------------------

/// `(g, e, c)` and `(h0, v0)`: impacts at t ≈ 0.505 and 1.438 (kicks of c t ≈ 1.0 and 2.9),
/// the third at ≈ 2.77, after `KICKED_TF`.
const KICKED_P: [f64; 3] = [9.81, 0.8, 2.0];
const KICKED_Y0: [f64; 2] = [1.0, 0.5];
const KICKED_TF: f64 = 2.2;

fn kicked_closed_form(y0: [Dual64; 2], p: [Dual64; 3]) -> Exact<2> {
    kicked_exact(y0, p, KICKED_TF)
}

/// The time-kicked ball against its closed form, FSA and adjoint, at rtol 1e-10 and 1e-6 and
/// for the three tableaus. Free flight is quadratic in time and every tableau has order ≥ 2
/// and stage order 2, so the steps follow it exactly, the event is the exact root and the
/// quadrature of the linear `∫ v dt` is exact: the discrete solution and its exact
/// derivatives equal the closed form to round-off at any tolerance. 1e-12 is a round-off
/// bound (values and sensitivities up to ~30, two events, ~20 steps; measured ≤ 1.2e-14).
/// Without `R_t τ` the velocity sensitivities after an impact are off by `c τ` (~0.1 … 1).
#[test]
fn time_dependent_reset_against_the_closed_form() {
    let (y0, p, tf, cf) = (KICKED_Y0, KICKED_P, KICKED_TF, &kicked_closed_form);
    let mut worst = Worst::default();
    for rtol in [1e-10, 1e-6] {
        let solver = kicked::Model.solver().tolerances(rtol, rtol * 1e-2);
        let label = format!("kicked, rtol {rtol:.0e}");
        // Round-off (doc above).
        worst = worst.max(every_tableau(&label, solver, tf, y0, p, cf, 1e-12));
    }
    println!("kicked: largest errors {worst:?}");
}

/// The time-kicked ball: FSA against frozen-step central differences, every tableau, at rtol
/// 1e-6. Relative steps 1e-6: the discrete map is the closed form (above), smooth between
/// events, so the truncation is O(δ²) ≈ 1e-12 and the round-off ~ε|G|/δ ≈ 5e-9 (the objective
/// is ~20; measured ≤ 4.4e-9); 1e-7 leaves a margin of 20.
#[test]
fn time_dependent_reset_against_frozen_differences() {
    let theta = |j: usize| if j < 3 { KICKED_P[j] } else { KICKED_Y0[j - 3] };
    let step = |j: usize| 1e-6 * theta(j).abs().max(1.0);
    let (y0, p, tf) = (KICKED_Y0, KICKED_P, KICKED_TF);
    let m = &kicked::Model;
    let w = [
        frozen_fd("kicked", m, &ESDIRK23, 1e-6, tf, y0, p, &step),
        frozen_fd("kicked", m, &ESDIRK34, 1e-6, tf, y0, p, &step),
        frozen_fd("kicked", m, &ESDIRK436L2SA, 1e-6, tf, y0, p, &step),
    ];
    assert!(w.iter().all(|w| *w < 1e-7), "{w:?}");
}

// ---------------------------------------------------------------------------------------------
// `rebound`: a reset into a mode that reads its memory.
// ---------------------------------------------------------------------------------------------

/// `(g, e, d, k, r, q)` and `(x0, v0)`: landing at t1 ≈ 0.452 (`x* = 0.2`, `v* ≈ 3.10`), the
/// rebound ends at t2 = t1 + ln 3/3 ≈ 0.818 (x ≈ 1.0, v ≈ 1.55), the next landing at ≈ 1.45,
/// after `REBOUND_TF`.
const REBOUND_P: [f64; 6] = [9.81, 0.7, 0.2, 3.0, 0.25, 0.5];
const REBOUND_Y0: [f64; 2] = [1.0, 0.0];
const REBOUND_TF: f64 = 1.3;

fn rebound_closed_form(y0: [Dual64; 2], p: [Dual64; 6]) -> Exact<2> {
    rebound_exact(y0, p, REBOUND_TF)
}

/// The rebound against its closed form, FSA and adjoint, at rtol 1e-10 and 1e-6 and for the
/// three tableaus. The rebound's exponential is not followed exactly, so the bounds are the
/// global errors of the solve: measured ≤ 1.1e-7 (values) and 4.8e-7 (sensitivities) at rtol
/// 1e-10, ≤ 5e-5 and 2.2e-4 at rtol 1e-6, both from ESDIRK23 (the lowest order, 2885 and 140
/// steps); the bounds 5e-6 and 2e-3 leave a margin of 10. (A wrong memory sensitivity moves
/// the sensitivities by ~0.1 … 1.) The integral cost is in the error test: without it the free
/// fall, which every tableau follows exactly, is taken in a few long steps, on which ESDIRK23's
/// second-order quadrature of `∫ x dt` (cubic in time) is off by 2e-2, at any tolerance.
#[test]
fn reset_into_a_mode_that_reads_its_memory_against_the_closed_form() {
    let (y0, p, tf, cf) = (REBOUND_Y0, REBOUND_P, REBOUND_TF, &rebound_closed_form);
    let mut worst = Worst::default();
    // Global errors (doc above): 10x the largest measured.
    for (rtol, tol) in [(1e-10, 5e-6), (1e-6, 2e-3)] {
        let solver = rebound::Model
            .solver()
            .tolerances(rtol, rtol * 1e-2)
            .cost_error_test(rtol, rtol * 1e-2);
        let label = format!("rebound, rtol {rtol:.0e}");
        worst = worst.max(every_tableau(&label, solver, tf, y0, p, cf, tol));
    }
    println!("rebound: largest errors {worst:?}");
}

/// The rebound: FSA against frozen-step central differences, every tableau, at rtol 1e-6.
/// Relative steps 1e-6: truncation O(δ²) ≈ 1e-12, round-off ~ε|G|/δ ≈ 1e-9 (measured
/// ≤ 5.3e-9); 1e-7 leaves a margin of 20.
#[test]
fn reset_into_a_mode_that_reads_its_memory_against_frozen_differences() {
    let theta = |j: usize| {
        if j < 6 {
            REBOUND_P[j]
        } else {
            REBOUND_Y0[j - 6]
        }
    };
    let step = |j: usize| 1e-6 * theta(j).abs().max(1.0);
    let (y0, p, tf) = (REBOUND_Y0, REBOUND_P, REBOUND_TF);
    let m = &rebound::Model;
    let w = [
        frozen_fd("rebound", m, &ESDIRK23, 1e-6, tf, y0, p, &step),
        frozen_fd("rebound", m, &ESDIRK34, 1e-6, tf, y0, p, &step),
        frozen_fd("rebound", m, &ESDIRK436L2SA, 1e-6, tf, y0, p, &step),
    ];
    assert!(w.iter().all(|w| *w < 1e-7), "{w:?}");
}

// ---------------------------------------------------------------------------------------------
// `sawtooth`: guards near zero at `t0` and right after a reset.
// ---------------------------------------------------------------------------------------------

/// `(a, b, hi, lo, drop)` with `hi − drop − lo = 0.25`: from `x0 = 0.5` the top at t = 0.5,
/// the bottom at 0.625, the top again at 1.375, after `SAW_TF`.
const SAW_P: [f64; 5] = [1.0, 2.0, 1.0, 0.25, 0.5];
const SAW_TF: f64 = 1.0;

fn saw_closed_form(y0: [Dual64; 1], p: [Dual64; 5]) -> Exact<1> {
    sawtooth_exact(y0, p, SAW_TF)
}

/// The starts and parameters of the sawtooth with guards near zero at the distance `delta`:
/// `(label, x0, p)`.
fn saw_cases(delta: f64) -> Vec<(String, [f64; 1], [f64; 5])> {
    let [a, b, hi, lo, _] = SAW_P;
    // `hi − drop` lands `gap` above `lo`.
    let landing = |gap: f64| [a, b, hi, lo, hi - lo - gap];
    vec![
        // `top` at −δ at t0, moving up: the event at t = δ/a, not at t0.
        (format!("x0 = hi − {delta:.0e}"), [hi - delta], SAW_P),
        // `top` at +δ at t0, moving up: it has been crossed; no event ever.
        (format!("x0 = hi + {delta:.0e}"), [hi + delta], SAW_P),
        // After the drop, `bottom` at +δ, moving down: the event δ/b after the drop.
        (
            format!("landing {delta:.0e} above lo"),
            [0.5],
            landing(delta),
        ),
        // After the drop, `bottom` at −δ, moving down: crossed; no event.
        (
            format!("landing {delta:.0e} below lo"),
            [0.5],
            landing(-delta),
        ),
        // Both: the drop δ/a after t0 lands δ above `lo`.
        (format!("both at {delta:.0e}"), [hi - delta], landing(delta)),
    ]
}

/// Guards near zero at `t0` and after the reset, against the closed form (events, their times,
/// the states, every sensitivity, FSA and adjoint), at rtol 1e-3 … 1e-12, for guard values of
/// 1e-7, 1e-9 and 1e-11 on a level of size 1, with the three tableaus. The flows are constant,
/// so every tableau follows them exactly and the events are the exact roots: 1e-13 is a
/// round-off bound (values and sensitivities O(1), a few steps; measured ≤ 3e-15). Were a guard
/// zero within the solver's tolerance, the events would come at `t0` (or at the drop) instead
/// of `δ/a` (or `δ/b`) later, or — past the guard — at all.
#[test]
fn guards_near_zero_at_t0_and_after_a_reset() {
    let cf = &saw_closed_form;
    let mut worst = Worst::default();
    for delta in [1e-7, 1e-9, 1e-11] {
        for (case, y0, p) in saw_cases(delta) {
            for rtol in [1e-3, 1e-6, 1e-9, 1e-12] {
                let solver = sawtooth::Model.solver().tolerances(rtol, rtol * 1e-2);
                let label = format!("sawtooth {case}, rtol {rtol:.0e}");
                // Round-off (doc above).
                worst = worst.max(every_tableau(&label, solver, SAW_TF, y0, p, cf, 1e-13));
            }
        }
    }
    println!("sawtooth: largest errors {worst:?}");
}

/// The sawtooth with both guards 1e-7 from zero (at `t0` and after the drop): FSA against
/// frozen-step central differences, every tableau, at rtol 1e-6. The steps must not move a
/// guard across its zero, so they are 1e-8 (absolute) in every direction; the level is affine
/// in `x0, hi, lo, drop` and the times are rational in `a, b` with curvature O(1), so the
/// truncation is ≲ 1e-16, and the round-off ~ε·|x|/δ (a few 1e-8) dominates; 1e-6 leaves a
/// margin of 10 or more.
#[test]
fn guards_near_zero_against_frozen_differences() {
    let (_, y0, p) = saw_cases(1e-7).pop().expect("the case with both");
    let step = |_: usize| 1e-8;
    let m = &sawtooth::Model;
    let w = [
        frozen_fd("sawtooth", m, &ESDIRK23, 1e-6, SAW_TF, y0, p, &step),
        frozen_fd("sawtooth", m, &ESDIRK34, 1e-6, SAW_TF, y0, p, &step),
        frozen_fd("sawtooth", m, &ESDIRK436L2SA, 1e-6, SAW_TF, y0, p, &step),
    ];
    assert!(w.iter().all(|w| *w < 1e-6), "{w:?}");
}
