//! What the driver records for the discrete adjoint: every accepted step, and the step to an
//! event with its event, on the tape (`adjoint/tape.rs`); checkpoints of its own state, and
//! the resumption from one (`adjoint/checkpoint.rs`). With [`NoTape`] (the plain solve)
//! `R::RECORDS` is false and the driver never calls these.
//!
//! [`NoTape`]: crate::adjoint::tape::NoTape

use super::{Driver, HybridSolution};
use crate::adjoint::tape::{Recorder, TapeEvent, TapeStep};
use crate::adjoint::Checkpoint;
use crate::error::SolveError;
use crate::events::Armed;
use crate::fsa::ModeIntegrator;
use crate::model::{HybridModel, Memory, ModeAdapter};
use crate::step::{StepLength, Trial};

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, R>
    Driver<'_, M, S, NY, NZ, NP, R>
where
    M: HybridModel<NY, NZ, NP>,
    R: Recorder<S, NY, NZ>,
{
    /// Before a step of a segment: lets the tape take a checkpoint of the whole solve here
    /// (the integrator, the armed guards, the event at the segment's entry if this step is its
    /// zero-length step, the driver's positions and the counters of `sol`); returns whether to
    /// take the step.
    #[inline]
    pub(super) fn before_step<'m, const N: usize>(
        &mut self,
        it: &ModeIntegrator<'_, 'm, M, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'m, M, NY, NZ, NP>,
        armed: &Armed,
        entry_event: Option<usize>,
        sol: &HybridSolution<NY, NZ, NP>,
    ) -> bool {
        let (zeno, next_sample, plan_index) = (self.zeno, self.next_sample, self.plan_index);
        self.tape.before_step(it.t(), adapter.mode(), |c| {
            c.mode = adapter.mode();
            c.memory = *adapter.memory();
            c.integrator = it.snapshot();
            c.armed = *armed;
            c.entry_event = entry_event;
            c.zeno = zeno;
            c.next_sample = next_sample;
            c.plan_index = plan_index;
            c.n_samples = sol.n_samples;
            c.n_events = sol.n_events;
            c.n_logged_steps = sol.n_logged_steps;
            c.stats = sol.stats;
            c.cost = sol.cost;
        })
    }

    /// Restores the driver and the counters of `sol` from `checkpoint` (the integrator and
    /// the armed guards are restored by the segment that resumes); returns the mode.
    pub(super) fn resume(
        &mut self,
        checkpoint: &Checkpoint<S, NY, NZ>,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) -> usize {
        self.zeno = checkpoint.zeno;
        self.next_sample = checkpoint.next_sample;
        self.plan_index = checkpoint.plan_index;
        sol.memory = checkpoint.memory;
        sol.n_samples = checkpoint.n_samples;
        sol.n_events = checkpoint.n_events;
        sol.n_logged_steps = checkpoint.n_logged_steps;
        sol.stats = checkpoint.stats;
        sol.cost = checkpoint.cost;
        checkpoint.mode
    }

    /// Records the step `trial` just accepted from `tn` (not to an event); `samples`: the
    /// samples recorded so far, including those at its end.
    #[inline]
    pub(super) fn record_step<'m, const N: usize>(
        &mut self,
        it: &mut ModeIntegrator<'_, 'm, M, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'m, M, NY, NZ, NP>,
        tn: f64,
        trial: &Trial,
        samples: usize,
    ) -> Result<(), SolveError> {
        if trial.landing && !self.fsa && self.tape.shifted() {
            // The adjoint's H-direction of this step reads its F_i; the forward sensitivities
            // refine them at such a step, without them, here.
            it.refine_stage_derivatives_of_last_step(tn, trial.h)?;
        }
        let (ys, zs, fs) = it.stages();
        let length = if trial.landing {
            StepLength::Landing
        } else {
            StepLength::Fixed
        };
        self.tape.step(&TapeStep {
            mode: adapter.mode(),
            memory: *adapter.memory(),
            t: tn,
            h: trial.h,
            length,
            ys: *ys,
            zs: *zs,
            z_end: *it.z(),
            fs: *fs,
            samples,
            shifted: false,
            event: None,
        });
        Ok(())
    }

    /// Records the event step just accepted (from `tn`, of size `h`) with its event of `guard`
    /// into mode `to` on the tape; the post-event fields are completed when the next segment
    /// starts.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn record_event_step<'m, const N: usize>(
        &mut self,
        it: &mut ModeIntegrator<'_, 'm, M, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'m, M, NY, NZ, NP>,
        guard: usize,
        to: usize,
        tn: f64,
        h: f64,
        samples: usize,
    ) -> Result<(), SolveError> {
        let mode = adapter.mode();
        if !self.fsa {
            // The forward sensitivities compute it at every event step; without them, here.
            it.compute_step_length_direction(tn, h)?;
        }
        let (yh, zh) = it.step_length_direction();
        let (ys, zs, fs) = it.stages();
        self.tape.step(&TapeStep {
            mode,
            memory: *adapter.memory(),
            t: tn,
            h,
            length: StepLength::Event,
            ys: *ys,
            zs: *zs,
            z_end: *it.z(),
            fs: *fs,
            samples,
            shifted: false,
            event: Some(TapeEvent {
                guard,
                to,
                t: it.t(),
                yh: *yh,
                zh: *zh,
                y: [0.0; NY],
                z: [0.0; NZ],
                memory: Memory::ZERO,
                samples: 0,
            }),
        });
        Ok(())
    }
}
