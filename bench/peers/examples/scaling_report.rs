//! The scaling benchmark's report: reads the JSON lines `scaling.sh` collected (one per tool,
//! size and mode, with the peak RSS of its process added), prints the markdown tables of
//! `BENCHMARKS.md` (time and memory per size, the same-run ratio, the growth exponents between
//! consecutive sizes) and draws time against `N` on log–log axes.
//!
//! Run: `cargo run --release --example scaling_report -- RESULTS.jsonl OUT.svg`.

#[path = "shared/log_plot.rs"]
mod log_plot;

use plotters::prelude::*;

/// One cell of the benchmark.
struct Cell {
    tool: String,
    n: f64,
    mode: String,
    seconds: f64,
    steps: f64,
    rss_mb: f64,
}

/// The value of `"key":` in a flat JSON line (numbers and strings only, as the probes write).
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let start = line.find(&format!("\"{key}\":"))? + key.len() + 3;
    let rest = &line[start..];
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    Some(rest[..end].trim_matches('"'))
}

fn number(line: &str, key: &str) -> f64 {
    field(line, key)
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let input = args.next().expect("RESULTS.jsonl");
    let svg = args.next().expect("OUT.svg");
    let text = std::fs::read_to_string(&input)?;
    let cells: Vec<Cell> = text
        .lines()
        .filter(|l| l.starts_with('{') && field(l, "median_s").is_some())
        .map(|l| Cell {
            tool: field(l, "tool").unwrap_or("?").to_string(),
            n: number(l, "n"),
            mode: field(l, "mode").unwrap_or("?").to_string(),
            seconds: number(l, "median_s"),
            steps: number(l, "steps"),
            rss_mb: number(l, "rss_mb"),
        })
        .collect();
    let mut tools: Vec<&str> = cells.iter().map(|c| c.tool.as_str()).collect();
    tools.dedup();
    tools.sort();
    tools.dedup();
    let mut sizes: Vec<f64> = cells.iter().map(|c| c.n).collect();
    sizes.sort_by(f64::total_cmp);
    sizes.dedup();
    let modes = ["plain", "fsa", "adjoint"];
    let find = |tool: &str, n: f64, mode: &str| {
        cells
            .iter()
            .find(|c| c.tool == tool && c.n == n && c.mode == mode && c.seconds.is_finite())
    };

    let heads: Vec<String> = tools.iter().map(|t| format!("{t} (s)")).collect();
    println!(
        "| N | mode | {} | ratio | steps | peak RSS (MB) |",
        heads.join(" | ")
    );
    println!("|---:|---|{}---:|---|---|", "---:|".repeat(tools.len()));
    for &n in &sizes {
        for mode in modes {
            let found: Vec<Option<&Cell>> = tools.iter().map(|t| find(t, n, mode)).collect();
            if found.iter().all(Option::is_none) {
                continue;
            }
            let show = |c: &Option<&Cell>, f: fn(&Cell) -> String| c.map_or("—".to_string(), f);
            let times: Vec<String> = found
                .iter()
                .map(|c| show(c, |c| format!("{:.3e}", c.seconds)))
                .collect();
            let ratio = match (
                found.first().copied().flatten(),
                found.last().copied().flatten(),
            ) {
                (Some(a), Some(b)) if tools.len() == 2 => format!("{:.2}", a.seconds / b.seconds),
                _ => "—".into(),
            };
            let steps: Vec<String> = found
                .iter()
                .map(|c| show(c, |c| format!("{}", c.steps)))
                .collect();
            let rss: Vec<String> = found
                .iter()
                .map(|c| show(c, |c| format!("{:.0}", c.rss_mb)))
                .collect();
            println!(
                "| {n} | {mode} | {} | {ratio} | {} | {} |",
                times.join(" | "),
                steps.join(" / "),
                rss.join(" / ")
            );
        }
    }
    println!(
        "\nratio = {} / {} (same run).",
        tools.first().unwrap_or(&"?"),
        tools.last().unwrap_or(&"?")
    );

    println!("\nGrowth exponents `log(t₂/t₁)/log(N₂/N₁)` between consecutive sizes:\n");
    println!(
        "| tool | mode | {} |",
        sizes
            .windows(2)
            .map(|w| format!("{}→{}", w[0], w[1]))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|---|---|{}", "---:|".repeat(sizes.len().saturating_sub(1)));
    for tool in &tools {
        for mode in modes {
            let exps: Vec<String> = sizes
                .windows(2)
                .map(|w| match (find(tool, w[0], mode), find(tool, w[1], mode)) {
                    (Some(a), Some(b)) => {
                        format!("{:.2}", (b.seconds / a.seconds).ln() / (w[1] / w[0]).ln())
                    }
                    _ => "—".into(),
                })
                .collect();
            if exps.iter().any(|e| e != "—") {
                println!("| {tool} | {mode} | {} |", exps.join(" | "));
            }
        }
    }

    let (ymin, ymax) = cells
        .iter()
        .filter(|c| c.seconds.is_finite())
        .fold((f64::MAX, f64::MIN), |(lo, hi), c| {
            (lo.min(c.seconds), hi.max(c.seconds))
        });
    let root = SVGBackend::new(&svg, (900, 620)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Heated rod with a thermostat: time per solve against the number of cells",
            ("sans-serif", 20),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(
            (sizes[0] / 1.5..sizes[sizes.len() - 1] * 1.5).log_scale(),
            (ymin / 2.0..ymax * 2.0).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_desc("N (cells = states)")
        .y_desc("median time per solve [s]")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0e}"))
        .draw()?;
    // One colour per mode; hysens thick with filled markers, the other tool thin and hollow;
    // with both of hysens' storages, the dense one faded.
    let colours = [BLUE, RGBColor(230, 120, 0), RGBColor(150, 30, 170)];
    let fade_dense = tools.contains(&"hysens-sparse") && tools.contains(&"hysens-dense");
    for tool in &tools {
        let alpha = if fade_dense && *tool == "hysens-dense" { 0.35 } else { 1.0 };
        for (mode, colour) in modes.iter().zip(colours) {
            let data: Vec<(f64, f64)> = sizes
                .iter()
                .filter_map(|&n| find(tool, n, mode).map(|c| (n, c.seconds)))
                .collect();
            if data.is_empty() {
                continue;
            }
            let label = format!("{tool} {mode}");
            log_plot::draw_line(
                &mut chart,
                &label,
                &data,
                colour.mix(alpha),
                tool.starts_with("hysens"),
            )?;
        }
    }
    log_plot::draw_legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
    root.present()?;
    Ok(())
}
