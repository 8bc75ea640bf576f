//! Cost of the discrete adjoint against the forward solve, on P3a (Robertson to t = 1e5) and
//! P4a (Van der Pol, μ = 1000, to t = 500), ESDIRK4(3)6L[2]SA: plain solve, forward sensitivities (all parameters)
//! and `solve_adjoint` (forward with the tape, then the backward pass).
//!
//! Run: `cargo run --release --example hysens_adjoint -- [REPEAT]`; for instruction counts,
//! `valgrind --tool=callgrind target/release/examples/hysens_adjoint 1 P3a asa`.

#[path = "../../../tests/support/models.rs"]
mod models;
#[path = "shared/probe_problems.rs"]
mod probe_problems;

use hysens::runtime::tableau::ESDIRK436L2SA;
use hysens::runtime::{
    solve, solve_adjoint, AdjointGradient, AdjointProducts, AdjointTape, HybridOptions,
    HybridOutputs, HybridProblem, HybridRun, HybridSolution, ModelSizes, TapeStep,
};
use models::{robertson, vdp};
use probe_problems::{robertson_to, van_der_pol_to};

fn main() {
    let mut args = std::env::args().skip(1);
    let repeat: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(100);
    let only_id = args.next();
    let only_how = args.next();
    let p3 = robertson_to(1e5);
    let p4 = van_der_pol_to(500.0);
    for how in ["plain", "fsa", "asa"] {
        if only_how.as_deref().is_some_and(|h| h != how) {
            continue;
        }
        if only_id.as_deref().is_none_or(|i| i == "P3a") {
            run(
                "P3a",
                how,
                repeat,
                &robertson::Model,
                &p3,
                &HybridOptions::new(1e-6, 1e-10),
            );
        }
        if only_id.as_deref().is_none_or(|i| i == "P4a") {
            run(
                "P4a",
                how,
                repeat,
                &vdp::Model,
                &p4,
                &HybridOptions::new(1e-6, 1e-8),
            );
        }
    }
}

fn run<M, const NY: usize, const NP: usize, const N: usize, const NS: usize>(
    id: &str,
    how: &str,
    repeat: usize,
    model: &M,
    problem: &HybridProblem<'_, NY, 0, NP>,
    options: &HybridOptions<NY, 0>,
) where
    M: AdjointProducts<NY, 0, NP> + ModelSizes<N, NS>,
{
    let mut tape = vec![TapeStep::ZERO; 100_000];
    let mut sol = HybridSolution::ZERO;
    let mut grad = AdjointGradient::ZERO;
    let t = std::time::Instant::now();
    for _ in 0..repeat {
        let mut out = HybridOutputs {
            samples: &mut [],
            events: None,
            steps: None,
            dense: None,
        };
        let r = match how {
            "asa" => solve_adjoint(
                &HybridRun::new(model, &ESDIRK436L2SA, problem, options),
                AdjointTape::full(&mut tape),
                &mut out,
                &mut sol,
                &mut grad,
            ),
            _ => {
                let mut pr = *problem;
                pr.sensitivities = (how == "fsa").then_some([[0.0; NP]; NY]);
                solve(
                    &HybridRun::new(model, &ESDIRK436L2SA, &pr, options),
                    &mut out,
                    &mut sol,
                )
            }
        };
        r.expect("solves");
    }
    println!(
        "{id} {how:5} {:8.1} µs  {} steps{}",
        t.elapsed().as_secs_f64() * 1e6 / repeat as f64,
        sol.stats.steps,
        if how == "asa" {
            format!("  {:?}", grad.stats)
        } else {
            String::new()
        }
    );
}
