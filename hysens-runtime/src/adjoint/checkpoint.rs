//! Checkpoints of the adjoint's forward pass: the whole state of the hybrid solve between two
//! accepted steps, so that a solve resumed from one repeats the original steps bit for bit.
//!
//! With checkpointing, the tape keeps a window of `W` consecutive steps and a checkpoint
//! before every `W`-th step (`tape.rs`). The backward pass then takes the windows last to
//! first: the last is still in storage from the forward pass; every other is recomputed by
//! resuming the solve from its checkpoint and recording its `W` steps again (`mod.rs`). The
//! recomputation replays the solve itself, not an approximation of it: the integrator resumes
//! with its controller history, Jacobian and reuse decisions (`step/snapshot.rs`), the driver
//! with its armed guards, Zeno history, sample and step-plan positions and counters, so every
//! recomputed stage value, step size and event time is the one of the forward pass, and the
//! gradient equals that of a full tape exactly (`tests/adjoint_checkpoints.rs`). The price is
//! one more forward solve of all but the last window: at most twice the forward work, for
//! storage `W` steps plus `⌈n/W⌉` checkpoints instead of `n` steps.

use crate::events::{Armed, Zeno};
use crate::model::Memory;
use crate::stats::Stats;
use crate::step::IntegratorSnapshot;

/// The state of a hybrid solve before one of its accepted steps (module docs of
/// `adjoint/checkpoint.rs`): storage for [`crate::AdjointTape::checkpoints`], initialized with
/// [`Checkpoint::ZERO`]. Its contents are private: a checkpoint is only ever resumed by the
/// backward pass of the solve that wrote it.
#[derive(Clone, Copy, Debug)]
pub struct Checkpoint<const S: usize, const NY: usize, const NZ: usize> {
    /// Index of the step about to be taken.
    pub(crate) step: usize,
    /// The mode and its memory.
    pub(crate) mode: usize,
    pub(crate) memory: Memory<NY, NZ>,
    /// The integrator of the mode.
    pub(crate) integrator: IntegratorSnapshot<S, NY, NZ>,
    /// Armed signs of the mode's guards.
    pub(crate) armed: Armed,
    /// The guard whose event at the segment's entry the step about to be taken is
    /// (`hybrid/entry.rs`), if it is one.
    pub(crate) entry_event: Option<usize>,
    /// The driver: Zeno history, next sample, position in a replayed step plan.
    pub(crate) zeno: Zeno,
    pub(crate) next_sample: usize,
    pub(crate) plan_index: usize,
    /// Counters of the solution so far (outputs written, statistics of finished segments,
    /// integral cost).
    pub(crate) n_samples: usize,
    pub(crate) n_events: usize,
    pub(crate) n_logged_steps: usize,
    pub(crate) stats: Stats,
    pub(crate) cost: f64,
    /// Whether the next step's start time moves with the parameters
    /// ([`crate::TapeStep::shifted`]).
    pub(crate) shifted: bool,
}

impl<const S: usize, const NY: usize, const NZ: usize> Checkpoint<S, NY, NZ> {
    /// Empty (to initialize storage).
    pub const ZERO: Self = Checkpoint {
        step: 0,
        mode: 0,
        memory: Memory::ZERO,
        integrator: IntegratorSnapshot::ZERO,
        armed: Armed::NONE,
        entry_event: None,
        zeno: Zeno::new(),
        next_sample: 0,
        plan_index: 0,
        n_samples: 0,
        n_events: 0,
        n_logged_steps: 0,
        stats: Stats::ZERO,
        cost: 0.0,
        shifted: false,
    };
}
