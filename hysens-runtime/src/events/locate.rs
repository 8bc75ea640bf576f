//! Crossing detection on the dense output of a computed step, and the root of the guard there
//! by the Illinois method (module docs of `events/`).

use super::{sign, t_eps, Armed, Crossing, ModeIntegrator, SCAN};
use crate::error::SolveError;
use crate::model::{Direction, HybridModel, ModeAdapter};
use crate::step::dense::{hermite, lerp};
use crate::step::Trial;

/// Whether a guard armed with sign `armed` fires when it takes the value `v`.
pub(crate) fn fires(direction: Direction, armed: f64, v: f64) -> bool {
    let rising = armed < 0.0 && v >= 0.0;
    let falling = armed > 0.0 && v <= 0.0;
    match direction {
        Direction::Rising => rising,
        Direction::Falling => falling,
        Direction::Either => rising || falling,
    }
}

/// Guard `g` on the dense output of the computed (not accepted) step of size `h` at `θ`.
#[inline]
pub(crate) fn dense_guard<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
>(
    it: &ModeIntegrator<'_, '_, M, S, NY, NZ, NP, N>,
    adapter: &ModeAdapter<'_, M, NY, NZ, NP>,
    p: &[f64; NP],
    g: usize,
    h: f64,
    theta: f64,
) -> f64
where
    M: HybridModel<NY, NZ, NP>,
{
    let (ys, zs, fs) = it.stages();
    let mut y = [0.0; NY];
    let mut z = [0.0; NZ];
    hermite(theta, h, &ys[0], &ys[S - 1], &fs[0], &fs[S - 1], &mut y);
    lerp(theta, &zs[0], &zs[S - 1], &mut z);
    let at = adapter.point(it.t() + theta * h, &y, &z, p);
    adapter.model().guard(g, &at)
}

/// Crossing detection on the dense output of the computed step `trial` (module docs of
/// `events/`); returns the earliest crossing and the armed signs at the end of the step (used
/// if the step is accepted).
#[inline]
pub(crate) fn detect<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
>(
    it: &ModeIntegrator<'_, '_, M, S, NY, NZ, NP, N>,
    adapter: &ModeAdapter<'_, M, NY, NZ, NP>,
    p: &[f64; NP],
    armed: &Armed,
    trial: &Trial,
) -> Result<(Option<Crossing>, Armed), SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let model = adapter.model();
    let mode = adapter.mode();
    let h = trial.h;
    let t = it.t();
    let mut next = *armed;
    let mut best: Option<Crossing> = None;
    let xtol = t_eps(t + h) / h;
    for (g, info) in M::GUARDS.iter().enumerate() {
        if info.from != mode {
            continue;
        }
        let (ys, zs, _) = it.stages();
        let v_start = model.guard(g, &adapter.point(t, &ys[0], &zs[0], p));
        let end_at = adapter.point(trial.t_end, &ys[S - 1], &zs[S - 1], p);
        let v_end = model.guard(g, &end_at);
        if !v_start.is_finite() || !v_end.is_finite() {
            return Err(SolveError::NonFiniteValue {
                t,
                mode,
                what: "guard",
            });
        }
        let mut cs = armed.get(g);
        if cs == 0.0 {
            // Undecided after a restart: takes the end sign, cannot fire in this step.
            next.set(g, sign(v_end));
            continue;
        }
        let mut prev_theta = 0.0;
        let mut prev_v = if sign(v_start) == cs {
            v_start
        } else {
            cs * f64::MIN_POSITIVE
        };
        let mut found = None;
        for k in 1..=SCAN {
            let theta = k as f64 / SCAN as f64;
            let v = if k == SCAN {
                v_end
            } else {
                dense_guard(it, adapter, p, g, h, theta)
            };
            if !v.is_finite() {
                return Err(SolveError::NonFiniteValue {
                    t,
                    mode,
                    what: "guard on the dense output",
                });
            }
            if fires(info.direction, cs, v) {
                found = Some((prev_theta, prev_v, theta, v));
                break;
            }
            if v != 0.0 {
                cs = sign(v);
            }
            prev_theta = theta;
            prev_v = v;
        }
        next.set(g, cs);
        let Some((ta, va, tb, vb)) = found else {
            continue;
        };
        let root = illinois(ta, va, tb, vb, xtol, |th| {
            dense_guard(it, adapter, p, g, h, th)
        });
        if best.is_none_or(|b| root < b.theta) {
            best = Some(Crossing {
                guard: g,
                h,
                theta: root,
                theta_a: ta,
                theta_b: tb,
                value_a: va,
                value_b: vb,
            });
        }
    }
    Ok((best, next))
}

/// A root of `f` in `[a, b]` given `f(a) = fa`, `f(b) = fb` of opposite signs (or `fb = 0`),
/// by the Illinois method (Dowell & Jarratt 1971), to `|b − a| ≤ xtol` (at most 200
/// evaluations). Returns the end of the final bracket on the far side of the crossing
/// (`b`-side), so that the result is at or just past the root.
pub(crate) fn illinois<F: FnMut(f64) -> f64>(
    mut a: f64,
    mut fa: f64,
    mut b: f64,
    mut fb: f64,
    xtol: f64,
    mut f: F,
) -> f64 {
    if fb == 0.0 {
        return b;
    }
    let mut side = 0i32;
    for _ in 0..200 {
        if (b - a).abs() <= xtol {
            break;
        }
        let denom = fb - fa;
        let mut c = if denom != 0.0 && denom.is_finite() {
            b - fb * (b - a) / denom
        } else {
            0.5 * (a + b)
        };
        // Keep strictly inside the bracket (round-off or a degenerate secant).
        if !(c > a.min(b) && c < a.max(b)) {
            c = 0.5 * (a + b);
        }
        let fc = f(c);
        if fc == 0.0 {
            return c;
        }
        if sign(fc) == sign(fb) {
            b = c;
            fb = fc;
            if side == 1 {
                fa *= 0.5;
            }
            side = 1;
        } else {
            a = c;
            fa = fc;
            if side == -1 {
                fb *= 0.5;
            }
            side = -1;
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions() {
        assert!(fires(Direction::Rising, -1.0, 0.0));
        assert!(!fires(Direction::Rising, 1.0, -1.0));
        assert!(fires(Direction::Falling, 1.0, -1.0));
        assert!(fires(Direction::Either, 1.0, -1.0));
        assert!(!fires(Direction::Either, 0.0, -1.0));
    }

    /// cos(x) = x has the root 0.7390851332151607 (Dottie number); the Illinois bracket ends
    /// within 1 ulp-scale tolerance.
    #[test]
    fn illinois_dottie() {
        let f = |x: f64| libm::cos(x) - x;
        let r = illinois(0.0, f(0.0), 1.0, f(1.0), 1e-15, f);
        assert!((r - 0.739_085_133_215_160_7).abs() < 2e-15, "{r}");
    }
}
