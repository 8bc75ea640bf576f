//! Reference values of P3 (Robertson, k = (k1, k2, k3) = (0.04, 3e7, 1e4), y(0) = (1, 0, 0)).
//!
//! Source: bench/reference/robertson_fsa.py (written by another helper for the hysens-runtime
//! tests; scipy 1.17.1): Radau IIA on the 12-dimensional augmented system (states and the
//! sensitivity equations) with its exact Jacobian, rtol 1e-12, per-component
//! atol 1e-18 x (max |component| over the run). The script cross-checks against BDF and
//! LSODA at the same tolerances, Radau at rtol 1e-11 and central differences; the numbers
//! below are its output, identical to the constants `REF_*` of
//! tests/robertson_fsa.rs.
//!
//! Layout: `Y = [y1, y2, y3]`, `S[i][q] = dy_i/dk_q`.

pub const SOURCE: &str =
    "P3: scipy Radau rtol 1e-12 on the augmented system, bench/reference/robertson_fsa.py";

pub const Y_1E5: [f64; 3] = [
    0.01786592114293954,
    7.27475146878451e-08,
    0.9821340061095517,
];
pub const S_1E5: [[f64; 3]; 3] = [
    [
        -0.7930471281392111,
        -5.281803362308228e-10,
        3.16907583419403e-06,
    ],
    [
        -1.4688907582419477e-06,
        -2.189842410494572e-15,
        5.864276819594514e-12,
    ],
    [
        0.7930485970301085,
        5.28182526073216e-10,
        -3.1690816984712897e-06,
    ],
];

pub const Y_4E10: [f64; 3] = [
    5.208345169672385e-08,
    2.0833381750747156e-13,
    0.999999947916355,
];
pub const S_4E10: [[f64; 3]; 3] = [
    [
        -2.604163122983238e-06,
        -1.7361122033024898e-15,
        1.041665238246983e-11,
    ],
    [
        -5.208308129554211e-12,
        -6.944449532254264e-21,
        2.0833232093385133e-17,
    ],
    [
        2.6041684808264814e-06,
        1.7361191451320212e-15,
        -1.0416673689575221e-11,
    ],
];
