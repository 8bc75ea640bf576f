//! One mode of a [`HybridModel`] with its memory, seen as a [`SmoothMode`] by the ESDIRK
//! integrator.
//!
//! Inside a mode the memory `(y*, z*)` is constant, so the mode is the smooth DAE
//! `y' = f(t, y, z, p, m)`, `0 = g(t, y, z, p, m)`. The memory depends on the parameters
//! (through the state at the last mode entry), with constant total derivatives
//! `s* = dy*/dp`, `w* = dz*/dp`: the total derivatives `s⁺ + ẏ⁺τ` of `y* = y(t_i(p)⁺)`, not
//! Serban & Recuero's (2019) literal Eq. 25 `s* = s⁺` with a fixed-time `s⁺`, which holds only
//! when `ẏ⁺τ = 0` (the hybrid driver's `s⁺` is already the total derivative at the moving
//! switch, `fsa/jump.rs`).
//! The sensitivity equations inside the mode are
//! (Serban & Recuero 2019, Eq. 25a–b, with those total `s*, w*`)
//!
//! ```text
//! ṡ = f_y s + f_z w + (f_p + f_{y*} s* + f_{z*} w*),   0 = g_y s + g_z w + (g_p + g_{y*} s* + g_{z*} w*)
//! ```
//!
//! i.e. those of a memory-free mode whose parameter Jacobians are the bracketed totals. This
//! adapter returns those totals from [`SmoothMode::parameter_jacobian`], so the existing IND
//! sensitivities (`fsa/`) carry the memory terms as extra sources unchanged.

use super::{
    g_partials, ConditionPartials, HybridModel, MatrixStore, Memory, ModeJacobian, Point,
    SmoothMode,
};

/// A mode of a hybrid model with fixed memory and memory sensitivities.
#[derive(Clone, Copy, Debug)]
pub struct ModeAdapter<'a, M, const NY: usize, const NZ: usize, const NP: usize> {
    model: &'a M,
    mode: usize,
    uses_memory: bool,
    memory: Memory<NY, NZ>,
    /// `s* = dy*/dp` (total derivative).
    memory_sy: [[f64; NP]; NY],
    /// `w* = dz*/dp` (total derivative).
    memory_sz: [[f64; NP]; NZ],
}

impl<'a, M, const NY: usize, const NZ: usize, const NP: usize> ModeAdapter<'a, M, NY, NZ, NP>
where
    M: HybridModel<NY, NZ, NP>,
{
    /// Mode `mode` of `model` with memory `memory` and its sensitivities `(s*, w*)`.
    pub fn new(
        model: &'a M,
        mode: usize,
        memory: Memory<NY, NZ>,
        memory_sy: [[f64; NP]; NY],
        memory_sz: [[f64; NP]; NZ],
    ) -> Self {
        let uses_memory = M::MODES.get(mode).is_some_and(|m| m.uses_memory);
        ModeAdapter {
            model,
            mode,
            uses_memory,
            memory,
            memory_sy,
            memory_sz,
        }
    }

    /// The evaluation point `(t, y, z, p, m)`.
    pub fn point<'b>(
        &'b self,
        t: f64,
        y: &'b [f64; NY],
        z: &'b [f64; NZ],
        p: &'b [f64; NP],
    ) -> Point<'b, NY, NZ, NP> {
        Point {
            t,
            y,
            z,
            p,
            memory: &self.memory,
        }
    }

    /// The memory.
    pub fn memory(&self) -> &Memory<NY, NZ> {
        &self.memory
    }

    /// `(s*, w*)`.
    #[allow(clippy::type_complexity)]
    pub fn memory_sensitivities(&self) -> (&[[f64; NP]; NY], &[[f64; NP]; NZ]) {
        (&self.memory_sy, &self.memory_sz)
    }

    /// The model.
    pub(crate) fn model(&self) -> &'a M {
        self.model
    }

    /// The mode index.
    pub fn mode(&self) -> usize {
        self.mode
    }
}

impl<M, const NY: usize, const NZ: usize, const NP: usize> SmoothMode<NY, NZ, NP>
    for ModeAdapter<'_, M, NY, NZ, NP>
where
    M: HybridModel<NY, NZ, NP>,
{
    type Store = M::Store;

    fn f(&self, t: f64, y: &[f64; NY], z: &[f64; NZ], p: &[f64; NP], out: &mut [f64; NY]) {
        let mut g = [0.0; NZ];
        self.model
            .residual(self.mode, &self.point(t, y, z, p), out, &mut g);
    }

    fn g(&self, t: f64, y: &[f64; NY], z: &[f64; NZ], p: &[f64; NP], out: &mut [f64; NZ]) {
        let mut f = [0.0; NY];
        self.model
            .residual(self.mode, &self.point(t, y, z, p), &mut f, out);
    }

    fn residual(
        &self,
        t: f64,
        y: &[f64; NY],
        z: &[f64; NZ],
        p: &[f64; NP],
        f: &mut [f64; NY],
        g: &mut [f64; NZ],
    ) {
        self.model
            .residual(self.mode, &self.point(t, y, z, p), f, g);
    }

    fn jacobian_is_constant(&self) -> bool {
        M::MODES
            .get(self.mode)
            .is_some_and(|info| info.constant_jacobian)
    }

    fn jacobian_nonzeros(&self) -> Option<&'static [(usize, usize)]> {
        self.model.jacobian_nonzeros(self.mode)
    }

    fn jacobian(
        &self,
        t: f64,
        y: &[f64; NY],
        z: &[f64; NZ],
        p: &[f64; NP],
        jac: &mut ModeJacobian<NY, NZ, M::Store>,
    ) {
        self.model.jacobian(self.mode, &self.point(t, y, z, p), jac);
    }

    /// `f_p + f_{y*} s* + f_{z*} w*` and `g_p + g_{y*} s* + g_{z*} w*` (module docs).
    fn parameter_jacobian(
        &self,
        t: f64,
        y: &[f64; NY],
        z: &[f64; NZ],
        p: &[f64; NP],
        fp: &mut [[f64; NP]; NY],
        gp: &mut [[f64; NP]; NZ],
    ) {
        let at = self.point(t, y, z, p);
        self.model.parameter_jacobian(self.mode, &at, fp, gp);
        if !self.uses_memory {
            return;
        }
        let mut mj = ModeJacobian::zeroed();
        self.model.memory_jacobian(self.mode, &at, &mut mj);
        add_memory_terms(&mj, &self.memory_sy, &self.memory_sz, fp, gp);
    }

    fn has_integral_cost(&self) -> bool {
        M::HAS_INTEGRAL_COST
    }

    fn is_index2(&self) -> bool {
        M::MODES.get(self.mode).is_some_and(|info| info.index2)
    }

    fn is_constraint(&self, row: usize) -> bool {
        self.model.is_constraint(self.mode, row)
    }

    /// `g`, or in an index-2 mode [`HybridModel::hidden_constraint`].
    fn condition(&self, t: f64, y: &[f64; NY], z: &[f64; NZ], p: &[f64; NP], out: &mut [f64; NZ]) {
        if self.is_index2() {
            self.model
                .hidden_constraint(self.mode, &self.point(t, y, z, p), out);
        } else {
            self.g(t, y, z, p, out);
        }
    }

    /// `g`'s partials (with the memory's terms in `c_p`), or in an index-2 mode those of
    /// [`HybridModel::hidden_constraint`] (index-2 modes do not read the memory).
    fn condition_partials(
        &self,
        t: f64,
        y: &[f64; NY],
        z: &[f64; NZ],
        p: &[f64; NP],
        out: &mut ConditionPartials<NY, NZ, NP>,
    ) {
        if self.is_index2() {
            let at = self.point(t, y, z, p);
            self.model.hidden_constraint_partials(self.mode, &at, out);
        } else {
            g_partials(self, t, y, z, p, out);
        }
    }

    /// [`HybridModel::integral_cost`] of the mode, with its memory: the sum of the integral
    /// costs, whatever the run's objective (`model/costs.rs`).
    fn integral_cost(&self, t: f64, y: &[f64; NY], z: &[f64; NZ], p: &[f64; NP]) -> f64 {
        self.model.integral_cost(self.mode, &self.point(t, y, z, p))
    }

    fn time_partials(
        &self,
        t: f64,
        y: &[f64; NY],
        z: &[f64; NZ],
        p: &[f64; NP],
        ft: &mut [f64; NY],
        gt: &mut [f64; NZ],
    ) {
        self.model
            .time_partials(self.mode, &self.point(t, y, z, p), ft, gt);
    }
}

/// `fp += f_{y*} s* + f_{z*} w*`, `gp += g_{y*} s* + g_{z*} w*` with the memory Jacobian `mj`
/// (blocks `fy, fz, gy, gz` hold `∂f/∂y*, ∂f/∂z*, ∂g/∂y*, ∂g/∂z*`). Out of line: modes
/// without memory keep a small, inlined `parameter_jacobian`.
#[inline(never)]
pub fn add_memory_terms<const NY: usize, const NZ: usize, const NP: usize, S: MatrixStore>(
    mj: &ModeJacobian<NY, NZ, S>,
    sy: &[[f64; NP]; NY],
    sz: &[[f64; NP]; NZ],
    fp: &mut [[f64; NP]; NY],
    gp: &mut [[f64; NP]; NZ],
) {
    let (mut f, mut g) = ([[0.0; NP]; NY], [[0.0; NP]; NZ]);
    mj.add_f_times(sy, sz, &mut f);
    mj.add_g_times(sy, sz, &mut g);
    for (out, v) in fp.iter_mut().flatten().zip(f.iter().flatten()) {
        *out += v;
    }
    for (out, v) in gp.iter_mut().flatten().zip(g.iter().flatten()) {
        *out += v;
    }
}
