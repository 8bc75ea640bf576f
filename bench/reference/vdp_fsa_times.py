#!/usr/bin/env python3
"""P4 (Van der Pol, mu = 1000) states and dy/dmu at t = 250, 500, ..., 2000, for the
"error along t" tables of bench/peers/examples/p4b_convergence.rs (constant REF there).

Same augmented system, Jacobian and tolerances as vdp_fsa.py (imported from it): scipy Radau
at rtol 1e-12, atol 1e-12 x 1e-6 x component scale, and a second run at rtol 1e-11 to gauge the
error (<= 2.5e-7 relative in dy/dmu, <= 1e-13 in the states). The t = 2000 values differ from
src/reference/vdp.rs by 1.5e-7 relative in dy1/dmu (same settings; scipy runs are not bit
reproducible across runs here), within the ~1e-7 quoted there.

    python3 bench/reference/vdp_fsa_times.py      # ~1 min
"""

import os
import sys

import numpy as np
from scipy.integrate import solve_ivp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vdp_fsa as v  # noqa: E402

T = [250.0, 500.0, 750.0, 1000.0, 1250.0, 1500.0, 1750.0, 2000.0]


def main():
    grid = np.linspace(0.0, 2000.0, 2001)
    pre = solve_ivp(v.rhs_aug, (0.0, 2000.0), [2.0, 0.0, 0.0, 0.0], method="Radau", t_eval=grid,
                    args=(v.MU,), rtol=1e-8, atol=1e-10, jac=v.jac_aug, first_step=1e-8)
    scale = np.max(np.abs(pre.y), axis=1)
    for rtol in [1e-12, 1e-11]:
        s = solve_ivp(v.rhs_aug, (0.0, 2000.0), [2.0, 0.0, 0.0, 0.0], method="Radau", t_eval=T,
                      args=(v.MU,), rtol=rtol, atol=rtol * 1e-6 * scale, jac=v.jac_aug,
                      first_step=1e-8)
        print(f"// Radau rtol {rtol:g} (nfev {s.nfev}): [t, y1, y2, dy1/dmu, dy2/dmu]")
        for i, t in enumerate(T):
            print(f"[{t:.1f}, " + ", ".join(f"{x:.17e}" for x in s.y[:, i]) + "],")


if __name__ == "__main__":
    main()
