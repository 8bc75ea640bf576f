//! ESDIRK23 of Jørgensen, Kristensen & Thomsen (arXiv:1803.01613): 3 stages, order 2 with an
//! embedded order-3 method, L-stable, stiffly accurate, stage order 2.
//!
//! Exact forms (from the defining conditions of arXiv:1803.01613): `γ = 1 − 1/√2`, `c_2 = 2γ`, `a_21 = γ`,
//! `a_31 = a_32 = b_1 = b_2 = (1 − γ)/2 = 1/(2√2)`, `b_3 = γ`,
//! `b̂ = ((6γ−1)/(12γ), 1/(12γ(1−2γ)), (1−3γ)/(3(1−2γ)))`. They are evaluated here in f64 from
//! the correctly rounded `1/√2`.

use super::Tableau;
use core::f64::consts::FRAC_1_SQRT_2;

const G: f64 = 1.0 - FRAC_1_SQRT_2;
const B1: f64 = 0.5 * FRAC_1_SQRT_2;

/// ESDIRK23 (Jørgensen, Kristensen & Thomsen 2018, arXiv:1803.01613).
pub const ESDIRK23: Tableau<3> = Tableau {
    name: "ESDIRK23",
    c: [0.0, 2.0 * G, 1.0],
    a: [[0.0, 0.0, 0.0], [G, G, 0.0], [B1, B1, G]],
    b: [B1, B1, G],
    b_hat: [
        (6.0 * G - 1.0) / (12.0 * G),
        1.0 / (12.0 * G * (1.0 - 2.0 * G)),
        (1.0 - 3.0 * G) / (3.0 * (1.0 - 2.0 * G)),
    ],
    gamma: G,
    order: 2,
    embedded_order: 3,
    stage_order: 2,
};

// Compile-time guard against transcription errors.
const _: () = assert!(ESDIRK23.structural_defect() < 1e-15);
