"""Benchmark of the batch pressure solves (PressureModel.solve_loads) for the wear loop.

Run:  python tests/benchmarks/bench_pressure_batch.py [nodes] [samples]     (prints; no asserts)

One wear update's contact samples: ``samples`` (default 2000) loads turning and pulsing like a
mechanism cycle (10 % unloaded), each with its own gap on ``nodes`` (default 720) bore nodes — a
worn bushing (crescent pocket, 4 um) against a worn journal (2 um) that turns by 1 deg per
sample.  For each model: time per sample of the batch (compiled kernels / warm-started FE loop, the
kernels compiled beforehand) and of the default loop over ``solve_load`` (the reference path),
measured in the same run — wall and process CPU time, the latter steadier on a shared machine —,
their ratio and the largest difference between them.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from workbench.models import BoreSection, Material, PressureModel
from workbench.plugins import build_registry

R, C, B = 0.01, 20e-6, 0.02
BRONZE, STEEL = Material(110e9, 0.34), Material(207e9, 0.3)

MODELS = [
    ("approximate_area", {"distribution": "uniform"}),
    ("approximate_area", {"distribution": "elliptical"}),
    ("winkler", {"layer_thickness": 5e-3}),
    ("winkler", {"calibrate": "persson"}),
    ("fem", {}),
]


def samples(n: int, ns: int):
    th = 2 * np.pi * np.arange(n) / n
    k = np.arange(ns)
    ang = 2 * np.pi * k / ns * 3 + 0.3 * np.sin(2 * np.pi * k / 41)
    mag = 8e3 * (1 + 0.7 * np.sin(2 * np.pi * k / 97))
    mag[::10] = 0.0
    loads = np.column_stack([mag * np.cos(ang), mag * np.sin(ang)])
    bushing = 4e-6 * np.clip(np.cos(th - 0.5), 0, None) ** 2
    gaps = np.array([C + bushing + 2e-6 * np.clip(np.cos(th - np.radians(1.0) * s), 0, None) ** 2
                     for s in range(ns)])
    return BoreSection(th, R, C + bushing, B, BRONZE, STEEL), loads, gaps


def timed(f):
    """``(result, (wall [s], process CPU [s]))``: on a shared machine the CPU time is the steadier."""
    t, c = time.perf_counter(), time.process_time()
    out = f()
    return out, (time.perf_counter() - t, time.process_time() - c)


def main(n: int = 720, ns: int = 2000) -> None:
    registry = build_registry()
    section, loads, gaps = samples(n, ns)
    print(f"{n} bore nodes, {ns} samples ({np.count_nonzero(np.any(loads, axis=1))} loaded)")
    for name, params in MODELS:
        batch_model = registry.create("pressure", name, params)
        loop_model = registry.create("pressure", name, params)
        # compile the kernels / build (or load) the FE model outside the timings
        batch_model.solve_loads(section, loads[:4], gaps[:4])
        loop_model.solve_load(section, loads[1])
        (p, e), t_batch = timed(lambda: batch_model.solve_loads(section, loads, gaps))
        ref = loop_model
        if name == "winkler" and params.get("calibrate", "none") != "none":
            # the batch calibrates once (mean loaded load); the loop must use the same k to compare
            k_load = float(np.mean(np.hypot(*loads.T)[np.any(loads, axis=1)]))
            ref = registry.create("pressure", name, dict(params, calibration_load=k_load))
            ref.solve_load(section, loads[1])
        (p0, e0), t_loop = timed(lambda: PressureModel.solve_loads(ref, section, loads, gaps))
        peak = np.maximum(p0.max(axis=1), 1e-300)
        dp = np.max(np.abs(p - p0).max(axis=1) / peak)
        label = f"{name}({', '.join(f'{k}={v}' for k, v in params.items())})"
        print(f"  {label:44s} batch {1e6 * t_batch[0] / ns:8.1f} us/sample (cpu {1e6 * t_batch[1] / ns:8.1f})"
              f"   loop {1e6 * t_loop[0] / ns:8.1f} (cpu {1e6 * t_loop[1] / ns:8.1f})"
              f"   ratio {t_loop[0] / t_batch[0]:5.1f}x (cpu {t_loop[1] / t_batch[1]:5.1f}x)"
              f"   max |dp|/p_peak {dp:.1e}")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    main(*args)
