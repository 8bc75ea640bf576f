//! Named outputs (`#[output]`): scalar functions `o(t, y, z, p)` of the solution, evaluated
//! at a stored state, and their sensitivities by the chain rule — without the heap. The
//! results use them: the no-heap ones (`crate::Sample::output`,
//! `crate::HybridSolution::output_sensitivities`, in `solver/core_outputs.rs`) and the owned
//! [`crate::Solution`] (`solver/outputs.rs`).
//!
//! **What an output reads.** Time, the differential states, the algebraic variables and the
//! parameters (inputs included, as they are appended to `p`): everything a sample, the final
//! state or a dense-output state holds together with its sensitivities. Not the memory
//! `(y*, z*)` of the last mode entry: a stored state does not carry it, nor its sensitivities
//! `∂y*/∂θ`, so an output of the memory could not be evaluated honestly at an arbitrary time
//! (`#[hybrid_model]` rejects it at compile time). The point an output is evaluated at has
//! [`Memory::ZERO`] as its memory.
//!
//! **Why outputs belong to the model type.** [`HybridModel::output`] and
//! [`HybridModel::output_partials`] are associated functions without `&self`, so their
//! function pointers can be taken from the type alone: the owned [`crate::Solution`] stores
//! them with the parameters of the solve and evaluates an output at any state it holds (a
//! sample, the final state, a dense-output state) long after the solve, without a model
//! instance. A generated model is a unit struct, so nothing is lost; a hand-written model's
//! outputs cannot read its instance data.
//!
//! **Sensitivities.** Along a direction `θ_j` (a parameter or an initial state),
//!
//! ```text
//! do/dθ_j = o_t ∂t/∂θ_j + o_y ∂y/∂θ_j + o_z ∂z/∂θ_j + o_p ∂p/∂θ_j,
//! ```
//!
//! the chain rule through `o(t, y(θ), z(θ), p(θ))`. `∂p/∂θ_j` is the unit vector `e_j` for a
//! parameter direction and zero for an initial-state direction; `∂t/∂θ_j` is zero at a fixed
//! time (a sample, a fixed `t_f`) and the event-time derivative `τ_j` (Serban & Recuero 2019,
//! Eq. 6) at the final time of a solve a terminal guard ended
//! ([`crate::HybridSolution::st`]). In the runtime's column layouts the first `NP` columns are the
//! parameters in order (the core solve has just those; [`crate::Solver::solve_into`] appends
//! the `NY` initial states), so column `j < NP` adds `o_p[j]`.

use super::{HybridModel, Memory, Point, ScalarPartials};

/// The value of output `output` of `M` at `(t, y, z)` with parameters `p`.
pub(crate) fn value<M, const NY: usize, const NZ: usize, const NP: usize>(
    output: usize,
    t: f64,
    y: &[f64; NY],
    z: &[f64; NZ],
    p: &[f64; NP],
) -> f64
where
    M: HybridModel<NY, NZ, NP> + ?Sized,
{
    let memory = Memory::ZERO;
    M::output(
        output,
        &Point {
            t,
            y,
            z,
            p,
            memory: &memory,
        },
    )
}

/// The partials of output `output` of `M` at `(t, y, z)` with parameters `p`.
pub(crate) fn partials<M, const NY: usize, const NZ: usize, const NP: usize>(
    output: usize,
    t: f64,
    y: &[f64; NY],
    z: &[f64; NZ],
    p: &[f64; NP],
) -> ScalarPartials<NY, NZ, NP>
where
    M: HybridModel<NY, NZ, NP> + ?Sized,
{
    let memory = Memory::ZERO;
    let mut d = ScalarPartials::ZERO;
    M::output_partials(
        output,
        &Point {
            t,
            y,
            z,
            p,
            memory: &memory,
        },
        &mut d,
    );
    d
}

/// `do/dθ_j` for every column `j` of the sensitivities `(sy, sz, st)`, the first `NP` of them
/// parameters (see the module docs for the formula).
pub(crate) fn chain<const NY: usize, const NZ: usize, const NP: usize, const K: usize>(
    d: &ScalarPartials<NY, NZ, NP>,
    sy: &[[f64; K]; NY],
    sz: &[[f64; K]; NZ],
    st: &[f64; K],
    out: &mut [f64; K],
) {
    for (j, out) in out.iter_mut().enumerate() {
        let mut total = d.t * st[j] + d.p.get(j).copied().unwrap_or(0.0);
        for (o, s) in d.y.iter().zip(sy) {
            total += o * s[j];
        }
        for (o, s) in d.z.iter().zip(sz) {
            total += o * s[j];
        }
        *out = total;
    }
}
