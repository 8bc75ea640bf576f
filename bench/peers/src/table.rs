//! The markdown report: the main table (one row per case × tool/method), a table of one key
//! sensitivity per case printed verbatim, and the Notes section (references, metric, settings).

use std::fmt::Write;

use crate::case::Case;
use crate::metrics::{sens_error, state_error};
use crate::runners::Runner;
use crate::timing::Cell;

/// Render the whole report. `cells[k]` belongs to `runners[k]`; rows keep the case order of
/// `cases` and, within a case, the registry order (hysens first).
pub fn render(
    cases: &[Case],
    runners: &[Box<dyn Runner>],
    cells: &[Cell],
    budget_s: f64,
) -> String {
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(
        w,
        "| case | problem | tool / method | median µs | runs | steps | f evals | err states | err sens (worst) | ratio to hysens |"
    );
    let _ = writeln!(w, "|---|---|---|---:|---:|---:|---:|---:|---|---:|");
    for case in cases {
        let rows: Vec<usize> = (0..runners.len())
            .filter(|&k| runners[k].case().id == case.id)
            .collect();
        let baseline = rows
            .iter()
            .find(|&&k| runners[k].is_baseline())
            .and_then(|&k| cells[k].median());
        for &k in &rows {
            let (r, c) = (&runners[k], &cells[k]);
            let name = format!("{} {}", r.tool(), r.method());
            match &c.result {
                Err(e) => {
                    let _ = writeln!(
                        w,
                        "| {} | {} | {} | — | — | — | — | — | FAILED: {} | — |",
                        case.id,
                        case.title,
                        name,
                        e.replace('|', "\\|").replace('\n', " ")
                    );
                }
                Ok(sol) => {
                    let med = c.median();
                    let (es, (j, i)) = sens_error(case, sol);
                    let worst = format!(
                        "{} (d{}/d{})",
                        sci(es),
                        case.outputs.get(i).unwrap_or(&"?"),
                        case.param_names.get(j).unwrap_or(&"?")
                    );
                    let ratio = match (med, baseline) {
                        (Some(m), Some(b)) => format!("{:.2}", m.as_secs_f64() / b.as_secs_f64()),
                        _ => "—".into(),
                    };
                    let _ = writeln!(
                        w,
                        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                        case.id,
                        case.title,
                        name,
                        med.map(|m| format!("{:.1}", m.as_secs_f64() * 1e6))
                            .unwrap_or("—".into()),
                        c.samples.len(),
                        opt(sol.steps),
                        opt(sol.f_evals),
                        sci(state_error(case, sol)),
                        worst,
                        ratio
                    );
                }
            }
        }
    }

    let _ = writeln!(w, "\nKey sensitivities, verbatim:\n");
    let _ = writeln!(
        w,
        "| case | sensitivity | reference | tool / method | value | rel. error |"
    );
    let _ = writeln!(w, "|---|---|---:|---|---:|---:|");
    for case in cases {
        let Some((j, i, label)) = case.key_sens else {
            continue;
        };
        let reference = case.reference.sens[j][i];
        for (r, c) in runners
            .iter()
            .zip(cells)
            .filter(|(r, _)| r.case().id == case.id)
        {
            let (value, rel) = match &c.result {
                Ok(sol) if sol.sens.len() > j && sol.sens[j].len() > i => {
                    let v = sol.sens[j][i];
                    (
                        format!("{v:.10e}"),
                        sci((v - reference).abs() / reference.abs()),
                    )
                }
                Ok(_) => ("shape mismatch".into(), "—".into()),
                Err(_) => ("failed".into(), "—".into()),
            };
            let _ = writeln!(
                w,
                "| {} | {} | {:.10e} | {} {} | {} | {} |",
                case.id,
                label,
                reference,
                r.tool(),
                r.method(),
                value,
                rel
            );
        }
    }

    let _ = writeln!(w, "\nNotes:");
    let _ = writeln!(
        w,
        "* median µs: median wall time of one complete solve (problem set-up, solver creation, integration with forward sensitivities), `runs` timed solves per cell, interleaved round-robin over all cells, ~{budget_s} s per cell."
    );
    let _ = writeln!(
        w,
        "* err states = max_i |a_i − r_i| / (|r_i| + atol); err sens = max_ij |p_j (a_ij − r_ij)| / (|p_j r_ij| + atol) on scaled sensitivities p_j ∂out_i/∂p_j, with the worst component named. atol is the case's."
    );
    let _ = writeln!(w, "* steps: accepted steps; f evals: right-hand-side calls (Jacobian-vector and parameter-Jacobian products of the sensitivity equations not included).");
    let _ = writeln!(w, "* ratio to hysens: median / median of the hysens row of the same case, the hysens ESDIRK4(3)6L[2]SA row (>1: hysens faster).");
    let _ = writeln!(
        w,
        "* Settings per case (rtol, atol): {}.",
        cases
            .iter()
            .map(|c| format!("{} ({:e}, {:e})", c.id, c.rtol, c.atol))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut sources: Vec<&str> = cases.iter().map(|c| c.reference.source).collect();
    sources.dedup();
    for s in sources {
        let _ = writeln!(w, "* reference {s}");
    }
    out
}

fn opt(x: Option<usize>) -> String {
    x.map(|v| v.to_string()).unwrap_or_else(|| "—".into())
}

/// Two significant digits in scientific notation; "NaN"/"inf" kept readable.
fn sci(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.1e}")
    } else {
        format!("{x}")
    }
}
