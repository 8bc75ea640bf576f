//! ESDIRK integration of one smooth mode: the integrator, its step-size controller and its
//! dense output.

pub(crate) mod controller;
pub(crate) mod dense;
#[path = "../esdirk.rs"]
mod esdirk;

pub use esdirk::{Esdirk, StepLength, StepRecord, Trial};
