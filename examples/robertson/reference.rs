//! The reference solution of Robertson's kinetics in its classic setting (`k = (0.04, 3e7,
//! 1e4)`, `y(0) = (1, 0, 0)`): the concentrations `y` and their sensitivities
//! `S[i][q] = ∂y_i/∂k_q` at `t = 1e5` and `t = 4e10`, one copy of the numbers that
//! `tests/robertson_fsa.rs`, the `robertson` example and the `reproduce` example compare with
//! (each includes this file by `#[path]`).
//!
//! Pasted from the output of `python3 bench/reference/robertson_fsa.py` (scipy 1.17.1
//! `solve_ivp`, method LSODA, rtol 1e-12, atol_i = 1e-18 · max_t |u_i|, exact Jacobian, on the
//! 12-dimensional system `y' = f`, `S' = f_y S + f_k`). Max relative disagreement with the
//! script's cross-checks over all 12 components:
//!
//! - `t = 1e5`: LSODA rtol 1e-13: 1.8e-11; LSODA 1e-11: 2.1e-10; Radau rtol 1e-9: 3.7e-11;
//!   central differences of state-only solves (sensitivities): 1.5e-8.
//! - `t = 4e10`: LSODA 1e-13: 7e-10 (`y`, row `∂y1/∂k`, row `∂y2/∂k`), 1.2e-7 (row `∂y3/∂k`,
//!   which is `−(∂y1/∂k + ∂y2/∂k)` ~ 1e-6 of its own max over the run, hence less accurate
//!   relatively); LSODA 1e-11: 2.3e-8; Radau 1e-9: 2.6e-8; central differences: ≤ 9e-9 for
//!   rows `∂y1/∂k` and `∂y2/∂k` (row `∂y3/∂k`: 4e-4, cancellation in differences of
//!   `y3 ≈ 1`, a limitation of that check, not of the reference).
//!
//! So the reference is good to ≲ 1e-9 relative at 1e5 and ≲ 1e-7 at 4e10.
// Each binary that includes this file uses a subset of it.
#![allow(dead_code)]

/// `y(1e5)`.
pub const Y_1E5: [f64; 3] = [
    0.017865921142539102,
    7.274751468618553e-08,
    0.9821340061099454,
];
/// `S(1e5)`, `S[i][q] = ∂y_i(1e5)/∂k_q`.
pub const S_1E5: [[f64; 3]; 3] = [
    [
        -0.7930471281281706,
        -5.28180336223513e-10,
        3.16907583415021e-06,
    ],
    [
        -1.4688907582349946e-06,
        -2.189842410462488e-15,
        5.864276819568108e-12,
    ],
    [
        0.7930485970188127,
        5.28182526065909e-10,
        -3.1690816984271767e-06,
    ],
];
/// `y(4e10)`.
pub const Y_4E10: [f64; 3] = [
    5.208345170767058e-08,
    2.0833381755126213e-13,
    0.9999999479163375,
];
/// `S(4e10)`, `S[i][q] = ∂y_i(4e10)/∂k_q`.
pub const S_4E10: [[f64; 3]; 3] = [
    [
        -2.6041631228480607e-06,
        -1.7361122024872119e-15,
        1.0416652383429166e-11,
    ],
    [
        -5.208308127918868e-12,
        -6.944449528993268e-21,
        2.0833232092844073e-17,
    ],
    [
        2.604168216504593e-06,
        1.7361191034898824e-15,
        -1.0416673317769833e-11,
    ],
];
