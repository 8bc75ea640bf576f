//! # hysens-runtime
//!
//! The `no_std`, no-heap integration engine of hysens: fixed-size ESDIRK methods, events,
//! resets and forward sensitivities across every switch. Every size is a const generic; nothing
//! in the solve path allocates.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(any(feature = "std", test))]
extern crate std;

pub mod controller;
pub mod error;
pub mod esdirk;
pub mod linalg;
pub mod model;
pub mod norm;
pub mod options;
pub mod stats;
pub mod tableau;

pub use error::SolveError;
pub use esdirk::{Esdirk, StepRecord};
pub use model::{ModeJacobian, SmoothMode};
pub use options::Options;
pub use stats::Stats;
pub use tableau::{Tableau, ESDIRK23, ESDIRK34, ESDIRK436L2SA};
