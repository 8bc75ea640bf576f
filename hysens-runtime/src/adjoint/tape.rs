//! The tape: what the forward hybrid solve records of every accepted step, in caller-provided
//! storage, so that the backward pass (`backward.rs`) transposes exactly the forward chain.
//! [`AdjointTape`] is the storage: every step of the solve, or a window of steps with
//! checkpoints to recompute the others (`checkpoint.rs`).
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

use super::checkpoint::Checkpoint;
use crate::error::SolveError;
use crate::model::Memory;
use crate::step::StepLength;

/// Storage of the adjoint's tape (module docs of [`crate::solve_adjoint`]), in one of two
/// layouts:
///
/// * **Full** (`checkpoints` empty, [`AdjointTape::full`]): `steps` holds every accepted step
///   of the solve; it needs one entry per step.
/// * **Checkpointed** ([`AdjointTape::checkpointed`]): `steps` is a window of `W =
///   steps.len()` consecutive steps, and the forward pass keeps a [`Checkpoint`] before every
///   `W`-th step; the backward pass recomputes each window from its checkpoint, exactly
///   (module docs of `adjoint/checkpoint.rs`). It needs `⌈n/W⌉` checkpoints for `n` steps,
///   and costs one more forward solve of all but the last window.
///
/// A solve needs `n` = [`crate::adjoint_tape_length`] steps (also reported as
/// [`crate::AdjointGradient::tape_len`]); storage too small ends the solve with
/// [`crate::SolveError::TapeFull`], which names the storage needed.
#[derive(Debug)]
pub struct AdjointTape<'a, const S: usize, const NY: usize, const NZ: usize> {
    /// Every step (full), or a window of steps (checkpointed).
    pub steps: &'a mut [TapeStep<S, NY, NZ>],
    /// Checkpoints (empty: a full tape).
    pub checkpoints: &'a mut [Checkpoint<S, NY, NZ>],
}

impl<'a, const S: usize, const NY: usize, const NZ: usize> AdjointTape<'a, S, NY, NZ> {
    /// A full tape in `steps`.
    pub fn full(steps: &'a mut [TapeStep<S, NY, NZ>]) -> Self {
        AdjointTape {
            steps,
            checkpoints: &mut [],
        }
    }

    /// A window of `steps.len()` steps with `checkpoints`.
    pub fn checkpointed(
        steps: &'a mut [TapeStep<S, NY, NZ>],
        checkpoints: &'a mut [Checkpoint<S, NY, NZ>],
    ) -> Self {
        AdjointTape { steps, checkpoints }
    }

    /// Checkpoints needed for `steps` accepted steps with a window of `window` steps
    /// (`⌈steps/window⌉`; 0 for an empty window).
    pub fn checkpoints_needed(steps: usize, window: usize) -> usize {
        match window {
            0 => 0,
            w => steps.div_ceil(w),
        }
    }
}

/// One accepted step of a forward solve, as the discrete adjoint needs it (module docs of
/// [`crate::solve_adjoint`]). Storage for the tape is a caller-provided slice of these,
/// initialized with [`TapeStep::ZERO`]; a solve needs one entry per accepted step
/// ([`crate::Stats::steps`] of the same solve, or [`crate::AdjointGradient::tape_len`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TapeStep<const S: usize, const NY: usize, const NZ: usize> {
    /// Mode of the step.
    pub(crate) mode: usize,
    /// Memory `(y*, z*)` of the mode.
    pub(crate) memory: Memory<NY, NZ>,
    /// Start time `t_n`.
    pub(crate) t: f64,
    /// Length `H` (stage times `T_i = t_n + c_i H`).
    pub(crate) h: f64,
    /// How `H` depends on the parameters with the step sequence frozen.
    pub(crate) length: StepLength,
    /// Differential stage values `Y_i` (`Y_1 = y_n`, `Y_S = y_{n+1}`).
    pub(crate) ys: [[f64; NY]; S],
    /// Algebraic stage values `Z_i`.
    pub(crate) zs: [[f64; NZ]; S],
    /// The algebraic state `z_{n+1}` the solve goes on from (and an event at the step's end
    /// reads): `Z_S`, or in a Hessenberg index-2 mode `z` from the hidden constraint at
    /// `y_{n+1}` (`fsa/index2.rs`; its transpose `adjoint/index2.rs`).
    pub(crate) z_end: [f64; NZ],
    /// Stage derivatives `F_i` (as the forward sensitivities use them: refined where the
    /// step's length depends on the parameters, `Esdirk::refine_stage_derivatives`; the
    /// backward pass reads them only there).
    pub(crate) fs: [[f64; NY]; S],
    /// Samples recorded from the start of the solve up to and including those at the end of
    /// this step (the running count of [`crate::HybridSolution::n_samples`]).
    pub(crate) samples: usize,
    /// Whether the step's start time depends on the parameters: the step is in a segment
    /// started by an event and no landing step precedes it in the segment (module docs of
    /// `fsa/`, "Step length").
    pub(crate) shifted: bool,
    /// The event at the end of the step (`length` is then [`StepLength::Event`]).
    pub(crate) event: Option<TapeEvent<S, NY, NZ>>,
}

/// An event at the end of a [`TapeStep`] (module docs of `adjoint/`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TapeEvent<const S: usize, const NY: usize, const NZ: usize> {
    /// The guard that fired.
    pub(crate) guard: usize,
    /// The mode entered.
    pub(crate) to: usize,
    /// The event time `t*` (the end of the step).
    pub(crate) t: f64,
    /// H-direction `∂Y_i/∂H` of the step to the event, all stages.
    pub(crate) yh: [[f64; NY]; S],
    /// H-direction `∂Z_i/∂H`.
    pub(crate) zh: [[f64; NZ]; S],
    /// `y⁺` after the reset.
    pub(crate) y: [f64; NY],
    /// The consistent `z⁺` in the new mode.
    pub(crate) z: [f64; NZ],
    /// The new mode's memory `(y⁺, z⁻)`.
    pub(crate) memory: Memory<NY, NZ>,
    /// Samples recorded up to and including those at the restart (at `t*`, after the event).
    pub(crate) samples: usize,
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
        z_end: [0.0; NZ],
        fs: [[0.0; NY]; S],
        samples: 0,
        shifted: false,
        event: None,
    };
}

/// What the hybrid driver reports to a tape.
pub(crate) trait Recorder<const S: usize, const NY: usize, const NZ: usize> {
    /// Whether the driver should report anything at all.
    const RECORDS: bool;

    /// Before each step of a segment, at time `t` in `mode`: whether to take it (`false`: the
    /// window being recomputed is complete). `fill` writes the driver's state into a
    /// checkpoint when the tape keeps one here.
    fn before_step(
        &mut self,
        t: f64,
        mode: usize,
        fill: impl FnOnce(&mut Checkpoint<S, NY, NZ>),
    ) -> bool;

    /// A mode segment starts at `(y, z)` (consistent) with `memory`; `n_samples` samples are
    /// recorded so far (including those at its start time).
    fn segment_start(
        &mut self,
        n_samples: usize,
        y: &[f64; NY],
        z: &[f64; NZ],
        memory: &Memory<NY, NZ>,
    );

    /// An accepted step (the step to an event carries the event, whose post-event fields
    /// [`Recorder::segment_start`] completes).
    fn step(&mut self, step: &TapeStep<S, NY, NZ>);

    /// Whether the start time of the step about to be recorded depends on the parameters
    /// ([`TapeStep::shifted`]).
    fn shifted(&self) -> bool;
}

/// The recorder of a solve without a tape: every hook is empty.
pub(crate) struct NoTape;

impl<const S: usize, const NY: usize, const NZ: usize> Recorder<S, NY, NZ> for NoTape {
    const RECORDS: bool = false;

    #[inline(always)]
    fn before_step(
        &mut self,
        _: f64,
        _: usize,
        _: impl FnOnce(&mut Checkpoint<S, NY, NZ>),
    ) -> bool {
        true
    }

    #[inline(always)]
    fn segment_start(&mut self, _: usize, _: &[f64; NY], _: &[f64; NZ], _: &Memory<NY, NZ>) {}

    #[inline(always)]
    fn step(&mut self, _: &TapeStep<S, NY, NZ>) {}

    #[inline(always)]
    fn shifted(&self) -> bool {
        false
    }
}

/// Where storage first ran out.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Overflow {
    pub t: f64,
    pub mode: usize,
}

/// Recording into an [`AdjointTape`]: the forward pass (every step, and a checkpoint before
/// every `W`-th step when checkpointed), or the recomputation of one window from its
/// checkpoint. Step `k` of the solve goes to slot `k` of a full tape and to slot `k mod W` of
/// a window. Storage that runs out is noted, and counting goes on to the end of the solve so
/// that the error names the storage needed.
pub(crate) struct Recording<'a, const S: usize, const NY: usize, const NZ: usize> {
    pub steps: &'a mut [TapeStep<S, NY, NZ>],
    pub checkpoints: &'a mut [Checkpoint<S, NY, NZ>],
    /// Index of the next step of the solve (after the solve: its number of steps).
    pub next: usize,
    /// Index of the step before which a recomputation stops (`usize::MAX`: none).
    pub stop: usize,
    /// Samples recorded at `t0`, before the first step.
    pub initial_samples: usize,
    /// Whether the next step's start time depends on the parameters ([`TapeStep::shifted`]).
    pub shifted: bool,
    /// Where storage first ran out.
    pub overflow: Option<Overflow>,
}

impl<'a, const S: usize, const NY: usize, const NZ: usize> Recording<'a, S, NY, NZ> {
    /// The forward pass into `tape`.
    pub(crate) fn new(tape: AdjointTape<'a, S, NY, NZ>) -> Self {
        Recording {
            steps: tape.steps,
            checkpoints: tape.checkpoints,
            next: 0,
            stop: usize::MAX,
            initial_samples: 0,
            shifted: false,
            overflow: None,
        }
    }

    /// Whether the tape is checkpointed.
    pub(crate) fn checkpointed(&self) -> bool {
        !self.checkpoints.is_empty()
    }

    /// The window length `W` (all steps of a full tape).
    pub(crate) fn window(&self) -> usize {
        self.steps.len()
    }

    /// After the forward pass: [`SolveError::TapeFull`] where storage ran out, naming the
    /// capacity the solve needs (steps of a full tape, checkpoints of a window), if it did.
    pub(crate) fn full(&self) -> Option<SolveError> {
        let overflow = self.overflow?;
        let (storage, capacity, needed) = match self.checkpointed() {
            false => ("steps", self.window(), self.next),
            true => (
                "checkpoints",
                self.checkpoints.len(),
                AdjointTape::<S, NY, NZ>::checkpoints_needed(self.next, self.window()),
            ),
        };
        Some(SolveError::TapeFull {
            t: overflow.t,
            mode: overflow.mode,
            storage,
            capacity,
            needed,
        })
    }

    /// The slot of step `k`, if it has one.
    fn slot(&self, k: usize) -> Option<usize> {
        let w = self.window();
        match self.checkpointed() {
            false => (k < w).then_some(k),
            true => k.checked_rem(w),
        }
    }

    /// Prepares the recomputation of the window that starts at `checkpoint` (up to the next
    /// checkpoint).
    pub(crate) fn resume(&mut self, checkpoint: &Checkpoint<S, NY, NZ>) {
        self.next = checkpoint.step;
        self.stop = checkpoint.step.saturating_add(self.window());
        self.shifted = checkpoint.shifted;
    }
}

impl<const S: usize, const NY: usize, const NZ: usize> Recorder<S, NY, NZ>
    for Recording<'_, S, NY, NZ>
{
    const RECORDS: bool = true;

    fn before_step(
        &mut self,
        t: f64,
        mode: usize,
        fill: impl FnOnce(&mut Checkpoint<S, NY, NZ>),
    ) -> bool {
        let k = self.next;
        if k >= self.stop {
            return false;
        }
        // The forward pass keeps a checkpoint before every W-th step.
        let w = self.window();
        if self.stop == usize::MAX && self.checkpointed() && k.checked_rem(w) == Some(0) {
            match self.checkpoints.get_mut(k / w) {
                Some(checkpoint) if self.overflow.is_none() => {
                    fill(checkpoint);
                    checkpoint.step = k;
                    checkpoint.shifted = self.shifted;
                }
                Some(_) => {}
                None => {
                    self.overflow.get_or_insert(Overflow { t, mode });
                }
            }
        }
        true
    }

    fn segment_start(
        &mut self,
        n_samples: usize,
        y: &[f64; NY],
        z: &[f64; NZ],
        memory: &Memory<NY, NZ>,
    ) {
        let Some(last) = self.next.checked_sub(1) else {
            self.initial_samples = n_samples;
            return;
        };
        let slot = self.slot(last);
        if let Some(event) = slot
            .and_then(|i| self.steps.get_mut(i))
            .and_then(|s| s.event.as_mut())
        {
            event.y = *y;
            event.z = *z;
            event.memory = *memory;
            event.samples = n_samples;
        }
    }

    fn step(&mut self, step: &TapeStep<S, NY, NZ>) {
        let k = self.next;
        match self.slot(k).and_then(|i| self.steps.get_mut(i)) {
            Some(slot) if self.overflow.is_none() => {
                *slot = *step;
                slot.shifted = self.shifted;
            }
            Some(_) => {}
            None => {
                self.overflow.get_or_insert(Overflow {
                    t: step.t,
                    mode: step.mode,
                });
            }
        }
        if step.event.is_some() {
            self.shifted = true;
        } else if step.length == StepLength::Landing {
            self.shifted = false;
        }
        self.next += 1;
    }

    fn shifted(&self) -> bool {
        self.shifted
    }
}
