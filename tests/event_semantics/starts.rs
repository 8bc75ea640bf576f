//! Starts on a guard and near it.

use crate::corpus_tests;
use crate::harness::{Accuracy, End};
use crate::models::{falling, rising};

/// The start `1 − 10⁻⁹` of `start_just_below_a_guard`, below the guard `x − 1`.
const BELOW: f64 = 1.0 - 1e-9;
/// The start `1 + 10⁻⁹` of `start_just_above_a_rising_guard`, above the guard `x − 1`.
const ABOVE: f64 = 1.0 + 1e-9;
/// The guard's level `2·10⁻¹²` of `start_near_a_guard_of_tiny_magnitude`.
const TINY_LEVEL: f64 = 2e-12;
/// The start `10⁻¹²` of `start_near_a_guard_of_tiny_magnitude`.
const TINY_START: f64 = 1e-12;

corpus_tests! {
    /// `x0 = 1` on the rising guard `x − 1`, the flow crossing it: an event at `t0`.
    start_on_guard_with_the_flow_entering: "start on guard, entering", rising::Model,
        (0.0, 3.0), rising::X { x: 1.0 }, rising::P { va: 1.0, vb: 2.0, c: 1.0 }
        => [("up", "a", "b", 0.0)], End::Finished(vec![7.0]), Accuracy::Exact;

    /// `x0 = 1` on the falling guard `x − 1`, the flow leaving it: no event.
    start_on_guard_with_the_flow_leaving: "start on guard, leaving", falling::Model,
        (0.0, 3.0), falling::X { x: 1.0 }, falling::P { va: 1.0, vb: 2.0, c: 1.0 }
        => [], End::Finished(vec![4.0]), Accuracy::Exact;

    /// `x0 = 1 − 10⁻⁹`: a start below the guard (not on it, at any tolerance), reaching it at
    /// `t = 10⁻⁹`.
    start_just_below_a_guard: "start just below a guard", rising::Model, (0.0, 3.0),
        rising::X { x: BELOW }, rising::P { va: 1.0, vb: 2.0, c: 1.0 }
        => [("up", "a", "b", 1.0 - BELOW)],
        End::Finished(vec![1.0 + 2.0 * (3.0 - (1.0 - BELOW))]), Accuracy::Exact;

    /// `x0 = 1 + 10⁻⁹`, above the rising guard: no event, though the start is within every
    /// tolerance of it.
    start_just_above_a_rising_guard: "start just above a rising guard", rising::Model,
        (0.0, 3.0), rising::X { x: ABOVE }, rising::P { va: 1.0, vb: 2.0, c: 1.0 }
        => [], End::Finished(vec![ABOVE + 3.0]), Accuracy::Exact;

    /// A start on the guard at a large magnitude: `x0 = c = 10¹²` (its round-off is 10⁻⁴): an
    /// event at `t0` into `b`.
    start_on_a_guard_of_large_magnitude: "start on a large guard", rising::Model, (0.0, 3.0),
        rising::X { x: 1e12 }, rising::P { va: 1.0, vb: 2.0, c: 1e12 }
        => [("up", "a", "b", 0.0)], End::Finished(vec![1e12 + 2.0 * 3.0]), Accuracy::Exact;

    /// `x0 = 10⁻¹²` below the guard `x − 2·10⁻¹²` (tiny magnitudes), reaching it at
    /// `t = 10⁻¹²`.
    start_near_a_guard_of_tiny_magnitude: "start near a tiny guard", rising::Model, (0.0, 3.0),
        rising::X { x: TINY_START }, rising::P { va: 1.0, vb: 2.0, c: TINY_LEVEL }
        => [("up", "a", "b", TINY_LEVEL - TINY_START)],
        End::Finished(vec![TINY_LEVEL + 2.0 * (3.0 - (TINY_LEVEL - TINY_START))]),
        // The event at 1e-12 must not be confused with one at 0: times to the round-off of
        // t (4 ε = 9e-16 near t = 1e-12 … 1), states to that of x ≤ 6.
        Accuracy::Absolute(1e-14);
}
