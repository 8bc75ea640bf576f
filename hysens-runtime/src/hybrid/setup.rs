//! Checks of the problem, the initial mode, and the arming of a segment's guards.

use super::Driver;
use crate::adjoint::tape::Recorder;
use crate::error::SolveError;
use crate::events::{arming_sign, fires_at_entry, Armed, Entry, MAX_GUARDS};
use crate::fsa::ModeIntegrator;
use crate::linalg::all_finite;
use crate::model::{HybridModel, InitialMode, Memory, ModeAdapter, Point};

/// The largest relative tolerance of the differential states with which a model with guards
/// is solved (module docs of `events/`, "Detection"): events are found on the solution the
/// tolerances give, and above 1e-3 its own error — an oscillator's amplitude damped by a few
/// percent per period by the L-stable tableaus — hides crossings the exact solution has
/// (measured on the corpus of `tests/event_semantics/`: levels 10 % below an oscillator's
/// amplitude are missed at rtol 1e-2 and found at every rtol from 1e-3 down).
pub(crate) const MAX_EVENT_RTOL: f64 = 1e-3;

/// How [`MAX_EVENT_RTOL`] is reported.
const EVENT_RTOL_RULE: &str = "rtol: at most 1e-3 for a model with guards (above it the solution's own error can hide crossings the exact solution has; the event semantics are guaranteed from 1e-3 down)";

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, R>
    Driver<'_, M, S, NY, NZ, NP, R>
where
    M: HybridModel<NY, NZ, NP>,
    R: Recorder<S, NY, NZ>,
{
    /// Checks the problem, the options and the model's tables before anything is evaluated.
    ///
    /// Each error names the input that is wrong: the time span ([`SolveError::InvalidTimeSpan`]
    /// says which of `t0`, `tf`), then the initial state, the algebraic guess and the
    /// parameters, in that order — the builder appends the initial states to the parameters
    /// for initial-state sensitivities (`solver/extended.rs`), so a non-finite initial state
    /// must be found as such before the parameters are checked.
    pub(super) fn validate(&self) -> Result<(), SolveError> {
        let pr = self.problem;
        let t0 = pr.t0;
        if !t0.is_finite() || !pr.tf.is_finite() || pr.tf < t0 {
            return Err(SolveError::InvalidTimeSpan { t0, tf: pr.tf });
        }
        if let Some(what) = self.options.invalid_setting() {
            return Err(self.invalid(t0, 0, what));
        }
        let loosest = self
            .options
            .integrator
            .rtol_y
            .iter()
            .fold(0.0f64, |a, &b| a.max(b));
        if !M::GUARDS.is_empty() && loosest > MAX_EVENT_RTOL {
            return Err(self.invalid(t0, 0, EVENT_RTOL_RULE));
        }
        let nonfinite = |what| SolveError::NonFiniteValue {
            t: t0,
            mode: 0,
            what,
        };
        if !all_finite(&pr.y0) {
            return Err(nonfinite("the initial state"));
        }
        if !all_finite(&pr.z0) {
            return Err(nonfinite("the guess of the initial algebraic variables"));
        }
        if !all_finite(&pr.p) {
            return Err(nonfinite("the parameters"));
        }
        if let Some(s0) = &pr.sensitivities {
            if !s0.iter().all(all_finite) {
                return Err(nonfinite("the initial sensitivities"));
            }
        }
        let mut prev = t0;
        for &ts in pr.sample_times {
            if !(ts >= prev && ts <= pr.tf) {
                return Err(self.invalid(t0, 0, "sample times (must be sorted, in [t0, tf])"));
            }
            prev = ts;
        }
        if !pr.sample_data.is_empty() && pr.sample_data.len() != pr.sample_times.len() {
            return Err(self.invalid(t0, 0, "sample data (one datum per sample time)"));
        }
        // A sampled cost reads a datum per sample; without data it would be evaluated against
        // zeros, a cost nobody asked for (issue #19).
        if M::HAS_SAMPLED_COST && pr.sample_data.is_empty() && !pr.sample_times.is_empty() {
            return Err(self.invalid(
                t0,
                0,
                "sample data: the model's sampled cost reads one datum per sample time; give them with `Solver::data` (or `HybridProblem::sample_data`)",
            ));
        }
        if !self.objective.is_valid_for::<M, NY, NZ, NP>() {
            return Err(self.invalid(t0, 0, "objective (the index of one of the model's costs)"));
        }
        if !self.costs.is_empty() && self.costs.len() < M::COSTS.len() {
            return Err(self.invalid(t0, 0, "cost storage (one entry per cost of the model)"));
        }
        if M::GUARDS.len() > MAX_GUARDS {
            return Err(self.invalid(t0, 0, "number of guards (at most 128)"));
        }
        if M::MODES.is_empty()
            || M::GUARDS
                .iter()
                .any(|g| g.from >= M::MODES.len() || g.to >= M::MODES.len())
        {
            return Err(self.invalid(t0, 0, "mode table"));
        }
        Ok(())
    }

    /// The initial mode ([`InitialMode`]; a guard that is zero at `t0` is decided by the sign
    /// of its rate under the candidate mode's field (`events/arming.rs`); a start on it where
    /// the chosen mode's and the fallback's fields both move away from it is
    /// [`SolveError::RepulsiveSurface`]).
    pub(super) fn initial_mode(&self) -> Result<usize, SolveError> {
        let pr = self.problem;
        let memory = Memory { y: pr.y0, z: pr.z0 };
        let at = Point {
            t: pr.t0,
            y: &pr.y0,
            z: &pr.z0,
            p: &pr.p,
            memory: &memory,
        };
        let mode = match M::INITIAL_MODE {
            InitialMode::Fixed(m) => Some(m),
            InitialMode::ByGuardSigns { rules, fallback } => {
                let mut chosen = None;
                for &(g, positive, m) in rules {
                    if g >= M::GUARDS.len() || m >= M::MODES.len() {
                        return Err(self.invalid(pr.t0, 0, "initial-mode rule"));
                    }
                    let arming = arming_sign(self.model, m, g, &at, &Entry::Start)?;
                    let s = arming.sign;
                    if (positive && s > 0.0) || (!positive && s < 0.0) {
                        if arming.on_guard {
                            let others = rules.iter().filter(|r| r.0 == g).map(|r| r.2);
                            self.refuse_a_repulsive_start(g, m, s, others.chain(fallback), &at)?;
                        }
                        chosen = Some(m);
                        break;
                    }
                }
                chosen.or(fallback)
            }
        };
        match mode {
            Some(m) if m < M::MODES.len() => Ok(m),
            Some(_) => Err(self.invalid(pr.t0, 0, "initial mode (past the mode table)")),
            None => Err(SolveError::NoInitialMode { t: pr.t0 }),
        }
    }

    /// A start on the zero of guard `g` (decided by its rate: `m`'s field moves `g` to the
    /// sign `s`, away from the zero into `m`'s side) where another candidate mode's field — the
    /// other side's `initial_if` on the same guard, or the fallback — moves `g` the other way,
    /// away into its own side: both fields leave the surface (a repulsive switching surface,
    /// Pytlak & Suski Eq. 18 at `t0`), and choosing either side would be a silent choice. An
    /// error, as a repulsive surface reached later is.
    fn refuse_a_repulsive_start(
        &self,
        g: usize,
        m: usize,
        s: f64,
        others: impl Iterator<Item = usize>,
        at: &Point<'_, NY, NZ, NP>,
    ) -> Result<(), SolveError> {
        for other in others.filter(|&o| o != m && o < M::MODES.len()) {
            let away = arming_sign(self.model, other, g, at, &Entry::Start)?;
            if away.on_guard && away.sign == -s {
                return Err(SolveError::RepulsiveSurface {
                    t: at.t,
                    mode: m,
                    guard: g,
                });
            }
        }
        Ok(())
    }

    /// Arms the guards of the segment's mode at its start, entered as `entry` (`events/`,
    /// "Arming"). A guard that is zero and moving the way it fires is an event at the entry
    /// (on a switching surface at `t0`, a ball on the floor moving down, a relay whose other
    /// threshold is the one just crossed; `events::fires_at_entry`): returns the first such
    /// guard, whose event the driver applies before any step (`hybrid/entry.rs`), rather than
    /// a guard armed as already crossed (which would let the solution leave the mode's region
    /// without an event).
    pub(super) fn arm<'m, const N: usize>(
        &self,
        it: &ModeIntegrator<'_, 'm, M, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'m, M, NY, NZ, NP>,
        entry: &Entry<NY, NZ>,
    ) -> Result<(Armed, Option<usize>), SolveError> {
        let mode = adapter.mode();
        let mut armed = Armed::default();
        let mut firing = None;
        let at = adapter.point(it.t(), it.y(), it.z(), &self.problem.p);
        for (g, info) in M::GUARDS.iter().enumerate() {
            if info.from == mode {
                let arming = arming_sign(self.model, mode, g, &at, entry)?;
                let decided = arming.on_guard && arming.sign != 0.0;
                if decided && fires_at_entry(g, info.direction, arming.sign, true, entry) {
                    firing.get_or_insert(g);
                }
                armed.set(g, arming.sign);
            }
        }
        Ok((armed, firing))
    }
}
