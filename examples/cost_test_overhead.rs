//! What the integral cost's error test, on by default (`Options::cost_error_test`, issue #19),
//! costs on every example and benchmark whose model has an integral cost: each solve with the
//! test off (`Solver::cost_error_test_off`, the steps the states choose) and with the default
//! (the test with the states' tolerances), at the settings of the example or benchmark.
//!
//! ```sh
//! cargo run --release --example cost_test_overhead -- [rounds]
//! ```
//!
//! Prints a Markdown table (the one in BENCHMARKS.md): accepted and rejected steps, `f`
//! evaluations and LU factorizations, which are deterministic, and the median wall time of
//! `rounds` solves (default 100), off and on interleaved so that a machine shared with other
//! jobs slows both alike; times still move by 10–20 % from run to run on a loaded machine.

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

/// A solver with the cost test on (the default) or off.
macro_rules! solver {
    ($model:expr, $rtol:expr, $atol:expr, $on:expr) => {{
        let solver = $model.solver().tolerances($rtol, $atol);
        if $on {
            solver
        } else {
            solver.cost_error_test_off()
        }
    }};
}

fn cases() -> Vec<Case> {
    let fsa = |on: bool| {
        let solution = solver!(ex51::Model, 1e-8, 1e-10, on)
            .sensitivities_to(Params::All, InitialStates::All)
            .solve(0.0, 5.0, &ex51::X { x: 0.0 }, &ex51::P { p: 2.9 })
            .expect("P1 solves");
        Counts::of(&solution.stats)
    };
    vec![
        Case {
            name: "P1 Ex. 5.1, plain (bench `solve`)",
            settings: "rtol 1e-8, [0, 5]",
            solve: Box::new(|on| {
                let solution = solver!(ex51::Model, 1e-8, 1e-10, on)
                    .solve(0.0, 5.0, &ex51::X { x: 0.0 }, &ex51::P { p: 2.9 })
                    .expect("P1 solves");
                Counts::of(&solution.stats)
            }),
        },
        Case {
            name: "P1 Ex. 5.1, FSA (`quickstart`, bench `solve`)",
            settings: "rtol 1e-8, [0, 5]",
            solve: Box::new(fsa),
        },
        Case {
            name: "64 × P1, FSA (bench `batch`, sequential)",
            settings: "rtol 1e-8, p in [2.6, 3.2)",
            solve: Box::new(|on| {
                let solver = solver!(ex51::Model, 1e-8, 1e-10, on)
                    .sensitivities_to(Params::All, InitialStates::All);
                (0..64).fold(Counts::default(), |sum, k| {
                    let p = ex51::P {
                        p: 2.6 + 0.6 * k as f64 / 64.0,
                    };
                    let solution = solver
                        .solve(0.0, 5.0, &ex51::X { x: 0.0 }, &p)
                        .expect("P1 solves");
                    sum.add(Counts::of(&solution.stats))
                })
            }),
        },
        Case {
            name: "Ex. 5.2 steel, FSA (`steel_hysteresis`)",
            settings: "rtol 1e-8, [0, 10], DAE",
            solve: Box::new(|on| {
                let pi2 = core::f64::consts::PI.powi(2);
                let p = steel::P {
                    k_a: 32.0 * pi2,
                    k_b: pi2,
                    alpha: 205.0,
                    beta: 0.0,
                };
                let solution = solver!(steel::Model, 1e-8, 1e-10, on)
                    .sensitivities_to(Params::All, InitialStates::All)
                    .solve(0.0, 10.0, &steel::X { u: 0.0, v: 0.0 }, &p)
                    .expect("the steel solves");
                Counts::of(&solution.stats)
            }),
        },
        Case {
            name: "memory toy, FSA (`reproduce`)",
            settings: "rtol 1e-10, [0, 3]",
            solve: Box::new(|on| {
                let x0 = memory_toy::X { y1: 0.0, y2: 0.0 };
                let p = memory_toy::P { p1: 1.0, p2: 1.0 };
                let solution = solver!(memory_toy::Model, 1e-10, 1e-12, on)
                    .sensitivities_to(Params::All, InitialStates::None)
                    .solve(0.0, 3.0, &x0, &p)
                    .expect("the memory toy solves");
                Counts::of(&solution.stats)
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
                let solution = solver!(relay::Model, 1e-10, 1e-12, on)
                    .sensitivities_to(Params::All, InitialStates::All)
                    .solve(0.0, 5.0, &x0, &p)
                    .expect("the relay solves");
                Counts::of(&solution.stats)
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
                let solution = solver!(oscillator::Model, 1e-10, 1e-12, on)
                    .sensitivities_to(Params::All, InitialStates::All)
                    .solve(0.0, 24.0, &x0, &p)
                    .expect("the stick-slip solves");
                Counts::of(&solution.stats)
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
                let solution = solver!(thermostat::Model, 1e-6, 1e-8, on)
                    .sensitivities_to(Params::All, InitialStates::All)
                    .solve(0.0, 10.0, &thermostat::X { temp: 15.0 }, &p)
                    .expect("the thermostat solves");
                Counts::of(&solution.stats)
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
