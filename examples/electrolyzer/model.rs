//! The model of the `electrolyzer` example: the thermal model of an alkaline electrolyzer
//! stack of Christensen et al. (ESDIRK-based NMPC with a CD-EKF), §V, Eqs. 48–49 — a
//! stochastic index-1 DAE with two differential states (the stack temperature and the lye inlet
//! temperature, a random walk), two algebraic variables (the cell voltage and the current at
//! the imposed power) and one input (the lye flow).
//!
//! Shared by the example and `hysens-control`'s tests, which include this file by `#[path]`.
//!
//! # Parameters and their sources
//!
//! The seed does not give its values ("the values … provided by" a reference it does not
//! reproduce). This set is documented here instead, in SI units, time in seconds and
//! temperatures in °C (as in Ulleberg's correlations, whose coefficients are per °C):
//!
//! - The polarization curve is Ulleberg's form (Ulleberg, *Int. J. Hydrogen Energy* 28 (2003)
//!   21–33, Eq. 8): `U = U_rev + (r1 + r2 T) I/A + s log10((t1 + t2/T + t3/T²) I/A + 1)`, with
//!   `r1, r2, t1, t2, t3` of an Ulleberg-type public parameter set (`r1 = 7.331e-5 Ω m²`,
//!   `r2 = −1.107e-7 Ω m²/°C`, `t1 = 1.559e-2 m²/A`, `t2 = −1.302 m² °C/A`,
//!   `t3 = 421.3 m² °C²/A`) and Ulleberg's `s = 0.185 V`; `U_rev = 1.229 V` and the
//!   thermoneutral `U_tn = 1.482 V` are the standard values at 25 °C (higher heating value).
//!   These are not the seed's numbers (not published); they give a realistic curve,
//!   `U ≈ 1.9 V` at 3,000 A/m² and 70 °C.
//! - The stack is sized here for the seed's 2 MW: 140 cells of 2.6 m² (about 2,900 A/m² at
//!   70 °C). The thermal parameters are chosen for an industrial stack of that size and stated
//!   as such: heat capacity `C_p,el = 1.5e7 J/K` (about 30 t of steel and lye), lye heat
//!   capacity `c_p,lye = 3,100 J/(kg K)` (30 wt% KOH), loss area and coefficient
//!   `A_s = 50 m²`, `h_c = 10 W/(m² K)`. With them the stack's thermal time constant at the
//!   flows of the seed's bounds, 2–10 kg/s, is 8–40 minutes, and both setpoints, 60 °C and
//!   75 °C, are reachable inside the bounds with the inlet near 45 °C.

use hysens::hybrid_model;

/// The stack: `C dT/dt = f_in c_p (T_in − T) + n_c (U − U_tn) I − A_s h_c (T − T_amb)`,
/// `dT_in = σ dω` (a random walk: the drift is zero; the noise is the filter's and the
/// simulator's business, not the model's), `0 = U − U_rev − U_ohm(T, I) − U_act(T, I)`,
/// `0 = P_in − n_c U I`.
#[hybrid_model]
pub mod electrolyzer {
    /// Number of cells in series, `n_c`.
    const CELLS: f64 = 140.0;
    /// Electrode area of a cell, `A` (m²).
    const AREA: f64 = 2.6;
    /// Reversible cell voltage, `U_rev` (V).
    const U_REV: f64 = 1.229;
    /// Thermoneutral cell voltage, `U_tn` (V).
    const U_TN: f64 = 1.482;
    /// Ohmic coefficients `r1` (Ω m²) and `r2` (Ω m²/°C).
    const R1: f64 = 7.331e-5;
    /// See [`R1`].
    const R2: f64 = -1.107e-7;
    /// Overvoltage coefficient `s` (V).
    const S: f64 = 0.185;
    /// Overvoltage coefficients `t1` (m²/A), `t2` (m² °C/A), `t3` (m² °C²/A).
    const T1: f64 = 1.559e-2;
    /// See [`T1`].
    const T2: f64 = -1.302;
    /// See [`T1`].
    const T3: f64 = 421.3;
    /// Heat capacity of the stack, `C_p,el` (J/K).
    const HEAT_CAPACITY: f64 = 1.5e7;
    /// Specific heat capacity of the lye, `c_p,lye` (J/(kg K)).
    const LYE_CP: f64 = 3100.0;
    /// Heat-loss area `A_s` (m²) times heat-transfer coefficient `h_c` (W/(m² K)).
    const LOSS: f64 = 50.0 * 10.0;

    /// The differential states.
    #[states]
    pub struct X {
        /// Stack temperature `T` (°C).
        pub temp: f64,
        /// Lye inlet temperature `T_in` (°C), a random walk.
        pub temp_in: f64,
    }

    /// The algebraic variables.
    #[algebraic]
    pub struct Z {
        /// Cell voltage `U_cell` (V).
        pub voltage: f64,
        /// Stack current `I` (A).
        pub current: f64,
    }

    /// The disturbances, known to the controller and held over each sample.
    #[params]
    pub struct P {
        /// Ambient temperature `T_amb` (°C).
        pub t_amb: f64,
        /// Electric power into the stack, `P_in` (W).
        pub power: f64,
    }

    /// The manipulated input, held over each sample.
    #[inputs]
    pub struct U {
        /// Lye inlet flow `f_in` (kg/s).
        pub flow: f64,
    }

    /// The cell voltage the polarization curve gives at `T` and `I` (Ulleberg 2003, Eq. 8).
    fn polarization(x: &X, z: &Z) -> f64 {
        let density = z.current / AREA;
        let ohmic = (R1 + R2 * x.temp) * density;
        let q = T1 + T2 / x.temp + T3 / (x.temp * x.temp);
        U_REV + ohmic + S * (q * density + 1.0).log10()
    }

    /// The stack's only mode.
    #[mode(initial)]
    fn stack(x: &X, z: &Z, p: &P, u: &U) -> (X, [f64; 2]) {
        let cooling = u.flow * LYE_CP * (x.temp_in - x.temp);
        let heating = CELLS * (z.voltage - U_TN) * z.current;
        let loss = LOSS * (x.temp - p.t_amb);
        (
            X {
                temp: (cooling + heating - loss) / HEAT_CAPACITY,
                temp_in: 0.0,
            },
            [
                z.voltage - polarization(x, z),
                (p.power - CELLS * z.voltage * z.current) / 1e6,
            ],
        )
    }

    /// The stack temperature at the end of a solve, as a cost: what one adjoint pass
    /// differentiates — one row of a shooting interval's map — for the NMPC benchmark's
    /// comparison of the adjoint with the forward sensitivities.
    #[cost(terminal)]
    fn final_temperature(x: &X) -> f64 {
        x.temp
    }

    /// The measured and controlled output, the stack temperature (°C).
    #[output]
    fn temperature(x: &X) -> f64 {
        x.temp
    }
}

/// The seed's disturbances: ambient 25 °C, 2 MW.
pub const DISTURBANCES: electrolyzer::P = electrolyzer::P {
    t_amb: 25.0,
    power: 2e6,
};
