//! The relaxed DAE of multiple shooting (Bock et al. 2007; Christensen et al., Eq. 47): on a
//! shooting interval `[t_j, t_j + T_s]` the algebraic equations are replaced by
//!
//! `0 = g(t, x, z, p) − e^{−η (t − t_j)/T_s} r`,  `r = g(t_j, w^x_j, w^y_j, p)`,
//!
//! so that the interval may start from algebraic variables `w^y_j` that do not satisfy
//! `g = 0` (the start satisfies the relaxed equation exactly), and the relaxation decays along
//! the interval. The NLP then carries `w^y_j` as decision variables and the consistency
//! conditions `g(t_j, w^x_j, w^y_j, p) = 0` as constraints (which the seed omits, pitfall P13):
//! at a solution `r = 0` and the relaxed DAE is the DAE.
//!
//! [`Relaxed`] is the model `M` seen with `r` appended to its parameters: `p' = (p, r)`,
//! `NR = NP + NZ` entries. Its residual, Jacobians and outputs are `M`'s at the first `NP`
//! entries, with `∂g'/∂r = −e^{−η(t − t_j)/T_s} I` and `∂g'/∂t = g_t + (η/T_s) e^{…} r`. It is
//! for smooth index-1 models: it has no guards, costs or initial-state map (the NLP refuses a
//! model with guards in the relaxed formulation; costs are not read by the NLP).

use hysens::runtime::{
    HybridModel, InitialMode, ModeInfo, ModeJacobian, ModelSizes, ModelTypes, Point, ScalarPartials,
};

/// `M` on one shooting interval with its algebraic residual at the start appended to `p`.
pub(crate) struct Relaxed<'m, M, const NP: usize, const N: usize, const NRS: usize> {
    /// The model.
    pub model: &'m M,
    /// `t_j`.
    pub start: f64,
    /// `T_s`.
    pub length: f64,
    /// `η`, the decay of the relaxation over the interval (Christensen et al.: 1).
    pub decay: f64,
}

impl<M, const NP: usize, const N: usize, const NRS: usize> Relaxed<'_, M, NP, N, NRS> {
    /// `e^{−η (t − t_j)/T_s}`.
    fn weight(&self, t: f64) -> f64 {
        (-self.decay * (t - self.start) / self.length).exp()
    }
}

/// The point of `M`: `p` is the first `NP` entries of `p'`.
fn inner<'b, const NY: usize, const NZ: usize, const NP: usize, const NR: usize>(
    at: &Point<'b, NY, NZ, NR>,
) -> Option<Point<'b, NY, NZ, NP>> {
    Some(Point {
        t: at.t,
        y: at.y,
        z: at.z,
        p: at.p.first_chunk::<NP>()?,
        memory: at.memory,
    })
}

/// `r`, the last `NZ` entries of `p'`.
fn residual_offset<const NZ: usize, const NP: usize, const NR: usize>(p: &[f64; NR]) -> [f64; NZ] {
    core::array::from_fn(|i| p.get(NP + i).copied().unwrap_or(f64::NAN))
}

impl<
        M,
        const NY: usize,
        const NZ: usize,
        const NP: usize,
        const NR: usize,
        const N: usize,
        const NRS: usize,
    > HybridModel<NY, NZ, NR> for Relaxed<'_, M, NP, N, NRS>
where
    M: HybridModel<NY, NZ, NP>,
{
    type Store = M::Store;
    const MODES: &'static [ModeInfo] = M::MODES;
    const INITIAL_MODE: InitialMode = M::INITIAL_MODE;
    const STATE_NAMES: [&'static str; NY] = M::STATE_NAMES;
    const ALGEBRAIC_NAMES: [&'static str; NZ] = M::ALGEBRAIC_NAMES;
    /// Not read: the NLP names its directions from `M`.
    const PARAMETER_NAMES: [&'static str; NR] = [""; NR];
    const HAS_INTEGRAL_COST: bool = false;
    const OUTPUT_NAMES: &'static [&'static str] = M::OUTPUT_NAMES;

    fn residual(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NR>,
        f: &mut [f64; NY],
        g: &mut [f64; NZ],
    ) {
        let Some(inner) = inner::<NY, NZ, NP, NR>(at) else {
            return;
        };
        self.model.residual(mode, &inner, f, g);
        let (weight, r) = (self.weight(at.t), residual_offset::<NZ, NP, NR>(at.p));
        for (g, r) in g.iter_mut().zip(r) {
            *g -= weight * r;
        }
    }

    fn jacobian(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NR>,
        jac: &mut ModeJacobian<NY, NZ, M::Store>,
    ) {
        if let Some(inner) = inner::<NY, NZ, NP, NR>(at) {
            self.model.jacobian(mode, &inner, jac);
        }
    }

    fn parameter_jacobian(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NR>,
        fp: &mut [[f64; NR]; NY],
        gp: &mut [[f64; NR]; NZ],
    ) {
        let Some(inner) = inner::<NY, NZ, NP, NR>(at) else {
            return;
        };
        let (mut fp_inner, mut gp_inner) = ([[0.0; NP]; NY], [[0.0; NP]; NZ]);
        self.model
            .parameter_jacobian(mode, &inner, &mut fp_inner, &mut gp_inner);
        for (to, from) in fp.iter_mut().zip(&fp_inner) {
            *to = [0.0; NR];
            to[..NP].copy_from_slice(from);
        }
        let weight = self.weight(at.t);
        for (i, (to, from)) in gp.iter_mut().zip(&gp_inner).enumerate() {
            *to = [0.0; NR];
            to[..NP].copy_from_slice(from);
            to[NP + i] = -weight;
        }
    }

    fn time_partials(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NR>,
        ft: &mut [f64; NY],
        gt: &mut [f64; NZ],
    ) {
        let Some(inner) = inner::<NY, NZ, NP, NR>(at) else {
            return;
        };
        self.model.time_partials(mode, &inner, ft, gt);
        let rate = self.decay / self.length * self.weight(at.t);
        for (gt, r) in gt.iter_mut().zip(residual_offset::<NZ, NP, NR>(at.p)) {
            *gt += rate * r;
        }
    }

    fn memory_jacobian(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NR>,
        jac: &mut ModeJacobian<NY, NZ, M::Store>,
    ) {
        if let Some(inner) = inner::<NY, NZ, NP, NR>(at) {
            self.model.memory_jacobian(mode, &inner, jac);
        }
    }

    fn output(output: usize, at: &Point<'_, NY, NZ, NR>) -> f64 {
        inner::<NY, NZ, NP, NR>(at).map_or(f64::NAN, |at| M::output(output, &at))
    }

    /// `M`'s output partials, zero with respect to `r`.
    fn output_partials(
        output: usize,
        at: &Point<'_, NY, NZ, NR>,
        partials: &mut ScalarPartials<NY, NZ, NR>,
    ) {
        let Some(at) = inner::<NY, NZ, NP, NR>(at) else {
            return;
        };
        let mut from = ScalarPartials::ZERO;
        M::output_partials(output, &at, &mut from);
        (partials.t, partials.y, partials.z) = (from.t, from.y, from.z);
        (partials.memory_y, partials.memory_z) = (from.memory_y, from.memory_z);
        partials.p = [0.0; NR];
        partials.p[..NP].copy_from_slice(&from.p);
    }
}

impl<M, const NP: usize, const N: usize, const NRS: usize> ModelSizes<N, NRS>
    for Relaxed<'_, M, NP, N, NRS>
{
}

impl<
        M,
        const NY: usize,
        const NZ: usize,
        const NP: usize,
        const NR: usize,
        const N: usize,
        const NRS: usize,
    > ModelTypes<NY, NZ, NR> for Relaxed<'_, M, NP, N, NRS>
{
    type State = [f64; NY];
    type Algebraic = [f64; NZ];
    type Params = [f64; NR];
}
