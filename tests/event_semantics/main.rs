//! The event-semantics corpus: small models with exact answers, each putting a guard in one
//! situation — a crossing in each direction, direction filters, a guard on its zero at a
//! mode's entry with the flow leaving, entering or tangent, starts on and near a guard,
//! simultaneous guards, two crossings inside one would-be step, tangency without crossing, a
//! crossing without rate, a chattering relay, a sticking ball, Zeno accumulation, and
//! Filippov crossing, entry, exit and repulsive surfaces — run at rtol 1e-3, 1e-6, 1e-8,
//! 1e-10 and 1e-12 with each of the three tableaus, checking the exact event sequence (guards,
//! modes, times) and the final state, or the error where an error is the answer. The cases of
//! issue #19's "Why" are `why.rs`, by name.
//!
//! The semantics checked are those of `hysens-runtime/src/events/` (module docs): a guard is
//! on its zero within round-off of its terms, whatever the tolerances; on its zero it is
//! decided by the flow (its rate, or the first step when the rate vanishes); it fires at a
//! mode's entry when the flow crosses it in its direction (not the crossing that just fired);
//! a loop of such events that makes no progress, a crossing without rate and a repulsive
//! surface are errors.
#![deny(missing_docs)]

/// The bouncing ball (`ball`), among the shared event models.
#[path = "../support/event_models.rs"]
mod event_models;
mod harness;
/// The corpus's models.
#[path = "../support/corpus.rs"]
mod models;
/// The thermostat.
#[path = "../support/thermostat.rs"]
mod thermostat_model;

mod crossings;
mod entries;
mod filippov;
mod oscillations;
mod properties;
mod starts;
mod why;
