//! A Jacobian kernel computes exactly the structural nonzeros.
//!
//! The sparsity pattern is computed afresh from the vector case (not taken from the kernel), and
//! compared with the assignments in the emitted code and with what the compiled kernel writes.

use hysens_symbolic::{parse_str, Graph, Scope, Sparsity};
use hysens_symbolic_emit_check::cases::{vector_cases, VectorCase};
use hysens_symbolic_emit_check::generate::kernels;
use hysens_symbolic_emit_check::inspect::{flatten, matrix_assignments};
use hysens_symbolic_emit_check::registry::COMPILED;
use hysens_symbolic_emit_check::sample;

fn sparsity(case: &VectorCase) -> Sparsity {
    let mut g = Graph::new();
    let names: Vec<String> = (0..case.domain.len()).map(|k| format!("x{k}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let scope = Scope::with_variables(&mut g, &names);
    let rows: Vec<_> = case
        .rows
        .iter()
        .map(|r| parse_str(&mut g, &scope, r).expect("the case parses"))
        .collect();
    let vars: Vec<_> = names
        .iter()
        .map(|n| g.var_id(n).expect("declared"))
        .collect();
    g.jacobian(&rows, &vars).sparsity(&g)
}

#[test]
fn the_emitted_jacobian_assigns_each_structural_nonzero_once() {
    let all = kernels();
    for case in vector_cases() {
        let pattern = sparsity(&case);
        assert!(
            pattern.nonzeros.len() < pattern.rows * pattern.cols,
            "{}: the case should have structural zeros",
            case.name
        );
        let name = format!("{}_jacobian", case.name);
        let kernel = all.iter().find(|k| k.name == name).expect("emitted");
        let assigned = matrix_assignments(&flatten(&kernel.body));
        assert_eq!(assigned, pattern.nonzeros, "{}", kernel.body);
    }
}

#[test]
fn the_compiled_jacobian_writes_only_structural_nonzeros() {
    for case in vector_cases() {
        let pattern = sparsity(&case);
        let name = format!("{}_jacobian", case.name);
        let compiled = COMPILED.iter().find(|c| c.name == name).expect("compiled");
        for x in sample::points(&case.domain, 8) {
            let mut jac = vec![f64::NAN; pattern.rows * pattern.cols];
            (compiled.call)(&x, &mut jac);
            for i in 0..pattern.rows {
                for j in 0..pattern.cols {
                    let structural = pattern.nonzeros.contains(&(i, j));
                    let written = !jac[i * pattern.cols + j].is_nan();
                    assert_eq!(written, structural, "{name}: entry ({i}, {j}) at {x:?}");
                }
            }
        }
    }
}
