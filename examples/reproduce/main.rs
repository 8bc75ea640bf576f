//! Every published number hysens reproduces, in one table: Serban & Recuero's Examples 5.1
//! and 5.2, the project's memory toy, Robertson's kinetics, the bouncing ball against its
//! closed form, and Corner, Sandu & Sandu's five-bar mechanism (reconstructed).
//!
//! Each row gives the case, the quantity, the paper's value as printed ("—" where the paper
//! prints none), the high-precision reference (a closed form or an independent high-precision
//! reference solve, never a value that rests on an erratum of the paper), the value hysens
//! computes now, its relative error against the reference, the tolerance and pass/fail. The
//! tolerance of a row is the one the test suite asserts for the same quantity at the same
//! settings (each case's module names the test), so this table and `cargo test` agree; the
//! references are constants with their source in each case's module.
//!
//! ```sh
//! cargo run --release -p hysens-examples --example reproduce              # aligned text
//! cargo run --release -p hysens-examples --example reproduce -- --markdown  # README's table
//! cargo run --release -p hysens-examples --example reproduce -- --json      # JSON, for CI
//! ```
//!
//! The aligned text starts with the models (`model: …`); `--markdown` and `--json` print the
//! table alone. The exit status is nonzero if any row fails (or a solve fails).

use std::process::ExitCode;

mod table;

mod ball;
mod ex51;
mod ex52;
mod five_bar;
mod memory_toy;
mod robertson;
mod stiff;

// The models, one file each; the tests include the same files by `#[path]`.
#[path = "../bouncing_ball/model.rs"]
mod ball_model;
#[path = "../quickstart/model.rs"]
mod ex51_model;
#[path = "../five_bar/model.rs"]
mod five_bar_model;
#[path = "../five_bar/reference.rs"]
mod five_bar_reference;
#[path = "models/memory_toy.rs"]
mod memory_toy_model;
#[path = "../robertson/model.rs"]
mod robertson_model;
#[path = "../robertson/reference.rs"]
mod robertson_reference;
#[path = "../steel_hysteresis/model.rs"]
mod steel_model;
#[path = "models/stiff.rs"]
mod stiff_model;

/// How to print the table.
enum Format {
    Text,
    Markdown,
    Json,
}

/// The format chosen on the command line.
fn format_from_args() -> Result<Format, String> {
    let mut format = Format::Text;
    for arg in std::env::args().skip(1) {
        format = match arg.as_str() {
            "--markdown" => Format::Markdown,
            "--json" => Format::Json,
            other => {
                return Err(format!(
                    "unknown argument {other:?} (use --markdown or --json)"
                ))
            }
        };
    }
    Ok(format)
}

/// The models of the cases, for the aligned text: those with an example of their own are
/// solved as there (its `model:` lines give the equations); the memory toy has none.
fn print_models() {
    println!(
        "model: S&R Ex. 5.1, Ex. 5.2 (EM steel), Robertson, the bouncing ball and the five-bar, as \
         their examples solve them (quickstart, steel_hysteresis, robertson, bouncing_ball, five_bar);"
    );
    println!(
        "       the memory toy: y1' = 1, y2' = -p1 (y2 - y2*) + 1 from y = 0, y2* = y2 at the last \
         mode entry (the start, then the switch when y1 rises through p2); G = ∫₀³ y2 dt"
    );
    println!();
}

/// Every row, case by case.
fn all_rows() -> Result<Vec<table::Row>, Box<dyn std::error::Error>> {
    let cases = [
        ex51::rows,
        ex52::rows,
        memory_toy::rows,
        robertson::rows,
        stiff::rows,
        ball::rows,
        five_bar::rows,
    ];
    let mut rows = Vec::new();
    for case in cases {
        rows.extend(case()?);
    }
    Ok(rows)
}

fn main() -> ExitCode {
    let format = match format_from_args() {
        Ok(format) => format,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    if let Format::Text = format {
        print_models();
    }
    let rows = match all_rows() {
        Ok(rows) => rows,
        Err(error) => {
            eprintln!("a solve failed: {error}");
            return ExitCode::FAILURE;
        }
    };
    print!(
        "{}",
        match format {
            Format::Text => table::text(&rows),
            Format::Markdown => table::markdown(&rows),
            Format::Json => table::json_lines(&rows),
        }
    );
    let failed = rows.iter().filter(|row| !row.passes()).count();
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        eprintln!("{failed} of {} rows outside their tolerance", rows.len());
        ExitCode::FAILURE
    }
}
