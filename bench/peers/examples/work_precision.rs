//! Work–precision: median wall time of one solve (with forward sensitivities) against its
//! error, as rtol sweeps 1e-4 … 1e-10 (hysens also at 5e-5, 2e-5, 5e-6, …), for every runner
//! of the benchmark (hysens' tableaus, diffsol's BDF, ESDIRK34, TR-BDF2). atol keeps the
//! case's ratio to rtol (P1: atol = rtol/100, P3: atol = rtol·1e-4, P4: rtol/100).
//!
//! Run: `cargo run --release --example work_precision -- [CASES] [--budget S] [--out DIR]`
//! (default `P1,P3a`, 0.1 s per point, `DIR = bench/peers/target/work_precision`).
//! Prints one markdown table per case and writes `DIR/work_precision_<case>.svg`.
//!
//! The errors are those of the main table (`src/metrics.rs`); the plot's x axis is
//! `max(err states, err sens)`. All points of a case are timed interleaved (`src/timing.rs`,
//! `budget` per point), so the machine's drift is spread over all tools. After each table, the
//! equal-accuracy comparison: for every point of another tool, the fastest hysens point with
//! both errors at most that point's, and the time ratio.

use std::time::Duration;

use hysens_peers::case::Case;
use hysens_peers::metrics::{sens_error, state_error};
use hysens_peers::{problems, runners, timing};
use plotters::prelude::*;

#[path = "shared/log_plot.rs"]
mod log_plot;

struct Point {
    rtol: f64,
    micros: f64,
    err_states: f64,
    err_sens: f64,
    steps: usize,
}

fn main() {
    let mut ids = vec!["P1".to_string(), "P3a".to_string()];
    let mut budget = 0.1;
    let mut out = std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/target/work_precision"
    ));
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--budget" => budget = timing::budget_argument(&mut args, "--budget S"),
            "--out" => out = args.next().expect("--out DIR").into(),
            list => ids = list.split(',').map(String::from).collect(),
        }
    }
    std::fs::create_dir_all(&out).expect("create the output directory");
    for id in &ids {
        let base = problems::all()
            .into_iter()
            .find(|c| c.id == id.as_str())
            .unwrap_or_else(|| panic!("unknown case {id}"));
        let series = sweep(&base, budget);
        print_table(&base, &series);
        print_equal_accuracy(&series);
        let path = out.join(format!("work_precision_{}.svg", base.id));
        plot(&base, &series, &path).expect("write the SVG");
        eprintln!("wrote {}", path.display());
    }
}

/// `(label, points)` per runner, in registry order (hysens first). All cells of the sweep
/// (every runner at every rtol) are timed interleaved by `timing::measure`, as the main table.
fn sweep(base: &Case, budget: f64) -> Vec<(String, Vec<Point>)> {
    let case_at = |rtol: f64| {
        let mut case = base.clone();
        case.rtol = rtol;
        case.atol = base.atol * rtol / base.rtol;
        case
    };
    let decades: Vec<Case> = (4..=10).map(|k| case_at(10f64.powi(-k))).collect();
    // hysens also between the decades (×0.5, ×0.2), so that "the fastest hysens point at
    // least as accurate as diffsol's" is not quantized to a whole decade of rtol.
    let between: Vec<Case> = (4..10)
        .flat_map(|k| [0.5, 0.2].map(|f| case_at(f * 10f64.powi(-k))))
        .collect();
    let mut runners = runners::registry(&decades);
    runners.extend(
        runners::registry(&between)
            .into_iter()
            .filter(|r| r.tool() == "hysens"),
    );
    let cells = timing::measure(&runners, Duration::from_secs_f64(budget));
    let mut series: Vec<(String, Vec<Point>)> = Vec::new();
    for (r, cell) in runners.iter().zip(&cells) {
        let label = format!("{} {}", r.tool(), r.method());
        let (Ok(sol), Some(median)) = (&cell.result, cell.median()) else {
            eprintln!(
                "{} rtol {:.0e} {label}: no result",
                r.case().id,
                r.case().rtol
            );
            continue;
        };
        let point = Point {
            rtol: r.case().rtol,
            micros: median.as_secs_f64() * 1e6,
            err_states: state_error(r.case(), sol),
            err_sens: sens_error(r.case(), sol).0,
            steps: sol.steps.unwrap_or(0),
        };
        match series.iter_mut().find(|(l, _)| *l == label) {
            Some((_, points)) => points.push(point),
            None => series.push((label, vec![point])),
        }
    }
    for (_, points) in &mut series {
        points.sort_by(|a, b| b.rtol.total_cmp(&a.rtol));
    }
    series
}

/// For every point of every other tool: the fastest hysens point (any hysens runner) whose
/// errors are both at most that point's, and the time ratio (other / hysens). This is the
/// "equal or better accuracy" comparison of the target.
fn print_equal_accuracy(series: &[(String, Vec<Point>)]) {
    println!("\n| other tool / method | rtol | µs | err states / sens | fastest hysens at ≤ both errors | µs | ratio |");
    println!("|---|---:|---:|---|---|---:|---:|");
    let hysens: Vec<(&str, &Point)> = series
        .iter()
        .filter(|(l, _)| l.starts_with("hysens"))
        .flat_map(|(l, ps)| ps.iter().map(move |p| (l.as_str(), p)))
        .collect();
    for (label, points) in series.iter().filter(|(l, _)| !l.starts_with("hysens")) {
        for p in points {
            let best = hysens
                .iter()
                .filter(|(_, h)| h.err_states <= p.err_states && h.err_sens <= p.err_sens)
                .min_by(|a, b| a.1.micros.total_cmp(&b.1.micros));
            let (who, micros, ratio) = match best {
                Some((l, h)) => (
                    format!("{l} rtol {:.1e}", h.rtol),
                    format!("{:.1}", h.micros),
                    format!("{:.1}×", p.micros / h.micros),
                ),
                None => ("none".into(), "–".into(), "–".into()),
            };
            println!(
                "| {label} | {:.0e} | {:.1} | {:.1e} / {:.1e} | {who} | {micros} | {ratio} |",
                p.rtol, p.micros, p.err_states, p.err_sens
            );
        }
    }
}

fn print_table(case: &Case, series: &[(String, Vec<Point>)]) {
    println!(
        "\n### {} — {} (atol = rtol · {:.0e})\n",
        case.id,
        case.title,
        case.atol / case.rtol
    );
    println!("| tool / method | rtol | median µs | steps | err states | err sens |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (label, points) in series {
        for p in points {
            println!(
                "| {label} | {:.1e} | {:.1} | {} | {:.1e} | {:.1e} |",
                p.rtol, p.micros, p.steps, p.err_states, p.err_sens
            );
        }
    }
}

fn plot(
    case: &Case,
    series: &[(String, Vec<Point>)],
    path: &std::path::Path,
) -> Result<(), Box<dyn std::error::Error>> {
    let err = |p: &Point| p.err_states.max(p.err_sens).max(1e-16);
    let all: Vec<&Point> = series
        .iter()
        .flat_map(|(_, p)| p)
        .filter(|p| err(p).is_finite())
        .collect();
    let (mut xmin, mut xmax, mut ymin, mut ymax) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for p in &all {
        xmin = xmin.min(err(p));
        xmax = xmax.max(err(p));
        ymin = ymin.min(p.micros);
        ymax = ymax.max(p.micros);
    }
    let root = SVGBackend::new(path, (900, 620)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!(
                "{} {}: work-precision, rtol 1e-4 … 1e-10, with FSA",
                case.id, case.title
            ),
            ("sans-serif", 20),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(
            (xmin / 2.0..xmax * 2.0).log_scale(),
            (ymin / 1.5..ymax * 1.5).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_desc("error = max(err states, err sens) vs reference")
        .y_desc("median time per solve [µs]")
        .x_label_formatter(&|x| format!("{x:.0e}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()?;
    for (i, (label, points)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let data: Vec<(f64, f64)> = points
            .iter()
            .filter(|p| err(p).is_finite())
            .map(|p| (err(p), p.micros))
            .collect();
        log_plot::draw_line(&mut chart, label, &data, color, label.starts_with("hysens"))?;
    }
    log_plot::draw_legend(&mut chart, SeriesLabelPosition::UpperRight)?;
    root.present()?;
    Ok(())
}
