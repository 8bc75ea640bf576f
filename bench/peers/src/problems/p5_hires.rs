//! P5: HIRES (IVP test set; Schäfer 1975, Hairer & Wanner II §IV.10), 8 stiff ODEs,
//! `y(0) = (1, 0, 0, 0, 0, 0, 0, 0.0057)`, on `[0, 321.8122]`, rtol 1e-6, atol 1e-10, forward
//! sensitivities to `k = 280` (the rate of the one nonlinear reaction, `k y6 y8`). Equations:
//! see `runners/diffsol/p5_hires.rs`.
//!
//! atol 1e-10 as for P3: the states are concentrations of 6e-5 to 6e-3 at the end, so
//! `atol = 1e-4 · rtol` keeps every one of them under relative control (the reproduce table's
//! HIRES rows use the same `rtol · 1e-4`).

use crate::case::{Case, Reference};
use crate::reference::stiff;

const K: [f64; 1] = [280.0];

pub fn case() -> Case {
    let s = stiff::HIRES_S;
    Case {
        id: "P5",
        title: "HIRES [0, 321.8122]",
        t_end: 321.8122,
        params: &K,
        param_names: &["k"],
        outputs: &["y1", "y2", "y3", "y4", "y5", "y6", "y7", "y8"],
        rtol: 1e-6,
        atol: 1e-10,
        key_sens: Some((0, 5, "dy6/dk")),
        reference: Reference {
            outputs: stiff::HIRES_Y.to_vec(),
            // reference layout is S[i][q] = dy_i/dk_q; the case layout is sens[q][i]
            sens: vec![(0..8).map(|i| s[i][0]).collect()],
            source: stiff::SOURCE,
        },
    }
}
