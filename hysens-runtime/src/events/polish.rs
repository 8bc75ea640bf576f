//! Moving a root found on the dense output onto the discrete solution (module docs of
//! `events/`, "Polishing").

use super::locate::DenseGuard;
use super::{t_eps, Crossing};
use crate::error::SolveError;
use crate::fsa::ModeIntegrator;
use crate::model::{HybridModel, ModeAdapter, SmoothMode};
use crate::step::Trial;

/// Maximum secant iterations when moving an event onto the discrete solution.
const MAX_POLISH: usize = 12;

/// Secant iteration on `φ(H) = h(step of size H)` started from the dense-output root `cr` of
/// the computed step `trial`. Returns the step size to the event and the number of re-takes;
/// the integrator's stage storage holds that step.
#[inline]
pub(crate) fn polish<
    'm,
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
>(
    it: &mut ModeIntegrator<'_, 'm, M, S, NY, NZ, NP, N>,
    adapter: &ModeAdapter<'m, M, NY, NZ, NP>,
    p: &[f64; NP],
    trial: &Trial,
    cr: &Crossing,
) -> Result<(f64, usize), SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let h = trial.h;
    let t = it.t();
    let g = cr.guard;
    let h_min = t_eps(t);
    // max/min rather than f64::clamp, which panics if h < h_min (tiny landing steps).
    let clamp = |x: f64| x.max(h_min).min(h);
    let slope = dense_slope(it, adapter, p, cr, h)?;
    let eval = |it: &mut ModeIntegrator<'_, 'm, M, S, NY, NZ, NP, N>, hh: f64| {
        guard_at_step_end(it, adapter, p, g, hh)
    };
    let mut n = 1;
    let mut ha = clamp(cr.theta * h);
    let mut fa = eval(it, ha)?;
    if fa == 0.0 {
        return Ok((ha, n));
    }
    let mut hb = if slope.is_finite() && slope != 0.0 {
        clamp(ha - fa / slope)
    } else {
        clamp(ha * (1.0 - 1e-8))
    };
    if hb == ha {
        return Ok((ha, n));
    }
    // Best point so far (smallest |φ|).
    let (mut best_h, mut best_f) = (ha, fa);
    for _ in 0..MAX_POLISH {
        let fb = eval(it, hb)?;
        n += 1;
        if fb.abs() < best_f.abs() {
            best_h = hb;
            best_f = fb;
        }
        if fb == 0.0 || fb == fa {
            return Ok((hb, n));
        }
        let hn = clamp(hb - fb * (hb - ha) / (fb - fa));
        if (hn - hb).abs() <= t_eps(t + hb) {
            return Ok((hb, n));
        }
        ha = hb;
        fa = fb;
        hb = hn;
    }
    // Not converged to round-off: re-take the best point so that the storage holds it.
    if best_h != ha {
        eval(it, best_h)?;
        n += 1;
    }
    Ok((best_h, n))
}

/// The slope `dh/dt` of guard `cr.guard` at the dense-output root `cr` of the computed step of
/// size `h` (central difference in `θ`), for the first secant point.
fn dense_slope<
    'm,
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
>(
    it: &ModeIntegrator<'_, 'm, M, S, NY, NZ, NP, N>,
    adapter: &ModeAdapter<'m, M, NY, NZ, NP>,
    p: &[f64; NP],
    cr: &Crossing,
    h: f64,
) -> Result<f64, SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let dth = 1e-6_f64
        .min(0.5 * cr.theta)
        .min(0.5 * (1.0 - cr.theta))
        .max(1e-12);
    let dense = DenseGuard::new(it, adapter, p, cr.guard, h);
    Ok((dense.value(cr.theta + dth)? - dense.value(cr.theta - dth)?) / (2.0 * dth * h))
}

/// `φ(H)`: guard `guard` at the end of the step of size `hh` from the integrator's state,
/// taken with [`ModeIntegrator::evaluate_fixed`] (the stage storage then holds that step); in
/// an index-2 mode with `z` from the hidden constraint at the step's end, where the solve goes
/// on from (`fsa/index2.rs`).
fn guard_at_step_end<
    'm,
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
>(
    it: &mut ModeIntegrator<'_, 'm, M, S, NY, NZ, NP, N>,
    adapter: &ModeAdapter<'m, M, NY, NZ, NP>,
    p: &[f64; NP],
    guard: usize,
    hh: f64,
) -> Result<f64, SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let t = it.t();
    it.evaluate_fixed(hh)?;
    let (ys, zs, _) = it.stages();
    let (y, mut z) = (ys[S - 1], zs[S - 1]);
    if adapter.is_index2() {
        // z on the hidden constraint, not the stage value (`model/event_guard.rs`).
        z = it.step.on_hidden_constraint(t + hh, &y, z)?;
    }
    let at = adapter.point(t + hh, &y, &z, p);
    let v = adapter.model().guard(guard, &at);
    if !v.is_finite() {
        return Err(SolveError::NonFiniteValue {
            t,
            mode: adapter.mode(),
            what: "guard",
        });
    }
    Ok(v)
}
