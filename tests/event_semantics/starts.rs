//! Starts on a guard and near it.

use crate::corpus_case;
use crate::harness::{Accuracy, End, Expected};
use crate::models::{falling, rising};

/// `x0 = 1` on the rising guard `x − 1`, the flow crossing it: an event at `t0`.
#[test]
fn start_on_guard_with_the_flow_entering() {
    let expected = Expected {
        events: vec![("up", "a", "b", 0.0)],
        end: End::Finished(vec![7.0]),
        accuracy: Accuracy::Exact,
    };
    let p = rising::P {
        va: 1.0,
        vb: 2.0,
        c: 1.0,
    };
    corpus_case!(
        "start on guard, entering",
        rising::Model,
        expected,
        (0.0, 3.0),
        rising::X { x: 1.0 },
        p
    );
}

/// `x0 = 1` on the falling guard `x − 1`, the flow leaving it: no event.
#[test]
fn start_on_guard_with_the_flow_leaving() {
    let expected = Expected {
        events: vec![],
        end: End::Finished(vec![4.0]),
        accuracy: Accuracy::Exact,
    };
    let p = falling::P {
        va: 1.0,
        vb: 2.0,
        c: 1.0,
    };
    corpus_case!(
        "start on guard, leaving",
        falling::Model,
        expected,
        (0.0, 3.0),
        falling::X { x: 1.0 },
        p
    );
}

/// `x0 = 1 − 10⁻⁹`: a start below the guard (not on it, at any tolerance), reaching it at
/// `t = 10⁻⁹`.
#[test]
fn start_just_below_a_guard() {
    let x0 = 1.0 - 1e-9;
    let t1 = 1.0 - x0;
    let expected = Expected {
        events: vec![("up", "a", "b", t1)],
        end: End::Finished(vec![1.0 + 2.0 * (3.0 - t1)]),
        accuracy: Accuracy::Exact,
    };
    let p = rising::P {
        va: 1.0,
        vb: 2.0,
        c: 1.0,
    };
    corpus_case!(
        "start just below a guard",
        rising::Model,
        expected,
        (0.0, 3.0),
        rising::X { x: x0 },
        p
    );
}

/// `x0 = 1 + 10⁻⁹`, above the rising guard: no event, though the start is within every
/// tolerance of it.
#[test]
fn start_just_above_a_rising_guard() {
    let x0 = 1.0 + 1e-9;
    let expected = Expected {
        events: vec![],
        end: End::Finished(vec![x0 + 3.0]),
        accuracy: Accuracy::Exact,
    };
    let p = rising::P {
        va: 1.0,
        vb: 2.0,
        c: 1.0,
    };
    corpus_case!(
        "start just above a rising guard",
        rising::Model,
        expected,
        (0.0, 3.0),
        rising::X { x: x0 },
        p
    );
}

/// A start on the guard at a large magnitude: `x0 = c = 10¹²` (its round-off is 10⁻⁴): an
/// event at `t0` into `b`.
#[test]
fn start_on_a_guard_of_large_magnitude() {
    let c = 1e12;
    let expected = Expected {
        events: vec![("up", "a", "b", 0.0)],
        end: End::Finished(vec![c + 2.0 * 3.0]),
        accuracy: Accuracy::Exact,
    };
    let p = rising::P {
        va: 1.0,
        vb: 2.0,
        c,
    };
    corpus_case!(
        "start on a large guard",
        rising::Model,
        expected,
        (0.0, 3.0),
        rising::X { x: c },
        p
    );
}

/// `x0 = 10⁻¹²` below the guard `x − 2·10⁻¹²` (tiny magnitudes), reaching it at `t = 10⁻¹²`.
#[test]
fn start_near_a_guard_of_tiny_magnitude() {
    let c = 2e-12;
    let x0 = 1e-12;
    let expected = Expected {
        events: vec![("up", "a", "b", c - x0)],
        end: End::Finished(vec![c + 2.0 * (3.0 - (c - x0))]),
        // The event at 1e-12 must not be confused with one at 0: times to the round-off of
        // t (4 ε = 9e-16 near t = 1e-12 … 1), states to that of x ≤ 6.
        accuracy: Accuracy::Absolute(1e-14),
    };
    let p = rising::P {
        va: 1.0,
        vb: 2.0,
        c,
    };
    corpus_case!(
        "start near a tiny guard",
        rising::Model,
        expected,
        (0.0, 3.0),
        rising::X { x: x0 },
        p
    );
}
