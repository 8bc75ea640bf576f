//! The five-bar mechanism of Corner, Sandu & Sandu (2019, §7), reconstructed (the paper prints
//! no number, only figures): the nine impacts of joint 2 on the ground in `[0, 5]` and, at
//! `T = 5`, its height and velocity and the paper's quadrature `z2 = ∫ ÿ2 dt`, with their
//! sensitivities to the springs' natural lengths, at rtol 1e-10, atol 1e-12, with
//! ESDIRK4(3)6L[2]SA on the stabilized index-2 model of `examples/five_bar/model.rs`.
//!
//! The reference is the project notes' reconstruction solved in the index-1 form at tolerance
//! 1e-13 (`examples/five_bar/reference.rs`: trusted to about 1e-9 relative).
//!
//! Tolerances: `tests/five_bar.rs`, `against_the_reference` (the same settings): 1e-6
//! relative to max(|ref|, 1).

use hysens::prelude::*;

use crate::five_bar_model::five_bar;
use crate::five_bar_reference::{params, quantities, start, AT_5, IMPACTS, QUANTITIES};
use crate::table::{event_rows, Bound, Row};

const CASE: &str = "Five-bar (CSS §7)";

/// The rows of the five-bar mechanism.
pub fn rows() -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    let solution = five_bar::Model
        .solver()
        .tolerances(1e-10, 1e-12)
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, 5.0, &start::<five_bar::X>(), &params::<five_bar::P>())?;
    let bound = Bound::RelativeToMax1(1e-6);
    let times: Vec<f64> = IMPACTS.iter().map(|(t, _, _)| *t).collect();
    let mut rows = event_rows(CASE, "impacts", &times, &solution.events, bound);
    let values = quantities(&solution);
    // y2, ẏ2 and z2 (x2, ẋ2 and z1 = y2 − y2(0) are in the test).
    for i in [1, 3, 5] {
        for (row, of) in ["", "d/dL01 ", "d/dL02 "].into_iter().enumerate() {
            let quantity = format!("{of}{}(5)", QUANTITIES[i]);
            rows.push(Row::new(
                CASE,
                quantity,
                AT_5[row][i],
                values[row][i],
                bound,
            ));
        }
    }
    Ok(rows)
}
