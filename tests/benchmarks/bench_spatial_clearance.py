"""Benchmark: the spatial engine against Exudyn on the spatial slider-crank with a revolute
clearance joint (``studies/spatial_slider_crank_clearance.toml``: aligned bore, Lankarani-Nikravesh
e = 0.9, Ambrosio friction), at matched accuracy; and Exudyn as an independent check of the
clearance model.

Accuracy: the error of the journal's offset in the bore (journal centre minus bore centre, the
quantity the contact acts on) at ``T_CHECK``, after the first impacts and before the response
turns chaotic, against the workbench at rtol 1e-12, atol 1e-15.  Exudyn (``clearance`` of
``tests/reference/exudyn_spatial_slider_crank.py``): Euler-parameter rigid bodies, Exudyn's
joints, the clearance joint an ``ObjectConnectorRigidBodySpringDamper`` with a symbolic (C++) user function of
the same laws with the same packed parameters, the impact speed kept by a Python pre-step function
(once per step; its share of Exudyn's time is printed and a ratio without it too),
generalized-alpha at constant steps (spectral radius 0.9, Exudyn's default).  The workbench: the
spatial engine's fast path (compiled model and contact points, DOP853, contact starts located as
events) at a range of tolerances, timed as the integration alone (``stats['wall_time']``, as
Exudyn's ``SolveDynamic``) and as the whole ``simulate`` call (with the impact table's peak search
and the samples' records).

Independent check: the first impact (time, approach speed, peak normal force) of both codes, and
the convergence of Exudyn's offset at ``T_CHECK`` to the workbench's reference as the step shrinks.

Run: ``WORKBENCH_CACHE=... python tests/benchmarks/bench_spatial_clearance.py [T_CHECK]``.
"""
from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

STUDY = HERE.parents[1] / "studies" / "spatial_slider_crank_clearance.toml"
#: s, the time of the accuracy check: half a crank revolution (18 impacts), or the first argument
#: (0.0015 s: four impacts, less amplification of small differences through the impacts)
T_CHECK = float(sys.argv[1]) if len(sys.argv) > 1 else 0.006


def _study():
    from workbench.plugins import build_registry
    from workbench.study.load import load_study
    return load_study(STUDY, registry=build_registry())


def laws(st):
    """The packed contact and friction parameters of the study's joint B (the Exudyn connector's)."""
    from workbench.spatial.clearance.forces import contact_geometry
    cj = st.mechanism.spatial_clearance_joints[0]
    return np.asarray(cj.contact.pack(contact_geometry(cj)), float), np.asarray(cj.friction.pack(), float), cj


def workbench_run(st, rtol, atol=None):
    from workbench import engines
    s = dataclasses.replace(st.solver, t_end=T_CHECK, output_step=T_CHECK, rtol=rtol,
                            atol=rtol * 1e-3 if atol is None else atol)
    w0 = time.perf_counter()
    sim = engines.simulate(st.mechanism, s)
    whole = time.perf_counter() - w0
    ecc = sim.extras["clearance_offset"][-1, 0]
    first = (sim.impact_time[0], sim.impact_velocity[0], sim.impact_peak_force[0]) if len(sim.impact_time) else None
    return {"ecc": ecc, "wall": sim.stats["wall_time"], "whole": whole, "calls": sim.stats["rhs_calls"],
            "impacts": len(sim.impact_time), "first": first}


def main():
    from reference.exudyn_spatial_slider_crank import clearance
    st = _study()
    law, fric, cj = laws(st)
    print(f"joint B: K = {law[0]:.6g} N/m^1.5, n = {law[1]:g}, chi = {law[2]:.4g}, v_floor = {law[3]:g} m/s; "
          f"friction c_f = {fric[0]:g}, v0 = {fric[1]:g} m/s, v1 = {fric[2]:g} m/s")
    ref = workbench_run(st, 1e-12, 1e-15)
    t1, v1, f1 = ref["first"]
    print(f"reference (workbench, rtol 1e-12): {ref['impacts']} impacts to {T_CHECK} s; offset at {T_CHECK} s "
          f"{ref['ecc'].tolist()} m; first impact t = {t1:.10g} s, approach speed {v1:.10g} m/s, "
          f"peak force {f1:.10g} N")
    workbench_run(st, 1e-6)                # warm-up: load the compiled kernels
    clearance(T_CHECK, 1e-5, law, fric)
    ex = []
    print()
    for h in (1e-5, 5e-6, 2e-6, 1e-6, 5e-7, 2e-7, 1e-7, 5e-8):
        r = min((clearance(T_CHECK, h, law, fric) for _ in range(2)), key=lambda r: r["wall"])
        err = float(np.linalg.norm(r["ecc"] - ref["ecc"]))
        ex.append((h, err, r["wall"], r["wall"] - r["prestep"]))
        imp = r["impacts"]
        first = (f"first impact t = {imp[0, 0]:.8g} s ({imp[0, 0] / t1 - 1:+.1e}), approach speed {imp[0, 1]:.8g} m/s "
                 f"({imp[0, 1] / v1 - 1:+.1e}), peak force {imp[0, 2]:.8g} N ({imp[0, 2] / f1 - 1:+.1e}); "
                 f"{len(imp)} impacts") if len(imp) else "no impact"
        print(f"exudyn    h = {h:8.1e} s: offset error {err:.3e} m, wall {r['wall']:.3f} s (pre-step function "
              f"{r['prestep']:.3f} s); {first}")
    print()
    for rtol in (1e-5, 3e-6, 1e-6, 3e-7, 1e-7, 3e-8, 1e-8, 1e-9, 1e-10):
        r = min((workbench_run(st, rtol) for _ in range(2)), key=lambda r: r["wall"])
        err = float(np.linalg.norm(r["ecc"] - ref["ecc"]))
        match = [e for e in ex if e[1] <= err]
        ratio = (f"{match[0][2] / r['wall']:.2f}x integration ({match[0][3] / r['wall']:.2f}x without Exudyn's "
                 f"pre-step function), {match[0][2] / r['whole']:.2f}x whole call (Exudyn h = {match[0][0]:.0e}, "
                 f"error {match[0][1]:.2e} m)") if match else "no Exudyn step as accurate"
        print(f"workbench rtol = {rtol:.0e}: offset error {err:.3e} m, integration {r['wall']:.3f} s, whole call "
              f"{r['whole']:.3f} s, {r['calls']} rhs calls, {r['wall'] / r['calls'] * 1e6:.1f} us/call, "
              f"{r['impacts']} impacts; Exudyn time / workbench time at matched accuracy: {ratio}")


if __name__ == "__main__":
    main()
