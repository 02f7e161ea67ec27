"""Cost of one force evaluation of each lubrication model (workbench.lubrication).

Each model's compiled kernel is called in a compiled loop over a fixed set of journal states
(eccentricity ratio 0.05-0.98, squeeze and whirl rates, speed), on the same steel joint as the
conformance suite (R 10 mm, c 0.1 mm, L 10 mm); the cost per call is printed with its ratio to
the Hertz contact kernel (``contact:hertz``, the cheapest dry law) and to the Lankarani-Nikravesh
law, measured in this process; the closed-form films and the asperities on a worn bushing (a
scar on 720 nodes: the worn-film quadrature; the finite bearing's reduced worn model) too, and the
grooved JFO table (``finite_bearing_jfo``) as a ratio to the Gümbel table.  The finite bearing's one-off table build and one direct FE solve
(Gümbel, Reynolds LCP, JFO) are timed too, and the Flores slider-crank per crank revolution
with its rod-slider joint dry (Lankarani-Nikravesh, e = 0.9) and lubricated by each model (0.4 Pa
s, L = 40 mm; the dry law stays the backstop), and the mixed model in its mixed regime (0.01 Pa s,
roughness 2 um, L = 10 mm, as studies/slider_crank_wear_mixed.toml): wall time (after
compilation), steps and right-hand-side calls, as ratios to the dry run.  Run:
``python tests/benchmarks/bench_lubrication.py``.  Not a test: no timing is asserted.
"""
from __future__ import annotations

import dataclasses
import math
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

from workbench.conformance import standard_geometry
from workbench.plugins import build_registry


def _states(n=4096, c=1e-4, seed=0):
    rng = np.random.default_rng(seed)
    eps = rng.uniform(0.05, 0.98, n)
    a = rng.uniform(-math.pi, math.pi, n)
    S = np.empty((n, 5))
    S[:, 0] = eps * c * np.cos(a); S[:, 1] = eps * c * np.sin(a)
    S[:, 2] = rng.normal(0, 50 * c, n); S[:, 3] = rng.normal(0, 50 * c, n)
    S[:, 4] = rng.uniform(50, 500, n)
    return S


def _lub_loop(kernel):
    @njit
    def loop(S, p, reps):
        acc = 0.0
        for _ in range(reps):
            for i in range(S.shape[0]):
                fx, fy, t = kernel(S[i, 0], S[i, 1], S[i, 2], S[i, 3], S[i, 4], p)
                acc += fx + fy + t
        return acc
    return loop


def _contact_loop(kernel):
    @njit
    def loop(S, p, reps):
        acc = 0.0
        for _ in range(reps):
            for i in range(S.shape[0]):
                acc += kernel(1e-6 * (1.0 + S[i, 0] * 1e3), S[i, 2], 0.5, p)
        return acc
    return loop


def _per_call(loop, S, p, reps=50):
    loop(S, p, 1)                         # compile
    best = math.inf
    for _ in range(5):
        t = time.perf_counter(); loop(S, p, reps); best = min(best, time.perf_counter() - t)
    return best / (reps * S.shape[0])


def main():
    reg = build_registry()
    geo = standard_geometry("cylindrical")
    S = _states()
    ref = {}
    for name in ("hertz", "lankarani_nikravesh"):
        m = reg.create("contact", name)
        ref[name] = _per_call(_contact_loop(type(m).kernel), S, m.pack(geo))
    print(f"{'model':34s} {'ns/call':>9s} {'/hertz':>8s} {'/LN':>8s}")
    for name, t in ref.items():
        print(f"contact:{name:26s} {t * 1e9:9.1f} {t / ref['hertz']:8.2f} {t / ref['lankarani_nikravesh']:8.2f}")
    per_call = {}
    for name in reg.names("lubrication"):
        m = reg.create("lubrication", name)
        t0 = time.perf_counter(); p = m.pack(geo); tp = time.perf_counter() - t0
        t = per_call[name] = _per_call(_lub_loop(type(m).kernel), S, p)
        extra = f"   (pack {tp:.2f} s: table build or cache)" if tp > 0.05 else ""
        print(f"lubrication:{name:22s} {t * 1e9:9.1f} {t / ref['hertz']:8.2f} {t / ref['lankarani_nikravesh']:8.2f}{extra}")
    if "finite_bearing_jfo" in per_call:
        # the JFO table (tricubic, 64 nodes, groove angle from the line of centres) against the
        # Gümbel table (bicubic, 16 nodes), same process
        print(f"finite_bearing_jfo / finite_bearing (Gümbel table): "
              f"{per_call['finite_bearing_jfo'] / per_call['finite_bearing']:.2f}")
    # the worn bore (workbench.lubrication.worn_film): a 0.2 c scar on the wear loop's 720 nodes
    psi = 2 * math.pi * np.arange(720) / 720
    scar = 0.2 * geo.clearance * np.exp(-(np.angle(np.exp(1j * (psi - 1.0))) / 0.3) ** 2)
    for name, prm in (("short_bearing", {}), ("long_bearing", {"cavitation": "gumbel"}),
                      ("mixed_lubrication", {}), ("short_bearing", {"cavitation": "pi_film"}),
                      ("long_bearing", {"cavitation": "pi_film"}), ("finite_bearing", {}),
                      ("finite_bearing_jfo", {})):
        m = reg.create("lubrication", name, prm)
        for label, p in (("", m.pack(geo)), (", worn", m.pack_worn(geo, scar))):
            if label == "" and prm.get("cavitation") != "gumbel":
                continue                                  # the unworn rows are above
            t = _per_call(_lub_loop(type(m).kernel), S, p)
            tag = f"{name}{' ' + prm['cavitation'] if prm else ''}{label}"
            print(f"lubrication:{tag:22s} {t * 1e9:9.1f} {t / ref['hertz']:8.2f} {t / ref['lankarani_nikravesh']:8.2f}")
    from workbench.lubrication import finite_bearing as fb, reynolds as rey
    t0 = time.perf_counter(); fb.build_table(1.0, "gumbel", 65, 72, 96, 17); tb = time.perf_counter() - t0
    print(f"finite_bearing table build (L/D = 1, Gümbel, 65 x 72 nodes, 96 x 17 mesh): {tb:.2f} s")
    for cav, kw in (("gumbel", {}), ("reynolds", {}), ("jfo", {"groove": True})):
        rey.solve_film(0.6, 1.0, 0.0, cavitation=cav, n_theta=96, n_y=25, **kw)
        t0 = time.perf_counter()
        for _ in range(5):
            rey.solve_film(0.6, 1.0, 0.0, cavitation=cav, n_theta=96, n_y=25, **kw)
        t = (time.perf_counter() - t0) / 5
        print(f"direct FE solve, {cav:8s} (96 x 25 mesh): {t * 1e3:8.1f} ms = {t / ref['hertz']:.2e} x hertz")

    slider_crank_per_revolution(reg)


def slider_crank_per_revolution(reg, revolutions: int = 2):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from mechanisms import OMEGA, slider_crank
    from workbench.mbs.solution import SolverSettings
    from workbench.mbs.solver import simulate
    dry = slider_crank(reg.create("contact", "lankarani_nikravesh", {"restitution": 0.9}), None, clearance=0.5e-3)
    c = dry.clearance_joints[0]
    st = SolverSettings(t_end=revolutions * 2 * math.pi / OMEGA, output_step=1e-5)
    cases = [("dry (lankarani_nikravesh)", dry)]
    for name in reg.names("lubrication"):
        lub = reg.create("lubrication", name, {"viscosity": 0.4})
        cases.append((name, dataclasses.replace(dry, clearance_joints=(
            dataclasses.replace(c, lubrication=lub, length=0.04),))))
    # the mixed regime of studies/slider_crank_wear_mixed.toml: asperities carry part of the load
    lub = reg.create("lubrication", "mixed_lubrication", {"viscosity": 0.01, "roughness": 2.0e-6})
    cases.append(("mixed, 0.01 Pa s, 2 um, L 10mm", dataclasses.replace(dry, clearance_joints=(
        dataclasses.replace(c, lubrication=lub, length=0.01),))))
    print(f"Flores slider-crank, per crank revolution ({revolutions} simulated):")
    print(f"{'joint':28s} {'wall s':>8s} {'steps':>8s} {'rhs':>8s} {'x wall':>7s} {'x rhs':>7s} {'impacts':>8s}")
    base = None
    for name, m in cases:
        simulate(m, dataclasses.replace(st, t_end=st.t_end / revolutions / 8))     # compile / warm the table
        t0 = time.perf_counter(); sim = simulate(m, st); wall = (time.perf_counter() - t0) / revolutions
        steps, rhs = sim.stats["steps"] / revolutions, sim.stats["rhs_calls"] / revolutions
        base = base or (wall, rhs)
        print(f"{name:28s} {wall:8.3f} {steps:8.0f} {rhs:8.0f} {wall / base[0]:7.2f} {rhs / base[1]:7.2f} "
              f"{sim.stats['events']:8d}")


if __name__ == "__main__":
    main()
