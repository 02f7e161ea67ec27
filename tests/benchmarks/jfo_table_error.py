"""The error the grooved JFO table (workbench.lubrication.jfo_table) adds: the shipped table
against direct FE solves (``solve_film(..., cavitation="jfo", groove=True)``, the table's mesh) at
random off-node states, eps uniform in [0.1, 0.9], the squeeze angle in [-pi, pi), the groove's
angle from the line of centres in [0, 2 pi).  Prints the largest / p95 / median relative force
error ``|F_table - F_FE| / |F_FE|`` and attitude error (also over the force scale at that eps,
the largest over the squeeze and groove angles, and over the states carrying > 10 % of it) over the states whose direct JFO solve
converges, and the same against the Reynolds film over the states where it does not (the table
holds the Reynolds film there).  Run: ``python tests/benchmarks/jfo_table_error.py [n] [L/D]``.
"""
from __future__ import annotations

import math
import sys
import time

import numpy as np

from workbench.lubrication import jfo_table as jt
from workbench.lubrication import reynolds as rey


def main(n=300, ld=2.0, seed=2026):
    grid = next(g for g in jt.SHIPPED if g[0] == ld)
    _, _, _, _, nt, ny = grid
    tab, fall = jt.table(*grid)
    p = jt.pack(1.0, 1.0, 2.0 * ld, 1.0, 0.99, 0.0, tab)
    rng = np.random.default_rng(seed)
    rows = {True: [], False: []}
    zero = []
    t0 = time.perf_counter()
    for _ in range(n):
        e, ps, g = rng.uniform(0.1, 0.9), rng.uniform(-math.pi, math.pi), rng.uniform(0, 2 * math.pi)
        s = rey.solve_film(e, ld, ps, cavitation="jfo", groove=True, groove_angle=g, n_theta=nt, n_y=ny,
                           max_iter=jt.MAX_ITER, warn=False)   # the flag read below
        ok = s.info["jfo_converged"]
        if not ok:
            s = rey.solve_film(e, ld, ps, cavitation="reynolds", groove=True, groove_angle=g, n_theta=nt, n_y=ny)
        fe, ft = jt.interpolate(e, ps, g, p)
        mag = math.hypot(s.f_e, s.f_t)
        # the force scale at this eps: the largest force over the squeeze and groove angles
        scale = max(math.hypot(*jt.interpolate(e, a, b, p)) for a in jt.psi_nodes(24) for b in jt.groove_nodes(16))
        if mag == 0.0:               # a separating film without any pressure
            zero.append(math.hypot(fe, ft) / scale)
            continue
        err = math.hypot(fe - s.f_e, ft - s.f_t) / mag
        err_s = math.hypot(fe - s.f_e, ft - s.f_t) / scale
        att = abs(math.degrees(math.remainder(math.atan2(ft, fe) - math.atan2(s.f_t, s.f_e), 2 * math.pi)))
        rows[ok].append((err, att, e, ps, g, err_s, mag / scale))
    print(f"L/D = {ld:g}, table {grid[1]} x {grid[2]} x {grid[3]} nodes, mesh {nt} x {ny}; "
          f"{fall.mean():.1%} of the nodes hold the Reynolds film; {n} states, {time.perf_counter() - t0:.0f} s")
    if zero:
        print(f"  {len(zero)} states without film pressure (fully cavitated): the table's force there is up to "
              f"{max(zero):.2%} of the largest force at that eps")
    for ok, label in ((True, "JFO converged"), (False, "no JFO solution: against the Reynolds film")):
        r = np.array(rows[ok])
        if not len(r):
            continue
        err, att = r[:, 0], r[:, 1]
        print(f"  {label}: {len(r)} states; force error largest / p95 / median "
              f"{err.max():.2%} / {np.percentile(err, 95):.2%} / {np.median(err):.2%}; attitude "
              f"{att.max():.2f} / {np.percentile(att, 95):.2f} / {np.median(att):.2f} deg")
        es = r[:, 5]
        print(f"    error over the force scale at that eps (the Gümbel table's measure): largest / p95 / median "
              f"{es.max():.2%} / {np.percentile(es, 95):.2%} / {np.median(es):.2%}")
        big = r[:, 6] > 0.1
        print(f"    states whose force is > 10 % of the scale ({big.sum()}): relative error largest / p95 / median "
              f"{err[big].max():.2%} / {np.percentile(err[big], 95):.2%} / {np.median(err[big]):.2%}; attitude "
              f"{att[big].max():.2f} / {np.percentile(att[big], 95):.2f} / {np.median(att[big]):.2f} deg")
        worst = r[np.argmax(err)]
        print(f"    worst at eps {worst[2]:.3f}, psi {worst[3]:.3f}, theta_g {worst[4]:.3f}")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 300, float(args[1]) if len(args) > 1 else 2.0)
