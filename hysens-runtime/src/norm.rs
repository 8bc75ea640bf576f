//! Weighted root-mean-square norm used by the error test and the Newton convergence test.
//!
//! `‖v‖ = sqrt( (1/n) Σ_i (v_i / w_i)² )` with weights `w_i = atol_i + rtol_i |u_i|`
//! (Kristensen et al. 2005, Eq. 21). A value `≤ 1` means "within tolerance".

/// Weights `w_i = atol_i + rtol_i · max(|u_i|, |v_i|)` for a pair of reference vectors (start and
/// end of a step); pass the same vector twice for a single reference.
pub(crate) fn weights<const K: usize>(
    rtol: &[f64; K],
    atol: &[f64; K],
    u: &[f64; K],
    v: &[f64; K],
    out: &mut [f64; K],
) {
    for i in 0..K {
        out[i] = atol[i] + rtol[i] * u[i].abs().max(v[i].abs());
    }
}

/// Sum of squares `Σ (v_i / w_i)²` (combine several blocks, then call [`rms`]).
pub(crate) fn sum_sq<const K: usize>(v: &[f64; K], w: &[f64; K]) -> f64 {
    let mut s = 0.0;
    for i in 0..K {
        let q = v[i] / w[i];
        s += q * q;
    }
    s
}

/// `sqrt(sum_sq / n)`, and 0 for `n = 0`.
pub(crate) fn rms(sum_sq: f64, n: usize) -> f64 {
    if n == 0 {
        0.0
    } else {
        libm::sqrt(sum_sq / n as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrms_basic() {
        let mut w = [0.0; 2];
        weights(
            &[0.1, 0.1],
            &[1.0, 1.0],
            &[10.0, -20.0],
            &[0.0, 0.0],
            &mut w,
        );
        assert_eq!(w, [2.0, 3.0]);
        // (4/2)² + (3/3)² = 5, mean 2.5 (exact in binary up to the final sqrt).
        assert_eq!(rms(sum_sq(&[4.0, 3.0], &w), 2), libm::sqrt(2.5));
        assert_eq!(rms(0.0, 0), 0.0);
    }
}
