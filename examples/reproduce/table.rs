//! One row per reproduced number, its pass/fail test, and the three ways to print the table:
//! aligned text, Markdown (pasted into the README) and JSON lines (checked by `.ci/run`).
//!
//! Every row is judged by the bound the test suite asserts for the same quantity, in the
//! test's own form: relative, absolute, relative to `max(|reference|, 1)`, or exact. So that
//! one column reads the same everywhere, the printed error is always relative to the
//! reference (absolute where the reference is 0) and the printed tolerance is the test's bound
//! converted to that scale — `|v − r| < τ` is `|v − r|/|r| < τ/|r|` — with the test's form in
//! parentheses when it is not already relative. The pass/fail verdict is the test's own
//! comparison, not the converted one.

use hysens::prelude::Event;

/// The bound a test asserts on `|value − reference|`.
#[derive(Clone, Copy, Debug)]
pub enum Bound {
    /// `|v − r| < τ |r|`.
    Relative(f64),
    /// `|v − r| < τ`.
    Absolute(f64),
    /// `|v − r| < τ max(|r|, 1)`.
    RelativeToMax1(f64),
    /// `v = r` (counts).
    Exact,
}

/// One reproduced number.
#[derive(Clone, Debug)]
pub struct Row {
    /// The example or problem.
    pub case: &'static str,
    /// What is compared.
    pub quantity: String,
    /// The value as printed in the paper, if the paper prints one.
    pub paper: Option<&'static str>,
    /// The high-precision reference (a closed form or an independent reference solve).
    pub reference: f64,
    /// What hysens computes, at run time.
    pub value: f64,
    /// The test suite's bound for this quantity.
    pub bound: Bound,
}

impl Row {
    /// A row without a paper value.
    pub fn new(
        case: &'static str,
        quantity: impl Into<String>,
        reference: f64,
        value: f64,
        bound: Bound,
    ) -> Self {
        Row {
            case,
            quantity: quantity.into(),
            paper: None,
            reference,
            value,
            bound,
        }
    }

    /// A count (events found, say) against the reference count, compared exactly.
    pub fn count(
        case: &'static str,
        quantity: impl Into<String>,
        reference: usize,
        value: usize,
    ) -> Self {
        Row::new(case, quantity, reference as f64, value as f64, Bound::Exact)
    }

    /// The same row with the paper's printed value.
    pub fn paper(self, printed: &'static str) -> Self {
        Row {
            paper: Some(printed),
            ..self
        }
    }

    /// `|v − r|`, relative to `|r|` unless the reference is 0.
    pub fn rel_err(&self) -> f64 {
        (self.value - self.reference).abs() / self.scale()
    }

    /// The bound on the scale of [`Row::rel_err`].
    pub fn tolerance(&self) -> f64 {
        self.allowed() / self.scale()
    }

    /// The test's comparison (false for a value that is not finite).
    pub fn passes(&self) -> bool {
        let error = (self.value - self.reference).abs();
        self.value.is_finite()
            && match self.bound {
                Bound::Exact => error == 0.0,
                _ => error < self.allowed(),
            }
    }

    /// The largest `|v − r|` the test allows (strictly less than this, or 0 for a count).
    fn allowed(&self) -> f64 {
        let r = self.reference.abs();
        match self.bound {
            Bound::Relative(tol) => tol * r,
            Bound::Absolute(tol) => tol,
            Bound::RelativeToMax1(tol) => tol * r.max(1.0),
            Bound::Exact => 0.0,
        }
    }

    /// `|r|`, or 1 for a zero reference (whose error is absolute).
    fn scale(&self) -> f64 {
        if self.reference == 0.0 {
            1.0
        } else {
            self.reference.abs()
        }
    }

    /// The tolerance column: the converted bound, and the test's own form when it is not
    /// relative.
    fn tolerance_text(&self) -> String {
        let converted = short(self.tolerance());
        let absolute = match self.bound {
            Bound::Exact => return "exact".to_string(),
            // The error of a zero reference is absolute already.
            _ if self.reference == 0.0 => return format!("{converted} abs"),
            Bound::Absolute(tol) => tol,
            Bound::RelativeToMax1(tol) if self.reference.abs() < 1.0 => tol,
            Bound::Relative(_) | Bound::RelativeToMax1(_) => return converted,
        };
        format!("{converted} ({} abs)", short(absolute))
    }

    /// The cells of the text and Markdown tables.
    fn cells(&self) -> [String; 8] {
        [
            self.case.to_string(),
            self.quantity.clone(),
            self.paper.unwrap_or("—").to_string(),
            full(self.reference),
            full(self.value),
            short(self.rel_err()),
            self.tolerance_text(),
            if self.passes() { "pass" } else { "FAIL" }.to_string(),
        ]
    }

    /// One JSON object on one line.
    pub fn json(&self) -> String {
        let paper = self.paper.map_or("null".to_string(), json_string);
        format!(
            "{{\"case\":{},\"quantity\":{},\"paper\":{paper},\"reference\":{},\"value\":{},\
             \"rel_err\":{},\"tolerance\":{},\"pass\":{}}}",
            json_string(self.case),
            json_string(&self.quantity),
            json_number(self.reference),
            json_number(self.value),
            json_number(self.rel_err()),
            json_number(self.tolerance()),
            self.passes()
        )
    }
}

/// The time of the `k`-th event in a solve's log; NaN if the solve found fewer events, so that
/// the row of a missing event fails.
pub fn event_time<const NY: usize>(events: &[Event<NY>], k: usize) -> f64 {
    events.get(k).map_or(f64::NAN, |event| event.t)
}

/// The rows of a solve's event log against the reference event times: how many events there
/// are (exact, the row "number of `events_called`", say "number of impacts"), then their times
/// `t1, t2, …`, each within `time_bound`.
pub fn event_rows<const NY: usize>(
    case: &'static str,
    events_called: &str,
    reference_times: &[f64],
    events: &[Event<NY>],
    time_bound: Bound,
) -> Vec<Row> {
    let quantity = format!("number of {events_called}");
    let count = Row::count(case, quantity, reference_times.len(), events.len());
    let times = reference_times.iter().enumerate().map(|(k, &reference)| {
        let quantity = format!("t{}", k + 1);
        Row::new(case, quantity, reference, event_time(events, k), time_bound)
    });
    std::iter::once(count).chain(times).collect()
}

/// The column headers.
const HEADERS: [&str; 8] = [
    "case",
    "quantity",
    "paper",
    "reference",
    "hysens",
    "rel. error",
    "tolerance",
    "pass/fail",
];

/// The rows as a text table with aligned columns.
pub fn text(rows: &[Row]) -> String {
    let cells: Vec<[String; 8]> = rows.iter().map(Row::cells).collect();
    let mut widths = HEADERS.map(|h| h.chars().count());
    for row in &cells {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell}{}", " ".repeat(width - cell.chars().count())))
            .collect();
        padded.join("  ").trim_end().to_string() + "\n"
    };
    let mut out = line(&HEADERS.map(String::from));
    for row in &cells {
        out += &line(row);
    }
    out
}

/// The rows as a Markdown table.
pub fn markdown(rows: &[Row]) -> String {
    let line = |cells: &[String]| format!("| {} |\n", cells.join(" | "));
    let mut out = line(&HEADERS.map(String::from));
    out += &line(&["---", "---", "--:", "--:", "--:", "--:", "--:", "---"].map(String::from));
    for row in rows {
        out += &line(&row.cells());
    }
    out
}

/// The rows as JSON lines.
pub fn json_lines(rows: &[Row]) -> String {
    rows.iter().map(|row| row.json() + "\n").collect()
}

/// Every digit of a value (the shortest representation that reads back the same `f64`), in
/// scientific notation when it is small or large.
fn full(x: f64) -> String {
    if x == 0.0 || (1e-3..1e6).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// Two significant digits, for errors and tolerances.
fn short(x: f64) -> String {
    if x == 0.0 {
        "0".to_string()
    } else {
        format!("{x:.1e}")
    }
}

/// A JSON number (`null` for a value that is not finite, which JSON cannot represent).
fn json_number(x: f64) -> String {
    if x.is_finite() {
        format!("{x:e}")
    } else {
        "null".to_string()
    }
}

/// A JSON string, with quotes, backslashes and control characters escaped.
fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out += "\\\"",
            '\\' => out += "\\\\",
            c if (c as u32) < 0x20 => out += &format!("\\u{:04x}", c as u32),
            c => out.push(c),
        }
    }
    out + "\""
}
