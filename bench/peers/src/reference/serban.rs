//! Reference values of P1 (Serban & Recuero 2019, Example 5.1, p = 2.9).
//!
//! Source: the closed form of Example 5.1 (Eq. 39), computed with mpmath to 40 digits: between
//! switches `x` is `4 − (4 − x_i) e^{−(t − t_i)}` (mode A) or `5 − (5 − x_i) e^{−2(t − t_i)}`
//! (mode B), the switches are at the three roots of `x³ − 5x² + 7x = p` (A→B, B→A, A→B), and
//! the sensitivities jump as in Eqs. 40–41. An independent event-driven DOP853 run with rtol
//! 1e-12 agrees to about 1e-13. The paper itself reports dG/dp = -2.31195.

/// Printed under the table.
pub const SOURCE: &str =
    "P1: closed form (mpmath, 40 digits) of Serban & Recuero 2019, Example 5.1 (Eqs. 39-41)";

/// x(5).
pub const X_T: f64 = 4.9988424062172751;
/// dx(5)/dp.
pub const DX_T_DP: f64 = -0.0015741079476662486;
/// G = ∫_0^5 x dt.
pub const G: f64 = 20.029074653359594;
/// dG/dp (paper: -2.31195).
pub const DG_DP: f64 = -2.3119531074438905;
/// Switch times t1 (A→B), t2 (B→A), t3 (A→B); informational, not compared (diffsol's automatic
/// reset loop does not report them).
#[allow(dead_code)]
pub const SWITCH_TIMES: [f64; 3] = [0.21921592228980355, 0.27581259147348379, 1.2663478417960716];
