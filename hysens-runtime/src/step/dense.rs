//! Dense output of one accepted step: cubic Hermite interpolation.
//!
//! On a step `t_n → t_n + h` with end values `y_n, y_{n+1}` and slopes `f_n = F_1`,
//! `f_{n+1} = F_S` (the stage derivatives of the explicit first and the last stage; for a
//! stiffly accurate ESDIRK, `Y_S = y_{n+1}` and `F_S = f(t_{n+1}, y_{n+1}, z_{n+1})` up to the
//! Newton error; Kristensen et al. 2005, Eq. 14), with `θ = (t − t_n)/h ∈ [0, 1]`:
//!
//! ```text
//! u(θ) = (1−θ) y_n + θ y_{n+1} + θ(θ−1) [ (1−2θ)(y_{n+1} − y_n) + (θ−1) h f_n + θ h f_{n+1} ]
//! ```
//!
//! (Hairer, Nørsett & Wanner I, §II.6, eq. 6.7). It matches values and slopes at both ends, so
//! its error is `O(h⁴)` locally on top of the step's own error: `u(t) − y(t) = O(h⁴) + O(err_n)`
//! uniformly on the step. That is the order of the local error of ESDIRK34 (order 3) and one
//! below ESDIRK4(3)6L (order 4); it is a `C¹` interpolant across steps.
//!
//! **Why this suffices for events.** The hybrid driver uses the dense output only to *detect*
//! a sign change (scanning a few interior points, so a double crossing inside one step is not
//! missed) and to produce a starting guess for the event time; the event time itself is then
//! located to round-off on the *discrete* solution: the step is re-taken from `t_n` to the
//! trial event time and the guard is evaluated at the re-taken step's end, iterated by the
//! secant method (`events/polish.rs`). The root of the Hermite guard curve is within `O(h⁴)/|ḣ|` of
//! the discrete root, i.e. at tolerance level, which makes the secant polish converge in
//! two or three re-takes. The algebraic variables are interpolated linearly (`O(h²)`) for the
//! same bracketing purpose only.
//!
//! This is the driver's interpolant while it integrates; the dense output a solve keeps for
//! reading after it (`crate::dense`) is built from the stage values instead, which stay accurate
//! for stiff components.

/// The cubic Hermite interpolant of one step of size `h` from `y0` (slope `f0`) to `y1`
/// (slope `f1`), module docs.
pub(crate) struct Hermite<'a, const K: usize> {
    pub h: f64,
    pub y0: &'a [f64; K],
    pub y1: &'a [f64; K],
    pub f0: &'a [f64; K],
    pub f1: &'a [f64; K],
}

impl<const K: usize> Hermite<'_, K> {
    /// The value `u(θ)` at `θ ∈ [0, 1]`.
    pub(crate) fn value(&self, theta: f64) -> [f64; K] {
        let Hermite { h, y0, y1, f0, f1 } = *self;
        core::array::from_fn(|i| hermite_value(theta, h, y0[i], y1[i], f0[i], f1[i]))
    }

    /// The time derivative `du/dt` at `θ` (for `ẏ` at an interior point: the rate of a guard
    /// that the dense output brings to zero, `events/locate.rs`).
    pub(crate) fn derivative(&self, theta: f64) -> [f64; K] {
        let Hermite { h, y0, y1, f0, f1 } = *self;
        core::array::from_fn(|i| hermite_rate(theta, h, y0[i], y1[i], f0[i], f1[i]))
    }
}

/// Linear interpolation `(1 − θ) a + θ b` (algebraic variables, for bracketing only).
pub(crate) fn lerp<const K: usize>(theta: f64, a: &[f64; K], b: &[f64; K]) -> [f64; K] {
    core::array::from_fn(|i| a[i] + theta * (b[i] - a[i]))
}

/// The cubic Hermite interpolant `u(θ)` of one component on a step of size `h` from `y0`
/// (slope `f0`) to `y1` (slope `f1`), `θ ∈ [0, 1]` (module docs, Hairer, Nørsett & Wanner I,
/// §II.6, eq. 6.7).
#[inline]
fn hermite_value(theta: f64, h: f64, y0: f64, y1: f64, f0: f64, f1: f64) -> f64 {
    let t = theta;
    let w = t * (t - 1.0);
    let d = y1 - y0;
    (1.0 - t) * y0 + t * y1 + w * ((1.0 - 2.0 * t) * d + (t - 1.0) * h * f0 + t * h * f1)
}

/// The time derivative `du/dt` of [`hermite_value`] at `θ`.
#[inline]
fn hermite_rate(theta: f64, h: f64, y0: f64, y1: f64, f0: f64, f1: f64) -> f64 {
    // Hermite basis derivatives (d/dθ), divided by h for d/dt:
    // h00' = 6θ² − 6θ, h10' = 3θ² − 4θ + 1, h01' = −h00', h11' = 3θ² − 2θ.
    let t = theta;
    let d00 = 6.0 * t * t - 6.0 * t;
    let d10 = 3.0 * t * t - 4.0 * t + 1.0;
    let d11 = 3.0 * t * t - 2.0 * t;
    (d00 * (y0 - y1)) / h + d10 * f0 + d11 * f1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact for cubics: y = t³ − 2t² + t + 1 on [0.5, 0.5 + 0.3] (a cubic is its own Hermite
    /// interpolant; tolerance = a few ulps of O(1) values).
    #[test]
    fn exact_for_cubics_and_derivative() {
        let y = |t: f64| t * t * t - 2.0 * t * t + t + 1.0;
        let yd = |t: f64| 3.0 * t * t - 4.0 * t + 1.0;
        let (t0, h) = (0.5, 0.3);
        for k in 0..=10 {
            let th = k as f64 / 10.0;
            let a = ([y(t0)], [y(t0 + h)], [yd(t0)], [yd(t0 + h)]);
            let cubic = Hermite {
                h,
                y0: &a.0,
                y1: &a.1,
                f0: &a.2,
                f1: &a.3,
            };
            let (u, du) = (cubic.value(th), cubic.derivative(th));
            let t = t0 + th * h;
            assert!((u[0] - y(t)).abs() < 1e-14, "{th}");
            assert!((du[0] - yd(t)).abs() < 1e-13, "{th}");
        }
    }

    /// Fourth-order local error on y = exp(t): halving h divides the max error by ≈ 16 (the
    /// leading error term is y⁗ h⁴ θ²(1−θ)²/24; the next term is O(h⁵), so at h = 0.02 the
    /// ratio is 16(1 + O(h)); errors ~1e-10 are far above round-off).
    #[test]
    fn fourth_order_on_exp() {
        let err = |h: f64| {
            let mut m = 0.0_f64;
            for k in 0..=20 {
                let th = k as f64 / 20.0;
                let e0 = [1.0];
                let e1 = [libm::exp(h)];
                let cubic = Hermite {
                    h,
                    y0: &e0,
                    y1: &e1,
                    f0: &e0,
                    f1: &e1,
                };
                let u = cubic.value(th);
                m = m.max((u[0] - libm::exp(th * h)).abs());
            }
            m
        };
        let r = err(0.02) / err(0.01);
        assert!((r - 16.0).abs() < 0.5, "ratio {r}");
    }
}
