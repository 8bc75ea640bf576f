//! A guard on its zero at a mode's entry: the flow entering it (an event at once), leaving it,
//! tangent to it; two guards at one instant.

use crate::corpus_case;
use crate::harness::{Accuracy, End, Expected, Failure};
use crate::models::{chain, leave, pair, tangent_down, tangent_up};

/// `a` leaves at `x = 1` into `b`, whose rising guard on the same level is on its zero with
/// the flow crossing it: it fires at the entry, into `c` (`x' = 3`), at the same instant.
#[test]
fn guard_on_zero_at_entry_with_the_flow_entering_fires_at_once() {
    let expected = Expected {
        events: vec![("enter", "a", "b", 1.0), ("onward", "b", "c", 1.0)],
        end: End::Finished(vec![7.0]),
        accuracy: Accuracy::Exact,
    };
    corpus_case!(
        "entry, entering",
        chain::Model,
        expected,
        (0.0, 3.0),
        chain::X { x: 0.0 },
        chain::P {
            va: 1.0,
            vb: 1.0,
            vc: 3.0,
            level: 1.0,
            d: 0.0,
        }
    );
}

/// The same with `b`'s guard falling: on its zero, the flow leaves it — armed, never fired.
#[test]
fn guard_on_zero_at_entry_with_the_flow_leaving_is_armed() {
    let expected = Expected {
        events: vec![("enter", "a", "b", 1.0)],
        end: End::Finished(vec![3.0]),
        accuracy: Accuracy::Exact,
    };
    corpus_case!(
        "entry, leaving",
        leave::Model,
        expected,
        (0.0, 3.0),
        leave::X { x: 0.0 },
        leave::P { c: 1.0 }
    );
}

/// In `b`, `x − 1 = (t − 1)²`: on its zero at the entry with a vanishing rate, moving up
/// (decided on the first step). A falling guard there is armed and never fires.
#[test]
fn guard_on_zero_at_entry_tangent_and_leaving_is_armed() {
    let expected = Expected {
        events: vec![("enter", "a", "b", 1.0)],
        end: End::Finished(vec![5.0]),
        accuracy: Accuracy::Exact,
    };
    let p = tangent_down::P { c: 1.0 };
    corpus_case!(
        "entry, tangent, leaving",
        tangent_down::Model,
        expected,
        (0.0, 3.0),
        tangent_down::X { x: 0.0 },
        p
    );
}

/// The same with a rising guard: the flow moves it across with no rate at the entry — a
/// crossing without rate, a grazing event.
#[test]
fn guard_on_zero_at_entry_tangent_and_entering_is_grazing() {
    let expected = Expected {
        events: vec![("enter", "a", "b", 1.0)],
        end: End::Failed(Failure::Grazing("again"), 1.0),
        accuracy: Accuracy::Exact,
    };
    let p = tangent_up::P { c: 1.0 };
    corpus_case!(
        "entry, tangent, entering",
        tangent_up::Model,
        expected,
        (0.0, 3.0),
        tangent_up::X { x: 0.0 },
        p
    );
}

/// `first` and `second` of one mode reach zero at the same instant: the first declared fires
/// (into `b`); `b` watches the level of `y` again, on its zero at the entry and crossed by the
/// flow: it fires at once, into `d`.
#[test]
fn simultaneous_guards() {
    let expected = Expected {
        events: vec![("first", "a", "b", 1.0), ("then", "b", "d", 1.0)],
        end: End::Finished(vec![-1.0, -1.0]),
        accuracy: Accuracy::Exact,
    };
    let p = pair::P { cx: 1.0, cy: 1.0 };
    corpus_case!(
        "simultaneous guards",
        pair::Model,
        expected,
        (0.0, 3.0),
        pair::X { x: 0.0, y: 0.0 },
        p
    );
}

/// Two guards 1e-6 apart in time keep their order: `first` at 1, then `then` in `b` at
/// `1 + 1e-6`.
#[test]
fn nearly_simultaneous_guards_in_order() {
    let cy = 1.0 + 1e-6;
    let expected = Expected {
        events: vec![("first", "a", "b", 1.0), ("then", "b", "d", cy)],
        end: End::Finished(vec![1.0 + (cy - 1.0) - (3.0 - cy), cy - (3.0 - cy)]),
        accuracy: Accuracy::Exact,
    };
    let p = pair::P { cx: 1.0, cy };
    corpus_case!(
        "nearly simultaneous guards",
        pair::Model,
        expected,
        (0.0, 3.0),
        pair::X { x: 0.0, y: 0.0 },
        p
    );
}

/// The other order: `second` first, 1e-6 before `first` would fire, into `c` (at rest).
#[test]
fn nearly_simultaneous_guards_other_order() {
    let cy = 1.0 - 1e-6;
    let expected = Expected {
        events: vec![("second", "a", "c", cy)],
        end: End::Finished(vec![cy, cy]),
        accuracy: Accuracy::Exact,
    };
    let p = pair::P { cx: 1.0, cy };
    corpus_case!(
        "nearly simultaneous guards, other order",
        pair::Model,
        expected,
        (0.0, 3.0),
        pair::X { x: 0.0, y: 0.0 },
        p
    );
}
