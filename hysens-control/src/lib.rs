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
//! | [`nlp`] | the multiple-shooting NLP of the OCP (consistent or relaxed DAE), with exact derivatives |
//! | [`sqp`] | SQP on it: QPs by clarabel, Gauss–Newton or partitioned damped BFGS |
//! | [`nmpc`] | the receding-horizon controller: warm start by shifting, first input applied |
//!
//! This layer allocates (small dense matrices, `nalgebra`); the solves under it are the
//! runtime's, with their exact sensitivities.
//!
//! A filter and a controller for a tank whose outflow is an algebraic variable (the examples
//! `electrolyzer`, `electrolyzer_ekf` and `tank_nmpc` show whole loops):
//!
//! ```
//! use hysens::prelude::*;
//! use hysens_control::*;
//! use nalgebra::DMatrix;
//!
//! #[hybrid_model]
//! pub mod tank {
//!     #[states]
//!     pub struct X { pub level: f64 }
//!     #[algebraic]
//!     pub struct Z { pub outflow: f64 }
//!     #[inputs]
//!     pub struct U { pub inflow: f64 }
//!     #[mode(initial)]
//!     fn draining(x: &X, z: &Z, u: &U) -> (X, [f64; 1]) {
//!         (X { level: u.inflow - z.outflow }, [z.outflow - 0.5 * x.level])
//!     }
//!     #[output]
//!     fn level(x: &X) -> f64 { x.level }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let p = [1.0]; // the inflow
//! // A filter measuring the level (variance 1e-2), process noise 0.1 on it, P0 = 1.
//! let (r, sigma, p0) = (DMatrix::from_element(1, 1, 1e-2), DMatrix::from_element(1, 1, 0.1),
//!     DMatrix::from_element(1, 1, 1.0));
//! let mut ekf = ContinuousDiscreteEkf::new(ModeOf::new(&tank::Model, 0), &["level"], r, sigma,
//!     (0.0, [1.5], [0.0], &p), p0)?;
//! ekf.update(&[2.0], &p)?; // a measurement at t = 0
//! assert!(ekf.y[0] > 1.5 && ekf.y[0] < 2.0);
//! assert!((ekf.z[0] - 0.5 * ekf.y[0]).abs() < 1e-12); // ẑ consistent
//! ekf.predict(1.0, &p)?; // to t = 1, the covariance with it
//!
//! // NMPC driving the level to 3 with the inflow in [0, 4].
//! let settings = NmpcSettings {
//!     sample_time: 1.0, horizon: 10, steps_per_interval: 5, quadrature_intervals: 4,
//!     weights: OcpWeights { q_z: 10.0, q_du: 0.1 }, input_bounds: vec![(0.0, 4.0)],
//!     hessian: Hessian::GaussNewton, max_iterations: 20, tolerance: 1e-8,
//!     newton_tolerances: (1e-10, 1e-10), formulation: Formulation::Consistent,
//! };
//! let mut nmpc = Nmpc::new(&tank::Model, &["inflow"], "level", settings)?;
//! let setpoint = |_: f64| 3.0;
//! let data = OcpData { t: 1.0, x_hat: ekf.y, z_hat: ekf.z, p, u_previous: vec![1.0],
//!     setpoint: &setpoint };
//! let inflow = nmpc.solve(&data)?[0];
//! assert!(inflow > 1.5); // raise the level: more in than the 0.5·level going out
//! # Ok(())
//! # }
//! ```

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
