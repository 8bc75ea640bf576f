//! A continuous extension built from the stage *values*: the solution inside a step as a
//! combination of the stage increments `Y_i − y_n`, with weights that depend on `θ`.
//!
//! ```text
//! u(t_n + θh) = y_n + Σ_{i≥2} d_i(θ) (Y_i − y_n)
//! ```
//!
//! **Why values and not slopes.** A Hermite cubic through `y_n, y_{n+1}` and the slopes
//! `f(y_n), f(y_{n+1})` is accurate for smooth, non-stiff components, but for a stiff component
//! `f` multiplies the solution's small distance from its slow manifold by the stiffness, and over
//! a step much longer than the fast time scale the slope terms carry that product (Robertson's
//! `y₂` read between steps of 10³ s was off by 17 % of its size at `rtol` 1e-4). The stage values
//! of an L-stable ESDIRK stay close to the slow manifold (`Y_i → φ(t_n + c_i h)` as `hλ → −∞` on
//! Prothero–Robinson's `y' = λ(y − φ) + φ'`), so bounded weights on them give a bounded error
//! whatever the stiffness.
//!
//! **Order conditions.** `Y_i − y_n = h Σ_j a_ij F_j`, so `u = y_n + h Σ_j β_j(θ) F_j` with
//! `β = Aᵀd`, and `u` has local order `q` when `β` satisfies the order conditions of the trees of
//! order `≤ q` with right-hand sides `θ^{ρ(t)}/γ(t)` (Hairer, Nørsett & Wanner I, §II.6). With
//! stage order 2 (`A c = c²/2`, which every tableau here has) the trees of one order collapse,
//! and what is left, written for `d`, is
//!
//! ```text
//! order 1:  dᵀ c      = θ
//! order 2:  dᵀ c²     = θ²
//! order 3:  dᵀ A c²   = θ³/3
//! order 4:  dᵀ A c³   = θ⁴/4,   dᵀ A² c² = θ⁴/12
//! ```
//!
//! With `S − 1` implicit stages the first `S − 1` of these conditions make a square system:
//! ESDIRK23 (order 2 inside the step, as its advancing method), ESDIRK34 (order 3, as its
//! method) and ESDIRK4(3)6L\[2\]SA (order 4, as its method). ESDIRK5(4)7L\[2\]SA2 has one
//! weight more than the order-4 conditions take: it is spent on `dᵀ c³ = θ³` (exact on cubics
//! through the stage values, what [`Extension::Stiff`] asks of a six-stage tableau), so both
//! extensions are the same for it, of order 4 inside a step of order 5. Each `d_i(θ)` is then a polynomial of
//! degree `≤ 4` with `d(0) = 0` and, the method being stiffly accurate, `d(1) = e_S` (the end
//! value is the last stage). Its largest `Σ|d_i|` on `[0, 1]` (the factor by which stage errors
//! can be amplified) is asserted in the tests.

use super::Tableau;
use crate::linalg::DenseLu;

/// `θ` of the three points strictly inside a step at which the dense output stores the
/// continuous extension; with both ends they determine it exactly (a polynomial of degree `≤ 4`).
pub const INNER_NODES: [f64; 3] = [0.25, 0.5, 0.75];

/// Which conditions the weights meet (module docs, "Two extensions").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extension {
    /// The highest order for smooth solutions the implicit stages allow
    /// ([`Tableau::continuous_order`]).
    Smooth,
    /// Exact on cubics through the stage values (stiff components), at one order less for
    /// smooth solutions; the same as [`Extension::Smooth`] for tableaus of fewer than six
    /// stages, which have no weight to spare.
    Stiff,
}

impl<const S: usize> Tableau<S> {
    /// Local order of [`Extension::Smooth`]'s weights (module docs): the number of conditions
    /// `S − 1` the implicit stages can meet, as orders.
    pub const fn continuous_order(&self) -> u32 {
        match S {
            0..=2 => 1,
            3 => 2,
            4 | 5 => 3,
            _ => 4,
        }
    }

    /// The weights `d(θ)` of the continuous extension `y_n + Σ_i d_i (Y_i − y_n)` (module docs;
    /// `d_1 = 0`, stage 1 being `y_n`). `None` if the conditions are singular for this tableau
    /// (not for the tableaus of this crate, which the tests check).
    pub fn continuous_weights(&self, theta: f64, extension: Extension) -> Option<[f64; S]> {
        const { assert!(S >= 2 && S <= 7, "conditions written for 2 to 7 stages") };
        let (a, c) = (&self.a, &self.c);
        let times = |v: &[f64; S]| -> [f64; S] {
            core::array::from_fn(|i| (0..S).map(|j| a[i][j] * v[j]).sum())
        };
        let (theta2, theta3) = (theta * theta, theta * theta * theta);
        let theta4 = theta2 * theta2;
        let c2: [f64; S] = c.map(|x| x * x);
        let c3: [f64; S] = c.map(|x| x * x * x);
        let a_c2 = times(&c2);
        let mut conditions: [([f64; S], f64); 6] = [
            (*c, theta),
            (c2, theta2),
            (a_c2, theta3 / 3.0),
            (times(&c3), theta4 / 4.0),
            (times(&a_c2), theta4 / 12.0),
            // The seventh stage's: exact on cubics through the stage values too.
            (c3, theta3),
        ];
        if extension == Extension::Stiff && S == 6 {
            // Cubics through the stage values exactly, in place of one order-4 condition.
            conditions[4] = conditions[3];
            conditions[3] = (c3, theta3);
        }
        // Row 0 pins d_1 = 0; rows 1.. are the first S − 1 conditions.
        let mut matrix = [[0.0; S]; S];
        let mut rhs = [0.0; S];
        matrix[0][0] = 1.0;
        for (k, (row, value)) in conditions.iter().take(S - 1).enumerate() {
            matrix[k + 1] = *row;
            rhs[k + 1] = *value;
        }
        DenseLu::factor(matrix).ok()?.solve(&mut rhs);
        rhs.iter().all(|d| d.is_finite()).then_some(rhs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tableau::{ESDIRK23, ESDIRK34, ESDIRK436L2SA, ESDIRK547L2SA2};

    /// `(largest Σ|d_i(θ)| on a grid of [0, 1])`, after checking the weights' defining
    /// properties: `d(0) = 0`, `d(1) = e_S` and the order conditions at every θ of the grid.
    fn check<const S: usize>(tableau: &Tableau<S>, extension: Extension) -> f64 {
        assert!(
            tableau.stage_order >= 2,
            "the conditions assume stage order 2"
        );
        // Order 4 inside the step at most (the conditions written), the method's own below.
        assert_eq!(tableau.continuous_order(), tableau.order.min(4));
        // Exact on cubics: the stiff extension of a six-stage tableau, either of seven.
        let stiff = (extension == Extension::Stiff && S >= 6) || S >= 7;
        let order = match (extension, S) {
            (Extension::Stiff, 6) => 3,
            _ => tableau.continuous_order(),
        };
        let mut largest: f64 = 0.0;
        for k in 0..=100 {
            let theta = k as f64 / 100.0;
            let d = tableau.continuous_weights(theta, extension).unwrap();
            if stiff {
                let cubic: f64 = (0..S).map(|i| d[i] * tableau.c[i].powi(3)).sum();
                assert!(
                    (cubic - theta.powi(3)).abs() < 1e-13,
                    "θ = {theta}: cubic {cubic}"
                );
            }
            // β = Aᵀd against the order conditions of the trees up to the claimed order,
            // written out in full (not the collapsed forms the weights were solved with).
            let beta: [f64; S] =
                core::array::from_fn(|j| (0..S).map(|i| d[i] * tableau.a[i][j]).sum());
            let c = &tableau.c;
            let ac: [f64; S] =
                core::array::from_fn(|i| (0..S).map(|j| tableau.a[i][j] * c[j]).sum());
            let dot = |w: &dyn Fn(usize) -> f64| (0..S).map(|j| beta[j] * w(j)).sum::<f64>();
            let mut trees: [(f64, f64); 8] = [
                (dot(&|_| 1.0), theta),
                (dot(&|j| c[j]), theta.powi(2) / 2.0),
                (dot(&|j| c[j] * c[j]), theta.powi(3) / 3.0),
                (dot(&|j| ac[j]), theta.powi(3) / 6.0),
                (dot(&|j| c[j].powi(3)), theta.powi(4) / 4.0),
                (dot(&|j| c[j] * ac[j]), theta.powi(4) / 8.0),
                (
                    dot(&|j| (0..S).map(|m| tableau.a[j][m] * c[m] * c[m]).sum()),
                    theta.powi(4) / 12.0,
                ),
                (
                    dot(&|j| (0..S).map(|m| tableau.a[j][m] * ac[m]).sum()),
                    theta.powi(4) / 24.0,
                ),
            ];
            let count = [1, 2, 4, 8][order as usize - 1];
            for (value, expected) in trees.iter_mut().take(count) {
                assert!(
                    (*value - *expected).abs() < 1e-13,
                    "θ = {theta}: {value} vs {expected}"
                );
            }
            largest = largest.max(d.iter().map(|x| x.abs()).sum());
            if k == 0 {
                assert!(d.iter().all(|x| x.abs() < 1e-15));
            }
            if k == 100 {
                for (i, x) in d.iter().enumerate() {
                    let expected = if i == S - 1 { 1.0 } else { 0.0 };
                    assert!((x - expected).abs() < 1e-13, "d(1) = {d:?}");
                }
            }
        }
        largest
    }

    #[test]
    fn weights_meet_the_order_conditions_and_stay_bounded() {
        // The bounds are the measured largest Σ|d_i| rounded up: what a stage error can be
        // amplified by inside a step (module docs).
        let smooth = Extension::Smooth;
        let largest = [
            check(&ESDIRK23, smooth),
            check(&ESDIRK34, smooth),
            check(&ESDIRK436L2SA, smooth),
            check(&ESDIRK436L2SA, Extension::Stiff),
            check(&ESDIRK547L2SA2, smooth),
            check(&ESDIRK547L2SA2, Extension::Stiff),
        ];
        assert!(
            largest[0] < 1.5 && largest[1] < 1.5 && largest[2] < 11.0 && largest[3] < 3.0,
            "largest Σ|d_i|: {largest:?}"
        );
        // ESDIRK5(4)7L[2]SA2: 5.97, both extensions being the same for it.
        assert!(largest[4] < 6.5 && largest[5] == largest[4], "{largest:?}");
    }

    /// On `y' = −y² + sin t` the extension's error at θ = ½ falls like `h^{q+1}`.
    #[test]
    fn local_error_has_the_claimed_order() {
        fn error_at_half<const S: usize>(tableau: &Tableau<S>, h: f64) -> f64 {
            // Stages by fixed-point-free Newton on the scalar stage equation.
            let f = |t: f64, y: f64| -y * y + libm::sin(t);
            let (mut ys, mut fs) = ([0.0; S], [0.0; S]);
            ys[0] = 1.0;
            fs[0] = f(0.0, 1.0);
            for i in 1..S {
                let psi = 1.0 + h * (0..i).map(|j| tableau.a[i][j] * fs[j]).sum::<f64>();
                let t = tableau.c[i] * h;
                let mut y = psi;
                for _ in 0..50 {
                    let residual = y - psi - h * tableau.gamma * f(t, y);
                    y -= residual / (1.0 + 2.0 * h * tableau.gamma * y);
                }
                ys[i] = y;
                fs[i] = f(t, y);
            }
            let d = tableau.continuous_weights(0.5, Extension::Smooth).unwrap();
            let u = 1.0 + (0..S).map(|i| d[i] * (ys[i] - 1.0)).sum::<f64>();
            // Reference: RK4 with 2000 substeps on [0, h/2].
            let (mut t, mut y, n) = (0.0, 1.0, 2000);
            let dt = 0.5 * h / n as f64;
            for _ in 0..n {
                let k1 = f(t, y);
                let k2 = f(t + dt / 2.0, y + dt / 2.0 * k1);
                let k3 = f(t + dt / 2.0, y + dt / 2.0 * k2);
                let k4 = f(t + dt, y + dt * k3);
                y += dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
                t += dt;
            }
            (u - y).abs()
        }
        fn observed<const S: usize>(tableau: &Tableau<S>) -> f64 {
            let (coarse, fine) = (error_at_half(tableau, 0.1), error_at_half(tableau, 0.05));
            libm::log2(coarse / fine)
        }
        // Local order q + 1 observed within 0.6 (pre-asymptotic constants at h = 0.1).
        for (observed, order) in [
            (observed(&ESDIRK23), ESDIRK23.continuous_order()),
            (observed(&ESDIRK34), ESDIRK34.continuous_order()),
            (observed(&ESDIRK436L2SA), ESDIRK436L2SA.continuous_order()),
            (observed(&ESDIRK547L2SA2), ESDIRK547L2SA2.continuous_order()),
        ] {
            assert!(
                observed > order as f64 + 0.4,
                "observed {observed}, order {order}"
            );
        }
    }
}
