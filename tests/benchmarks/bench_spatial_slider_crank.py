"""Benchmark: the spatial engine against Exudyn on the spatial slider-crank with ideal joints, at
matched accuracy.

The Flores slider-crank (``studies/ideal_slider_crank.toml``) as the spatial R-U-S-P chain of
``tests/spatial/slider_crank.py``, crank driven at 5000 rpm, two revolutions (0.024 s).  The crank
is driven, so the positions are fixed by the constraints (kinematics); the dynamics shows in the
driving moment.  Accuracy: the largest error of the crank moment [N m] over the second revolution
(samples every 1e-4 s) against the planar engine at rtol 1e-12, atol 1e-15 (an independent code
path; the spatial engine reproduces it to 1e-7 of the peak, tests/spatial/test_planar_as_spatial.py).
Exudyn (``tests/reference/exudyn_spatial_slider_crank.py``): Euler-parameter rigid bodies,
Exudyn's joints, the drive a symbolic (C++) offset function, generalized-alpha at constant steps
with spectral radius 0.9 (Exudyn's default; at 1 the undamped Lagrange multipliers, hence the
crank moment, oscillate from step to step and do not converge; modified Newton, Exudyn's default),
the moment from a sensor stored in memory every 1e-4 s.
The workbench: the spatial engine's fast path (compiled right-hand side, DOP853) at a range of
tolerances.  For each workbench tolerance the Exudyn step whose error is closest from below is
found and the wall-time ratio printed, for the integration alone (``stats['wall_time']``, which
is what Exudyn's ``SolveDynamic`` times) and for the whole ``simulate`` call (the samples'
moments and records evaluated afterwards on the reference path).

Run: ``WORKBENCH_CACHE=... python tests/benchmarks/bench_spatial_slider_crank.py`` (a warm-up run
first loads the compiled kernels; timings are the smaller of two runs).
"""
from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE)); sys.path.insert(0, str(HERE.parent)); sys.path.insert(0, str(HERE.parent / "spatial"))

T_END = 0.024
SAMPLE = 1e-4
STUDY = HERE.parents[1] / "studies" / "ideal_slider_crank.toml"


def _settings(**kw):
    from workbench.plugins import build_registry
    from workbench.study.load import load_study
    st = load_study(STUDY, registry=build_registry())
    return st, dataclasses.replace(st.solver, t_end=T_END, output_step=SAMPLE, **kw)


def reference():
    from workbench import engines
    st, s = _settings(rtol=1e-12, atol=1e-15)
    sim = engines.simulate(st.mechanism, s)
    return sim.time, sim.driver_load[:, 0]


def error(t, m, t_ref, m_ref):
    """Largest |crank moment - reference| [N m] over the second revolution."""
    k = np.rint(t / SAMPLE).astype(int)
    kr = np.rint(t_ref / SAMPLE).astype(int)
    sel = k >= int(round(0.5 * T_END / SAMPLE))
    ref = dict(zip(kr, m_ref))
    return float(np.max(np.abs(m[sel] - np.array([ref[x] for x in k[sel]]))))


def workbench_run(rtol):
    from slider_crank import mechanism
    from workbench import engines
    _, s = _settings(rtol=rtol, atol=rtol * 1e-3, engine="spatial")
    w0 = time.perf_counter()
    sim = engines.simulate(mechanism(), s)
    whole = time.perf_counter() - w0
    return sim.time, sim.driver_load[:, 0], sim.stats["wall_time"], whole, sim.stats["rhs_calls"]


def main():
    from reference.exudyn_spatial_slider_crank import ideal
    t_ref, m_ref = reference()
    peak = float(np.abs(m_ref).max())
    print(f"reference: planar engine, rtol 1e-12; crank moment peak {peak:.6g} N m")
    workbench_run(1e-6)   # warm-up: load the compiled kernels
    ideal(T_END, 1e-4, spectral_radius=0.9)
    ex = []
    for h in (1e-4, 5e-5, 2e-5, 1e-5, 5e-6, 2e-6, 1e-6):
        runs = [ideal(T_END, h, spectral_radius=0.9) for _ in range(2)]
        t, m, wall = min(runs, key=lambda r: r[2])
        ex.append((h, error(t, m, t_ref, m_ref), wall))
        print(f"exudyn    h = {h:8.1e} s: error {ex[-1][1]:.3e} N m ({ex[-1][1] / peak:.1e} of the peak), "
              f"wall {wall:.4f} s")
    print()
    for rtol in (1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10):
        t, m, wall, whole, calls = min((workbench_run(rtol) for _ in range(2)), key=lambda r: r[2])
        err = error(t, m, t_ref, m_ref)
        match = [e for e in ex if e[1] <= err]
        ratio = (f"{match[0][2] / wall:.2f}x integration, {match[0][2] / whole:.2f}x whole call (Exudyn h = "
                 f"{match[0][0]:.0e}, error {match[0][1]:.2e} N m)") if match else "no Exudyn step as accurate"
        print(f"workbench rtol = {rtol:.0e}: error {err:.3e} N m ({err / peak:.1e} of the peak), integration "
              f"{wall:.4f} s, whole call {whole:.4f} s, {calls} rhs calls, {wall / calls * 1e6:.1f} us/call; "
              f"Exudyn time / workbench time at matched accuracy: {ratio}")


if __name__ == "__main__":
    main()
