"""Benchmark of the FE pressure model: compliance build and contact-solve times.

Run:  python tests/benchmarks/bench_fem.py [n ...]      (prints; no timing asserts)

For ~240 / 720 / 1440 contact nodes: the time to build the condensed compliance of a bushing
(annulus to 2 R, outer edge held) and a pin (disc) without the disk cache, the cold contact solve,
and the warm-started solve along a load path like a mechanism cycle's (direction turning by 0.5 deg
and magnitude changing by a few % per step).  Target: <= 2 ms per warm solve at 720 nodes.  The
Winkler force-controlled solve on the same section is timed for comparison.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from workbench.fem.compliance import ElasticPart
from workbench.fem.contact import ContactSolver
from workbench.fem.mesh import bushing_mesh, pin_mesh
from workbench.models import BoreSection, Material
from workbench.plugins import build_registry

R, DR, B = 0.01, 20e-6, 0.02
BRONZE, STEEL = Material(110e9, 0.34), Material(207e9, 0.3)


def load_path(steps: int, F0: float = 1e4) -> np.ndarray:
    k = np.arange(steps)
    ang = np.radians(0.5) * k
    mag = F0 * (1 + 0.5 * np.sin(2 * np.pi * k / 97))
    return np.column_stack([mag * np.cos(ang), mag * np.sin(ang)])


def bench(n: int, steps: int = 400) -> None:
    t = time.perf_counter()
    bm, pm = bushing_mesh(R, 2 * R, n), pin_mesh(R - DR, n)
    t_mesh = time.perf_counter() - t
    t = time.perf_counter()
    Cb, qb = ElasticPart(bm, BRONZE, "bushing").compute_compliance()
    Cp, qp = ElasticPart(pm, STEEL, "pin").compute_compliance()
    t_build = time.perf_counter() - t
    theta = 2 * np.pi * np.arange(n) / n
    gap = np.full(n, DR)
    solver = ContactSolver(Cb + Cp, theta, R, B)
    loads = load_path(steps)
    t = time.perf_counter()
    cold = [solver.solve(gap, load=F, warm=False) for F in loads[:20]]
    t_cold = (time.perf_counter() - t) / 20
    solver.solve(gap, load=loads[0])
    t = time.perf_counter()
    its, act = [], []
    for F in loads:
        r = solver.solve(gap, load=F)
        its.append(r.info["iterations"])
        act.append(r.info["n_active"])
    t_warm = (time.perf_counter() - t) / steps
    winkler = build_registry().create("pressure", "winkler", {"layer_thickness": 5e-3})
    sec = BoreSection(theta, R, gap, B, BRONZE, STEEL)
    t = time.perf_counter()
    for F in loads[:100]:
        winkler.solve_load(sec, F)
    t_wink = (time.perf_counter() - t) / 100
    print(f"n={n:5d}  mesh nodes {bm.p.shape[1]:6d}+{pm.p.shape[1]:6d}  mesh {t_mesh:5.2f} s  "
          f"compliance build {t_build:6.2f} s ({qb}+{qp} unit solves)  "
          f"cold solve {1e3 * t_cold:7.2f} ms  warm solve {1e3 * t_warm:6.3f} ms "
          f"(mean {np.mean(its):.2f} it, {np.mean(act):.0f} active nodes)  winkler {1e3 * t_wink:6.3f} ms")
    assert all(c.info["equilibrium_residual"] < 1e-8 for c in cold)


if __name__ == "__main__":
    sizes = [int(a) for a in sys.argv[1:]] or [240, 720, 1440]
    for n in sizes:
        bench(n)
