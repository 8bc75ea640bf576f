//! Dense output: the solution and its sensitivities at any time of the solve, read after it.
//!
//! With [`crate::HybridOutputs::dense`] the driver stores a [`DensePoint`] at the start of
//! every mode segment (the initial point, and the state just after each event) and at the end
//! of every accepted step: the values `y, z` with their time derivatives `ẏ = f`,
//! `ż = −g_z⁻¹(g_t + g_y ẏ)`, and the **fixed-time** sensitivities with theirs,
//!
//! ```text
//! s = ∂y(t)/∂p,   ṡ = f_y s + f_z w + f_p,
//! w = ∂z(t)/∂p,   ẇ = −g_z⁻¹ (ġ_y s + g_y ṡ + ġ_z w + ġ_p)
//! ```
//!
//! (the sensitivity equations of a semi-explicit index-1 DAE, Kristensen et al. 2004, Eq. 7;
//! `f_p, g_p` include the memory's `f_{y*} s* + …`, `model/adapter.rs`). A grid point whose time
//! moves with `p` (after an event, until a step lands on a fixed time) carries the total
//! derivative `s_n` of the integrator; the fixed-time one is `s_n − ẏ ∂t_n/∂p` (and so for `w`).
//! `ġ_y, ġ_z, ġ_p`, the rates of `g`'s Jacobian blocks along the flow, are central differences
//! over `±δ (1, ẏ, ż)` with `δ = ε^{1/3}` times the next step size (an `O(δ²)` truncation and
//! `O(ε/δ)` round-off error relative to the step's time scale, far below the interpolation's):
//! the only second derivatives the dense output needs, and only in DAE modes.
//!
//! Between two points of one segment [`dense_output`] interpolates every component by the cubic
//! Hermite polynomial of its values and slopes ([`hermite_value`]; Hairer, Nørsett & Wanner I,
//! §II.6), an `O(h⁴)` error on a step of size `h` on top of the step ends' own errors.
//!
//! **Algebraic variables.** In a DAE mode `z` is a function of `y` through `g = 0`, and can vary
//! much faster than `y` does (the steel oscillator's stress: `exp(−α ξ (u − u*))`, `α = 205`),
//! so the steps the error test chooses for `y` need not resolve a cubic in `z`. The driver
//! therefore also stores, for each step, `z` and `∂z/∂p` at its middle, *consistent*: Newton
//! on `g(t_½, y(t_½), z) = 0` at the interpolated `y`, then `w = −g_z⁻¹(g_y s + g_p)`; the
//! interpolant of `z` (and `w`) adds the quartic `16 θ²(1 − θ)² (z_½ − u(½))` that takes the
//! cubic through it. On the steel oscillator that cut the stress's error from 3000 to 4 times
//! `rtol ‖z‖ + atol`.
//!
//! **Error.** It interpolates the integrator's solution; it does not add accuracy. Measured on
//! Serban & Recuero's Ex. 5.1, the bouncing ball and the electromagnetic steel oscillator
//! (`tests/dense_output.rs`, 100 random times, `rtol` 1e-6, 1e-8, 1e-10, `atol = rtol/100`)
//! against solves sampled at the same times, the difference of each component `v` stays below
//! `20 (rtol ‖v‖ + atol)` for states and algebraic variables (measured ≤ 7) and below
//! `500 (rtol ‖v‖ + atol)` for sensitivities (measured ≤ 233, the stress's sensitivities at
//! rtol 1e-10; ≤ 23 for the ODE cases), `‖v‖` the largest magnitude of `v` over the solve.
//! The sensitivities are not in the error test by default (`Options::sensitivity_error_test`),
//! so two solves' own sensitivities differ by more than their states do: with that test on, the
//! same comparison measures ≤ 16 for the steel's differential sensitivities (78 without) and
//! ≤ 79 for its stress's (233 without).
//!
//! **Not for stiff components over long steps.** The slopes are `f` at the step ends; for a
//! stiff component (fast relaxation onto a slow manifold) `f` multiplies the step's small
//! distance from the manifold by the stiffness, and over a step far longer than the fast time
//! scale the cubic's slope terms carry that product: Robertson's `y₂` (≈ 1e-8 late in the solve,
//! steps of 10³ s) read at 40 log-spaced times to `t = 1e5` is off by 6.2e-6 at `rtol` 1e-4
//! and 2.6e-11 at 1e-8, where a solve sampled at those times is off by 1.2e-9 and 1.1e-12 (the
//! slow components `y₁, y₃` stay within 1.5·(rtol + atol), and the stiff Van der Pol oscillator
//! at μ = 1000 within 0.07·rtol of its amplitude). Read stiff components at sample times
//! ([`crate::Solver::samples`]) until a stiffly stable continuous extension replaces this one.
//!
//! **Events.** An event at `t*` ends one segment and starts another at the same time: the
//! points on both sides are stored, and [`Limit`] says which is read. [`Limit::Left`] gives
//! `y(t*⁻)`, the state the event log records as `y_before`; [`Limit::Right`] gives `y(t*⁺)`, its
//! `y_after` (for several events at one instant, the state before the first and after the
//! last). Away from events both are the same.

/// The solution at one time, with its time derivatives: what the driver stores for dense
/// output, and what [`dense_output`] returns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DensePoint<const NY: usize, const NZ: usize, const NP: usize> {
    /// Time.
    pub t: f64,
    /// Mode.
    pub mode: usize,
    /// Whether a mode segment starts here (the solve's start, or just after an event): the
    /// dense output does not interpolate from the point before it.
    pub segment_start: bool,
    /// `y(t)`.
    pub y: [f64; NY],
    /// `ẏ(t)`.
    pub ydot: [f64; NY],
    /// `z(t)`.
    pub z: [f64; NZ],
    /// `ż(t)`.
    pub zdot: [f64; NZ],
    /// `∂y(t)/∂p` at fixed `t` (zero without sensitivities).
    pub sy: [[f64; NP]; NY],
    /// Its time derivative.
    pub sydot: [[f64; NP]; NY],
    /// `∂z(t)/∂p` at fixed `t`.
    pub sz: [[f64; NP]; NZ],
    /// Its time derivative.
    pub szdot: [[f64; NP]; NZ],
    /// `z` at the middle of the step that ends here, consistent with `g = 0` there (zero at
    /// a segment's start, and in a mode without algebraic variables).
    pub z_mid: [f64; NZ],
    /// `∂z/∂p` at the middle of the step that ends here.
    pub sz_mid: [[f64; NP]; NZ],
}

impl<const NY: usize, const NZ: usize, const NP: usize> DensePoint<NY, NZ, NP> {
    /// All zero (to initialize storage).
    pub const ZERO: Self = DensePoint {
        t: 0.0,
        mode: 0,
        segment_start: false,
        y: [0.0; NY],
        ydot: [0.0; NY],
        z: [0.0; NZ],
        zdot: [0.0; NZ],
        sy: [[0.0; NP]; NY],
        sydot: [[0.0; NP]; NY],
        sz: [[0.0; NP]; NZ],
        szdot: [[0.0; NP]; NZ],
        z_mid: [0.0; NZ],
        sz_mid: [[0.0; NP]; NZ],
    };
}

/// Which side of an event time to read (module docs, "Events").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Just before: `y(t⁻)`.
    Left,
    /// Just after: `y(t⁺)`, the state the solve continues from (what a sample at an event
    /// time records).
    Right,
}

/// Why [`dense_output`] has no value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DenseError {
    /// No points were stored (dense output was not requested).
    NotRecorded,
    /// `t` is not within the times the solve covered (or is not a number).
    OutsideSolve {
        /// The time asked for.
        t: f64,
        /// The first stored time.
        start: f64,
        /// The last stored time (where the solve ended).
        end: f64,
    },
}

impl core::fmt::Display for DenseError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            DenseError::NotRecorded => write!(
                f,
                "no dense output: it was not requested (`dense_output()`, or `HybridOutputs::dense`)"
            ),
            DenseError::OutsideSolve { t, start, end } => {
                write!(f, "t = {t} is outside the solve's [{start}, {end}]")
            }
        }
    }
}

/// The solution at `t` from the `points` a solve stored (module docs), on the side `limit` of
/// an event at `t`.
pub fn dense_output<const NY: usize, const NZ: usize, const NP: usize>(
    points: &[DensePoint<NY, NZ, NP>],
    t: f64,
    limit: Limit,
) -> Result<DensePoint<NY, NZ, NP>, DenseError> {
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return Err(DenseError::NotRecorded);
    };
    if !(first.t <= t && t <= last.t) {
        return Err(DenseError::OutsideSolve {
            t,
            start: first.t,
            end: last.t,
        });
    }
    // The points are in time order; at an event time several share `t`: the leftmost is the
    // state before the event, the rightmost the state after.
    let k = match limit {
        Limit::Left => points.partition_point(|p| p.t < t),
        Limit::Right => points.partition_point(|p| p.t <= t) - 1,
    };
    let at = &points[k];
    if at.t == t {
        return Ok(*at);
    }
    // Strictly inside the interval that `k` ends (left) or starts (right).
    let (a, b) = match limit {
        Limit::Left => (&points[k - 1], at),
        Limit::Right => (at, &points[k + 1]),
    };
    Ok(interpolate(a, b, t))
}

/// The Hermite interpolant of the step from `a` to `b` at `t` strictly between them (module docs).
fn interpolate<const NY: usize, const NZ: usize, const NP: usize>(
    a: &DensePoint<NY, NZ, NP>,
    b: &DensePoint<NY, NZ, NP>,
    t: f64,
) -> DensePoint<NY, NZ, NP> {
    let h = b.t - a.t;
    let theta = (t - a.t) / h;
    let mut out = DensePoint {
        t,
        mode: a.mode,
        segment_start: false,
        ..*a
    };
    Ends::of(&a.y, &b.y, &a.ydot, &b.ydot).interpolate_into(theta, h, &mut out.y, &mut out.ydot);
    Ends::of(&a.z, &b.z, &a.zdot, &b.zdot).through_middle(
        &b.z_mid,
        theta,
        h,
        &mut out.z,
        &mut out.zdot,
    );
    let (sy, sydot) = (out.sy.as_flattened_mut(), out.sydot.as_flattened_mut());
    Ends::of(
        a.sy.as_flattened(),
        b.sy.as_flattened(),
        a.sydot.as_flattened(),
        b.sydot.as_flattened(),
    )
    .interpolate_into(theta, h, sy, sydot);
    let (sz, szdot) = (out.sz.as_flattened_mut(), out.szdot.as_flattened_mut());
    Ends::of(
        a.sz.as_flattened(),
        b.sz.as_flattened(),
        a.szdot.as_flattened(),
        b.szdot.as_flattened(),
    )
    .interpolate_into(theta, h, sz, szdot);
    out
}

/// The values `v0, v1` and rates `r0, r1` of some components at the two ends of a step.
struct Ends<'a> {
    v0: &'a [f64],
    v1: &'a [f64],
    r0: &'a [f64],
    r1: &'a [f64],
}

impl<'a> Ends<'a> {
    fn of(v0: &'a [f64], v1: &'a [f64], r0: &'a [f64], r1: &'a [f64]) -> Self {
        Ends { v0, v1, r0, r1 }
    }

    /// The Hermite values and rates at `θ` of a step of size `h` into `value` and `rate`.
    fn interpolate_into(self, theta: f64, h: f64, value: &mut [f64], rate: &mut [f64]) {
        let ends = self.v0.iter().zip(self.v1).zip(self.r0.iter().zip(self.r1));
        for ((v, r), ((&v0, &v1), (&r0, &r1))) in value.iter_mut().zip(rate).zip(ends) {
            *v = hermite_value(theta, h, v0, v1, r0, r1);
            *r = hermite_rate(theta, h, v0, v1, r0, r1);
        }
    }

    /// [`Ends::interpolate_into`] plus the quartic `16 θ²(1 − θ)² (v_½ − u(½))` that takes the
    /// interpolant through the consistent midpoint values `mid` (module docs, "Algebraic
    /// variables"); `u(½) = (v0 + v1)/2 + h (r0 − r1)/8` is the cubic's value there.
    fn through_middle(self, mid: &[f64], theta: f64, h: f64, value: &mut [f64], rate: &mut [f64]) {
        let bump = 16.0 * theta * theta * (1.0 - theta) * (1.0 - theta);
        let bump_rate = 32.0 * theta * (1.0 - theta) * (1.0 - 2.0 * theta) / h;
        let ends = self.v0.iter().zip(self.v1).zip(self.r0.iter().zip(self.r1));
        let outputs = value.iter_mut().zip(rate.iter_mut());
        for ((((&v0, &v1), (&r0, &r1)), &m), (v, r)) in ends.zip(mid).zip(outputs) {
            let gap = m - (0.5 * (v0 + v1) + 0.125 * h * (r0 - r1));
            *v = hermite_value(theta, h, v0, v1, r0, r1) + bump * gap;
            *r = hermite_rate(theta, h, v0, v1, r0, r1) + bump_rate * gap;
        }
    }
}

/// The cubic Hermite interpolant `u(θ)` of one component on a step of size `h` from `y0`
/// (slope `f0`) to `y1` (slope `f1`), `θ ∈ [0, 1]`:
/// `u = (1−θ) y0 + θ y1 + θ(θ−1) [(1−2θ)(y1 − y0) + (θ−1) h f0 + θ h f1]` (Hairer, Nørsett &
/// Wanner I, §II.6, eq. 6.7); the events' dense output (`step/dense.rs`) and this module's.
#[inline]
pub(crate) fn hermite_value(theta: f64, h: f64, y0: f64, y1: f64, f0: f64, f1: f64) -> f64 {
    let t = theta;
    let w = t * (t - 1.0);
    let d = y1 - y0;
    (1.0 - t) * y0 + t * y1 + w * ((1.0 - 2.0 * t) * d + (t - 1.0) * h * f0 + t * h * f1)
}

/// The time derivative `du/dt` of [`hermite_value`] at `θ`.
#[inline]
pub(crate) fn hermite_rate(theta: f64, h: f64, y0: f64, y1: f64, f0: f64, f1: f64) -> f64 {
    // Hermite basis derivatives (d/dθ), divided by h for d/dt:
    // h00' = 6θ² − 6θ, h10' = 3θ² − 4θ + 1, h01' = −h00', h11' = 3θ² − 2θ.
    let t = theta;
    let d00 = 6.0 * t * t - 6.0 * t;
    let d10 = 3.0 * t * t - 4.0 * t + 1.0;
    let d11 = 3.0 * t * t - 2.0 * t;
    (d00 * (y0 - y1)) / h + d10 * f0 + d11 * f1
}
