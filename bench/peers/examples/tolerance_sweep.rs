//! Probe: error of the diffsol runners of one case as the tolerances are tightened, to tell a
//! solver's error at the benchmark tolerance from a wrong reference or a wrong model.
//!
//! Run: `cargo run --release --example tolerance_sweep -- P4b` (any case id; default P4b).
//! rtol and atol are divided by 10^k, k = 0..4; the runners are the benchmark's own.

use hysens_peers::metrics::{sens_error, state_error};
use hysens_peers::{problems, runners};

fn main() {
    let id = std::env::args().nth(1).unwrap_or_else(|| "P4b".into());
    let base = problems::all()
        .into_iter()
        .find(|c| c.id == id)
        .expect("unknown case id");
    println!("{}: {}", base.id, base.title);
    for k in 0..5 {
        let mut case = base.clone();
        case.rtol /= 10f64.powi(k);
        case.atol /= 10f64.powi(k);
        for r in runners::diffsol::runners(std::slice::from_ref(&case)) {
            match r.run() {
                Ok(sol) => println!(
                    "rtol {:.0e} atol {:.0e} {:9} steps {:6}  err states {:.1e}  err sens {:.1e}",
                    case.rtol,
                    case.atol,
                    r.method(),
                    sol.steps.unwrap_or(0),
                    state_error(&case, &sol),
                    sens_error(&case, &sol).0
                ),
                Err(e) => println!("rtol {:.0e} {:9} failed: {e}", case.rtol, r.method()),
            }
        }
    }
}
