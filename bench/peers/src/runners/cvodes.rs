//! CVODES runners (SUNDIALS 6.4, the library Debian ships as `libsundials-dev`; feature
//! `cvodes`): variable-order BDF with a dense direct linear solver and the analytic Jacobian,
//! forward sensitivities by the staggered corrector with analytic sensitivity right-hand sides
//! (`cvodes/robertson.c`, compiled by `build.rs`).
//!
//! Settings: `rtol`, `atol` from the case; `CVodeSetStopTime(t_end)`, so the last step ends on
//! it (as diffsol's and hysens'); sensitivity tolerances estimated by CVODES from `rtol`,
//! `atol` and `pbar = |p|` (`CVodeSensEEtolerances`), the setting diffsol's runners mirror;
//! the sensitivities in the error test (`CVodeSetSensErrCon`) or, as hysens' default, not.
//! Each solve creates and frees the whole solver (context, vectors, memory, linear solver),
//! as the other runners build their problem per solve; that setup alone measured 22 µs.

use std::ffi::{c_char, c_int, c_long, CStr};

use super::{runners_of, Methods, Runner};
use crate::case::{Case, RunResult, Solution};

/// The CVODES configurations benchmarked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// BDF, the sensitivities in the error test.
    Bdf,
    /// BDF, the sensitivities outside the error test.
    BdfStatesOnly,
}

impl Method {
    fn sensitivities_in_error_test(self) -> bool {
        self == Method::Bdf
    }
}

impl Methods for Method {
    const TOOL: &'static str = "CVODES 6.4";
    const ALL: &'static [Method] = &[Method::Bdf, Method::BdfStatesOnly];

    fn name(self) -> &'static str {
        match self {
            Method::Bdf => "BDF",
            Method::BdfStatesOnly => "BDF, sens. outside error test",
        }
    }
}

/// The counters `cvodes/robertson.c` reports, in its order.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counters {
    pub steps: c_long,
    pub rhs: c_long,
    pub jacobians: c_long,
    pub lu_setups: c_long,
    pub newton: c_long,
    pub sensitivity_rhs: c_long,
}

extern "C" {
    fn hysens_peers_cvodes_robertson(
        t_end: f64,
        rtol: f64,
        atol: f64,
        k: *const f64,
        sens_in_error_test: c_int,
        y_out: *mut f64,
        sens_out: *mut f64,
        stats: *mut c_long,
        err: *mut c_char,
        err_len: usize,
    ) -> c_int;
}

/// P3 (Robertson, `k = (k1, k2, k3)`, `y(0) = (1, 0, 0)`) to `t_end`: `y(t_end)`,
/// `s[j][i] = dy_i/dk_j` and the counters, or CVODES' error.
pub fn robertson(
    t_end: f64,
    rtol: f64,
    atol: f64,
    k: [f64; 3],
    method: Method,
) -> Result<([f64; 3], [[f64; 3]; 3], Counters), String> {
    let mut y = [0.0; 3];
    let mut s = [[0.0; 3]; 3];
    let mut stats: [c_long; 6] = [0; 6];
    let mut err = [0 as c_char; 256];
    // SAFETY: every pointer is to a live buffer of the length the C function writes (3, 9, 6
    // and `err.len()`); `k` is read only.
    let flag = unsafe {
        hysens_peers_cvodes_robertson(
            t_end,
            rtol,
            atol,
            k.as_ptr(),
            c_int::from(method.sensitivities_in_error_test()),
            y.as_mut_ptr(),
            s.as_mut_ptr().cast(),
            stats.as_mut_ptr(),
            err.as_mut_ptr(),
            err.len(),
        )
    };
    if flag != 0 {
        // SAFETY: the C side writes a NUL-terminated message (snprintf) into `err`.
        let msg = unsafe { CStr::from_ptr(err.as_ptr()) };
        return Err(format!("CVODES: {}", msg.to_string_lossy()));
    }
    let [steps, rhs, jacobians, lu_setups, newton, sensitivity_rhs] = stats;
    let counters = Counters {
        steps,
        rhs,
        jacobians,
        lu_setups,
        newton,
        sensitivity_rhs,
    };
    Ok((y, s, counters))
}

fn p3(case: &Case, method: Method) -> RunResult {
    let k = [case.params[0], case.params[1], case.params[2]];
    let (y, s, counters) = robertson(case.t_end, case.rtol, case.atol, k, method)?;
    Ok(Solution {
        outputs: y.to_vec(),
        sens: s.iter().map(|sj| sj.to_vec()).collect(),
        steps: Some(counters.steps as usize),
        f_evals: Some(counters.rhs as usize),
    })
}

/// Both CVODES configurations on P3a and P3b.
pub fn runners(cases: &[Case]) -> Vec<Box<dyn Runner>> {
    runners_of(cases, |id| match id {
        "P3a" | "P3b" => Some(p3 as fn(&Case, Method) -> RunResult),
        _ => None,
    })
}
