//! Crossing detection on the dense output of a computed step, and the root of the guard there
//! by the Illinois method (module docs of `events/`, "Detection").

use super::arming::{fires_moving, rate_tolerance, value_scale, Entry, ZERO_ULPS};
use super::{sign, t_eps, Armed, Crossing, SCAN};
use crate::error::SolveError;
use crate::fsa::ModeIntegrator;
use crate::model::{Direction, HybridModel, ModeAdapter, ScalarPartials};
use crate::step::dense::{lerp, Hermite};
use crate::step::Trial;
use core::cell::Cell;

/// Points at which the interpolant of the scanned values is searched for a turn inside each
/// sub-interval (cheap: a polynomial, no model call).
const TURN_SEARCH: usize = 16;

/// The quartic through the values at `θ = 0, ¼, ½, ¾, 1` at the odd scan points
/// `θ = ⅛, ⅜, ⅝, ⅞`: its Lagrange weights (exact binary fractions).
const ODD_WEIGHTS: [[f64; 5]; 4] = [
    [
        35.0 / 128.0,
        35.0 / 32.0,
        -35.0 / 64.0,
        7.0 / 32.0,
        -5.0 / 128.0,
    ],
    [
        -5.0 / 128.0,
        15.0 / 32.0,
        45.0 / 64.0,
        -5.0 / 32.0,
        3.0 / 128.0,
    ],
    [
        3.0 / 128.0,
        -5.0 / 32.0,
        45.0 / 64.0,
        15.0 / 32.0,
        -5.0 / 128.0,
    ],
    [
        -5.0 / 128.0,
        7.0 / 32.0,
        -35.0 / 64.0,
        35.0 / 32.0,
        35.0 / 128.0,
    ],
];

/// Dense-output evaluations spent confirming a suspected turn in one sub-interval.
const TURN_EVALUATIONS: usize = 24;

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
> where
    M: HybridModel<NY, NZ, NP>,
{
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

    /// The cubic Hermite interpolant of `y` over the step.
    fn cubic(&self) -> Hermite<'_, NY> {
        let (ys, _, fs) = self.it.stages();
        let (y0, y1, f0, f1) = (&ys[0], &ys[S - 1], &fs[0], &fs[S - 1]);
        Hermite {
            h: self.h,
            y0,
            y1,
            f0,
            f1,
        }
    }

    /// The dense state at `θ`.
    fn state(&self, theta: f64) -> ([f64; NY], [f64; NZ]) {
        let (ys, zs, _) = self.it.stages();
        if theta == 0.0 {
            return (ys[0], zs[0]);
        }
        if theta == 1.0 {
            return (ys[S - 1], zs[S - 1]);
        }
        (self.cubic().value(theta), lerp(theta, &zs[0], &zs[S - 1]))
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

    /// The band within which the guard is zero at `θ`: `ZERO_ULPS ε` times the round-off scale
    /// of its value `v` there (`events/arming.rs`).
    pub(crate) fn zero_band(&self, theta: f64, v: f64) -> f64 {
        let (y, z) = self.state(theta);
        let at = self
            .adapter
            .point(self.it.t() + theta * self.h, &y, &z, self.p);
        let mut d = ScalarPartials::ZERO;
        self.adapter.model().guard_partials(self.guard, &at, &mut d);
        ZERO_ULPS * f64::EPSILON * value_scale(v, &d, &at)
    }

    /// The guard's second time derivative at `θ` along the dense output (a central difference
    /// over `Δθ = 10⁻³`, inside the step; exact to round-off for a guard linear in `t, y` on
    /// the cubic dense output).
    pub(crate) fn second_derivative(&self, theta: f64) -> Result<f64, SolveError> {
        let dt = 1e-3;
        let mid = theta.clamp(dt, 1.0 - dt);
        let (a, m, b) = (
            self.value(mid - dt)?,
            self.value(mid)?,
            self.value(mid + dt)?,
        );
        Ok((a - 2.0 * m + b) / (dt * self.h * dt * self.h))
    }

    /// The sign of the guard's rate `ḣ = h_t + h_y u̇ + h_z ż` at `θ` along the dense output,
    /// or 0 if it is within round-off of its terms (`events/arming.rs`).
    fn moving(&self, theta: f64) -> f64 {
        let (_, zs, _) = self.it.stages();
        let (y, z) = self.state(theta);
        let ydot = self.cubic().derivative(theta);
        let at = self
            .adapter
            .point(self.it.t() + theta * self.h, &y, &z, self.p);
        let mut d = ScalarPartials::ZERO;
        let model = self.adapter.model();
        model.guard_partials(self.guard, &at, &mut d);
        let mut zdot = [0.0; NZ];
        for (c, zc) in zdot.iter_mut().enumerate() {
            *zc = (zs[S - 1][c] - zs[0][c]) / self.h;
        }
        let rate = d.rate(&ydot, &zdot);
        let mode = self.adapter.mode();
        let tolerance = rate_tolerance(model, mode, &at, &d, &ydot, &zdot, &Entry::Start);
        if rate.is_finite() && rate.abs() > tolerance {
            sign(rate)
        } else {
            0.0
        }
    }
}

/// The values of one guard at the scan points `θ_k = k/SCAN`, `k = 0..=SCAN`, of a step, with
/// the quartic through the even ones and the guard's round-off band at the step's start.
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
> where
    M: HybridModel<NY, NZ, NP>,
{
    dense: &'d DenseGuard<'s, 'i, 'm, M, S, NY, NZ, NP, N>,
    values: [f64; SCAN + 1],
    quartic: Quartic,
    /// Values within this of zero are zero (module docs of `events/`, "Detection"): twice the
    /// guard's round-off band at the step's start, computed when first needed (NaN before).
    band: Cell<f64>,
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

    /// Values within this of zero are zero (the field `band`).
    fn band(&self) -> f64 {
        if self.band.get().is_nan() {
            self.band
                .set(2.0 * self.dense.zero_band(0.0, self.values[0]));
        }
        self.band.get()
    }

    /// Whether `v` is clearly on the side `s` (not within round-off of zero).
    fn clearly(&self, s: f64, v: f64) -> bool {
        sign(v) == s && v.abs() > self.band()
    }

    /// Whether the guard keeps one sign at every scan point, farther from zero than the whole
    /// range of its values over the step: then neither a crossing at a scan point nor a turn
    /// between them (which the quartic would show, `Scan::unresolved` checking it) reaches
    /// zero, and the scan needs no more.
    fn far_from_zero(&self) -> bool {
        let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
        for &v in &self.values {
            (low, high) = (low.min(v), high.max(v));
        }
        low > high - low || -high > high - low
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
        // The last point clearly on the running sign's side (`None`: the step starts on zero,
        // or across it — just after an event, armed by the flow).
        let mut last = self.clearly(cs, v0).then_some((0.0, v0));
        for k in 1..=SCAN {
            let (theta, v) = (Self::theta(k), self.values[k]);
            let firing = fires(direction, cs, v);
            // A crossing: beyond zero, or on it and moving on across (decided by the flow, as
            // at a mode's entry); on it and turning back is a tangency, no event.
            if firing
                && (v.abs() > self.band() || fires_moving(direction, self.dense.moving(theta)))
            {
                let start = match last {
                    Some(point) => point,
                    // From a zero at the step's start: after a short excursion to the armed
                    // side (a small bounce), or straight across.
                    None => self.apex(k, cs)?.unwrap_or((0.0, cs * f64::MIN_POSITIVE)),
                };
                return Ok((Some((start.0, start.1, theta, v)), cs));
            }
            // Both ends of the sub-interval clearly on the armed side: a turn inside may cross
            // zero twice — only next to a scanned point closer to zero than its neighbours.
            let previous = Self::theta(k - 1);
            if !firing
                && self.turns_near(k, cs)
                && self.clearly(cs, v)
                && last.is_some_and(|(t, _)| t == previous)
            {
                if let Some((theta_d, v_d)) = self.turn(k, cs)? {
                    if fires_moving(direction, -cs) {
                        let (ta, va) = last.unwrap_or((previous, self.values[k - 1]));
                        return Ok((Some((ta, va, theta_d, v_d)), cs));
                    }
                    if fires_moving(direction, cs) {
                        return Ok((Some((theta_d, v_d, theta, v)), cs));
                    }
                }
            }
            if !firing && v.abs() > self.band() {
                cs = sign(v);
                last = Some((theta, v));
            }
        }
        Ok((None, cs))
    }

    /// Whether sub-interval `k` ends at a scanned point nearer to zero on the side `s` than its
    /// neighbours: a turn of the guard towards zero inside it shows there (the scan resolves
    /// the guard, `Scan::unresolved`), so the others need no search.
    fn turns_near(&self, k: usize, s: f64) -> bool {
        let at = |j: usize| self.values.get(j).map_or(f64::INFINITY, |v| s * v);
        let lower = at(k - 1).min(at(k));
        let outer = k.checked_sub(2).map_or(f64::INFINITY, at).min(at(k + 1));
        lower <= outer
    }

    /// The first scan point `θ_{k−1}` of a pair of sub-intervals in which the quartic through
    /// the even scan points misses the odd one between them by more than half the guard's
    /// distance to zero there (and more than round-off): the guard varies too fast within the
    /// step for the scan to rule out a crossing there (module docs of `events/`).
    fn unresolved(&self) -> Option<f64> {
        let even: [f64; 5] = core::array::from_fn(|j| self.values[2 * j]);
        (1..SCAN).step_by(2).find_map(|k| {
            let (a, m, b) = (self.values[k - 1], self.values[k], self.values[k + 1]);
            let s = sign(m);
            let same_side = s != 0.0 && sign(a) == s && sign(b) == s;
            let predicted: f64 = ODD_WEIGHTS[k / 2]
                .iter()
                .zip(&even)
                .map(|(w, v)| w * v)
                .sum();
            let miss = (m - predicted).abs();
            let distance = a.abs().min(m.abs()).min(b.abs());
            (same_side && miss > 0.5 * distance && miss > self.band()).then(|| Self::theta(k - 1))
        })
    }

    /// A point inside sub-interval `k` where the guard, clearly of sign `s` at both ends, is
    /// clearly of the other sign: a turn that crosses zero twice. Suspected where the quartic
    /// turns inside the sub-interval towards zero, and confirmed on the dense output.
    fn turn(&self, k: usize, s: f64) -> Result<Option<(f64, f64)>, SolveError> {
        let (a, b) = (Self::theta(k - 1), Self::theta(k));
        if !(s * self.quartic.slope(a) < 0.0 && s * self.quartic.slope(b) > 0.0) {
            return Ok(None);
        }
        let (theta_min, p_min) = self.quartic.extreme(a, b, -s);
        let (va, vb) = (s * self.values[k - 1], s * self.values[k]);
        // Not near zero: the values on either side say the guard stays clear of it.
        if s * p_min > 0.25 * va.min(vb) {
            return Ok(None);
        }
        self.confirm(a, b, theta_min, -s)
    }

    /// A point inside `(0, θ_k)` clearly on the side `s`, where the guard, starting on its
    /// zero, turned before crossing at `θ_k` (a bounce shorter than a scan interval).
    fn apex(&self, k: usize, s: f64) -> Result<Option<(f64, f64)>, SolveError> {
        let b = Self::theta(k);
        let (theta_max, _) = self.quartic.extreme(0.0, b, s);
        self.confirm(0.0, b, theta_max, s)
    }

    /// A point of `(a, b)` where the dense guard is clearly of sign `s`: tried at `guess`, then
    /// at the extremum of `s·h` on `[a, b]` found by successive parabolic interpolation from
    /// `(a, guess, b)` (exact in one step for a guard quadratic in `θ` near its extremum, so a
    /// turn past zero by a few ulps of the guard is seen).
    fn confirm(
        &self,
        a: f64,
        b: f64,
        guess: f64,
        s: f64,
    ) -> Result<Option<(f64, f64)>, SolveError> {
        let at = |theta: f64| -> Result<(f64, f64), SolveError> {
            Ok((theta, s * self.dense.value(theta)?))
        };
        let across = |(theta, sv): (f64, f64)| (sv > self.band()).then_some((theta, s * sv));
        let guess = if guess > a && guess < b {
            guess
        } else {
            0.5 * (a + b)
        };
        // Three points bracketing the extremum of s·h, the middle one the largest.
        let (mut p0, mut p1, mut p2) = (at(a)?, at(guess)?, at(b)?);
        for _ in 0..TURN_EVALUATIONS {
            if let Some(point) = across(p1) {
                return Ok(Some(point));
            }
            let (d0, d2) = (p1.0 - p0.0, p1.0 - p2.0);
            let (f0, f2) = (p1.1 - p0.1, p1.1 - p2.1);
            let denominator = d0 * f2 - d2 * f0;
            let vertex = if denominator != 0.0 {
                p1.0 - 0.5 * (d0 * d0 * f2 - d2 * d2 * f0) / denominator
            } else {
                f64::NAN
            };
            // The vertex, if it is strictly inside and new; else the middle of the larger half.
            let x = if vertex > p0.0 && vertex < p2.0 && vertex != p1.0 {
                vertex
            } else if p1.0 - p0.0 > p2.0 - p1.0 {
                0.5 * (p0.0 + p1.0)
            } else {
                0.5 * (p1.0 + p2.0)
            };
            let q = at(x)?;
            if q.1 > p1.1 {
                if x < p1.0 {
                    (p2, p1) = (p1, q);
                } else {
                    (p0, p1) = (p1, q);
                }
            } else if x < p1.0 {
                p0 = q;
            } else {
                p2 = q;
            }
            if p2.0 - p0.0 <= 4.0 * f64::EPSILON {
                break;
            }
        }
        Ok(across(p1))
    }
}

/// The quartic through a guard's values at `θ = 0, ¼, ½, ¾, 1` (Newton's divided
/// differences): exact for a guard linear in `t, y` on the cubic dense output.
struct Quartic {
    coefficients: [f64; 5],
}

impl Quartic {
    fn new(values: [f64; 5]) -> Self {
        let mut c = values;
        for order in 1..5 {
            for k in (order..5).rev() {
                c[k] = (c[k] - c[k - 1]) * 4.0 / order as f64;
            }
        }
        Quartic { coefficients: c }
    }

    /// `(value, slope)` at `θ` (Horner on the Newton form, with its derivative).
    #[inline]
    fn eval(&self, theta: f64) -> (f64, f64) {
        let c = &self.coefficients;
        let (mut v, mut d) = (c[4], 0.0);
        for k in (0..4).rev() {
            let node = k as f64 / 4.0;
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

    /// Where on `[a, b]` the quartic goes furthest towards the side `s` (sampled at
    /// [`TURN_SEARCH`] interior points), and its value there.
    fn extreme(&self, a: f64, b: f64, s: f64) -> (f64, f64) {
        (1..TURN_SEARCH)
            .map(|j| {
                let theta = a + (b - a) * j as f64 / TURN_SEARCH as f64;
                (theta, self.value(theta))
            })
            .fold((a, self.value(a)), |best, (theta, v)| {
                if s * v > s * best.1 {
                    (theta, v)
                } else {
                    best
                }
            })
    }
}

/// What the scan of a computed step found.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Detection {
    /// The earliest crossing (ties within round-off of the time go to the lowest guard index).
    pub crossing: Option<Crossing>,
    /// The armed signs at the end of the step (used if the step is accepted).
    pub armed: Armed,
    /// The earliest `θ` from which a guard varies too fast within the step for the scan to
    /// rule out a crossing ([`Scan::unresolved`]): a shorter step is needed before it.
    pub unresolved: Option<f64>,
}

/// Crossing detection on the dense output of the computed step `trial` (module docs of
/// `events/`).
#[inline]
pub(crate) fn detect<
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
    armed: &Armed,
    trial: &Trial,
) -> Result<Detection, SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let mode = adapter.mode();
    let h = trial.h;
    let mut detection = Detection {
        crossing: None,
        armed: *armed,
        unresolved: None,
    };
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
            detection.armed.set(g, sign(values[SCAN]));
            continue;
        }
        let scan = Scan {
            dense: &dense,
            values,
            quartic: Quartic::new(core::array::from_fn(|j| values[2 * j])),
            band: Cell::new(f64::NAN),
        };
        let (bracket, end_sign) = if scan.far_from_zero() {
            (None, sign(values[SCAN]))
        } else {
            scan.first_crossing(info.direction, armed_sign)?
        };
        detection.armed.set(g, end_sign);
        if let Some(theta) = scan.unresolved() {
            if detection.unresolved.is_none_or(|u| theta < u) {
                detection.unresolved = Some(theta);
            }
        }
        let Some((ta, va, tb, vb)) = bracket else {
            continue;
        };
        let mut f = |th: f64| dense.value(th).unwrap_or(f64::NAN);
        let root = illinois(ta, va, tb, vb, xtol, &mut f);
        if detection
            .crossing
            .is_none_or(|b| root < b.theta - 2.0 * xtol)
        {
            detection.crossing = Some(Crossing {
                guard: g,
                theta: root,
                hddot: dense.second_derivative(root)?,
            });
        }
    }
    Ok(detection)
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

    /// The odd points' weights are the quartic's values there.
    #[test]
    fn odd_weights_are_the_quartics() {
        let q = |x: f64| 3.0 - 2.0 * x + 0.5 * x * x - 7.0 * x * x * x + 1.25 * x * x * x * x;
        let even: [f64; 5] = core::array::from_fn(|k| q(k as f64 / 4.0));
        for (j, weights) in ODD_WEIGHTS.iter().enumerate() {
            let x = (2 * j + 1) as f64 / 8.0;
            let p: f64 = weights.iter().zip(&even).map(|(w, v)| w * v).sum();
            assert!((p - q(x)).abs() < 1e-13, "{x}: {p} vs {}", q(x));
        }
    }

    /// The quartic through five scanned values reproduces a quartic and its slope exactly (to
    /// round-off).
    #[test]
    fn quartic_reproduces_quartics() {
        let q = |x: f64| 3.0 - 2.0 * x + 0.5 * x * x - 7.0 * x * x * x + 1.25 * x * x * x * x;
        let dq = |x: f64| -2.0 + x - 21.0 * x * x + 5.0 * x * x * x;
        let p = Quartic::new(core::array::from_fn(|k| q(k as f64 / 4.0)));
        for x in [0.0, 0.1, 0.33, 0.5, 0.8, 1.0] {
            let (v, d) = p.eval(x);
            assert!((v - q(x)).abs() < 1e-13, "{x}: {v} vs {}", q(x));
            assert!((d - dq(x)).abs() < 1e-12, "{x}: {d} vs {}", dq(x));
        }
    }
}
