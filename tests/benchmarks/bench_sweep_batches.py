"""Efficiency of a sweep of many short cases on dask workers.  A script: prints, asserts nothing.

    python tests/benchmarks/bench_sweep_batches.py [--cases 1000] [--workers 2] [--t-end 2e-4] [--skip-serial]

Runs ``--cases`` short cases of the Flores slider-crank (studies/flores_slider_crank.toml cut to
``--t-end`` seconds, the restitution swept) first serially and then on a dask LocalCluster of
``--workers`` single-threaded worker processes (the cases go in batches,
workbench.sweeps.batches), in this one process, and prints for each

* the wall time of the whole sweep (cluster start and warm-up included) and of the cases alone,
* the sum of the cases' CPU times (per-thread CPU of each case on its worker),
* the efficiency ``sum of case CPU / (workers x wall)`` (of the whole sweep and of the cases).

The machine this runs on may be shared: the serial baseline, measured in the same process just
before, says how much CPU a case got then.
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import tomli_w

ROOT = Path(__file__).resolve().parents[2]
FLORES = ROOT / "studies" / "flores_slider_crank.toml"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--t-end", type=float, default=2.0e-4)
    ap.add_argument("--skip-serial", action="store_true")
    a = ap.parse_args()
    from workbench.plugins import build_registry
    from workbench.sweeps.run import run_sweep
    from workbench.sweeps.spec import load_sweep
    registry = build_registry()
    with tempfile.TemporaryDirectory(prefix="bench-batches-") as tmp:
        tmp = Path(tmp)
        doc = {"sweep": {"title": "many short cases", "base": str(FLORES), "summary": ["n_impacts"],
                         "unset": ["solver.revolutions"]},
               "set": {"solver.t_end": a.t_end, "output.compare_ideal": False},
               "grid": {"mechanism.clearance_joints[0].contact.restitution":
                        list(np.linspace(0.8, 0.99, a.cases))}}
        (tmp / "s.toml").write_text(tomli_w.dumps(doc))
        sw = load_sweep(tmp / "s.toml", registry=registry)
        runs = [] if a.skip_serial else [("serial", dict(serial=True), 1)]
        runs.append((f"dask, {a.workers} workers", dict(dask=True, workers=a.workers), a.workers))
        for name, how, n in runs:
            t0 = time.perf_counter()
            ds = run_sweep(sw, tmp / f"{name.split(',')[0]}.nc", registry=registry, progress=False, **how)
            wall = time.perf_counter() - t0
            cpu = float(np.nansum(ds["cpu_time"].values))
            cases = float(ds.attrs.get("run_cases_time", np.nan))
            ok = int((ds["status"].values == "ok").sum())
            print(f"{name}: {ok}/{a.cases} ok, wall {wall:.1f} s (cases {cases:.1f} s, start-up "
                  f"{float(ds.attrs.get('run_startup_time', np.nan)):.1f} s), sum of case CPU {cpu:.1f} s, "
                  f"mean case {1e3 * cpu / a.cases:.0f} ms CPU; efficiency {100 * cpu / (n * wall):.1f} % "
                  f"(cases alone {100 * cpu / (n * cases):.1f} %)", flush=True)


if __name__ == "__main__":
    main()
