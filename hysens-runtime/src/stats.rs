//! Solver statistics, following Table 1 of Kristensen et al. 2005 (NSTEP, NFUN, NJAC,
//! NLU, NBACK) plus rejections and Newton counters.

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
    /// Stage-system solves for forward sensitivities: one per implicit stage and column
    /// (parameter, or the step-length direction after an event).
    pub sensitivity_solves: usize,
    /// Events (mode switches) processed by a hybrid solve.
    pub events: usize,
    /// Steps re-taken to locate event times on the discrete solution (hybrid solve).
    pub event_retakes: usize,
    /// Computed steps cut to a quarter because a guard varied too fast within them for the
    /// scan of its values to rule out a crossing (hybrid solve; module docs of `events/`).
    pub guard_step_cuts: usize,
}

impl Stats {
    /// All counters zero (a `const` for static initializers).
    pub const ZERO: Self = Stats {
        steps: 0,
        rejected_steps: 0,
        newton_failures: 0,
        f_evals: 0,
        g_evals: 0,
        jacobian_evals: 0,
        lu_factorizations: 0,
        lu_solves: 0,
        newton_iterations: 0,
        sensitivity_jacobian_evals: 0,
        sensitivity_solves: 0,
        events: 0,
        event_retakes: 0,
        guard_step_cuts: 0,
    };

    /// Adds every counter of `other` (statistics of consecutive mode segments).
    pub fn add(&mut self, other: &Stats) {
        self.steps += other.steps;
        self.rejected_steps += other.rejected_steps;
        self.newton_failures += other.newton_failures;
        self.f_evals += other.f_evals;
        self.g_evals += other.g_evals;
        self.jacobian_evals += other.jacobian_evals;
        self.lu_factorizations += other.lu_factorizations;
        self.lu_solves += other.lu_solves;
        self.newton_iterations += other.newton_iterations;
        self.sensitivity_jacobian_evals += other.sensitivity_jacobian_evals;
        self.sensitivity_solves += other.sensitivity_solves;
        self.events += other.events;
        self.event_retakes += other.event_retakes;
        self.guard_step_cuts += other.guard_step_cuts;
    }
}
