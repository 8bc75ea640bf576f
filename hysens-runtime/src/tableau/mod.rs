//! Butcher tableaus of stiffly accurate ESDIRK methods, stored as `const` data.
//!
//! An ESDIRK ("explicit first stage, singly diagonally implicit Runge–Kutta") method has
//! `a[0][0] = 0` and `a[i][i] = γ` for every later stage, so all implicit stages share one Newton
//! iteration matrix `I − hγJ` (Kristensen et al. 2005, Eqs. 11–12). Every method here is *stiffly accurate*
//! (`a[S-1][j] = b[j]`, `c[S-1] = 1`), hence `y_{n+1}` is the last stage value and, for a
//! semi-explicit index-1 DAE, the algebraic variables at the end of a step satisfy the
//! constraint (Kristensen et al. 2005, Eq. 14).
//!
//! The tableaus are verified twice:
//! * at compile time (`const` assertions in each method's file): row sums `c_i = Σ_j a_ij`,
//!   the ESDIRK structure and stiff accuracy, to 1e-15;
//! * by unit tests: every rooted-tree order condition up to the claimed order for both `b` and
//!   `b̂`, the stability function `R(z)` at reference points computed in 50-digit arithmetic and its
//!   limit `R(∞) = 0` (L-stability).

#![allow(clippy::needless_range_loop)] // index loops mirror the Butcher-array formulas

mod continuous;
mod esdirk23;
mod esdirk34;
mod kc_esdirk436;
mod kc_esdirk547;
#[cfg(test)]
mod order_conditions;

pub use continuous::{Extension, INNER_NODES};
pub use esdirk23::ESDIRK23;
pub use esdirk34::ESDIRK34;
pub use kc_esdirk436::ESDIRK436L2SA;
pub use kc_esdirk547::ESDIRK547L2SA2;

/// A Butcher tableau with `S` stages and an embedded weight vector for error estimation.
///
/// `a` is lower triangular (ESDIRK), `a[0][0] = 0`, `a[i][i] = gamma` for `i ≥ 1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tableau<const S: usize> {
    /// Short name of the method, e.g. `"ESDIRK34"`.
    pub name: &'static str,
    /// Abscissae `c_i` (stage times `t_n + c_i h`).
    pub c: [f64; S],
    /// Runge–Kutta matrix `a[i][j]`, lower triangular.
    pub a: [[f64; S]; S],
    /// Advancing weights `b_j` (equal to the last row of `a`: stiffly accurate).
    pub b: [f64; S],
    /// Embedded weights `b̂_j`; the local error estimate is `h Σ_j (b_j − b̂_j) F_j`.
    pub b_hat: [f64; S],
    /// The common diagonal entry `γ` of the implicit stages.
    pub gamma: f64,
    /// Classical order `p` of the advancing method (`b`).
    pub order: u32,
    /// Classical order `p̂` of the embedded method (`b̂`).
    pub embedded_order: u32,
    /// Stage order `q`: `Σ_j a_ij c_j^{k-1} = c_i^k / k` for `k ≤ q` and every stage.
    pub stage_order: u32,
}

impl<const S: usize> Tableau<S> {
    /// Error-estimate weights `d_j = b_j − b̂_j` (Kristensen et al. 2005, Eq. 20).
    pub const fn d(&self, j: usize) -> f64 {
        self.b[j] - self.b_hat[j]
    }

    /// Order `k` of the local error estimate `e = h Σ d_j F_j = O(h^k)`, i.e.
    /// `min(p, p̂) + 1`. The step-size controller uses the exponent `1/k` (Kristensen et al. 2005, Eqs. 27–29).
    pub const fn error_estimate_order(&self) -> u32 {
        if self.order < self.embedded_order {
            self.order + 1
        } else {
            self.embedded_order + 1
        }
    }

    /// Stability function `R(z)` of the advancing method at a real `z`: one step of the method
    /// on `y' = λy`, `y_0 = 1`, `z = hλ`.
    ///
    /// Computed by forward substitution of the stage equations
    /// `Y_i = 1 + z Σ_{j≤i} a_ij Y_j`, then `R = 1 + z Σ_j b_j Y_j`.
    pub fn stability(&self, z: f64) -> f64 {
        self.stability_with(&self.b, z)
    }

    /// Stability function of the embedded method (weights `b̂`), see [`Tableau::stability`].
    pub fn embedded_stability(&self, z: f64) -> f64 {
        self.stability_with(&self.b_hat, z)
    }

    fn stability_with(&self, w: &[f64; S], z: f64) -> f64 {
        let mut y = [0.0; S];
        let mut r = 1.0;
        for i in 0..S {
            let mut acc = 1.0;
            for j in 0..i {
                acc += z * self.a[i][j] * y[j];
            }
            y[i] = acc / (1.0 - z * self.a[i][i]);
            r += z * w[i] * y[i];
        }
        r
    }

    /// Limit `R(∞)` of the stability function of a stiffly accurate ESDIRK.
    ///
    /// For a stiffly accurate method `R(z) = Y_S(z)`. Dividing the stage equations
    /// `(1 − γz) Y_i = 1 + z Σ_{j<i} a_ij Y_j` by `z` and letting `z → −∞` gives the exact
    /// recursion `Y_1 = 1`, `Y_i^∞ = −(1/γ) Σ_{j<i} a_ij Y_j^∞` (the `1/z` term vanishes for
    /// `i ≥ 2`), so `R(∞) = Y_S^∞`. L-stability requires this to be zero.
    pub fn stability_at_infinity(&self) -> f64 {
        let mut y = [0.0; S];
        for i in 0..S {
            if i == 0 {
                y[0] = 1.0;
            } else {
                let mut acc = 0.0;
                for j in 0..i {
                    acc += self.a[i][j] * y[j];
                }
                y[i] = -acc / self.gamma;
            }
        }
        y[S - 1]
    }

    /// Largest defect of the structural conditions, evaluated in `const` context so each method
    /// can assert it at compile time: row sums `|Σ_j a_ij − c_i|`, explicit first stage,
    /// constant diagonal `γ`, strict lower triangularity above the diagonal, stiff accuracy
    /// `a_{S-1,j} = b_j`, `c_{S-1} = 1`, and consistency `Σ b = Σ b̂ = 1`.
    pub const fn structural_defect(&self) -> f64 {
        let mut worst = 0.0_f64;
        let mut i = 0;
        while i < S {
            let mut row = 0.0;
            let mut j = 0;
            while j < S {
                row += self.a[i][j];
                if j > i {
                    worst = worst.max(self.a[i][j].abs());
                }
                j += 1;
            }
            worst = worst.max((row - self.c[i]).abs());
            let diag = if i == 0 { 0.0 } else { self.gamma };
            worst = worst.max((self.a[i][i] - diag).abs());
            worst = worst.max((self.a[S - 1][i] - self.b[i]).abs());
            i += 1;
        }
        worst = worst.max((self.c[S - 1] - 1.0).abs());
        let mut sb = 0.0;
        let mut sbh = 0.0;
        let mut k = 0;
        while k < S {
            sb += self.b[k];
            sbh += self.b_hat[k];
            k += 1;
        }
        worst = worst.max((sb - 1.0).abs());
        worst.max((sbh - 1.0).abs())
    }
}

#[cfg(test)]
#[allow(clippy::excessive_precision)] // reference values are quoted with all printed digits
mod tests {
    use super::order_conditions::{check_order, rooted_trees};
    use super::*;

    /// Checks shared by every tableau.
    ///
    /// Tolerance 1e-14 for order conditions: each condition is a sum of at most S^4 = 1296
    /// products of coefficients of magnitude ≤ ~1.5, evaluated in f64; the coefficients
    /// themselves are correctly rounded (error ≤ 1.1e-16 each), so the accumulated error is a
    /// few 1e-16 in practice; 1e-14 leaves a margin of ~10x while any transcription error in a
    /// coefficient (≥ 1e-12 for a wrong digit in 21-digit data) is caught.
    fn check_tableau<const S: usize>(t: &Tableau<S>) {
        assert!(t.structural_defect() < 1e-15, "{}: structural", t.name);
        // Stiff accuracy exactly (bitwise: the arrays are written from the same constants).
        assert_eq!(t.a[S - 1], t.b, "{}: last row of A must equal b", t.name);
        assert_eq!(t.c[0], 0.0);
        assert_eq!(t.a[0][0], 0.0, "{}: explicit first stage", t.name);
        for i in 1..S {
            assert_eq!(t.a[i][i], t.gamma, "{}: diagonal", t.name);
        }
        // All rooted-tree conditions up to the claimed order hold, for b and for b̂ ...
        let tol = 1e-14;
        assert_eq!(
            check_order(t, &t.b, t.order as usize, tol),
            Ok(()),
            "{}: b",
            t.name
        );
        assert_eq!(
            check_order(t, &t.b_hat, t.embedded_order as usize, tol),
            Ok(()),
            "{}: b_hat",
            t.name
        );
        // ... and the claimed orders are sharp: some condition of the next order fails by more
        // than 1e-6 (the violations found in 50-digit arithmetic are all > 1e-3).
        assert!(
            check_order(t, &t.b, t.order as usize + 1, 1e-6).is_err(),
            "{}",
            t.name
        );
        assert!(
            check_order(t, &t.b_hat, t.embedded_order as usize + 1, 1e-6).is_err(),
            "{}",
            t.name
        );
        // Stage order: C(q) holds, C(q+1) fails on some stage. Tolerance as above.
        let q = t.stage_order as i32;
        for k in 1..=q {
            for i in 0..S {
                let lhs: f64 = (0..S).map(|j| t.a[i][j] * t.c[j].powi(k - 1)).sum();
                let rhs = t.c[i].powi(k) / k as f64;
                assert!((lhs - rhs).abs() < 1e-14, "{}: C({k}) stage {i}", t.name);
            }
        }
        let k = q + 1;
        let fails = (0..S).any(|i| {
            let lhs: f64 = (0..S).map(|j| t.a[i][j] * t.c[j].powi(k - 1)).sum();
            (lhs - t.c[i].powi(k) / k as f64).abs() > 1e-6
        });
        assert!(fails, "{}: stage order is not sharp", t.name);
        // L-stability: R(∞) = 0. The recursion involves S−1 divisions by γ of sums of O(1)
        // terms; 1e-14 is again a ~10x margin over the round-off of such sums.
        assert!(
            t.stability_at_infinity().abs() < 1e-14,
            "{}: R(inf)",
            t.name
        );
        // Cross-check the limit numerically: R(z) = O(1/z), so |R(-1e8)| must be tiny.
        assert!(t.stability(-1e8).abs() < 1e-6, "{}", t.name);
        // A-stability on the negative real axis (sampled): |R(z)| ≤ 1.
        for k in 0..200 {
            let z = -libm::pow(10.0, -3.0 + 9.0 * k as f64 / 199.0);
            assert!(t.stability(z).abs() <= 1.0, "{}: |R({z})| > 1", t.name);
        }
    }

    #[test]
    fn tree_enumeration_counts() {
        // Number of rooted trees of orders 1..=5 (OEIS A000081): 1, 1, 2, 4, 9.
        let counts: std::vec::Vec<usize> = (1..=5).map(|n| rooted_trees(n).len()).collect();
        assert_eq!(counts, [1, 1, 2, 4, 9]);
    }

    /// The checker is not vacuous: the published typo b_2 = −0.3687… (a public copy of ESDIRK34) in ESDIRK34
    /// violates an order condition (defect ≈ 8e-3 ≫ 1e-14).
    #[test]
    fn checker_catches_known_typo() {
        let mut t = ESDIRK34;
        t.b[1] = -0.368_784_522_555_561_061;
        t.a[3][1] = t.b[1];
        assert!(check_order(&t, &t.b, 3, 1e-14).is_err());
        assert!(t.structural_defect() > 1e-3);
    }

    #[test]
    fn esdirk23_conditions() {
        check_tableau(&ESDIRK23);
    }

    #[test]
    fn esdirk34_conditions() {
        check_tableau(&ESDIRK34);
    }

    #[test]
    fn kc_esdirk436_conditions() {
        check_tableau(&ESDIRK436L2SA);
    }

    #[test]
    fn kc_esdirk547_conditions() {
        check_tableau(&ESDIRK547L2SA2);
    }

    /// Reference values computed in 50-digit arithmetic from the tableaus (decimal arithmetic,
    /// printed with 16 significant digits). Tolerance: the printed values are rounded to
    /// 16 digits (relative 5e-17) and the f64 evaluation of R at |z| ≤ 100 loses at most a few
    /// ulps of the O(|z|) intermediate terms (~100 · 1.1e-16 ≈ 1e-14 absolute); we use 2e-14.
    #[test]
    fn stability_reference_values() {
        let cases: [(&Tableau<3>, [f64; 3]); 1] = [(
            &ESDIRK23,
            [
                0.3504402627602818,
                -0.2035522279679721,
                -0.04405871030106162,
            ],
        )];
        for (t, r) in cases {
            for (z, rz) in [-1.0, -10.0, -100.0].into_iter().zip(r) {
                assert!((t.stability(z) - rz).abs() < 2e-14, "{} R({z})", t.name);
            }
        }
        let r34 = [
            0.3614238084311265,
            -0.1279609513909911,
            -0.02645452143975855,
        ];
        for (z, rz) in [-1.0, -10.0, -100.0].into_iter().zip(r34) {
            assert!(
                (ESDIRK34.stability(z) - rz).abs() < 2e-14,
                "ESDIRK34 R({z})"
            );
        }
        // Embedded methods (not A-stable; values from the same 50-digit computation).
        let rh23 = [0.3746331143664318, 2.416218652586016, 44.03509785517347];
        let rh34 = [0.3701718062762656, 1.555026977001708, 29.19059014055312];
        for ((z, a), b) in [-1.0, -10.0, -100.0].into_iter().zip(rh23).zip(rh34) {
            // Relative 2e-14: the same reasoning as above, relative to |R̂| which grows ~|z|.
            assert!((ESDIRK23.embedded_stability(z) - a).abs() < 2e-14 * a.abs().max(1.0));
            assert!((ESDIRK34.embedded_stability(z) - b).abs() < 2e-14 * b.abs().max(1.0));
        }
    }

    /// Closed forms (from the tableaus): ESDIRK23 R(z) = (1+(√2−1)z)/(1−γz)², ESDIRK34
    /// R(z) = (1 + p1 z + p2 z²)/(1−γz)³ with p1 = 1−3γ, p2 = 1/2 − 3γ + 3γ². Tolerance as in
    /// `stability_reference_values` (round-off of O(|z|) terms).
    #[test]
    fn stability_closed_forms() {
        for k in 0..50 {
            let z = -libm::pow(10.0, -2.0 + 4.0 * k as f64 / 49.0);
            let g = ESDIRK23.gamma;
            let r23 =
                (1.0 + (core::f64::consts::SQRT_2 - 1.0) * z) / ((1.0 - g * z) * (1.0 - g * z));
            assert!((ESDIRK23.stability(z) - r23).abs() < 2e-14);
            let g = ESDIRK34.gamma;
            let (p1, p2) = (1.0 - 3.0 * g, 0.5 - 3.0 * g + 3.0 * g * g);
            let r34 = (1.0 + p1 * z + p2 * z * z) / libm::pow(1.0 - g * z, 3.0);
            assert!((ESDIRK34.stability(z) - r34).abs() < 2e-14);
        }
    }

    /// γ of ESDIRK34 is the middle root of γ³ − 3γ² + 3γ/2 − 1/6 = 0 (its L-stability condition). The polynomial
    /// has derivative ≈ −0.54 there, so a 1-ulp error in γ gives a residual ≈ 3e-17; 1e-15 covers
    /// the round-off of evaluating the cubic.
    #[test]
    fn esdirk34_gamma_is_l_stability_root() {
        let g = ESDIRK34.gamma;
        assert!((g * g * g - 3.0 * g * g + 1.5 * g - 1.0 / 6.0).abs() < 1e-15);
        assert!(g > 0.4 && g < 0.5);
    }
}
