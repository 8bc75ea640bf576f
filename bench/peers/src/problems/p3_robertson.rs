//! P3: Robertson's stiff chemical kinetics, `k = (0.04, 3e7, 1e4)`, `y(0) = (1, 0, 0)`, on
//! `[0, 1e5]` (P3a) and `[0, 4e10]` (P3b), rtol 1e-6, atol 1e-10, forward sensitivities to the
//! three rate constants. Equations: see `runners/diffsol/p3_robertson.rs`.

use crate::case::{Case, Reference};
use crate::reference::robertson;

const K: [f64; 3] = [0.04, 3.0e7, 1.0e4];

pub fn cases() -> Vec<Case> {
    let case = |id, title, t_end, y: [f64; 3], s: [[f64; 3]; 3]| Case {
        id,
        title,
        t_end,
        params: &K,
        param_names: &["k1", "k2", "k3"],
        outputs: &["y1", "y2", "y3"],
        rtol: 1e-6,
        atol: 1e-10,
        key_sens: Some((1, 1, "dy2/dk2")),
        reference: Reference {
            outputs: y.to_vec(),
            // reference layout is S[i][q] = dy_i/dk_q; the case layout is sens[q][i]
            sens: (0..3).map(|q| (0..3).map(|i| s[i][q]).collect()).collect(),
            source: robertson::SOURCE,
        },
    };
    vec![
        case(
            "P3a",
            "Robertson [0, 1e5]",
            1.0e5,
            robertson::Y_1E5,
            robertson::S_1E5,
        ),
        case(
            "P3b",
            "Robertson [0, 4e10]",
            4.0e10,
            robertson::Y_4E10,
            robertson::S_4E10,
        ),
    ]
}
