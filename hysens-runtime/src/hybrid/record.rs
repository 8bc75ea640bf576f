//! What the driver records for the discrete adjoint: every accepted step, and the step to an
//! event with its event, on the tape (`adjoint/tape.rs`). With [`NoTape`] (the plain solve)
//! `R::RECORDS` is false and the driver never calls these.
//!
//! [`NoTape`]: crate::adjoint::tape::NoTape

use super::Driver;
use crate::adjoint::tape::{Recorder, TapeEvent, TapeStep};
use crate::error::SolveError;
use crate::events::ModeIntegrator;
use crate::model::{HybridModel, Memory, ModeAdapter};
use crate::step::{StepLength, Trial};

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, R>
    Driver<'_, M, S, NY, NZ, NP, R>
where
    M: HybridModel<NY, NZ, NP>,
    R: Recorder<S, NY, NZ>,
{
    /// Records the step `trial` just accepted from `tn` (not to an event); `samples`: the
    /// samples recorded so far, including those at its end.
    #[inline]
    pub(super) fn record_step<const N: usize>(
        &mut self,
        it: &ModeIntegrator<'_, '_, M, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'_, M, NY, NZ, NP>,
        tn: f64,
        trial: &Trial,
        samples: usize,
    ) -> Result<(), SolveError> {
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
            fs: *fs,
            samples,
            shifted: false,
            event: None,
        })
    }

    /// Records the event step just accepted (from `tn`, of size `h`) with its event on the
    /// tape; the post-event fields are completed when the next segment starts.
    pub(super) fn record_event_step<const N: usize>(
        &mut self,
        it: &mut ModeIntegrator<'_, '_, M, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'_, M, NY, NZ, NP>,
        guard: usize,
        tn: f64,
        h: f64,
        samples: usize,
    ) -> Result<(), SolveError> {
        let mode = adapter.mode();
        let Some(info) = M::GUARDS.get(guard) else {
            return Err(self.invalid(it.t(), mode, "guard index"));
        };
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
            fs: *fs,
            samples,
            shifted: false,
            event: Some(TapeEvent {
                guard,
                to: info.to,
                t: it.t(),
                yh: *yh,
                zh: *zh,
                y: [0.0; NY],
                z: [0.0; NZ],
                memory: Memory::ZERO,
                samples: 0,
            }),
        })
    }
}
