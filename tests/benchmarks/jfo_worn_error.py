"""The error of the grooved JFO bearing on a worn bushing (the plugin ``finite_bearing_jfo``'s
``pack_worn``: the JFO table corrected by the worn bore's harmonic film, workbench.lubrication
.jfo_table.jfo_kernel) against direct worn JFO solves (``solve_film(..., cavitation="jfo",
groove=True, wear=..., whirl=...)``, the table's mesh), and of the circular table that ignores the
wear.  Random states: eps in [0.1, 0.9], squeeze angle in [-pi, pi), whirl ``2 gamma_dot / V`` in
[-1, 1], the line of centres in any direction from the scar, the groove anywhere in the bushing;
Gaussian scars (1/e half-width 0.4 rad) 0.25 and 0.5 c deep; states whose direct JFO solve does
not converge are skipped (counted).  Relative error ``|F - F_FE| / |F_FE|``, largest / p95 / median.
Run: ``python tests/benchmarks/jfo_worn_error.py [states per case]``.
"""
from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np

from workbench.lubrication import jfo_table as jt
from workbench.lubrication import reynolds as rey
from workbench.models import ContactGeometry
from workbench.plugins import build_registry

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from worn_bore_rig import PSI, scar  # noqa: E402

MU, R, C, V = 0.04, 0.01, 5e-4, 300.0


def state(eps, psq, whirl, alpha):
    """Bushing-frame ``(e, v, omega)`` of a journal at ``eps`` along ``alpha`` with the squeeze angle
    ``psq`` and the whirl ``2 gamma_dot / V`` (the FE's scaling)."""
    u = np.array([math.cos(alpha), math.sin(alpha)]); t = np.array([-u[1], u[0]])
    w = V * math.cos(psq); ed = 0.5 * V * math.sin(psq); gd = 0.5 * whirl * V
    return eps * C * u, C * ed * u + C * eps * gd * t, w + 2.0 * gd


def dimless(kernel, p, eps, psq, whirl, alpha):
    e, v, om = state(eps, psq, whirl, alpha)
    fx, fy, _ = kernel(*e, *v, om, p)
    u = np.array([math.cos(alpha), math.sin(alpha)]); t = np.array([-u[1], u[0]])
    return complex(np.dot((fx, fy), u), np.dot((fx, fy), t)) * C * C / (6.0 * MU * R ** 4 * V)


def measure(ld, depth_c, n, seed=3):
    reg = build_registry()
    rng = np.random.default_rng(seed)
    g = ContactGeometry("cylindrical", R, R + C, 2.0 * ld * R)
    depth = scar(0.0, depth_c * C, 0.4)
    red, nom, tried = [], [], 0
    while len(red) < n:
        eps, psq, whirl = rng.uniform(0.1, 0.9), rng.uniform(-math.pi, math.pi), rng.uniform(-1, 1)
        alpha, psig = rng.uniform(-math.pi, math.pi), rng.uniform(0, 2 * math.pi)
        tried += 1
        s = rey.solve_film(eps, ld, psq, cavitation="jfo", groove=True, groove_angle=(psig - alpha - math.pi) % (2 * math.pi),
                           wear=rey.bushing_wear(PSI, depth, C, alpha), whirl=whirl, n_theta=96, n_y=17,
                           max_iter=jt.MAX_ITER, warn=False)   # the flag read below
        if not s.info["jfo_converged"] or s.f_e == s.f_t == 0.0:
            continue
        ref = complex(s.f_e, s.f_t)
        m = reg.create("lubrication", "finite_bearing_jfo", {"viscosity": MU, "groove_angle": psig})
        red.append(abs(dimless(jt.jfo_kernel, m.pack_worn(g, depth), eps, psq, whirl, alpha) - ref) / abs(ref))
        nom.append(abs(dimless(jt.jfo_kernel, m.pack(g), eps, psq, whirl, alpha) - ref) / abs(ref))
    return np.array(red), np.array(nom), tried


def main(n=150):
    for ld in (2.0, 0.5):
        for depth_c in (0.25, 0.5):
            t0 = time.perf_counter()
            red, nom, tried = measure(ld, depth_c, n)
            f = lambda a: f"{a.max():.1%} / {np.percentile(a, 95):.1%} / {np.median(a):.1%}"  # noqa: E731
            print(f"L/D {ld:g}, scar {depth_c:g} c: {n} of {tried} states converged; reduced {f(red)}; "
                  f"circular JFO table {f(nom)}  ({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 150)
