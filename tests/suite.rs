//! The facade's integration tests: one module per file of `tests/`, in one test binary.
//!
//! One binary instead of one per file, because each binary expanded, type-checked and linked
//! the shared support files it included (`support/models.rs` was compiled into 20 binaries,
//! `support/event_models.rs` into 18): compiling these tests took 140 s on 2 cores, 92 s as one
//! binary, and one harness runs them all in parallel (the trybuild cases beside the rest), 67 s
//! instead of ~170 s one binary after the other. Run one file's tests by its module path:
//! `cargo test -p hysens --test suite pendulum_wall::`.
//!
//! The support files are declared here once, by the names the test modules `use`
//! (`crate::models`, …). Two test binaries stay apart: `batch_alloc.rs` counts the allocations
//! of every thread, so nothing else may run beside it (`harness = false`), and
//! `event_semantics/` is a crate of its own modules and macros (`crate::harness`, `$crate::…`).
//!
//! `support/counting_alloc.rs` installs the counting global allocator for the whole binary; the
//! tests that count (`zero_alloc`, `outputs`, the sliding tests) count their own thread's.

#[path = "support/adjoint.rs"]
mod adjoint_checks;
#[path = "support/closed_form.rs"]
mod closed_form;
#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/counting_alloc.rs"]
mod counting_alloc;
#[path = "support/event_models.rs"]
mod event_models;
#[path = "support/filippov.rs"]
mod filippov;
#[path = "support/language_models.rs"]
mod language_models;
#[path = "support/models.rs"]
mod models;
#[path = "support/runtime.rs"]
mod runtime;
#[path = "support/sliding_checks.rs"]
mod sliding_checks;
#[path = "support/smooth_modes.rs"]
mod smooth_modes;
mod support;
#[path = "support/thermostat.rs"]
mod thermostat;
#[path = "support/threads.rs"]
mod threads;

// The examples' models that more than one test uses (`support/models.rs` includes the
// quickstart's and Robertson's).
#[path = "../examples/parameter_estimation/model.rs"]
mod estimation_model;
#[path = "../examples/five_bar/model.rs"]
mod five_bar_model;
#[path = "../examples/five_bar/reference.rs"]
mod five_bar_reference;
#[path = "../examples/reproduce/models/stiff.rs"]
mod stiff;

mod adjoint;
mod adjoint_events;
mod adjoint_memory;
mod adjoint_property;
mod argmin_fit;
mod batch;
mod cost_error_test;
mod dense_output;
mod dow;
mod entry_events;
mod esdirk547;
mod esdirk_accuracy;
mod esdirk_errors;
mod esdirk_fsa;
mod five_bar;
mod five_bar_penalty;
mod fixed_step;
mod fsa_convergence;
mod fsa_frozen_fd;
mod guide_keywords;
mod hybrid_ball;
mod hybrid_dae;
mod hybrid_errors;
mod hybrid_events;
mod hybrid_ex51;
mod hybrid_memory;
mod hybrid_sliding;
mod index2_adjoint;
mod index2_kernels;
mod index2_modes;
mod index2_runtime;
mod initial_state;
mod inputs_and_errors;
mod jump_terms;
mod mechanics_errors;
mod mode_costs;
mod model_ball;
mod model_chain;
mod model_corners;
mod model_ex51;
mod model_names;
mod model_robertson;
mod model_sliding;
mod model_sliding_events;
mod model_steel;
mod model_two_mode_dae;
mod named_costs;
mod no_panic_on_user_input;
mod outputs;
mod pendulum_wall;
mod ring_stop;
mod robertson_fsa;
mod rope_taut;
mod short_steps;
mod solver_dae;
mod start_event;
mod state_helpers;
mod step_roundoff;
mod stiff_references;
mod terminal_events;
mod ui;
mod zero_alloc;
