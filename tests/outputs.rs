//! Named outputs (`#[output]`) and their sensitivities in the results: at the samples, at the
//! final time (a fixed one, and the moving time of a terminal guard), at any state the caller
//! holds (`Solution::output_of`: a sample, or dense output's `Solution::at(t)`), and from the
//! no-heap results (`Sample::output`, `HybridSolution::output_sensitivities`).
//!
//! The model is a valve tank written as an index-1 DAE: it fills at a constant rate until the
//! level is reached, then drains through the valve, whose flow is the algebraic variable
//! `q = k h`, until a terminal guard stops it at a lower level. One output is nonlinear in the
//! states, a parameter and an input; the other reads the algebraic variable and the time. Both
//! have closed forms (linear filling, exponential draining), differentiated with num-dual.
//!
//! Tolerances: the solves run at rtol 1e-10, atol 1e-12 and the closed forms are matched to
//! 1e-8 relative — the filling is linear (exact for the ESDIRK4(3) tableau) but the draining
//! is an exponential, whose global error after a few dozen steps is a small multiple of the
//! local tolerance (measured: at most 3.6e-10 for the values and 2.0e-9 for the
//! sensitivities). The outputs' sensitivities are compared with the adjoint gradient of a
//! terminal cost equal to their sum to 1e-10 (the same discrete chain, transposed: round-off;
//! measured 8.4e-16), and with the hand-written chain `o_y dy + o_z dz + o_p` to 1e-13 (the
//! same arithmetic; measured 1.7e-16).
#![deny(missing_docs)]

use crate::closed_form;
use crate::counting_alloc;

use closed_form::{assert_close, derivatives, directions, forward_and_adjoint, value};
use hysens::runtime::{
    HybridModel, HybridOptions, HybridOutputs, HybridSolution, InitialStates, LookupError, Params,
    Sample, SampleState, Solution, Wrt,
};
use num_dual::{Dual64, DualNum};

/// A tank that fills, then drains through a valve until it is nearly empty.
#[hysens::hybrid_model]
pub mod valve {
    /// The tank.
    #[states]
    pub struct X {
        /// Level.
        pub h: f64,
        /// Volume drained so far.
        pub s: f64,
    }

    /// The valve.
    #[algebraic]
    pub struct Z {
        /// Flow through the valve, `q = k h` (closed while filling: it only drains the tank
        /// once the level is reached).
        pub q: f64,
    }

    /// Rates and levels.
    #[params]
    pub struct P {
        /// Filling rate.
        pub a: f64,
        /// Valve coefficient.
        pub k: f64,
        /// The level at which filling stops and draining starts.
        pub level: f64,
        /// The level at which the solve stops.
        pub empty: f64,
    }

    /// The tank's cross-section.
    #[inputs]
    pub struct U {
        /// Cross-section area.
        pub area: f64,
    }

    /// Filling at rate `a`.
    #[mode(initial)]
    fn filling(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
        (X { h: p.a, s: 0.0 }, [z.q - p.k * x.h])
    }

    /// The level is reached.
    #[guard(filling -> draining, rising)]
    fn full(x: &X, p: &P) -> f64 {
        x.h - p.level
    }

    /// Draining through the valve.
    #[mode]
    fn draining(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
        (X { h: -z.q, s: z.q }, [z.q - p.k * x.h])
    }

    /// Nearly empty: the solve ends.
    #[guard(draining -> stop, falling)]
    fn nearly_empty(x: &X, p: &P) -> f64 {
        x.h - p.empty
    }

    /// Nonlinear in a state, a parameter and an input, plus another state.
    #[output]
    fn stored(x: &X, p: &P, u: &U) -> f64 {
        u.area * x.h * x.h / p.k + x.s
    }

    /// The algebraic variable and the time.
    #[output]
    fn flow_by_time(z: &Z, t: f64) -> f64 {
        z.q * (1.0 + t)
    }

    /// The sum of the two outputs at the final time: its adjoint gradient is their summed
    /// sensitivity there.
    #[cost(terminal)]
    fn both_outputs(x: &X, z: &Z, p: &P, u: &U, t: f64) -> f64 {
        u.area * x.h * x.h / p.k + x.s + z.q * (1.0 + t)
    }
}

/// Parameters, input and initial states of every solve: filling ends at `t1 = 0.55`, the stop
/// comes at `t1 + ln(level/empty)/k ≈ 2.56`.
const VALUES: [f64; 7] = [2.0, 0.8, 1.5, 0.3, 1.7, 0.4, 0.25];
/// The sample times: two while filling, two while draining.
const SAMPLES: [f64; 4] = [0.3, 0.5, 1.6, 2.2];
/// A final time before the stop.
const BEFORE_STOP: f64 = 2.4;
/// A final time after it: the terminal guard ends the solve.
const AFTER_STOP: f64 = 5.0;
/// The closed forms' tolerance through dense output: the interpolation between steps adds an
/// error of the order of the solve's own (`hysens_runtime::dense_output`), within 1e-8
/// relative at rtol 1e-10 like the samples (measured: 4.9e-9 at most, for `∂/∂k` of the flow
/// while draining, against 2.0e-9 at the samples).
const DENSE_TOLERANCE: f64 = 1e-8;
/// The output names, in the model's order.
const OUTPUTS: [&str; 2] = ["stored", "flow_by_time"];

/// The directions, in the order of [`VALUES`].
fn all_directions() -> Vec<Wrt<'static>> {
    directions(&["a", "k", "level", "empty", "area"], &["h", "s"])
}

/// The solve's initial state, parameters and input from [`VALUES`].
fn inputs() -> (valve::X, valve::P, valve::U) {
    let [a, k, level, empty, area, h, s] = VALUES;
    (
        valve::X { h, s },
        valve::P { a, k, level, empty },
        valve::U { area },
    )
}

/// The solve's initial state and its parameters with the input appended.
fn initial_state_and_parameters() -> (valve::X, valve::Parameters) {
    let (x0, p, u) = inputs();
    (x0, valve::Model::parameters(&p, &u))
}

/// The solve before the stop sampled at [`SAMPLES`], with every direction, at rtol 1e-10; with
/// its dense output if `dense`.
fn sampled_solution(dense: bool) -> Solution<valve::X, 2, 1, 5> {
    let (x0, p) = initial_state_and_parameters();
    let solver = valve::Model
        .solver()
        .tolerances(1e-10, 1e-12)
        .sensitivities_to(Params::All, InitialStates::All)
        .samples(&SAMPLES);
    let solver = if dense { solver.dense_output() } else { solver };
    solver.solve(0.0, BEFORE_STOP, &x0, &p).expect("the solve")
}

/// Each output's value `value(name)` and sensitivities `sensitivity(name, wrt)` against the
/// closed form at time `t` to `tolerance` relative; `at` says where, in a failure.
fn assert_outputs_at(
    at: &str,
    t: f64,
    tolerance: f64,
    value_of: impl Fn(&str) -> f64,
    sensitivity: impl Fn(&str, Wrt<'static>) -> f64,
) {
    let closed_form = |v: &[Dual64]| outputs_at(v, t);
    let exact = value(&VALUES, closed_form);
    let exact_derivatives = derivatives(&VALUES, closed_form);
    for (o, name) in OUTPUTS.iter().enumerate() {
        let at = format!("{name} at {at}");
        assert_close(&at, value_of(name), exact[o], tolerance);
        for (&wrt, d) in all_directions().iter().zip(&exact_derivatives) {
            let computed = sensitivity(name, wrt);
            assert_close(&format!("d{at}/d{wrt:?}"), computed, d[o], tolerance);
        }
    }
}

/// `(h, s, q)` at a time `t` before the stop, from `v = (a, k, level, empty, area, h0, s0)`:
/// `h = h0 + a t` until `t1 = (level − h0)/a`, then `h = level e^{−k (t − t1)}`, with
/// `s = s0 + level − h` drained and `q = k h`.
fn state_at(v: &[Dual64], t: f64) -> [Dual64; 3] {
    let [a, k, level, _, _, h0, s0] = [v[0], v[1], v[2], v[3], v[4], v[5], v[6]];
    let t1 = (level - h0) / a;
    if t < t1.re {
        let h = h0 + a * t;
        [h, s0, k * h]
    } else {
        let h = level * (-k * (-t1 + t)).exp();
        [h, s0 + level - h, k * h]
    }
}

/// The two outputs at time `t` with the state `(h, s, q)`: `area h²/k + s` and `q (1 + t)`.
fn outputs_of(v: &[Dual64], t: Dual64, [h, s, q]: [Dual64; 3]) -> [Dual64; 2] {
    let (k, area) = (v[1], v[4]);
    [area * h * h / k + s, q * (t + 1.0)]
}

/// The outputs at a fixed time `t` before the stop.
fn outputs_at(v: &[Dual64], t: f64) -> [Dual64; 2] {
    outputs_of(v, Dual64::from_re(t), state_at(v, t))
}

/// The outputs at the stop, `t_stop = t1 + ln(level/empty)/k`, where `h = empty`.
fn outputs_at_the_stop(v: &[Dual64]) -> [Dual64; 2] {
    let [a, k, level, empty, _, h0, s0] = [v[0], v[1], v[2], v[3], v[4], v[5], v[6]];
    let t_stop = (level - h0) / a + (level / empty).ln() / k;
    outputs_of(v, t_stop, [empty, s0 + level - empty, k * empty])
}

/// Every output value and sensitivity at every sample against the closed form.
#[test]
fn outputs_at_the_samples_against_the_closed_form() {
    let solution = sampled_solution(false);
    let modes: Vec<&str> = solution.samples.iter().map(|s| s.mode).collect();
    assert_eq!(modes, ["filling", "filling", "draining", "draining"]);
    for (k, &t) in SAMPLES.iter().enumerate() {
        assert_outputs_at(
            &format!("t = {t}"),
            t,
            1e-8,
            |name| solution.output(name, k).expect("a known output"),
            |name, wrt| solution.output_sensitivity(name, k, wrt).unwrap(),
        );
    }
}

/// Through dense output: the outputs and their sensitivities at times between the steps, from
/// the states `Solution::at` interpolates, against the closed form; at a sample time, the same
/// as at the sample.
#[test]
fn outputs_through_dense_output_against_the_closed_form() {
    let solution = sampled_solution(true);
    for t in [0.1, 0.42, 0.9, 1.37, 2.05, 2.39] {
        let state = solution.at(t).expect("a time of the solve");
        assert_outputs_at(
            &format!("t = {t} (dense)"),
            t,
            DENSE_TOLERANCE,
            |name| solution.output_of(name, &state).unwrap(),
            |name, wrt| solution.output_sensitivity_of(name, &state, wrt).unwrap(),
        );
    }
    for (k, &t) in SAMPLES.iter().enumerate() {
        let state = solution.at(t).unwrap();
        for name in OUTPUTS {
            let (dense, sample) = (solution.output_of(name, &state), solution.output(name, k));
            assert_close(name, dense.unwrap(), sample.unwrap(), 1e-14);
        }
    }
}

/// The sensitivity is the chain rule through the sample's own sensitivities,
/// `o_y dy + o_z dz + o_p`, with the outputs' partials written by hand.
#[test]
fn the_sensitivity_is_the_chain_through_the_state_sensitivities() {
    let solution = sampled_solution(false);
    let [_, k_valve, _, _, area, _, _] = VALUES;
    for (k, sample) in solution.samples.iter().enumerate() {
        let (h, t) = (sample.y[0], sample.t);
        for wrt in all_directions() {
            let d = |of: &str| solution.sample_sensitivity(k, of, wrt).unwrap();
            // stored = area h²/k + s: o_h = 2 area h/k, o_s = 1, o_k = −area h²/k²,
            // o_area = h²/k.
            let direct = match wrt {
                Wrt::Param("k") => -area * h * h / (k_valve * k_valve),
                Wrt::Param("area") => h * h / k_valve,
                _ => 0.0,
            };
            let stored = 2.0 * area * h / k_valve * d("h") + d("s") + direct;
            // flow_by_time = q (1 + t): o_q = 1 + t, nothing direct.
            let flow = (1.0 + t) * d("q");
            for (name, chain) in OUTPUTS.iter().zip([stored, flow]) {
                let computed = solution.output_sensitivity(name, k, wrt).unwrap();
                assert_close(&format!("d{name}/d{wrt:?}"), computed, chain, 1e-13);
            }
        }
    }
}

/// At a fixed final time and at the stop of the terminal guard (where `t_f(θ)` moves and the
/// time-reading output adds `o_t τ`): the final outputs against the closed form, and their
/// summed sensitivity against the adjoint gradient of the terminal cost that sums them.
#[test]
fn final_outputs_against_the_closed_form_and_the_adjoint() {
    let (x0, p) = initial_state_and_parameters();
    let names = all_directions();
    type ClosedForm = fn(&[Dual64]) -> [Dual64; 2];
    let before: ClosedForm = |v| outputs_at(v, BEFORE_STOP);
    for (tf, closed_form, stops) in [
        (BEFORE_STOP, before, false),
        (AFTER_STOP, outputs_at_the_stop as ClosedForm, true),
    ] {
        let (solution, gradient) = forward_and_adjoint!(valve::Model, (1e-10, 1e-12), tf, &x0, &p);
        assert_eq!(solution.mode == "stop", stops, "stopped at {}", solution.t);
        let exact = value(&VALUES, closed_form);
        let final_outputs = OUTPUTS.map(|name| solution.final_output(name).unwrap());
        for (o, name) in OUTPUTS.iter().enumerate() {
            assert_close(
                &format!("{name}(t_f = {tf})"),
                final_outputs[o],
                exact[o],
                1e-8,
            );
        }
        let sum = final_outputs[0] + final_outputs[1];
        assert_close("G = the outputs' sum", gradient.cost, sum, 1e-13);
        for (&wrt, d) in names.iter().zip(derivatives(&VALUES, closed_form)) {
            let fsa = OUTPUTS.map(|name| solution.final_output_sensitivity(name, wrt).unwrap());
            for (o, name) in OUTPUTS.iter().enumerate() {
                let what = format!("d{name}(t_f = {tf})/d{wrt:?}");
                assert_close(&what, fsa[o], d[o], 1e-8);
            }
            let adjoint = gradient.wrt(wrt).unwrap();
            let what = format!("t_f = {tf}, d/d{wrt:?}: outputs (FSA) vs G (adjoint)");
            assert_close(&what, fsa[0] + fsa[1], adjoint, 1e-10);
        }
    }
}

/// `output_of` evaluates any state of the solution the caller holds (a sample here; a
/// dense-output state alike); a state with fewer sensitivity columns than the solution's
/// directions is an error, not a panic.
#[test]
fn outputs_of_a_state_the_caller_holds() {
    let (x0, p) = initial_state_and_parameters();
    let solution = valve::Model
        .solver()
        .sensitivities_to(Params::Only(&["k"]), InitialStates::None)
        .samples(&SAMPLES)
        .solve(0.0, BEFORE_STOP, &x0, &p)
        .expect("the solve");
    let sample = &solution.samples[2];
    let mut state = SampleState {
        x: valve::X::from_array(sample.y),
        dy: sample.dy.clone(),
        dz: sample.dz.clone(),
        ..*sample
    };
    for name in OUTPUTS {
        assert_eq!(solution.output_of(name, &state), solution.output(name, 2));
        assert_eq!(
            solution.output_sensitivity_of(name, &state, "k"),
            solution.output_sensitivity(name, 2, "k")
        );
    }
    state.dy.clear();
    let error = solution.output_sensitivity_of("stored", &state, "k");
    assert!(matches!(error, Err(LookupError::OutOfRange { len: 0, .. })));
}

/// A name the model does not have lists the model's outputs; a sample past the end and a
/// direction the solve did not compute say so.
#[test]
fn unknown_names_and_directions_are_errors_that_say_so() {
    let (x0, p) = initial_state_and_parameters();
    let solution = valve::Model
        .solver()
        .sensitivities_to(Params::Only(&["k"]), InitialStates::None)
        .samples(&SAMPLES)
        .solve(0.0, BEFORE_STOP, &x0, &p)
        .expect("the solve");
    assert_eq!(solution.output_names(), OUTPUTS);
    assert_eq!(valve::Model::OUTPUT_NAMES, OUTPUTS);
    let unknown = solution.output("height", 0).unwrap_err();
    assert_eq!(
        unknown,
        LookupError::UnknownName {
            kind: "output",
            name: "height".into(),
            known: OUTPUTS.to_vec(),
        }
    );
    assert_eq!(
        unknown.to_string(),
        "unknown output `height`; the model's: stored, flow_by_time"
    );
    assert!(matches!(
        solution.final_output_sensitivity("height", "k"),
        Err(LookupError::UnknownName { kind: "output", .. })
    ));
    assert!(matches!(
        solution.output("stored", SAMPLES.len()),
        Err(LookupError::OutOfRange { what: "sample", .. })
    ));
    assert!(matches!(
        solution.output_sensitivity("stored", 0, "a"),
        Err(LookupError::NotChosen { .. })
    ));
    assert!(matches!(
        solution.output_sensitivity("stored", 0, "gravity"),
        Err(LookupError::UnknownName {
            kind: "parameter",
            ..
        })
    ));
}

/// The no-heap results give the owned results' outputs: the same solve (parameter columns,
/// the builder's tolerances) through the generated core entry point, its samples and final
/// state evaluated by the model type, without a model instance, and without allocating
/// (counted by `support/counting_alloc.rs`).
#[test]
fn no_heap_results_give_the_same_outputs() {
    let (x0, params, input) = inputs();
    let p = valve::Model::parameters(&params, &input);
    let solution = valve::Model
        .solver()
        .tolerances(1e-10, 1e-12)
        .sensitivities_to(Params::All, InitialStates::None)
        .samples(&SAMPLES)
        .solve(0.0, AFTER_STOP, &x0, &p)
        .expect("the solve");
    let mut problem = valve::Model::problem(0.0, AFTER_STOP, &x0, &params, &input);
    problem.sample_times = &SAMPLES;
    let mut samples = [Sample::ZERO; SAMPLES.len()];
    let mut outputs = HybridOutputs {
        samples: &mut samples,
        events: None,
        steps: None,
        dense: None,
    };
    let mut core = HybridSolution::ZERO;
    let options = HybridOptions::new(1e-10, 1e-12);
    valve::Model
        .solve_with_sensitivities(&problem, &options, &mut outputs, &mut core)
        .expect("the no-heap solve");
    let params = ["a", "k", "level", "empty", "area"];
    for (o, name) in OUTPUTS.iter().enumerate() {
        for (k, sample) in samples.iter().enumerate() {
            let value = sample.output::<valve::Model, _>(o, &problem.p);
            assert_close(name, value, solution.output(name, k).unwrap(), 1e-14);
            let mut d = [0.0; 5];
            sample.output_sensitivities::<valve::Model, _>(o, &problem.p, &mut d);
            for (d, wrt) in d.iter().zip(params) {
                let owned = solution.output_sensitivity(name, k, wrt).unwrap();
                assert_close(&format!("d{name}/d{wrt}"), *d, owned, 1e-14);
            }
        }
        let value = core.output::<valve::Model, _>(o, &problem.p);
        assert_close(name, value, solution.final_output(name).unwrap(), 1e-14);
        let mut d = [0.0; 5];
        core.output_sensitivities::<valve::Model, _>(o, &problem.p, &mut d);
        for (d, wrt) in d.iter().zip(params) {
            let owned = solution.final_output_sensitivity(name, wrt).unwrap();
            assert_close(&format!("final d{name}/d{wrt}"), *d, owned, 1e-14);
        }
    }
    // Evaluating outputs and their sensitivities on the no-heap results allocates nothing.
    let ((), allocations) = counting_alloc::count(|| {
        let mut d = [0.0; 5];
        for o in 0..OUTPUTS.len() {
            samples[0].output_sensitivities::<valve::Model, _>(o, &problem.p, &mut d);
            core.output_sensitivities::<valve::Model, _>(o, &problem.p, &mut d);
            d[0] += samples[1].output::<valve::Model, _>(o, &problem.p);
            d[1] += core.output::<valve::Model, _>(o, &problem.p);
        }
        assert!(d.iter().all(|d| d.is_finite()));
    });
    assert_eq!(allocations, 0);
    // Through the trait, as a hand-written caller would: an index past the outputs is 0.
    let at = hysens::runtime::Point {
        t: core.t,
        y: &core.y,
        z: &core.z,
        p: &problem.p,
        memory: &core.memory,
    };
    assert_eq!(<valve::Model as HybridModel<2, 1, 5>>::output(2, &at), 0.0);
}
