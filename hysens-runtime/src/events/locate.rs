//! Crossing detection on the dense output of a computed step, and the root of the guard there
//! by the Illinois method (module docs of `events/`, "Detection").

use super::arming::{fires_moving, rate_tolerance, value_scale, Entry, ZERO_ULPS};
use super::{sign, t_eps, Armed, Crossing, ModeIntegrator, SCAN};
use crate::error::SolveError;
use crate::model::{Direction, HybridModel, ModeAdapter, ScalarPartials};
use crate::step::dense::{hermite, hermite_derivative, lerp};
use crate::step::Trial;

/// Points at which the interpolant of the scanned values is searched for a turn inside each
/// sub-interval (cheap: a polynomial, no model call).
const TURN_SEARCH: usize = 16;

/// Dense-output evaluations spent confirming a suspected turn in one sub-interval.
const TURN_EVALUATIONS: usize = 10;

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

/// One guard along the dense output of the computed (not accepted) step `trial`.
pub(crate) struct DenseGuard<
    's,
    'i,
    'm,
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
> {
    it: &'s ModeIntegrator<'i, 'm, M, S, NY, NZ, NP, N>,
    adapter: &'s ModeAdapter<'m, M, NY, NZ, NP>,
    p: &'s [f64; NP],
    guard: usize,
    h: f64,
}

impl<
        's,
        'i,
        'm,
        M,
        const S: usize,
        const NY: usize,
        const NZ: usize,
        const NP: usize,
        const N: usize,
    > DenseGuard<'s, 'i, 'm, M, S, NY, NZ, NP, N>
where
    M: HybridModel<NY, NZ, NP>,
{
    /// Guard `guard` on the dense output of the step of size `h` in the integrator's stage
    /// storage.
    pub(crate) fn new(
        it: &'s ModeIntegrator<'i, 'm, M, S, NY, NZ, NP, N>,
        adapter: &'s ModeAdapter<'m, M, NY, NZ, NP>,
        p: &'s [f64; NP],
        guard: usize,
        h: f64,
    ) -> Self {
        DenseGuard {
            it,
            adapter,
            p,
            guard,
            h,
        }
    }

    /// The dense state at `θ`.
    fn state(&self, theta: f64) -> ([f64; NY], [f64; NZ]) {
        let (ys, zs, fs) = self.it.stages();
        let mut y = [0.0; NY];
        let mut z = [0.0; NZ];
        if theta == 0.0 {
            return (ys[0], zs[0]);
        }
        if theta == 1.0 {
            return (ys[S - 1], zs[S - 1]);
        }
        hermite(
            theta,
            self.h,
            &ys[0],
            &ys[S - 1],
            &fs[0],
            &fs[S - 1],
            &mut y,
        );
        lerp(theta, &zs[0], &zs[S - 1], &mut z);
        (y, z)
    }

    /// The guard at `θ` (the step's own end points at `θ = 0, 1`).
    pub(crate) fn value(&self, theta: f64) -> Result<f64, SolveError> {
        let (y, z) = self.state(theta);
        let at = self
            .adapter
            .point(self.it.t() + theta * self.h, &y, &z, self.p);
        let v = self.adapter.model().guard(self.guard, &at);
        if v.is_finite() {
            Ok(v)
        } else {
            Err(SolveError::NonFiniteValue {
                t: self.it.t(),
                mode: self.adapter.mode(),
                what: "guard on the dense output",
            })
        }
    }

    /// The sign of the guard's rate `ḣ = h_t + h_y u̇ + h_z ż` at `θ` along the dense output,
    /// or 0 if it is within round-off of its terms (`events/arming.rs`).
    fn moving(&self, theta: f64) -> f64 {
        let (ys, zs, fs) = self.it.stages();
        let (y, z) = self.state(theta);
        let mut ydot = [0.0; NY];
        hermite_derivative(
            theta,
            self.h,
            &ys[0],
            &ys[S - 1],
            &fs[0],
            &fs[S - 1],
            &mut ydot,
        );
        let at = self
            .adapter
            .point(self.it.t() + theta * self.h, &y, &z, self.p);
        let mut d = ScalarPartials::ZERO;
        let model = self.adapter.model();
        model.guard_partials(self.guard, &at, &mut d);
        let mut zdot = [0.0; NZ];
        for c in 0..NZ {
            zdot[c] = (zs[S - 1][c] - zs[0][c]) / self.h;
        }
        let rate = d.t
            + d.y.iter().zip(&ydot).map(|(a, b)| a * b).sum::<f64>()
            + d.z.iter().zip(&zdot).map(|(a, b)| a * b).sum::<f64>();
        let mode = self.adapter.mode();
        let tolerance = rate_tolerance(model, mode, &at, &d, &ydot, &zdot, &Entry::Start);
        if rate.is_finite() && rate.abs() > tolerance {
            sign(rate)
        } else {
            0.0
        }
    }

    /// Whether `v`, the guard at `θ`, is zero within round-off of its terms there
    /// (`events/arming.rs`).
    pub(crate) fn is_zero(&self, theta: f64, v: f64) -> bool {
        let (y, z) = self.state(theta);
        let at = self
            .adapter
            .point(self.it.t() + theta * self.h, &y, &z, self.p);
        let mut d = ScalarPartials::ZERO;
        self.adapter.model().guard_partials(self.guard, &at, &mut d);
        v.abs() <= ZERO_ULPS * f64::EPSILON * value_scale(v, &d, &at)
    }
}

/// The values of one guard at the scan points `θ_k = k/SCAN`, `k = 0..=SCAN`, of a step.
struct Scan<
    'd,
    's,
    'i,
    'm,
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
> {
    dense: &'d DenseGuard<'s, 'i, 'm, M, S, NY, NZ, NP, N>,
    values: [f64; SCAN + 1],
}

/// A bracket `(θa, va, θb, vb)` of a crossing: `va` on the armed side, `vb` across.
type Bracket = (f64, f64, f64, f64);

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize>
    Scan<'_, '_, '_, '_, M, S, NY, NZ, NP, N>
where
    M: HybridModel<NY, NZ, NP>,
{
    fn theta(k: usize) -> f64 {
        k as f64 / SCAN as f64
    }

    /// The first crossing of a guard armed with sign `armed` in `direction` along the step
    /// (module docs of `events/`, "Detection"), and the guard's running sign at the end.
    fn first_crossing(
        &self,
        direction: Direction,
        armed: f64,
    ) -> Result<(Option<Bracket>, f64), SolveError> {
        let mut cs = armed;
        let v0 = self.values[0];
        // The last point clearly on the running sign's side.
        let mut last = (
            0.0,
            if sign(v0) == cs {
                v0
            } else {
                cs * f64::MIN_POSITIVE
            },
        );
        for k in 1..=SCAN {
            let (theta, v) = (Self::theta(k), self.values[k]);
            let firing = fires(direction, cs, v);
            // A crossing: beyond zero, or on it and moving on across (decided by the flow, as
            // at a mode's entry); on it and turning back is a tangency, no event.
            if firing
                && (!self.dense.is_zero(theta, v)
                    || fires_moving(direction, self.dense.moving(theta)))
            {
                return Ok((Some((last.0, last.1, theta, v)), cs));
            }
            // Both ends of the sub-interval on the armed side: a turn inside may cross zero
            // twice.
            if !firing && sign(v) == cs && last.0 == Self::theta(k - 1) {
                if let Some((theta_d, v_d)) = self.turn(k, cs)? {
                    if fires_moving(direction, -cs) {
                        return Ok((Some((last.0, last.1, theta_d, v_d)), cs));
                    }
                    if fires_moving(direction, cs) {
                        return Ok((Some((theta_d, v_d, theta, v)), cs));
                    }
                }
            }
            if !firing && v != 0.0 {
                cs = sign(v);
                last = (theta, v);
            }
        }
        Ok((None, cs))
    }

    /// A point inside sub-interval `k` where the guard, of sign `s` at both ends, has the
    /// other sign (beyond round-off): a turn that crosses zero twice. Suspected where the
    /// interpolant of all scanned values (a quartic, exact for a guard linear in `t, y` on the
    /// cubic dense output) turns inside the sub-interval towards zero, and confirmed on the
    /// dense output.
    fn turn(&self, k: usize, s: f64) -> Result<Option<(f64, f64)>, SolveError> {
        let (a, b) = (Self::theta(k - 1), Self::theta(k));
        let (va, vb) = (s * self.values[k - 1], s * self.values[k]);
        let p = Interpolant::new(&self.values);
        if !(s * p.slope(a) < 0.0 && s * p.slope(b) > 0.0) {
            return Ok(None);
        }
        let mut theta_min = a;
        let mut p_min = va;
        for j in 1..TURN_SEARCH {
            let theta = a + (b - a) * j as f64 / TURN_SEARCH as f64;
            let v = s * p.value(theta);
            if v < p_min {
                (theta_min, p_min) = (theta, v);
            }
        }
        // Not near zero: the values on either side say the guard stays clear of it.
        if p_min > 0.25 * va.min(vb) {
            return Ok(None);
        }
        let crossed = |theta: f64| -> Result<Option<(f64, f64)>, SolveError> {
            let v = self.dense.value(theta)?;
            Ok((sign(v) == -s && !self.dense.is_zero(theta, v)).then_some((theta, v)))
        };
        if let Some(found) = crossed(theta_min)? {
            return Ok(Some(found));
        }
        // Golden-section search for the dense guard's extremum towards zero.
        let ratio = 0.5 * (libm::sqrt(5.0) - 1.0);
        let (mut lo, mut hi) = (a, b);
        let mut x1 = hi - ratio * (hi - lo);
        let mut x2 = lo + ratio * (hi - lo);
        let mut f1 = s * self.dense.value(x1)?;
        let mut f2 = s * self.dense.value(x2)?;
        for _ in 0..TURN_EVALUATIONS {
            if f1.min(f2) < 0.0 {
                let x = if f1 < f2 { x1 } else { x2 };
                if let Some(found) = crossed(x)? {
                    return Ok(Some(found));
                }
            }
            if f1 < f2 {
                (hi, x2, f2) = (x2, x1, f1);
                x1 = hi - ratio * (hi - lo);
                f1 = s * self.dense.value(x1)?;
            } else {
                (lo, x1, f1) = (x1, x2, f2);
                x2 = lo + ratio * (hi - lo);
                f2 = s * self.dense.value(x2)?;
            }
        }
        Ok(None)
    }
}

/// The polynomial of degree `SCAN` through the scanned values at `θ_k = k/SCAN` (Newton's
/// divided differences).
struct Interpolant {
    coefficients: [f64; SCAN + 1],
}

impl Interpolant {
    fn new(values: &[f64; SCAN + 1]) -> Self {
        let mut c = *values;
        for order in 1..=SCAN {
            for k in (order..=SCAN).rev() {
                c[k] = (c[k] - c[k - 1]) * SCAN as f64 / order as f64;
            }
        }
        Interpolant { coefficients: c }
    }

    /// `(value, slope)` at `θ` (Horner on the Newton form, with its derivative).
    fn eval(&self, theta: f64) -> (f64, f64) {
        let c = &self.coefficients;
        let (mut v, mut d) = (c[SCAN], 0.0);
        for k in (0..SCAN).rev() {
            let node = k as f64 / SCAN as f64;
            d = d * (theta - node) + v;
            v = v * (theta - node) + c[k];
        }
        (v, d)
    }

    fn value(&self, theta: f64) -> f64 {
        self.eval(theta).0
    }

    fn slope(&self, theta: f64) -> f64 {
        self.eval(theta).1
    }
}

/// Crossing detection on the dense output of the computed step `trial` (module docs of
/// `events/`); returns the earliest crossing (ties within round-off of the time go to the
/// lowest guard index) and the armed signs at the end of the step (used if the step is
/// accepted).
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
    let mode = adapter.mode();
    let h = trial.h;
    let mut next = *armed;
    let mut best: Option<Crossing> = None;
    let xtol = t_eps(it.t() + h) / h;
    for (g, info) in M::GUARDS.iter().enumerate() {
        if info.from != mode {
            continue;
        }
        let dense = DenseGuard::new(it, adapter, p, g, h);
        let mut values = [0.0; SCAN + 1];
        for (k, v) in values.iter_mut().enumerate() {
            *v = dense.value(k as f64 / SCAN as f64)?;
        }
        let armed_sign = armed.get(g);
        if armed_sign == 0.0 {
            // Undecided (it stayed on its zero along the mode's first step,
            // `hybrid/entry.rs`): takes the end sign, cannot fire in this step.
            next.set(g, sign(values[SCAN]));
            continue;
        }
        let scan = Scan {
            dense: &dense,
            values,
        };
        let (bracket, end_sign) = scan.first_crossing(info.direction, armed_sign)?;
        next.set(g, end_sign);
        let Some((ta, va, tb, vb)) = bracket else {
            continue;
        };
        let mut f = |th: f64| dense.value(th).unwrap_or(f64::NAN);
        let root = illinois(ta, va, tb, vb, xtol, &mut f);
        if best.is_none_or(|b| root < b.theta - 2.0 * xtol) {
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
        if !fc.is_finite() {
            break;
        }
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

    /// The interpolant of the scanned values reproduces a quartic and its slope exactly (to
    /// round-off).
    #[test]
    fn interpolant_reproduces_quartics() {
        let q = |x: f64| 3.0 - 2.0 * x + 0.5 * x * x - 7.0 * x * x * x + 1.25 * x * x * x * x;
        let dq = |x: f64| -2.0 + x - 21.0 * x * x + 5.0 * x * x * x;
        let values = core::array::from_fn(|k| q(k as f64 / SCAN as f64));
        let p = Interpolant::new(&values);
        for x in [0.0, 0.1, 0.33, 0.5, 0.8, 1.0] {
            let (v, d) = p.eval(x);
            assert!((v - q(x)).abs() < 1e-13, "{x}: {v} vs {}", q(x));
            assert!((d - dq(x)).abs() < 1e-12, "{x}: {d} vs {}", dq(x));
        }
    }
}
