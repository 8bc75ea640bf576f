"""Serban & Recuero Ex. 5.1 hybrid ODE: how accurately scipy's solvers locate the three
switching times, for comparison with hysens' acceptance point "switch times to 1e-9 at rtol
1e-8" (issue #4; BENCHMARKS.md, "Switch times of Ex. 5.1").

Each phase is integrated with `solve_ivp` (Radau, BDF, LSODA, DOP853, RK45) with a terminal,
directional event on the guard h = x^3 - 5x^2 + 7x - p and restarted in the new mode at the
located time; the closed form (mpmath, 40 digits) is the reference. Event times are also
re-polished on the bracketing step's dense output (brentq, xtol 1e-15), which changes nothing:
scipy >= 1.17 already locates events to 4 eps, so the errors are integration errors.

Run:  python3 -m venv /tmp/v && /tmp/v/bin/pip install scipy mpmath
      /tmp/v/bin/python bench/peers/scipy/ex51_switch_times.py
Output of the run quoted in BENCHMARKS.md: bench/peers/results/ex51_switch_times_scipy.txt
"""
import inspect
import numpy as np
import scipy
from scipy.integrate import solve_ivp, quad
from scipy.optimize import brentq
import scipy.integrate._ivp.ivp as ivpmod
import mpmath as mp
import warnings
from scipy.integrate import IntegrationWarning
# quad on the dense output (only used for the extra G column) may warn about roundoff at 1e-13
warnings.simplefilter('ignore', IntegrationWarning)

P = 2.9
T_END = 5.0
EPS = np.finfo(float).eps
REF_T = [0.21921592228980355, 0.27581259147348379, 1.2663478417960716]
REF_X5 = 4.9988424062172751
REF_G = 20.029074653359594

def h(x):
    return x**3 - 5*x**2 + 7*x - P

def rhs_A(t, y):
    return [4.0 - y[0]]

def rhs_B(t, y):
    return [10.0 - 2.0*y[0]]

# ---------------------------------------------------------------- reference
def closed_form_reference():
    mp.mp.dps = 40
    p = mp.mpf('2.9')
    H = lambda x: x**3 - 5*x**2 + 7*x - p
    # roots of h (x increasing through them)
    r1, r2, r3 = sorted(mp.re(r) for r in mp.polyroots([1, -5, 7, -p], maxsteps=200, extraprec=200))
    r1 = mp.findroot(H, (mp.mpf('0.5'), mp.mpf('1.0')), solver='anderson')   # bracketed, h(0.5)<0<h(1)
    r2 = mp.findroot(H, (mp.mpf('1.0'), mp.mpf('7')/3), solver='anderson')   # h(1)>0>h(7/3)
    r3 = mp.findroot(H, (mp.mpf('7')/3, mp.mpf('4.0')), solver='anderson')   # h(7/3)<0<h(4)
    # phase A from (0,0): x = 4(1-e^{-t}) -> t1 solves h(4(1-e^{-t}))=0 directly
    t1_direct = mp.findroot(lambda t: H(4*(1 - mp.exp(-t))), (mp.mpf('0.1'), mp.mpf('0.25')), solver='anderson')
    t1 = -mp.log(1 - r1/4)
    # phase B from (t1,r1): x = 5 - (5-r1) e^{-2(t-t1)}
    t2 = t1 + mp.log((5 - r1)/(5 - r2))/2
    # phase A from (t2,r2): x = 4 - (4-r2) e^{-(t-t2)}
    t3 = t2 + mp.log((4 - r2)/(4 - r3))
    # phase B from (t3,r3) to 5
    T = mp.mpf(5)
    x5 = 5 - (5 - r3)*mp.exp(-2*(T - t3))
    # G = int_0^5 x dt, piecewise exact
    G = (4*t1 - 4*(1 - mp.exp(-t1)))                                   # A: 4-4e^{-t}
    G += 5*(t2-t1) - (5-r1)*(1-mp.exp(-2*(t2-t1)))/2                   # B
    G += 4*(t3-t2) - (4-r2)*(1-mp.exp(-(t3-t2)))                       # A
    G += 5*(T-t3) - (5-r3)*(1-mp.exp(-2*(T-t3)))/2                     # B
    return dict(r=(r1, r2, r3), t1_direct=t1_direct, t=(t1, t2, t3), x5=x5, G=G)

# ---------------------------------------------------------------- hybrid sim
# Mode A: x' = 4 - x, armed event h=0 upward (direction +1).
# Mode B: x' = 10 - 2x, armed event h=0 downward (direction -1).
# Phases alternate A,B,A,B,... restarting at each terminal event until T_END.
MODES = {"A": (rhs_A, +1, "B"), "B": (rhs_B, -1, "A")}

def make_event(direction):
    def ev(t, y):
        return h(y[0])
    ev.terminal = True
    ev.direction = direction
    return ev

def simulate(method, rtol, atol, polish, max_step=np.inf):
    """Integrate phase by phase. If polish, each event time is re-solved with
    brentq(xtol=1e-15, rtol=4eps) on the bracketing step's dense output, and the
    next phase restarts from the polished time (x = dense output there).
    Returns nsteps, raw solve_ivp event times, event times used, x(5), G."""
    t0, x0, mode = 0.0, 0.0, "A"
    nsteps = 0
    ev_raw, ev_used = [], []
    G = 0.0
    while True:
        rhs, direction, nxt = MODES[mode]
        sol = solve_ivp(rhs, (t0, T_END), [x0], method=method, rtol=rtol,
                        atol=atol, events=make_event(direction), dense_output=True,
                        max_step=max_step)
        if not sol.success:
            raise RuntimeError(f"{method}: {sol.message}")
        nsteps += len(sol.t) - 1
        if sol.status == 1:                      # terminal event located
            te = float(sol.t_events[0][0])
            ev_raw.append(te)
            if polish:
                interp = sol.sol.interpolants[-1]  # dense output of the bracketing step
                lo, hi = sorted((interp.t_old, interp.t))
                te = brentq(lambda t: h(interp(t)[0]), lo, hi,
                            xtol=1e-15, rtol=4*EPS, maxiter=200)
                xe = float(interp(te)[0])
            else:
                xe = float(sol.sol(te)[0])        # same as sol.y_events[0][0]
            ev_used.append(te)
            G += quad(lambda t: sol.sol(t)[0], t0, te, epsabs=1e-13, epsrel=1e-13, limit=200)[0]
            t0, x0, mode = te, xe, nxt           # restart in the new mode
            if len(ev_used) > 10:
                raise RuntimeError("chattering")
        else:
            G += quad(lambda t: sol.sol(t)[0], t0, T_END, epsabs=1e-13, epsrel=1e-13, limit=200)[0]
            x5 = float(sol.y[0, -1])
            return nsteps, ev_raw, ev_used, x5, G

def fmt_errs(used, tref):
    if len(used) == 3:
        return [f"{abs(a - b):9.2e}" for a, b in zip(used, tref)], max(abs(a - b) for a, b in zip(used, tref))
    return [f"{'MISSED':>9s}"] * 3, np.inf

def main():
    print(f"scipy {scipy.__version__}, numpy {np.__version__}, mpmath {mp.__version__}")
    print("solve_ivp internal event root finder (scipy.integrate._ivp.ivp.solve_event_equation):")
    print("    " + inspect.getsource(ivpmod.solve_event_equation).strip().splitlines()[-2].strip()
          + " " + inspect.getsource(ivpmod.solve_event_equation).strip().splitlines()[-1].strip())
    print()
    ref = closed_form_reference()
    print("=== Closed-form check (mpmath, 40 digits) ===")
    print("roots of h:", *[mp.nstr(r, 25) for r in ref['r']])
    print("t1 from h(4(1-e^-t))=0 :", mp.nstr(ref['t1_direct'], 25))
    for i, (tv, tg) in enumerate(zip(ref['t'], REF_T), 1):
        print(f"t{i} closed form = {mp.nstr(tv, 25)}   given = {tg!r}   diff = {mp.nstr(tv - mp.mpf(tg), 3)}")
    print(f"t1_direct - given t1 = {mp.nstr(ref['t1_direct'] - mp.mpf(REF_T[0]), 3)}")
    print(f"x(5) closed form = {mp.nstr(ref['x5'], 25)}   given = {REF_X5!r}   diff = {mp.nstr(ref['x5'] - mp.mpf(REF_X5), 3)}")
    print(f"G    closed form = {mp.nstr(ref['G'], 25)}   given = {REF_G!r}   diff = {mp.nstr(ref['G'] - mp.mpf(REF_G), 3)}")
    print()

    tref = [float(v) for v in ref['t']]
    x5ref, Gref = float(ref['x5']), float(ref['G'])
    methods = ["Radau", "BDF", "LSODA", "DOP853", "RK45"]
    tols = [(1e-8, 1e-10), (1e-10, 1e-12), (1e-11, 1e-13)]
    hdr = (f"{'method':7s} {'rtol':>6s} {'atol':>6s} {'loc':8s} {'steps':>6s} "
           f"{'|t1 err|':>9s} {'|t2 err|':>9s} {'|t3 err|':>9s} {'|x(5) err|':>10s} {'|G err|':>9s} {'|polish-raw| max':>16s}")
    rows = []
    print("(loc = solveivp: event time as returned by solve_ivp; polished: re-solved with brentq xtol=1e-15 on the")
    print(" bracketing step's dense output, and the next phase restarted from it. |G err|: G from quad on dense output.)")
    for rtol, atol in tols:
        print(f"=== rtol={rtol:g}, atol={atol:g} ===")
        print(hdr)
        for m in methods:
            for polish in (False, True):
                n, raw, used, x5, G = simulate(m, rtol, atol, polish)
                es, emax = fmt_errs(used, tref)
                shift = max((abs(a - b) for a, b in zip(used, raw)), default=0.0)
                tag = "polished" if polish else "solveivp"
                print(f"{m:7s} {rtol:6.0e} {atol:6.0e} {tag:8s} {n:6d} "
                      f"{es[0]} {es[1]} {es[2]} {abs(x5 - x5ref):10.2e} "
                      f"{abs(G - Gref):9.2e} {shift:16.2e}")
                if len(used) != 3:
                    print(f"    !! {m}: {len(used)} switching event(s) found instead of 3: "
                          + ", ".join(f"{t:.12f}" for t in used))
                rows.append((m, rtol, atol, tag, n, emax, abs(x5 - x5ref), used))
        print()

    print("=== Diagnostic: DOP853 rtol=1e-8 first phase (mode A from x=0) ===")
    ev = make_event(+1)
    s1 = solve_ivp(rhs_A, (0, T_END), [0.0], method="DOP853", rtol=1e-8, atol=1e-10,
                   events=ev, dense_output=True)
    for a, b in zip(s1.t[:-1], s1.t[1:]):
        xa, xb = s1.sol(a)[0], s1.sol(b)[0]
        print(f"  step [{a:.6f}, {b:.6f}]  x: {xa:.6f} -> {xb:.6f}   h: {h(xa):+.4e} -> {h(xb):+.4e}")
        if b > 1.4:
            break
    print(f"  h > 0 only for x in ({float(ref['r'][0]):.6f}, {float(ref['r'][1]):.6f}): exact hybrid window t in "
          f"({tref[0]:.6f}, {tref[1]:.6f}); pure-mode-A window t in ({tref[0]:.6f}, {float(-mp.log(1-ref['r'][1]/4)):.6f})")
    print("  A step whose endpoints both have h<0 straddles the whole h>0 window -> no sign change -> event missed.")
    print()
    print("=== Remedy check: same runs with max_step=0.02 (rtol=1e-8, atol=1e-10) ===")
    print(hdr)
    for m in methods:
        n, raw, used, x5, G = simulate(m, 1e-8, 1e-10, False, max_step=0.02)
        es, emax = fmt_errs(used, tref)
        print(f"{m:7s} {1e-8:6.0e} {1e-10:6.0e} {'solveivp':8s} {n:6d} {es[0]} {es[1]} {es[2]} "
              f"{abs(x5 - x5ref):10.2e} {abs(G - Gref):9.2e} {0.0:16.2e}")
    print()
    print("=== Verdict at rtol=1e-8 (no max_step): all three |t_i err| <= 1e-9 ? ===")
    for r in rows:
        if r[1] == 1e-8:
            ok = r[5] <= 1e-9
            mx = "MISSED" if not np.isfinite(r[5]) else f"{r[5]:.2e}"
            print(f"{r[0]:7s} {r[3]:8s} max|t err| = {mx:>8s}  -> {'YES' if ok else 'no'}")

if __name__ == "__main__":
    main()
