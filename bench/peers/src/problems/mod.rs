//! The benchmark problems and their fixed settings, one file per problem. Each file turns the
//! problem statement of the issue into [`Case`]s (parameters, span, tolerances, reference);
//! the equations themselves are written by each runner.

mod p1_serban;
mod p2_bouncing_ball;
mod p3_robertson;
mod p4_vdp;
mod p5_hires;
mod p6_akzo;

use crate::case::Case;

/// All cases, in table order.
pub fn all() -> Vec<Case> {
    let mut cases = vec![p1_serban::case(), p2_bouncing_ball::case()];
    cases.extend(p3_robertson::cases());
    cases.extend(p4_vdp::cases());
    cases.push(p5_hires::case());
    cases.push(p6_akzo::case());
    cases
}
