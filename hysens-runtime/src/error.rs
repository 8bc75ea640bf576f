//! The one error type of the runtime, with the context needed to diagnose a failed solve.
//!
//! Every fallible operation in the solve path returns `Result<_, SolveError>`; nothing panics.
//! Each variant records the time `t` and the mode index where it happened. The integrator keeps
//! the state of the last accepted step, so a failed solve still exposes what was computed up to
//! the failure.
//!
//! Also here, for every module: the one mapping of an LU failure to an error
//! ([`SolveError::from_lu`]) and the one finiteness check ([`all_finite`]).

use crate::linalg::LuError;
use core::fmt;

/// Whether every entry of `v` is finite (no NaN, no infinity).
#[inline]
pub(crate) fn all_finite<const K: usize>(v: &[f64; K]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// What went wrong during a solve, and where.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SolveError {
    /// The step size fell below the resolvable limit (`|h| < 16 ε |t|` or the user minimum).
    StepSizeTooSmall {
        /// Time of the last accepted step.
        t: f64,
        /// Mode index.
        mode: usize,
        /// The rejected step size.
        h: f64,
    },
    /// The simplified Newton iteration failed repeatedly and the step could not be reduced.
    NewtonFailure {
        /// Time of the last accepted step.
        t: f64,
        /// Mode index.
        mode: usize,
        /// The step size of the last attempt.
        h: f64,
        /// Stage index (0-based) whose iteration failed in the last attempt.
        stage: usize,
    },
    /// The maximum number of step attempts was reached before the final time.
    TooManySteps {
        /// Time reached.
        t: f64,
        /// Mode index.
        mode: usize,
        /// The limit that was hit.
        max_steps: usize,
    },
    /// The initial algebraic variables do not satisfy the constraints `g = 0`, and the
    /// consistent re-initialization did not converge.
    InconsistentInitialValues {
        /// Initial time.
        t: f64,
        /// Mode index.
        mode: usize,
        /// Weighted norm of the constraint residual at the last iterate.
        residual: f64,
    },
    /// A NaN or infinity appeared in an input or a computed quantity.
    NonFiniteValue {
        /// Time at which it was detected.
        t: f64,
        /// Mode index.
        mode: usize,
        /// Which quantity, e.g. `"initial y"`, `"f"`, `"Jacobian"`.
        what: &'static str,
    },
    /// Caller-provided or const-capacity storage is full.
    StorageFull {
        /// Time at which storage ran out.
        t: f64,
        /// Mode index.
        mode: usize,
        /// The capacity that was exhausted.
        capacity: usize,
    },
    /// The adjoint's tape ([`crate::AdjointTape`]) is too small for the solve; the solve was
    /// continued without recording to count what it needs.
    TapeFull {
        /// Time at which the tape ran out.
        t: f64,
        /// Mode index.
        mode: usize,
        /// What ran out: `"steps"` (a full tape) or `"checkpoints"`.
        storage: &'static str,
        /// Its capacity.
        capacity: usize,
        /// The capacity the solve needs.
        needed: usize,
    },
    /// Too many events in a short time (Zeno behaviour), reported instead of looping.
    TooManyEvents {
        /// Time of the last event.
        t: f64,
        /// Mode index.
        mode: usize,
        /// Number of events counted.
        count: usize,
    },
    /// A guard reached zero with (near) zero time derivative, so the event time is ill-defined.
    GrazingEvent {
        /// Event time.
        t: f64,
        /// Mode index.
        mode: usize,
        /// Guard index.
        guard: usize,
    },
    /// A guard fires at the entry of a mode (on its zero, moving the way it fires) and its
    /// event leads back to a mode and state already entered at this instant: the model has no
    /// continuation there (a ball with restitution 0, or at rest, on the floor; a relay whose
    /// two thresholds are equal). Model what happens on the guard — a mode that rests or
    /// sticks on it, or, for a relay, one `#[switching_surface]` on which the solution slides.
    StuckAtGuard {
        /// Time of the instant.
        t: f64,
        /// The mode the guard fires from.
        mode: usize,
        /// The guard.
        guard: usize,
        /// The mode its event leads to.
        to: usize,
    },
    /// A switching surface reached where both neighbouring fields point away from it
    /// ([`crate::HybridModel::event_target`]): no Filippov solution continues uniquely.
    RepulsiveSurface {
        /// Event time.
        t: f64,
        /// Mode index.
        mode: usize,
        /// Guard index of the surface.
        guard: usize,
    },
    /// A trajectory sliding on one switching surface reached another
    /// ([`crate::EventTarget::SurfaceIntersection`]): where two surfaces intersect, the Filippov
    /// field is that of a codimension-2 sliding, which hysens does not support.
    SurfaceIntersection {
        /// Time at which the other surface was reached.
        t: f64,
        /// The sliding mode's index.
        mode: usize,
        /// Guard index of the other surface, as watched in the sliding mode.
        guard: usize,
    },
    /// An argument is invalid (e.g. a final time before the current time, a non-positive
    /// absolute tolerance).
    InvalidArgument {
        /// Current time.
        t: f64,
        /// Mode index.
        mode: usize,
        /// Which argument.
        what: &'static str,
    },
    /// A matrix that must be nonsingular (Newton iteration matrix, `g_z`) is singular.
    SingularMatrix {
        /// Time of the last accepted step.
        t: f64,
        /// Mode index.
        mode: usize,
        /// Elimination column at which the pivot vanished.
        column: usize,
    },
}

impl SolveError {
    /// The error for a failed LU factorization of `what` (a matrix that must be nonsingular) at
    /// time `t` in `mode`: [`SolveError::SingularMatrix`] for a zero pivot,
    /// [`SolveError::NonFiniteValue`] naming `what` for a non-finite one.
    pub(crate) fn from_lu(e: LuError, t: f64, mode: usize, what: &'static str) -> Self {
        match e {
            LuError::Singular { column } => SolveError::SingularMatrix { t, mode, column },
            LuError::NonFinite { .. } => SolveError::NonFiniteValue { t, mode, what },
        }
    }

    /// The time recorded in the error.
    pub fn time(&self) -> f64 {
        match *self {
            SolveError::StepSizeTooSmall { t, .. }
            | SolveError::NewtonFailure { t, .. }
            | SolveError::TooManySteps { t, .. }
            | SolveError::InconsistentInitialValues { t, .. }
            | SolveError::NonFiniteValue { t, .. }
            | SolveError::StorageFull { t, .. }
            | SolveError::TapeFull { t, .. }
            | SolveError::TooManyEvents { t, .. }
            | SolveError::GrazingEvent { t, .. }
            | SolveError::StuckAtGuard { t, .. }
            | SolveError::RepulsiveSurface { t, .. }
            | SolveError::SurfaceIntersection { t, .. }
            | SolveError::InvalidArgument { t, .. }
            | SolveError::SingularMatrix { t, .. } => t,
        }
    }

    /// The mode index recorded in the error.
    pub fn mode(&self) -> usize {
        match *self {
            SolveError::StepSizeTooSmall { mode, .. }
            | SolveError::NewtonFailure { mode, .. }
            | SolveError::TooManySteps { mode, .. }
            | SolveError::InconsistentInitialValues { mode, .. }
            | SolveError::NonFiniteValue { mode, .. }
            | SolveError::StorageFull { mode, .. }
            | SolveError::TapeFull { mode, .. }
            | SolveError::TooManyEvents { mode, .. }
            | SolveError::GrazingEvent { mode, .. }
            | SolveError::StuckAtGuard { mode, .. }
            | SolveError::RepulsiveSurface { mode, .. }
            | SolveError::SurfaceIntersection { mode, .. }
            | SolveError::InvalidArgument { mode, .. }
            | SolveError::SingularMatrix { mode, .. } => mode,
        }
    }
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SolveError::StepSizeTooSmall { t, mode, h } => {
                write!(f, "step size too small (h = {h:e}) at t = {t:?} in mode {mode}")
            }
            SolveError::NewtonFailure { t, mode, h, stage } => write!(
                f,
                "Newton iteration failed in stage {stage} (h = {h:e}) at t = {t:?} in mode {mode}"
            ),
            SolveError::TooManySteps { t, mode, max_steps } => {
                write!(f, "more than {max_steps} steps needed; stopped at t = {t:?} in mode {mode}")
            }
            SolveError::InconsistentInitialValues { t, mode, residual } => write!(
                f,
                "inconsistent initial values (constraint residual {residual:e}) at t = {t:?} in mode {mode}"
            ),
            SolveError::NonFiniteValue { t, mode, what } => {
                write!(f, "non-finite value in {what} at t = {t:?} in mode {mode}")
            }
            SolveError::StorageFull { t, mode, capacity } => {
                write!(f, "storage full (capacity {capacity}) at t = {t:?} in mode {mode}")
            }
            SolveError::TapeFull {
                t,
                mode,
                storage,
                capacity,
                needed,
            } => write!(
                f,
                "adjoint tape full at t = {t:?} in mode {mode}: {capacity} {storage}, the solve needs {needed}"
            ),
            SolveError::TooManyEvents { t, mode, count } => write!(
                f,
                "too many events ({count}; Zeno behaviour?) at t = {t:?} in mode {mode}"
            ),
            SolveError::GrazingEvent { t, mode, guard } => {
                write!(f, "grazing event of guard {guard} at t = {t:?} in mode {mode}")
            }
            SolveError::StuckAtGuard { t, mode, guard, to } => write!(
                f,
                "guard {guard} fires as mode {mode} is entered at t = {t:?}, and its event (to mode {to}) leads back to a state already reached at this instant: the model has no continuation on the guard (add a mode that rests or sticks on it, or make a relay's two thresholds one #[switching_surface])"
            ),
            SolveError::RepulsiveSurface { t, mode, guard } => write!(
                f,
                "repulsive switching surface (guard {guard}): both fields point away from it at t = {t:?} in mode {mode}"
            ),
            SolveError::SurfaceIntersection { t, mode, guard } => write!(
                f,
                "switching surfaces intersect: the trajectory sliding in mode {mode} reached another surface (guard {guard}) at t = {t:?}"
            ),
            SolveError::InvalidArgument { t, mode, what } => {
                write!(f, "invalid argument: {what} (t = {t:?}, mode {mode})")
            }
            SolveError::SingularMatrix { t, mode, column } => {
                write!(f, "singular matrix (column {column}) at t = {t:?} in mode {mode}")
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for SolveError {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;

    #[test]
    fn display_and_context() {
        let e = SolveError::NonFiniteValue {
            t: 1.5,
            mode: 2,
            what: "initial y",
        };
        assert_eq!(
            e.to_string(),
            "non-finite value in initial y at t = 1.5 in mode 2"
        );
        assert_eq!(e.time(), 1.5);
        assert_eq!(e.mode(), 2);
        let e = SolveError::TooManySteps {
            t: 3.0,
            mode: 0,
            max_steps: 10,
        };
        assert!(e.to_string().contains("10 steps"));
    }

    #[cfg(feature = "std")]
    #[test]
    fn is_std_error() {
        fn takes(_: &dyn std::error::Error) {}
        takes(&SolveError::GrazingEvent {
            t: 0.0,
            mode: 0,
            guard: 1,
        });
    }
}
