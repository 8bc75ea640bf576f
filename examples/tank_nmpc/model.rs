//! The models of the `tank_nmpc` example: a tank that overflows a weir — a hybrid system whose
//! dynamics change when the level crosses the weir's crest — and the same tank with the switch
//! smoothed away, as a smooth-model controller would write it.
//!
//! Shared by the example and `hysens-control`'s tests, which include this file by `#[path]`.
//!
//! The tank (cross-section `A = 0.5 m²`) is filled by the manipulated inflow `u` (m³/s) and
//! drained by an outlet, `q_out = k √h` (Torricelli, `k = 0.05 m^{5/2}/s`); above the crest
//! `H = 1 m` it also spills over a 90° V-notch weir, `q_weir = c (h − H)^{5/2}` with
//! `c = (8/15) C_d √(2g) tan 45° = 1.38 m^{1/2}/s` (`C_d = 0.585`; the V-notch law, e.g. ISO
//! 1438). Below the crest the level's time constant is `2A√h/k ≈ 20 s`; 5 cm above it, 8 s.
//! (The V-notch's exponent 5/2 keeps the field twice differentiable through the crest; a
//! rectangular weir's 3/2 gives stage equations that fixed ESDIRK steps of 0.4 s do not solve
//! to 1e-10 right after the crest — the solve then ends with a Newton failure, an error.)

use hysens::hybrid_model;

/// The tank with the weir as a mode: `filling` below the crest, `spilling` above, switching
/// where the level crosses it.
#[hybrid_model]
pub mod tank {
    /// Cross-section `A` (m²).
    const AREA: f64 = 0.5;
    /// Outlet coefficient `k` (m^{5/2}/s).
    const OUTLET: f64 = 0.05;
    /// Weir coefficient `c` (m^{1/2}/s).
    const WEIR: f64 = 1.38;
    /// The crest `H` (m).
    const CREST: f64 = 1.0;

    /// The level.
    #[states]
    pub struct X {
        /// `h` (m).
        pub level: f64,
    }

    /// The manipulated input.
    #[inputs]
    pub struct U {
        /// `u` (m³/s).
        pub inflow: f64,
    }

    /// Below the crest: the outlet alone.
    #[mode(initial)]
    fn filling(x: &X, u: &U) -> X {
        X {
            level: (u.inflow - OUTLET * x.level.sqrt()) / AREA,
        }
    }

    /// Above it: the outlet and the weir. The weir law `c (h − H)^{5/2}` is written
    /// `c (h − H) |h − H|^{3/2}`, equal for `h ≥ H` and increasing through the crest, so that
    /// the stage equations stay monotone where a Newton iterate strays below the crest.
    #[mode(initial_if(over, positive))]
    fn spilling(x: &X, u: &U) -> X {
        let head = x.level - CREST;
        X {
            level: (u.inflow - OUTLET * x.level.sqrt() - WEIR * head * head.abs().powf(1.5)) / AREA,
        }
    }

    /// The level rises through the crest.
    #[guard(filling -> spilling, rising)]
    fn over(x: &X) -> f64 {
        x.level - CREST
    }

    /// The level falls through the crest.
    #[guard(spilling -> filling, falling)]
    fn under(x: &X) -> f64 {
        x.level - CREST
    }

    /// The tracked output.
    #[output]
    fn level(x: &X) -> f64 {
        x.level
    }
}

/// The tank with the weir's switch smoothed: the head over the crest replaced by
/// `ε ln(1 + e^{(h − H)/ε})` with `ε = 5 cm` (a softplus, smooth everywhere), so one mode
/// holds everywhere — what a tool without events must do. It spills a little below the crest
/// (4e-6 m³/s at 10 cm below, against the outlet's 0.047) and too much just above it: at
/// `h = H + 5 cm` its weir flow is twice the true one.
#[hybrid_model]
pub mod smoothed_tank {
    /// Cross-section `A` (m²).
    const AREA: f64 = 0.5;
    /// Outlet coefficient `k` (m^{5/2}/s).
    const OUTLET: f64 = 0.05;
    /// Weir coefficient `c` (m^{1/2}/s).
    const WEIR: f64 = 1.38;
    /// The crest `H` (m).
    const CREST: f64 = 1.0;
    /// The smoothing width `ε` (m).
    const WIDTH: f64 = 0.02;

    /// The level.
    #[states]
    pub struct X {
        /// `h` (m).
        pub level: f64,
    }

    /// The manipulated input.
    #[inputs]
    pub struct U {
        /// `u` (m³/s).
        pub inflow: f64,
    }

    /// The only mode.
    #[mode(initial)]
    fn smooth(x: &X, u: &U) -> X {
        let head = WIDTH * ((x.level - CREST) / WIDTH).exp().ln_1p();
        X {
            level: (u.inflow - OUTLET * x.level.sqrt() - WEIR * head.powf(2.5)) / AREA,
        }
    }

    /// The tracked output.
    #[output]
    fn level(x: &X) -> f64 {
        x.level
    }
}
