//! Switching surfaces (Filippov): crossing, entry into sliding, exit, and repulsive surfaces,
//! at every tolerance down to 1e-12.

use crate::corpus_case;
use crate::harness::{Accuracy, End, Expected, Failure};
use crate::models::{line, line_both, slide};

/// Both fields point the same way (`x' = 1`, then 2): the trajectory crosses `x = 1`.
#[test]
fn surface_crossing() {
    let expected = Expected {
        events: vec![("wall_from_left", "left", "right", 1.0)],
        end: End::Finished(vec![5.0]),
        accuracy: Accuracy::Exact,
    };
    let p = line::P {
        vl: 1.0,
        vr: 2.0,
        c: 1.0,
    };
    corpus_case!(
        "surface crossing",
        line::Model,
        expected,
        (0.0, 3.0),
        line::X { x: 0.0 },
        p
    );
}

/// The same crossing where the state is zero: `x = c = 0` at `t = 1`.
#[test]
fn surface_crossing_at_a_zero_state() {
    let expected = Expected {
        events: vec![("wall_from_left", "left", "right", 1.0)],
        end: End::Finished(vec![4.0]),
        accuracy: Accuracy::Exact,
    };
    let p = line::P {
        vl: 1.0,
        vr: 2.0,
        c: 0.0,
    };
    corpus_case!(
        "surface crossing at zero",
        line::Model,
        expected,
        (0.0, 3.0),
        line::X { x: -1.0 },
        p
    );
}

/// The fields point at each other (`x' = 1` left, `−1` right): the trajectory slides on
/// `x = 1` from `t = 1` on.
#[test]
fn surface_entry_into_sliding() {
    let expected = Expected {
        events: vec![("wall_from_left", "left", "wall_sliding", 1.0)],
        end: End::Finished(vec![1.0]),
        accuracy: Accuracy::Exact,
    };
    let p = line::P {
        vl: 1.0,
        vr: -1.0,
        c: 1.0,
    };
    corpus_case!(
        "surface entry",
        line::Model,
        expected,
        (0.0, 3.0),
        line::X { x: 0.0 },
        p
    );
}

/// A start on an attractive surface slides from `t0`.
#[test]
fn start_on_an_attractive_surface_slides() {
    let expected = Expected {
        events: vec![("wall_from_left", "left", "wall_sliding", 0.0)],
        end: End::Finished(vec![1.0]),
        accuracy: Accuracy::Exact,
    };
    let p = line::P {
        vl: 1.0,
        vr: -1.0,
        c: 1.0,
    };
    corpus_case!(
        "start on attractive surface",
        line::Model,
        expected,
        (0.0, 3.0),
        line::X { x: 1.0 },
        p
    );
}

/// Reaches the wall at `t = 1`, slides up it (`y' = 1`) until the field above turns away at
/// `y = b = 2`, then leaves: `x = 1 + (t − 2)²/2`.
#[test]
fn surface_entry_and_exit() {
    let expected = Expected {
        events: vec![
            ("wall_from_below", "below", "wall_sliding", 1.0),
            ("wall_exit_to_above", "wall_sliding", "above", 2.0),
        ],
        end: End::Finished(vec![1.5, 3.0]),
        accuracy: Accuracy::Exact,
    };
    let x0 = slide::X { x: 0.0, y: 0.0 };
    corpus_case!(
        "surface entry and exit",
        slide::Model,
        expected,
        (0.0, 3.0),
        x0,
        slide::P { b: 2.0 }
    );
}

/// A start exactly on a repulsive surface (both fields point away): an error, not a choice.
#[test]
fn start_on_a_repulsive_surface() {
    let expected = Expected {
        events: vec![],
        end: End::Failed(Failure::Repulsive, 0.0),
        accuracy: Accuracy::Exact,
    };
    let p = line::P {
        vl: -1.0,
        vr: 1.0,
        c: 1.0,
    };
    corpus_case!(
        "start on repulsive surface",
        line::Model,
        expected,
        (0.0, 3.0),
        line::X { x: 1.0 },
        p
    );
}

/// A start 1e-9 beside a repulsive surface, with atol 1e-8: a start beside it (the state is
/// resolved to round-off, not to the tolerance), moving away.
#[test]
fn start_beside_a_repulsive_surface() {
    let x0 = 1.0 - 1e-9;
    let expected = Expected {
        events: vec![],
        end: End::Finished(vec![x0 - 3.0]),
        accuracy: Accuracy::Exact,
    };
    let p = line::P {
        vl: -1.0,
        vr: 1.0,
        c: 1.0,
    };
    corpus_case!(
        "start beside repulsive surface",
        line::Model,
        expected,
        (0.0, 3.0),
        line::X { x: x0 },
        p,
        |_| 1e-8
    );
}

/// Both sides chosen by `initial_if`, a start on a repulsive surface: an error, not the first
/// rule's side.
#[test]
fn start_on_a_repulsive_surface_with_both_sides_initial_if() {
    let expected = Expected {
        events: vec![],
        end: End::Failed(Failure::Repulsive, 0.0),
        accuracy: Accuracy::Exact,
    };
    let p = line_both::P {
        vl: -1.0,
        vr: 1.0,
        c: 1.0,
    };
    corpus_case!(
        "repulsive start, both initial_if",
        line_both::Model,
        expected,
        (0.0, 3.0),
        line_both::X { x: 1.0 },
        p
    );
}

/// Both sides chosen by `initial_if`, a start on an attractive surface: neither side's field
/// moves into it and there is no fallback — no initial mode (the error says to mark one side
/// `#[mode(initial)]`).
#[test]
fn start_on_an_attractive_surface_with_both_sides_initial_if() {
    let expected = Expected {
        events: vec![],
        end: End::Failed(Failure::NoInitialMode, 0.0),
        accuracy: Accuracy::Exact,
    };
    let p = line_both::P {
        vl: 1.0,
        vr: -1.0,
        c: 1.0,
    };
    corpus_case!(
        "attractive start, both initial_if",
        line_both::Model,
        expected,
        (0.0, 3.0),
        line_both::X { x: 1.0 },
        p
    );
}

/// Both sides chosen by `initial_if`, a start on the surface that both fields cross the same
/// way: the side they move into.
#[test]
fn start_on_a_crossed_surface_with_both_sides_initial_if() {
    let expected = Expected {
        events: vec![],
        end: End::Finished(vec![1.0 + 2.0 * 3.0]),
        accuracy: Accuracy::Exact,
    };
    let p = line_both::P {
        vl: 1.0,
        vr: 2.0,
        c: 1.0,
    };
    corpus_case!(
        "crossed start, both initial_if",
        line_both::Model,
        expected,
        (0.0, 3.0),
        line_both::X { x: 1.0 },
        p
    );
}
