//! How an example explains itself: the model it solves, in a line or two ([`model`]), and the
//! comparison of what it computed with its reference as a small aligned table — quantity,
//! value, reference, relative error, bound and verdict (`ok` within the bound, else `FAIL`) —
//! followed by each bound and the reason for it ([`Comparison`]). The reader sees whether the
//! example agrees with its reference without comparing digits by eye, and CI sees it too: the
//! [`Verdict`] of a table with a failed row is an error, which the example returns from `main`
//! (a nonzero exit status) once it has printed everything else.
//!
//! The relative error is `|value − reference| / |reference|`, or `|value|` when the reference
//! is zero; a value the example could not compute (NaN) fails.
//!
//! Included with `#[path = "../common/check.rs"] mod check;` by the examples with a reference.

/// Prints `model: <first>`, then each further line indented under it.
pub fn model(lines: &[&str]) {
    for (k, line) in lines.iter().enumerate() {
        let lead = if k == 0 { "model: " } else { "       " };
        println!("{lead}{line}");
    }
}

/// One compared quantity.
struct Row {
    quantity: String,
    value: f64,
    reference: f64,
    /// Index into [`Comparison::bounds`].
    bound: usize,
}

impl Row {
    fn relative_error(&self) -> f64 {
        let difference = (self.value - self.reference).abs();
        if self.reference == 0.0 {
            difference
        } else {
            difference / self.reference.abs()
        }
    }
}

/// A table of quantities against their reference, each within a bound given with its reason.
pub struct Comparison {
    reference: String,
    bounds: Vec<(f64, String)>,
    rows: Vec<Row>,
}

/// The outcome of a [`Comparison`]: how many of its rows failed.
#[must_use = "return it from main (`verdict.into_result()?`) so that a failed row fails the run"]
pub struct Verdict {
    failed: usize,
    rows: usize,
}

impl Verdict {
    /// `Ok` if every row is within its bound, else the error that `main` returns.
    pub fn into_result(self) -> Result<(), String> {
        match self.failed {
            0 => Ok(()),
            n => Err(format!(
                "{n} of {} quantities outside their bound against the reference",
                self.rows
            )),
        }
    }
}

impl Comparison {
    /// An empty comparison with `reference` (what the reference is, e.g. `the closed form`).
    pub fn new(reference: impl Into<String>) -> Self {
        Comparison {
            reference: reference.into(),
            bounds: Vec::new(),
            rows: Vec::new(),
        }
    }

    /// The relative bound of the rows added after it, and why the error should be within it.
    pub fn bound(mut self, bound: f64, reason: impl Into<String>) -> Self {
        self.bounds.push((bound, reason.into()));
        self
    }

    /// A quantity, the value the example computed and its reference, under the last bound.
    pub fn row(mut self, quantity: impl Into<String>, value: f64, reference: f64) -> Self {
        let bound = self
            .bounds
            .len()
            .checked_sub(1)
            .expect("a bound before the rows");
        self.rows.push(Row {
            quantity: quantity.into(),
            value,
            reference,
            bound,
        });
        self
    }

    /// Prints the table, its bounds with their reasons and a summary line; returns the verdict.
    pub fn print(&self) -> Verdict {
        let width = self.rows.iter().map(|r| r.quantity.chars().count());
        let width = width.max().unwrap_or(0).max("quantity".len());
        println!();
        println!("against the reference ({}):", self.reference);
        println!(
            "  {:<width$}  {:>22}  {:>22}  {:>10}  {:>7}  verdict",
            "quantity", "value", "reference", "rel. error", "bound"
        );
        let mut failed = 0;
        for row in &self.rows {
            let error = row.relative_error();
            let bound = self.bounds[row.bound].0;
            // NaN compares false: a missing value fails.
            let ok = error <= bound;
            failed += usize::from(!ok);
            println!(
                "  {:<width$}  {:>22.15e}  {:>22.15e}  {error:>10.1e}  {bound:>7.1e}  {}",
                row.quantity,
                row.value,
                row.reference,
                if ok { "ok" } else { "FAIL" }
            );
        }
        for (bound, reason) in &self.bounds {
            println!("  bound {bound:.1e}: {reason}");
        }
        let rows = self.rows.len();
        match failed {
            0 => println!("  all {rows} within their bound: ok"),
            n => println!("  {n} of {rows} outside their bound: FAIL"),
        }
        Verdict { failed, rows }
    }
}
