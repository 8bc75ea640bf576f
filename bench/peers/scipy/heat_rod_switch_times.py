"""Reference switch times and terminal values of the scaling benchmark's heated rod
(examples/scaling_diffsol.rs, models/gen_heat_rod.py) from scipy: each mode is integrated with
`solve_ivp` (Radau, exact sparse Jacobian, rtol 1e-11, atol 1e-13) up to a terminal,
directional event on the active guard (u_m - Thi rising while heating, u_m - Tlo falling while
cooling) and restarted in the other mode from the located state.

Run:  python3 bench/peers/scipy/heat_rod_switch_times.py 10 100 1000
"""
import sys
import numpy as np
from scipy.integrate import solve_ivp
from scipy.sparse import diags

P = [1.0, 0.8, 1.2, 0.9, 1.1, 2.0, 2.0, 0.0, 1.0, 0.8]  # k0..k4, q, hl, ua, Thi, Tlo


def run(n, rtol=1e-11, atol=1e-13, t_end=2.0):
    k = P[:5]
    q, hl, ua, thi, tlo = P[5:]
    c = np.array([k[min(5 * i // n, 4)] * n * n for i in range(n - 1)])
    main = np.zeros(n)
    main[:-1] -= c
    main[1:] -= c
    main[-1] -= hl * n
    a = diags([c, main, c], [-1, 0, 1], format="csc")
    m = n // 2
    t, u, heating, switches = 0.0, np.zeros(n), True, []
    while t < t_end:
        b = np.zeros(n)
        b[-1] += hl * n * ua
        if heating:
            b[0] += q * n
        thresh = thi if heating else tlo
        guard = lambda t, u, thresh=thresh: u[m] - thresh
        guard.terminal = True
        guard.direction = 1 if heating else -1
        sol = solve_ivp(lambda t, u, b=b: a @ u + b, (t, t_end), u, method="Radau", jac=a,
                        rtol=rtol, atol=atol, events=guard)
        if sol.status == 1:
            t, u = sol.t_events[0][0], sol.y_events[0][0]
            switches.append(t)
            heating = not heating
        else:
            t, u = t_end, sol.y[:, -1]
    return switches, u[m], u[-1]


for n in map(int, sys.argv[1:] or ["10", "100", "1000"]):
    sw, um, ul = run(n)
    times = ", ".join(f"{x:.9f}" for x in sw)
    print(f"N = {n}: switch times [{times}], u_m(T) = {um:.10f}, u_N-1(T) = {ul:.10f}, "
          f"cost = {um + ul:.10f}")
