//! Crossings of flows the tableaus approximate: a level just below an oscillator's amplitude
//! (two crossings inside one step at loose tolerances), and a relay thermostat cycling in its
//! hysteresis band.

use crate::corpus_case;
use crate::harness::{Accuracy, End, Expected};
use crate::models::{oscillator, wave};
use crate::thermostat_model::thermostat;
use std::f64::consts::PI;

/// `x = cos 2πt` (period 1) crosses the level `0.9` twice per period, `acos(0.9)/π ≈ 0.14`
/// apart around each maximum: every crossing found, in order, the counter ends at 7. (A level
/// closer to the amplitude is below the amplitude error of the damping L-stable tableaus at
/// rtol 1e-3 — 1.2 % after one period, measured — so the numerical solution at that tolerance
/// has no such crossing; `two_crossings_of_a_fast_guard_within_one_step` puts two crossings
/// inside one step with an exactly integrated flow instead.)
#[test]
fn crossings_near_an_oscillators_amplitude() {
    let c: f64 = 0.9;
    let half = c.acos() / (2.0 * PI);
    let mut events = vec![("level", "swing", "swing", half)];
    for k in 1..=3 {
        let k = k as f64;
        events.push(("level", "swing", "swing", k - half));
        events.push(("level", "swing", "swing", k + half));
    }
    let t_end: f64 = 3.2;
    let w = 2.0 * PI;
    let expected = Expected {
        events,
        end: End::Finished(vec![(w * t_end).cos(), -w * (w * t_end).sin(), 7.0]),
        // The oscillator's global error over 3 periods in x, over |ẋ| = w √(1 − c²) ≈ 2.7
        // at the level for the times; measured worst factor 10 (ESDIRK2(3)).
        accuracy: Accuracy::Global(100.0),
    };
    let x0 = oscillator::X {
        x: 1.0,
        v: 0.0,
        n: 0.0,
    };
    let p = oscillator::P { w, c };
    corpus_case!(
        "crossings near the amplitude",
        oscillator::Model,
        expected,
        (0.0, t_end),
        x0,
        p
    );
}

/// `sin 2πt` crosses `0.99` up at `asin(0.99)/2π + k` and down `0.045` later; the flow
/// (`x' = 1/10`) is integrated exactly, so without the guard the steps would span whole
/// periods. Both crossings of each period are found, in order: the scan cuts a step in which
/// the guard varies too fast to rule out a crossing.
#[test]
fn two_crossings_of_a_fast_guard_within_one_step() {
    let (w, c): (f64, f64) = (2.0 * PI, 0.99);
    let first = c.asin() / w;
    let second = (PI - c.asin()) / w;
    let mut events = Vec::new();
    for k in 0..3 {
        let k = k as f64;
        events.push(("level", "drift", "drift", first + k));
        events.push(("level", "drift", "drift", second + k));
    }
    let expected = Expected {
        events,
        end: End::Finished(vec![0.3, 6.0]),
        // The flow is exact and the guard a function of time: event times to the round-off of
        // the root of sin(ωt) − c, whose rate 2π√(1 − c²) ≈ 0.89 leaves them at ~1e-15.
        accuracy: Accuracy::Exact,
    };
    let x0 = wave::X { x: 0.0, n: 0.0 };
    corpus_case!(
        "fast guard",
        wave::Model,
        expected,
        (0.0, 3.0),
        x0,
        wave::P { w, c }
    );
}

/// The thermostat in kelvin of issue #19: heater 300.5 K, ambient 280 K, τ = 1 h, band
/// 299–300 K, set point 300 K.
pub fn in_kelvin() -> thermostat::P {
    thermostat::P {
        heater: 300.5,
        ambient: 280.0,
        tau: 1.0,
        low: 299.0,
        high: 300.0,
        set: 300.0,
    }
}

/// A thermostat in kelvin (heater 300.5 K, ambient 280 K, τ = 1 h, band 299–300 K) that starts
/// 0.2 K below its upper threshold: it switches off after `ln(0.7/0.5) = 0.336 h` (not at once,
/// at any tolerance), on after `ln(20/19)` more, and so on, each time from the closed form
/// `T − T∞ = (T_0 − T∞) e^{−t/τ}`.
#[test]
fn relay_thermostat_in_its_band() {
    let p = in_kelvin();
    let t0: f64 = 299.8;
    let heat = |from: f64| p.tau * ((p.heater - from) / (p.heater - p.high)).ln();
    let cool = p.tau * ((p.high - p.ambient) / (p.low - p.ambient)).ln();
    let t1 = heat(t0);
    let t2 = t1 + cool;
    let t3 = t2 + heat(p.low);
    let t4 = t3 + cool;
    let t_end = 2.0;
    // Heating from t4 to the end.
    let temp = p.heater + (p.low - p.heater) * (-(t_end - t4) / p.tau).exp();
    let expected = Expected {
        events: vec![
            ("too_warm", "heating", "idle", t1),
            ("too_cold", "idle", "heating", t2),
            ("too_warm", "heating", "idle", t3),
            ("too_cold", "idle", "heating", t4),
        ],
        end: End::Finished(vec![temp]),
        // T ≈ 300 K is resolved to atol + rtol·300; a switching time's error is the
        // temperature's over the rate at the threshold (1.5 K/h heating, 19 K/h cooling);
        // measured worst factor 40 (ESDIRK3(4)).
        accuracy: Accuracy::Global(200.0),
    };
    let x0 = thermostat::X { temp: t0 };
    corpus_case!(
        "relay thermostat",
        thermostat::Model,
        expected,
        (0.0, t_end),
        x0,
        p
    );
}
