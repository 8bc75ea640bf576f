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
//! backward pass, the events and the initial point), and the transposes of the event maps of
//! the forward sensitivities, each in the file named as the map's in `fsa/`: `jump.rs` (the
//! jump through a reset, and the order of an event's transposes), `length.rs` (the event
//! step's length), `start.rs` (a segment's start), `index2.rs` (`z` from the hidden
//! constraint of a Hessenberg index-2 mode and a start moved onto its constraint, Serban &
//! Recuero 2019, §3.3).

mod backward;
mod checkpoint;
mod cost;
mod index2;
mod initial;
mod jump;
mod left_limit;
mod length;
mod start;
mod step;
pub(crate) mod tape;
#[cfg(test)]
mod transpose_tests;

pub use checkpoint::Checkpoint;
pub use tape::{AdjointTape, TapeStep};

pub(crate) use backward::backward;
pub use backward::AdjointPoint;
pub(crate) use initial::chain_initial_state;
pub(crate) use tape::Recording;

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
    /// Calls of [`AdjointProducts::adjoint_products`](crate::AdjointProducts::adjoint_products).
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

/// The gradient of the objective from [`solve_adjoint`](crate::solve_adjoint), with the statistics
/// of its backward pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdjointGradient<const NY: usize, const NP: usize> {
    /// `dG/dp`: total, including `(∂y0/∂p)ᵀ dG/dy0` when the problem gives
    /// [`HybridProblem::sensitivities`](crate::HybridProblem::sensitivities) (the same quantity as
    /// the forward [`HybridSolution::cost_gradient`](crate::HybridSolution::cost_gradient)).
    pub p: [f64; NP],
    /// `dG/dy0`: the derivative with respect to the initial differential state (through the
    /// initial condition, the consistent initial algebraic state and the first mode's memory).
    pub y0: [f64; NY],
    /// Accepted steps of the solve: the entries of a full tape it needs (also after
    /// [`SolveError::TapeFull`](crate::SolveError::TapeFull), which counts on to the end of the
    /// solve).
    pub tape_len: usize,
    /// Counters of the backward pass.
    pub stats: AdjointStats,
}

impl<const NY: usize, const NP: usize> AdjointGradient<NY, NP> {
    /// All zero (to initialize storage; [`solve_adjoint`](crate::solve_adjoint) resets it).
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
