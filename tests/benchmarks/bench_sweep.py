"""Parallel efficiency of ``workbench sweep``.  A script: prints, asserts nothing.

    python tests/benchmarks/bench_sweep.py [--study contact|wear] [--repeat N] [--workers 2] [--quick] [--dask]

Runs the contact-law comparison (studies/contact_law_comparison.toml: 13 cases, two crank
revolutions each) or, with ``--study wear``, the wear comparison (studies/wear_model_comparison.toml:
9 cases, pressure model x wear law) as a user would, ``workbench sweep ... --serial`` and
``workbench sweep ... --workers N`` (workers forked from the sweep's process on Linux; with
``--dask`` a dask LocalCluster), each in a fresh process, alternately, ``--repeat`` times.  The sweep sends its cases longest first from the costs measured by earlier
sweeps (workbench.sweeps.costs); the benchmark keeps its own cost file, so its first parallel run
is a first sweep (file order, ``parallel-new``) and every later one is ordered by the serial run
before it.  For each run it prints

* ``total``: the wall time of the whole command (interpreter, imports, plugin registry, cluster
  start, warm-up of the compiled kernels, cases, writing);
* ``cases``: the wall time of the cases alone, after the start-up;
* the CPU time the cases got, as a share of the wall time of the cores they were given: near
  100 % on a quiet machine.  The machine is shared, and the kernel's autogroup scheduling gives
  one terminal session one share of the CPUs however many processes it runs: while another job is
  busy the workers get well under a core each and the measured efficiency means little.

and, from the best of the repeats, the parallel efficiency ``T_serial / (N T_parallel)`` of
``cases`` and of ``total``; the bound the unequal case durations allow (longest case first on N
workers); and a CPU-time estimate, ``sum of serial case CPU / (N x the largest per-worker sum of
case CPU)``, which is what the wall-time efficiency of the cases would be on an otherwise idle
machine, less the dispatch latency; and the CPU time of the whole command (every process: the
sweep's own, the scheduler, the workers), serial over parallel: on a machine shared with other
sessions (the kernel's autogroup scheduling gives this session one share of the CPUs however
many processes it runs) the wall times say little, while this ratio bounds the total efficiency
an otherwise idle machine would give.  ``--quick`` cuts each case to 0.4 ms of simulated time
(contact) or 20 000 cycles (wear).

Do not edit the sources while it runs: numba's cache folder is keyed by a hash of every source
file of ``workbench`` and ``workbench_plugins`` (:mod:`workbench.runtime.caches`), so the next command
after an edit compiles every kernel again (~50 s of "start-up").
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
STUDIES = {"contact": ROOT / "studies" / "contact_law_comparison.toml",
           "wear": ROOT / "studies" / "wear_model_comparison.toml"}
STUDY = STUDIES["contact"]


def _sweep_file(tmp: Path, quick: bool) -> Path:
    """The comparison study, with an absolute base path (and cut short for --quick)."""
    import tomli_w
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    doc = tomllib.loads(STUDY.read_text(encoding="utf-8"))
    doc["sweep"]["base"] = str((STUDY.parent / doc["sweep"]["base"]).resolve())
    if quick and STUDY == STUDIES["contact"]:
        doc["sweep"]["unset"] = ["solver.revolutions"]
        doc["set"]["solver.t_end"] = 0.4e-3
    elif quick:
        doc["set"]["wear.cycles"] = 2.0e4
    path = tmp / "sweep.toml"
    path.write_text(tomli_w.dumps(doc), encoding="utf-8")
    return path


def _lpt_makespan(times, workers: int) -> float:
    """Makespan of longest-processing-time-first list scheduling of ``times`` on ``workers``."""
    loads = [0.0] * workers
    for t in sorted(times, reverse=True):
        loads[loads.index(min(loads))] += t
    return max(loads)


def _children_cpu() -> float:
    """CPU time [s] of this process's finished children (and the children they waited for)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run(sweep: Path, out: Path, mode_args: list[str]) -> tuple[float, object, float]:
    from workbench.results.dataset import open_results
    cmd = [sys.executable, "-W", "ignore", "-m", "workbench.cli.main", "sweep", str(sweep), "-o", str(out),
           "--no-plot", *mode_args]
    t0, c0 = time.perf_counter(), _children_cpu()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    total, cpu = time.perf_counter() - t0, _children_cpu() - c0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    return total, open_results(out), cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--study", choices=sorted(STUDIES), default="contact")
    ap.add_argument("--dask", action="store_true", help="parallel runs on a dask LocalCluster")
    args = ap.parse_args()
    global STUDY
    STUDY = STUDIES[args.study]
    n = args.workers
    best: dict[str, tuple[float, float]] = {}
    command_cpu: dict[str, float] = {}
    serial_cpu, parallel_worker_cpu = None, None
    with tempfile.TemporaryDirectory(prefix="bench_sweep_") as tmp:
        sweep = _sweep_file(Path(tmp), args.quick)
        os.environ["WORKBENCH_SWEEP_COSTS"] = str(Path(tmp) / "costs.json")   # the benchmark's own
        print(f"{STUDY.name}: {os.cpu_count()} cores, {n} workers"
              f"{' (dask LocalCluster)' if args.dask else ''}, {args.repeat} repeats"
              f"{' (quick)' if args.quick else ''}")
        # fill the numba cache first (not timed): every measured run then starts warm
        subprocess.run([sys.executable, "-W", "ignore", "-c",
                        "import sys; from workbench.sweeps.run import load_sweep, warm_worker, _warm_args; "
                        "print(warm_worker(*_warm_args(load_sweep(sys.argv[1]))))", str(sweep)], check=True,
                       capture_output=True)
        for r in range(args.repeat):
            par = ["--workers", str(n)] + (["--dask"] if args.dask else [])
            modes = (("serial", ["--serial"]), ("parallel", par))
            if r == 0:   # a first sweep: nothing measured yet, the cases go in file order
                modes = (("parallel-new", par),) + modes
            for mode, flags in modes:
                load0 = os.getloadavg()[0]
                total, ds, command = _run(sweep, Path(tmp) / f"{mode}{r}.nc", flags)
                cases = float(ds.attrs["run_cases_time"])
                cpu = np.asarray(ds["cpu_time"].values, dtype=float).ravel()
                share = np.nansum(cpu) / ((1 if mode == "serial" else n) * cases)
                if mode == "parallel-new":
                    first_sweep = (cases, total)
                failed = int((ds["status"].values != "ok").sum())
                print(f"  {mode:8s} run {r}: total {total:6.2f} s, cases {cases:6.2f} s, "
                      f"start-up {float(ds.attrs['run_startup_time']):5.2f} s, failed {failed}; "
                      f"case CPU {np.nansum(cpu):6.2f} s = {share:.0%} of the cores' wall time; "
                      f"command CPU {command:6.2f} s; "
                      f"load average {load0:.2f} -> {os.getloadavg()[0]:.2f}")
                if mode == "parallel-new":
                    continue
                command_cpu[mode] = min(command, command_cpu.get(mode, np.inf))
                b = best.get(mode)
                best[mode] = (min(cases, b[0]), min(total, b[1])) if b else (cases, total)
                if mode == "serial" and (serial_cpu is None or np.nansum(cpu) < np.nansum(serial_cpu)):
                    serial_cpu = cpu
                if mode == "parallel":
                    per_worker = defaultdict(float)
                    for w, c in zip(np.asarray(ds["worker"].values).ravel(), cpu):
                        per_worker[str(w)] += float(c)
                    m = max(per_worker.values())
                    parallel_worker_cpu = m if parallel_worker_cpu is None else min(m, parallel_worker_cpu)
    (s_cases, s_total), (p_cases, p_total) = best["serial"], best["parallel"]
    print(f"first sweep (file order, nothing measured): parallel efficiency cases "
          f"{s_cases / (n * first_sweep[0]):.1%}, total {s_total / (n * first_sweep[1]):.1%}")
    print(f"best serial:   cases {s_cases:.2f} s, total {s_total:.2f} s")
    print(f"best parallel: cases {p_cases:.2f} s, total {p_total:.2f} s")
    print(f"parallel efficiency T_serial / ({n} T_parallel), wall time: cases {s_cases / (n * p_cases):.1%}, "
          f"total (start-up included) {s_total / (n * p_total):.1%}")
    print(f"bound from the unequal case durations (serial case CPU, longest first on {n} workers): "
          f"{np.nansum(serial_cpu) / (n * _lpt_makespan(serial_cpu, n)):.1%}")
    print(f"CPU-time estimate of the cases' efficiency: {np.nansum(serial_cpu) / (n * parallel_worker_cpu):.1%}")
    print(f"CPU time of the whole command (least of the repeats), serial / parallel: {command_cpu['serial']:.2f} s / "
          f"{command_cpu['parallel']:.2f} s = {command_cpu['serial'] / command_cpu['parallel']:.1%} "
          f"(the most the total efficiency can reach on an otherwise idle machine)")


if __name__ == "__main__":
    main()
