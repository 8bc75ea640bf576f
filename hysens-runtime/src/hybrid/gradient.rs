//! The gradient by the discrete adjoint, orchestrated by the driver: the forward pass records
//! a tape of its steps (`adjoint/tape.rs`), the backward pass transposes it (`adjoint/`), and a
//! window of a checkpointed tape is recomputed by this driver's solve resumed from its
//! checkpoint, handed to the backward pass as a closure — so the adjoint never calls the
//! driver.

use super::{run, solve};
use crate::adjoint::{
    backward, chain_initial_state, AdjointGradient, AdjointPoint, AdjointTape, Checkpoint,
    Recording,
};
use crate::error::SolveError;
use crate::fsa::mapped_problem;
use crate::model::{AdjointProducts, CostValue, HybridModel, ModelSizes};
use crate::run::{HybridOutputs, HybridProblem, HybridRun, HybridSolution, Sample};

/// Solves like [`crate::solve`] without forward sensitivities, recording every accepted step
/// in `tape`, then computes the gradient of the objective `G` (in `solution.cost`) by the
/// discrete adjoint (module docs of `adjoint/`): `dG/dp` and `dG/dy0` into `gradient`, equal to
/// the forward sensitivities' [`HybridSolution::cost_gradient`] of the same solve to round-off.
///
/// `tape` is a full tape (one entry per accepted step) or a window with checkpoints
/// ([`AdjointTape`]); a checkpointed tape gives the same gradient bit for bit, recomputing
/// all but the last window once. The steps a solve needs are [`adjoint_tape_length`] (or
/// `gradient.tape_len` of an earlier call); a tape too small ends the call with
/// [`SolveError::TapeFull`], which names the capacity needed (the solve is continued without
/// recording to count it; `solution` then holds the whole forward solve).
///
/// Events are transposed exactly (module docs of `adjoint/`): the gradient equals the forward
/// one across every switch, reset and memory capture. `outputs.samples` must hold one entry
/// per sample time (the backward pass reads the sampled states from it); the sensitivity
/// fields of the samples and of `solution` stay zero.
///
/// It runs on the caller's stack and needs up to [`crate::stack_estimate`]`::<S, NY, NZ, NP,
/// N>()` bytes of it (a `#[hybrid_model]`'s `Model::STACK_ESTIMATE` with the default
/// tableau): run it on a thread with that much to spare (the builder's owned
/// [`crate::Solver::gradient`] grows the stack itself).
///
/// ```
/// use hysens_runtime::*;
///
/// /// y' = −k y, G = ∫ y dt + y(t_f)².
/// struct Decay;
/// type P<'a> = Point<'a, 1, 0, 1>;
/// impl HybridModel<1, 0, 1> for Decay {
///     type Store = Inline;
///     const MODES: &'static [ModeInfo] = &[ModeInfo { name: "decay", uses_memory: false, constant_jacobian: true, terminal: false , index2: false}];
///     const STATE_NAMES: [&'static str; 1] = ["y"];
///     const PARAMETER_NAMES: [&'static str; 1] = ["k"];
///     fn residual(&self, _: usize, at: &P, f: &mut [f64; 1], _: &mut [f64; 0]) { f[0] = -at.p[0] * at.y[0]; }
///     fn jacobian(&self, _: usize, at: &P, j: &mut ModeJacobian<1, 0>) { j.fy[0][0] = -at.p[0]; }
///     fn parameter_jacobian(&self, _: usize, at: &P, fp: &mut [[f64; 1]; 1], _: &mut [[f64; 1]; 0]) {
///         fp[0][0] = -at.y[0];
///     }
///     fn integral_cost(&self, _: usize, at: &P) -> f64 { at.y[0] }
///     fn integral_cost_partials(&self, _: usize, _: &P, d: &mut ScalarPartials<1, 0, 1>) { d.y[0] = 1.0; }
///     fn terminal_cost(&self, at: &P) -> f64 { at.y[0] * at.y[0] }
///     fn terminal_cost_partials(&self, at: &P, d: &mut ScalarPartials<1, 0, 1>) { d.y[0] = 2.0 * at.y[0]; }
/// }
/// impl AdjointProducts<1, 0, 1> for Decay {
///     fn adjoint_products(&self, _: usize, at: &P, l: &[f64; 1], _: &[f64; 0],
///                         oy: &mut [f64; 1], _: &mut [f64; 0], op: &mut [f64; 1]) {
///         oy[0] = -at.p[0] * l[0];
///         op[0] = -at.y[0] * l[0];
///     }
/// }
/// impl ModelSizes<1, 2> for Decay {}
///
/// let problem = HybridProblem {
///     t0: 0.0, tf: 2.0, y0: [1.0], z0: [], p: [0.5],
///     sensitivities: None, sample_times: &[], sample_data: &[],
/// };
/// let options = HybridOptions::new(1e-10, 1e-12);
/// let mut tape = [TapeStep::ZERO; 512];
/// let mut out = HybridOutputs { samples: &mut [], events: None, steps: None, dense: None };
/// let mut sol = HybridSolution::ZERO;
/// let mut grad = AdjointGradient::ZERO;
/// let run = HybridRun::new(&Decay, &ESDIRK34, &problem, &options);
/// solve_adjoint(&run, AdjointTape::full(&mut tape), &mut out, &mut sol, &mut grad)?;
/// // G = (1 − e^{−kT})/k + e^{−2kT}: dG/dk and dG/dy0 in closed form (to the global error of
/// // the discrete solution at these tolerances, ≈ 2e-8).
/// let (k, t) = (0.5f64, 2.0f64);
/// let dg_dk = t * (-k * t).exp() / k - (1.0 - (-k * t).exp()) / (k * k) - 2.0 * t * (-2.0 * k * t).exp();
/// let dg_dy0 = (1.0 - (-k * t).exp()) / k + 2.0 * (-2.0 * k * t).exp();
/// assert!((grad.p[0] - dg_dk).abs() < 1e-7);
/// assert!((grad.y0[0] - dg_dy0).abs() < 1e-7);
/// assert_eq!(grad.tape_len, sol.stats.steps);
///
/// // The same gradient from a window of 8 steps and checkpoints (bit for bit).
/// let needed = AdjointTape::<6, 1, 0>::checkpoints_needed(grad.tape_len, 8);
/// let mut window = [TapeStep::ZERO; 8];
/// let mut checkpoints = [Checkpoint::ZERO; 64];
/// assert!(needed <= checkpoints.len());
/// let mut grad_checkpointed = AdjointGradient::ZERO;
/// let tape = AdjointTape::checkpointed(&mut window, &mut checkpoints);
/// solve_adjoint(&run, tape, &mut out, &mut sol, &mut grad_checkpointed)?;
/// assert_eq!((grad_checkpointed.p, grad_checkpointed.y0), (grad.p, grad.y0));
/// # Ok::<(), SolveError>(())
/// ```
pub fn solve_adjoint<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    run: &HybridRun<'_, M, S, NY, NZ, NP>,
    tape: AdjointTape<'_, S, NY, NZ>,
    outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
    solution: &mut HybridSolution<NY, NZ, NP>,
    gradient: &mut AdjointGradient<NY, NP>,
) -> Result<(), SolveError>
where
    M: AdjointProducts<NY, NZ, NP> + ModelSizes<N, NS>,
{
    const { assert!(N == NY + NZ, "ModelSizes<N, _> must have N = NY + NZ") };
    let none = None::<&mut fn(AdjointPoint<NY>)>;
    adjoint::<M, S, NY, NZ, NP, N>(run, tape, outputs, solution, gradient, none)
}

/// [`solve_adjoint`] of the solve `forward`, reporting the adjoint of the state to `observe`
/// as the backward pass goes: the forward pass recording into `tape`, then the backward pass
/// (`adjoint/`), which recomputes each window of a checkpointed tape by resuming this solve
/// from its checkpoint.
pub(crate) fn adjoint<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
>(
    forward: &HybridRun<'_, M, S, NY, NZ, NP>,
    tape: AdjointTape<'_, S, NY, NZ>,
    outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
    solution: &mut HybridSolution<NY, NZ, NP>,
    gradient: &mut AdjointGradient<NY, NP>,
    observe: Option<&mut impl FnMut(AdjointPoint<NY>)>,
) -> Result<(), SolveError>
where
    M: AdjointProducts<NY, NZ, NP>,
{
    let given = forward.problem;
    let (map, mapped) = adjoint_problem(forward.model, given);
    let forward = &HybridRun {
        problem: &mapped,
        ..*forward
    };
    *gradient = AdjointGradient::ZERO;
    if !tape.checkpoints.is_empty() && tape.steps.is_empty() {
        return Err(SolveError::InvalidArgument {
            t: mapped.t0,
            mode: 0,
            what: "checkpointed adjoint tape without a window",
        });
    }
    let mut recording = Recording::new(tape);
    record::<M, S, NY, NZ, NP, N>(
        forward,
        &mut recording,
        outputs,
        solution,
        &mut [],
        gradient,
    )?;
    // A window is recomputed by the same solve resumed from its checkpoint.
    let mut resume = |checkpoint: &Checkpoint<S, NY, NZ>,
                      tape: &mut Recording<'_, S, NY, NZ>,
                      outputs: &mut HybridOutputs<'_, NY, NZ, NP>| {
        let mut scratch = HybridSolution::ZERO;
        let (fsa, start) = (false, Some(checkpoint));
        let costs = &mut [];
        run::<M, S, NY, NZ, NP, N, _>(forward, outputs, &mut scratch, costs, fsa, tape, start)
    };
    backward::<M, S, NY, NZ, NP, N>(
        forward,
        &mut recording,
        outputs,
        solution,
        gradient,
        observe,
        &mut resume,
    )?;
    match map {
        true => chain_initial_state(forward.model, given, gradient),
        false => Ok(()),
    }
}

/// The gradients of every named cost of the model ([`crate::HybridModel::COSTS`]) by the
/// discrete adjoint, with **one** forward pass: the solve `forward` records its steps into the
/// full tape `tape` once (and computes each cost's value into `costs`, as
/// [`crate::solve_costs`] does), then one backward pass per cost over that tape, with the
/// cost as its objective, writes `gradients[k]` (their `tape_len` is the forward pass's) and
/// reports its adjoint trajectory to `observe(k, point)`.
///
/// The tape is valid for every cost because the steps do not depend on the objective
/// (`model/costs.rs`): each gradient is bit for bit that of [`solve_adjoint`] with the cost as
/// the run's objective. `costs` and `gradients` hold one entry per cost (more are left as they
/// are); `solution` gets the forward pass with `forward`'s objective.
///
/// For the builder's owned gradients (feature `std`), whose tape is full: a checkpointed tape
/// would be recomputed once per backward pass.
#[cfg(feature = "std")]
pub(crate) fn adjoint_costs<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
>(
    forward: &HybridRun<'_, M, S, NY, NZ, NP>,
    tape: &mut [crate::adjoint::TapeStep<S, NY, NZ>],
    outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
    solution: &mut HybridSolution<NY, NZ, NP>,
    (costs, gradients): (&mut [CostValue<NP>], &mut [AdjointGradient<NY, NP>]),
    mut observe: impl FnMut(usize, AdjointPoint<NY>),
) -> Result<(), SolveError>
where
    M: AdjointProducts<NY, NZ, NP>,
{
    let given = forward.problem;
    let (map, mapped) = adjoint_problem(forward.model, given);
    let forward = &HybridRun {
        problem: &mapped,
        ..*forward
    };
    let n_costs = M::COSTS.len();
    if costs.len() < n_costs || gradients.len() < n_costs {
        let what = "cost and gradient storage (one entry per cost of the model)";
        return Err(SolveError::InvalidArgument {
            t: mapped.t0,
            mode: 0,
            what,
        });
    }
    let mut recording = Recording::new(AdjointTape::full(tape));
    let mut recorded = AdjointGradient::ZERO;
    record::<M, S, NY, NZ, NP, N>(
        forward,
        &mut recording,
        outputs,
        solution,
        costs,
        &mut recorded,
    )?;
    // A full tape is never recomputed: the backward pass has no window to resume.
    let mut no_resume = |_: &Checkpoint<S, NY, NZ>,
                         _: &mut Recording<'_, S, NY, NZ>,
                         _: &mut HybridOutputs<'_, NY, NZ, NP>| {
        let what = "a full adjoint tape recomputed";
        let (t, mode) = (mapped.t0, 0);
        Err(SolveError::InvalidArgument { t, mode, what })
    };
    for (k, gradient) in gradients.iter_mut().enumerate().take(n_costs) {
        *gradient = AdjointGradient {
            tape_len: recorded.tape_len,
            ..AdjointGradient::ZERO
        };
        let cost = &forward.with_objective(crate::model::Objective::Cost(k));
        let observe = &mut |point| observe(k, point);
        let (recording, outputs) = (&mut recording, &mut *outputs);
        backward::<M, S, NY, NZ, NP, N>(
            cost,
            recording,
            outputs,
            solution,
            gradient,
            Some(observe),
            &mut no_resume,
        )?;
        if map {
            chain_initial_state(forward.model, given, gradient)?;
        }
    }
    Ok(())
}

/// The problem the adjoint's forward pass solves: the given one, or, for a model with an
/// initial-state map, the one starting from `y0 = I(t0, x, p)` (`fsa/initial.rs`; the gradient
/// with respect to it is carried back to the caller's `x` and `p`, with the caller's seed
/// `∂x/∂p`, at the end) — without forward sensitivities; and whether it was mapped.
fn adjoint_problem<'p, M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    given: &HybridProblem<'p, NY, NZ, NP>,
) -> (bool, HybridProblem<'p, NY, NZ, NP>)
where
    M: HybridModel<NY, NZ, NP>,
{
    match mapped_problem(model, given) {
        Some(mapped) => (
            true,
            HybridProblem {
                sensitivities: None,
                ..mapped
            },
        ),
        None => (false, *given),
    }
}

/// The forward pass of the adjoint: the solve `forward` without sensitivities, recording into
/// `recording` (and each named cost into `costs`, if any); `gradient.tape_len` gets the steps
/// it needed, and a tape too small is [`SolveError::TapeFull`].
fn record<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize>(
    forward: &HybridRun<'_, M, S, NY, NZ, NP>,
    recording: &mut Recording<'_, S, NY, NZ>,
    outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
    solution: &mut HybridSolution<NY, NZ, NP>,
    costs: &mut [CostValue<NP>],
    gradient: &mut AdjointGradient<NY, NP>,
) -> Result<(), SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let solved =
        run::<M, S, NY, NZ, NP, N, _>(forward, outputs, solution, costs, false, recording, None);
    gradient.tape_len = recording.next;
    solved?;
    match recording.full() {
        Some(full) => Err(full),
        None => Ok(()),
    }
}

/// The accepted steps of the solve [`solve_adjoint`] would record: entries of a full
/// [`AdjointTape`] it needs (a window of `W` steps needs
/// [`AdjointTape::checkpoints_needed`]`(n, W)` checkpoints). Runs the forward solve without
/// sensitivities and without outputs beyond `samples`, one entry per sample time.
pub fn adjoint_tape_length<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    run: &HybridRun<'_, M, S, NY, NZ, NP>,
    samples: &mut [Sample<NY, NZ, NP>],
) -> Result<usize, SolveError>
where
    M: HybridModel<NY, NZ, NP> + ModelSizes<N, NS>,
{
    let problem = HybridProblem {
        sensitivities: None,
        ..*run.problem
    };
    let mut outputs = HybridOutputs {
        samples,
        events: None,
        steps: None,
        dense: None,
    };
    let mut solution = HybridSolution::ZERO;
    solve(
        &HybridRun {
            problem: &problem,
            ..*run
        },
        &mut outputs,
        &mut solution,
    )?;
    Ok(solution.stats.steps)
}
