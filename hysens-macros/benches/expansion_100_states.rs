//! Expansion time of `#[hybrid_model]` on a 100-state model: parse, validate, lower,
//! differentiate every kernel, emit. The budget is 2 s.
//!
//! A proc-macro crate cannot be linked by a benchmark, so the pipeline's modules are compiled
//! into this benchmark directly.

// The benchmark calls only `pipeline::run`: the error path and the modules' unit tests
// (compiled out here) are unused.
#[path = "../src/args.rs"]
#[allow(dead_code, unused_imports)]
mod args;
#[path = "../src/comma_list.rs"]
#[allow(dead_code)]
mod comma_list;
#[path = "../src/expand/mod.rs"]
mod expand;
#[path = "../src/filippov.rs"]
mod filippov;
#[path = "../src/kernels.rs"]
mod kernels;
#[path = "../src/lower/mod.rs"]
mod lower;
#[path = "../src/model.rs"]
mod model;
#[path = "../src/parse/mod.rs"]
#[allow(dead_code, unused_imports)]
mod parse;
#[path = "../src/pipeline.rs"]
#[allow(dead_code)]
mod pipeline;
#[path = "../src/validate/mod.rs"]
mod validate;

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::time::Duration;

/// States in the benchmark model.
const N: usize = 100;

/// A 1-D reaction–diffusion line of `N` states with nonlinear kinetics in two modes (the
/// reaction switches off above a threshold of the first state), a guard and a reset: the
/// kind of model the issue asks to expand.
fn model_source() -> String {
    let fields: String = (0..N).map(|i| format!("pub u{i}: f64, ")).collect();
    let rhs = |reaction: &str| -> String {
        (0..N)
            .map(|i| {
                let left = if i == 0 {
                    "p.ul".to_owned()
                } else {
                    format!("x.u{}", i - 1)
                };
                let right = if i == N - 1 {
                    format!("x.u{}", i - 1)
                } else {
                    format!("x.u{}", i + 1)
                };
                format!(
                    "u{i}: p.d * ({left} - 2.0 * x.u{i} + {right}) * 1e4 {reaction}, ",
                    reaction = reaction.replace("U", &format!("x.u{i}"))
                )
            })
            .collect()
    };
    let on = rhs("+ p.k * U.powi(2) * (1.0 - U) - U / (1.0 + U.powi(2))");
    let off = rhs("- U / (1.0 + U.powi(2))");
    format!(
        "pub mod line {{
            #[states] pub struct X {{ {fields} }}
            #[params] pub struct P {{ pub d: f64, pub k: f64, pub ul: f64 }}
            #[mode(initial)] fn reacting(x: &X, p: &P) -> X {{ X {{ {on} }} }}
            #[mode] fn quenched(x: &X, p: &P) -> X {{ X {{ {off} }} }}
            #[guard(reacting -> quenched, rising)] fn hot(x: &X, _p: &P) -> f64 {{ x.u0 - 0.9 }}
            #[cost(integral)] fn mass(x: &X, _p: &P) -> f64 {{ x.u50.powi(2) }}
        }}"
    )
}

fn expansion(c: &mut Criterion) {
    let module: syn::ItemMod = syn::parse_str(&model_source()).expect("the benchmark model parses");
    let mut group = c.benchmark_group("hybrid_model");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(8));
    group.bench_function("expand_100_states", |b| {
        b.iter(|| {
            let tokens = pipeline::run(proc_macro2::TokenStream::new(), black_box(module.clone()))
                .unwrap_or_else(|_| panic!("the benchmark model is valid"));
            black_box(tokens.into_iter().count())
        })
    });
    group.finish();
}

criterion_group!(benches, expansion);
criterion_main!(benches);
