//! The transpose of one step's derivative (module docs of `fsa/`, "Its derivative" and "Step
//! length"): reverse mode of exactly the linear map the forward sensitivities apply, stage by
//! stage in reverse, with the transposed stage solves.
//!
//! Forward, for stage `i ≥ 2` (Christensen, Cantisani & Jørgensen, Eqs. 17–19, with the exact
//! stage Jacobians; Kristensen et al. 2005, Eqs. 2–3 for the DAE rows):
//!
//! ```text
//! (a) dψ_i = dy_n + Σ_{j<i} a_ij (dH F_j + H dF_j)
//! (b) dT_i = dt_n + c_i dH
//! (c) r_i  = [dψ_i + γ dH F_i + Hγ (f_t dT_i + f_p dp + f_{y*} dy* + f_{z*} dz*);
//!             −(g_t dT_i + g_p dp + g_{y*} dy* + g_{z*} dz*)]
//! (d) [dY_i; dZ_i] = J_i⁻¹ r_i,   J_i = [I − Hγ f_y, −Hγ f_z; g_y, g_z] at (T_i, Y_i, Z_i)
//! (e) dF_i = (dY_i − dψ_i − γ dH F_i)/(Hγ)
//! ```
//!
//! and stage 1: `dY_1 = dy_n`, `dZ_1 = dz_n`, `dF_1 = f_y dy_n + f_z dz_n + f_t dt_n + f_p dp +
//! f_{y*} dy* + f_{z*} dz*`; output `dy_{n+1} = dY_S`, `dz_{n+1} = dZ_S` (stiff accuracy),
//! `dt_{n+1} = dt_n + dH`; and `dH = 0` (`Fixed`) or `dH = −dt_n` (`Landing`).
//!
//! Reverse, with the adjoints `(Ȳ_i, Z̄_i, F̄_i)` of the stage quantities, `H̄` of the length and
//! `t̄_n` of the start time: `Ȳ_S += ȳ`, `Z̄_S += z̄`, `t̄_n += t̄`, `H̄ += t̄`; then for
//! `i = S..2`
//!
//! ```text
//! (e)ᵀ Ȳ_i += F̄_i/(Hγ),  ψ̄_i = −F̄_i/(Hγ),  H̄ −= F_i·F̄_i/H
//! (d)ᵀ J_iᵀ [r̄_y; r̄_g] = [Ȳ_i; Z̄_i]
//! (c)ᵀ ψ̄_i += r̄_y,  H̄ += γ F_i·r̄_y,  T̄_i = Hγ f_t·r̄_y − g_t·r̄_g,
//!      (p̄, ȳ*, z̄*) += Hγ (f_p, f_{y*}, f_{z*})ᵀ r̄_y − (g_p, g_{y*}, g_{z*})ᵀ r̄_g
//! (b)ᵀ t̄_n += T̄_i,  H̄ += c_i T̄_i
//! (a)ᵀ ȳ_n += ψ̄_i,  H̄ += Σ_{j<i} a_ij F_j·ψ̄_i,  F̄_j += H a_ij ψ̄_i
//! ```
//!
//! and stage 1: `ȳ_n += Ȳ_1 + f_yᵀ F̄_1`, `z̄_n = Z̄_1 + f_zᵀ F̄_1`, `t̄_n += f_t·F̄_1`,
//! `(p̄, ȳ*, z̄*) += (f_p, f_{y*}, f_{z*})ᵀ F̄_1`; finally `t̄_n −= H̄` for a `Landing` step. The
//! products `(f, g)_{(y, z, p)}ᵀ (λ, μ)` are the model's [`AdjointProducts`]; the time terms
//! are computed only where `t_n` or `H` depends on the parameters (never in a solve without
//! events, whose grid is fixed).
#![allow(clippy::needless_range_loop)] // index loops over const sizes mirror the formulas

use super::index2::{hidden_constraint_transpose, is_index2, PointAdjoint};
use super::{AdjointStats, Costate};
use crate::adjoint::cost::integral_seeds;
use crate::adjoint::tape::TapeStep;
use crate::error::SolveError;
use crate::linalg::all_finite;
use crate::linalg::{Lu, MatrixStore, StageFactors};
use crate::model::{AdjointProducts, Memory, ModeJacobian, Objective, Point};
use crate::step::StepLength;
use crate::tableau::Tableau;

/// The factorized stage matrix of the last stage transposed, kept for reuse by the next stages
/// and steps when the mode's Jacobian is constant (then every `J_i` of a step, and of every
/// step of the same length in the same mode and memory, is the same matrix, as the forward
/// sensitivities use it; `fsa/step.rs`), and the Jacobian it was built from, kept for the
/// steps of other lengths (a step of a new length refactorizes without evaluating and
/// clearing an `N × N` Jacobian again: for the 1,000-state rod with `store = sparse` that
/// clearing was a fifth of the adjoint gradient).
pub(crate) struct StageLu<const NY: usize, const NZ: usize, const N: usize, St: MatrixStore> {
    lu: Lu<N, St>,
    /// `(mode, memory, Hγ)` of the matrix in `lu`, if it is reusable.
    key: Option<(usize, Memory<NY, NZ>, f64)>,
    /// The Jacobian of the last factorization.
    jac: ModeJacobian<NY, NZ, St>,
    /// `(mode, memory)` of `jac`, if it is reusable (a constant Jacobian).
    jac_key: Option<(usize, Memory<NY, NZ>)>,
}

impl<const NY: usize, const NZ: usize, const N: usize, St: MatrixStore> StageLu<NY, NZ, N, St> {
    /// Nothing factorized yet.
    pub(crate) fn new() -> Self {
        StageLu {
            lu: StageFactors::identity(),
            key: None,
            jac: ModeJacobian::zeroed(),
            jac_key: None,
        }
    }
}

/// The adjoints of a step's stage values `Ȳ_i, Z̄_i`, of its length `H̄` and start time `t̄_n`,
/// as the step's outputs and cost quadrature seed them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StageSeeds<const S: usize, const NY: usize, const NZ: usize> {
    pub y: [[f64; NY]; S],
    pub z: [[f64; NZ]; S],
    pub h: f64,
    pub t: f64,
}

impl<const S: usize, const NY: usize, const NZ: usize> StageSeeds<S, NY, NZ> {
    pub(crate) const ZERO: Self = StageSeeds {
        y: [[0.0; NY]; S],
        z: [[0.0; NZ]; S],
        h: 0.0,
        t: 0.0,
    };
}

/// The reverse sweep through the stages of one step (`Sweep::stages`): what every stage reads
/// and the adjoints accumulated so far.
struct StageReverse<'s, const S: usize, const NY: usize, const NZ: usize> {
    step: &'s TapeStep<S, NY, NZ>,
    /// `Hγ`.
    hg: f64,
    /// Whether `H̄` is needed (`H` depends on `p` through the step map).
    need_h: bool,
    /// Whether `T̄_i` is needed (`t_n` or `H` depends on `p`).
    need_t: bool,
    /// Whether the mode reads its memory.
    uses_memory: bool,
    /// Whether the mode's Jacobian is constant (stage matrices reusable).
    constant: bool,
    /// `Ȳ_i`.
    ybar: [[f64; NY]; S],
    /// `Z̄_i`.
    zbar: [[f64; NZ]; S],
    /// `F̄_i`.
    fbar: [[f64; NY]; S],
    /// `H̄`.
    hbar: f64,
    /// `t̄_n`.
    tbar: f64,
    /// `ȳ_n`, from `(a)ᵀ`.
    ybar_n: [f64; NY],
}

/// What the backward pass of one solve shares between its steps.
pub(crate) struct Sweep<'a, M, const S: usize, const NP: usize> {
    pub model: &'a M,
    pub tableau: &'a Tableau<S>,
    pub p: &'a [f64; NP],
    /// The cost whose gradient the pass computes (`model/costs.rs`).
    pub objective: Objective,
}

impl<M, const S: usize, const NP: usize> Sweep<'_, M, S, NP> {
    /// Transposes the step `step` (module docs), not the step to an event (`backward.rs`): on
    /// entry `costate` holds the adjoints of `(y_{n+1}, z_{n+1}, t_{n+1})`, on return those of
    /// `(y_n, z_n, t_n)`, with the step's contributions (and those of its integral-cost
    /// quadrature) added to `p̄` and the memory accumulators. `track_time`: whether `t_n`
    /// depends on the parameters.
    pub(crate) fn step<const NY: usize, const NZ: usize, const N: usize>(
        &self,
        step: &TapeStep<S, NY, NZ>,
        track_time: bool,
        costate: &mut Costate<NY, NZ, NP>,
        cache: &mut StageLu<NY, NZ, N, M::Store>,
        stats: &mut AdjointStats,
    ) -> Result<(), SolveError>
    where
        M: AdjointProducts<NY, NZ, NP>,
    {
        // H̄ is needed where H depends on p; T̄_i (and so f_t, g_t) also where t_n does.
        let need_h = match step.length {
            StepLength::Fixed => false,
            StepLength::Landing => track_time,
            StepLength::Event => {
                return Err(SolveError::Internal {
                    t: step.t,
                    mode: step.mode,
                    what: "a step to an event is transposed with its event",
                })
            }
        };
        let need_t = track_time || need_h;
        if is_index2::<M, NY, NZ, NP>(step.mode) {
            // z_{n+1} from the hidden constraint, not Z_S (`index2.rs`).
            let end = Point {
                t: step.t + step.h,
                y: &step.ys[S - 1],
                z: &step.z_end,
                p: self.p,
                memory: &step.memory,
            };
            let adjoint = PointAdjoint {
                y: &mut costate.y,
                t: &mut costate.t,
                p: &mut costate.p,
            };
            hidden_constraint_transpose(self.model, step.mode, &end, &mut costate.z, adjoint)?;
            stats.jacobian_evals += 1;
            stats.lu_factorizations += 1;
            stats.lu_solves += 1;
        }
        let mut seeds = StageSeeds::ZERO;
        integral_seeds(
            self,
            step,
            need_h,
            need_t,
            &mut seeds.y,
            &mut seeds.z,
            &mut seeds.h,
            &mut seeds.t,
            costate,
            stats,
        );
        // Stiff accuracy and t_{n+1} = t_n + H.
        for c in 0..NY {
            seeds.y[S - 1][c] += costate.y[c];
        }
        for c in 0..NZ {
            seeds.z[S - 1][c] += costate.z[c];
        }
        seeds.t += costate.t;
        seeds.h += costate.t;
        self.stages(step, track_time, need_h, &seeds, costate, cache, stats)
    }

    /// The stage chain of `step` transposed (module docs, from `(e)ᵀ` of stage `S` on), with
    /// the adjoints `seeds` of its stage values, `H` and `t_n` (cost quadrature and outputs
    /// already added): sets `costate.y, z, t` to the adjoints of `(y_n, z_n, t_n)` and adds to
    /// `p̄` and the memory accumulators. `need_h`: whether `H` depends on the parameters
    /// through the step map (a `Landing` step from a shifted start; never the step to an event,
    /// whose length is handled by the transposed root condition, `jump.rs`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn stages<const NY: usize, const NZ: usize, const N: usize>(
        &self,
        step: &TapeStep<S, NY, NZ>,
        track_time: bool,
        need_h: bool,
        seeds: &StageSeeds<S, NY, NZ>,
        costate: &mut Costate<NY, NZ, NP>,
        cache: &mut StageLu<NY, NZ, N, M::Store>,
        stats: &mut AdjointStats,
    ) -> Result<(), SolveError>
    where
        M: AdjointProducts<NY, NZ, NP>,
    {
        let info = M::MODES.get(step.mode);
        let mut rev = StageReverse {
            step,
            hg: step.h * self.tableau.gamma,
            need_h,
            need_t: track_time || need_h,
            uses_memory: info.is_some_and(|m| m.uses_memory),
            constant: info.is_some_and(|m| m.constant_jacobian),
            ybar: seeds.y,
            zbar: seeds.z,
            fbar: [[0.0; NY]; S],
            hbar: seeds.h,
            tbar: seeds.t,
            ybar_n: [0.0; NY],
        };
        for i in (1..S).rev() {
            self.implicit_stage(i, &mut rev, costate, cache, stats)?;
        }
        self.first_stage(&mut rev, costate, stats);
        // Step length: dH = 0 (Fixed, and the event step here), dH = −dt_n (Landing).
        if need_h && step.length == StepLength::Landing {
            rev.tbar -= rev.hbar;
        }
        costate.t = if track_time { rev.tbar } else { 0.0 };
        if !all_finite(&costate.y)
            || !all_finite(&costate.z)
            || !all_finite(&costate.p)
            || !costate.t.is_finite()
        {
            return Err(SolveError::NonFiniteValue {
                t: step.t,
                mode: step.mode,
                what: "adjoint",
            });
        }
        Ok(())
    }

    /// Stage `i ≥ 2` of the stage chain transposed (module docs, `(e)ᵀ` to `(a)ᵀ`): reads and
    /// updates the adjoints in `rev`, adds to `p̄` and the memory accumulators.
    fn implicit_stage<const NY: usize, const NZ: usize, const N: usize>(
        &self,
        i: usize,
        rev: &mut StageReverse<'_, S, NY, NZ>,
        costate: &mut Costate<NY, NZ, NP>,
        cache: &mut StageLu<NY, NZ, N, M::Store>,
        stats: &mut AdjointStats,
    ) -> Result<(), SolveError>
    where
        M: AdjointProducts<NY, NZ, NP>,
    {
        let (tab, step) = (self.tableau, rev.step);
        let (h, hg) = (step.h, rev.hg);
        let at = Point {
            t: step.t + tab.c[i] * h,
            y: &step.ys[i],
            z: &step.zs[i],
            p: self.p,
            memory: &step.memory,
        };
        // (e)ᵀ
        let mut psibar = [0.0; NY];
        // A step of length zero (an event at a mode's entry) has `F̄_i = H (…) = 0`: its stage
        // derivatives enter no later stage.
        if hg != 0.0 {
            for c in 0..NY {
                let v = rev.fbar[i][c] / hg;
                rev.ybar[i][c] += v;
                psibar[c] = -v;
                if rev.need_h {
                    rev.hbar -= step.fs[i][c] * rev.fbar[i][c] / h;
                }
            }
        }
        // (d)ᵀ
        let mut r = [0.0; N];
        r[..NY].copy_from_slice(&rev.ybar[i]);
        r[NY..].copy_from_slice(&rev.zbar[i]);
        self.transposed_stage_solve(step, &at, rev.constant, hg, &mut r, cache, stats)?;
        let mut lambda = [0.0; NY];
        let mut mu = [0.0; NZ];
        for c in 0..NY {
            // (c)ᵀ
            psibar[c] += r[c];
            if rev.need_h {
                rev.hbar += tab.gamma * step.fs[i][c] * r[c];
            }
            lambda[c] = hg * r[c];
        }
        for c in 0..NZ {
            mu[c] = -r[NY + c];
        }
        if rev.need_t {
            // T̄_i = Hγ f_t·r̄_y − g_t·r̄_g = f_t·λ + g_t·μ
            let ti = self.time_product(step.mode, &at, &lambda, &mu);
            rev.tbar += ti;
            rev.hbar += tab.c[i] * ti;
        }
        let uses_memory = rev.uses_memory;
        self.source_products(step.mode, uses_memory, &at, &lambda, &mu, costate, stats);
        // (a)ᵀ
        for c in 0..NY {
            rev.ybar_n[c] += psibar[c];
        }
        for j in 0..i {
            let a = tab.a[i][j];
            if a == 0.0 {
                continue;
            }
            for c in 0..NY {
                if rev.need_h {
                    rev.hbar += a * step.fs[j][c] * psibar[c];
                }
                rev.fbar[j][c] += h * a * psibar[c];
            }
        }
        Ok(())
    }

    /// Stage 1 of the stage chain transposed (explicit, `c_1 = 0`; module docs): sets
    /// `costate.y, z` to the adjoints of `(y_n, z_n)`, adds to `p̄`, the memory accumulators
    /// and `t̄_n`.
    fn first_stage<const NY: usize, const NZ: usize>(
        &self,
        rev: &mut StageReverse<'_, S, NY, NZ>,
        costate: &mut Costate<NY, NZ, NP>,
        stats: &mut AdjointStats,
    ) where
        M: AdjointProducts<NY, NZ, NP>,
    {
        let step = rev.step;
        let mode = step.mode;
        let at = Point {
            t: step.t,
            y: &step.ys[0],
            z: &step.zs[0],
            p: self.p,
            memory: &step.memory,
        };
        let mut out_y = [0.0; NY];
        let mut out_z = [0.0; NZ];
        let mut out_p = [0.0; NP];
        let fbar = &rev.fbar[0];
        self.model.adjoint_products(
            mode, &at, fbar, &[0.0; NZ], &mut out_y, &mut out_z, &mut out_p,
        );
        stats.adjoint_products += 1;
        for c in 0..NP {
            costate.p[c] += out_p[c];
        }
        if rev.uses_memory {
            memory_products(self.model, mode, &at, fbar, &[0.0; NZ], costate);
        }
        if rev.need_t {
            rev.tbar += self.time_product(mode, &at, fbar, &[0.0; NZ]);
        }
        for c in 0..NY {
            costate.y[c] = rev.ybar_n[c] + rev.ybar[0][c] + out_y[c];
        }
        for c in 0..NZ {
            costate.z[c] = rev.zbar[0][c] + out_z[c];
        }
    }

    /// Solves `J_iᵀ x = r` in place with the stage matrix at the stage point `at` (module docs,
    /// (d)ᵀ): factorized afresh from the Jacobian at the stored stage point, or reused from
    /// `cache` for a mode with a constant Jacobian.
    #[allow(clippy::too_many_arguments)]
    fn transposed_stage_solve<const NY: usize, const NZ: usize, const N: usize>(
        &self,
        step: &TapeStep<S, NY, NZ>,
        at: &Point<'_, NY, NZ, NP>,
        constant: bool,
        hg: f64,
        r: &mut [f64; N],
        cache: &mut StageLu<NY, NZ, N, M::Store>,
        stats: &mut AdjointStats,
    ) -> Result<(), SolveError>
    where
        M: AdjointProducts<NY, NZ, NP>,
    {
        let key = (step.mode, step.memory, hg);
        if !(constant && cache.key == Some(key)) {
            cache.key = None;
            let jac_key = (step.mode, step.memory);
            if !(constant && cache.jac_key == Some(jac_key)) {
                cache.jac_key = None;
                cache.jac.clear();
                self.model.jacobian(step.mode, at, &mut cache.jac);
                stats.jacobian_evals += 1;
                if constant {
                    cache.jac_key = Some(jac_key);
                }
            }
            let nonzeros = self.model.jacobian_nonzeros(step.mode);
            cache
                .jac
                .refactor_stage_matrix(hg, &mut cache.lu, nonzeros)
                .map_err(|e| SolveError::from_lu(e, at.t, step.mode, "adjoint stage matrix"))?;
            stats.lu_factorizations += 1;
            if constant {
                cache.key = Some(key);
            }
        }
        cache.lu.solve_transposed(r);
        stats.lu_solves += 1;
        Ok(())
    }

    /// `f_t·λ + g_t·μ` at `at`.
    fn time_product<const NY: usize, const NZ: usize>(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NP>,
        lambda: &[f64; NY],
        mu: &[f64; NZ],
    ) -> f64
    where
        M: AdjointProducts<NY, NZ, NP>,
    {
        let mut ft = [0.0; NY];
        let mut gt = [0.0; NZ];
        self.model.time_partials(mode, at, &mut ft, &mut gt);
        let mut v = 0.0;
        for c in 0..NY {
            v += ft[c] * lambda[c];
        }
        for c in 0..NZ {
            v += gt[c] * mu[c];
        }
        v
    }

    /// `p̄ += f_pᵀ λ + g_pᵀ μ` and, in a mode that reads the memory,
    /// `ȳ* += f_{y*}ᵀ λ + g_{y*}ᵀ μ`, `z̄* += f_{z*}ᵀ λ + g_{z*}ᵀ μ`.
    #[allow(clippy::too_many_arguments)]
    fn source_products<const NY: usize, const NZ: usize>(
        &self,
        mode: usize,
        uses_memory: bool,
        at: &Point<'_, NY, NZ, NP>,
        lambda: &[f64; NY],
        mu: &[f64; NZ],
        costate: &mut Costate<NY, NZ, NP>,
        stats: &mut AdjointStats,
    ) where
        M: AdjointProducts<NY, NZ, NP>,
    {
        let mut out_y = [0.0; NY];
        let mut out_z = [0.0; NZ];
        let mut out_p = [0.0; NP];
        self.model
            .adjoint_products(mode, at, lambda, mu, &mut out_y, &mut out_z, &mut out_p);
        stats.adjoint_products += 1;
        for c in 0..NP {
            costate.p[c] += out_p[c];
        }
        if uses_memory {
            memory_products(self.model, mode, at, lambda, mu, costate);
        }
    }
}

/// `ȳ* += f_{y*}ᵀ λ + g_{y*}ᵀ μ`, `z̄* += f_{z*}ᵀ λ + g_{z*}ᵀ μ` (the memory terms of the
/// sources, `model/adapter.rs`, transposed), with the memory Jacobian at `at`.
pub(crate) fn memory_products<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    mode: usize,
    at: &Point<'_, NY, NZ, NP>,
    lambda: &[f64; NY],
    mu: &[f64; NZ],
    costate: &mut Costate<NY, NZ, NP>,
) where
    M: AdjointProducts<NY, NZ, NP>,
{
    let mut mj = ModeJacobian::zeroed();
    model.memory_jacobian(mode, at, &mut mj);
    let (memory_y, memory_z) = mj.transposed_times(lambda, mu);
    for (out, v) in costate.memory_y.iter_mut().zip(memory_y) {
        *out += v;
    }
    for (out, v) in costate.memory_z.iter_mut().zip(memory_z) {
        *out += v;
    }
}
