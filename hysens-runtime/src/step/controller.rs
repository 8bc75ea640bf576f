//! Step-size controller: Gustafsson's predictive PI controller (Kristensen et al. 2005,
//! Eq. 29) with the asymptotic controller (Eq. 27) on the first step and after rejections, and
//! the integrator's step-size state ([`StepControl`]).
//!
//! With `r` the WRMS error estimate, `k` the order of the estimate (`min(p, p̂) + 1`) and `ε`
//! the target:
//! * asymptotic (eq. 27): `h_new = (ε/r)^{1/k} h`;
//! * predictive (eq. 29, `k_1 = k_2 = 1`): `h_new = (h/h_prev) (ε/r)^{1/k} (r_prev/r)^{1/k} h`.
//!
//! As in Hairer & Wanner's RADAU5 (Solving ODEs II, §IV.8, eq. 8.21), the accepted-step factor
//! is the minimum of the two, which keeps the predictive formula from amplifying noise; the
//! factor is clamped to `[fac_min, fac_max]`, and after a rejection the step may not grow.
//!
//! The `k`-th roots are taken by `root` (`sqrt`/`cbrt` for the orders of our tableaus) and
//! only one per step: which of the two factors is smaller is decided without roots, since
//! `pred < asym ⇔ (h/h_prev)^k r_prev/r < 1`. A general `pow` was 13–23% of a solve of
//! Serban & Recuero's Ex. 5.1 (callgrind).

/// The integrator's step-size state: the proposed next step, the controller history and the
/// attempts counted against `Options::max_steps`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct StepControl {
    /// Proposed size of the next step (0 = select automatically).
    pub h: f64,
    /// Controller history.
    pub pi: PiController,
    /// Step attempts so far (accepted and rejected).
    pub attempts: usize,
}

impl StepControl {
    /// Starting with the proposed step `h` (0: select automatically).
    pub(crate) const fn new(h: f64) -> Self {
        StepControl {
            h,
            pi: PiController::new(),
            attempts: 0,
        }
    }

    /// Updates the proposal after an accepted step of size `h` with error estimate `r`
    /// (`k`: order of the estimate; `opts`: the controller's settings). `landing`: the step
    /// was clipped to end on its stop time (a sample or the final time), so `h` may be shorter
    /// than the proposal it was taken with.
    ///
    /// **A step shortened only to land does not reset the controller.** Its length was set by
    /// the stop, not by the error, and a short landing (a sample a hair after an event, say)
    /// has an estimate near zero: with the usual update the next step would be at most
    /// `fac_max·h` and grow from there by `fac_max` per step (a landing of `1e-9` cost 8–13
    /// extra steps on the bouncing ball). So, as SUNDIALS CVODE and ARKODE do for a step
    /// limited by `tstop`, such a step keeps the proposal it was cut from, and the controller
    /// keeps the history of the last step the error chose (`prev`, `rejected`) — unless its
    /// own estimate argues otherwise: if it is above the target even at the shorter length,
    /// or if its asymptotic factor (eq. 27; not the predictive one, whose `h/h_prev` only
    /// reflects the cut) proposes more than the kept proposal, the step is recorded as any
    /// accepted step.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn accepted(
        &mut self,
        h: f64,
        r: f64,
        landing: bool,
        k: u32,
        target: f64,
        fac_min: f64,
        fac_max: f64,
        h_max: f64,
    ) {
        if landing && h < self.h.min(h_max) {
            // Judged by the asymptotic factor alone: the predictive one scales with
            // `h/h_prev`, which for a cut step says nothing about the error.
            let growth = self.pi.asymptotic_growth(r, k, target, fac_max);
            if growth.is_some_and(|fac| h * fac < self.h) {
                return;
            }
        }
        let fac = self.pi.accept(h, r, k, target, fac_min, fac_max);
        self.h = h * fac;
    }
}

/// Controller history.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PiController {
    /// Error estimate and step size of the previous accepted step (`None` at start).
    prev: Option<(f64, f64)>,
    /// Whether the last attempt was rejected.
    rejected: bool,
}

/// Floor for error estimates, so `ε/r` stays finite when the estimate is (near) zero.
const R_FLOOR: f64 = 1e-10;

impl PiController {
    /// A controller without history.
    pub(crate) const fn new() -> Self {
        PiController {
            prev: None,
            rejected: false,
        }
    }

    /// Step-size factor after an accepted step of size `h` with estimate `r`.
    pub(crate) fn accept(
        &mut self,
        h: f64,
        r: f64,
        k: u32,
        target: f64,
        fac_min: f64,
        fac_max: f64,
    ) -> f64 {
        let r = r.max(R_FLOOR);
        let fac = match self.prev {
            // pred = (h/h_prev) (ε r_prev / r²)^{1/k} < asym = (ε/r)^{1/k}
            //   ⇔ (h/h_prev)^k r_prev / r < 1.
            Some((r_prev, h_prev)) if powi(h / h_prev, k) * r_prev < r => {
                (h / h_prev) * root(target * r_prev / (r * r), k)
            }
            _ => root(target / r, k),
        };
        let upper = self.upper(fac_max);
        self.prev = Some((r, h));
        self.rejected = false;
        // max/min rather than f64::clamp, which panics for fac_min > upper (bad options).
        fac.max(fac_min).min(upper)
    }

    /// The largest factor an accepted step may take: `fac_max`, or 1 after a rejection.
    fn upper(&self, fac_max: f64) -> f64 {
        if self.rejected {
            1.0
        } else {
            fac_max
        }
    }

    /// The asymptotic factor (eq. 27) of a step with estimate `r` if it is at least 1 (the
    /// estimate is within the target), clamped like [`PiController::accept`]'s; `None` if
    /// the estimate is above the target. Records nothing.
    fn asymptotic_growth(&self, r: f64, k: u32, target: f64, fac_max: f64) -> Option<f64> {
        let r = r.max(R_FLOOR);
        (r <= target).then(|| root(target / r, k).min(self.upper(fac_max)))
    }

    /// A step abandoned because Newton's iteration failed: like a rejection, the next accepted
    /// step may not grow (Hairer & Wanner II, §IV.8: after a failure the step is not increased).
    pub(crate) fn newton_failed(&mut self) {
        self.rejected = true;
    }

    /// Step-size factor after a step rejected by the error test (eq. 27, never growing).
    pub(crate) fn reject(&mut self, r: f64, k: u32, target: f64, fac_min: f64) -> f64 {
        self.rejected = true;
        let r = r.max(R_FLOOR);
        let fac = root(target / r, k);
        if fac.is_nan() {
            fac_min
        } else {
            fac.max(fac_min).min(1.0)
        }
    }
}

/// `x^{1/k}` for `x ≥ 0`: exact-rounded `sqrt`/`cbrt` for `k ≤ 4`, `pow` beyond.
fn root(x: f64, k: u32) -> f64 {
    match k {
        0 | 1 => x,
        2 => libm::sqrt(x),
        3 => libm::cbrt(x),
        4 => libm::sqrt(libm::sqrt(x)),
        _ => libm::pow(x, 1.0 / k as f64),
    }
}

/// `x^k` by repeated multiplication (`k` is a small order).
fn powi(x: f64, k: u32) -> f64 {
    (0..k).fold(1.0, |acc, _| acc * x)
}

impl Default for PiController {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asymptotic_and_predictive() {
        let mut c = PiController::new();
        // First step: (0.8/0.05)^{1/4} = 2 exactly.
        assert!((c.accept(1.0, 0.05, 4, 0.8, 0.2, 5.0) - 2.0).abs() < 1e-15);
        // Second step: same error, h doubled: predictive = 2 · 2 · 1 = 4 > asymptotic 2 → 2.
        assert!((c.accept(2.0, 0.05, 4, 0.8, 0.2, 5.0) - 2.0).abs() < 1e-15);
        // Rejection: never grows, floor fac_min.
        assert_eq!(c.reject(1e30, 4, 0.8, 0.2), 0.2);
        assert!(c.reject(1.5, 4, 0.8, 0.2) < 1.0);
        // After a rejection an accepted step cannot grow.
        assert!(c.accept(1.0, 1e-6, 4, 0.8, 0.2, 5.0) <= 1.0);
    }

    /// A landing cut short keeps the proposal and the history, unless its own estimate asks
    /// for less (factor < 1) or for more than the proposal.
    #[test]
    fn a_landing_cut_short_keeps_the_proposal() {
        let (k, target, fac_min, fac_max, h_max) = (4, 0.8, 0.2, 5.0, f64::INFINITY);
        let mut c = StepControl::new(1.0);
        c.accepted(1.0, 0.05, false, k, target, fac_min, fac_max, h_max);
        assert!((c.h - 2.0).abs() < 1e-15);
        let before = c;
        // A landing of 1e-9 with a negligible estimate: nothing changes.
        c.accepted(1e-9, 0.0, true, k, target, fac_min, fac_max, h_max);
        assert_eq!(c, before);
        // A landing nearly as long as the proposal whose estimate proposes more: recorded.
        c.accepted(1.9, 1e-6, true, k, target, fac_min, fac_max, h_max);
        assert!(c.h > 2.0 && c.pi.prev == Some((1e-6, 1.9)));
        // A short landing whose estimate is above the target: the step size shrinks.
        let mut c = before;
        c.accepted(0.5, 0.9, true, k, target, fac_min, fac_max, h_max);
        assert!(c.h < 0.5);
        // The same step not cut short (h = proposal) is an ordinary accepted step.
        let mut c = before;
        c.accepted(2.0, 0.05, true, k, target, fac_min, fac_max, h_max);
        assert_eq!(c.pi.prev, Some((0.05, 2.0)));
    }

    /// The root-free choice between the two factors agrees with evaluating both by `pow`.
    #[test]
    fn min_of_factors_without_roots() {
        for k in 1..=5u32 {
            for (h, r, h_prev, r_prev) in [
                (1.0, 0.3, 0.5, 0.1),
                (1.0, 0.3, 2.0, 0.9),
                (0.1, 1e-3, 0.1, 1e-3),
                (3.0, 0.7, 1.0, 0.05),
                (1e-3, 1e-6, 2e-3, 0.5),
            ] {
                let e = 1.0 / k as f64;
                let asym = libm::pow(0.8 / r, e);
                let pred = (h / h_prev) * asym * libm::pow(r_prev / r, e);
                let expected = asym.min(pred).clamp(0.2, 5.0);
                let mut c = PiController::new();
                c.prev = Some((r_prev, h_prev));
                let got = c.accept(h, r, k, 0.8, 0.2, 5.0);
                assert!(
                    (got - expected).abs() <= 1e-14 * expected,
                    "k {k}: {got} vs {expected}"
                );
                assert!((root(r, k) - libm::pow(r, e)).abs() <= 4.0 * f64::EPSILON * root(r, k));
            }
        }
    }
}
