//! One smooth mode of a model, evaluated point by point: what the stochastic simulator and
//! the filter's update need besides whole solves (the residual `f, g` and the Jacobian
//! blocks at a point). The memory of the point is the point itself, as for a mode entered
//! there: estimation and control here run within one mode.

use hysens::runtime::{HybridModel, Memory, ModeJacobian, Point, ScalarPartials};

/// Mode `mode` of `model`.
#[derive(Debug)]
pub struct ModeOf<'m, M, const NY: usize, const NZ: usize, const NP: usize> {
    /// The model.
    pub model: &'m M,
    /// The mode's index (`Model::MODES`).
    pub mode: usize,
}

// By hand: `derive` would require `M: Clone`.
impl<M, const NY: usize, const NZ: usize, const NP: usize> Clone for ModeOf<'_, M, NY, NZ, NP> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M, const NY: usize, const NZ: usize, const NP: usize> Copy for ModeOf<'_, M, NY, NZ, NP> {}

impl<'m, M, const NY: usize, const NZ: usize, const NP: usize> ModeOf<'m, M, NY, NZ, NP>
where
    M: HybridModel<NY, NZ, NP>,
{
    /// Mode `mode` of `model`.
    pub fn new(model: &'m M, mode: usize) -> Self {
        ModeOf { model, mode }
    }

    /// `f(t, y, z, p)` and `g(t, y, z, p)`.
    pub fn residual(
        &self,
        t: f64,
        y: &[f64; NY],
        z: &[f64; NZ],
        p: &[f64; NP],
    ) -> ([f64; NY], [f64; NZ]) {
        let memory = Memory { y: *y, z: *z };
        let at = Point {
            t,
            y,
            z,
            p,
            memory: &memory,
        };
        let (mut f, mut g) = ([0.0; NY], [0.0; NZ]);
        self.model.residual(self.mode, &at, &mut f, &mut g);
        (f, g)
    }

    /// `f_y, f_z, g_y, g_z` at the point.
    pub fn jacobian(
        &self,
        t: f64,
        y: &[f64; NY],
        z: &[f64; NZ],
        p: &[f64; NP],
    ) -> ModeJacobian<NY, NZ, M::Store> {
        let memory = Memory { y: *y, z: *z };
        let at = Point {
            t,
            y,
            z,
            p,
            memory: &memory,
        };
        let mut jac = ModeJacobian::zeroed();
        self.model.jacobian(self.mode, &at, &mut jac);
        jac
    }

    /// The named output `output` (an index of `Model::OUTPUT_NAMES`) and its partials.
    pub fn output(
        &self,
        output: usize,
        t: f64,
        y: &[f64; NY],
        z: &[f64; NZ],
        p: &[f64; NP],
    ) -> (f64, ScalarPartials<NY, NZ, NP>) {
        let memory = Memory { y: *y, z: *z };
        let at = Point {
            t,
            y,
            z,
            p,
            memory: &memory,
        };
        let mut partials = ScalarPartials::ZERO;
        M::output_partials(output, &at, &mut partials);
        (M::output(output, &at), partials)
    }
}
