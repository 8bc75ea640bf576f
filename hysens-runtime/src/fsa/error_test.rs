//! The forward sensitivities in the local error test ([`crate::Options::sensitivity_error_test`];
//! module docs of `fsa/`, "In the error test").

use super::Following;
use crate::linalg::StageFactors;
use crate::model::SmoothMode;
use crate::norm::rms;

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize>
    Following<'_, '_, M, S, NY, NZ, NP, N>
where
    M: SmoothMode<NY, NZ, NP>,
{
    /// WRMS norm of the sensitivities' local error estimate `err` (`h Σ d_j dF_j` per column,
    /// overwritten), filtered through the step's iteration matrix like the states' estimate
    /// (`step/attempt.rs`; Hairer & Wanner II, §IV.8, Eq. 8.20) and weighted with the states' tolerances on
    /// `max(|s_n|, |s_{n+1}|)` (`s_new` = the new columns `S_{n+1}`).
    ///
    /// The test is on the sensitivities the caller sees, `s(t) = ∂y(t)/∂p` at fixed `t`. On a
    /// grid shifted by an event the columns are the total derivatives `S = s + ẏ ∂t_n/∂p`
    /// (module docs), so the partial sensitivities are `s = S − F st` (`F` = `F_1` at the
    /// start, `F_S` at the end of the step, `st` = the grid shift), and their error is
    /// `err_S − st · δF`, where `δF = (ẽ − e)/(hγ)` is the change of `ẏ` caused by the states'
    /// error: with `M [ẽ; ζ] = [e; 0]`, `ẽ − hγ (f_y ẽ + f_z ζ) = e` and `g_y ẽ + g_z ζ = 0`,
    /// so `(ẽ − e)/(hγ)` is `f` differentiated along the consistent error direction `(ẽ, ζ)`.
    /// Without that term the states' error, which the state test bounds only relative to
    /// `|y|`, leaks unchecked into `s`: Ex. 5.1 at rtol 1e-8 gave `∂x(5)/∂p` to 4.5e-6 relative,
    /// from `5 − x(5)` (≈ 1e-3, known to 2e-6 relative) times `∂t_3/∂p`.
    pub(super) fn sensitivity_error(
        &mut self,
        h: f64,
        err: &mut [[f64; NP]; NY],
        s_new: &[[f64; NP]; NY],
    ) -> f64 {
        let filtered = self.step.matrix.lu_h == h;
        if filtered {
            let mut r = [[0.0; NP]; N];
            r[..NY].copy_from_slice(err);
            self.step.matrix.lu.solve_columns(&mut r);
            self.step.stats.lu_solves += NP;
            err.copy_from_slice(&r[..NY]);
        }
        let st = self.fsa.sens.st;
        let mut s_old = self.fsa.sens.sy;
        let mut s_new = *s_new;
        if st.iter().any(|x| *x != 0.0) {
            let (f_old, f_new) = (self.step.stages.fs[0], self.step.stages.fs[S - 1]);
            let mut df = [0.0; NY];
            if filtered {
                let (raw, state_err) = self.step.state_error_estimate(h);
                let hg = h * self.step.tableau.gamma;
                for c in 0..NY {
                    df[c] = (state_err[c] - raw[c]) / hg;
                }
            }
            for c in 0..NY {
                for q in 0..NP {
                    s_old[c][q] -= f_old[c] * st[q];
                    s_new[c][q] -= f_new[c] * st[q];
                    err[c][q] -= df[c] * st[q];
                }
            }
        }
        let mut sum = 0.0;
        for c in 0..NY {
            for q in 0..NP {
                let w = self.step.opts.atol_y[c]
                    + self.step.opts.rtol_y[c] * s_old[c][q].abs().max(s_new[c][q].abs());
                let v = err[c][q] / w;
                sum += v * v;
            }
        }
        rms(sum, NY * NP)
    }
}
