//! Benchmark: the compile-time cost of a 100-state model's Jacobian kernel.
//!
//! Acceptance: build + differentiate + simplify + CSE + emit the full Jacobian of a 100-state
//! coupled system in under 1 s. The model (a discretized 1-D reaction–diffusion line with
//! nonlinear kinetics) is described in `support/reaction_diffusion.rs`. Two measurements:
//!
//! - `full_pipeline`: from source text: a fresh [`hysens_symbolic::Graph`], parse all 100
//!   right-hand sides (simplification happens in the builder), the full `100 × 100` state and
//!   `100 × 2` parameter Jacobians, and CSE + emission of every structural nonzero;
//! - `differentiate_and_emit`: the same starting from an already parsed graph (cloned outside
//!   the timing).
//!
//! Each returns the number of emitted top-level tokens through `black_box`, so nothing is
//! optimized away. Sampling is kept short (10 samples, ~3 s each) so `cargo bench` stays well
//! under a minute.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};

#[path = "support/reaction_diffusion.rs"]
mod reaction_diffusion;

use reaction_diffusion::{build_kernel, differentiate_and_emit, parse_model, right_hand_sides};

fn jacobian_100_states(c: &mut Criterion) {
    let names = reaction_diffusion::variable_names();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let sources = right_hand_sides();

    c.bench_function("full_pipeline", |b| {
        b.iter(|| {
            let (_, kernel) = build_kernel(black_box(&names), black_box(&sources));
            black_box(kernel.code.into_iter().count())
        })
    });

    let parsed = parse_model(&names, &sources);
    c.bench_function("differentiate_and_emit", |b| {
        b.iter_batched(
            || parsed.clone(),
            |mut model| {
                let kernel = differentiate_and_emit(&mut model);
                // Touch the Jacobians too, so every part of the result is used.
                let nonzeros = kernel.jac.nonzeros(&model.graph).len()
                    + kernel.jac_p.nonzeros(&model.graph).len();
                black_box((kernel.code.into_iter().count(), nonzeros))
            },
            BatchSize::SmallInput,
        )
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = jacobian_100_states
}
criterion_main!(benches);
