//! P2: the bouncing ball, `z' = v`, `v' = -g`; at `z = 0` (falling) `v^+ = -gamma v^-`.
//!
//! `z0 = 5`, `v0 = -0.1`, `g = 10`, `gamma = 0.8`, `T = 1.9` (one impact, at t ≈ 0.990),
//! rtol 1e-8, atol 1e-10. Compared: `z(T)`, `v(T)` and their derivatives in all four
//! parameters, against the closed form of [`crate::reference::bouncing_ball`].

use crate::case::{Case, Reference};
use crate::reference::bouncing_ball;

const P: [f64; 4] = [5.0, -0.1, 10.0, 0.8];
const T_END: f64 = 1.9;

pub fn case() -> Case {
    let (outputs, sens, _impacts) = bouncing_ball::solve(P[0], P[1], P[2], P[3], T_END);
    Case {
        id: "P2",
        title: "bouncing ball [0, 1.9]",
        t_end: T_END,
        params: &P,
        param_names: &["z0", "v0", "g", "γ"],
        outputs: &["z(T)", "v(T)"],
        rtol: 1e-8,
        atol: 1e-10,
        key_sens: Some((3, 0, "dz(T)/dγ")),
        reference: Reference {
            outputs,
            sens,
            source: bouncing_ball::SOURCE,
        },
    }
}
