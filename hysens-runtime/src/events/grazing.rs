//! When a crossing is a grazing event (module docs of `events/`, "Grazing").
//!
//! A crossing's event time `t*` has the derivative `τ = −(h_p + h_y s + …)/ḣ`, meaningful only
//! where the solution resolves the rate `ḣ`. At the requested tolerances the state is known to
//! about its tolerance, which moves the guard by up to its tolerance band
//! `w = Σ_i |h_{y_i}| (atol_i + rtol_i |y_i|) + Σ_j |h_{z_j}| (atol_j + rtol_j |z_j|)`, and so
//! the crossing in time by `w/|ḣ|`; over that time the rate itself changes by `|ḧ| w/|ḣ|`. When
//! that is comparable to the rate, `ḣ² ≤ 2 |ḧ| · grazing_tol · w`
//! (`HybridOptions::grazing_tol`, default 0.1), the rate — and `τ` — are not determined by the
//! solution: near a tangency the guard goes past zero by only `ḣ²/(2|ḧ|)`, within the band,
//! and whether it crosses at all is not decided; at an inflection (`ḣ = 0` exactly, a crossing
//! without rate) `τ` is infinite; impacts that accumulate (Zeno) end where their speeds fall
//! below what the tolerances resolve. A rate within round-off of its terms is the same. These
//! are [`crate::SolveError::GrazingEvent`]. A touch that does not cross is no event at all
//! (`locate.rs`).

use super::algebraic_rate;
use super::arming::{rate_tolerance, Entry};
use crate::model::{HybridModel, Point, ScalarPartials};
use crate::run::HybridOptions;

/// Whether the crossing of `guard` in `mode` at `at` (the event point), with rate `hdot` and
/// second derivative `hddot` (from the dense output) is a grazing event (module docs).
pub(crate) fn is_grazing<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    guard: usize,
    mode: usize,
    at: &Point<'_, NY, NZ, NP>,
    options: &HybridOptions<NY, NZ>,
    hdot: f64,
    hddot: f64,
) -> bool
where
    M: HybridModel<NY, NZ, NP>,
{
    if !hdot.is_finite() || hdot == 0.0 {
        return true;
    }
    let mut d = ScalarPartials::ZERO;
    model.guard_partials(guard, at, &mut d);
    let (grazing_tol, options) = (options.grazing_tol, &options.integrator);
    let mut band = 0.0;
    for i in 0..NY {
        band += d.y[i].abs() * (options.atol_y[i] + options.rtol_y[i] * at.y[i].abs());
    }
    for j in 0..NZ {
        band += d.z[j].abs() * (options.atol_z[j] + options.rtol_z[j] * at.z[j].abs());
    }
    if hdot * hdot <= 2.0 * hddot.abs() * grazing_tol * band {
        return true;
    }
    // A rate within round-off of its terms.
    let mut ydot = [0.0; NY];
    let mut g = [0.0; NZ];
    model.residual(mode, at, &mut ydot, &mut g);
    let zdot = algebraic_rate(model, mode, at, &ydot).unwrap_or([0.0; NZ]);
    hdot.abs() <= rate_tolerance(model, mode, at, &d, &ydot, &zdot, &Entry::Start)
}
