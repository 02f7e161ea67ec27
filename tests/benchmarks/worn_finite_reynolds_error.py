"""Error of the reduced worn finite bearing (workbench/lubrication/worn_finite.py) with Reynolds
(Swift-Stieber LCP) cavitation against direct worn LCP solves (``solve_film(..., cavitation="reynolds",
wear=..., whirl=...)`` on 192 x 25), with the same random states, scar (Gaussian, 0.4 rad) and
scaling as the Gümbel measurement of tests/lubrication/test_worn_finite.py.  A script: prints the
largest / p95 / median relative force error per L/D and scar depth, asserts nothing.

    python tests/benchmarks/worn_finite_reynolds_error.py [N_STATES]   (default 60; ~4 min of CPU)
"""
import math, sys, time
import numpy as np
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lubrication"))
from worn_bore_rig import NODES, PSI, scar
from workbench.lubrication import reynolds as rey
from workbench.plugins import build_registry
from workbench.models import ContactGeometry
MU, R, C, V = 0.04, 0.01, 5e-4, 300.0
from test_worn_finite import _dimless as dimless, _rel as rel   # the Gümbel measurement's scaling  # noqa: E402


def fe(cav, ld, depth, eps, psq, whirl, alpha):
    s = rey.solve_film(eps, ld, psq, cavitation=cav, wear=rey.bushing_wear(PSI, depth, C, alpha), whirl=whirl,
                       n_theta=192, n_y=25)
    return np.array([s.f_e, s.f_t])


n = int(sys.argv[1]) if len(sys.argv) > 1 else 60
for cav in ("reynolds",):
    model = build_registry().create("lubrication", "finite_bearing", {"viscosity": MU, "cavitation": cav})
    for ld in (0.5, 1.0):
        g = ContactGeometry("cylindrical", R, R + C, 2.0 * ld * R)
        t0 = time.time(); model.pack(g); print(f"table {cav} L/D {ld}: {time.time()-t0:.1f} s", flush=True)
        for frac in (0.25, 0.5, 1.0):
            depth = scar(0.0, frac * C, 0.4)
            pw, p0 = model.pack_worn(g, depth), model.pack(g)
            rng = np.random.default_rng(7)
            err, nom = [], []
            for _ in range(n):
                s = (rng.uniform(0.1, 0.95), rng.uniform(-math.pi, math.pi), rng.uniform(-1, 1), rng.uniform(-math.pi, math.pi))
                ref = fe(cav, ld, depth, *s)
                err.append(rel(dimless(model, pw, *s), ref)); nom.append(rel(dimless(model, p0, *s), ref))
            q = lambda a: f"{100*max(a):.0f} / {100*np.percentile(a,95):.1f} / {100*np.median(a):.1f} %"
            print(f"{cav} L/D {ld} scar {frac} c: reduced {q(err)}   circular table {q(nom)}", flush=True)
