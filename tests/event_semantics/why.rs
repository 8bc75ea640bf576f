//! The event cases of issue #19's "Why", by name: each returned `Ok` with a wrong trajectory
//! before, and gives the right trajectory or a clear error now, at every tolerance and with
//! every tableau. (The other cases have their own tests: the tiny first step and the
//! crossing onto a zero state in `tests/step_roundoff.rs`, the surface crossed at tight
//! tolerances in `filippov.rs` here and in `tests/step_roundoff.rs`.)

use crate::corpus_case;
use crate::event_models::ball;
use crate::harness::{Accuracy, End, Expected, Failure};
use crate::models::rising;
use crate::oscillations::in_kelvin;
use crate::thermostat_model::thermostat;

const G: f64 = 9.81;

/// A ball with restitution 0 dropped from 1 m: after the impact at `√(2/g)` it rests on the
/// floor, which the model (flight only) cannot express — the impact fires again at once with
/// the same state. It used to fall through the floor with `Ok` (`h(3) ≈ −31.9`).
#[test]
fn why_ball_with_restitution_zero_does_not_fall_through_the_floor() {
    let t1 = (2.0 / G).sqrt();
    let expected = Expected {
        events: vec![("impact", "flight", "flight", t1)],
        end: End::Failed(
            Failure::Stuck {
                guard: "impact",
                from: "flight",
                to: "flight",
            },
            t1,
        ),
        // Free fall is quadratic: exact, event time to round-off.
        accuracy: Accuracy::Exact,
    };
    let x0 = ball::X { h: 1.0, v: 0.0 };
    corpus_case!(
        "ball, e = 0",
        ball::Model,
        expected,
        (0.0, 3.0),
        x0,
        ball::P { g: G, e: 0.0 }
    );
}

/// The same ball with restitution 1 at rest on the floor at `t0`: the impact fires at once
/// (`ḣ = 0`, `ḧ = −g`) and its reset leaves the state where it was. It used to fall through
/// with `Ok`, no event, `h(2) = −19.62`.
#[test]
fn why_ball_at_rest_on_the_floor_does_not_fall_through_it() {
    let expected = Expected {
        events: vec![],
        end: End::Failed(
            Failure::Stuck {
                guard: "impact",
                from: "flight",
                to: "flight",
            },
            0.0,
        ),
        accuracy: Accuracy::Exact,
    };
    let x0 = ball::X { h: 0.0, v: 0.0 };
    corpus_case!(
        "ball at rest",
        ball::Model,
        expected,
        (0.0, 2.0),
        x0,
        ball::P { g: G, e: 1.0 }
    );
}

/// A relay thermostat whose two thresholds are equal: heating reaches 300 K at
/// `ln(20/19) h`, switches off, and off's own threshold — the same temperature, falling — is
/// crossed at once, back to heating, whose threshold is crossed at once: no progress. It used
/// to switch off once and decay far below the threshold with `Ok`.
#[test]
fn why_relay_with_equal_thresholds_does_not_decay_below_them() {
    let p = thermostat::P {
        heater: 320.0,
        ambient: 280.0,
        tau: 1.0,
        low: 300.0,
        high: 300.0,
        set: 300.0,
    };
    let t1 = ((320.0f64 - 299.0) / (320.0 - 300.0)).ln();
    let expected = Expected {
        events: vec![
            ("too_warm", "heating", "idle", t1),
            ("too_cold", "idle", "heating", t1),
        ],
        end: End::Failed(
            Failure::Stuck {
                guard: "too_warm",
                from: "heating",
                to: "idle",
            },
            t1,
        ),
        // T ≈ 300 K to 300 rtol; the crossing time to that over the rate 20 K/h.
        accuracy: Accuracy::Global(30.0),
    };
    let x0 = thermostat::X { temp: 299.0 };
    corpus_case!(
        "relay without band",
        thermostat::Model,
        expected,
        (0.0, 3.0),
        x0,
        p
    );
}

/// A thermostat in kelvin starting 0.2 K below its threshold: it switches off after
/// `ln(0.7/0.5) = 0.336 h`, not at once (it used to switch at `t = 0` at rtol 1e-3, the start
/// lying within the solver's tolerance of the threshold).
#[test]
fn why_thermostat_starting_near_its_threshold_switches_at_the_right_time() {
    let p = in_kelvin();
    let t1 = (0.7f64 / 0.5).ln();
    let t_end = 0.35;
    let temp = p.ambient + (p.high - p.ambient) * (-(t_end - t1) / p.tau).exp();
    let expected = Expected {
        events: vec![("too_warm", "heating", "idle", t1)],
        end: End::Finished(vec![temp]),
        // T ≈ 300 K to atol + 300 rtol; the crossing time to that over the rate 0.5 K/h.
        accuracy: Accuracy::Global(200.0),
    };
    let x0 = thermostat::X { temp: 299.8 };
    corpus_case!(
        "thermostat near its threshold",
        thermostat::Model,
        expected,
        (0.0, t_end),
        x0,
        p
    );
}

/// A ball with restitution 1/2 dropped from 1 m bounces ever faster: the impacts accumulate at
/// `t∞ = t1 (1 + e)/(1 − e)` (`t1 = √(2/g)`), which no solution passes — an error before `t∞`,
/// after at least the first three impacts at their closed-form times: a grazing event, when
/// the impact speeds fall below what the tolerances resolve (`events/grazing.rs`).
#[test]
fn zeno_ball() {
    let e: f64 = 0.5;
    let t1 = (2.0 / G).sqrt();
    // Flight k lasts 2 e^k t1 (the speed after impact k is e^k √(2g)).
    let t2 = t1 + 2.0 * e * t1;
    let t3 = t2 + 2.0 * e * e * t1;
    let t_inf = t1 * (1.0 + e) / (1.0 - e);
    let expected = Expected {
        events: vec![
            ("impact", "flight", "flight", t1),
            ("impact", "flight", "flight", t2),
            ("impact", "flight", "flight", t3),
        ],
        end: End::FailedBefore(Failure::Grazing("impact"), t_inf),
        accuracy: Accuracy::Exact,
    };
    let x0 = ball::X { h: 1.0, v: 0.0 };
    corpus_case!(
        "Zeno ball",
        ball::Model,
        expected,
        (0.0, 3.0),
        x0,
        ball::P { g: G, e }
    );
}

/// A guard at −4 at `t0` fired at once at rtol 0.5 (the start lay within the solver's
/// tolerance band of it). Now a start is on a guard only within round-off, so it fires when
/// `x` reaches it, at `t = 4`; and a tolerance above 1e-3 is refused for a model with guards,
/// saying why (above it the solution's own error can hide crossings the exact solution has).
#[test]
fn why_a_guard_at_minus_four_does_not_fire_at_once() {
    use hysens::runtime::SolveError;
    let p = rising::P {
        va: 1.0,
        vb: 2.0,
        c: 1.0,
    };
    let x0 = rising::X { x: -3.0 };
    let expected = Expected {
        events: vec![("up", "a", "b", 4.0)],
        end: End::Finished(vec![1.0 + 2.0 * 1.0]),
        accuracy: Accuracy::Exact,
    };
    let (x, q) = (rising::X { x: x0.x }, rising::P { ..p });
    corpus_case!("guard at −4", rising::Model, expected, (0.0, 5.0), x, q);
    for rtol in [0.5, 1e-2, 2e-3] {
        let failure = rising::Model
            .solver()
            .tolerances(rtol, 1e-8)
            .solve(0.0, 5.0, &x0, &p)
            .expect_err("too loose for events");
        assert!(
            matches!(failure.error, SolveError::InvalidArgument { what, .. } if what.starts_with("rtol: at most 1e-3")),
            "{failure}"
        );
        assert!(failure.partial.events.is_empty());
    }
}
