//! A guard on its zero at a mode's entry: the flow entering it (an event at once), leaving it,
//! tangent to it; two guards at one instant.

use crate::corpus_tests;
use crate::harness::{Accuracy, End, Failure};
use crate::models::{chain, leave, pair, tangent_down, tangent_up};

/// `then`'s level in `nearly_simultaneous_guards_in_order`: 1e-6 after `first`'s.
const LATER: f64 = 1.0 + 1e-6;
/// `second`'s level in `nearly_simultaneous_guards_other_order`: 1e-6 before `first`'s.
const EARLIER: f64 = 1.0 - 1e-6;

corpus_tests! {
    /// `a` leaves at `x = 1` into `b`, whose rising guard on the same level is on its zero with
    /// the flow crossing it: it fires at the entry, into `c` (`x' = 3`), at the same instant.
    guard_on_zero_at_entry_with_the_flow_entering_fires_at_once: "entry, entering",
        chain::Model, (0.0, 3.0),
        chain::X { x: 0.0 }, chain::P { va: 1.0, vb: 1.0, vc: 3.0, level: 1.0, d: 0.0 }
        => [("enter", "a", "b", 1.0), ("onward", "b", "c", 1.0)], End::Finished(vec![7.0]),
        Accuracy::Exact;

    /// The same with `b`'s guard falling: on its zero, the flow leaves it — armed, never
    /// fired.
    guard_on_zero_at_entry_with_the_flow_leaving_is_armed: "entry, leaving", leave::Model,
        (0.0, 3.0), leave::X { x: 0.0 }, leave::P { c: 1.0 }
        => [("enter", "a", "b", 1.0)], End::Finished(vec![3.0]), Accuracy::Exact;

    /// In `b`, `x − 1 = (t − 1)²`: on its zero at the entry with a vanishing rate, moving up
    /// (decided on the first step). A falling guard there is armed and never fires.
    guard_on_zero_at_entry_tangent_and_leaving_is_armed: "entry, tangent, leaving",
        tangent_down::Model, (0.0, 3.0), tangent_down::X { x: 0.0 }, tangent_down::P { c: 1.0 }
        => [("enter", "a", "b", 1.0)], End::Finished(vec![5.0]), Accuracy::Exact;

    /// The same with a rising guard: the flow moves it across with no rate at the entry — a
    /// crossing without rate, a grazing event.
    guard_on_zero_at_entry_tangent_and_entering_is_grazing: "entry, tangent, entering",
        tangent_up::Model, (0.0, 3.0), tangent_up::X { x: 0.0 }, tangent_up::P { c: 1.0 }
        => [("enter", "a", "b", 1.0)], End::Failed(Failure::Grazing("again"), 1.0),
        Accuracy::Exact;

    /// `first` and `second` of one mode reach zero at the same instant: the first declared
    /// fires (into `b`); `b` watches the level of `y` again, on its zero at the entry and
    /// crossed by the flow: it fires at once, into `d`.
    simultaneous_guards: "simultaneous guards", pair::Model, (0.0, 3.0),
        pair::X { x: 0.0, y: 0.0 }, pair::P { cx: 1.0, cy: 1.0 }
        => [("first", "a", "b", 1.0), ("then", "b", "d", 1.0)], End::Finished(vec![-1.0, -1.0]),
        Accuracy::Exact;

    /// Two guards 1e-6 apart in time keep their order: `first` at 1, then `then` in `b` at
    /// `1 + 1e-6`.
    nearly_simultaneous_guards_in_order: "nearly simultaneous guards", pair::Model, (0.0, 3.0),
        pair::X { x: 0.0, y: 0.0 }, pair::P { cx: 1.0, cy: LATER }
        => [("first", "a", "b", 1.0), ("then", "b", "d", LATER)],
        End::Finished(vec![1.0 + (LATER - 1.0) - (3.0 - LATER), LATER - (3.0 - LATER)]),
        Accuracy::Exact;

    /// The other order: `second` first, 1e-6 before `first` would fire, into `c` (at rest).
    nearly_simultaneous_guards_other_order: "nearly simultaneous guards, other order",
        pair::Model, (0.0, 3.0), pair::X { x: 0.0, y: 0.0 }, pair::P { cx: 1.0, cy: EARLIER }
        => [("second", "a", "c", EARLIER)], End::Finished(vec![EARLIER, EARLIER]),
        Accuracy::Exact;
}
