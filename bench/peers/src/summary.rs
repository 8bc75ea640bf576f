//! The short table the top-level README quotes: per case, hysens' baseline tableau next to
//! diffsol's fastest method of the same run, with both errors, so the README's numbers are
//! regenerated from one run (`update_readme.sh`) instead of being copied by hand.

use std::fmt::Write;

use crate::case::Case;
use crate::metrics::{sens_error, state_error};
use crate::runners::Runner;
use crate::timing::Cell;

/// One measured cell: median µs and the errors of its states and sensitivities.
struct Measured<'a> {
    micros: f64,
    state_error: f64,
    sens_error: f64,
    method: &'a str,
}

/// The README table: `| problem | hysens µs (errors) | diffsol fastest µs (method, errors) |
/// ratio |`, one row per case of `cases` with a successful hysens baseline. The ratio is
/// diffsol's fastest median over hysens' baseline median, each at its own error (the errors
/// are printed so a reader sees whether the faster tool was also the less accurate one).
pub fn readme_table(cases: &[Case], runners: &[Box<dyn Runner>], cells: &[Cell]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| problem | hysens µs | errors (states, sens.) | diffsol fastest µs | errors (states, sens.) | ratio |"
    );
    let _ = writeln!(out, "|---|---:|---|---:|---|---:|");
    for case in cases {
        let of_case = || {
            runners
                .iter()
                .zip(cells)
                .filter(move |(r, _)| r.case().id == case.id)
        };
        let hysens = of_case()
            .filter(|(r, _)| r.is_baseline())
            .find_map(|(r, c)| measured(case, r.as_ref(), c));
        let peer = of_case()
            .filter(|(r, _)| r.tool().starts_with("diffsol"))
            .filter_map(|(r, c)| measured(case, r.as_ref(), c))
            .min_by(|a, b| a.micros.total_cmp(&b.micros));
        let Some(h) = hysens else { continue };
        let (peer_time, peer_errors, ratio) = match &peer {
            Some(d) => (
                format!("{:.0} ({})", d.micros, d.method),
                errors(d),
                format!("{:.1}×", d.micros / h.micros),
            ),
            None => ("failed".into(), "—".into(), "—".into()),
        };
        let _ = writeln!(
            out,
            "| {} {} | {:.0} | {} | {} | {} | {} |",
            case.id,
            case.title,
            h.micros,
            errors(&h),
            peer_time,
            peer_errors,
            ratio
        );
    }
    out
}

fn measured<'a>(case: &Case, runner: &'a dyn Runner, cell: &Cell) -> Option<Measured<'a>> {
    let solution = cell.result.as_ref().ok()?;
    Some(Measured {
        micros: cell.median()?.as_secs_f64() * 1e6,
        state_error: state_error(case, solution),
        sens_error: sens_error(case, solution).0,
        method: runner.method(),
    })
}

fn errors(m: &Measured) -> String {
    format!("{:.0e}, {:.0e}", m.state_error, m.sens_error)
}
