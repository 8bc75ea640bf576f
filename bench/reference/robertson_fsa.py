#!/usr/bin/env python3
"""Reference states and forward sensitivities of the Robertson problem (hysens-runtime tests).

What it computes
----------------
Robertson's chemical kinetics with parameters k = (k1, k2, k3) = (0.04, 3e7, 1e4):

    y1' = -k1 y1 + k3 y2 y3
    y2' =  k1 y1 - k3 y2 y3 - k2 y2^2
    y3' =  k2 y2^2,                      y(0) = (1, 0, 0),

and the forward sensitivities S = dy/dk (3x3, S(0) = 0) from the sensitivity equations
S' = f_y S + f_k. The 12-dimensional augmented system [y; S[:,0]; S[:,1]; S[:,2]] (column q of
S is dy/dk_q) is integrated with scipy's `solve_ivp` and its exact (analytic) 12x12 Jacobian.

Output: y and S at t = 1e5 and t = 4e10 (plus a few intermediate times), printed with 17
significant digits, and the agreement of the independent cross-checks. The values are pasted
into `hysens-runtime/tests/robertson_fsa.rs` (constants `REF_*`).

Accuracy and cross-checks
-------------------------
Error control is relative per component: atol_i = rtol x 1e-6 x (max |u_i| over the run, from
a preliminary LSODA solve), so a component is controlled relatively unless it is a millionth of
its own scale (only near t = 0 and sign changes). All solves use the exact Jacobian.

* Reference: LSODA (scipy's wrapper of ODEPACK LSODA, automatic Adams/BDF switching) at
  rtol = 1e-12.
* Check 1: LSODA at rtol = 1e-13 (tighter: the difference estimates the reference's own
  error).
* Check 2: LSODA at rtol = 1e-11 (tolerance proportionality).
* Check 3: Radau IIA (order 5, a different method family and code) at rtol = 1e-9. Tighter
  Radau runs are impractical with scipy: rtol 1e-9 already takes ~140 s (30k steps, 150k LU
  factorizations), an attempt at 1e-12 did not finish in 10 min, and scipy's BDF at 1e-10 did
  not finish in 5 min either (both measured on this problem, scipy 1.17.1).
* Check 4: the sensitivities against central differences (step 1e-4 relative in k_q) of
  state-only LSODA solves at rtol 1e-13. This validates the sensitivity equations themselves
  (f_y and f_k, independently of the augmented formulation); its own error is O(1e-8)
  relative (O(delta^2) truncation, tolerance / delta noise), so it checks the formulation,
  not the last digits.
The relative disagreement of every component with the reference is printed per output time;
`hysens-runtime/tests/robertson_fsa.rs` quotes the maxima.

Re-running
----------
    pip install numpy scipy        # tested with numpy 2.4.6, scipy 1.17.1, Python 3.11
    python3 bench/reference/robertson_fsa.py
Runtime: about 5 minutes on one core (mostly the Radau check). Not run by CI.
"""

import sys
import time

import numpy as np
from scipy.integrate import solve_ivp

K = np.array([0.04, 3.0e7, 1.0e4])
T_OUT = [0.4, 40.0, 1.0e3, 1.0e5, 1.0e8, 4.0e10]
T_END = 4.0e10


def f_state(y, k):
    k1, k2, k3 = k
    y1, y2, y3 = y
    return np.array([
        -k1 * y1 + k3 * y2 * y3,
        k1 * y1 - k3 * y2 * y3 - k2 * y2 * y2,
        k2 * y2 * y2,
    ])


def fy(y, k):
    k1, k2, k3 = k
    y1, y2, y3 = y
    return np.array([
        [-k1, k3 * y3, k3 * y2],
        [k1, -k3 * y3 - 2.0 * k2 * y2, -k3 * y2],
        [0.0, 2.0 * k2 * y2, 0.0],
    ])


def fk(y):
    """df/dk: rows = equations, columns = (k1, k2, k3)."""
    y1, y2, y3 = y
    return np.array([
        [-y1, 0.0, y2 * y3],
        [y1, -y2 * y2, -y2 * y3],
        [0.0, y2 * y2, 0.0],
    ])


def rhs_aug(_t, u, k):
    """Augmented right-hand side [f; f_y s_q + f_k[:, q] for q = 0, 1, 2] (plain floats: the
    3x3 algebra is cheaper without numpy temporaries)."""
    k1, k2, k3 = k
    y1, y2, y3 = u[0], u[1], u[2]
    a, b, c = k3 * y3, k3 * y2, 2.0 * k2 * y2
    out = np.empty(12)
    out[0] = -k1 * y1 + k3 * y2 * y3
    out[1] = k1 * y1 - k3 * y2 * y3 - k2 * y2 * y2
    out[2] = k2 * y2 * y2
    src = ((-y1, y1, 0.0), (0.0, -y2 * y2, y2 * y2), (y2 * y3, -y2 * y3, 0.0))
    for q in range(3):
        s1, s2, s3 = u[3 + 3 * q], u[4 + 3 * q], u[5 + 3 * q]
        g = src[q]
        out[3 + 3 * q] = -k1 * s1 + a * s2 + b * s3 + g[0]
        out[4 + 3 * q] = k1 * s1 - (a + c) * s2 - b * s3 + g[1]
        out[5 + 3 * q] = c * s2 + g[2]
    return out


def jac_aug(_t, u, k):
    """Exact Jacobian of the augmented system (the S-equations are linear in S; their
    derivative w.r.t. y involves the second derivatives f_yy S + f_ky)."""
    k1, k2, k3 = k
    y2, y3 = u[1], u[2]
    Jf = fy(u[:3], k)
    A = np.zeros((12, 12))
    A[:3, :3] = Jf
    for q in range(3):
        s2, s3 = u[4 + 3 * q], u[5 + 3 * q]
        # d/dy of f_y s_q: row 0: -k1 s1 + k3 y3 s2 + k3 y2 s3; row 1: k1 s1 -
        # (k3 y3 + 2 k2 y2) s2 - k3 y2 s3; row 2: 2 k2 y2 s2.
        D = np.array([
            [0.0, k3 * s3, k3 * s2],
            [0.0, -2.0 * k2 * s2 - k3 * s3, -k3 * s2],
            [0.0, 2.0 * k2 * s2, 0.0],
        ])
        # d/dy of f_k[:, q]
        if q == 0:
            D += np.array([[-1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
        elif q == 1:
            D += np.array([[0.0, 0.0, 0.0], [0.0, -2.0 * y2, 0.0], [0.0, 2.0 * y2, 0.0]])
        else:
            D += np.array([[0.0, y3, y2], [0.0, -y3, -y2], [0.0, 0.0, 0.0]])
        A[3 + 3 * q: 6 + 3 * q, :3] = D
        A[3 + 3 * q: 6 + 3 * q, 3 + 3 * q: 6 + 3 * q] = Jf
    return A


def solve_aug(method, rtol, atol):
    u0 = np.zeros(12)
    u0[0] = 1.0
    t0 = time.time()
    sol = solve_ivp(rhs_aug, (0.0, T_END), u0, method=method, t_eval=T_OUT, args=(K,),
                    rtol=rtol, atol=atol, jac=jac_aug, first_step=1e-10)
    if not sol.success:
        sys.exit(f"{method} failed: {sol.message}")
    print(f"# {method} rtol={rtol:g}: nfev={sol.nfev} "
          f"njev={sol.njev} nlu={sol.nlu} ({time.time() - t0:.1f} s)", flush=True)
    return sol.y.T  # rows = output times


def solve_states(k, rtol, atol):
    sol = solve_ivp(lambda t, y: f_state(y, k), (0.0, T_END), [1.0, 0.0, 0.0],
                    method="LSODA", t_eval=T_OUT, rtol=rtol, atol=atol,
                    jac=lambda t, y: fy(y, k), first_step=1e-10)
    if not sol.success:
        sys.exit(f"state solve failed: {sol.message}")
    return sol.y.T


def rel(a, b, scale):
    """Component-wise |a - b| / max(|b|, 1e-6 * scale): relative error, except for
    components that are a millionth of their own scale over the run."""
    return np.abs(a - b) / np.maximum(np.abs(b), 1e-6 * scale)


def main():
    # Per-component scale: max |u_i| over the run, from a preliminary moderate-tolerance solve
    # on a dense logarithmic grid.
    u0 = np.zeros(12)
    u0[0] = 1.0
    grid = np.minimum(np.concatenate([[0.0], np.logspace(-6, np.log10(T_END), 400)]), T_END)
    pre = solve_ivp(rhs_aug, (0.0, T_END), u0, method="LSODA", t_eval=grid, args=(K,),
                    rtol=1e-8, atol=1e-30, jac=jac_aug, first_step=1e-10)
    scale = np.max(np.abs(pre.y), axis=1)
    print("# component scales max|u_i|:", " ".join(f"{s:.3e}" for s in scale), flush=True)

    def atol_for(rtol):
        return rtol * 1e-6 * scale

    ref = solve_aug("LSODA", 1e-12, atol_for(1e-12))
    checks = [
        ("LSODA 1e-13", solve_aug("LSODA", 1e-13, atol_for(1e-13))),
        ("LSODA 1e-11", solve_aug("LSODA", 1e-11, atol_for(1e-11))),
        ("Radau 1e-9", solve_aug("Radau", 1e-9, atol_for(1e-9))),
    ]

    # Central differences of tight state-only solves (sensitivity columns only).
    fd = np.zeros((len(T_OUT), 12))
    fd[:, :3] = np.nan
    satol = 1e-13 * 1e-6 * scale[:3]
    for q in range(3):
        d = 1e-4 * K[q]
        kp, km = K.copy(), K.copy()
        kp[q] += d
        km[q] -= d
        yp = solve_states(kp, 1e-13, satol)
        ym = solve_states(km, 1e-13, satol)
        fd[:, 3 + 3 * q: 6 + 3 * q] = (yp - ym) / (2.0 * d)
    checks.append(("FD LSODA 1e-13", fd))

    names = ["y1", "y2", "y3"] + [f"dy{i + 1}/dk{q + 1}" for q in range(3) for i in range(3)]
    for n, t in enumerate(T_OUT):
        print(f"\nt = {t:g}   (relative differences to LSODA rtol 1e-12)")
        print(f"  {'component':10s} {'LSODA rtol 1e-12':>25s}  "
              + " ".join(f"{c[0]:>15s}" for c in checks))
        rels = [rel(c[1][n], ref[n], scale) for c in checks]
        for i in range(12):
            cells = " ".join(f"{'':>15s}" if np.isnan(r[i]) else f"{r[i]:15.1e}" for r in rels)
            print(f"  {names[i]:10s} {ref[n, i]:25.17e}  {cells}")
        print("  max: " + ", ".join(f"{c[0]} {np.nanmax(r):.1e}" for c, r in zip(checks, rels)))

    # Rust literals: shortest round-trip repr (the same f64 as the 17-digit values above;
    # clippy's excessive_precision lint rejects digits beyond what the f64 holds).
    print("\n// Rust constants (LSODA rtol 1e-12), layout [y1, y2, y3], S[i][q] = dy_i/dk_q")
    for n, t in enumerate(T_OUT):
        tag = f"{t:g}".replace("+", "").replace(".", "_").upper()
        y = ref[n, :3]
        S = ref[n, 3:].reshape(3, 3).T
        print(f"// t = {t:g}")
        print(f"const REF_Y_{tag}: [f64; 3] = [{', '.join(repr(float(v)) for v in y)}];")
        rows = ", ".join("[" + ", ".join(repr(float(v)) for v in S[i]) + "]" for i in range(3))
        print(f"const REF_S_{tag}: [[f64; 3]; 3] = [{rows}];")


if __name__ == "__main__":
    main()
