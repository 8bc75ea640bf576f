//! The cost of a gradient against the number of parameters: one solve of the 100-reaction
//! chain (`chain100` of `benches/models/chains.rs`: 101 states, 100 rates, one dosing event),
//! plain and with forward sensitivities to all 100 rates, and the gradient by the discrete adjoint
//! (`Solver::gradient`: a forward solve that records a tape, then one backward pass), all
//! through the builder, and the adjoint with a checkpointed tape (a window of 16 steps and a
//! checkpoint before every 16th step, caller storage: `Model::solve_adjoint`). FSA carries one sensitivity column per parameter, so its cost over
//! the plain solve grows with the number of parameters; the adjoint's does not.
//!
//! Settings: `a(0) = (1, 0, …, 0)`, the rates of `chains::rates()` (1 to 1e4), horizon
//! `[0, 40]` (the dose fires once, near `t ≈ 11`), rtol 1e-6, atol 1e-9, ESDIRK4(3)6L[2]SA.
//!
//! Run with `cargo bench --bench gradient`. The runtime keeps everything on the stack: the
//! FSA solve of this 101 × 100 problem needs about 8 MiB in a release build. The builder's
//! solves would grow the stack themselves, but the no-heap `solve_adjoint` does not, so the
//! benchmarks run on a thread sized by the model's estimate (`chain100::Model::STACK_ESTIMATE`,
//! with 4 MiB more for criterion's frames): then no benchmark runs on a grown segment.

use std::hint::black_box;

use criterion::{criterion_group, Criterion};
use hysens::prelude::*;
use hysens::runtime::{AdjointTape, Checkpoint, HybridOutputs, HybridSolution, TapeStep};

#[path = "models/chains.rs"]
mod chain;
use chain::chain100;

/// The horizon: long enough for the dose and the second wave after it.
const TF: f64 = 40.0;
const RTOL: f64 = 1e-6;
const ATOL: f64 = 1e-9;
/// Steps between checkpoints of the checkpointed tape.
const WINDOW: usize = 16;

fn gradient(c: &mut Criterion) {
    let (x0, p): (chain100::X, chain100::P) = (chain::initial_state(), chain::rates());
    let plain = chain100::Model.solver().tolerances(RTOL, ATOL);
    let fsa = plain.sensitivities_to(Params::All, InitialStates::None);

    // The setting the benchmark claims: one event, and the gradient of the terminal cost.
    let check = fsa.solve(0.0, TF, &x0, &p).expect("the chain solves");
    assert_eq!(check.events.len(), 1, "the dose fires once");
    assert!(check.cost_gradient("k0").is_ok_and(f64::is_finite));

    // The adjoint transposes the FSA chain of the same discrete solve: the same gradient up
    // to round-off, for every rate. Round-off here is absolute, not relative to dG/dk_j: both
    // methods get dG/dk_j = ∫ (λ_{j+1} − λ_j) a_j dt (for FSA, Σ_i ∂a_i/∂k_j = 0 until the
    // end) as a difference of terms of the size of ∫ a_j dt ≈ 2/k_j (the initial mass and the
    // dose pass through every species), which cancel down to 1e-6 … 1e-14 at t = 40. Measured:
    // |ASA − FSA| ≤ 1.5 ε · 2/k_j on every entry; relative to |FSA|, ≤ 3.7e-10 on the entries
    // above 1e-7 (1.2e-10 of the largest), up to 1.8e-7 on the 1e-14 ones, so the check is
    // 1e-10 relative plus this round-off (with a factor 16 of room).
    let asa = plain.gradient(0.0, TF, &x0, &p).expect("the chain solves");
    assert_eq!(asa.stats.steps, check.stats.steps, "the same forward solve");
    assert!((asa.cost - check.cost).abs() <= 1e-14 * check.cost.abs());
    let k = p.to_array();
    for (j, name) in chain100::P::NAMES.iter().enumerate() {
        let (fsa_j, asa_j) = (check.cost_gradient(*name).expect("a rate"), asa.params[j]);
        let round_off = 16.0 * f64::EPSILON * 2.0 / k[j];
        assert!(
            (asa_j - fsa_j).abs() <= 1e-10 * fsa_j.abs() + round_off,
            "dG/d{name}: ASA {asa_j:e}, FSA {fsa_j:e}"
        );
    }

    // The checkpointed tape: the same gradient bit for bit, in a fraction of the storage.
    let problem = chain100::Model::problem(0.0, TF, &x0, &p);
    let options = HybridOptions::new(RTOL, ATOL);
    let steps = asa.stats.steps;
    let mut window = vec![TapeStep::ZERO; WINDOW];
    let mut checkpoints =
        vec![Checkpoint::ZERO; AdjointTape::<6, 101, 0>::checkpoints_needed(steps, WINDOW)];
    let checkpointed = |window: &mut [_], checkpoints: &mut [_]| {
        let mut solution = HybridSolution::ZERO;
        let mut gradient = AdjointGradient::ZERO;
        let mut outputs = HybridOutputs {
            samples: &mut [],
            events: None,
            steps: None,
            dense: None,
        };
        let tape = AdjointTape::checkpointed(window, checkpoints);
        chain100::Model
            .solve_adjoint(
                &problem,
                &options,
                tape,
                &mut outputs,
                &mut solution,
                &mut gradient,
            )
            .expect("the chain solves");
        gradient
    };
    let gradient = checkpointed(&mut window, &mut checkpoints);
    assert_eq!(
        gradient.p, asa.params,
        "checkpointed = full tape, bit for bit"
    );
    let (step_bytes, checkpoint_bytes) = (
        std::mem::size_of::<TapeStep<6, 101, 0>>(),
        std::mem::size_of::<Checkpoint<6, 101, 0>>(),
    );
    let checkpointed_bytes = WINDOW * step_bytes + checkpoints.len() * checkpoint_bytes;
    eprintln!(
        "tape of {steps} steps: full {} kB; a window of {WINDOW} steps and {} checkpoints {} kB \
         ({} kB per step, {} kB per checkpoint); {} steps recomputed",
        steps * step_bytes / 1000,
        checkpoints.len(),
        checkpointed_bytes / 1000,
        step_bytes / 1000,
        checkpoint_bytes / 1000,
        gradient.stats.recomputed_steps,
    );

    let mut group = c.benchmark_group("chain100_gradient");
    group.sample_size(20);
    group.bench_function("plain", |b| {
        b.iter(|| {
            plain
                .solve(0.0, TF, black_box(&x0), black_box(&p))
                .expect("the chain solves")
                .y
        })
    });
    group.bench_function("fsa_100_params", |b| {
        b.iter(|| {
            let solution = fsa
                .solve(0.0, TF, black_box(&x0), black_box(&p))
                .expect("the chain solves");
            solution.cost_gradient("k0")
        })
    });
    group.bench_function("asa_gradient", |b| {
        b.iter(|| {
            plain
                .gradient(0.0, TF, black_box(&x0), black_box(&p))
                .expect("the chain solves")
                .params
        })
    });
    group.bench_function("asa_checkpointed_w16", |b| {
        b.iter(|| checkpointed(&mut window, &mut checkpoints).p)
    });
    group.finish();
}

criterion_group!(benches, gradient);
/// `criterion_main!`, on a thread with the stack the chain's no-heap solves need.
fn main() {
    std::thread::Builder::new()
        .stack_size(chain100::Model::STACK_ESTIMATE + (4 << 20))
        .spawn(|| {
            benches();
            Criterion::default().configure_from_args().final_summary();
        })
        .expect("a thread")
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
}
