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

Forward sensitivities (for the peer benchmark's P5/P6, `bench/peers/src/reference/stiff.rs`),
after the states: HIRES dy/dk at t = 321.8122 (k = 280, the rate of the nonlinear reaction);
Akzo d(y1..y6)/d(k1, kla) at t = 180, with dy6/dp = Ks (y4 dy1/dp + y1 dy4/dp). Three methods:
* Reference: LSODA at rtol 1e-12 on the augmented system y' = f, S' = f_y S + f_p (analytic
  f_y and f_p), its Jacobian by the complex step (exact to rounding), atol 1e-16 on the
  states and 1e-20 on the sensitivities.
* Check: Radau IIA at rtol 1e-10 on the same augmented system.
* Check: central differences of state-only LSODA solves at rtol 1e-13 with a relative
  parameter step of 1e-4 (truncation ~1e-8 relative, tolerance noise ~1e-9).

Run: python3 bench/reference/stiff_references.py (scipy ≥ 1.10; a few minutes).
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


# ---------------------------------------------------------------------------------------------
# Forward sensitivities (peer benchmark P5, P6)
# ---------------------------------------------------------------------------------------------


def hires_p(t, y, p):
    """HIRES with the nonlinear rate k = p[0] as a parameter (k = 280 gives `hires`)."""
    k = p[0]
    y1, y2, y3, y4, y5, y6, y7, y8 = y
    return np.array([
        -1.71 * y1 + 0.43 * y2 + 8.32 * y3 + 0.0007,
        1.71 * y1 - 8.75 * y2,
        -10.03 * y3 + 0.43 * y4 + 0.035 * y5,
        8.32 * y2 + 1.71 * y3 - 1.12 * y4,
        -1.745 * y5 + 0.43 * y6 + 0.43 * y7,
        -k * y6 * y8 + 0.69 * y4 + 1.71 * y5 - 0.43 * y6 + 0.69 * y7,
        k * y6 * y8 - 1.81 * y7,
        -k * y6 * y8 + 1.81 * y7,
    ])


def hires_fy(y, p):
    k = p[0]
    y6, y8 = y[5], y[7]
    J = np.zeros((8, 8), dtype=y.dtype)
    J[0, 0], J[0, 1], J[0, 2] = -1.71, 0.43, 8.32
    J[1, 0], J[1, 1] = 1.71, -8.75
    J[2, 2], J[2, 3], J[2, 4] = -10.03, 0.43, 0.035
    J[3, 1], J[3, 2], J[3, 3] = 8.32, 1.71, -1.12
    J[4, 4], J[4, 5], J[4, 6] = -1.745, 0.43, 0.43
    J[5, 3], J[5, 4], J[5, 5], J[5, 6], J[5, 7] = 0.69, 1.71, -0.43 - k * y8, 0.69, -k * y6
    J[6, 5], J[6, 6], J[6, 7] = k * y8, -1.81, k * y6
    J[7, 5], J[7, 6], J[7, 7] = -k * y8, 1.81, -k * y6
    return J


def hires_fp(y, p):
    r = y[5] * y[7]
    return np.array([[0], [0], [0], [0], [0], [-r], [r], [-r]], dtype=y.dtype)


# Akzo with y6 = Ks y1 y4 substituted: f = C r(y, p) + e2 kla (PCO2/H − y2), r = (r1..r5).
AKZO_C = np.array([
    [-2.0, 1.0, -1.0, -1.0, 0.0],
    [-0.5, 0.0, 0.0, -1.0, -0.5],
    [1.0, -1.0, 1.0, 0.0, 0.0],
    [0.0, -1.0, 1.0, -2.0, 0.0],
    [0.0, 1.0, -1.0, 0.0, 1.0],
])


def akzo_p(t, y, p):
    k1, kla = p
    y1, y2, y3, y4, y5 = y
    sq = np.sqrt(y2)
    r = np.array([
        k1 * y1 ** 4 * sq,
        K2 * y3 * y4,
        K2 / K * y1 * y5,
        K3 * y1 * y4 ** 2,
        K4 * KS ** 2 * y1 ** 2 * y4 ** 2 * sq,
    ])
    f = AKZO_C @ r
    f[1] = f[1] + kla * (PCO2 / H - y2)
    return f


def akzo_fy(y, p):
    k1, kla = p
    y1, y2, y3, y4, y5 = y
    sq = np.sqrt(y2)
    dr = np.zeros((5, 5), dtype=y.dtype)
    dr[0, 0], dr[0, 1] = 4 * k1 * y1 ** 3 * sq, k1 * y1 ** 4 / (2 * sq)
    dr[1, 2], dr[1, 3] = K2 * y4, K2 * y3
    dr[2, 0], dr[2, 4] = K2 / K * y5, K2 / K * y1
    dr[3, 0], dr[3, 3] = K3 * y4 ** 2, 2 * K3 * y1 * y4
    c5 = K4 * KS ** 2
    dr[4, 0] = 2 * c5 * y1 * y4 ** 2 * sq
    dr[4, 1] = c5 * y1 ** 2 * y4 ** 2 / (2 * sq)
    dr[4, 3] = 2 * c5 * y1 ** 2 * y4 * sq
    J = AKZO_C.astype(y.dtype) @ dr
    J[1, 1] = J[1, 1] - kla
    return J


def akzo_fp(y, p):
    y1, y2 = y[0], y[1]
    fp = np.zeros((5, 2), dtype=y.dtype)
    fp[:, 0] = AKZO_C[:, 0] * y1 ** 4 * np.sqrt(y2)
    fp[1, 1] = PCO2 / H - y2
    return fp


def augmented(f, fy, fp, n, p):
    """The state + sensitivity system and its Jacobian (complex step: exact to rounding)."""
    npar = len(p)

    def rhs(t, x):
        y, S = x[:n], x[n:].reshape(n, npar)
        return np.concatenate([f(t, y, p), (fy(y, p) @ S + fp(y, p)).ravel()])

    def jac(t, x):
        m = len(x)
        J = np.zeros((m, m))
        h = 1e-30
        for j in range(m):
            xc = x.astype(complex)
            xc[j] += 1j * h
            J[:, j] = rhs(t, xc).imag / h
        return J

    return rhs, jac


def solve_fsa(f, fy, fp, y0, p, tf, method, rtol):
    n, npar = len(y0), len(p)
    rhs, jac = augmented(f, fy, fp, n, p)
    x0 = np.concatenate([y0, np.zeros(n * npar)])
    atol = np.concatenate([np.full(n, 1e-16), np.full(n * npar, 1e-20)])
    s = solve_ivp(rhs, (0.0, tf), x0, method=method, rtol=rtol, atol=atol, jac=jac)
    assert s.success, s.message
    x = s.y[:, -1]
    return x[:n], x[n:].reshape(n, npar)


def central_differences(f, fy, y0, p, tf, rel=1e-4):
    n, npar = len(y0), len(p)
    S = np.zeros((n, npar))
    for q in range(npar):
        h = rel * p[q]
        ends = []
        for sign in (1, -1):
            pp = np.array(p, dtype=float)
            pp[q] += sign * h
            s = solve_ivp(lambda t, y: f(t, y, pp), (0.0, tf), y0, method="LSODA", rtol=1e-13,
                          atol=1e-18, jac=lambda t, y: fy(y, pp))
            assert s.success, s.message
            ends.append(s.y[:, -1])
        S[:, q] = (ends[0] - ends[1]) / (2 * h)
    return S


def akzo_with_y6(y, S):
    y6 = KS * y[0] * y[3]
    s6 = KS * (y[3] * S[0] + y[0] * S[3])
    return np.append(y, y6), np.vstack([S, s6])


def report_fsa(name, params, y, S, y_chk, S_chk, S_fd):
    print(f"{name}: states and sensitivities (LSODA on the augmented system, rtol 1e-12)")
    print("  y:")
    for v in y:
        print(f"    {v:.16e},")
    print(f"  S[i][q] = dy_i/d{params}:")
    for row in S:
        print("    [" + ", ".join(f"{v:.16e}" for v in row) + "],")
    rel = lambda a, b: np.max(np.abs(a - b) / np.abs(b))
    print(f"  states vs the state-only LSODA reference above: {rel(y, y_chk[0]):.1e} relative (max)")
    print(f"  Radau (rtol 1e-10, augmented) vs reference: states {rel(y_chk[1], y):.1e}, "
          f"sensitivities {rel(S_chk, S):.1e} relative (max)")
    print(f"  central differences (LSODA rtol 1e-13, step 1e-4 relative) vs reference: "
          f"{rel(S_fd, S):.1e} relative (max)")


hp = np.array([280.0])
hy, hS = solve_fsa(hires_p, hires_fy, hires_fp, y0, hp, 321.8122, "LSODA", 1e-12)
hy_r, hS_r = solve_fsa(hires_p, hires_fy, hires_fp, y0, hp, 321.8122, "Radau", 1e-10)
hS_fd = central_differences(hires_p, hires_fy, y0, hp, 321.8122)
report_fsa("HIRES at t = 321.8122", "k", hy, hS, (h_ref, hy_r), hS_r, hS_fd)

ap = np.array([K1, KLA])
ay, aS = solve_fsa(akzo_p, akzo_fy, akzo_fp, a0, ap, 180.0, "LSODA", 1e-12)
ay_r, aS_r = solve_fsa(akzo_p, akzo_fy, akzo_fp, a0, ap, 180.0, "Radau", 1e-10)
aS_fd = central_differences(akzo_p, akzo_fy, a0, ap, 180.0)
ay6, aS6 = akzo_with_y6(ay, aS)
ay6_r, aS6_r = akzo_with_y6(ay_r, aS_r)
_, aS6_fd = akzo_with_y6(ay, aS_fd)
report_fsa("Chemical Akzo Nobel at t = 180", "(k1, kla)", ay6, aS6,
           (with_y6(a_ref), ay6_r), aS6_r, aS6_fd)
