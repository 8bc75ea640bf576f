//! The tape: what the forward hybrid solve records of every accepted step, in caller-provided
//! storage, so that the backward pass (`backward.rs`) transposes exactly the forward chain.
//!
//! Per accepted step: the mode and its memory `(y*, z*)`, the start time `t_n`, the length `H`
//! and how it depends on the parameters ([`StepLength`]), and the converged stage values
//! `Y_i, Z_i` with the stage derivatives `F_i`. Storing the stages (rather than a checkpoint to
//! recompute them) makes the backward pass evaluate every partial derivative at exactly the
//! forward stage points, so its gradient is the transpose of the forward sensitivities of the
//! same solve to round-off. Samples are located by the running count of recorded samples after
//! each step (the sampled cost enters the adjoint as a jump at the sample time).
//!
//! The step to an event also keeps the event ([`TapeEvent`]): what the transposed event maps
//! of `jump.rs` read (the guard, the target mode, the H-direction of the step, the state,
//! consistent algebraic state and memory right after the event, and the samples recorded at
//! the restart). The state just before the event is the end stage of the step, in its mode
//! with its memory.
//!
//! The driver of the hybrid solve is generic over a [`Recorder`]: the plain solve uses
//! [`NoTape`], whose hooks are empty and inline to nothing, so recording costs nothing when no
//! tape is kept.

use crate::error::SolveError;
use crate::model::Memory;
use crate::step::StepLength;

/// One accepted step of a forward solve, as the discrete adjoint needs it (module docs of
/// [`crate::solve_adjoint`]). Storage for the tape is a caller-provided slice of these,
/// initialized with [`TapeStep::ZERO`]; a solve needs one entry per accepted step
/// ([`crate::Stats::steps`] of the same solve, or [`crate::AdjointGradient::tape_len`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TapeStep<const S: usize, const NY: usize, const NZ: usize> {
    /// Mode of the step.
    pub mode: usize,
    /// Memory `(y*, z*)` of the mode.
    pub memory: Memory<NY, NZ>,
    /// Start time `t_n`.
    pub t: f64,
    /// Length `H` (stage times `T_i = t_n + c_i H`).
    pub h: f64,
    /// How `H` depends on the parameters with the step sequence frozen.
    pub length: StepLength,
    /// Differential stage values `Y_i` (`Y_1 = y_n`, `Y_S = y_{n+1}`).
    pub ys: [[f64; NY]; S],
    /// Algebraic stage values `Z_i`.
    pub zs: [[f64; NZ]; S],
    /// Stage derivatives `F_i`.
    pub fs: [[f64; NY]; S],
    /// Samples recorded from the start of the solve up to and including those at the end of
    /// this step (the running count of [`crate::HybridSolution::n_samples`]).
    pub samples: usize,
    /// Whether the step's start time depends on the parameters: the step is in a segment
    /// started by an event and no landing step precedes it in the segment (module docs of
    /// `fsa/`, "Step length").
    pub shifted: bool,
    /// The event at the end of the step (`length` is then [`StepLength::Event`]).
    pub event: Option<TapeEvent<S, NY, NZ>>,
}

/// An event at the end of a [`TapeStep`] (module docs of [`crate::solve_adjoint`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TapeEvent<const S: usize, const NY: usize, const NZ: usize> {
    /// The guard that fired.
    pub guard: usize,
    /// The mode entered.
    pub to: usize,
    /// The event time `t*` (the end of the step).
    pub t: f64,
    /// H-direction `∂Y_i/∂H` of the step to the event, all stages.
    pub yh: [[f64; NY]; S],
    /// H-direction `∂Z_i/∂H`.
    pub zh: [[f64; NZ]; S],
    /// `y⁺` after the reset.
    pub y: [f64; NY],
    /// The consistent `z⁺` in the new mode.
    pub z: [f64; NZ],
    /// The new mode's memory `(y⁺, z⁻)`.
    pub memory: Memory<NY, NZ>,
    /// Samples recorded up to and including those at the restart (at `t*`, after the event).
    pub samples: usize,
}

impl<const S: usize, const NY: usize, const NZ: usize> TapeStep<S, NY, NZ> {
    /// All zero (to initialize storage).
    pub const ZERO: Self = TapeStep {
        mode: 0,
        memory: Memory::ZERO,
        t: 0.0,
        h: 0.0,
        length: StepLength::Fixed,
        ys: [[0.0; NY]; S],
        zs: [[0.0; NZ]; S],
        fs: [[0.0; NY]; S],
        samples: 0,
        shifted: false,
        event: None,
    };
}

/// What the hybrid driver reports to a tape.
pub(crate) trait Recorder<const S: usize, const NY: usize, const NZ: usize> {
    /// A mode segment starts at `(y, z)` (consistent) with `memory`; `n_samples` samples are
    /// recorded so far (including those at its start time).
    fn segment_start(
        &mut self,
        n_samples: usize,
        y: &[f64; NY],
        z: &[f64; NZ],
        memory: &Memory<NY, NZ>,
    );

    /// An accepted step (its stages are those of `step`; the step to an event carries the
    /// event, whose post-event fields [`Recorder::segment_start`] completes); `Err` if the
    /// tape is full.
    fn step(&mut self, step: &TapeStep<S, NY, NZ>) -> Result<(), SolveError>;

    /// Whether the driver should build [`TapeStep`]s at all.
    const RECORDS: bool;
}

/// The recorder of a solve without a tape: every hook is empty.
pub(crate) struct NoTape;

impl<const S: usize, const NY: usize, const NZ: usize> Recorder<S, NY, NZ> for NoTape {
    const RECORDS: bool = false;

    #[inline(always)]
    fn segment_start(&mut self, _: usize, _: &[f64; NY], _: &[f64; NZ], _: &Memory<NY, NZ>) {}

    #[inline(always)]
    fn step(&mut self, _: &TapeStep<S, NY, NZ>) -> Result<(), SolveError> {
        Ok(())
    }
}

/// A tape in caller storage: the steps recorded so far.
pub(crate) struct Tape<'a, const S: usize, const NY: usize, const NZ: usize> {
    /// The storage.
    pub steps: &'a mut [TapeStep<S, NY, NZ>],
    /// Steps recorded.
    pub len: usize,
    /// Samples recorded at `t0`, before the first step.
    pub initial_samples: usize,
    /// Whether the next step's start time depends on the parameters ([`TapeStep::shifted`]).
    pub shifted: bool,
}

impl<const S: usize, const NY: usize, const NZ: usize> Recorder<S, NY, NZ> for Tape<'_, S, NY, NZ> {
    const RECORDS: bool = true;

    fn segment_start(
        &mut self,
        n_samples: usize,
        y: &[f64; NY],
        z: &[f64; NZ],
        memory: &Memory<NY, NZ>,
    ) {
        let last = self.len.checked_sub(1).and_then(|k| self.steps.get_mut(k));
        match last.and_then(|s| s.event.as_mut()) {
            Some(event) => {
                event.y = *y;
                event.z = *z;
                event.memory = *memory;
                event.samples = n_samples;
            }
            None => self.initial_samples = n_samples,
        }
    }

    fn step(&mut self, step: &TapeStep<S, NY, NZ>) -> Result<(), SolveError> {
        let capacity = self.steps.len();
        let Some(slot) = self.steps.get_mut(self.len) else {
            return Err(SolveError::StorageFull {
                t: step.t,
                mode: step.mode,
                capacity,
            });
        };
        *slot = *step;
        slot.shifted = self.shifted;
        if step.event.is_some() {
            self.shifted = true;
        } else if step.length == StepLength::Landing {
            self.shifted = false;
        }
        self.len += 1;
        Ok(())
    }
}
