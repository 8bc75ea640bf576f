//! HIRES and Chemical Akzo Nobel of the IVP test set (Mazzia & Magherini), at rtol 1e-8 with the
//! default tableau, against references computed by two independent methods
//! (`bench/reference/stiff_references.py`: LSODA at rtol 1e-12, Radau IIA at 1e-11, which agree
//! to 3e-11, as do the test set's published values). The bound is `tests/stiff_references.rs`'s:
//! 10 rtol relative, for a global error measured at 3.5 and 3.1 rtol.

use crate::stiff_model::*;
use crate::table::{Bound, Row};

/// The tolerances of both solves (atol scaled to the smallest concentrations of interest).
const RTOL: f64 = 1e-8;

/// The rows of both problems.
pub fn rows() -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    let bound = Bound::Relative(10.0 * RTOL);
    let hires = hires::Model
        .solver()
        .tolerances(RTOL, RTOL * 1e-4)
        .solve(0.0, HIRES_T, &HIRES_Y0, &HIRES_P)?;
    let mut rows: Vec<Row> = (0..8)
        .map(|i| {
            let quantity = format!("y{}(321.8122)", i + 1);
            Row::new("HIRES", quantity, HIRES_REFERENCE[i], hires.y[i], bound)
        })
        .collect();
    let akzo = akzo::Model
        .solver()
        .tolerances(RTOL, RTOL * 1e-4)
        .solve(0.0, AKZO_T, &AKZO_Y0, &AKZO_P)?;
    for (i, &reference) in AKZO_REFERENCE.iter().enumerate() {
        let value = if i < 5 { akzo.y[i] } else { akzo.z[0] };
        rows.push(Row::new(
            "Chemical Akzo Nobel",
            format!("y{}(180)", i + 1),
            reference,
            value,
            bound,
        ));
    }
    Ok(rows)
}
