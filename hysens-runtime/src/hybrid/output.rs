//! What the driver writes: the solution summary, samples, the step and event logs, and the
//! costs with their gradients (`fsa/cost.rs` for the formulas): the objective's into the
//! summary and, for `solve_costs`, each named cost's into its own entry (`model/costs.rs`).

use super::{Driver, EventRecord, HybridOutputs, HybridSolution, LoggedStep, Sample};
use crate::adjoint::tape::Recorder;
use crate::error::SolveError;
use crate::fsa::cost::{add_integral_step, add_scalar_gradient, StageSensitivities};
use crate::fsa::Esdirk;
use crate::fsa::ModeIntegrator;
use crate::linalg::all_finite;
use crate::model::{CostKind, CostValue, HybridModel, ModeAdapter, Objective};
use crate::model::{ScalarPartials, SmoothMode};

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, R>
    Driver<'_, M, S, NY, NZ, NP, R>
where
    M: HybridModel<NY, NZ, NP>,
    R: Recorder<S, NY, NZ>,
{
    /// Copies the integrator state into the summary.
    #[inline]
    pub(super) fn sync<Md: SmoothMode<NY, NZ, NP>, const N: usize>(
        it: &Esdirk<'_, Md, S, NY, NZ, NP, N>,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) {
        sol.t = it.t();
        sol.y = *it.y();
        sol.z = *it.z();
        let (sy, sz) = it.sensitivities();
        sol.sy = *sy;
        sol.sz = *sz;
    }

    /// Bookkeeping after an accepted step from `tn` of size `h`: summary and cost quadrature.
    #[inline]
    pub(super) fn after_step<'m, const N: usize>(
        &mut self,
        it: &ModeIntegrator<'_, 'm, M, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'m, M, NY, NZ, NP>,
        tn: f64,
        h: f64,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) {
        Self::sync(it, sol);
        let (ys, zs, _) = it.stages();
        let sens = if self.fsa {
            let (sy, sz) = it.stage_sensitivities();
            let (dt, dh) = it.step_time_sensitivities();
            Some(StageSensitivities { sy, sz, dt, dh })
        } else {
            None
        };
        let (model, tableau, p) = (self.model, self.tableau, &self.problem.p);
        let (cost, gradient) = (&mut sol.cost, &mut sol.cost_gradient);
        let objective = (model, self.objective);
        add_integral_step(
            objective, adapter, tableau, tn, h, p, ys, zs, sens, cost, gradient,
        );
        if !self.costs.is_empty() {
            self.named_integral_steps(it, adapter, tn, h);
        }
    }

    /// The quadrature of each named integral cost over the step just accepted (`solve_costs`).
    /// Out of line: a solve of the objective alone keeps [`Self::after_step`] small.
    #[inline(never)]
    fn named_integral_steps<'m, const N: usize>(
        &mut self,
        it: &ModeIntegrator<'_, 'm, M, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'m, M, NY, NZ, NP>,
        tn: f64,
        h: f64,
    ) {
        let (ys, zs, _) = it.stages();
        let sens = self.fsa.then(|| {
            let (sy, sz) = it.stage_sensitivities();
            let (dt, dh) = it.step_time_sensitivities();
            StageSensitivities { sy, sz, dt, dh }
        });
        let (model, tableau, p) = (self.model, self.tableau, &self.problem.p);
        for (k, entry) in self.named_costs(CostKind::Integral) {
            let (cost, gradient) = (&mut entry.value, &mut entry.gradient);
            let objective = (model, Objective::Cost(k));
            add_integral_step(
                objective, adapter, tableau, tn, h, p, ys, zs, sens, cost, gradient,
            );
        }
    }

    /// The entries of `solve_costs` of the named costs of kind `kind`, with their indices
    /// (none when the solve does not compute them).
    fn named_costs(&mut self, kind: CostKind) -> impl Iterator<Item = (usize, &mut CostValue<NP>)> {
        let entries = self.costs.iter_mut().zip(M::COSTS).enumerate();
        entries
            .filter(move |(_, (_, info))| info.kind == kind)
            .map(|(k, (entry, _))| (k, entry))
    }

    /// Records all samples due at the current time, with the sampled cost.
    #[inline]
    pub(super) fn record_samples<'m, const N: usize>(
        &mut self,
        it: &ModeIntegrator<'_, 'm, M, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'m, M, NY, NZ, NP>,
        outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) -> Result<(), SolveError> {
        let pr = self.problem;
        let t = it.t();
        while let Some(&ts) = pr.sample_times.get(self.next_sample) {
            if ts > t {
                break;
            }
            let Some(slot) = outputs.samples.get_mut(sol.n_samples) else {
                return Err(SolveError::StorageFull {
                    t,
                    mode: adapter.mode(),
                    capacity: outputs.samples.len(),
                });
            };
            let (sy, sz) = it.sensitivities();
            *slot = Sample {
                t,
                mode: adapter.mode(),
                y: *it.y(),
                z: *it.z(),
                sy: *sy,
                sz: *sz,
            };
            sol.n_samples += 1;
            let datum = pr.sample_data.get(self.next_sample).copied().unwrap_or(0.0);
            let at = adapter.point(t, it.y(), it.z(), &pr.p);
            let (model, fsa, memory) = (self.model, self.fsa, adapter.memory_sensitivities());
            let add = |objective: Objective, cost: &mut f64, gradient: &mut [f64; NP]| {
                *cost += objective.sampled(model, &at, datum);
                if fsa {
                    let mut d = ScalarPartials::ZERO;
                    objective.sampled_partials(model, &at, datum, &mut d);
                    add_scalar_gradient(&d, sy, sz, memory.0, memory.1, 1.0, gradient);
                }
            };
            add(self.objective, &mut sol.cost, &mut sol.cost_gradient);
            for (k, entry) in self.named_costs(CostKind::Sampled) {
                add(Objective::Cost(k), &mut entry.value, &mut entry.gradient);
            }
            self.next_sample += 1;
        }
        Ok(())
    }

    /// Appends `entry` to the step log, if one is kept.
    #[inline]
    pub(super) fn log_step(
        &mut self,
        entry: LoggedStep,
        t: f64,
        mode: usize,
        outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) -> Result<(), SolveError> {
        if let Some(log) = outputs.steps.as_deref_mut() {
            let Some(slot) = log.get_mut(sol.n_logged_steps) else {
                return Err(SolveError::StorageFull {
                    t,
                    mode,
                    capacity: log.len(),
                });
            };
            *slot = entry;
            sol.n_logged_steps += 1;
        }
        Ok(())
    }

    /// Appends `record` to the event log, if one is kept, and counts it.
    /// At the start of an index-2 segment, which was put on its constraint
    /// (`newton::project_onto_constraint`): the event that entered it records that state as its
    /// `y_after`, the state the solve continues from (the reset's value differs from it by the
    /// projection's change, at most `√rtol` relative). Nothing in other modes.
    pub(super) fn note_projected_entry<'m, const N: usize>(
        it: &ModeIntegrator<'_, 'm, M, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'m, M, NY, NZ, NP>,
        outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
        sol: &HybridSolution<NY, NZ, NP>,
    ) {
        if !adapter.is_index2() {
            return;
        }
        let (Some(log), Some(last)) = (outputs.events.as_deref_mut(), sol.n_events.checked_sub(1))
        else {
            return;
        };
        if let Some(record) = log.get_mut(last) {
            if record.t == it.t() && record.to == adapter.mode() {
                record.y_after = *it.y();
            }
        }
    }

    pub(super) fn log_event(
        &mut self,
        record: EventRecord<NY, NP>,
        outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) -> Result<(), SolveError> {
        if let Some(log) = outputs.events.as_deref_mut() {
            let Some(slot) = log.get_mut(sol.n_events) else {
                return Err(SolveError::StorageFull {
                    t: record.t,
                    mode: record.from,
                    capacity: log.len(),
                });
            };
            *slot = record;
        }
        sol.n_events += 1;
        Ok(())
    }

    /// Adds the terminal cost `φ(t_f)` and its gradient (with the memory sensitivities
    /// `(s*, w*)` of the last mode, and `φ_t ∂t_f/∂p` for a final time `end_shift = ∂t_f/∂p`
    /// that moves: the stop of a terminal guard), and checks that cost and gradient are finite.
    pub(super) fn terminal_cost(
        &mut self,
        memory_sy: &[[f64; NP]; NY],
        memory_sz: &[[f64; NP]; NZ],
        end_shift: &[f64; NP],
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) -> Result<(), SolveError> {
        let adapter = ModeAdapter::new(self.model, sol.mode, sol.memory, *memory_sy, *memory_sz);
        let at = adapter.point(sol.t, &sol.y, &sol.z, &self.problem.p);
        let (model, fsa, sy, sz) = (self.model, self.fsa, sol.sy, sol.sz);
        let add = |objective: Objective, cost: &mut f64, gradient: &mut [f64; NP]| {
            *cost += objective.terminal(model, &at);
            if fsa {
                let mut d = ScalarPartials::ZERO;
                objective.terminal_partials(model, &at, &mut d);
                add_scalar_gradient(&d, &sy, &sz, memory_sy, memory_sz, 1.0, gradient);
                for (gradient, shift) in gradient.iter_mut().zip(end_shift) {
                    *gradient += d.t * shift;
                }
            }
        };
        add(self.objective, &mut sol.cost, &mut sol.cost_gradient);
        for (k, entry) in self.named_costs(CostKind::Terminal) {
            add(Objective::Cost(k), &mut entry.value, &mut entry.gradient);
        }
        if !sol.cost.is_finite() || !all_finite(&sol.cost_gradient) {
            return Err(SolveError::NonFiniteValue {
                t: sol.t,
                mode: sol.mode,
                what: "cost",
            });
        }
        Ok(())
    }
}
