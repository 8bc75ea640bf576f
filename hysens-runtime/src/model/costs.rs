//! Named costs and the objective a solve differentiates.
//!
//! A model's costs (the objective `G = ∫ L dt + φ(t_f)` of Serban & Recuero 2019, §2, with the
//! sampled terms `Σ_k ℓ(t_k, y_k, z_k, p, d_k)` of a least-squares fit) are declared one
//! function each, so each has a name, the function's ([`CostInfo`],
//! [`crate::HybridModel::COSTS`]). A solve differentiates one [`Objective`]: by default the sum
//! of all of them (what every model had before costs had names), or one cost alone.
//!
//! **The step sequence does not depend on the objective.** The integral cost's quadrature in
//! the local error test ([`crate::Options::cost_error_test`]) is always that of the *sum* of
//! the integral costs (the mode adapter's [`crate::smooth::SmoothMode::integral_cost`] is the
//! model's [`crate::HybridModel::integral_cost`] whatever the objective). So the solves of two
//! objectives of one problem take the same steps, and one forward pass, its tape recorded
//! once, serves the backward pass of every cost (`Solver::cost_gradients`): each objective's
//! gradient is the transpose of the same discrete chain with its own seeds.
//!
//! This module evaluates the objective's terms: the kernel calls of the sum, unchanged (so its
//! results are bit for bit those of the model's own methods), or those of one cost, zero for a
//! term of another kind.

use super::hybrid::{HybridModel, Point, ScalarPartials};

/// The kind of a cost: where in the solve it is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CostKind {
    /// `∫ L dt` over the solve (in the modes it is limited to).
    Integral,
    /// `φ` at the final time.
    Terminal,
    /// `Σ_k ℓ(t_k, y, z, p, d_k)` over the sample times, against the data.
    Sampled,
}

/// A named cost of a model ([`crate::HybridModel::COSTS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CostInfo {
    /// The cost's name: its `#[cost]` function's name.
    pub name: &'static str,
    /// Its kind.
    pub kind: CostKind,
}

/// What a solve computes as its cost `G` and differentiates
/// ([`crate::HybridRun::objective`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Objective {
    /// The sum of all the model's costs (the default).
    #[default]
    Sum,
    /// The cost of [`crate::HybridModel::COSTS`] with this index, alone.
    Cost(usize),
}

/// The index of the cost named `name` among `costs`.
pub fn cost_index(costs: &[CostInfo], name: &str) -> Option<usize> {
    costs.iter().position(|c| c.name == name)
}

impl Objective {
    /// Whether the objective is valid for `M`: the sum, or the index of one of its costs.
    pub(crate) fn is_valid_for<M, const NY: usize, const NZ: usize, const NP: usize>(self) -> bool
    where
        M: HybridModel<NY, NZ, NP> + ?Sized,
    {
        match self {
            Objective::Sum => true,
            Objective::Cost(k) => k < M::COSTS.len(),
        }
    }

    /// The cost of `M` this objective is, if it is one of kind `kind`.
    fn cost_of_kind<M, const NY: usize, const NZ: usize, const NP: usize>(
        self,
        kind: CostKind,
    ) -> Option<usize>
    where
        M: HybridModel<NY, NZ, NP> + ?Sized,
    {
        match self {
            Objective::Cost(k) => M::COSTS.get(k).filter(|c| c.kind == kind).map(|_| k),
            Objective::Sum => None,
        }
    }

    /// Whether the objective has an integral term (so the quadrature must be computed).
    pub(crate) fn has_integral<M, const NY: usize, const NZ: usize, const NP: usize>(self) -> bool
    where
        M: HybridModel<NY, NZ, NP> + ?Sized,
    {
        match self {
            Objective::Sum => M::HAS_INTEGRAL_COST,
            cost => cost
                .cost_of_kind::<M, NY, NZ, NP>(CostKind::Integral)
                .is_some(),
        }
    }

    /// The integrand `L` of the objective in `mode`.
    pub(crate) fn integrand<M, const NY: usize, const NZ: usize, const NP: usize>(
        self,
        model: &M,
        mode: usize,
        at: &Point<'_, NY, NZ, NP>,
    ) -> f64
    where
        M: HybridModel<NY, NZ, NP> + ?Sized,
    {
        match (self, self.cost_of_kind::<M, NY, NZ, NP>(CostKind::Integral)) {
            (Objective::Sum, _) => model.integral_cost(mode, at),
            (_, Some(k)) => model.integral_cost_term(k, mode, at),
            (_, None) => 0.0,
        }
    }

    /// The partials of the integrand `L` of the objective in `mode` into `d` (zeroed by the
    /// caller).
    pub(crate) fn integrand_partials<M, const NY: usize, const NZ: usize, const NP: usize>(
        self,
        model: &M,
        mode: usize,
        at: &Point<'_, NY, NZ, NP>,
        d: &mut ScalarPartials<NY, NZ, NP>,
    ) where
        M: HybridModel<NY, NZ, NP> + ?Sized,
    {
        match (self, self.cost_of_kind::<M, NY, NZ, NP>(CostKind::Integral)) {
            (Objective::Sum, _) => model.integral_cost_partials(mode, at, d),
            (_, Some(k)) => model.integral_cost_term_partials(k, mode, at, d),
            (_, None) => {}
        }
    }

    /// The terminal cost `φ` of the objective.
    pub(crate) fn terminal<M, const NY: usize, const NZ: usize, const NP: usize>(
        self,
        model: &M,
        at: &Point<'_, NY, NZ, NP>,
    ) -> f64
    where
        M: HybridModel<NY, NZ, NP> + ?Sized,
    {
        match (self, self.cost_of_kind::<M, NY, NZ, NP>(CostKind::Terminal)) {
            (Objective::Sum, _) => model.terminal_cost(at),
            (_, Some(k)) => model.terminal_cost_term(k, at),
            (_, None) => 0.0,
        }
    }

    /// The partials of the terminal cost `φ` of the objective into `d` (zeroed by the caller).
    pub(crate) fn terminal_partials<M, const NY: usize, const NZ: usize, const NP: usize>(
        self,
        model: &M,
        at: &Point<'_, NY, NZ, NP>,
        d: &mut ScalarPartials<NY, NZ, NP>,
    ) where
        M: HybridModel<NY, NZ, NP> + ?Sized,
    {
        match (self, self.cost_of_kind::<M, NY, NZ, NP>(CostKind::Terminal)) {
            (Objective::Sum, _) => model.terminal_cost_partials(at, d),
            (_, Some(k)) => model.terminal_cost_term_partials(k, at, d),
            (_, None) => {}
        }
    }

    /// The sampled cost term `ℓ` of the objective for one sample with datum `datum`.
    pub(crate) fn sampled<M, const NY: usize, const NZ: usize, const NP: usize>(
        self,
        model: &M,
        at: &Point<'_, NY, NZ, NP>,
        datum: f64,
    ) -> f64
    where
        M: HybridModel<NY, NZ, NP> + ?Sized,
    {
        match (self, self.cost_of_kind::<M, NY, NZ, NP>(CostKind::Sampled)) {
            (Objective::Sum, _) => model.sampled_cost(at, datum),
            (_, Some(k)) => model.sampled_cost_term(k, at, datum),
            (_, None) => 0.0,
        }
    }

    /// The partials of the sampled cost term `ℓ` of the objective into `d` (zeroed by the
    /// caller).
    pub(crate) fn sampled_partials<M, const NY: usize, const NZ: usize, const NP: usize>(
        self,
        model: &M,
        at: &Point<'_, NY, NZ, NP>,
        datum: f64,
        d: &mut ScalarPartials<NY, NZ, NP>,
    ) where
        M: HybridModel<NY, NZ, NP> + ?Sized,
    {
        match (self, self.cost_of_kind::<M, NY, NZ, NP>(CostKind::Sampled)) {
            (Objective::Sum, _) => model.sampled_cost_partials(at, datum, d),
            (_, Some(k)) => model.sampled_cost_term_partials(k, at, datum, d),
            (_, None) => {}
        }
    }
}

/// The value and gradient of one named cost, from the forward sensitivities of a solve that
/// computes every cost at once ([`crate::solve_costs`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostValue<const NP: usize> {
    /// The cost (as far as computed).
    pub value: f64,
    /// Its gradient `dG_k/dp` (zero without sensitivities).
    pub gradient: [f64; NP],
}

impl<const NP: usize> CostValue<NP> {
    /// Zero (to initialize storage).
    pub const ZERO: Self = CostValue {
        value: 0.0,
        gradient: [0.0; NP],
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AdjointProducts, ModeInfo, ModelSizes};
    use crate::{solve_adjoint, solve_costs, AdjointGradient, AdjointTape, TapeStep};
    use crate::{HybridOptions, HybridOutputs, HybridProblem, HybridRun, HybridSolution};
    use crate::{ModeJacobian, ESDIRK436L2SA};

    /// A hand-written model with one cost of two kinds, which leaves the term methods to their
    /// defaults (the whole cost of each kind): `y' = −k y`, `area = ∫ y dt`,
    /// `end = y(T)²`.
    struct Decay;
    type P<'a> = Point<'a, 1, 0, 1>;
    impl HybridModel<1, 0, 1> for Decay {
        type Store = crate::Inline;
        const MODES: &'static [ModeInfo] = &[ModeInfo {
            name: "decay",
            uses_memory: false,
            constant_jacobian: true,
            terminal: false,
            index2: false,
        }];
        const STATE_NAMES: [&'static str; 1] = ["y"];
        const PARAMETER_NAMES: [&'static str; 1] = ["k"];
        const COSTS: &'static [CostInfo] = &[
            CostInfo {
                name: "area",
                kind: CostKind::Integral,
            },
            CostInfo {
                name: "end",
                kind: CostKind::Terminal,
            },
        ];
        fn residual(&self, _: usize, at: &P, f: &mut [f64; 1], _: &mut [f64; 0]) {
            f[0] = -at.p[0] * at.y[0];
        }
        fn jacobian(&self, _: usize, at: &P, j: &mut ModeJacobian<1, 0>) {
            j.fy[0][0] = -at.p[0];
        }
        fn parameter_jacobian(
            &self,
            _: usize,
            at: &P,
            fp: &mut [[f64; 1]; 1],
            _: &mut [[f64; 1]; 0],
        ) {
            fp[0][0] = -at.y[0];
        }
        fn integral_cost(&self, _: usize, at: &P) -> f64 {
            at.y[0]
        }
        fn integral_cost_partials(&self, _: usize, _: &P, d: &mut ScalarPartials<1, 0, 1>) {
            d.y[0] = 1.0;
        }
        fn terminal_cost(&self, at: &P) -> f64 {
            at.y[0] * at.y[0]
        }
        fn terminal_cost_partials(&self, at: &P, d: &mut ScalarPartials<1, 0, 1>) {
            d.y[0] = 2.0 * at.y[0];
        }
    }
    impl AdjointProducts<1, 0, 1> for Decay {
        fn adjoint_products(
            &self,
            _: usize,
            at: &P,
            l: &[f64; 1],
            _: &[f64; 0],
            oy: &mut [f64; 1],
            _: &mut [f64; 0],
            op: &mut [f64; 1],
        ) {
            oy[0] = -at.p[0] * l[0];
            op[0] = -at.y[0] * l[0];
        }
    }
    impl ModelSizes<1, 2> for Decay {}

    /// Each cost by the defaults, against its closed form (`(1 − e^{−kT})/k` and `e^{−2kT}`,
    /// to the solve's global error at rtol 1e-10), the sum against the objective, and the
    /// adjoint of the terminal cost alone against its FSA gradient `−2T e^{−2kT}`.
    #[test]
    fn a_hand_written_model_names_one_cost_of_each_kind_by_the_defaults() {
        let (k, t) = (0.5f64, 2.0f64);
        let problem = HybridProblem {
            t0: 0.0,
            tf: t,
            y0: [1.0],
            z0: [],
            p: [k],
            sensitivities: Some([[0.0]]),
            sample_times: &[],
            sample_data: &[],
        };
        let options = HybridOptions::new(1e-10, 1e-12);
        let run = HybridRun::new(&Decay, &ESDIRK436L2SA, &problem, &options);
        let mut outputs = HybridOutputs {
            samples: &mut [],
            events: None,
            steps: None,
            dense: None,
        };
        let (mut sol, mut costs) = (HybridSolution::ZERO, [CostValue::ZERO; 2]);
        solve_costs(&run, &mut outputs, &mut sol, &mut costs).unwrap();
        let area = (1.0 - (-k * t).exp()) / k;
        assert!((costs[0].value - area).abs() < 1e-9);
        assert!((costs[1].value - (-2.0 * k * t).exp()).abs() < 1e-9);
        assert!((costs[0].value + costs[1].value - sol.cost).abs() < 1e-15);
        let end = cost_index(Decay::COSTS, "end").unwrap();
        let run = run.with_objective(Objective::Cost(end));
        let mut tape = std::vec![TapeStep::ZERO; 1024];
        let mut gradient = AdjointGradient::ZERO;
        let tape = AdjointTape::full(&mut tape);
        solve_adjoint(&run, tape, &mut outputs, &mut sol, &mut gradient).unwrap();
        let exact = -2.0 * t * (-2.0 * k * t).exp();
        assert!((gradient.p[0] - exact).abs() < 1e-8);
        assert!((gradient.p[0] - costs[end].gradient[0]).abs() < 1e-14);
        assert_eq!(sol.cost, costs[end].value);
    }
}
