//! How much stack a solve needs: the smallest stack of a spawned thread on which each kind of
//! solve of the reaction chains (`chain2`, `chain10`, `chain30` and `chain100` of
//! `benches/models/chains.rs`: 3, 11, 31 and 101 states) completes, found by bisection, next to
//! the runtime's estimate (`hysens::runtime::stack_estimate`, with its safety margin) and their
//! ratio.
//!
//! ```sh
//! cargo run -p hysens-examples --example stack_probe              # debug build: the whole table
//! cargo run --release -p hysens-examples --example stack_probe    # release build
//! cargo run -p hysens-examples --example stack_probe -- chain100  # one model
//! cargo run -p hysens-examples --example stack_probe -- run chain30 fsa 4096  # one trial: 4 MiB
//! # what the builder's solves need without their stack growth (a build of its own):
//! RUSTFLAGS="--cfg hysens_no_stack_growth" CARGO_TARGET_DIR=target/no-growth \
//!     cargo run -p hysens-examples --example stack_probe
//! ```
//!
//! A stack overflow aborts the process, so every trial runs in a child process (this
//! program, `run MODEL CASE KIB`) and the parent reads its exit status. The cases (horizon
//! [0, 0.05], one sample, the dose fires in each):
//!
//! | case | what runs on the thread |
//! |---|---|
//! | `solve` | the builder's plain `Solver::solve` |
//! | `fsa` | `Solver::solve` with sensitivities to all parameters and initial states (`NP + NY` columns) |
//! | `gradient` | the builder's adjoint `Solver::gradient` |
//! | `core_fsa` | the no_std `Model::solve_with_sensitivities` (`NP` columns), caller storage |
//! | `core_adjoint` | the no_std `Model::solve_adjoint` with a full tape, caller storage |
//! | `none` | nothing: the thread's own need (`run` only) |
//!
//! The builder's cases grow the stack on demand, so in a normal build they complete on any
//! thread and the table shows a few KiB for them; built with `--cfg hysens_no_stack_growth`
//! they run on the thread's stack, and the table shows what they need.

use std::process::Command;

use hysens::prelude::*;
use hysens::runtime::{
    stack_estimate, AdjointTape, EventRecord, HybridOutputs, HybridSolution, Sample, TapeStep,
};

#[path = "../benches/models/chains.rs"]
mod chains;

/// The horizon: the dose fires well before it in every chain (at ~5e-3, ~7e-5 and ~3e-4).
const T: f64 = 0.05;
const CASES: [&str; 5] = ["solve", "fsa", "gradient", "core_fsa", "core_adjoint"];
const MODELS: [&str; 4] = ["chain2", "chain10", "chain30", "chain100"];

/// The cases of one chain module, one function each (a function's frame holds its own locals
/// only, so the thread's stack holds the call being measured and little else). Each returns
/// the number of events (every case must see the dose).
macro_rules! cases {
    ($chain:ident, $cases:ident) => {
        mod $cases {
            use super::chains::{rates, $chain as m};
            use super::*;
            const NY: usize = m::Model::NY;

            /// a_0 = 1, a_{n−1} = 1, a_n = 0.4: a_n reaches the threshold 0.5 early.
            fn x0() -> m::X {
                let mut x0 = [0.0; NY];
                (x0[0], x0[NY - 2], x0[NY - 1]) = (1.0, 1.0, 0.4);
                m::X::from_array(x0)
            }

            fn solver<'a>(
                samples: &'a [f64],
            ) -> Solver<'a, m::Model, 6, NY, 0, { m::Model::NP }, NY, { m::Model::NP + NY }> {
                m::Model.solver().tolerances(1e-6, 1e-9).samples(samples)
            }

            #[inline(never)]
            pub fn solve() -> usize {
                let samples = [T / 2.0];
                let solution = solver(&samples).solve(0.0, T, &x0(), &rates());
                solution.expect("solves").events.len()
            }

            #[inline(never)]
            pub fn fsa() -> usize {
                let samples = [T / 2.0];
                let solution = solver(&samples)
                    .sensitivities_to(Params::All, InitialStates::All)
                    .solve(0.0, T, &x0(), &rates());
                solution.expect("solves").events.len()
            }

            #[inline(never)]
            pub fn gradient() -> usize {
                let samples = [T / 2.0];
                let gradient = solver(&samples).gradient(0.0, T, &x0(), &rates());
                usize::from(gradient.expect("solves").adjoint.len() > 2)
            }

            /// The no_std calls, with caller storage on the heap.
            #[inline(never)]
            pub fn core(adjoint: bool) -> usize {
                let samples = [T / 2.0];
                let mut problem = Box::new(m::Model::problem(0.0, T, &x0(), &rates()));
                problem.sample_times = &samples;
                let options = Box::new(HybridOptions::new(1e-6, 1e-9));
                let mut solution = Box::new(HybridSolution::ZERO);
                let mut sample_out = vec![Sample::ZERO; 1];
                let mut events = vec![EventRecord::ZERO; 4];
                let mut outputs = HybridOutputs {
                    samples: &mut sample_out,
                    events: Some(&mut events),
                    steps: None,
                    dense: None,
                };
                if adjoint {
                    let mut tape = vec![TapeStep::ZERO; 4096];
                    let mut gradient = Box::new(AdjointGradient::ZERO);
                    m::Model
                        .solve_adjoint(
                            &problem,
                            &options,
                            AdjointTape::full(&mut tape),
                            &mut outputs,
                            &mut solution,
                            &mut gradient,
                        )
                        .expect("solves");
                } else {
                    m::Model
                        .solve_with_sensitivities(&problem, &options, &mut outputs, &mut solution)
                        .expect("solves");
                }
                solution.n_events
            }

            pub fn run(case: &str) -> usize {
                match case {
                    "solve" => solve(),
                    "fsa" => fsa(),
                    "gradient" => gradient(),
                    "core_fsa" => core(false),
                    "core_adjoint" => core(true),
                    "none" => 1,
                    other => panic!("unknown case {other}"),
                }
            }
        }
    };
}

cases!(chain2, cases2);
cases!(chain10, cases10);
cases!(chain30, cases30);
cases!(chain100, cases100);

/// The runtime's estimates for each case of one chain module.
macro_rules! estimates {
    ($chain:ident) => {{
        use chains::$chain as m;
        const NY: usize = m::Model::NY;
        const NP: usize = m::Model::NP;
        let params = stack_estimate::<6, NY, 0, NP, NY>();
        let all = Solver::<m::Model, 6, NY, 0, NP, NY, { NP + NY }>::STACK_ESTIMATE;
        [
            params,
            all,
            params,
            m::Model::STACK_ESTIMATE,
            m::Model::STACK_ESTIMATE,
        ]
    }};
}

fn estimates(model: &str) -> [usize; 5] {
    match model {
        "chain2" => estimates!(chain2),
        "chain10" => estimates!(chain10),
        "chain30" => estimates!(chain30),
        "chain100" => estimates!(chain100),
        other => panic!("unknown model {other}"),
    }
}

/// One trial in this process: `case` of `model` on a thread with `kib` KiB of stack.
fn trial(model: &str, case: &str, kib: usize) {
    let (model, case) = (model.to_string(), case.to_string());
    let events = std::thread::Builder::new()
        .stack_size(kib << 10)
        .spawn(move || match model.as_str() {
            "chain2" => cases2::run(&case),
            "chain10" => cases10::run(&case),
            "chain30" => cases30::run(&case),
            "chain100" => cases100::run(&case),
            other => panic!("unknown model {other}"),
        })
        .expect("a thread")
        .join()
        .expect("the trial completes");
    assert!(events >= 1, "the dose fires");
}

/// Whether a trial completes: `Some(true)` it did, `Some(false)` it died of a signal (the
/// stack overflow's abort), `None` any other failure.
fn completes(model: &str, case: &str, kib: usize) -> Option<bool> {
    let output = Command::new(std::env::current_exe().expect("this program"))
        .args(["run", model, case, &kib.to_string()])
        .output()
        .expect("a child process");
    if output.status.success() {
        Some(true)
    } else if output.status.code().is_none() {
        Some(false)
    } else {
        eprintln!("{}", String::from_utf8_lossy(&output.stderr));
        None
    }
}

/// The smallest stack (KiB, to 2 %) on which the case completes.
fn minimal(model: &str, case: &str) -> usize {
    let (mut lo, mut hi) = (16, 64);
    while !completes(model, case, hi).expect("the trial runs") {
        (lo, hi) = (hi, hi * 2);
    }
    while hi - lo > (hi / 50).max(2) {
        let mid = (lo + hi) / 2;
        if completes(model, case, mid).expect("the trial runs") {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("run") {
        trial(&args[1], &args[2], args[3].parse().expect("KiB"));
        return;
    }
    let models: Vec<&str> = match args.first() {
        Some(model) => vec![model.as_str()],
        None => MODELS.to_vec(),
    };
    let build = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    let growth = if cfg!(hysens_no_stack_growth) {
        "off (--cfg hysens_no_stack_growth)"
    } else {
        "on"
    };
    let sizes: Vec<&str> = models
        .iter()
        .map(|m| m.trim_start_matches("chain"))
        .collect();
    println!(
        "model: the reaction chains A_0 -> A_1 -> … -> A_N of benches/models/chains.rs, N = {} \
         (N + 1 states, a rate each), a dose into A_0 when A_N rises through 0.5;",
        sizes.join(", ")
    );
    println!(
        "       each solved on [0, 0.05] at rtol 1e-6, atol 1e-9: plain, with FSA and by the \
         adjoint, through the builder and the no_std core"
    );
    println!("{build} build, the builder's stack growth {growth}; KiB");
    println!(
        "{:<10}{:<14}{:>10}{:>10}{:>8}",
        "model", "case", "measured", "estimate", "ratio"
    );
    for model in models {
        for (case, estimate) in CASES.into_iter().zip(estimates(model)) {
            let need = minimal(model, case);
            let estimate = estimate >> 10;
            println!(
                "{model:<10}{case:<14}{need:>10}{estimate:>10}{:>8.2}",
                estimate as f64 / need as f64
            );
        }
    }
}
