//! Reference solutions, one file per problem, each value with its source.
//!
//! * [`serban`]: closed form (mpmath, 40 digits) of Serban & Recuero 2019, Ex. 5.1 (Eqs. 39–41).
//! * [`bouncing_ball`]: closed form with exact derivatives, computed here.
//! * [`robertson`]: scipy Radau rtol 1e-12 on the augmented system, bench/reference/robertson_fsa.py.
//! * [`stiff`]: scipy LSODA rtol 1e-12 on the augmented system, bench/reference/stiff_references.py.
//! * [`vdp`]: scipy Radau rtol 1e-12 on the augmented system, bench/reference/vdp_fsa.py.

// Reference constants keep every digit their source printed (17 significant digits or the
// mpmath output), so that each can be traced back verbatim.
#![allow(clippy::excessive_precision)]

pub mod bouncing_ball;
pub mod robertson;
pub mod serban;
pub mod stiff;
pub mod vdp;
