//! The reference of the five-bar mechanism (`model.rs`): the project notes' reconstruction of
//! Corner, Sandu & Sandu (2019, §7) solved in the index-1 form at tolerance 1e-13, trusted to
//! about 1e-9 relative (its solution moved by 3e-12 from tolerance 1e-12 to 1e-13; its
//! sensitivities agree with central differences to 6e-9 at `T = 1` and 7e-8 at `T = 5`). The
//! paper itself prints no number to compare with.

// The example and the test read different parts.
#![allow(dead_code)]

use hysens::runtime::{Fields, Solution};

/// The initial configuration, in the order of the model's states `(x1, y1, x2, y2, x3, y3,
/// u1, w1, u2, w2, u3, w3)`: the dependent joints on the branch near `q1 = (−1.5, −1)`,
/// `q3 = (1.5, −1)`, `q2` the paper's "random" start, at rest.
const START: [f64; 12] = [
    -1.078901549673686,
    -1.290284711133711,
    0.53029,
    -2.10283,
    1.706924535035088,
    -0.7370853456217512,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
];

/// The springs' natural lengths of the paper, `(L01, L02)` (m).
const PARAMS: [f64; 2] = [2.2360, 2.0615];

/// The initial state as the model's state struct.
pub fn start<X: Fields<12>>() -> X {
    X::from_array(START)
}

/// The parameters as the model's parameter struct.
pub fn params<P: Fields<2>>() -> P {
    P::from_array(PARAMS)
}

/// The impacts in `[0, 5]`: `t`, `ẏ2⁻` and `dt/d(L01, L02)`.
pub const IMPACTS: [(f64, f64, [f64; 2]); 9] = [
    (0.246131031277, -1.4566880621, [0.1326556483, -0.7463028253]),
    (0.747788030408, -1.3528977232, [0.3467207881, -2.453326032]),
    (1.319747170302, -1.0237207401, [-0.1559320379, -4.944637608]),
    (1.888804297863, -1.3618218065, [-0.4626626462, -5.784324972]),
    (2.389252203306, -1.4554940998, [-0.1744442213, -6.820636587]),
    (2.881572618077, -1.4549779227, [0.08571551883, -8.351653631]),
    (3.384603509061, -1.3403250087, [0.2071259797, -10.90468759]),
    (3.960258880414, -1.0184231973, [-0.5570125509, -15.41385019]),
    (4.526764529507, -1.3681818129, [-0.6918605216, -14.7345268]),
];

/// The quantities at `T` of [`AT_1`] and [`AT_5`], in their order (`u2 = ẋ2`, `w2 = ẏ2`; `z1`,
/// `z2` the named costs).
pub const QUANTITIES: [&str; 6] = ["x2", "y2", "u2", "w2", "z1", "z2"];

/// At `T = 1`: the values of [`QUANTITIES`], their derivatives with respect to `L01`, `L02`.
pub const AT_1: [[f64; 6]; 3] = [
    [
        0.1039009533343,
        -2.077129440686,
        -0.4467607281097,
        0.2194641941556,
        0.0257005593142,
        -5.399707376405,
    ],
    [
        2.06760815727,
        -0.2662985476257,
        2.557968991677,
        2.572898103391,
        -0.2662985476257,
        7.119477366639,
    ],
    [
        -0.4023070900974,
        0.4754000327994,
        -4.728511007082,
        -34.65828541934,
        0.4754000327994,
        -69.16819124416,
    ],
];

/// At `T = 5`, as [`AT_1`].
pub const AT_5: [[f64; 6]; 3] = [
    [
        0.5053776548569,
        -2.311761292466,
        0.3056348440523,
        -1.478351934962,
        -0.2089312924665,
        -25.14341268159,
    ],
    [
        -0.9707220340071,
        -0.5214851759938,
        0.7318885108554,
        0.6530111914922,
        -0.5214851759938,
        2.332945247378,
    ],
    [
        -5.164683482257,
        -22.23331209406,
        2.344093648998,
        -8.377256042589,
        -22.23331209406,
        -166.4534921208,
    ],
];

/// `(x2, y2, ẋ2, ẏ2, z1, z2)` at the end of `solution` and their derivatives with respect to
/// `(L01, L02)`, as [`AT_1`] (NaN where missing).
pub fn quantities<X: Fields<12>>(solution: &Solution<X, 12, 8, 2>) -> [[f64; 6]; 3] {
    // x2, y2, u2, w2 in the model's state order.
    let values = [solution.y[2], solution.y[3], solution.y[8], solution.y[9]];
    let mut out = [[f64::NAN; 6]; 3];
    for (i, name) in QUANTITIES.into_iter().enumerate() {
        let (value, d01, d02) = match i {
            0..=3 => (
                Some(values[i]),
                solution.sensitivity(name, "l01").ok(),
                solution.sensitivity(name, "l02").ok(),
            ),
            _ => (
                solution.named_cost(name).ok(),
                solution.named_cost_gradient(name, "l01").ok(),
                solution.named_cost_gradient(name, "l02").ok(),
            ),
        };
        out[0][i] = value.unwrap_or(f64::NAN);
        out[1][i] = d01.unwrap_or(f64::NAN);
        out[2][i] = d02.unwrap_or(f64::NAN);
    }
    out
}

/// The bars' lengths `L_A1 = L_B3` and `L_21 = L_32` (m), as printed (the first close to `√2`,
/// but the reference uses these digits).
#[allow(clippy::approx_constant)]
const LENGTHS: [f64; 2] = [1.4142, 1.8027];

/// The largest residual of the position constraints `|Φ|` and of the velocity constraints
/// `|Φ_q v|` at the state `y` (in the model's state order).
pub fn constraint_residuals(y: &[f64; 12]) -> (f64, f64) {
    let (outer, inner) = (LENGTHS[0] * LENGTHS[0], LENGTHS[1] * LENGTHS[1]);
    let [x1, y1, x2, y2, x3, y3, u1, w1, u2, w2, u3, w3] = *y;
    let position = [
        (x1 + 0.5) * (x1 + 0.5) + y1 * y1 - outer,
        (x2 - x1) * (x2 - x1) + (y2 - y1) * (y2 - y1) - inner,
        (x3 - x2) * (x3 - x2) + (y3 - y2) * (y3 - y2) - inner,
        (x3 - 0.5) * (x3 - 0.5) + y3 * y3 - outer,
    ];
    let velocity = [
        (x1 + 0.5) * u1 + y1 * w1,
        (x2 - x1) * (u2 - u1) + (y2 - y1) * (w2 - w1),
        (x3 - x2) * (u3 - u2) + (y3 - y2) * (w3 - w2),
        (x3 - 0.5) * u3 + y3 * w3,
    ];
    let largest = |r: [f64; 4]| r.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    (largest(position), 2.0 * largest(velocity))
}
