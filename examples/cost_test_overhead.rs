//! What the integral cost's error test, on by default (`Options::cost_error_test`, issue #19),
//! costs on every example and benchmark whose model has an integral cost: each solve with the
//! test off (`Solver::cost_error_test_off`, the steps the states choose) and with the default
//! (the test with the states' tolerances), at the settings of the example or benchmark.
//!
//! ```sh
//! cargo run --release -p hysens-examples --example cost_test_overhead -- [rounds]
//! ```
//!
//! Prints the models it solves (`model:`), then a Markdown table (the one in BENCHMARKS.md):
//! accepted and rejected steps, `f` evaluations and LU factorizations, which are
//! deterministic, and the median wall time of `rounds` solves (default 100), off and on
//! interleaved so that a machine shared with other jobs slows both alike; times still move by
//! 10–20 % from run to run on a loaded machine.

use std::time::Instant;

use hysens::prelude::*;

#[path = "reproduce/models/memory_toy.rs"]
mod memory_toy_model;
#[path = "quickstart/model.rs"]
mod quickstart_model;
#[path = "relay_sliding/model.rs"]
mod relay_model;
#[path = "steel_hysteresis/model.rs"]
mod steel_model;
#[path = "stick_slip/model.rs"]
mod stick_slip_model;
#[path = "../tests/support/thermostat.rs"]
mod thermostat_model;

use memory_toy_model::memory_toy;
use quickstart_model::ex51;
use relay_model::relay;
use steel_model::steel;
use stick_slip_model::oscillator;
use thermostat_model::thermostat;

/// The counters of one solve (or of a batch of solves).
#[derive(Clone, Copy, Default)]
struct Counts {
    steps: usize,
    rejected: usize,
    f_evals: usize,
    lu: usize,
}

impl Counts {
    fn of(stats: &Stats) -> Self {
        Counts {
            steps: stats.steps,
            rejected: stats.rejected_steps,
            f_evals: stats.f_evals,
            lu: stats.lu_factorizations,
        }
    }

    fn add(self, other: Counts) -> Self {
        Counts {
            steps: self.steps + other.steps,
            rejected: self.rejected + other.rejected,
            f_evals: self.f_evals + other.f_evals,
            lu: self.lu + other.lu,
        }
    }
}

/// One row: a name, its settings, and the solve with the test on (`true`) or off.
struct Case {
    name: &'static str,
    settings: &'static str,
    solve: Box<dyn Fn(bool) -> Counts>,
}

/// Every parameter and initial state: the directions of the FSA solves.
const ALL: (Params, InitialStates) = (Params::All, InitialStates::All);

/// The counters of a solve by `solver` with sensitivities to `directions` on `[0, tf]` from
/// `x0` with `p`, with the cost test on (`on`, the default) or off.
fn counts<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    solver: Solver<'_, M, S, NY, NZ, NP, N, NS>,
    on: bool,
    (params, initial_states): (Params<'static>, InitialStates<'static>),
    tf: f64,
    x0: &<M as ModelTypes<NY, NZ, NP>>::State,
    p: &<M as ModelTypes<NY, NZ, NP>>::Params,
) -> Counts
where
    M: HybridModel<NY, NZ, NP> + ModelSizes<N, NS> + ModelTypes<NY, NZ, NP>,
{
    let solver = if on {
        solver
    } else {
        solver.cost_error_test_off()
    };
    let solution = solver
        .sensitivities_to(params, initial_states)
        .solve(0.0, tf, x0, p)
        .unwrap_or_else(|failure| panic!("{failure}"));
    Counts::of(&solution.stats)
}

fn cases() -> Vec<Case> {
    // P1 from x = 0 on [0, 5] with the threshold `p`.
    let p1 = |on, directions, p| {
        let solver = ex51::Model.solver().tolerances(1e-8, 1e-10);
        counts(
            solver,
            on,
            directions,
            5.0,
            &ex51::X { x: 0.0 },
            &ex51::P { p },
        )
    };
    let none = (Params::None, InitialStates::None);
    vec![
        Case {
            name: "P1 Ex. 5.1, plain (bench `solve`)",
            settings: "rtol 1e-8, [0, 5]",
            solve: Box::new(move |on| p1(on, none, 2.9)),
        },
        Case {
            name: "P1 Ex. 5.1, FSA (`quickstart`, bench `solve`)",
            settings: "rtol 1e-8, [0, 5]",
            solve: Box::new(move |on| p1(on, ALL, 2.9)),
        },
        Case {
            name: "64 × P1, FSA (bench `batch`, sequential)",
            settings: "rtol 1e-8, p in [2.6, 3.2)",
            solve: Box::new(move |on| {
                (0..64).fold(Counts::default(), |sum, k| {
                    sum.add(p1(on, ALL, 2.6 + 0.6 * k as f64 / 64.0))
                })
            }),
        },
        Case {
            name: "Ex. 5.2 steel, FSA (`steel_hysteresis`)",
            settings: "rtol 1e-8, [0, 10], DAE",
            solve: Box::new(|on| {
                let p = steel_model::paper_parameters();
                let x0 = steel::X { u: 0.0, v: 0.0 };
                let solver = steel::Model.solver().tolerances(1e-8, 1e-10);
                counts(solver, on, ALL, 10.0, &x0, &p)
            }),
        },
        Case {
            name: "memory toy, FSA (`reproduce`)",
            settings: "rtol 1e-10, [0, 3]",
            solve: Box::new(|on| {
                let x0 = memory_toy::X { y1: 0.0, y2: 0.0 };
                let p = memory_toy::P { p1: 1.0, p2: 1.0 };
                let solver = memory_toy::Model.solver().tolerances(1e-10, 1e-12);
                let params_only = (Params::All, InitialStates::None);
                counts(solver, on, params_only, 3.0, &x0, &p)
            }),
        },
        Case {
            name: "relay with sliding, FSA (`relay_sliding`)",
            settings: "rtol 1e-10, [0, 5]",
            solve: Box::new(|on| {
                let x0 = relay::X { x1: 6.0, x2: -4.0 };
                let p = relay::P {
                    lambda: 1.0,
                    k: 1.0,
                    d: 1.5,
                };
                let solver = relay::Model.solver().tolerances(1e-10, 1e-12);
                counts(solver, on, ALL, 5.0, &x0, &p)
            }),
        },
        Case {
            name: "stick-slip, FSA (`stick_slip`)",
            settings: "rtol 1e-10, [0, 24]",
            solve: Box::new(|on| {
                let x0 = oscillator::X { x: 0.0, v: 2.0 };
                let p = oscillator::P {
                    omega: 1.0,
                    a: 1.0,
                    b: 0.3,
                    vb: 0.5,
                };
                let solver = oscillator::Model.solver().tolerances(1e-10, 1e-12);
                counts(solver, on, ALL, 24.0, &x0, &p)
            }),
        },
        Case {
            name: "thermostat, FSA (`tests/cost_error_test.rs`)",
            settings: "rtol 1e-6 (default), [0, 10]",
            solve: Box::new(|on| {
                let p = thermostat::P {
                    tau: 1.0,
                    heater: 30.0,
                    ambient: 10.0,
                    low: 19.0,
                    high: 21.0,
                    set: 20.0,
                };
                let x0 = thermostat::X { temp: 15.0 };
                let solver = thermostat::Model.solver().tolerances(1e-6, 1e-8);
                counts(solver, on, ALL, 10.0, &x0, &p)
            }),
        },
    ]
}

/// The median of `v`.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// `a → b (+x %)`.
fn change(a: usize, b: usize) -> String {
    let percent = 100.0 * (b as f64 - a as f64) / a.max(1) as f64;
    format!("{a} → {b} ({percent:+.0} %)")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rounds: usize = std::env::args().nth(1).map_or(Ok(100), |a| a.parse())?;
    println!(
        "model: every example's and benchmark's model with an integral cost: Ex. 5.1, EM steel, \
         the memory toy, the relay, stick-slip, a thermostat;"
    );
    println!(
        "       a row per solve (or batch of solves) at its example's or benchmark's settings, \
         with the integral cost's error test off and on (the default)\n"
    );
    println!(
        "| case | settings | steps off → on | rejected | f evals off → on | LU off → on | \
         time off → on (median of {rounds}) |"
    );
    println!("|---|---|---|---|---|---|---|");
    for case in cases() {
        let (off, on) = ((case.solve)(false), (case.solve)(true));
        let (mut t_off, mut t_on) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            // On and off, in alternating order.
            for on in [round % 2 == 0, round % 2 == 1] {
                let start = Instant::now();
                std::hint::black_box((case.solve)(on));
                let elapsed = start.elapsed().as_secs_f64() * 1e6;
                if on { &mut t_on } else { &mut t_off }.push(elapsed);
            }
        }
        let (t_off, t_on) = (median(t_off), median(t_on));
        println!(
            "| {} | {} | {} | {} → {} | {} | {} | {:.0} → {:.0} µs ({:+.0} %) |",
            case.name,
            case.settings,
            change(off.steps, on.steps),
            off.rejected,
            on.rejected,
            change(off.f_evals, on.f_evals),
            change(off.lu, on.lu),
            t_off,
            t_on,
            100.0 * (t_on - t_off) / t_off,
        );
    }
    Ok(())
}
