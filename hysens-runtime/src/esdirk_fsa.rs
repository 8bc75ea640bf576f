//! Forward parametric sensitivities of the ESDIRK solution by internal numerical
//! differentiation (IND) of the *converged* stage equations (note 003_004 §3.3; the
//! architecture guide's "FSA").
//!
//! For an accepted step with (frozen) step size `h`, differentiate with respect to each
//! parameter `p_q`:
//!
//! * stage 1: `dY_1 = S_y`, `dZ_1 = S_z`, `dF_1 = f_y dY_1 + f_z dZ_1 + f_{p_q}` at `(t_n, y_n, z_n)`;
//! * stage `i ≥ 2`: with `dψ_i = S_y + h Σ_{j<i} a_ij dF_j`, solve
//!   `J_i [dY_i; dZ_i] = [dψ_i + hγ f_{p_q}; −g_{p_q}]`,
//!   `J_i = [I − hγ f_y, −hγ f_z; g_y, g_z]` evaluated **at the converged stage** `(T_i, Y_i, Z_i)`
//!   (the exact Jacobian, note §3.3 item 3 and §7.2 P6; a Jacobian frozen at `t_n` would give
//!   the O(h)-inaccurate sensitivities of seed 003, note §3.2 / P5);
//!   then `dF_i = (dY_i − dψ_i)/(hγ)`, consistent with `F_i = (Y_i − ψ_i)/(hγ)`;
//! * output (stiffly accurate): `S_y ← dY_S`, `S_z ← dZ_S`.
//!
//! The linear stage systems are solved by iterative refinement preconditioned with the step's
//! LU of the iteration matrix `M` (`x ← x + M⁻¹(rhs − J_i x)`), so no extra factorization is
//! needed. It contracts at the rate of the simplified Newton iteration (`‖I − M⁻¹J_i‖`, small
//! whenever Newton converged well) and is run to round-off, so the result is the derivative of
//! the discrete map defined by the exactly solved stage equations with the step sequence frozen.
//! It differs from the derivative of the Newton-iterated solution only by terms of the size of
//! the Newton error (≤ `newton_tol` times the tolerance).
//!
//! Only accepted steps contribute (note §7.2 P8). Cost per step: `S` Jacobian and parameter
//! Jacobian evaluations, and `NP` refinement sequences per implicit stage.
#![allow(clippy::needless_range_loop)] // index loops over const sizes mirror the formulas

use super::{all_finite, Esdirk};
use crate::error::SolveError;
use crate::linalg::Lu;
use crate::model::{ModeJacobian, SmoothMode};

/// Maximum refinement iterations per stage and parameter.
const MAX_REFINE: usize = 60;

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize>
    Esdirk<'_, M, S, NY, NZ, NP, N>
where
    M: SmoothMode<NY, NZ, NP>,
{
    /// Turns on forward sensitivities with respect to the parameters, starting from
    /// `∂y/∂p (t) = sy0` at the current time (zero if the initial state does not depend on
    /// `p`). The algebraic sensitivities are made consistent with the linearized constraint:
    /// `S_z = −g_z⁻¹ (g_y S_y + g_p)` (note §3.1).
    pub fn enable_sensitivities(&mut self, sy0: [[f64; NP]; NY]) -> Result<(), SolveError> {
        if !sy0.iter().all(all_finite) {
            return Err(self.err_nonfinite("initial sensitivities"));
        }
        self.sy = sy0;
        self.sz = [[0.0; NP]; NZ];
        if NZ > 0 {
            let mut jac = ModeJacobian::ZERO;
            let mut fp = [[0.0; NP]; NY];
            let mut gp = [[0.0; NP]; NZ];
            self.model
                .jacobian(self.t, &self.y, &self.z, &self.p, &mut jac);
            self.model
                .parameter_jacobian(self.t, &self.y, &self.z, &self.p, &mut fp, &mut gp);
            self.stats.sensitivity_jacobian_evals += 1;
            let lu = Lu::factor(jac.gz).map_err(|e| self.lu_error(e))?;
            for q in 0..NP {
                let mut rhs = [0.0; NZ];
                for r in 0..NZ {
                    let mut v = gp[r][q];
                    for c in 0..NY {
                        v += jac.gy[r][c] * self.sy[c][q];
                    }
                    rhs[r] = -v;
                }
                lu.solve(&mut rhs);
                for r in 0..NZ {
                    self.sz[r][q] = rhs[r];
                }
            }
            if !self.sz.iter().all(all_finite) {
                return Err(self.err_nonfinite("initial algebraic sensitivities"));
            }
        }
        self.fsa = true;
        Ok(())
    }

    /// Sensitivities `(∂y/∂p, ∂z/∂p)` at [`Esdirk::t`] (zero if not enabled).
    pub fn sensitivities(&self) -> (&[[f64; NP]; NY], &[[f64; NP]; NZ]) {
        (&self.sy, &self.sz)
    }

    /// Stage sensitivities `(∂Y_i/∂p, ∂Z_i/∂p)` of the last accepted step (zero before the
    /// first step or if sensitivities are disabled); integral-cost gradients use them
    /// (`cost.rs`).
    #[allow(clippy::type_complexity)]
    pub fn stage_sensitivities(&self) -> (&[[[f64; NP]; NY]; S], &[[[f64; NP]; NZ]; S]) {
        (&self.stage_sy, &self.stage_sz)
    }

    /// Whether sensitivities are enabled.
    pub fn sensitivities_enabled(&self) -> bool {
        self.fsa
    }

    /// Propagates the sensitivities over the accepted step of size `h` whose stages are in
    /// the stage storage and whose iteration matrix is factorized in `self.lu`.
    pub(super) fn propagate_sensitivities(&mut self, h: f64) -> Result<(), SolveError> {
        let tab = self.tableau;
        let hg = h * tab.gamma;
        // Jacobians at every stage point.
        let mut jac = [ModeJacobian::<NY, NZ>::ZERO; S];
        let mut fp = [[[0.0; NP]; NY]; S];
        let mut gp = [[[0.0; NP]; NZ]; S];
        for i in 0..S {
            let ti = self.t + tab.c[i] * h;
            let (y, z) = (&self.ys[i], &self.zs[i]);
            self.model.jacobian(ti, y, z, &self.p, &mut jac[i]);
            self.model
                .parameter_jacobian(ti, y, z, &self.p, &mut fp[i], &mut gp[i]);
            self.stats.sensitivity_jacobian_evals += 1;
        }
        let mut dy = [[0.0; NY]; S];
        let mut dz = [[0.0; NZ]; S];
        let mut df = [[0.0; NY]; S];
        for q in 0..NP {
            for c in 0..NY {
                dy[0][c] = self.sy[c][q];
            }
            for c in 0..NZ {
                dz[0][c] = self.sz[c][q];
            }
            // dF_1 = f_y dY_1 + f_z dZ_1 + f_p
            let j0 = &jac[0];
            for r in 0..NY {
                let mut v = fp[0][r][q];
                for c in 0..NY {
                    v += j0.fy[r][c] * dy[0][c];
                }
                for c in 0..NZ {
                    v += j0.fz[r][c] * dz[0][c];
                }
                df[0][r] = v;
            }
            for i in 1..S {
                let mut dpsi = dy[0];
                for j in 0..i {
                    let a = h * tab.a[i][j];
                    for c in 0..NY {
                        dpsi[c] += a * df[j][c];
                    }
                }
                let mut rhs = [0.0; N];
                for c in 0..NY {
                    rhs[c] = dpsi[c] + hg * fp[i][c][q];
                }
                for c in 0..NZ {
                    rhs[NY + c] = -gp[i][c][q];
                }
                let x = self.refine(&jac[i], hg, &rhs, i)?;
                for c in 0..NY {
                    dy[i][c] = x[c];
                    df[i][c] = (x[c] - dpsi[c]) / hg;
                }
                // Lengths agree: N = NY + NZ is a compile-time assertion in `Esdirk::new`.
                dz[i].copy_from_slice(&x[NY..]);
            }
            for i in 0..S {
                for c in 0..NY {
                    self.stage_sy[i][c][q] = dy[i][c];
                }
                for c in 0..NZ {
                    self.stage_sz[i][c][q] = dz[i][c];
                }
            }
            for c in 0..NY {
                self.sy[c][q] = dy[S - 1][c];
            }
            for c in 0..NZ {
                self.sz[c][q] = dz[S - 1][c];
            }
        }
        if !self.sy.iter().all(all_finite) || !self.sz.iter().all(all_finite) {
            return Err(self.err_nonfinite("sensitivities"));
        }
        Ok(())
    }

    /// Solves `J x = rhs`, `J = [I − hγ f_y, −hγ f_z; g_y, g_z]` (from `jac`), by iterative
    /// refinement preconditioned with the step's LU. Stops when the correction stagnates at
    /// round-off: `‖d‖∞ ≤ 4ε‖x‖∞`, or `‖d‖∞ ≤ 1e-12‖x‖∞` and no longer decreasing by half.
    fn refine(
        &mut self,
        jac: &ModeJacobian<NY, NZ>,
        hg: f64,
        rhs: &[f64; N],
        stage: usize,
    ) -> Result<[f64; N], SolveError> {
        let mut x = *rhs;
        self.lu.solve(&mut x);
        self.stats.lu_solves += 1;
        let mut d_prev = f64::INFINITY;
        for _ in 0..MAX_REFINE {
            // d = M⁻¹ (rhs − J x)
            let mut d = *rhs;
            for r in 0..NY {
                let mut v = x[r];
                for c in 0..NY {
                    v -= hg * jac.fy[r][c] * x[c];
                }
                for c in 0..NZ {
                    v -= hg * jac.fz[r][c] * x[NY + c];
                }
                d[r] -= v;
            }
            for r in 0..NZ {
                let mut v = 0.0;
                for c in 0..NY {
                    v += jac.gy[r][c] * x[c];
                }
                for c in 0..NZ {
                    v += jac.gz[r][c] * x[NY + c];
                }
                d[NY + r] -= v;
            }
            self.lu.solve(&mut d);
            self.stats.lu_solves += 1;
            self.stats.sensitivity_iterations += 1;
            let mut dn = 0.0_f64;
            let mut xn = 0.0_f64;
            for c in 0..N {
                x[c] += d[c];
                dn = dn.max(d[c].abs());
                xn = xn.max(x[c].abs());
            }
            if !dn.is_finite() {
                break;
            }
            if dn <= 4.0 * f64::EPSILON * xn || (dn <= 1e-12 * xn && dn > 0.5 * d_prev) {
                return Ok(x);
            }
            d_prev = dn;
        }
        Err(SolveError::NewtonFailure {
            t: self.t,
            mode: self.mode,
            h: hg / self.tableau.gamma,
            stage,
        })
    }
}
