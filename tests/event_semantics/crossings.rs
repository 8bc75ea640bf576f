//! Crossings in each direction, direction filters, time guards, tangency and a crossing
//! without rate.

use crate::harness::{self, Accuracy, End, Expected, Failure};
use crate::models::{arc_either, arc_falling, arc_rising, clock, falling, inflection, rising};
use crate::{corpus_case, corpus_tests};

corpus_tests! {
    /// `x` rises through 1 at `t = 1` (`x' = 1`), then `x' = 2`.
    rising_crossing: "rising crossing", rising::Model, (0.0, 3.0),
        rising::X { x: 0.0 }, rising::P { va: 1.0, vb: 2.0, c: 1.0 }
        => [("up", "a", "b", 1.0)], End::Finished(vec![5.0]), Accuracy::Exact;

    /// `x` falls through 1 at `t = 1` (`x' = −1` from 2), then `x' = −2`.
    falling_crossing: "falling crossing", falling::Model, (0.0, 3.0),
        falling::X { x: 2.0 }, falling::P { va: -1.0, vb: -2.0, c: 1.0 }
        => [("down", "a", "b", 1.0)], End::Finished(vec![-3.0]), Accuracy::Exact;

    /// A rising guard is not fired by a falling crossing.
    rising_guard_ignores_a_falling_crossing: "rising guard, falling crossing", rising::Model,
        (0.0, 3.0), rising::X { x: 2.0 }, rising::P { va: -1.0, vb: 5.0, c: 1.0 }
        => [], End::Finished(vec![-1.0]), Accuracy::Exact;

    /// A falling guard is not fired by a rising crossing.
    falling_guard_ignores_a_rising_crossing: "falling guard, rising crossing", falling::Model,
        (0.0, 3.0), falling::X { x: 0.0 }, falling::P { va: 1.0, vb: -5.0, c: 1.0 }
        => [], End::Finished(vec![3.0]), Accuracy::Exact;

    /// `x = t − t²/2` crosses `3/8` up at `t = 1/2` and down at `t = 3/2`: a guard of either
    /// direction fires at both, the counter ends at 2.
    either_direction_fires_both_ways: "either, both ways", arc_either::Model, (0.0, 2.0),
        arc_either::X { x: 0.0, n: 0.0 }, arc_either::P { c: 0.375 }
        => [("level", "arc", "arc", 0.5), ("level", "arc", "arc", 1.5)],
        End::Finished(vec![0.0, 2.0]), Accuracy::Exact;

    /// The same arc with a rising guard: only the crossing at `t = 1/2` (the guard that just
    /// fired is carried on across by the flow and is not fired again by it).
    rising_fires_on_the_way_up_only: "rising, way up", arc_rising::Model, (0.0, 2.0),
        arc_rising::X { x: 0.0, n: 0.0 }, arc_rising::P { c: 0.375 }
        => [("level", "arc", "arc", 0.5)], End::Finished(vec![0.0, 1.0]), Accuracy::Exact;

    /// The same arc with a falling guard: only the crossing at `t = 3/2`.
    falling_fires_on_the_way_down_only: "falling, way down", arc_falling::Model, (0.0, 2.0),
        arc_falling::X { x: 0.0, n: 0.0 }, arc_falling::P { c: 0.375 }
        => [("level", "arc", "arc", 1.5)], End::Finished(vec![0.0, 1.0]), Accuracy::Exact;

    /// The arc touches the level `1/2` at its maximum without crossing it: no event (a
    /// tangency is no event, whatever round-off does to the touching point).
    tangency_is_no_event: "tangency", arc_either::Model, (0.0, 2.0),
        arc_either::X { x: 0.0, n: 0.0 }, arc_either::P { c: 0.5 }
        => [], End::Finished(vec![0.0, 0.0]), Accuracy::Exact;

    /// The same touch with a sample at `t = 1`: a step ends exactly on the maximum, where the
    /// guard is exactly zero — on it, with the flow turning back (rate `1 − t = 0`): no event.
    tangency_at_a_step_end_is_no_event: "tangency at a step end", arc_either::Model,
        (0.0, 2.0), arc_either::X { x: 0.0, n: 0.0 }, arc_either::P { c: 0.5 }
        => [], End::Finished(vec![0.0, 0.0]), Accuracy::Exact,
        harness::atol_hundredth, &[1.0];

    /// The guard `x³` crosses zero at `t = 1` (`x' = 1` from −1) with `ḣ = 3x² = 0`: its event
    /// time has no derivative (`dt*/dc = −1/ḣ` for the guard `x³ + c`), a grazing event.
    crossing_without_rate_is_grazing: "crossing without rate", inflection::Model, (0.0, 3.0),
        inflection::X { x: -1.0 }, inflection::P { c: 0.0 }
        => [], End::Failed(Failure::Grazing("up"), 1.0),
        // The flow is exact; the root of x³ is located to the round-off of x (its cube is
        // far below the guard's round-off): 1e-12 is far from any other answer.
        Accuracy::Absolute(1e-12);

    /// A guard on time alone fires at its time.
    time_guard: "time guard", clock::Model, (0.0, 3.0), clock::X { x: 0.0 }, clock::P { t1: 1.5 }
        => [("alarm", "before", "after", 1.5)], End::Finished(vec![0.0]), Accuracy::Exact;
}

/// Two crossings `2√2·10⁻¹ ≈ 0.28` apart around the maximum `t = 1` (the level `1/2 − 10⁻²`
/// just below it), inside one step (the arc is integrated exactly, so the steps grow to
/// whole units of time): both found, in order.
#[test]
fn two_crossings_close_together() {
    let c: f64 = 0.5 - 1e-2;
    // x = t − t²/2 = c at t = 1 ∓ √(1 − 2c).
    let d = (1.0 - 2.0 * c).sqrt();
    let expected = Expected {
        events: vec![
            ("level", "arc", "arc", 1.0 - d),
            ("level", "arc", "arc", 1.0 + d),
        ],
        end: End::Finished(vec![0.0, 2.0]),
        accuracy: Accuracy::Exact,
    };
    let x0 = arc_either::X { x: 0.0, n: 0.0 };
    corpus_case!(
        "two crossings close together",
        arc_either::Model,
        expected,
        (0.0, 2.0),
        x0,
        arc_either::P { c }
    );
}

/// The arc goes `10⁻¹⁴` past the level `1/2 − 10⁻¹⁴` around its maximum (roots `2.8·10⁻⁷`
/// apart): a crossing whose existence no tolerance of the grid resolves (`10⁻¹⁴` is below a
/// tenth of the guard's tolerance band even at rtol 1e-12), a grazing event.
#[test]
fn near_tangency_below_the_tolerance_is_grazing() {
    let c: f64 = 0.5 - 1e-14;
    let d = (1.0 - 2.0 * c).sqrt();
    let expected = Expected {
        events: vec![],
        end: End::Failed(Failure::Grazing("level"), 1.0 - d),
        // The arc is exact; the first root to round-off of the time, divided by the rate
        // √(2·10⁻¹⁴) = 1.4e-7 at the root: ~1e-8.
        accuracy: Accuracy::Absolute(1e-7),
    };
    let x0 = arc_either::X { x: 0.0, n: 0.0 };
    corpus_case!(
        "near tangency below the tolerance",
        arc_either::Model,
        expected,
        (0.0, 2.0),
        x0,
        arc_either::P { c }
    );
}
