//! P4: the stiff Van der Pol oscillator (unscaled), `mu = 1000`, `y(0) = (2, 0)`, on `[0, 500]`
//! (P4a, first slow branch) and `[0, 2000]` (P4b, past two fast transitions), rtol 1e-6,
//! atol 1e-8, forward sensitivity to `mu`. Equations: see `runners/diffsol/p4_vdp.rs`.

use crate::case::{Case, Reference};
use crate::reference::vdp;

const MU: [f64; 1] = [1000.0];

pub fn cases() -> Vec<Case> {
    let case = |id, title, t_end, r: [f64; 4]| Case {
        id,
        title,
        t_end,
        params: &MU,
        param_names: &["μ"],
        outputs: &["y1", "y2"],
        rtol: 1e-6,
        atol: 1e-8,
        key_sens: Some((0, 0, "dy1/dμ")),
        reference: Reference {
            outputs: vec![r[0], r[1]],
            sens: vec![vec![r[2], r[3]]],
            source: vdp::SOURCE,
        },
    };
    vec![
        case("P4a", "Van der Pol μ=1000 [0, 500]", 500.0, vdp::T500),
        case("P4b", "Van der Pol μ=1000 [0, 2000]", 2000.0, vdp::T2000),
    ]
}
