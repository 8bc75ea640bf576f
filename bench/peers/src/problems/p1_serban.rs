//! P1: Serban & Recuero (2019) Example 5.1, a hybrid scalar ODE with three state-dependent mode
//! switches and a hidden sensitivity jump at each.
//!
//! ```text
//! x' = 4 - x     while x^3 - 5x^2 + 7x <= p   (mode A)
//! x' = 10 - 2x   otherwise                     (mode B)
//! x(0) = 0,  t in [0, 5],  p = 2.9,  G = ∫_0^5 x dt
//! ```
//!
//! Settings: rtol 1e-8, atol 1e-10. Compared: `x(5)`, `G` and their derivatives in p.

use crate::case::{Case, Reference};
use crate::reference::serban;

pub fn case() -> Case {
    Case {
        id: "P1",
        title: "Serban–Recuero Ex. 5.1 [0, 5]",
        t_end: 5.0,
        params: &[2.9],
        param_names: &["p"],
        outputs: &["x(5)", "G"],
        rtol: 1e-8,
        atol: 1e-10,
        key_sens: Some((0, 1, "dG/dp")),
        reference: Reference {
            outputs: vec![serban::X_T, serban::G],
            sens: vec![vec![serban::DX_T_DP, serban::DG_DP]],
            source: serban::SOURCE,
        },
    }
}
