//! An event at `t0`: the initial state lies on a guard that is about to fire (a start on an
//! attractive switching surface, which slides from the start; a ball on the floor moving
//! down).
//!
//! The event is applied before any step, as the end of a first segment of length zero in the
//! initial mode `m₀`: the step to it is the zero-length step `t* = t0 + H`, `H = 0`, whose
//! H-direction is the field itself, `Φ_H = ∂y(t0 + H)/∂H = f⁻ = f(m₀, t0, y0)`, and whose
//! sensitivities are the initial ones, `S = s0`, with no grid shift (`dt_n = 0`). The event
//! step's length derivative (`fsa/jump.rs`) then reads
//!
//! ```text
//! τ = dH = −(h_y s0 + h_p + h_{y*} s*) / (h_t + h_y f⁻),    s⁻ = s0 + f⁻ τ
//! ```
//!
//! and the jump, the choice of the mode entered and the next segment's grid shift `τ` are those
//! of any event. These are the derivatives of the solution whose event time `t*(p)` moves away
//! from `t0` as `t0 + τ δp`: exact one-sided derivatives where the perturbed initial state
//! stays on the side of `m₀`. For an entry into sliding they are two-sided: from either side
//! of the surface, `(f⁻ − f_F)/σ⁻ = (f² − f¹)/(σ₂ − σ₁)` (`σᵢ = g_t + g_x fⁱ`), so the jump is
//! the same projection onto the surface, which is what makes the Filippov flow Lipschitz.
//!
//! For an index-1 DAE mode the algebraic variables move along the constraint during the
//! zero-length step: `Z_H = ż⁻ = −g_z⁻¹ (g_y f⁻ + g_t)`, `w⁻ = w0 + ż⁻ τ`, and `h_z Z_H` joins
//! the denominator (the end stage of a stiffly accurate step satisfies the constraint for
//! every `H`).
//!
//! The adjoint's backward pass transposes the same chain at its end (`adjoint/start.rs`): the
//! tape keeps the guard and `m₀`, and the model gives the direction and the guard's partials
//! at `t0` again.

use super::{Driver, HybridOutputs, HybridSolution, SegmentEnd};
use crate::adjoint::tape::{Recorder, StartEvent};
use crate::error::SolveError;
use crate::events::{algebraic_rate, ModeIntegrator, PreEvent};
use crate::fsa::jump::{event_step_length_derivative, EventStep, PreEventSensitivities};
use crate::model::{HybridModel, ModeAdapter, Point};

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, R>
    Driver<'_, M, S, NY, NZ, NP, R>
where
    M: HybridModel<NY, NZ, NP>,
    R: Recorder<S, NY, NZ>,
{
    /// Applies the event of `guard` at `t0` (module docs) and reports it to the tape.
    pub(super) fn event_at_start<const N: usize>(
        &mut self,
        it: &ModeIntegrator<'_, '_, M, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'_, M, NY, NZ, NP>,
        guard: usize,
        outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) -> Result<SegmentEnd<NY, NZ, NP>, SolveError> {
        let (t, mode, p) = (it.t(), adapter.mode(), &self.problem.p);
        let at = adapter.point(t, it.y(), it.z(), p);
        let (msy, msz) = adapter.memory_sensitivities();
        let (s0, w0) = it.sensitivities();
        let (mut s_minus, mut w_minus) = (*s0, *w0);
        let mut tau = [0.0; NP];
        if self.fsa {
            let (f, zdot) = start_direction(self.model, mode, &at)?;
            let step = EventStep {
                sy: s0,
                sz: w0,
                yh: &f,
                zh: &zdot,
                dt: &[0.0; NP],
                memory_sy: msy,
                memory_sz: msz,
            };
            (tau, _) = event_step_length_derivative(self.model, guard, mode, &at, &step)?;
            for (row, fr) in s_minus.iter_mut().zip(f) {
                for (s, dh) in row.iter_mut().zip(tau) {
                    *s += fr * dh;
                }
            }
            for (row, zr) in w_minus.iter_mut().zip(zdot) {
                for (w, dh) in row.iter_mut().zip(tau) {
                    *w += zr * dh;
                }
            }
        }
        let pre = PreEvent {
            t,
            mode,
            y: it.y(),
            z: it.z(),
            p,
            memory: adapter.memory(),
            sens: self.fsa.then_some(PreEventSensitivities {
                sy: &s_minus,
                sz: &w_minus,
                tau: &tau,
                memory_sy: msy,
                memory_sz: msz,
            }),
        };
        let end = self.event(guard, None, &pre, outputs, sol)?;
        if let SegmentEnd::Event { to, post } = &end {
            self.tape.start_event(StartEvent {
                guard,
                mode,
                z0: *it.z(),
                to: *to,
                y: post.y,
                z: post.z,
                memory: post.memory,
            });
        }
        Ok(end)
    }
}

/// The H-direction of the zero-length step to an event at `t0` in `mode` (module docs):
/// `Φ_H = f⁻` and, for the algebraic variables, `Z_H = ż⁻ = −g_z⁻¹ (g_y f⁻ + g_t)` from the
/// constraint held along the step (the memory is constant during it).
pub(crate) fn start_direction<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    mode: usize,
    at: &Point<'_, NY, NZ, NP>,
) -> Result<([f64; NY], [f64; NZ]), SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let mut f = [0.0; NY];
    let mut g = [0.0; NZ];
    model.residual(mode, at, &mut f, &mut g);
    let zdot = algebraic_rate(model, mode, at, &f)?;
    Ok((f, zdot))
}
