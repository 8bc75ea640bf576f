//! Guards at the entry of a mode: the first step's decision for a guard on its zero whose rate
//! vanishes, the event at the entry, and the loop that cannot make progress.
//!
//! At the start of a segment (at `t0`, or right after an event) the guards of the mode are
//! armed (`events/arming.rs`): a guard on its zero takes the sign of its rate. Two cases need
//! more than that:
//!
//! - **The rate vanishes too** (a ball at rest on the floor: `h = 0`, `ḣ = v = 0`,
//!   `ḧ = −g`). The guard is decided by the flow itself: the mode's first step is computed
//!   (not accepted) and the guard is read on its dense output at `θ = 4⁻ᵏ, …, ½, ¾, 1` — the
//!   first value beyond round-off of zero has the sign of the first derivative of `h` that
//!   does not vanish (the dense output matches `y` and `ẏ` at the step's start and is
//!   accurate to the step's order). If that sign is the way the guard fires, the guard fires at
//!   the entry with a rate of zero: its event time has no derivative (`dτ/dp` is unbounded),
//!   so the solve ends with [`SolveError::GrazingEvent`] — unless the event would not make
//!   progress, below. Otherwise the guard is armed with that sign.
//! - **The guard fires at the entry** (on its zero, moving the way it fires: a ball that
//!   bounced with restitution 0 has `v⁺ = 0` and falls back at once; the other threshold of a
//!   relay whose two thresholds are equal). The event is applied before any step, as the end of
//!   a step of length zero from the entry (`H = 0`, `Y_i = y_n`, `F_i = f(t_n, y_n, z_n)`),
//!   taken by the integrator as any event step: the root condition of the guard gives
//!   `dH = −(h_t dt_n + h_y S + h_z W + h_p + …)/(h_t + h_y f + h_z ż)` with the step's
//!   H-direction `Φ_H = Σ_j a_Sj F_j = f` (stiffly accurate), `τ = dt_n + dH`, the jump and the
//!   grid shift of the next segment follow as after any event, and the cost quadrature of the
//!   zero-length step contributes `L dH` (the integrand of the mode left, over the length it
//!   gains or loses). The adjoint transposes the same step from its tape. At `t0` this is the
//!   event of an initial state on a guard about to fire (a start on an attractive switching
//!   surface slides from the start); its derivatives are one-sided where the perturbed start
//!   lies on the other side of the guard, and two-sided for an entry into sliding (the entry's
//!   projection is the same from both sides).
//!
//! **No progress.** A guard that fires at the entry and leads back to a mode and state already
//! visited at this instant (the ball with restitution 0: the reset `v⁺ = −e v⁻ = 0` leaves
//! the state where it was; a relay without hysteresis band: `off → heating → off` at the
//! same temperature) has no continuation in the model: the solve ends with
//! [`SolveError::StuckAtGuard`], naming the guard, the modes and the time, with the solution up
//! to it kept.

use super::{Driver, HybridOutputs, HybridSolution, SegmentEnd};
use crate::adjoint::tape::Recorder;
use crate::error::SolveError;
use crate::events::locate::DenseGuard;
use crate::events::{arming_sign, fires_at_entry, sign, Armed, Entry};
use crate::fsa::ModeIntegrator;
use crate::linalg::all_finite;
use crate::model::{EventTarget, HybridModel, ModeAdapter, Point};
use crate::step::{h_roundoff, StepLength};
use crate::ZENO_CLOSE_EVENTS;

/// Points of the first step, `θ = 4⁻ᵏ … ½, ¾, 1`, at which an undecided guard is read.
const PROBE: [f64; 7] = [1.0 / 4096.0, 1.0 / 256.0, 1.0 / 16.0, 0.25, 0.5, 0.75, 1.0];

/// The modes and states visited at one instant by a chain of events at mode entries (module
/// docs, "No progress"): at most [`ZENO_CLOSE_EVENTS`] events follow each other at one
/// instant before the Zeno test ends the solve, so this many entries suffice.
#[derive(Clone, Copy, Debug)]
pub(super) struct Instant<const NY: usize> {
    t: f64,
    len: usize,
    visited: [(usize, [f64; NY]); ZENO_CLOSE_EVENTS + 1],
}

impl<const NY: usize> Instant<NY> {
    /// No instant yet.
    pub(super) const fn new() -> Self {
        Instant {
            t: f64::NAN,
            len: 0,
            visited: [(0, [0.0; NY]); ZENO_CLOSE_EVENTS + 1],
        }
    }

    /// A mode is entered at `t` with the state `y`.
    pub(super) fn enter(&mut self, t: f64, mode: usize, y: &[f64; NY]) {
        if t != self.t {
            (self.t, self.len) = (t, 0);
        }
        if let Some(slot) = self.visited.get_mut(self.len) {
            *slot = (mode, *y);
            self.len += 1;
        }
    }

    /// Whether `mode` with the state `y` was entered at this instant already (states equal to
    /// round-off).
    fn visited(&self, mode: usize, y: &[f64; NY]) -> bool {
        let same = |a: &f64, b: &f64| (a - b).abs() <= 4.0 * f64::EPSILON * a.abs().max(b.abs());
        self.visited[..self.len]
            .iter()
            .any(|(m, v)| *m == mode && v.iter().zip(y).all(|(a, b)| same(a, b)))
    }
}

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, R>
    Driver<'_, M, S, NY, NZ, NP, R>
where
    M: HybridModel<NY, NZ, NP>,
    R: Recorder<S, NY, NZ>,
{
    /// Decides the guards of the segment's mode left undecided by the arming (on their zero
    /// with a vanishing rate) on the mode's first step (module docs); the step is computed, not
    /// accepted. Returns the armed signs, or the error of a guard that fires at the entry with
    /// a vanishing rate.
    pub(super) fn decide_on_first_step<'m, const N: usize>(
        &self,
        it: &mut ModeIntegrator<'_, 'm, M, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'m, M, NY, NZ, NP>,
        mut armed: Armed,
        entry: &Entry<NY, NZ>,
    ) -> Result<Armed, SolveError> {
        let pr = self.problem;
        let mode = adapter.mode();
        let t = it.t();
        if t >= pr.tf {
            return Ok(armed);
        }
        let sample = pr.sample_times.get(self.next_sample).copied();
        // A stop within round-off ahead cannot be stepped to adaptively; the probe goes on to
        // `t_f` instead (it is not accepted).
        let stop = match sample {
            Some(ts) if ts < pr.tf && ts - t > h_roundoff(ts) => ts,
            _ => pr.tf,
        };
        if stop - t <= h_roundoff(stop) {
            return Ok(armed);
        }
        let trial = it.try_step_within(stop, pr.tf)?;
        let at = adapter.point(t, it.y(), it.z(), &pr.p);
        for (g, info) in M::GUARDS.iter().enumerate() {
            if info.from != mode || armed.get(g) != 0.0 {
                continue;
            }
            let band = arming_sign(self.model, mode, g, &at, entry)?.band;
            let dense = DenseGuard::new(it, adapter, &pr.p, g, trial.h);
            let mut moving = 0.0;
            for theta in PROBE {
                let v = dense.value(theta)?;
                if v.abs() > band.max(dense.zero_band(theta, v)) {
                    moving = sign(v);
                    break;
                }
            }
            if fires_at_entry(g, info.direction, moving, false, entry) {
                self.check_progress(adapter, g, &at)?;
                return Err(SolveError::GrazingEvent { t, mode, guard: g });
            }
            armed.set(g, moving);
        }
        Ok(armed)
    }

    /// The event of `guard` at the entry of the segment (module docs): the step of length zero
    /// to it, then the event as after any step.
    pub(super) fn entry_event<'m, const N: usize>(
        &mut self,
        it: &mut ModeIntegrator<'_, 'm, M, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'m, M, NY, NZ, NP>,
        guard: usize,
        outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) -> Result<SegmentEnd<NY, NZ, NP>, SolveError> {
        let tn = it.t();
        let at = adapter.point(tn, it.y(), it.z(), &self.problem.p);
        self.check_progress(adapter, guard, &at)?;
        it.evaluate_roundoff(0.0)?;
        it.commit_fixed(0.0, tn, StepLength::Event, &mut |_| {})?;
        self.finish_event_step(it, adapter, guard, None, tn, 0.0, None, outputs, sol)
    }

    /// Ends the solve with [`SolveError::StuckAtGuard`] if the event of `guard`, firing at the
    /// entry point `at`, leads to a mode and state already entered at this instant (module
    /// docs, "No progress").
    fn check_progress(
        &self,
        adapter: &ModeAdapter<'_, M, NY, NZ, NP>,
        guard: usize,
        at: &Point<'_, NY, NZ, NP>,
    ) -> Result<(), SolveError> {
        let mode = adapter.mode();
        let EventTarget::Mode(to) = self.model.event_target(guard, at) else {
            // A repulsive surface or an intersection: the event itself reports it.
            return Ok(());
        };
        let mut y = *at.y;
        if M::GUARDS.get(guard).is_some_and(|g| g.has_reset) {
            self.model.reset(guard, at, &mut y);
        }
        if all_finite(&y) && self.instant.visited(to, &y) {
            return Err(SolveError::StuckAtGuard {
                t: at.t,
                mode,
                guard,
                to,
            });
        }
        Ok(())
    }
}
