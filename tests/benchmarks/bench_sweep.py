"""Parallel efficiency of ``workbench sweep`` (issue 5 item 7).  A script: prints, asserts nothing.

    python tests/benchmarks/bench_sweep.py [--repeat N] [--workers 2] [--quick]

Runs the contact-law comparison (studies/contact_law_comparison.toml: 13 cases, two crank
revolutions each) serially in this process and on a dask LocalCluster of ``--workers`` processes,
alternately, ``--repeat`` times, and prints for each the wall time of

* the cases alone (after the start-up: cluster start and every worker's warm-up, i.e. the plugin
  registry and the numba kernels loaded from the on-disk cache), and
* the whole run (start-up included),

and the parallel efficiency ``T_serial / (workers * T_parallel)`` of both (best of the repeats).
The bound that the unequal case durations allow (13 cases on 2 workers, longest-first) is printed
too.  ``--quick`` cuts each case to 0.4 ms of simulated time (a smoke test of the script).

The machine is shared: the load average before and after each run is printed, and the CPU time
the cases got as a share of the wall time of the cores they were given (near 100 % on a quiet
machine), so a run made while other jobs were busy can be recognised.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
STUDY = ROOT / "studies" / "contact_law_comparison.toml"


def _load(quick: bool):
    import tomli_w
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    from workbench.sweep_spec import load_sweep, load_sweep_text
    if not quick:
        return load_sweep(STUDY)
    doc = tomllib.loads(STUDY.read_text(encoding="utf-8"))
    doc["sweep"]["base"] = str(STUDY.parent / doc["sweep"]["base"])
    doc["sweep"]["unset"] = ["solver.revolutions"]
    doc["set"]["solver.t_end"] = 0.4e-3
    return load_sweep_text(tomli_w.dumps(doc), file=STUDY)


def _lpt_makespan(times: list[float], workers: int) -> float:
    """Makespan of longest-processing-time-first list scheduling of ``times`` on ``workers``."""
    loads = [0.0] * workers
    for t in sorted(times, reverse=True):
        loads[loads.index(min(loads))] += t
    return max(loads)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    warnings.filterwarnings("ignore", category=RuntimeWarning)   # plugins that fail to load
    from workbench.plugins import build_registry
    from workbench.sweep import run_sweep
    registry = build_registry()
    sweep = _load(args.quick)
    print(f"{sweep.title}: {len(sweep.cases)} cases, {os.cpu_count()} cores, "
          f"{args.workers} workers, {args.repeat} repeats{' (quick)' if args.quick else ''}")
    best = {"serial": None, "parallel": None}
    case_times: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench_sweep_") as tmp:
        for r in range(args.repeat):
            for mode in ("serial", "parallel"):
                load0 = os.getloadavg()[0]
                t0 = time.perf_counter()
                ds = run_sweep(sweep, Path(tmp) / f"{mode}{r}.nc", serial=mode == "serial",
                               workers=None if mode == "serial" else args.workers,
                               registry=registry, progress=False)
                total = time.perf_counter() - t0
                cases, start = float(ds.attrs["run_cases_time"]), float(ds.attrs["run_startup_time"])
                failed = int((ds["status"].values != "ok").sum())
                cpu = float(np.nansum(ds["cpu_time"].values))
                share = cpu / ((1 if mode == "serial" else args.workers) * cases)
                print(f"  {mode:8s} run {r}: cases {cases:6.2f} s, start-up {start:5.2f} s, "
                      f"total {total:6.2f} s, failed {failed}; CPU of the cases {cpu:6.2f} s = "
                      f"{share:.0%} of the cores' wall time; load average {load0:.2f} -> "
                      f"{os.getloadavg()[0]:.2f}")
                if mode == "serial":
                    case_times = [float(t) for t in ds["wall_time"].values.ravel()]
                b = best[mode]
                best[mode] = (min(cases, b[0]), min(total, b[1])) if b else (cases, total)
    (s_cases, s_total), (p_cases, p_total) = best["serial"], best["parallel"]
    n = args.workers
    bound = sum(case_times) / (n * _lpt_makespan(case_times, n))
    print(f"best serial:   cases {s_cases:.2f} s, total {s_total:.2f} s")
    print(f"best parallel: cases {p_cases:.2f} s, total {p_total:.2f} s")
    print(f"parallel efficiency T_serial / ({n} T_parallel): cases {s_cases / (n * p_cases):.1%}, "
          f"total (start-up included) {s_total / (n * p_total):.1%}")
    print(f"bound from the unequal case durations (longest first on {n} workers): {bound:.1%}")


if __name__ == "__main__":
    main()
