"""Efficiency of a sweep of many short cases on dask workers.  A script: prints, asserts nothing.

    python tests/benchmarks/bench_sweep_batches.py [--cases 1000] [--workers 2] [--t-end 2e-4] [--skip-serial]

Runs ``--cases`` short cases of the Flores slider-crank (studies/flores_slider_crank.toml cut to
``--t-end`` seconds, the restitution swept) first serially and then on a dask LocalCluster of
``--workers`` single-threaded worker processes (the cases go in batches,
workbench.sweeps.batches), in this one process, and prints for each

* the wall time of the whole sweep (cluster start and warm-up included) and of the cases alone,
* the sum of the cases' CPU times (per-thread CPU of each case on its worker),
* the efficiency ``sum of case CPU / (workers x wall)`` (of the whole sweep and of the cases),
* on a shared machine, two efficiencies that discount the CPU the session was not given:

  - **CPU-share corrected**: ``sum of case CPU / (workers x wall x share)``, ``share`` the fraction
    of the workers' wall-clock capacity their processes actually got, ``share = CPU of the sweep's
    processes / (workers x wall)``; the CPU is ``resource.getrusage`` of this process (the
    scheduler and the client run here) plus that of its children (the nannies and workers, counted
    once the cluster has closed and they were reaped), before and after.  This is the share of the
    CPU the sweep got that went into the cases, so it also counts a worker waiting for work as
    lost only through the CPU it burns waiting: read it beside the next one;
  - **relative to serial**: the dask run's case-CPU rate (case CPU per second of the cases'
    wall time, start-up excluded) over ``workers`` times the serial run's, measured in the same
    process just before (the serial run's rate is what one busy process got from the machine
    then).  On a machine that gives a session one share however many processes it runs (Linux
    autogroup), the ceiling of this one is ``1 / workers``, so it is printed against one serial
    rate too; the CPU-share figure has no such ceiling.

A few serial cases run first (``--warm``, default 4) so that neither mode pays for compiling or
loading the kernels.
"""
from __future__ import annotations

import argparse
import resource
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
    ap.add_argument("--warm", type=int, default=4, help="serial cases run first and not counted")
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
        if a.warm:
            wdoc = dict(doc, grid={k: v[:a.warm] for k, v in doc["grid"].items()})
            (tmp / "w.toml").write_text(tomli_w.dumps(wdoc))
            run_sweep(load_sweep(tmp / "w.toml", registry=registry), tmp / "warm.nc", registry=registry,
                      progress=False, serial=True)
        runs = [] if a.skip_serial else [("serial", dict(serial=True), 1)]
        runs.append((f"dask, {a.workers} workers", dict(dask=True, workers=a.workers), a.workers))
        serial_rate = None
        for name, how, n in runs:
            r0 = process_cpu()
            t0 = time.perf_counter()
            ds = run_sweep(sw, tmp / f"{name.split(',')[0]}.nc", registry=registry, progress=False, **how)
            wall = time.perf_counter() - t0
            got = process_cpu() - r0
            cpu = float(np.nansum(ds["cpu_time"].values))
            cases = float(ds.attrs.get("run_cases_time", np.nan))
            ok = int((ds["status"].values == "ok").sum())
            share = got / (n * wall)
            print(f"{name}: {ok}/{a.cases} ok, wall {wall:.1f} s (cases {cases:.1f} s, start-up "
                  f"{float(ds.attrs.get('run_startup_time', np.nan)):.1f} s), sum of case CPU {cpu:.1f} s, "
                  f"mean case {1e3 * cpu / a.cases:.0f} ms CPU; efficiency {100 * cpu / (n * wall):.1f} % "
                  f"(cases alone {100 * cpu / (n * cases):.1f} %); the processes got {got:.1f} s of CPU, "
                  f"{100 * share:.1f} % of {n} x wall: CPU-share corrected efficiency "
                  f"{100 * cpu / (n * wall * share):.1f} %", flush=True)
            if serial_rate is None and how.get("serial"):
                serial_rate = cpu / cases
            elif serial_rate:
                rate = cpu / cases
                print(f"  case-CPU rate while the cases ran {rate:.3f} core-s/s against the serial run's "
                      f"{serial_rate:.3f}: {100 * rate / (n * serial_rate):.1f} % of {n} x serial, "
                      f"{100 * rate / serial_rate:.1f} % of 1 x serial (the ceiling when the machine gives the "
                      f"session one share however many processes it runs)", flush=True)


def process_cpu() -> float:
    """CPU seconds (user + system) of this process and of its reaped children."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


if __name__ == "__main__":
    main()
