//! Named outputs on the no-heap results: the value and the sensitivities of an `#[output]` at
//! a [`Sample`] and at the time a [`HybridSolution`] reached, evaluated from the model type
//! `M` and the solve's parameters, without the heap or a model instance. What an output reads
//! and the chain rule of its sensitivities: `crate::model::output`.
//!
//! The sensitivity columns are those of the solve: the `NP` parameters for the core solve,
//! then the `NY` initial states for [`crate::Solver::solve_into`]; column `j < NP` adds the
//! output's own `o_p[j]`. A parameter column `solve_into` did not compute is zero, so its
//! output sensitivity is that `o_p[j]` alone: read only the columns that were chosen.

use crate::model::{output_chain, output_partials, output_value, HybridModel};
use crate::run::{HybridSolution, Sample};

impl<const NY: usize, const NZ: usize, const K: usize> Sample<NY, NZ, K> {
    /// Named output `output` of the model `M` at this sample, with the solve's parameters `p`
    /// (0 for an index out of range): `sample.output::<ball::Model, _>(0, &p)`.
    pub fn output<M, const NP: usize>(&self, output: usize, p: &[f64; NP]) -> f64
    where
        M: HybridModel<NY, NZ, NP> + ?Sized,
    {
        output_value::<M, NY, NZ, NP>(output, self.t, &self.y, &self.z, p)
    }

    /// `do/dθ_j` of named output `output` at this sample for every sensitivity column `j`
    /// (the first `NP` the parameters; the sample time is fixed, so no `o_t` term), into `out`.
    pub fn output_sensitivities<M, const NP: usize>(
        &self,
        output: usize,
        p: &[f64; NP],
        out: &mut [f64; K],
    ) where
        M: HybridModel<NY, NZ, NP> + ?Sized,
    {
        let d = output_partials::<M, NY, NZ, NP>(output, self.t, &self.y, &self.z, p);
        output_chain(&d, &self.sy, &self.sz, &[0.0; K], out);
    }
}

impl<const NY: usize, const NZ: usize, const K: usize> HybridSolution<NY, NZ, K> {
    /// Named output `output` of the model `M` at the time reached, with the solve's
    /// parameters `p` (0 for an index out of range).
    pub fn output<M, const NP: usize>(&self, output: usize, p: &[f64; NP]) -> f64
    where
        M: HybridModel<NY, NZ, NP> + ?Sized,
    {
        output_value::<M, NY, NZ, NP>(output, self.t, &self.y, &self.z, p)
    }

    /// `do/dθ_j` of named output `output` at the time reached for every sensitivity column
    /// `j`, into `out`; with `o_t τ_j` when a terminal guard ended the solve
    /// ([`HybridSolution::st`]).
    pub fn output_sensitivities<M, const NP: usize>(
        &self,
        output: usize,
        p: &[f64; NP],
        out: &mut [f64; K],
    ) where
        M: HybridModel<NY, NZ, NP> + ?Sized,
    {
        let d = output_partials::<M, NY, NZ, NP>(output, self.t, &self.y, &self.z, p);
        output_chain(&d, &self.sy, &self.sz, &self.st, out);
    }
}
