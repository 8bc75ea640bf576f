//! Named outputs in the owned results (feature `std`): the values of a model's `#[output]`
//! functions and their sensitivities at the samples, at the final time, and at any state the
//! caller holds ([`Solution::output_of`]: a sample, or the dense output's
//! `solution.output_of("height", &solution.at(t)?)`, [`Solution::at`]).
//!
//! **The choice.** The [`Solution`] keeps the output functions themselves, not their values:
//! function pointers taken from the model *type* ([`crate::HybridModel::output`] and
//! [`crate::HybridModel::output_partials`] have no `&self`), with the parameters `p` of the
//! solve. So it evaluates an output at any [`SampleState`] after the solve, without the model
//! and without a lifetime tied to it, and stays `Clone + Send + Sync` like the rest of its
//! data. Storing values computed during the solve would have served the samples only, and a
//! dense-output state would still have needed the model. An output reads `(t, y, z, p)` and
//! never the memory, which a stored state does not carry (see `crate::model::output`).
//!
//! **The sensitivity** along a chosen direction `θ_j` is the chain rule
//! `do/dθ_j = o_y ∂y/∂θ_j + o_z ∂z/∂θ_j + o_p ∂p/∂θ_j + o_t ∂t/∂θ_j` with the state's own
//! sensitivities: `∂p/∂θ_j = e_j` for a parameter direction and zero for an initial state;
//! `∂t/∂θ_j = 0` at a sample (its time is fixed) and, at the final time, the event-time
//! derivative `τ_j` when a terminal guard ended the solve (Serban & Recuero 2019, Eq. 6).

use core::fmt;

use super::lookup::{find, item, LookupError};
use super::selection::{Variable, Wrt};
use super::{Fields, SampleState, Solution};
use crate::model::{output_partials, output_value, HybridModel, ScalarPartials};

/// `o(t, y, z, p)` of output `k` (`crate::model::output`).
type ValueFn<const NY: usize, const NZ: usize, const NP: usize> =
    fn(usize, f64, &[f64; NY], &[f64; NZ], &[f64; NP]) -> f64;
/// The partials `o_t, o_y, o_z, o_p` of output `k`.
type PartialsFn<const NY: usize, const NZ: usize, const NP: usize> =
    fn(usize, f64, &[f64; NY], &[f64; NZ], &[f64; NP]) -> ScalarPartials<NY, NZ, NP>;

/// A model's named outputs, as a [`Solution`] keeps them: names, functions, and the solve's
/// parameters.
#[derive(Clone, Copy)]
pub(super) struct OutputFunctions<const NY: usize, const NZ: usize, const NP: usize> {
    names: &'static [&'static str],
    value: ValueFn<NY, NZ, NP>,
    partials: PartialsFn<NY, NZ, NP>,
    p: [f64; NP],
}

impl<const NY: usize, const NZ: usize, const NP: usize> OutputFunctions<NY, NZ, NP> {
    /// The outputs of model `M` with parameters `p`.
    pub fn of<M: HybridModel<NY, NZ, NP>>(p: [f64; NP]) -> Self {
        OutputFunctions {
            names: M::OUTPUT_NAMES,
            value: output_value::<M, NY, NZ, NP>,
            partials: output_partials::<M, NY, NZ, NP>,
            p,
        }
    }

    /// The index of the output named `name`, or the error listing the model's outputs.
    fn index(&self, name: &str) -> Result<usize, LookupError> {
        find("output", self.names, name)
    }
}

// The functions compare by address: two tables are equal when they hold the same model's
// outputs with the same parameters.
impl<const NY: usize, const NZ: usize, const NP: usize> PartialEq for OutputFunctions<NY, NZ, NP> {
    fn eq(&self, other: &Self) -> bool {
        self.names == other.names
            && self.p == other.p
            && core::ptr::fn_addr_eq(self.value, other.value)
            && core::ptr::fn_addr_eq(self.partials, other.partials)
    }
}

impl<const NY: usize, const NZ: usize, const NP: usize> fmt::Debug for OutputFunctions<NY, NZ, NP> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutputFunctions")
            .field("names", &self.names)
            .field("p", &self.p)
            .finish_non_exhaustive()
    }
}

/// `o_y dy + o_z dz + o_t dt`, plus `o_p[i]` for the parameter direction `Param(i)`.
fn chain<const NY: usize, const NZ: usize, const NP: usize>(
    d: &ScalarPartials<NY, NZ, NP>,
    direction: Variable,
    dy: &[f64; NY],
    dz: &[f64; NZ],
    dt: f64,
) -> f64 {
    let direct = match direction {
        Variable::Param(i) => d.p.get(i).copied().unwrap_or(0.0),
        Variable::InitialState(_) => 0.0,
    };
    let through_y = d.y.iter().zip(dy).map(|(o, s)| o * s);
    let through_z = d.z.iter().zip(dz).map(|(o, s)| o * s);
    through_y
        .chain(through_z)
        .fold(direct + d.t * dt, |a, b| a + b)
}

impl<X: Fields<NY>, const NY: usize, const NZ: usize, const NP: usize> Solution<X, NY, NZ, NP> {
    /// The names of the model's named outputs, in index order.
    pub fn output_names(&self) -> &'static [&'static str] {
        self.outputs.names
    }

    /// The value of the output named `name` at `state`: a sample of this solution, or any
    /// state of it the caller holds (a dense-output state of [`Solution::at`] or
    /// [`Solution::left_limit_at`]). An unknown name is a
    /// [`LookupError::UnknownName`] listing the model's outputs.
    pub fn output_of(
        &self,
        name: &str,
        state: &SampleState<X, NY, NZ>,
    ) -> Result<f64, LookupError> {
        let k = self.outputs.index(name)?;
        Ok((self.outputs.value)(
            k,
            state.t,
            &state.y,
            &state.z,
            &self.outputs.p,
        ))
    }

    /// `do/dθ` of the output named `name` at `state` (whose time is fixed: no `o_t` term), for
    /// the direction `wrt` the solve computed. A `state` with fewer sensitivity columns than
    /// the solution's directions is a [`LookupError::OutOfRange`].
    pub fn output_sensitivity_of<'w>(
        &self,
        name: &str,
        state: &SampleState<X, NY, NZ>,
        wrt: impl Into<Wrt<'w>>,
    ) -> Result<f64, LookupError> {
        let k = self.outputs.index(name)?;
        let j = self.column(wrt.into())?;
        let dy = item("sensitivity column", &state.dy, j)?;
        let dz = item("sensitivity column", &state.dz, j)?;
        let o = &self.outputs;
        let d = (o.partials)(k, state.t, &state.y, &state.z, &o.p);
        Ok(chain(&d, self.directions[j], dy, dz, 0.0))
    }

    /// The value of the output named `name` at sample `k`.
    pub fn output(&self, name: &str, k: usize) -> Result<f64, LookupError> {
        self.output_of(name, item("sample", &self.samples, k)?)
    }

    /// `do/dθ` of the output named `name` at sample `k`.
    pub fn output_sensitivity<'w>(
        &self,
        name: &str,
        k: usize,
        wrt: impl Into<Wrt<'w>>,
    ) -> Result<f64, LookupError> {
        let sample = item("sample", &self.samples, k)?;
        self.output_sensitivity_of(name, sample, wrt)
    }

    /// The value of the output named `name` at the time reached ([`Solution::t`]).
    pub fn final_output(&self, name: &str) -> Result<f64, LookupError> {
        let k = self.outputs.index(name)?;
        Ok((self.outputs.value)(
            k,
            self.t,
            &self.y,
            &self.z,
            &self.outputs.p,
        ))
    }

    /// `do/dθ` of the output named `name` at the time reached, with `o_t τ` when a terminal
    /// guard ended the solve at `t_f(θ)`.
    pub fn final_output_sensitivity<'w>(
        &self,
        name: &str,
        wrt: impl Into<Wrt<'w>>,
    ) -> Result<f64, LookupError> {
        let k = self.outputs.index(name)?;
        let j = self.column(wrt.into())?;
        let o = &self.outputs;
        let d = (o.partials)(k, self.t, &self.y, &self.z, &o.p);
        Ok(chain(
            &d,
            self.directions[j],
            &self.dy[j],
            &self.dz[j],
            self.dt[j],
        ))
    }
}
