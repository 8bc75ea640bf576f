//! The compiled kernels compute what `Graph::eval` computes.
//!
//! Each kernel of `generate::kernels()` is run through its compiled adapter and, on the same
//! inputs, its output expressions through `Graph::eval_many`. Both perform the same `f64`
//! operations in the same order: the emitter writes one Rust operation or `f64` method call
//! per node, eval applies the same operation or method per node, and Rust neither reassociates
//! nor contracts floating-point arithmetic into FMAs. The one allowed difference is a constant
//! `powi`, which LLVM may expand into a chain of multiplications (rounded differently from the
//! runtime `__powidf2` eval calls); that is an error of a few ulps in one node, and the cases'
//! domains keep it from being amplified by cancellation. Hence [`ULPS`].

use hysens_symbolic_emit_check::generate::{kernels, kernels_source, Kernel};
use hysens_symbolic_emit_check::registry::{Compiled, COMPILED};
use hysens_symbolic_emit_check::{sample, KERNELS_SOURCE};

/// Allowed relative difference, in units of `f64::EPSILON`: a few roundings of a `powi`
/// expanded by the optimizer (see the module docs). Observed on x86_64 with rustc 1.95: equal
/// bit for bit in both the dev and the release profile, so any difference at all is suspect.
const ULPS: f64 = 4.0;

/// Sample points per kernel.
const POINTS: usize = 16;

fn compiled(name: &str) -> &'static Compiled {
    COMPILED
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("kernel `{name}` was not compiled"))
}

/// Whether `a` and `b` agree to [`ULPS`] relative to the larger magnitude.
fn agree(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= ULPS * f64::EPSILON * a.abs().max(b.abs())
}

#[test]
fn the_compiled_source_is_the_rendering_of_these_kernels() {
    // So the graphs evaluated below are the very ones the compiled code was emitted from.
    assert_eq!(kernels_source(&kernels()), KERNELS_SOURCE);
    let names: Vec<String> = kernels().into_iter().map(|k| k.name).collect();
    let compiled: Vec<&str> = COMPILED.iter().map(|c| c.name).collect();
    assert_eq!(names, compiled);
}

#[test]
fn every_kernel_agrees_with_eval_at_every_sample_point() {
    for kernel in kernels() {
        check(&kernel);
    }
}

fn check(kernel: &Kernel) {
    let call = compiled(&kernel.name).call;
    let roots: Vec<_> = kernel.outputs.iter().map(|&(_, e)| e).collect();
    for input in sample::points(&kernel.domain, POINTS) {
        assert_eq!(input.len(), kernel.input_len());
        // NaN marks the slots the kernel must leave alone (a Jacobian's structural zeros).
        let mut out = vec![f64::NAN; kernel.output_len()];
        call(&input, &mut out);
        let expected = kernel
            .graph
            .eval_many(&roots, &kernel.variable_values(&input));
        for (&(slot, _), &want) in kernel.outputs.iter().zip(&expected) {
            let got = out[slot];
            assert!(
                want.is_finite(),
                "{}: slot {slot} is not finite at {input:?}; the case's domain is wrong",
                kernel.name
            );
            assert!(
                agree(got, want),
                "{}: slot {slot} at {input:?}: compiled {got:e}, eval {want:e}",
                kernel.name
            );
        }
        let written: Vec<usize> = kernel.outputs.iter().map(|&(slot, _)| slot).collect();
        for (slot, value) in out.iter().enumerate() {
            if !written.contains(&slot) {
                assert!(value.is_nan(), "{}: wrote slot {slot}", kernel.name);
            }
        }
    }
}
