//! A solve's statistics in one line, as the examples print them: the counters that say what
//! a solve cost (steps, rejected steps, `f` evaluations, Jacobians, LU factorizations, Newton
//! iterations, events), so that examples and their runs compare at a glance.
//!
//! Included with `#[path = "../common/stats.rs"] mod stats;` by the examples that print them.

use hysens::runtime::Stats;

/// `steps …, rejected …, f evaluations …, Jacobians …, LU factorizations …, Newton iterations
/// …, events …`.
pub fn line(s: &Stats) -> String {
    format!(
        "steps {}, rejected {}, f evaluations {}, Jacobians {}, LU factorizations {}, \
         Newton iterations {}, events {}",
        s.steps,
        s.rejected_steps,
        s.f_evals,
        s.jacobian_evals,
        s.lu_factorizations,
        s.newton_iterations,
        s.events
    )
}
