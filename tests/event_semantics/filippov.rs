//! Switching surfaces (Filippov): crossing, entry into sliding, exit, and repulsive surfaces,
//! at every tolerance down to 1e-12.

use crate::corpus_tests;
use crate::harness::{Accuracy, End, Failure};
use crate::models::{line, line_both, slide};

/// The start beside the repulsive surface `x = 1` of `start_beside_a_repulsive_surface`.
const BESIDE: f64 = 1.0 - 1e-9;

corpus_tests! {
    /// Both fields point the same way (`x' = 1`, then 2): the trajectory crosses `x = 1`.
    surface_crossing: "surface crossing", line::Model, (0.0, 3.0),
        line::X { x: 0.0 }, line::P { vl: 1.0, vr: 2.0, c: 1.0 }
        => [("wall_from_left", "left", "right", 1.0)], End::Finished(vec![5.0]), Accuracy::Exact;

    /// The same crossing where the state is zero: `x = c = 0` at `t = 1`.
    surface_crossing_at_a_zero_state: "surface crossing at zero", line::Model, (0.0, 3.0),
        line::X { x: -1.0 }, line::P { vl: 1.0, vr: 2.0, c: 0.0 }
        => [("wall_from_left", "left", "right", 1.0)], End::Finished(vec![4.0]), Accuracy::Exact;

    /// The fields point at each other (`x' = 1` left, `−1` right): the trajectory slides on
    /// `x = 1` from `t = 1` on.
    surface_entry_into_sliding: "surface entry", line::Model, (0.0, 3.0),
        line::X { x: 0.0 }, line::P { vl: 1.0, vr: -1.0, c: 1.0 }
        => [("wall_from_left", "left", "wall_sliding", 1.0)], End::Finished(vec![1.0]),
        Accuracy::Exact;

    /// A start on an attractive surface slides from `t0`.
    start_on_an_attractive_surface_slides: "start on attractive surface", line::Model,
        (0.0, 3.0), line::X { x: 1.0 }, line::P { vl: 1.0, vr: -1.0, c: 1.0 }
        => [("wall_from_left", "left", "wall_sliding", 0.0)], End::Finished(vec![1.0]),
        Accuracy::Exact;

    /// Reaches the wall at `t = 1`, slides up it (`y' = 1`) until the field above turns away at
    /// `y = b = 2`, then leaves: `x = 1 + (t − 2)²/2`.
    surface_entry_and_exit: "surface entry and exit", slide::Model, (0.0, 3.0),
        slide::X { x: 0.0, y: 0.0 }, slide::P { b: 2.0 }
        => [
            ("wall_from_below", "below", "wall_sliding", 1.0),
            ("wall_exit_to_above", "wall_sliding", "above", 2.0),
        ],
        End::Finished(vec![1.5, 3.0]), Accuracy::Exact;

    /// A start exactly on a repulsive surface (both fields point away): an error, not a
    /// choice.
    start_on_a_repulsive_surface: "start on repulsive surface", line::Model, (0.0, 3.0),
        line::X { x: 1.0 }, line::P { vl: -1.0, vr: 1.0, c: 1.0 }
        => [], End::Failed(Failure::Repulsive, 0.0), Accuracy::Exact;

    /// A start 1e-9 beside a repulsive surface, with atol 1e-8: a start beside it (the state
    /// is resolved to round-off, not to the tolerance), moving away.
    start_beside_a_repulsive_surface: "start beside repulsive surface", line::Model,
        (0.0, 3.0), line::X { x: BESIDE }, line::P { vl: -1.0, vr: 1.0, c: 1.0 }
        => [], End::Finished(vec![BESIDE - 3.0]), Accuracy::Exact, |_| 1e-8;

    /// Both sides chosen by `initial_if`, a start on a repulsive surface: an error, not the
    /// first rule's side.
    start_on_a_repulsive_surface_with_both_sides_initial_if: "repulsive start, both initial_if",
        line_both::Model, (0.0, 3.0),
        line_both::X { x: 1.0 }, line_both::P { vl: -1.0, vr: 1.0, c: 1.0 }
        => [], End::Failed(Failure::Repulsive, 0.0), Accuracy::Exact;

    /// Both sides chosen by `initial_if`, a start on an attractive surface: neither side's
    /// field moves into it and there is no fallback — no initial mode (the error says to mark
    /// one side `#[mode(initial)]`).
    start_on_an_attractive_surface_with_both_sides_initial_if:
        "attractive start, both initial_if", line_both::Model, (0.0, 3.0),
        line_both::X { x: 1.0 }, line_both::P { vl: 1.0, vr: -1.0, c: 1.0 }
        => [], End::Failed(Failure::NoInitialMode, 0.0), Accuracy::Exact;

    /// Both sides chosen by `initial_if`, a start on the surface that both fields cross the
    /// same way: the side they move into.
    start_on_a_crossed_surface_with_both_sides_initial_if: "crossed start, both initial_if",
        line_both::Model, (0.0, 3.0),
        line_both::X { x: 1.0 }, line_both::P { vl: 1.0, vr: 2.0, c: 1.0 }
        => [], End::Finished(vec![1.0 + 2.0 * 3.0]), Accuracy::Exact;
}
