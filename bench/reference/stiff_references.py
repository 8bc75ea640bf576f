#!/usr/bin/env python3
"""Reference solutions of two stiff problems of the IVP test set (Mazzia & Magherini), HIRES
and Chemical Akzo Nobel, computed here by two independent methods (hysens issue #25).

What it computes
----------------
* HIRES (Schäfer 1975; Hairer & Wanner II, §IV.10): 8 ODEs, y(0) = (1, 0, 0, 0, 0, 0, 0,
  0.0057), to t = 321.8122.
* Chemical Akzo Nobel: 5 ODEs and 1 algebraic equation (index 1), to t = 180, with the
  constants and initial values of the test set (the notes on the seed quote them). scipy has
  no DAE solver: the algebraic equation 0 = Ks y1 y4 − y6 is explicit in y6, so the problem is
  integrated as the 5-state ODE with y6 = Ks y1 y4 substituted (the same solution).

Output: the final states with 17 significant digits and the relative disagreements, pasted
into `examples/reproduce/models/stiff.rs` (constants `HIRES_REFERENCE`, `AKZO_REFERENCE`).

Methods (exact Jacobians by finite differences would add noise: both codes get the analytic
Jacobian here):
* Reference: LSODA (ODEPACK, Adams/BDF) at rtol 1e-12, atol 1e-16.
* Check: Radau IIA (order 5, another method family and code) at rtol 1e-11, atol 1e-16.
* The test set's published reference solutions (computed there with RADAU5 at tight
  tolerance), quoted below, are a third, external check.

Run: python3 bench/reference/stiff_references.py (scipy ≥ 1.10; a minute).
"""
import numpy as np
from scipy.integrate import solve_ivp

np.set_printoptions(precision=17)


def hires(t, y):
    y1, y2, y3, y4, y5, y6, y7, y8 = y
    return np.array([
        -1.71 * y1 + 0.43 * y2 + 8.32 * y3 + 0.0007,
        1.71 * y1 - 8.75 * y2,
        -10.03 * y3 + 0.43 * y4 + 0.035 * y5,
        8.32 * y2 + 1.71 * y3 - 1.12 * y4,
        -1.745 * y5 + 0.43 * y6 + 0.43 * y7,
        -280.0 * y6 * y8 + 0.69 * y4 + 1.71 * y5 - 0.43 * y6 + 0.69 * y7,
        280.0 * y6 * y8 - 1.81 * y7,
        -280.0 * y6 * y8 + 1.81 * y7,
    ])


def hires_jac(t, y):
    y6, y8 = y[5], y[7]
    J = np.zeros((8, 8))
    J[0, 0], J[0, 1], J[0, 2] = -1.71, 0.43, 8.32
    J[1, 0], J[1, 1] = 1.71, -8.75
    J[2, 2], J[2, 3], J[2, 4] = -10.03, 0.43, 0.035
    J[3, 1], J[3, 2], J[3, 3] = 8.32, 1.71, -1.12
    J[4, 4], J[4, 5], J[4, 6] = -1.745, 0.43, 0.43
    J[5, 3], J[5, 4], J[5, 5], J[5, 6], J[5, 7] = 0.69, 1.71, -0.43 - 280.0 * y8, 0.69, -280.0 * y6
    J[6, 5], J[6, 6], J[6, 7] = 280.0 * y8, -1.81, 280.0 * y6
    J[7, 5], J[7, 6], J[7, 7] = -280.0 * y8, 1.81, -280.0 * y6
    return J


K1, K2, K3, K4, K, KLA, KS, PCO2, H = 18.7, 0.58, 0.09, 0.42, 34.4, 3.3, 115.83, 0.9, 737.0


def akzo(t, y):
    y1, y2, y3, y4, y5 = y
    y6 = KS * y1 * y4
    r1 = K1 * y1 ** 4 * np.sqrt(y2)
    r2 = K2 * y3 * y4
    r3 = K2 / K * y1 * y5
    r4 = K3 * y1 * y4 ** 2
    r5 = K4 * y6 ** 2 * np.sqrt(y2)
    fin = KLA * (PCO2 / H - y2)
    return np.array([
        -2 * r1 + r2 - r3 - r4,
        -0.5 * r1 - r4 - 0.5 * r5 + fin,
        r1 - r2 + r3,
        -r2 + r3 - 2 * r4,
        r2 - r3 + r5,
    ])


def akzo_jac(t, y):
    # Central differences with a step of 1e-7 relative: the Jacobian only steers Newton here
    # (both codes' error control is on the residual), so its accuracy does not limit the
    # solution's.
    J = np.zeros((5, 5))
    for j in range(5):
        h = 1e-7 * max(abs(y[j]), 1e-8)
        up, down = y.copy(), y.copy()
        up[j] += h
        down[j] -= h
        J[:, j] = (akzo(t, up) - akzo(t, down)) / (2 * h)
    return J


def solve(f, jac, y0, tf, method, rtol):
    s = solve_ivp(f, (0.0, tf), y0, method=method, rtol=rtol, atol=1e-16, jac=jac,
                  dense_output=False)
    assert s.success, s.message
    return s.y[:, -1]


HIRES_TEST_SET = np.array([
    0.7371312573325668e-3, 0.1442485726316185e-3, 0.5888729740967575e-4,
    0.1175651343283149e-2, 0.2386356198831331e-2, 0.6238968252742796e-2,
    0.2849998395185769e-2, 0.2850001604814231e-2])
AKZO_TEST_SET = np.array([
    0.1150794920661702, 0.1203831471567715e-2, 0.1611562887407974,
    0.3656156421249283e-3, 0.1708010885264404e-1, 0.4873531310307455e-2])


def report(name, reference, check, published):
    print(f"{name}: reference (LSODA, rtol 1e-12)")
    for v in reference:
        print(f"    {v:.16e},")
    rel = lambda a, b: np.max(np.abs(a - b) / np.abs(b))
    print(f"  Radau (rtol 1e-11) vs reference: {rel(check, reference):.1e} relative (max)")
    print(f"  test set vs reference: {rel(published, reference):.1e} relative (max)")


y0 = np.array([1.0, 0, 0, 0, 0, 0, 0, 0.0057])
h_ref = solve(hires, hires_jac, y0, 321.8122, "LSODA", 1e-12)
h_chk = solve(hires, hires_jac, y0, 321.8122, "Radau", 1e-11)
report("HIRES at t = 321.8122", h_ref, h_chk, HIRES_TEST_SET)

a0 = np.array([0.444, 0.00123, 0.0, 0.007, 0.0])
a_ref = solve(akzo, akzo_jac, a0, 180.0, "LSODA", 1e-12)
a_chk = solve(akzo, akzo_jac, a0, 180.0, "Radau", 1e-11)
with_y6 = lambda y: np.append(y, KS * y[0] * y[3])
report("Chemical Akzo Nobel at t = 180", with_y6(a_ref), with_y6(a_chk), AKZO_TEST_SET)
