//! Quickstart: Serban & Recuero's Example 5.1, a scalar ODE that switches its right-hand side
//! when `x³ − 5x² + 7x` crosses the parameter `p`, and the gradient of `G = ∫₀⁵ x dt` with
//! respect to `p` — exact across its three switches.
//!
//! Run with `cargo run --release --example quickstart`.

use hysens::runtime::{EventRecord, HybridOptions, HybridOutputs, HybridSolution};

mod model;
use model::ex51;

fn main() {
    let model = ex51::Model;
    let problem = ex51::Model::problem(0.0, 5.0, &ex51::X { x: 0.0 }, &ex51::P { p: 2.9 });
    let options = HybridOptions::new(1e-8, 1e-10);
    let mut events = [EventRecord::ZERO; 8];
    let mut outputs = HybridOutputs {
        samples: &mut [],
        events: Some(&mut events),
        steps: None,
    };
    let mut solution = HybridSolution::ZERO;
    if let Err(e) = model.solve_with_sensitivities(&problem, &options, &mut outputs, &mut solution)
    {
        eprintln!("the solve failed: {e}");
        std::process::exit(1);
    }

    println!("Serban & Recuero Example 5.1, p = 2.9, rtol 1e-8, atol 1e-10 (ESDIRK4(3)6L[2]SA)");
    for e in &events[..solution.n_events] {
        let (from, to) = (ex51_mode(e.from), ex51_mode(e.to));
        println!(
            "  switch {from} -> {to} at t = {:.15}, dt/dp = {:.12}",
            e.t, e.tau[0]
        );
    }
    println!("x(5) = {:.15}", solution.y[0]);
    println!("dx(5)/dp = {:.15e}", solution.sy[0][0]);
    println!("dG/dp = {:.15}", solution.cost_gradient[0]);
    println!("G = {:.15}", solution.cost);
    println!(
        "steps {}, rejected {}, f evaluations {}, Jacobians {}, LU factorizations {}, Newton iterations {}",
        solution.stats.steps,
        solution.stats.rejected_steps,
        solution.stats.f_evals,
        solution.stats.jacobian_evals,
        solution.stats.lu_factorizations,
        solution.stats.newton_iterations,
    );
    println!("reference (closed form, note 000 §4.1): G = 20.029074653359594, dG/dp = -2.3119531074438905");
}

/// The name of a mode of `ex51`.
fn ex51_mode(mode: usize) -> &'static str {
    use hysens::runtime::HybridModel;
    <ex51::Model as HybridModel<1, 0, 1>>::MODES
        .get(mode)
        .map_or("?", |m| m.name)
}
