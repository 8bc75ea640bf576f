//! What can go wrong in estimation and control, with what was being done when it did.

use std::fmt;

/// An error of the simulator, the filter or the controller. Each says what happened and where;
/// none is a panic.
#[derive(Clone, Debug, PartialEq)]
pub enum ControlError {
    /// A solve of the model failed; the message names the model's modes and guards.
    Solve {
        /// What the solve was for (the filter's prediction, a shooting interval, …).
        during: &'static str,
        /// The solver's description of the failure.
        message: String,
    },
    /// `∂g/∂z` is singular (or not finite) at this point: the DAE is not index 1 there, and
    /// `z` is not a function of the differential states (Christensen et al., pitfall of §V:
    /// check it rather than diverge).
    SingularAlgebraicJacobian {
        /// Where.
        t: f64,
        /// What was being solved.
        during: &'static str,
    },
    /// Newton's method for the algebraic variables or an implicit sub-step did not converge.
    NewtonFailure {
        /// Where.
        t: f64,
        /// What was being solved.
        during: &'static str,
        /// Iterations taken.
        iterations: usize,
        /// Norm of the last correction, relative to the tolerance (`> 1`: not converged).
        last_correction: f64,
    },
    /// The innovation covariance `C P Cᵀ + R` is not positive definite: the update cannot
    /// weigh the measurement (a zero `R` with an unobserved direction, or a covariance gone
    /// indefinite).
    SingularInnovationCovariance {
        /// The measurement time.
        t: f64,
    },
    /// The QP of an SQP iteration has no solution (infeasible bounds or linearized
    /// constraints), or its solver stopped short of one.
    QpFailed {
        /// The sample time of the OCP.
        t: f64,
        /// The QP solver's status.
        status: String,
    },
    /// The SQP reached its iteration limit before the step and the constraint violation fell
    /// below the tolerance; the last iterate is kept as the next warm start.
    SqpNotConverged {
        /// The sample time of the OCP.
        t: f64,
        /// Iterations taken.
        iterations: usize,
        /// The last step's size, relative (`max |d_i| / (1 + |w_i|)`).
        step: f64,
        /// The largest constraint violation `max |c_i|`.
        violation: f64,
    },
    /// A value that must be finite is not (a state, a covariance, a measurement).
    NonFinite {
        /// Where.
        t: f64,
        /// Which value.
        what: &'static str,
    },
    /// An argument is out of its documented range.
    InvalidArgument {
        /// Which argument, and the rule it breaks.
        what: String,
    },
}

impl fmt::Display for ControlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ControlError::Solve { during, message } => {
                write!(f, "the solve of {during} failed: {message}")
            }
            ControlError::SingularAlgebraicJacobian { t, during } => write!(
                f,
                "∂g/∂z is singular at t = {t} ({during}): the DAE is not index 1 there"
            ),
            ControlError::NewtonFailure {
                t,
                during,
                iterations,
                last_correction,
            } => write!(
                f,
                "Newton's method did not converge at t = {t} ({during}) in {iterations} \
                 iterations; last correction {last_correction:.3e} times the tolerance"
            ),
            ControlError::SingularInnovationCovariance { t } => write!(
                f,
                "the innovation covariance at t = {t} is not positive definite: \
                 the measurement cannot be weighed"
            ),
            ControlError::QpFailed { t, status } => write!(
                f,
                "the QP of the SQP at t = {t} has no solution: {status} (infeasible bounds \
                 or constraints?)"
            ),
            ControlError::SqpNotConverged {
                t,
                iterations,
                step,
                violation,
            } => write!(
                f,
                "the SQP at t = {t} did not converge in {iterations} iterations: last step \
                 {step:.3e} (relative), constraint violation {violation:.3e}"
            ),
            ControlError::NonFinite { t, what } => write!(f, "{what} is not finite at t = {t}"),
            ControlError::InvalidArgument { what } => write!(f, "invalid argument: {what}"),
        }
    }
}

impl std::error::Error for ControlError {}
