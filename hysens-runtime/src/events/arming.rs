//! Armed signs of the guards and the look-ahead rule at restarts (module docs of `events/`).
#![allow(clippy::needless_range_loop)]

use super::{sign, MAX_GUARDS};
use crate::error::SolveError;
use crate::linalg::Lu;
use crate::model::{HybridModel, ModeJacobian, Point, ScalarPartials};
use crate::options::Options;

/// Armed signs of all guards: `+1`, `−1` or `0` (undecided), in two bit sets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Armed {
    pos: u128,
    neg: u128,
}

impl Armed {
    /// No guard armed.
    pub(crate) const NONE: Armed = Armed { pos: 0, neg: 0 };

    /// The armed sign of guard `g` (0 for `g ≥ MAX_GUARDS`).
    pub(crate) fn get(&self, g: usize) -> f64 {
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
    pub(crate) fn set(&mut self, g: usize, s: f64) {
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

/// The sign of guard `g` at `at` for arming (module docs of `events/`): its value's sign
/// outside the tolerance band of `options`, else the sign of `ḣ` under mode `mode`
/// ([`Arming::look_ahead`]).
pub(crate) fn arming_sign<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    options: &Options<NY, NZ>,
    mode: usize,
    g: usize,
    at: &Point<'_, NY, NZ, NP>,
) -> Result<Arming, SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let v = model.guard(g, at);
    if !v.is_finite() {
        return Err(SolveError::NonFiniteValue {
            t: at.t,
            mode,
            what: "guard",
        });
    }
    let mut d = ScalarPartials::ZERO;
    model.guard_partials(g, at, &mut d);
    let o = options;
    let mut band = 0.0;
    for i in 0..NY {
        band += d.y[i].abs() * (o.atol_y[i] + o.rtol_y[i] * at.y[i].abs());
    }
    for j in 0..NZ {
        band += d.z[j].abs() * (o.atol_z[j] + o.rtol_z[j] * at.z[j].abs());
    }
    if v.abs() > band {
        return Ok(Arming {
            sign: sign(v),
            look_ahead: false,
        });
    }
    let mut ydot = [0.0; NY];
    let mut gv = [0.0; NZ];
    model.residual(mode, at, &mut ydot, &mut gv);
    // ż is only needed if the guard reads z; a failure to compute it leaves the guard
    // undecided rather than failing the solve.
    let zdot = if NZ > 0 && d.z.iter().any(|x| *x != 0.0) {
        algebraic_rate(model, mode, at, &ydot).unwrap_or([0.0; NZ])
    } else {
        [0.0; NZ]
    };
    let mut hdot = d.t;
    for i in 0..NY {
        hdot += d.y[i] * ydot[i];
    }
    for j in 0..NZ {
        hdot += d.z[j] * zdot[j];
    }
    Ok(Arming {
        sign: if hdot.is_finite() { sign(hdot) } else { 0.0 },
        look_ahead: true,
    })
}

/// The armed sign of a guard, and how it was decided.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Arming {
    /// `+1`, `−1` or `0` (undecided).
    pub sign: f64,
    /// Decided by the sign of `ḣ`: the guard is zero within its tolerance band.
    pub look_ahead: bool,
}

impl Arming {
    /// Whether a guard zero here is moving the way it fires (a crossing under way).
    pub(crate) fn fires(&self, direction: crate::model::Direction) -> bool {
        use crate::model::Direction;
        self.look_ahead
            && match direction {
                Direction::Rising => self.sign > 0.0,
                Direction::Falling => self.sign < 0.0,
                Direction::Either => self.sign != 0.0,
            }
    }
}

/// `ż = −g_z⁻¹ (g_y ẏ + g_t)` in `mode` at `at`, from the time-differentiated constraint
/// (Serban & Recuero 2019, below Eq. 6; zero-size when `NZ = 0`).
pub(crate) fn algebraic_rate<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    mode: usize,
    at: &Point<'_, NY, NZ, NP>,
    ydot: &[f64; NY],
) -> Result<[f64; NZ], SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let mut zdot = [0.0; NZ];
    if NZ == 0 {
        return Ok(zdot);
    }
    let mut jac = ModeJacobian::ZERO;
    model.jacobian(mode, at, &mut jac);
    let mut ft = [0.0; NY];
    let mut gt = [0.0; NZ];
    model.time_partials(mode, at, &mut ft, &mut gt);
    for r in 0..NZ {
        let mut v = gt[r];
        for c in 0..NY {
            v += jac.gy[r][c] * ydot[c];
        }
        zdot[r] = -v;
    }
    let lu =
        Lu::factor(jac.gz).map_err(|e| SolveError::from_lu(e, at.t, mode, "g_z at an event"))?;
    lu.solve(&mut zdot);
    Ok(zdot)
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
}
