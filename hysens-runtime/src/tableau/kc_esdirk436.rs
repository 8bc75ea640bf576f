//! ESDIRK4(3)6L\[2\]SA of Kennedy & Carpenter (2016), *Diagonally implicit Runge–Kutta methods
//! for ordinary differential equations. A review*, NASA/TM-2016-219173, Table 16 (p. 90):
//! 6 stages, order 4 with an embedded order-3 method, L-stable, stiffly accurate, stage order 2,
//! `γ = 1/4`.
//!
//! The advancing method is exact in terms of `√2` (`c_3 = (2 − √2)/4`), evaluated in f64 from
//! the correctly rounded `core::f64::consts::SQRT_2`. The first column and `b_1` follow from the
//! row sums (`a_i1 = c_i − Σ_{j≥2} a_ij`, `b_1 = 1 − Σ_{j≥2} b_j`), as in the paper. The embedded
//! weights `b̂_2..b̂_6` are the rational numbers printed in Table 16 and `b̂_1 = 1 − Σ_{j≥2} b̂_j`.
//! (The coefficients are not all rational: Table 16 of the 2016 review has `√2` in the
//! advancing method. The unit tests verify every order condition.)

use super::Tableau;
use core::f64::consts::SQRT_2;

const G: f64 = 0.25;
const C2: f64 = 0.5;
const C3: f64 = (2.0 - SQRT_2) / 4.0;
const C4: f64 = 5.0 / 8.0;
const C5: f64 = 26.0 / 25.0;

const A32: f64 = (1.0 - SQRT_2) / 8.0;
const A31: f64 = C3 - A32 - G;
const A43: f64 = 7.0 * (1.0 + SQRT_2) / 32.0;
const A42: f64 = (5.0 - 7.0 * SQRT_2) / 64.0;
const A41: f64 = C4 - A42 - A43 - G;
const A54: f64 = 166.0 * (-97.0 + 376.0 * SQRT_2) / 109_375.0;
const A53: f64 = (506_605.0 + 132_109.0 * SQRT_2) / 437_500.0;
const A52: f64 = (-13_796.0 - 54_539.0 * SQRT_2) / 125_000.0;
const A51: f64 = C5 - A52 - A53 - A54 - G;
const B5: f64 = -15_625.0 * (97.0 + 376.0 * SQRT_2) / 90_749_876.0;
const B4: f64 = -16.0 * (-22_922.0 + 3_525.0 * SQRT_2) / 571_953.0;
const B3: f64 = 47.0 * (-267.0 + 1_783.0 * SQRT_2) / 273_343.0;
const B2: f64 = (1_181.0 - 987.0 * SQRT_2) / 13_782.0;
const B1: f64 = 1.0 - B2 - B3 - B4 - B5 - G;

const BH2: f64 = -480_923_228_411.0 / 4_982_971_448_372.0;
const BH3: f64 = 6_709_447_293_961.0 / 12_833_189_095_359.0;
const BH4: f64 = 3_513_175_791_894.0 / 6_748_737_351_361.0;
const BH5: f64 = -498_863_281_070.0 / 6_042_575_550_617.0;
const BH6: f64 = 2_077_005_547_802.0 / 8_945_017_530_137.0;
const BH1: f64 = 1.0 - BH2 - BH3 - BH4 - BH5 - BH6;

/// ESDIRK4(3)6L\[2\]SA (Kennedy & Carpenter 2016, Table 16).
pub const ESDIRK436L2SA: Tableau<6> = Tableau {
    name: "ESDIRK4(3)6L[2]SA",
    c: [0.0, C2, C3, C4, C5, 1.0],
    a: [
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [G, G, 0.0, 0.0, 0.0, 0.0],
        [A31, A32, G, 0.0, 0.0, 0.0],
        [A41, A42, A43, G, 0.0, 0.0],
        [A51, A52, A53, A54, G, 0.0],
        [B1, B2, B3, B4, B5, G],
    ],
    b: [B1, B2, B3, B4, B5, G],
    b_hat: [BH1, BH2, BH3, BH4, BH5, BH6],
    gamma: G,
    order: 4,
    embedded_order: 3,
    stage_order: 2,
};

// Compile-time guard against transcription errors.
const _: () = assert!(ESDIRK436L2SA.structural_defect() < 1e-15);
