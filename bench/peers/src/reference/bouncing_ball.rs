//! Closed-form reference for P2, the bouncing ball, with exact parameter derivatives.
//!
//! Between impacts the ball is in free fall, `z(t) = z_k + v_k (t - t_k) - g (t - t_k)^2 / 2`,
//! `v(t) = v_k - g (t - t_k)`. The next impact is the positive root of
//! `z_k + v_k tau - g tau^2 / 2 = 0`, i.e. `tau = (v_k + sqrt(v_k^2 + 2 g z_k)) / g`; at the
//! impact the velocity is reversed and damped, `v^+ = -gamma v^-`, and `z^+ = 0`. Iterating this
//! until the final time gives `z(T)` and `v(T)` as an explicit composition of `+ - * / sqrt`.
//!
//! The derivatives with respect to `p = (z0, v0, g, gamma)` are obtained by evaluating the very
//! same formulas in forward-mode dual numbers ([`Dual`], four derivative slots): this is the
//! exact derivative of the closed form (chain rule through the impact times), not a numerical
//! approximation. Known value (brief, and by hand: `dz(T)/dgamma = -v_1^- (T - t_1)` for one
//! impact): `dz(1.9)/dgamma = 9.09995...`; the unit test below checks it.

use std::ops::{Add, Div, Mul, Neg, Sub};

/// Printed under the table.
pub const SOURCE: &str =
    "P2: closed form (impact times from z + v t - g t²/2 = 0), derivatives by forward-mode duals, src/reference/bouncing_ball.rs";

/// A value with its gradient with respect to the four parameters `(z0, v0, g, gamma)`.
#[derive(Clone, Copy, Debug)]
struct Dual {
    v: f64,
    d: [f64; 4],
}

impl Dual {
    fn constant(v: f64) -> Self {
        Dual { v, d: [0.0; 4] }
    }
    /// The `k`-th independent variable with value `v`.
    fn variable(v: f64, k: usize) -> Self {
        let mut d = [0.0; 4];
        d[k] = 1.0;
        Dual { v, d }
    }
    fn map(self, v: f64, dv: f64) -> Self {
        Dual {
            v,
            d: self.d.map(|x| x * dv),
        }
    }
    fn sqrt(self) -> Self {
        let r = self.v.sqrt();
        self.map(r, 0.5 / r)
    }
}

impl Add for Dual {
    type Output = Dual;
    fn add(self, o: Dual) -> Dual {
        Dual {
            v: self.v + o.v,
            d: std::array::from_fn(|k| self.d[k] + o.d[k]),
        }
    }
}
impl Sub for Dual {
    type Output = Dual;
    fn sub(self, o: Dual) -> Dual {
        Dual {
            v: self.v - o.v,
            d: std::array::from_fn(|k| self.d[k] - o.d[k]),
        }
    }
}
#[allow(clippy::suspicious_arithmetic_impl)] // product rule
impl Mul for Dual {
    type Output = Dual;
    fn mul(self, o: Dual) -> Dual {
        Dual {
            v: self.v * o.v,
            d: std::array::from_fn(|k| self.d[k] * o.v + self.v * o.d[k]),
        }
    }
}
#[allow(clippy::suspicious_arithmetic_impl)] // quotient rule
impl Div for Dual {
    type Output = Dual;
    fn div(self, o: Dual) -> Dual {
        let q = self.v / o.v;
        Dual {
            v: q,
            d: std::array::from_fn(|k| (self.d[k] - q * o.d[k]) / o.v),
        }
    }
}
impl Neg for Dual {
    type Output = Dual;
    fn neg(self) -> Dual {
        Dual {
            v: -self.v,
            d: self.d.map(|x| -x),
        }
    }
}

/// Exact solution of the bouncing ball at `t_end`.
///
/// Returns `(outputs, sens, impact_times)` with `outputs = [z(T), v(T)]`,
/// `sens[j] = [dz(T)/dp_j, dv(T)/dp_j]` for `p = (z0, v0, g, gamma)`.
pub fn solve(
    z0: f64,
    v0: f64,
    g: f64,
    gamma: f64,
    t_end: f64,
) -> (Vec<f64>, Vec<Vec<f64>>, Vec<f64>) {
    let (mut z, mut v) = (Dual::variable(z0, 0), Dual::variable(v0, 1));
    let (g, gamma) = (Dual::variable(g, 2), Dual::variable(gamma, 3));
    let half = Dual::constant(0.5);
    let t_final = Dual::constant(t_end);
    let mut t = Dual::constant(0.0);
    let mut impacts = Vec::new();
    // 1000 impacts is far beyond any setting used here; it only bounds the Zeno accumulation.
    for _ in 0..1000 {
        let tau = (v + (v * v + Dual::constant(2.0) * g * z).sqrt()) / g;
        if t.v + tau.v > t_end {
            let dt = t_final - t;
            z = z + v * dt - half * g * dt * dt;
            v = v - g * dt;
            break;
        }
        t = t + tau;
        impacts.push(t.v);
        v = -(gamma * (v - g * tau));
        z = Dual::constant(0.0);
    }
    let sens = (0..4).map(|j| vec![z.d[j], v.d[j]]).collect();
    (vec![z.v, v.v], sens, impacts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_gamma_derivative_and_finite_differences() {
        let p = [5.0, -0.1, 10.0, 0.8];
        let (y, s, impacts) = solve(p[0], p[1], p[2], p[3], 1.9);
        assert_eq!(impacts.len(), 1);
        assert!((s[3][0] - 9.09995).abs() < 1e-5, "dz/dgamma = {}", s[3][0]);
        for j in 0..4 {
            let h = 1e-6 * p[j].abs();
            let (mut pp, mut pm) = (p, p);
            pp[j] += h;
            pm[j] -= h;
            let (yp, _, _) = solve(pp[0], pp[1], pp[2], pp[3], 1.9);
            let (ym, _, _) = solve(pm[0], pm[1], pm[2], pm[3], 1.9);
            for i in 0..2 {
                let fd = (yp[i] - ym[i]) / (2.0 * h);
                assert!(
                    (fd - s[j][i]).abs() < 1e-6 * (1.0 + fd.abs()),
                    "p{j} out{i}: {fd} vs {}",
                    s[j][i]
                );
            }
        }
        assert!(y[0] > 0.0);
    }
}
