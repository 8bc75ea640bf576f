//! The discrete adjoint: the transpose of the forward-sensitivity chain of `fsa/`, run backward
//! over the accepted steps of a solve, giving `dG/dp` and `dG/dy0` of the objective in one
//! backward pass whatever the number of parameters.
//!
//! The forward sensitivities are the derivative of a chain of linear maps — one ESDIRK step
//! map per accepted step (the stage equations differentiated at the converged stages,
//! Christensen, Cantisani & Jørgensen, Eqs. 12–24), with the cost's quadrature and sample terms
//! added along the chain (`fsa/cost.rs`). The discrete adjoint is the transpose of exactly that
//! chain: seeded with the terminal cost's partials at `t_f`, each step is reversed with the
//! transposed solves of the same exact stage matrices (`step.rs`), each sample adds its cost's
//! partials as a jump of the adjoint (`cost.rs`), and the memory of a mode is handled with the
//! accumulators of Serban & Recuero 2019, §4 (Algorithm 1): `ȳ*, z̄*` collect the memory terms
//! of the segment and are released into the state adjoint at the segment's start
//! (`backward.rs`). Because it transposes the same linear chain, its gradient equals the
//! forward one of the same solve to round-off.
//!
//! **Across events** the chain also holds, per event, the event-time map (`∂H/∂p` of the step
//! to the event from the guard's root condition on the discrete step, giving `τ = dt*/dp`),
//! the jump through the reset and the new memory, and the consistent algebraic sensitivities
//! at the restart: the discrete counterparts of Serban & Recuero 2019, §3.2 (the affine form
//! `τ = α + β s⁻`, `s⁺ = Γ + Δ s⁻` of their Eq. 6 and the jump conditions below their Eq. 13)
//! and §4 (Algorithm 1: the memory accumulators of a segment are released into the jump that
//! captured its memory, `s*⁺ = s⁺`, `w*⁺ = w⁻`). The backward pass transposes them in reverse
//! order (`jump.rs`, module docs), and carries the adjoint `t̄` of the grid shift of a
//! segment started by an event back through its steps (up to the first step landing on a fixed
//! time) into the event's `τ̄`.
//!
//! **Storage.** The tape keeps every step, or a window of steps with checkpoints from which
//! the backward pass recomputes the other windows exactly (`checkpoint.rs`): storage bounded
//! by the caller, for at most one more forward solve.
//!
//! Files: `tape.rs` (what the forward solve records), `checkpoint.rs` (the solve's state to
//! resume from), `step.rs` (one step transposed), `cost.rs` (cost seeds), `backward.rs` (the
//! backward pass, the events and the initial point), `jump.rs` (the transposed event maps).

mod backward;
mod checkpoint;
mod cost;
/// Transposes of the event maps of the forward sensitivities (step length, jump, consistent `w⁺`).
mod jump;
mod step;
pub(crate) mod tape;

pub use checkpoint::Checkpoint;
pub use tape::{AdjointTape, TapeEvent, TapeStep};

use crate::error::SolveError;
use crate::hybrid::{
    run, solve, HybridOptions, HybridOutputs, HybridProblem, HybridSolution, StepPlan,
};
use crate::model::{AdjointProducts, HybridModel, ModelSizes};
use crate::tableau::Tableau;
pub use backward::AdjointPoint;
pub(crate) use backward::Forward;
use tape::Recording;

/// Counters of a backward pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AdjointStats {
    /// Steps transposed.
    pub steps: usize,
    /// Jacobian evaluations (stage matrices and the initial `g_z`).
    pub jacobian_evals: usize,
    /// LU factorizations (stage matrices, reused across the stages and steps of a mode with a
    /// constant Jacobian; the initial `g_z`).
    pub lu_factorizations: usize,
    /// Transposed solves with an LU.
    pub lu_solves: usize,
    /// Calls of [`AdjointProducts::adjoint_products`].
    pub adjoint_products: usize,
    /// Evaluations of cost partials (integral-cost stages, samples, terminal).
    pub cost_partials: usize,
    /// Events transposed.
    pub events: usize,
    /// Steps of the forward solve recomputed from checkpoints.
    pub recomputed_steps: usize,
}

impl AdjointStats {
    /// All counters zero.
    pub const ZERO: Self = AdjointStats {
        steps: 0,
        jacobian_evals: 0,
        lu_factorizations: 0,
        lu_solves: 0,
        adjoint_products: 0,
        cost_partials: 0,
        events: 0,
        recomputed_steps: 0,
    };
}

/// The gradient of the objective from [`solve_adjoint`], with the statistics of its backward
/// pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdjointGradient<const NY: usize, const NP: usize> {
    /// `dG/dp`: total, including `(∂y0/∂p)ᵀ dG/dy0` when the problem gives
    /// [`HybridProblem::sensitivities`] (the same quantity as the forward
    /// [`HybridSolution::cost_gradient`]).
    pub p: [f64; NP],
    /// `dG/dy0`: the derivative with respect to the initial differential state (through the
    /// initial condition, the consistent initial algebraic state and the first mode's memory).
    pub y0: [f64; NY],
    /// Accepted steps of the solve: the entries of a full tape it needs (also after
    /// [`SolveError::TapeFull`], which counts on to the end of the solve).
    pub tape_len: usize,
    /// Counters of the backward pass.
    pub stats: AdjointStats,
}

impl<const NY: usize, const NP: usize> AdjointGradient<NY, NP> {
    /// All zero (to initialize storage; [`solve_adjoint`] resets it).
    pub const ZERO: Self = AdjointGradient {
        p: [0.0; NP],
        y0: [0.0; NY],
        tape_len: 0,
        stats: AdjointStats::ZERO,
    };
}

/// Adjoints of the current point of the backward pass: of `(y, z, t)`, the parameter gradient
/// `p̄` accumulated so far, and the memory accumulators `ȳ*, z̄*` of the current segment.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Costate<const NY: usize, const NZ: usize, const NP: usize> {
    pub y: [f64; NY],
    pub z: [f64; NZ],
    pub t: f64,
    pub p: [f64; NP],
    pub memory_y: [f64; NY],
    pub memory_z: [f64; NZ],
}

impl<const NY: usize, const NZ: usize, const NP: usize> Costate<NY, NZ, NP> {
    const ZERO: Self = Costate {
        y: [0.0; NY],
        z: [0.0; NZ],
        t: 0.0,
        p: [0.0; NP],
        memory_y: [0.0; NY],
        memory_z: [0.0; NZ],
    };
}

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
///     const MODES: &'static [ModeInfo] = &[ModeInfo { name: "decay", uses_memory: false, constant_jacobian: true }];
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
/// let mut out = HybridOutputs { samples: &mut [], events: None, steps: None };
/// let mut sol = HybridSolution::ZERO;
/// let mut grad = AdjointGradient::ZERO;
/// solve_adjoint(&Decay, &ESDIRK34, &problem, &options, StepPlan::Adaptive,
///               AdjointTape::full(&mut tape), &mut out, &mut sol, &mut grad)?;
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
/// solve_adjoint(&Decay, &ESDIRK34, &problem, &options, StepPlan::Adaptive, tape, &mut out,
///               &mut sol, &mut grad_checkpointed)?;
/// assert_eq!((grad_checkpointed.p, grad_checkpointed.y0), (grad.p, grad.y0));
/// # Ok::<(), SolveError>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn solve_adjoint<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    model: &M,
    tableau: &Tableau<S>,
    problem: &HybridProblem<'_, NY, NZ, NP>,
    options: &HybridOptions<NY, NZ>,
    plan: StepPlan<'_>,
    tape: AdjointTape<'_, S, NY, NZ>,
    outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
    solution: &mut HybridSolution<NY, NZ, NP>,
    gradient: &mut AdjointGradient<NY, NP>,
) -> Result<(), SolveError>
where
    M: AdjointProducts<NY, NZ, NP> + ModelSizes<N, NS>,
{
    const { assert!(N == NY + NZ, "ModelSizes<N, _> must have N = NY + NZ") };
    let forward = Forward {
        model,
        tableau,
        problem,
        options,
        plan,
    };
    let none = None::<&mut fn(AdjointPoint<NY>)>;
    adjoint::<M, S, NY, NZ, NP, N>(&forward, tape, outputs, solution, gradient, none)
}

/// [`solve_adjoint`] of the solve `forward`, reporting the adjoint of the state to `observe`
/// as the backward pass goes (`backward.rs`).
pub(crate) fn adjoint<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
>(
    forward: &Forward<'_, M, S, NY, NZ, NP>,
    tape: AdjointTape<'_, S, NY, NZ>,
    outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
    solution: &mut HybridSolution<NY, NZ, NP>,
    gradient: &mut AdjointGradient<NY, NP>,
    observe: Option<&mut impl FnMut(AdjointPoint<NY>)>,
) -> Result<(), SolveError>
where
    M: AdjointProducts<NY, NZ, NP>,
{
    let Forward {
        model,
        tableau,
        problem,
        options,
        plan,
    } = *forward;
    *gradient = AdjointGradient::ZERO;
    if !tape.checkpoints.is_empty() && tape.steps.is_empty() {
        return Err(SolveError::InvalidArgument {
            t: problem.t0,
            mode: 0,
            what: "checkpointed adjoint tape without a window",
        });
    }
    let mut recording = Recording::new(tape);
    let solved = run::<M, S, NY, NZ, NP, N, _>(
        model,
        tableau,
        problem,
        options,
        plan,
        outputs,
        solution,
        false,
        &mut recording,
        None,
    );
    gradient.tape_len = recording.next;
    solved?;
    if let Some(overflow) = recording.overflow {
        let (storage, capacity, needed) = match recording.checkpointed() {
            false => ("steps", recording.window(), recording.next),
            true => (
                "checkpoints",
                recording.checkpoints.len(),
                AdjointTape::<S, NY, NZ>::checkpoints_needed(recording.next, recording.window()),
            ),
        };
        return Err(SolveError::TapeFull {
            t: overflow.t,
            mode: overflow.mode,
            storage,
            capacity,
            needed,
        });
    }
    backward::backward::<M, S, NY, NZ, NP, N>(
        forward,
        &mut recording,
        outputs,
        solution,
        gradient,
        observe,
    )
}

/// The accepted steps of the solve [`solve_adjoint`] would record: entries of a full
/// [`AdjointTape`] it needs (a window of `W` steps needs
/// [`AdjointTape::checkpoints_needed`]`(n, W)` checkpoints). Runs the forward solve without
/// sensitivities and without outputs beyond `samples`, one entry per sample time.
#[allow(clippy::too_many_arguments)]
pub fn adjoint_tape_length<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    model: &M,
    tableau: &Tableau<S>,
    problem: &HybridProblem<'_, NY, NZ, NP>,
    options: &HybridOptions<NY, NZ>,
    plan: StepPlan<'_>,
    samples: &mut [crate::hybrid::Sample<NY, NZ, NP>],
) -> Result<usize, SolveError>
where
    M: HybridModel<NY, NZ, NP> + ModelSizes<N, NS>,
{
    let plain = HybridProblem {
        sensitivities: None,
        ..*problem
    };
    let mut outputs = HybridOutputs {
        samples,
        events: None,
        steps: None,
    };
    let mut solution = HybridSolution::ZERO;
    solve(
        model,
        tableau,
        &plain,
        options,
        plan,
        &mut outputs,
        &mut solution,
    )?;
    Ok(solution.stats.steps)
}
