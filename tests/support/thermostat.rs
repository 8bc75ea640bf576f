//! The thermostat of issue #19, shared by `tests/cost_error_test.rs` (against its closed
//! form), the event-semantics corpus (`tests/event_semantics/`: a relay cycling in its band) and
//! `examples/cost_test_overhead.rs` (what the cost's error test costs). In a file of its own
//! because the example includes it.

use hysens::hybrid_model;

/// A thermostat with a hysteresis band: heating, `T' = (T_h − T)/τ`, until `T` rises to
/// `T_hi`; idle, `T' = (T_a − T)/τ`, until it falls to `T_lo`; the cost `G = ∫ (T − T_set)² dt`.
#[hybrid_model]
pub mod thermostat {
    /// The room.
    #[states]
    pub struct X {
        /// Temperature `T`.
        pub temp: f64,
    }
    /// Time constant, heater and ambient temperatures, the band and the set point.
    #[params]
    pub struct P {
        /// Time constant `τ`.
        pub tau: f64,
        /// The heater's temperature `T_h`.
        pub heater: f64,
        /// The ambient temperature `T_a`.
        pub ambient: f64,
        /// The heating switches on when `T` falls to `T_lo`.
        pub low: f64,
        /// The heating switches off when `T` rises to `T_hi`.
        pub high: f64,
        /// The set point `T_set` of the cost.
        pub set: f64,
    }
    #[mode(initial)]
    fn heating(x: &X, p: &P) -> X {
        X {
            temp: (p.heater - x.temp) / p.tau,
        }
    }
    #[mode]
    fn idle(x: &X, p: &P) -> X {
        X {
            temp: (p.ambient - x.temp) / p.tau,
        }
    }
    #[guard(heating -> idle, rising)]
    fn too_warm(x: &X, p: &P) -> f64 {
        x.temp - p.high
    }
    #[guard(idle -> heating, falling)]
    fn too_cold(x: &X, p: &P) -> f64 {
        x.temp - p.low
    }
    #[cost(integral)]
    fn deviation(x: &X, p: &P) -> f64 {
        (x.temp - p.set).powi(2)
    }
}
