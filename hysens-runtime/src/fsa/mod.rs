//! Forward sensitivities: the exact derivative of the discrete solution across every switch.
//!
//! * the step's derivative and its sensitivity state (the integrator's stage-wise IND,
//!   Christensen, Cantisani & Jørgensen, Eqs. 12–24, with the exact stage Jacobians);
//! * `jump.rs`: the event step's length derivative (`τ`) and the jump through the reset
//!   (Serban & Recuero 2019, Eq. 6);
//! * `cost.rs`: the derivatives of the cost terms (their Eq. 8, discretely).

pub(crate) mod cost;
pub(crate) mod jump;
