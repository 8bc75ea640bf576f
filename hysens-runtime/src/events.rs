//! Guard monitoring: arming at restarts, crossing detection on the dense output, root
//! location, and the arming bookkeeping for up to [`MAX_GUARDS`] guards without heap.
//!
//! **Arming.** Each guard of the current mode carries the sign it had at the last accepted
//! point ("armed sign"). A crossing is a change from the armed sign in the guard's declared
//! direction (`Rising`: − to ≥ 0, `Falling`: + to ≤ 0). At a restart (`t0` or right after an
//! event) a guard whose value lies within its tolerance band
//! `|h| ≤ Σ_i |∂h/∂y_i| w_i + Σ_j |∂h/∂z_j| w_j` (`w = atol + rtol |·|`, the guard change
//! caused by a tolerance-sized state error) is armed with the sign of its time derivative
//! `ḣ = h_y ẏ + h_z ż + h_t` in the new mode ("look-ahead"), so a guard that is zero right after
//! a restart never fires again until it has moved away and come back; if `ḣ = 0` it stays
//! undecided and takes the sign of its value at the end of the first step (it cannot fire in
//! that step).
//!
//! **Detection.** Per accepted step the guard is evaluated on the dense output
//! (`dense.rs`) at `θ = k/`[`SCAN`], `k = 1..SCAN` (the last point is the step's end state),
//! and the first sub-interval in which it crosses in its direction brackets the root; sign
//! changes against the direction update the running sign, so a `−`/`+` excursion inside one
//! step is still caught. Crossings separated by less than `h/SCAN` can be missed; they are
//! grazing situations (see `HybridOptions::grazing_tol`).
//!
//! **Root.** [`illinois`]: regula falsi with the Illinois modification (Dowell & Jarratt
//! 1971), superlinear and bracketing, run until the bracket is at round-off in `t`. The
//! earliest root over all guards wins; ties go to the lowest guard index (deterministic).
//! The hybrid driver then moves the root onto the discrete solution (`hybrid_solve.rs`).

use crate::hybrid_model::Direction;

/// Interior points per step at which guards are evaluated on the dense output.
pub const SCAN: usize = 4;

/// The largest number of guards a model may have (armed signs live in two `u128` bit sets).
pub const MAX_GUARDS: usize = 128;

/// Armed signs of all guards: `+1`, `−1` or `0` (undecided), in two bit sets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Armed {
    pos: u128,
    neg: u128,
}

impl Armed {
    /// The armed sign of guard `g` (0 for `g ≥ MAX_GUARDS`).
    pub fn get(&self, g: usize) -> f64 {
        if g >= MAX_GUARDS {
            return 0.0;
        }
        let bit = 1u128 << g;
        if self.pos & bit != 0 {
            1.0
        } else if self.neg & bit != 0 {
            -1.0
        } else {
            0.0
        }
    }

    /// Sets the armed sign of guard `g` to the sign of `s` (0: undecided).
    pub fn set(&mut self, g: usize, s: f64) {
        if g >= MAX_GUARDS {
            return;
        }
        let bit = 1u128 << g;
        self.pos &= !bit;
        self.neg &= !bit;
        if s > 0.0 {
            self.pos |= bit;
        } else if s < 0.0 {
            self.neg |= bit;
        }
    }
}

/// Sign of `v` as `±1`, or 0 for zero (and NaN).
pub fn sign(v: f64) -> f64 {
    if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// Whether a guard armed with sign `armed` fires when it takes the value `v`.
pub fn fires(direction: Direction, armed: f64, v: f64) -> bool {
    let rising = armed < 0.0 && v >= 0.0;
    let falling = armed > 0.0 && v <= 0.0;
    match direction {
        Direction::Rising => rising,
        Direction::Falling => falling,
        Direction::Either => rising || falling,
    }
}

/// A root of `f` in `[a, b]` given `f(a) = fa`, `f(b) = fb` of opposite signs (or `fb = 0`),
/// by the Illinois method, to `|b − a| ≤ xtol` (at most 200 evaluations). Returns the end of
/// the final bracket on the far side of the crossing (`b`-side), so that the result is at or
/// just past the root.
pub fn illinois<F: FnMut(f64) -> f64>(
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
    fn armed_bits() {
        let mut a = Armed::default();
        a.set(0, 1.0);
        a.set(127, -3.0);
        a.set(5, 0.0);
        assert_eq!(
            (a.get(0), a.get(127), a.get(5), a.get(200)),
            (1.0, -1.0, 0.0, 0.0)
        );
        a.set(0, -1.0);
        assert_eq!(a.get(0), -1.0);
        a.set(500, 1.0); // out of range: ignored, no panic
    }

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
