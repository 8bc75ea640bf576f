//! ESDIRK34 of Jørgensen, Kristensen & Thomsen (arXiv:1803.01613): 4 stages, order 3 with an
//! embedded order-4 method, L-stable, stiffly accurate, stage order 2. This is the method of
//! Kristensen et al. 2005.
//!
//! Coefficients: re-derived in 50-digit arithmetic from the method's defining conditions
//! (agreeing with the published 20-digit values of arXiv:1803.01613 to 1.3e-19), written
//! with 22 digits so that the f64 literal is the correctly rounded value.
//! `γ = 0.4358665215084589994160` is the root in (0.4, 0.5) of `γ³ − 3γ² + 3γ/2 − 1/6 = 0`.
//!
//! Copy hazards: Kværnø's ESDIRK 3(4) shares the first four stages only
//! to ~1e-11 and has a *fifth* stage for its embedded method — its weights are not `b̂` here;
//! one public file prints `b_2 = −0.3687…` instead of `−0.3768…`.

// The literals keep all 22 digits of the source so they can be audited against it; the f64
// values are their correctly rounded conversions.
#![allow(clippy::excessive_precision)]

use super::Tableau;

const G: f64 = 0.435_866_521_508_458_999_416_0;
const C2: f64 = 0.871_733_043_016_917_998_832_0;
const C3: f64 = 0.468_238_744_851_844_395_624_2;
const A31: f64 = 0.140_737_774_724_706_196_186_4;
const A32: f64 = -0.108_365_551_381_320_799_978_2;
const B1: f64 = 0.102_399_400_619_910_997_682_3;
const B2: f64 = -0.376_878_452_255_556_106_088_7;
const B3: f64 = 0.838_612_530_127_186_108_990_4;

/// ESDIRK34 (Jørgensen, Kristensen & Thomsen 2018, arXiv:1803.01613).
pub const ESDIRK34: Tableau<4> = Tableau {
    name: "ESDIRK34",
    c: [0.0, C2, C3, 1.0],
    a: [
        [0.0, 0.0, 0.0, 0.0],
        [G, G, 0.0, 0.0],
        [A31, A32, G, 0.0],
        [B1, B2, B3, G],
    ],
    b: [B1, B2, B3, G],
    b_hat: [
        0.157_024_897_860_324_937_100_8,
        0.117_330_441_370_438_848_696_8,
        0.616_678_030_392_121_464_348_4,
        0.108_966_630_377_114_749_854_0,
    ],
    gamma: G,
    order: 3,
    embedded_order: 4,
    stage_order: 2,
};

// Compile-time guard against transcription errors.
const _: () = assert!(ESDIRK34.structural_defect() < 1e-15);
