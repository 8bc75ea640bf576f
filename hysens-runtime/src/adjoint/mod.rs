//! The discrete adjoint — not implemented yet; this module is the place reserved for it.
//!
//! What will go here: the transpose of `fsa/`, run backward over the accepted steps of a solve.
//! The forward sensitivities are the derivative of a chain of maps — one ESDIRK step map per
//! accepted step (the stage equations differentiated at the converged stages, one LU per stage),
//! and at every event the step-length derivative `∂H/∂p` of the event step and the jump map of
//! the reset (`fsa/jump.rs`) — with the cost's quadrature terms added along the chain
//! (`fsa/cost.rs`). The discrete adjoint is the transpose of exactly that chain: seeded with the
//! cost's partials at `t_f`, each step is reversed with the transposed solves of the same stage
//! LU factors (`Lu::solve_transposed`), each event with the transposed jump map `(α, β, Γ, Δ)`
//! of Serban & Recuero 2019, §3 (the affine form of Eq. 6 and the jump conditions below their
//! Eq. 13), and each memory capture with the accumulators of their §4 (Algorithm 1). Because it
//! transposes the same linear chain, its gradient equals the forward one to round-off, which is
//! the test the implementation must pass.
//!
//! It needs a tape of the accepted steps (start time, size, kind, the stage values or a
//! checkpoint to recompute them) and of the events, in caller-provided storage like every other
//! output of the runtime.

/// Transposes of the event maps of the forward sensitivities (step length, jump, consistent `w⁺`).
mod jump;
