//! Properties over random starts, parameters and tolerances: a solve with events either ends
//! `Ok` with the state on the side of its guards the model lives on, or with one of the errors
//! that say the exact solution cannot go on (`StuckAtGuard`, `GrazingEvent`, `TooManyEvents`)
//! — never another error, never a panic, never `Ok` on the wrong side of a guard.

use crate::event_models::ball;
use crate::thermostat_model::thermostat;
use hysens::runtime::SolveError;
use proptest::prelude::*;

/// Whether `error` is one that says the exact solution cannot go on.
fn no_continuation(error: &SolveError) -> bool {
    matches!(
        error,
        SolveError::StuckAtGuard { .. }
            | SolveError::GrazingEvent { .. }
            | SolveError::TooManyEvents { .. }
    )
}

/// A height on or near the floor (exactly on it, within round-off, just above) or far above.
fn height() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), Just(1e-15), Just(1e-9), (0.0..2.0f64),]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// The ball never ends `Ok` below the floor: free flight is exact, so at the final time its
    /// height is at least −1e-9 of its scale (round-off of the impact times and states).
    #[test]
    fn a_ball_never_ends_below_the_floor(
        h in height(),
        v in prop_oneof![Just(0.0), (-5.0..5.0f64)],
        g in 1.0..20.0f64,
        e in prop_oneof![Just(0.0), Just(1.0), (0.0..1.0f64)],
        tf in 0.1..3.0f64,
        rtol in prop_oneof![Just(1e-3), Just(1e-6), Just(1e-10)],
    ) {
        let result = ball::Model
            .solver()
            .tolerances(rtol, rtol * 1e-2)
            .solve(0.0, tf, &ball::X { h, v }, &ball::P { g, e });
        let scale = 1.0f64.max(h + v * v / (2.0 * g));
        match result {
            Ok(solution) => prop_assert!(
                solution.x.h >= -1e-9 * scale,
                "h({tf}) = {} below the floor", solution.x.h
            ),
            Err(failure) => prop_assert!(no_continuation(&failure.error), "{failure}"),
        }
    }

    /// The thermostat, starting heating at or below its upper threshold (on it, within
    /// round-off of it, in the band or below), never ends `Ok` outside `[min(T0, t_lo), t_hi]`,
    /// to its global error at the tolerance (10 × (rtol·300 K + atol)). (Started heating above
    /// `t_hi`, its rising guard is already past zero and the model heats on: not a case.)
    #[test]
    fn a_thermostat_stays_in_its_band(
        t_lo in 290.0..300.0f64,
        width in prop_oneof![Just(0.0), Just(1e-12), (0.0..5.0f64)],
        start in prop_oneof![Just(-2.0), Just(0.0), Just(-1e-13), (-2.0..1.0f64)],
        margin in 0.1..20.0f64,
        rtol in prop_oneof![Just(1e-3), Just(1e-6), Just(1e-10)],
    ) {
        let t_hi = t_lo + width;
        let p = thermostat::P {
            heater: t_hi + margin,
            ambient: t_lo - margin,
            tau: 1.0,
            low: t_lo,
            high: t_hi,
            set: t_hi,
        };
        let temp0 = (t_lo + start * width.max(1e-13)).min(t_hi);
        let atol = rtol * 1e-2;
        let result = thermostat::Model
            .solver()
            .tolerances(rtol, atol)
            .solve(0.0, 2.0, &thermostat::X { temp: temp0 }, &p);
        let slack = 10.0 * (rtol * 300.0 + atol);
        match result {
            Ok(solution) => {
                let temp = solution.x.temp;
                prop_assert!(
                    temp >= temp0.min(t_lo) - slack && temp <= t_hi + slack,
                    "T(2) = {temp} outside [{}, {t_hi}]", temp0.min(t_lo)
                );
            }
            Err(failure) => prop_assert!(no_continuation(&failure.error), "{failure}"),
        }
    }
}
