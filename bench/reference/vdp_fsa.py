#!/usr/bin/env python3
"""Reference states and forward sensitivities of the stiff Van der Pol oscillator (bench/peers P4).

What it computes
----------------
Van der Pol in its unscaled (Hairer-Wanner "VDPOL" without time scaling) form, mu = 1000:

    y1' = y2
    y2' = mu (1 - y1^2) y2 - y1,          y(0) = (2, 0),

and the forward sensitivity s = dy/dmu (s(0) = 0, the initial state does not depend on mu):

    s' = f_y s + f_mu,   f_y = [[0, 1], [-2 mu y1 y2 - 1, mu (1 - y1^2)]],   f_mu = [0, (1 - y1^2) y2].

The 4-dimensional augmented system [y1, y2, s1, s2] is integrated with scipy's `solve_ivp`
(Radau IIA, order 5) and its exact 4x4 Jacobian. The relaxation period is about
(3 - 2 ln 2) mu ~ 1614, so T = 500 lies on the first slow branch and T = 2000 just after the
second fast transition (y1 jumps back from about -1 to +2 near t ~ 1614).

Output: y and s at t = 500 and t = 2000, printed with 17 significant digits, as Rust constants
for bench/peers/src/reference.rs, plus the agreement of independent cross-checks.

Accuracy and cross-checks
-------------------------
* Primary: Radau at rtol = 1e-12 and per-component atol = 1e-12 x 1e-6 x (max |u_i| over the
  run, from a preliminary rtol 1e-8 solve), i.e. relative control everywhere except where a
  component is a millionth of its own scale.
* Check 1: LSODA (Adams/BDF switching, another method family), same tolerances. (scipy's
  BDF stops with "step size less than spacing between numbers" at these tolerances.)
* Check 2: Radau at rtol = 1e-11 (tolerance proportionality: estimates the error of the
  looser run, an upper bound for the tighter one).
* Check 3: dy/dmu against central differences (step 1e-5 mu) of state-only Radau solves at
  rtol 1e-13 (checks the sensitivity equations, not digits).
The maximum relative disagreements are printed; bench/peers/src/reference.rs quotes them.

Re-running
----------
    pip install numpy scipy        # tested with scipy 1.17.1, Python 3.11
    python3 bench/reference/vdp_fsa.py
Runtime: well under a minute. Not run by CI.
"""

import sys
import time

import numpy as np
from scipy.integrate import solve_ivp

MU = 1000.0
T_OUT = [500.0, 2000.0]
T_END = 2000.0


def f_state(y, mu):
    y1, y2 = y
    return np.array([y2, mu * (1.0 - y1 * y1) * y2 - y1])


def fy(y, mu):
    y1, y2 = y
    return np.array([[0.0, 1.0], [-2.0 * mu * y1 * y2 - 1.0, mu * (1.0 - y1 * y1)]])


def rhs_aug(_t, u, mu):
    y, s = u[:2], u[2:]
    ds = fy(y, mu) @ s + np.array([0.0, (1.0 - y[0] ** 2) * y[1]])
    return np.concatenate([f_state(y, mu), ds])


def jac_aug(_t, u, mu):
    y1, y2, s1, s2 = u
    J = fy(u[:2], mu)
    A = np.zeros((4, 4))
    A[:2, :2] = J
    A[2:, 2:] = J
    # d/dy of row 2 of (f_y s + f_mu); row 1 of f_y is constant.
    A[3, 0] = -2.0 * mu * y2 * s1 - 2.0 * mu * y1 * s2 - 2.0 * y1 * y2
    A[3, 1] = -2.0 * mu * y1 * s1 + (1.0 - y1 * y1)
    return A


def solve_aug(method, rtol, atol):
    t0 = time.time()
    sol = solve_ivp(rhs_aug, (0.0, T_END), [2.0, 0.0, 0.0, 0.0], method=method, t_eval=T_OUT,
                    args=(MU,), rtol=rtol, atol=atol, jac=jac_aug, first_step=1e-8)
    if not sol.success:
        sys.exit(f"{method} failed: {sol.message}")
    print(f"# {method} rtol={rtol:g}: nfev={sol.nfev} njev={sol.njev} nlu={sol.nlu} "
          f"({time.time() - t0:.1f} s)")
    return sol.y.T


def solve_states(mu, rtol, atol):
    sol = solve_ivp(lambda t, y: f_state(y, mu), (0.0, T_END), [2.0, 0.0], method="Radau",
                    t_eval=T_OUT, rtol=rtol, atol=atol, jac=lambda t, y: fy(y, mu),
                    first_step=1e-8)
    if not sol.success:
        sys.exit(f"state solve failed: {sol.message}")
    return sol.y.T


def rel(a, b, scale):
    return np.abs(a - b) / np.maximum(np.abs(b), 1e-6 * scale)


def main():
    grid = np.linspace(0.0, T_END, 2001)
    pre = solve_ivp(rhs_aug, (0.0, T_END), [2.0, 0.0, 0.0, 0.0], method="Radau", t_eval=grid,
                    args=(MU,), rtol=1e-8, atol=1e-10, jac=jac_aug, first_step=1e-8)
    scale = np.max(np.abs(pre.y), axis=1)
    print("# component scales max|u_i|:", " ".join(f"{s:.3e}" for s in scale))

    rad = solve_aug("Radau", 1e-12, 1e-12 * 1e-6 * scale)
    bdf = solve_aug("LSODA", 1e-12, 1e-12 * 1e-6 * scale)
    rad11 = solve_aug("Radau", 1e-11, 1e-11 * 1e-6 * scale)
    d = 1e-5 * MU
    fd = (solve_states(MU + d, 1e-13, 1e-19 * scale[:2])
          - solve_states(MU - d, 1e-13, 1e-19 * scale[:2])) / (2.0 * d)

    names = ["y1", "y2", "dy1/dmu", "dy2/dmu"]
    for n, t in enumerate(T_OUT):
        r_b, r_r = rel(bdf[n], rad[n], scale), rel(rad11[n], rad[n], scale)
        r_f = rel(fd[n], rad[n, 2:], scale[2:])
        print(f"\nt = {t:g}")
        for i in range(4):
            fdv = f"{r_f[i - 2]:9.1e}" if i >= 2 else " " * 9
            print(f"  {names[i]:8s} {rad[n, i]:25.17e}  LSODA {r_b[i]:9.1e}  R1e-11 {r_r[i]:9.1e}"
                  f"  FD {fdv}")
        print(f"  max rel: LSODA {r_b.max():.1e}, Radau 1e-11 {r_r.max():.1e}, FD {r_f.max():.1e}")

    print("\n// Rust constants (Radau rtol 1e-12), layout [y1, y2, dy1/dmu, dy2/dmu]")
    for n, t in enumerate(T_OUT):
        print(f"// t = {t:g}")
        print(f"[{', '.join(f'{v:.17e}' for v in rad[n])}]")


if __name__ == "__main__":
    main()
