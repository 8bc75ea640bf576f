//! P6: Chemical Akzo Nobel (IVP test set), an index-1 DAE of 5 differential states and one
//! algebraic `y6 = Ks y1 y4`, `y(0) = (0.444, 0.00123, 0, 0.007, 0)`, `y6(0) = Ks · 0.444 ·
//! 0.007`, on `[0, 180]`, rtol 1e-6, atol 1e-10, forward sensitivities to `(k1, kla) =
//! (18.7, 3.3)`; outputs `y1..y6`. Equations: see `runners/diffsol/p6_akzo.rs`.
//!
//! atol 1e-10 as for P3 and P5: the smallest state at the end is `y4 ≈ 3.7e-4` (and `y3`,
//! `y5` start at 0), so `atol = 1e-4 · rtol` keeps all of them under relative control.

use crate::case::{Case, Reference};
use crate::reference::stiff;

const P: [f64; 2] = [18.7, 3.3];

pub fn case() -> Case {
    let s = stiff::AKZO_S;
    Case {
        id: "P6",
        title: "Chemical Akzo Nobel [0, 180]",
        t_end: 180.0,
        params: &P,
        param_names: &["k1", "kla"],
        outputs: &["y1", "y2", "y3", "y4", "y5", "y6"],
        rtol: 1e-6,
        atol: 1e-10,
        key_sens: Some((0, 0, "dy1/dk1")),
        reference: Reference {
            outputs: stiff::AKZO_Y.to_vec(),
            // reference layout is S[i][q] = dy_i/dp_q; the case layout is sens[q][i]
            sens: (0..2).map(|q| (0..6).map(|i| s[i][q]).collect()).collect(),
            source: stiff::SOURCE,
        },
    }
}
