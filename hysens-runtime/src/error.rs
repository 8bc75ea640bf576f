//! The one error type of the runtime, with the context needed to diagnose a failed solve.
//!
//! Every fallible operation in the solve path returns `Result<_, SolveError>`; nothing panics.
//! Each variant records the time and the mode index where it happened (the initial time and
//! mode 0 for what is found before a mode is chosen: an invalid time span, no initial mode).
//! The integrator keeps the state of the last accepted step, so a failed solve still exposes
//! what was computed up to the failure.
//!
//! An error records modes and guards by index, so it stays `Copy` and needs no model to be
//! made. Its plain `Display` prints those indices (`mode 3`, `guard 4`); the model's names are
//! printed by [`SolveError::describe`] with the model's tables (`M::MODES`, `M::GUARDS`):
//! `` mode `sliding` ``, `` guard `hit` ``, a switching surface by its own name. The owned
//! failures of the builder (`SolveFailure`) and a `#[hybrid_model]`'s `Model::describe` print
//! that way.
//!
//! Also here, for every module: the one mapping of an LU failure to an error
//! ([`SolveError::from_lu`]).

use crate::linalg::LuError;
use crate::model::{GuardInfo, ModeInfo};
use core::fmt;

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
    /// The algebraic variables could not be made consistent with the constraints `g = 0` at the
    /// start of a segment (at `t0` from the guess `z0`, after an event from the values before
    /// it): Newton's method on `g(z) = 0` did not converge, or met a singular `g_z` — as it does
    /// when `g = 0` has no solution near the start (`0 = z² + y + 1` with `y > −1`).
    InconsistentInitialValues {
        /// Time of the start.
        t: f64,
        /// Mode index.
        mode: usize,
        /// Weighted norm of the last Newton correction (infinite if none was computed).
        residual: f64,
        /// `Some(column)`: `g_z` was singular at an iterate (elimination column of the
        /// vanishing pivot); `None`: the iteration did not converge.
        singular_column: Option<usize>,
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
    /// The solve stopped at an event rather than applying it: either the cap on the number of
    /// events (`HybridOptions::max_events`) was reached, or events accumulate in time
    /// (three in a row closer than
    /// `HybridOptions::min_event_separation`: Zeno behaviour), reported instead of looping.
    TooManyEvents {
        /// Time of the event.
        t: f64,
        /// Mode index.
        mode: usize,
        /// Number of events applied before it (the cap, when `zeno` is `false`).
        count: usize,
        /// `true`: the events accumulate in time; `false`: the cap `max_events` was reached.
        zeno: bool,
    },
    /// A guard crossed at a rate the solution does not resolve at the requested tolerances
    /// (`HybridOptions::grazing_tol`): a near-tangency whose crossing the tolerances do not
    /// decide, a crossing without rate, impacts accumulating (Zeno), or a motion within the
    /// tolerances (a ball dropped by less than `atol`) — the event time has no meaningful
    /// derivative there. Tighten the tolerances to resolve a crossing that exists.
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
    /// The time span of a solve is invalid: `t0` or `tf` is not finite, or `tf < t0`.
    InvalidTimeSpan {
        /// The initial time given.
        t0: f64,
        /// The final time given.
        tf: f64,
    },
    /// No mode can start the solve: no `initial_if` rule holds at `t0` and the model has no
    /// fallback (`#[mode(initial)]`). A guard on its zero at `t0` is decided by its rate:
    /// the rule of mode `m` holds when `m`'s own field moves the guard to the rule's sign. On a
    /// switching surface whose two fields both point at it (an attractive surface: the solve
    /// would slide from `t0`), neither side's rule holds; with a fallback the solve starts in
    /// the fallback and slides from an event at `t0`.
    NoInitialMode {
        /// Initial time.
        t: f64,
    },
    /// An argument is invalid (e.g. an unsorted sample time, a non-positive absolute
    /// tolerance).
    InvalidArgument {
        /// Current time.
        t: f64,
        /// Mode index.
        mode: usize,
        /// Which argument.
        what: &'static str,
    },
    /// An invariant of the runtime broke: a bug in hysens, not in the model or its inputs
    /// (e.g. a recomputation from a checkpoint that does not repeat the forward pass). Please
    /// report it with the model and the call.
    Internal {
        /// Current time.
        t: f64,
        /// Mode index.
        mode: usize,
        /// Which invariant.
        what: &'static str,
    },
    /// The differential state at the start of a segment of a Hessenberg index-2 mode (at `t0`,
    /// or after an event's reset) is far off the mode's constraint `k(t, y, p) = 0`: the least
    /// change of `y` that puts it there, which the runtime applies to a state off it by about
    /// an integration error, has a WRMS norm `distance` above `1/√rtol` (weights
    /// `atol_y + rtol_y |y|`; a change of more than `√rtol` relative). Such a state is not a
    /// consistent start: the model's initial state or reset must satisfy `k = 0` (Serban &
    /// Recuero 2019, Eq. 16e).
    OffConstraint {
        /// Time of the start.
        t: f64,
        /// Mode index.
        mode: usize,
        /// WRMS norm of the least correction of `y`.
        distance: f64,
    },
    /// The constraints `k(t, y, p) = 0` of a Hessenberg index-2 mode are dependent at a
    /// segment's start: their Jacobian `k_y` has a row that is a combination of the others, so
    /// the least change of `y` onto them and the multipliers are not defined (a constraint
    /// declared twice, or a mechanism in a singular configuration where its constraint set
    /// loses rank).
    DependentConstraints {
        /// Time of the start.
        t: f64,
        /// Mode index.
        mode: usize,
        /// The algebraic equation (a constraint) found to depend on the others.
        row: usize,
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
            | SolveError::NoInitialMode { t }
            | SolveError::InvalidArgument { t, .. }
            | SolveError::Internal { t, .. }
            | SolveError::OffConstraint { t, .. }
            | SolveError::DependentConstraints { t, .. }
            | SolveError::SingularMatrix { t, .. } => t,
            SolveError::InvalidTimeSpan { t0, .. } => t0,
        }
    }

    /// The mode index recorded in the error (0 for an error found before a mode was chosen:
    /// an invalid time span, no initial mode).
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
            | SolveError::Internal { mode, .. }
            | SolveError::OffConstraint { mode, .. }
            | SolveError::DependentConstraints { mode, .. }
            | SolveError::SingularMatrix { mode, .. } => mode,
            SolveError::InvalidTimeSpan { .. } | SolveError::NoInitialMode { .. } => 0,
        }
    }
}

impl SolveError {
    /// The error with the model's names: `modes` and `guards` are the model's tables
    /// (`M::MODES`, `M::GUARDS`), so a mode prints as `` mode `sliding` ``, a guard as
    /// `` guard `hit` ``, a switching surface by its own name ([`GuardInfo::surface`]). An
    /// index the tables do not name prints as a number, as the plain `Display` does.
    pub fn describe<'a>(&self, modes: &'a [ModeInfo], guards: &'a [GuardInfo]) -> Described<'a> {
        Described {
            error: *self,
            modes,
            guards,
        }
    }
}

/// A [`SolveError`] printed with a model's names of modes, guards and surfaces; made by
/// [`SolveError::describe`].
#[derive(Clone, Copy, Debug)]
pub struct Described<'a> {
    error: SolveError,
    modes: &'a [ModeInfo],
    guards: &'a [GuardInfo],
}

/// Mode `.0` by its name in `.1` (`` `name` ``), or by its index.
struct Mode<'a>(usize, &'a [ModeInfo]);

impl fmt::Display for Mode<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1.get(self.0).map(|m| m.name) {
            Some(name) if !name.is_empty() => write!(f, "`{name}`"),
            _ => write!(f, "{}", self.0),
        }
    }
}

/// Guard `.0` by its name in `.1`, with its switching surface if it has one.
struct Guard<'a>(usize, &'a [GuardInfo]);

impl fmt::Display for Guard<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1.get(self.0).filter(|g| !g.name.is_empty()) {
            Some(GuardInfo {
                name,
                surface: Some(surface),
                ..
            }) => write!(f, "guard `{name}` of the switching surface `{surface}`"),
            Some(GuardInfo { name, .. }) => write!(f, "guard `{name}`"),
            None => write!(f, "guard {}", self.0),
        }
    }
}

/// The switching surface guard `.0` of `.1` watches: by its name, else by the guard.
struct Surface<'a>(usize, &'a [GuardInfo]);

impl fmt::Display for Surface<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1.get(self.0).and_then(|g| g.surface) {
            Some(surface) => write!(f, "switching surface `{surface}`"),
            None => write!(f, "switching surface ({})", Guard(self.0, self.1)),
        }
    }
}

impl fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (modes, guards) = (self.modes, self.guards);
        // Time and mode as every variant records them (`t0` and 0 where no mode was chosen).
        let (t, m) = (self.error.time(), Mode(self.error.mode(), modes));
        match self.error {
            SolveError::StepSizeTooSmall { h, .. } => {
                write!(f, "step size too small (h = {h:e}) at t = {t:?} in mode {m}")
            }
            SolveError::NewtonFailure { h, stage, .. } => write!(
                f,
                "Newton iteration failed in stage {stage} (h = {h:e}) at t = {t:?} in mode {m}"
            ),
            SolveError::TooManySteps { max_steps, .. } => write!(
                f,
                "more than {max_steps} steps needed; stopped at t = {t:?} in mode {m}"
            ),
            SolveError::InconsistentInitialValues {
                residual,
                singular_column,
                ..
            } => inconsistent_initial_values(f, t, m, residual, singular_column),
            SolveError::NonFiniteValue { what, .. } => {
                write!(f, "non-finite value in {what} at t = {t:?} in mode {m}")
            }
            SolveError::StorageFull { capacity, .. } => {
                write!(f, "storage full (capacity {capacity}) at t = {t:?} in mode {m}")
            }
            SolveError::TapeFull {
                storage,
                capacity,
                needed,
                ..
            } => write!(
                f,
                "adjoint tape full at t = {t:?} in mode {m}: {capacity} {storage}, the solve needs {needed}"
            ),
            SolveError::TooManyEvents { count, zeno, .. } => too_many_events(f, t, m, count, zeno),
            SolveError::GrazingEvent { guard, .. } => grazing_event(f, t, m, Guard(guard, guards)),
            SolveError::StuckAtGuard { guard, to, .. } => {
                stuck_at_guard(f, t, m, Guard(guard, guards), Mode(to, modes))
            }
            SolveError::RepulsiveSurface { guard, .. } => write!(
                f,
                "repulsive {}: both fields point away from it at t = {t:?} in mode {m}",
                Surface(guard, guards)
            ),
            SolveError::SurfaceIntersection { guard, .. } => write!(
                f,
                "switching surfaces intersect: the trajectory sliding in mode {m} reached the {} at t = {t:?} (sliding on two surfaces at once is not supported)",
                Surface(guard, guards)
            ),
            SolveError::InvalidTimeSpan { t0, tf } => invalid_time_span(f, t0, tf),
            SolveError::NoInitialMode { .. } => no_initial_mode(f, t),
            SolveError::InvalidArgument { what, .. } => {
                write!(f, "invalid argument: {what} (t = {t:?}, mode {m})")
            }
            SolveError::Internal { what, .. } => write!(
                f,
                "internal error of hysens (a bug, please report it with the model): {what} (t = {t:?}, mode {m})"
            ),
            SolveError::OffConstraint { distance, .. } => write!(
                f,
                "at t = {t:?} the state is off the constraint k(t, y, p) = 0 of index-2 mode {m} by {distance:.3e} times its tolerance (the least change of y, WRMS; at most 1/sqrt(rtol) is taken for an integration error and removed): the initial state or the reset must satisfy k = 0"
            ),
            SolveError::DependentConstraints { row, .. } => write!(
                f,
                "at t = {t:?} the constraints k(t, y, p) = 0 of index-2 mode {m} are dependent: equation {row} is a combination of the others there (their Jacobian k_y has lower rank than their number), so they define neither the least change of y onto them nor the multipliers; remove a redundant constraint, or keep the solve away from the configuration where the constraint set loses rank"
            ),
            SolveError::SingularMatrix { column, .. } => {
                write!(f, "singular matrix (column {column}) at t = {t:?} in mode {m}")
            }
        }
    }
}

/// The message of [`SolveError::InconsistentInitialValues`]: why `g = 0` was not solved, and
/// what to do.
fn inconsistent_initial_values(
    f: &mut fmt::Formatter<'_>,
    t: f64,
    mode: Mode<'_>,
    residual: f64,
    singular_column: Option<usize>,
) -> fmt::Result {
    write!(
        f,
        "inconsistent initial values at t = {t:?} in mode {mode}: "
    )?;
    let index2 = mode.1.get(mode.0).is_some_and(|info| info.index2);
    match singular_column {
        // An index-2 mode's z is defined by its condition c (`HybridModel::hidden_constraint`).
        Some(column) if index2 => write!(
            f,
            "its condition on z (the constraints' derivative k_y f + k_t, and the equations that read z) could not be solved for z (its Jacobian in z singular, column {column}, at an iterate): for a mechanism, a singular mass matrix or a constraint set that has lost rank"
        )?,
        Some(column) => write!(
            f,
            "the algebraic equations g = 0 could not be solved for z (g_z singular, column {column}, at an iterate); they may have no solution there"
        )?,
        None => write!(
            f,
            "Newton's method on the algebraic equations g = 0 did not converge (last correction {residual:e} tolerance units; a correction of a few units that no longer decreases is the round-off of z: its absolute tolerance is below what f64 resolves there, loosen it)"
        )?,
    }
    write!(
        f,
        "; check them, or start from a better z (at t0, `Solver::algebraic_guess`)"
    )
}

/// The message of [`SolveError::TooManyEvents`]: Zeno behaviour, or the cap on events.
fn too_many_events(
    f: &mut fmt::Formatter<'_>,
    t: f64,
    mode: Mode<'_>,
    count: usize,
    zeno: bool,
) -> fmt::Result {
    if zeno {
        write!(
            f,
            "events accumulate in time (Zeno behaviour?): {} in a row closer than `min_event_separation`, {count} events in all, at t = {t:?} in mode {mode}",
            crate::ZENO_CLOSE_EVENTS,
        )
    } else {
        write!(
            f,
            "the cap of {count} events was reached at t = {t:?} in mode {mode}; raise it with `Solver::max_events` or `HybridOptions::max_events`",
        )
    }
}

/// The message of [`SolveError::GrazingEvent`]: why the event has no derivative, and what to
/// do.
fn grazing_event(
    f: &mut fmt::Formatter<'_>,
    t: f64,
    mode: Mode<'_>,
    guard: Guard<'_>,
) -> fmt::Result {
    write!(
        f,
        "grazing event of {guard} at t = {t:?} in mode {mode}: the rate at which it crosses is not resolved at the requested tolerances, so its event time has no meaningful derivative (a near-tangency, a crossing without rate, impacts accumulating, or a motion within the tolerances: tighten them to resolve it)",
    )
}

/// The message of [`SolveError::StuckAtGuard`]: the model has no continuation on the guard.
fn stuck_at_guard(
    f: &mut fmt::Formatter<'_>,
    t: f64,
    mode: Mode<'_>,
    guard: Guard<'_>,
    to: Mode<'_>,
) -> fmt::Result {
    write!(
        f,
        "{guard} fires as mode {mode} is entered at t = {t:?}, and its event (to mode {to}) leads back to a state already reached at this instant: the model has no continuation on the guard (add a mode that rests or sticks on it, or make a relay's two thresholds one #[switching_surface])",
    )
}

/// The message of [`SolveError::NoInitialMode`]: why no rule holds, and what to do.
fn no_initial_mode(f: &mut fmt::Formatter<'_>, t: f64) -> fmt::Result {
    write!(
        f,
        "no initial mode at t0 = {t:?}: no `initial_if` rule holds and no mode is the fallback `#[mode(initial)]`. A guard exactly zero at t0 picks the mode whose own field moves it to the rule's sign; on a switching surface that both fields point at, neither side's does: mark one side `#[mode(initial)]` instead of `initial_if` (the solve then slides from t0), or start off the surface"
    )
}

/// The message of [`SolveError::InvalidTimeSpan`]: which end is wrong.
fn invalid_time_span(f: &mut fmt::Formatter<'_>, t0: f64, tf: f64) -> fmt::Result {
    write!(f, "invalid time span: ")?;
    if !t0.is_finite() {
        write!(f, "t0 = {t0:?} is not finite")
    } else if !tf.is_finite() {
        write!(f, "tf = {tf:?} is not finite")
    } else {
        write!(f, "tf = {tf:?} is before t0 = {t0:?}")
    }
}

impl fmt::Display for SolveError {
    /// The error with modes and guards by index; [`SolveError::describe`] names them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.describe(&[], &[]).fmt(f)
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
        // A broken invariant says it is the library's bug, with its context.
        let e = SolveError::Internal {
            t: 0.25,
            mode: 1,
            what: "missing checkpoint",
        };
        let message = e.to_string();
        assert!(message.starts_with("internal error of hysens (a bug"));
        assert!(message.contains("missing checkpoint (t = 0.25, mode 1)"));
        assert_eq!((e.time(), e.mode()), (0.25, 1));
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
