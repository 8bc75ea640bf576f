//! A guard's partials as the event-time maps differentiate it (`fsa/length.rs` forward,
//! `adjoint/length.rs` transposed). In an index-1 mode they are the guard's own. In a
//! Hessenberg index-2 mode `z` is not a variable of its own but the function of `(t, y, p)` the
//! hidden constraint `H(t, y, z, p) = 0` defines (Serban & Recuero 2019, §2, Eq. 18), and the
//! event is located on that function (`events/polish.rs`): the stage value `Z_S` the step
//! computes is only as accurate as the method's stage order (`fsa/index2.rs`), and a guard
//! reading it put the event time of a point released from a circle 18 times rtol off at rtol
//! 1e-10, its sensitivity 6e-7 relative (`tests/index2_adjoint.rs`). So the partials fold `z`'s
//! in, with `ν = H_z⁻ᵀ h_z`:
//!
//! ```text
//! h̃_y = h_y − H_yᵀ ν,   h̃_p = h_p − H_pᵀ ν,   h̃_t = h_t − H_t·ν,   h̃_z = 0,
//! ```
//!
//! at a point whose `z` solves `H = 0`.

use super::{ConditionPartials, HybridModel, Point, ScalarPartials};
use crate::linalg::{DenseLu, LuError};

/// The partials of `guard` at `at` in `mode` as the event-time maps read them (module docs),
/// into `out` (overwritten).
///
/// Errors: [`LuError`] if `H_z` of an index-2 mode is singular.
pub(crate) fn event_guard_partials<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    guard: usize,
    mode: usize,
    at: &Point<'_, NY, NZ, NP>,
    out: &mut ScalarPartials<NY, NZ, NP>,
) -> Result<(), LuError>
where
    M: HybridModel<NY, NZ, NP>,
{
    *out = ScalarPartials::ZERO;
    model.guard_partials(guard, at, out);
    let index2 = M::MODES.get(mode).is_some_and(|info| info.index2);
    if NZ == 0 || !index2 || out.z.iter().all(|&v| v == 0.0) {
        return Ok(());
    }
    let mut c = ConditionPartials::ZERO;
    model.hidden_constraint_partials(mode, at, &mut c);
    let lu = DenseLu::factor(c.cz)?;
    let mut nu = out.z;
    lu.solve_transposed(&mut nu);
    for (r, &v) in nu.iter().enumerate() {
        out.t -= c.ct[r] * v;
        for (hy, cy) in out.y.iter_mut().zip(&c.cy[r]) {
            *hy -= cy * v;
        }
        for (hp, cp) in out.p.iter_mut().zip(&c.cp[r]) {
            *hp -= cp * v;
        }
    }
    out.z = [0.0; NZ];
    Ok(())
}
