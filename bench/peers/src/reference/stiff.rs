//! Reference values of P5 (HIRES, `k = 280`, `y(0) = (1, 0, 0, 0, 0, 0, 0, 0.0057)`,
//! t = 321.8122) and P6 (Chemical Akzo Nobel, `(k1, kla) = (18.7, 3.3)`, t = 180), the two
//! problems of the IVP test set (Mazzia & Magherini) of issue #25.
//!
//! Source: bench/reference/stiff_references.py (scipy 1.17.1, numpy 2.4.6): LSODA at rtol
//! 1e-12 on the augmented system `y' = f`, `S' = f_y S + f_p` with analytic `f_y`, `f_p` and
//! its Jacobian by the complex step (exact to rounding), atol 1e-16 on the states and 1e-20
//! on the sensitivities. Akzo is integrated as the 5-state ODE with the algebraic equation
//! `y6 = Ks y1 y4` substituted (the same solution, index 1), and `y6`, `dy6/dp = Ks (y4
//! dy1/dp + y1 dy4/dp)` are computed from it. The same script cross-checks (largest relative
//! differences over all components):
//!
//! | | HIRES | Akzo |
//! |---|---|---|
//! | states vs a state-only LSODA solve at rtol 1e-12 (the reproduce table's reference) | 1.1e-11 | 1.5e-11 |
//! | Radau IIA at rtol 1e-10 on the augmented system: states | 1.8e-11 | 1.7e-12 |
//! | Radau IIA at rtol 1e-10 on the augmented system: sensitivities | 1.4e-11 | 1.4e-11 |
//! | central differences of state-only LSODA solves (rtol 1e-13, step 1e-4·p) | 1.8e-8 | 3.4e-8 |
//! | the test set's published states (RADAU5) vs the state-only solve | 2.8e-11 | 1.7e-11 |
//!
//! (The central differences' own error is ~1e-8: truncation (1e-4)² and tolerance noise
//! 1e-13/1e-4.) The numbers below are the script's output verbatim.
//!
//! Layout: `Y = [y1, ..]`, `S[i][q] = dy_i/dp_q`.

pub const SOURCE: &str = "P5/P6: scipy LSODA rtol 1e-12 on the augmented system (Radau 1e-10 and \
     central differences agree to 1.4e-11 and 3.4e-8), bench/reference/stiff_references.py";

/// HIRES `y(321.8122)`.
pub const HIRES_Y: [f64; 8] = [
    7.3713125733365983e-04,
    1.4424857263183358e-04,
    5.8887297409881167e-05,
    1.1756513432851620e-03,
    2.3863561988650621e-03,
    6.2389682528507092e-03,
    2.8499983952083962e-03,
    2.8500016047916165e-03,
];
/// HIRES `dy_i/dk` at t = 321.8122.
pub const HIRES_S: [[f64; 1]; 8] = [
    [-4.6426945386765427e-07],
    [-9.1165050666878614e-08],
    [-8.8339655473184542e-08],
    [-8.3921677880438868e-07],
    [-1.4886031059132821e-05],
    [-5.1965573407398801e-05],
    [-6.4980676683275736e-06],
    [6.4980676683275719e-06],
];

/// Akzo `(y1..y5, y6)` at t = 180.
pub const AKZO_Y: [f64; 6] = [
    1.1507949206625570e-01,
    1.2038314715676632e-03,
    1.6115628874075516e-01,
    3.6561564212528362e-04,
    1.7080108852629297e-02,
    4.8735313103158116e-03,
];
/// Akzo `d(y1..y6)/d(k1, kla)` at t = 180.
pub const AKZO_S: [[f64; 2]; 6] = [
    [-2.0003685177885236e-03, -9.7677625042298351e-04],
    [2.8237252999477092e-07, 5.8099209381032122e-06],
    [9.9097886642118501e-04, 4.9138148113738443e-04],
    [-1.7891473616469037e-05, 8.4431076975155313e-06],
    [-4.2852910517694796e-04, 6.0862094657910865e-04],
    [-3.2320134276959169e-04, 7.1177983178662439e-05],
];
