//! Side-by-side benchmark of hysens and peer solvers (diffsol 0.18) on hybrid and stiff
//! problems with forward sensitivities. Prints one markdown report on stdout (progress on
//! stderr). See README.md for the problems, settings and how to plug in a runner.
//!
//! Usage: `hysens-peers [--budget SECONDS] [--cases P1,P3a,...] [--summary PATH]`
//! * `--budget`: target time per cell (default 1.0 s; see `timing.rs`);
//! * `--cases`: only these case ids (default: all);
//! * `--summary PATH`: also write the README's short table of the same run to `PATH`.

use std::time::{Duration, Instant};

use hysens_peers::{problems, runners, summary, table, timing};

fn main() {
    let mut budget = 1.0_f64;
    let mut only: Option<Vec<String>> = None;
    let mut summary_path: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--budget" => budget = timing::budget_argument(&mut args, "--budget SECONDS"),
            "--cases" => {
                only = Some(
                    args.next()
                        .expect("--cases P1,P2")
                        .split(',')
                        .map(String::from)
                        .collect(),
                )
            }
            "--summary" => summary_path = Some(args.next().expect("--summary PATH")),
            _ => {
                eprintln!(
                    "usage: hysens-peers [--budget SECONDS] [--cases P1,P3a,...] [--summary PATH]"
                );
                std::process::exit(2);
            }
        }
    }
    let cases: Vec<_> = problems::all()
        .into_iter()
        .filter(|c| only.as_ref().is_none_or(|o| o.iter().any(|id| id == c.id)))
        .collect();
    let runners = runners::registry(&cases);
    let start = Instant::now();
    let cells = timing::measure(&runners, Duration::from_secs_f64(budget));
    eprintln!(
        "measured {} cells in {:.1} s",
        cells.len(),
        start.elapsed().as_secs_f64()
    );
    print!("{}", table::render(&cases, &runners, &cells, budget));
    if let Some(path) = summary_path {
        let short = summary::readme_table(&cases, &runners, &cells);
        std::fs::write(&path, short).unwrap_or_else(|e| panic!("writing {path}: {e}"));
    }
}
