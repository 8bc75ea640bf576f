//! Solver statistics, following Table 1 of Kristensen et al. 2005 (note 003_004 §5.2:
//! NSTEP, NFUN, NJAC, NLU, NBACK) plus rejections and Newton counters.

/// Counters accumulated over a solve.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Accepted steps (NSTEP).
    pub steps: usize,
    /// Steps rejected by the error test.
    pub rejected_steps: usize,
    /// Step attempts abandoned because the Newton iteration failed (diverged or too slow).
    pub newton_failures: usize,
    /// Evaluations of `f` (NFUN), including those for the initial step size.
    pub f_evals: usize,
    /// Evaluations of `g`.
    pub g_evals: usize,
    /// Evaluations of the state Jacobian (NJAC).
    pub jacobian_evals: usize,
    /// LU factorizations of the iteration matrix (NLU).
    pub lu_factorizations: usize,
    /// Forward/back substitutions with an LU (NBACK).
    pub lu_solves: usize,
    /// Newton iterations (sum over all stages and attempts).
    pub newton_iterations: usize,
    /// Jacobian evaluations (state and parameter) at stage points for forward sensitivities.
    pub sensitivity_jacobian_evals: usize,
    /// Refinement iterations of the stage sensitivity solves (each one LU solve).
    pub sensitivity_iterations: usize,
}
