//! A model whose initial differential states are extra parameters, so that one forward
//! sensitivity solve gives `∂/∂p` and `∂/∂y0` together.
//!
//! With `p' = (p, y0)` the extended model has the original kernels (they read only the first
//! `NP` entries of `p'`) and zero partials with respect to the appended entries, because `y0`
//! enters the solution only through the initial condition. Starting the sensitivities from
//! `∂y0/∂p' = [0 | I]` therefore makes column `NP + i` the variational solution `∂y/∂y0_i`
//! (the state transition matrix), carried across every event by the same exact discrete
//! chain as the parameter columns: the jump conditions at a switch (Serban & Recuero 2019,
//! Eq. 6: the event-time derivative and the transfer of the sensitivities) act on any
//! direction alike. A parameter the caller did not
//! choose has its partials masked to zero, so its column stays zero.

use crate::{
    ConditionPartials, CostInfo, EventTarget, GuardInfo, HybridModel, InitialMode, ModeInfo,
    ModelSizes, Point, ResetJacobian, ScalarPartials,
};
use crate::{MatrixStore, ModeJacobian};

/// `M` with `NP` parameters seen as a model with `NS = NP + NY` parameters `(p, y0)`.
pub(crate) struct Extended<'m, M, const NP: usize> {
    /// The model.
    pub model: &'m M,
    /// `params[i]`: keep the partials with respect to `p_i` (otherwise they are zero).
    pub params: [bool; NP],
}

/// The point of the original model: `p` is the first `NP` entries of `p'`.
fn inner<'b, const NY: usize, const NZ: usize, const NP: usize, const NS: usize>(
    at: &Point<'b, NY, NZ, NS>,
) -> Option<Point<'b, NY, NZ, NP>> {
    Some(Point {
        t: at.t,
        y: at.y,
        z: at.z,
        p: at.p.first_chunk::<NP>()?,
        memory: at.memory,
    })
}

/// Copies the chosen parameter columns of `from` into the first `NP` columns of `to`.
fn masked<const NP: usize, const NS: usize>(
    mask: &[bool; NP],
    from: &[f64; NP],
    to: &mut [f64; NS],
) {
    for ((to, &from), &keep) in to.iter_mut().zip(from).zip(mask) {
        *to = if keep { from } else { 0.0 };
    }
}

impl<M, const NP: usize> Extended<'_, M, NP> {
    /// The Jacobian of a state map of the original model (a reset or the initial-state map,
    /// evaluated by `jacobian_of` at the original point), extended by zero.
    fn map_jacobian<const NY: usize, const NZ: usize, const NS: usize, S: MatrixStore>(
        &self,
        at: &Point<'_, NY, NZ, NS>,
        jac: &mut ResetJacobian<NY, NZ, NS, S>,
        jacobian_of: impl FnOnce(&M, &Point<'_, NY, NZ, NP>, &mut ResetJacobian<NY, NZ, NP, S>),
    ) {
        let Some(at) = inner(at) else { return };
        let mut r = ResetJacobian::zeroed();
        jacobian_of(self.model, &at, &mut r);
        jac.t = r.t;
        jac.y = r.y;
        jac.z = r.z;
        jac.memory_y = r.memory_y;
        jac.memory_z = r.memory_z;
        for (to, from) in jac.p.iter_mut().zip(&r.p) {
            masked(&self.params, from, to);
        }
    }

    /// The partials of a scalar function of the original model (a guard or a cost term,
    /// evaluated by `partials_of` at the original point), extended by zero.
    fn scalar<const NY: usize, const NZ: usize, const NS: usize>(
        &self,
        at: &Point<'_, NY, NZ, NS>,
        to: &mut ScalarPartials<NY, NZ, NS>,
        partials_of: impl FnOnce(&M, &Point<'_, NY, NZ, NP>, &mut ScalarPartials<NY, NZ, NP>),
    ) {
        let Some(at) = inner(at) else { return };
        let mut from = ScalarPartials::ZERO;
        partials_of(self.model, &at, &mut from);
        to.t = from.t;
        to.y = from.y;
        to.z = from.z;
        to.memory_y = from.memory_y;
        to.memory_z = from.memory_z;
        masked(&self.params, &from.p, &mut to.p);
    }
}

impl<M, const NY: usize, const NZ: usize, const NP: usize, const NS: usize> HybridModel<NY, NZ, NS>
    for Extended<'_, M, NP>
where
    M: HybridModel<NY, NZ, NP>,
{
    const MODES: &'static [ModeInfo] = M::MODES;
    const GUARDS: &'static [GuardInfo] = M::GUARDS;
    const INITIAL_MODE: InitialMode = M::INITIAL_MODE;
    const STATE_NAMES: [&'static str; NY] = M::STATE_NAMES;
    const ALGEBRAIC_NAMES: [&'static str; NZ] = M::ALGEBRAIC_NAMES;
    /// Not read by the solver; the builder names directions from the original model.
    const PARAMETER_NAMES: [&'static str; NS] = [""; NS];
    const HAS_INTEGRAL_COST: bool = M::HAS_INTEGRAL_COST;
    const HAS_SAMPLED_COST: bool = M::HAS_SAMPLED_COST;
    const HAS_INITIAL_STATE: bool = M::HAS_INITIAL_STATE;
    const HAS_ALGEBRAIC_GUESS: bool = M::HAS_ALGEBRAIC_GUESS;
    const COSTS: &'static [CostInfo] = M::COSTS;
    const OUTPUT_NAMES: &'static [&'static str] = M::OUTPUT_NAMES;
    type Store = M::Store;

    #[inline]
    fn residual(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NS>,
        f: &mut [f64; NY],
        g: &mut [f64; NZ],
    ) {
        if let Some(at) = inner(at) {
            self.model.residual(mode, &at, f, g);
        }
    }

    #[inline]
    fn jacobian(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NS>,
        jac: &mut ModeJacobian<NY, NZ, M::Store>,
    ) {
        if let Some(at) = inner(at) {
            self.model.jacobian(mode, &at, jac);
        }
    }

    fn jacobian_nonzeros(&self, mode: usize) -> Option<&'static [(usize, usize)]> {
        self.model.jacobian_nonzeros(mode)
    }

    fn parameter_jacobian(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NS>,
        fp: &mut [[f64; NS]; NY],
        gp: &mut [[f64; NS]; NZ],
    ) {
        let Some(at) = inner(at) else { return };
        let (mut fp_inner, mut gp_inner) = ([[0.0; NP]; NY], [[0.0; NP]; NZ]);
        self.model
            .parameter_jacobian(mode, &at, &mut fp_inner, &mut gp_inner);
        for (to, from) in fp.iter_mut().zip(&fp_inner) {
            masked(&self.params, from, to);
        }
        for (to, from) in gp.iter_mut().zip(&gp_inner) {
            masked(&self.params, from, to);
        }
    }

    fn time_partials(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NS>,
        ft: &mut [f64; NY],
        gt: &mut [f64; NZ],
    ) {
        if let Some(at) = inner(at) {
            self.model.time_partials(mode, &at, ft, gt);
        }
    }

    fn memory_jacobian(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NS>,
        jac: &mut ModeJacobian<NY, NZ, M::Store>,
    ) {
        if let Some(at) = inner(at) {
            self.model.memory_jacobian(mode, &at, jac);
        }
    }

    fn hidden_constraint(&self, mode: usize, at: &Point<'_, NY, NZ, NS>, h: &mut [f64; NZ]) {
        if let Some(at) = inner(at) {
            self.model.hidden_constraint(mode, &at, h);
        }
    }

    fn is_constraint(&self, mode: usize, row: usize) -> bool {
        self.model.is_constraint(mode, row)
    }

    fn hidden_constraint_partials(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NS>,
        partials: &mut ConditionPartials<NY, NZ, NS>,
    ) {
        let Some(at) = inner(at) else { return };
        let mut from = ConditionPartials::ZERO;
        self.model.hidden_constraint_partials(mode, &at, &mut from);
        partials.cy = from.cy;
        partials.cz = from.cz;
        partials.ct = from.ct;
        for (to, from) in partials.cp.iter_mut().zip(&from.cp) {
            masked(&self.params, from, to);
        }
    }

    fn event_target(&self, guard: usize, at: &Point<'_, NY, NZ, NS>) -> EventTarget {
        inner(at).map_or(EventTarget::Mode(usize::MAX), |at| {
            self.model.event_target(guard, &at)
        })
    }

    fn guard(&self, guard: usize, at: &Point<'_, NY, NZ, NS>) -> f64 {
        inner(at).map_or(f64::NAN, |at| self.model.guard(guard, &at))
    }

    fn guard_partials(
        &self,
        guard: usize,
        at: &Point<'_, NY, NZ, NS>,
        partials: &mut ScalarPartials<NY, NZ, NS>,
    ) {
        self.scalar(at, partials, |m, at, d| m.guard_partials(guard, at, d));
    }

    fn reset(&self, guard: usize, at: &Point<'_, NY, NZ, NS>, y_plus: &mut [f64; NY]) {
        if let Some(at) = inner(at) {
            self.model.reset(guard, &at, y_plus);
        }
    }

    fn reset_jacobian(
        &self,
        guard: usize,
        at: &Point<'_, NY, NZ, NS>,
        jac: &mut ResetJacobian<NY, NZ, NS, M::Store>,
    ) {
        self.map_jacobian(at, jac, |m, at, r| m.reset_jacobian(guard, at, r));
    }

    fn initial_state(&self, at: &Point<'_, NY, NZ, NS>, y0: &mut [f64; NY]) {
        if let Some(at) = inner(at) {
            self.model.initial_state(&at, y0);
        }
    }

    fn algebraic_guess(&self, at: &Point<'_, NY, NZ, NS>, z0: &mut [f64; NZ]) {
        if let Some(at) = inner(at) {
            self.model.algebraic_guess(&at, z0);
        }
    }

    fn initial_state_jacobian(
        &self,
        at: &Point<'_, NY, NZ, NS>,
        jac: &mut ResetJacobian<NY, NZ, NS, M::Store>,
    ) {
        self.map_jacobian(at, jac, |m, at, r| m.initial_state_jacobian(at, r));
    }

    fn integral_cost(&self, mode: usize, at: &Point<'_, NY, NZ, NS>) -> f64 {
        inner(at).map_or(f64::NAN, |at| self.model.integral_cost(mode, &at))
    }

    fn integral_cost_partials(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NS>,
        partials: &mut ScalarPartials<NY, NZ, NS>,
    ) {
        self.scalar(at, partials, |m, at, d| {
            m.integral_cost_partials(mode, at, d)
        });
    }

    fn terminal_cost(&self, at: &Point<'_, NY, NZ, NS>) -> f64 {
        inner(at).map_or(f64::NAN, |at| self.model.terminal_cost(&at))
    }

    fn terminal_cost_partials(
        &self,
        at: &Point<'_, NY, NZ, NS>,
        partials: &mut ScalarPartials<NY, NZ, NS>,
    ) {
        self.scalar(at, partials, |m, at, d| m.terminal_cost_partials(at, d));
    }

    fn sampled_cost(&self, at: &Point<'_, NY, NZ, NS>, datum: f64) -> f64 {
        inner(at).map_or(f64::NAN, |at| self.model.sampled_cost(&at, datum))
    }

    fn sampled_cost_partials(
        &self,
        at: &Point<'_, NY, NZ, NS>,
        datum: f64,
        partials: &mut ScalarPartials<NY, NZ, NS>,
    ) {
        self.scalar(at, partials, |m, at, d| {
            m.sampled_cost_partials(at, datum, d)
        });
    }

    fn integral_cost_term(&self, cost: usize, mode: usize, at: &Point<'_, NY, NZ, NS>) -> f64 {
        inner(at).map_or(f64::NAN, |at| {
            self.model.integral_cost_term(cost, mode, &at)
        })
    }

    fn integral_cost_term_partials(
        &self,
        cost: usize,
        mode: usize,
        at: &Point<'_, NY, NZ, NS>,
        partials: &mut ScalarPartials<NY, NZ, NS>,
    ) {
        self.scalar(at, partials, |m, at, d| {
            m.integral_cost_term_partials(cost, mode, at, d)
        });
    }

    fn terminal_cost_term(&self, cost: usize, at: &Point<'_, NY, NZ, NS>) -> f64 {
        inner(at).map_or(f64::NAN, |at| self.model.terminal_cost_term(cost, &at))
    }

    fn terminal_cost_term_partials(
        &self,
        cost: usize,
        at: &Point<'_, NY, NZ, NS>,
        partials: &mut ScalarPartials<NY, NZ, NS>,
    ) {
        self.scalar(at, partials, |m, at, d| {
            m.terminal_cost_term_partials(cost, at, d)
        });
    }

    fn sampled_cost_term(&self, cost: usize, at: &Point<'_, NY, NZ, NS>, datum: f64) -> f64 {
        inner(at).map_or(f64::NAN, |at| {
            self.model.sampled_cost_term(cost, &at, datum)
        })
    }

    fn sampled_cost_term_partials(
        &self,
        cost: usize,
        at: &Point<'_, NY, NZ, NS>,
        datum: f64,
        partials: &mut ScalarPartials<NY, NZ, NS>,
    ) {
        self.scalar(at, partials, |m, at, d| {
            m.sampled_cost_term_partials(cost, at, datum, d)
        });
    }

    fn output(output: usize, at: &Point<'_, NY, NZ, NS>) -> f64 {
        inner(at).map_or(f64::NAN, |at| M::output(output, &at))
    }

    /// The original output's partials, extended by zero for the initial states. An output is a
    /// function of the model type (no instance), so the mask of unchosen parameters does not
    /// apply: their entries are the output's own `o_p` (their sensitivity columns are zero).
    fn output_partials(
        output: usize,
        at: &Point<'_, NY, NZ, NS>,
        partials: &mut ScalarPartials<NY, NZ, NS>,
    ) {
        let Some(at) = inner(at) else { return };
        let mut from = ScalarPartials::ZERO;
        M::output_partials(output, &at, &mut from);
        partials.t = from.t;
        partials.y = from.y;
        partials.z = from.z;
        partials.memory_y = from.memory_y;
        partials.memory_z = from.memory_z;
        masked(&[true; NP], &from.p, &mut partials.p);
    }
}

/// The extended model keeps the original's `N`; its own `NS` is never read (the core solve
/// checks only `N = NY + NZ`).
impl<M, const N: usize, const NS: usize, const NP: usize> ModelSizes<N, NS> for Extended<'_, M, NP> where
    M: ModelSizes<N, NS>
{
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Memory;

    /// `y' = −p y` with the output `o = p y² + t`.
    struct Decay;

    impl HybridModel<1, 0, 1> for Decay {
        type Store = crate::Inline;
        const MODES: &'static [ModeInfo] = &[];
        const STATE_NAMES: [&'static str; 1] = ["y"];
        const PARAMETER_NAMES: [&'static str; 1] = ["p"];
        const OUTPUT_NAMES: &'static [&'static str] = &["o"];
        fn residual(&self, _: usize, at: &Point<'_, 1, 0, 1>, f: &mut [f64; 1], _: &mut [f64; 0]) {
            f[0] = -at.p[0] * at.y[0];
        }
        fn jacobian(&self, _: usize, _: &Point<'_, 1, 0, 1>, _: &mut ModeJacobian<1, 0>) {}
        fn parameter_jacobian(
            &self,
            _: usize,
            _: &Point<'_, 1, 0, 1>,
            _: &mut [[f64; 1]; 1],
            _: &mut [[f64; 1]; 0],
        ) {
        }
        fn output(_: usize, at: &Point<'_, 1, 0, 1>) -> f64 {
            at.p[0] * at.y[0] * at.y[0] + at.t
        }
        fn output_partials(_: usize, at: &Point<'_, 1, 0, 1>, d: &mut ScalarPartials<1, 0, 1>) {
            d.t = 1.0;
            d.y[0] = 2.0 * at.p[0] * at.y[0];
            d.p[0] = at.y[0] * at.y[0];
        }
    }

    /// The extended model's outputs are the original's, read at the first `NP` entries of
    /// `p' = (p, y0)`, with zero partials with respect to the appended initial states.
    #[test]
    fn outputs_are_delegated_with_partials_extended_by_zero() {
        type E<'m> = Extended<'m, Decay, 1>;
        let memory = Memory::ZERO;
        let at = Point {
            t: 0.5,
            y: &[3.0],
            z: &[],
            p: &[2.0, 7.0],
            memory: &memory,
        };
        assert_eq!(<E<'_> as HybridModel<1, 0, 2>>::OUTPUT_NAMES, ["o"]);
        assert_eq!(<E<'_> as HybridModel<1, 0, 2>>::output(0, &at), 18.5);
        let mut d = ScalarPartials::ZERO;
        <E<'_> as HybridModel<1, 0, 2>>::output_partials(0, &at, &mut d);
        assert_eq!((d.t, d.y, d.p), (1.0, [12.0], [9.0, 0.0]));
    }
}
