//! Two stiff problems of the IVP test set (Mazzia & Magherini, Bari), the external references
//! of issue #25: HIRES (8 ODEs) and Chemical Akzo Nobel (5 ODEs and 1 algebraic equation, index
//! 1), with reference solutions computed by two independent methods
//! (`bench/reference/stiff_references.py`: scipy's LSODA at rtol 1e-12 and Radau IIA at 1e-11,
//! which agree to 2.8e-11 and 1.7e-11 relative, as do the test set's published references).
//!
//! Shared by the `reproduce` example and `tests/stiff_references.rs` (by `#[path]`).
#![allow(clippy::excessive_precision)] // reference values are quoted with all their digits

use hysens::hybrid_model;

/// HIRES, "high irradiance responses" of photomorphogenesis (Schäfer 1975; Hairer & Wanner II,
/// §IV.10): eight reactions of a plant's phytochrome, stiff with eigenvalues down to about
/// −280·y8-scale; `k` is the rate of the one nonlinear reaction (280 in the test set), a
/// parameter so that the solve can differentiate by it.
#[hybrid_model]
pub mod hires {
    /// The eight concentrations.
    #[states]
    pub struct X {
        /// `y1`.
        pub y1: f64,
        /// `y2`.
        pub y2: f64,
        /// `y3`.
        pub y3: f64,
        /// `y4`.
        pub y4: f64,
        /// `y5`.
        pub y5: f64,
        /// `y6`.
        pub y6: f64,
        /// `y7`.
        pub y7: f64,
        /// `y8`.
        pub y8: f64,
    }

    /// The nonlinear reaction's rate.
    #[params]
    pub struct P {
        /// `k` (280 in the test set).
        pub k: f64,
    }

    /// The only mode.
    #[mode(initial)]
    fn kinetics(x: &X, p: &P) -> X {
        let reaction = p.k * x.y6 * x.y8;
        X {
            y1: -1.71 * x.y1 + 0.43 * x.y2 + 8.32 * x.y3 + 0.0007,
            y2: 1.71 * x.y1 - 8.75 * x.y2,
            y3: -10.03 * x.y3 + 0.43 * x.y4 + 0.035 * x.y5,
            y4: 8.32 * x.y2 + 1.71 * x.y3 - 1.12 * x.y4,
            y5: -1.745 * x.y5 + 0.43 * x.y6 + 0.43 * x.y7,
            y6: -reaction + 0.69 * x.y4 + 1.71 * x.y5 - 0.43 * x.y6 + 0.69 * x.y7,
            y7: reaction - 1.81 * x.y7,
            y8: -reaction + 1.81 * x.y7,
        }
    }
}

/// HIRES's start, `y(0) = (1, 0, 0, 0, 0, 0, 0, 0.0057)`.
pub const HIRES_Y0: hires::X = hires::X {
    y1: 1.0,
    y2: 0.0,
    y3: 0.0,
    y4: 0.0,
    y5: 0.0,
    y6: 0.0,
    y7: 0.0,
    y8: 0.0057,
};
/// HIRES's rate, `k = 280`.
pub const HIRES_P: hires::P = hires::P { k: 280.0 };
/// HIRES's end time.
pub const HIRES_T: f64 = 321.8122;
/// `y(321.8122)`, LSODA at rtol 1e-12 (`bench/reference/stiff_references.py`).
pub const HIRES_REFERENCE: [f64; 8] = [
    7.3713125733406608e-04,
    1.4424857263191121e-04,
    5.8887297409969442e-05,
    1.1756513432857499e-03,
    2.3863561988833825e-03,
    6.2389682529171153e-03,
    2.8499983952172039e-03,
    2.8500016047828185e-03,
];

/// Chemical Akzo Nobel (the IVP test set's problem from Akzo Nobel Central Research): the
/// reaction of FLB and ZHU (`y1`, `y4`) with CO₂ (`y2`) fed from the gas phase, the salt
/// `y6 = Ks y1 y4` in equilibrium (the algebraic equation). `k1` and `kla` (the mass-transfer
/// coefficient) are parameters; the other constants are the test set's.
#[hybrid_model]
pub mod akzo {
    /// `k2`.
    const K2: f64 = 0.58;
    /// `k3`.
    const K3: f64 = 0.09;
    /// `k4`.
    const K4: f64 = 0.42;
    /// Equilibrium constant `K`.
    const BIG_K: f64 = 34.4;
    /// Equilibrium constant `Ks`.
    const KS: f64 = 115.83;
    /// CO₂ partial pressure (bar).
    const P_CO2: f64 = 0.9;
    /// Henry's constant `H`.
    const HENRY: f64 = 737.0;

    /// The five concentrations that react.
    #[states]
    pub struct X {
        /// FLB.
        pub y1: f64,
        /// CO₂.
        pub y2: f64,
        /// FLBT.
        pub y3: f64,
        /// ZHU.
        pub y4: f64,
        /// LB.
        pub y5: f64,
    }

    /// The salt, in equilibrium.
    #[algebraic]
    pub struct Z {
        /// FLB·ZHU.
        pub y6: f64,
    }

    /// The parameters.
    #[params]
    pub struct P {
        /// `k1` (18.7 in the test set).
        pub k1: f64,
        /// `kLa` (3.3).
        pub kla: f64,
    }

    /// The only mode.
    #[mode(initial)]
    fn reactor(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
        let r1 = p.k1 * x.y1.powi(4) * x.y2.sqrt();
        let r2 = K2 * x.y3 * x.y4;
        let r3 = K2 / BIG_K * x.y1 * x.y5;
        let r4 = K3 * x.y1 * x.y4 * x.y4;
        let r5 = K4 * z.y6 * z.y6 * x.y2.sqrt();
        let inflow = p.kla * (P_CO2 / HENRY - x.y2);
        (
            X {
                y1: -2.0 * r1 + r2 - r3 - r4,
                y2: -0.5 * r1 - r4 - 0.5 * r5 + inflow,
                y3: r1 - r2 + r3,
                y4: -r2 + r3 - 2.0 * r4,
                y5: r2 - r3 + r5,
            },
            [KS * x.y1 * x.y4 - z.y6],
        )
    }
}

/// Akzo's start (the test set's; `y6(0) = Ks·0.444·0.007` is made consistent by the solve).
pub const AKZO_Y0: akzo::X = akzo::X {
    y1: 0.444,
    y2: 0.00123,
    y3: 0.0,
    y4: 0.007,
    y5: 0.0,
};
/// Akzo's parameters, `k1 = 18.7`, `kLa = 3.3`.
pub const AKZO_P: akzo::P = akzo::P { k1: 18.7, kla: 3.3 };
/// Akzo's end time.
pub const AKZO_T: f64 = 180.0;
/// `(y1..y5, y6)` at `t = 180`, LSODA at rtol 1e-12 (`bench/reference/stiff_references.py`).
pub const AKZO_REFERENCE: [f64; 6] = [
    1.1507949206694897e-01,
    1.2038314715672460e-03,
    1.6115628874041033e-01,
    3.6561564212873106e-04,
    1.7080108852570903e-02,
    4.8735313103911238e-03,
];
