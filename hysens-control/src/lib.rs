//! Estimation and control on top of hysens' sensitivities (Christensen et al., "ESDIRK-based
//! NMPC with a continuous-discrete extended Kalman filter"): what the exact derivatives of a
//! solve are for.
//!
//! | module | what |
//! |---|---|
//! | [`model`] | one mode of a `#[hybrid_model]` evaluated point by point |
//! | [`algebraic`] | consistent algebraic variables and `∂z/∂x` on the index-1 manifold |
//! | [`stochastic`] | the implicit–explicit stochastic simulator of the plant |
//! | [`ekf`] | the continuous-discrete extended Kalman filter |
//! | [`nlp`] | the multiple-shooting NLP of the OCP, with exact derivatives |
//! | [`sqp`] | SQP on it: QPs by clarabel, Gauss–Newton or damped BFGS |
//! | [`nmpc`] | the receding-horizon controller: warm start by shifting, first input applied |
//!
//! This layer allocates (small dense matrices, `nalgebra`); the solves under it are the
//! runtime's, with their exact sensitivities.

#![deny(missing_docs)]

pub mod algebraic;
pub mod ekf;
pub mod error;
pub mod model;
pub mod nlp;
pub mod nmpc;
mod quadrature;
mod relaxed;
mod shooting;
pub mod sqp;
pub mod stochastic;

pub use ekf::{ContinuousDiscreteEkf, Innovation, Prediction};
pub use error::ControlError;
pub use model::ModeOf;
pub use nlp::{Formulation, Nlp, NlpPoint, OcpData, OcpWeights};
pub use nmpc::{Nmpc, NmpcSettings, SqpReport};
pub use sqp::Hessian;
pub use stochastic::StochasticSimulator;
