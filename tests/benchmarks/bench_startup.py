"""Start-up time of the ``workbench`` command.  A script: prints, asserts nothing.

    python tests/benchmarks/bench_startup.py [--repeat N] [--before DIR] [--phases-only]

Each command runs in a fresh interpreter, ``--repeat`` times (default 5) after one untimed run
that fills the caches (numba's compiled kernels, ``.pyc`` files); it prints the median wall time,
the median CPU time (user + system, every thread), and the load average around the runs.  On a
shared machine the wall time of a busy moment says little: compare CPU times, or measure when it
is quiet.

* the import floors: a fresh interpreter that only imports the libraries a command cannot do
  without (numpy for ``validate``, which builds the mechanism's arrays and runs its assembly check
  in Python; numba for ``run``; xarray, pandas and the
  netCDF engine besides for ``run``; matplotlib for its plots; dask's array and distributed
  modules, which xarray imports whenever dask is importable), so that a goal below its floor shows;
* ``import workbench`` and ``import workbench.cli.main``: no side effects, nothing heavy;
* ``workbench --help``, ``workbench validate studies/flores_slider_crank.toml`` (builds the
  mechanism and packs every model; warm, it imports no numba: ``workbench.jit``),
  ``workbench run studies/flores_slider_crank.toml`` with ``--no-plot`` and with its four plots
  (0.024 s of motion, and the ideal-joint twin), end to end, and the ``--no-plot`` run once more
  with the interpreter's tear-down at exit (``WORKBENCH_FAST_EXIT=0``, see
  ``workbench.cli.startup.exit_now``);
* the phases of that run (import, numba, registry, parse/validate, results libraries,
  compile-load, solve, dataset, write, plot libraries, plots), timed one after another in one interpreter
  without the background import thread, so that each phase carries its own imports;
  compile-load is the first ``simulate`` (it loads the cached kernels) less a second one;
* the heavy libraries ``validate`` imports and its ten slowest imports (``python -X importtime``).

``--before DIR``: a source tree of an earlier state (``git worktree add DIR <commit>``, with the
``studies/`` folder) measured the same way, its commands and phases beside this checkout's.  The
commands of each tree run with the tree as their working folder, so its ``workbench`` package is
the one imported (the installed ``workbench_plugins`` are shared).

The commands run with ``PYTHONDONTWRITEBYTECODE`` removed from their environment, so that the
``.pyc`` files of the sources are written once and reused, as in any ordinary installation.

Measured with ``--repeat 3`` on 2 shared cores at a load average of 6 (CPU s, medians; the wall
times were about twice as long): floors numpy 0.15, numpy + numba 0.39, + xarray and netCDF4 0.96;
``validate`` 0.29 (no numba: ``workbench.jit``; 0.54-0.68 before), ``run --no-plot`` 1.26 (1.69
with the interpreter's tear-down at exit; 1.80 before), with its plots 2.01.  Phases of that run
(CPU s): import 0.18, numba 0.26, registry 0.05, parse/validate 0.08, results libraries 0.42,
compile-load 0.15, solve 0.12, dataset 0.01, write 0.12; the run end to end (1.26) is now below
the sum of its phases (1.39): the results libraries are imported while the solver runs.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FLORES = ROOT / "studies" / "flores_slider_crank.toml"
HEAVY = ("numba", "scipy", "xarray", "pandas", "zarr", "dask", "distributed", "matplotlib", "skfem",
         "rich", "h5netcdf", "netCDF4")
#: label -> the imports of a fresh interpreter that no command of the label can do without
FLOORS = {
    "python (imports nothing)": "pass",
    "numpy": "import numpy",
    "numpy + numba (validate)": "import numpy, numba",
    "+ xarray, netCDF4 (run)": "import numpy, numba, xarray, netCDF4",
    "+ matplotlib figure, Agg (run's plots)": "import numpy, numba, xarray, netCDF4, matplotlib.figure, "
                                              "matplotlib.backends.backend_agg",
    "numpy, numba, xarray + dask.array, distributed": "import numpy, numba, xarray, netCDF4, dask.array, distributed",
}


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _timed(cmd: list[str], cwd: Path = ROOT, env: dict | None = None) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=ENV if env is None else env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def _best(label: str, cmd: list[str], repeat: int, cwd: Path = ROOT, fresh=None, env: dict | None = None) -> str:
    """Print the median wall and CPU time of ``cmd`` over ``repeat`` runs after an untimed one;
    ``fresh()`` appends a new output path to every run.  Returns the last run's stdout."""
    extra = (lambda: [fresh()]) if fresh else (lambda: [])  # noqa: E731
    _timed(cmd + extra(), cwd, env)   # fills the caches
    runs = []
    load0 = os.getloadavg()[0]
    for _ in range(repeat):
        wall, cpu, text = _timed(cmd + extra(), cwd, env)
        runs.append((wall, cpu))
    import statistics
    wall, cpu = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
    print(f"  {label:50s} median wall {wall:6.3f} s  CPU {cpu:6.3f} s  (best wall {min(runs)[0]:.3f} s; "
          f"load average {load0:.2f} -> {os.getloadavg()[0]:.2f})")
    return text


# ------------------------------------------------------------------ phases of one Flores run
#: the phases of ``workbench run`` on the Flores study, timed one after another in one fresh
#: interpreter (no background import thread, so that each phase carries its own imports)
PHASES = ("import", "numba", "registry", "parse/validate", "results libraries", "compile-load", "solve",
          "dataset", "write", "plot libraries", "plots")


def _phases_child(out: str, hide_dask: bool, root: Path = ROOT) -> None:
    """Run the Flores study phase by phase (as ``workbench run`` does, in order) and print one
    line per phase: name, process CPU time [s] (every thread), wall time [s]."""
    sys.path.insert(0, str(root))    # the tree's workbench, as its commands (run with cwd = root)
    if hide_dask:
        sys.modules["dask"] = None   # as if the optional 'sweep' extra were not installed
    rows = []
    clock = [time.process_time(), time.perf_counter()]

    def lap(name):
        c, w = time.process_time(), time.perf_counter()
        rows.append((name, c - clock[0], w - clock[1]))
        clock[:] = [time.process_time(), time.perf_counter()]

    import workbench.cli.main  # noqa: F401 - the command line itself
    from workbench import kinds
    from workbench.results import outputs  # noqa: F401
    from workbench.study.load import load_study
    lap("import")
    try:   # numba and the source-keyed cache, loaded first as `run` does (workbench.jit.load)
        from workbench.jit import load
    except ImportError:   # a tree before workbench.jit: its modules import numba themselves
        import numba  # noqa: F401
    else:
        load()
    lap("numba")
    from workbench.plugins import build_registry
    registry = build_registry()
    lap("registry")
    study = load_study(root / "studies" / FLORES.name, registry=registry)
    lap("parse/validate")
    import numpy as np
    import xarray as xr
    from workbench.results import dataset as results
    try:
        from workbench.kinds import dynamics_dataset
    except ImportError:        # a checkout from before the dynamics dataset moved up to its kind
        dynamics_dataset = results
    xr.Dataset({"v": ("x", np.zeros(2))}, coords={"x": ["a", "b"]})   # xarray's first-use imports
    lap("results libraries")
    from workbench.mbs.solver import simulate

    def timed(func, *args):
        c, w = time.process_time(), time.perf_counter()
        value = func(*args)
        return value, time.process_time() - c, time.perf_counter() - w

    _, first_c, first_w = timed(simulate, study.mechanism, study.solver)  # kernels loaded + a solve
    sim, main_c, main_w = timed(simulate, study.mechanism, study.solver)   # the solve alone
    ideal, twin_c, twin_w = timed(simulate, study.mechanism.ideal(), study.solver)
    rows.append(("compile-load", first_c - main_c, first_w - main_w))
    rows.append(("solve", main_c + twin_c, main_w + twin_w))
    clock[:] = [time.process_time(), time.perf_counter()]
    ds = dynamics_dataset.simulation_to_dataset(sim, ideal=ideal, study=study, registry=registry)
    ds.attrs["ideal_twin_status"] = "ok"
    lap("dataset")
    results.write_dataset(ds, out)
    lap("write")
    import matplotlib.figure  # noqa: F401
    from matplotlib.backends import backend_agg  # noqa: F401
    from workbench.results import plot
    lap("plot libraries")
    kinds.plots(ds, Path(out).with_name(Path(out).stem + "_plots"))
    lap("plots")
    for name, c, w in rows:
        print(f"{name}\t{c:.4f}\t{w:.4f}")


def _phase_table(py: list[str], tmp: str, repeat: int, root: Path, hide_dask: bool) -> dict:
    """Median CPU and wall time [s] of every phase over ``repeat`` fresh interpreters (after one
    untimed run that fills the caches)."""
    import statistics
    runs = []
    for k in range(repeat + 1):
        cmd = py + [__file__, "--phases-child", str(Path(tmp) / f"phases{k}.nc"), "--root", str(root)] + \
            (["--hide-dask"] if hide_dask else [])
        _, _, text = _timed(cmd, root)
        if k:
            runs.append({n: (float(c), float(w)) for n, c, w in
                         (line.split("\t") for line in text.strip().splitlines())})
    return {n: (statistics.median(r[n][0] for r in runs), statistics.median(r[n][1] for r in runs))
            for n in PHASES}


def _print_phases(py: list[str], tmp: str, repeat: int, before: Path | None) -> None:
    """The phase table: this checkout as its command runs (dask hidden), beside the ``before``
    tree as its command ran (dask importable), or beside this checkout with dask importable."""
    now = _phase_table(py, tmp, repeat, ROOT, hide_dask=True)
    if before is not None:
        other, label = _phase_table(py, tmp, repeat, before, hide_dask=False), f"before ({before.name})"
    else:
        other, label = _phase_table(py, tmp, repeat, ROOT, hide_dask=False), "dask importable"
    print(f"  phases of a Flores run, one after another (median of {repeat} fresh interpreters; "
          "CPU of every thread and wall time [s]):")
    print(f"    {'phase':20s} {label:>22s}   {'now':>22s}")
    print(f"    {'':20s} {'CPU':>10s} {'wall':>11s}   {'CPU':>10s} {'wall':>11s}")
    for n in PHASES:
        print(f"    {n:20s} {other[n][0]:10.3f} {other[n][1]:11.3f}   {now[n][0]:10.3f} {now[n][1]:11.3f}")
    print(f"    {'total':20s} {sum(v[0] for v in other.values()):10.3f} "
          f"{sum(v[1] for v in other.values()):11.3f}   {sum(v[0] for v in now.values()):10.3f} "
          f"{sum(v[1] for v in now.values()):11.3f}")


def _commands(py: list[str], tmp: str, repeat: int, root: Path, label: str) -> None:
    cli = py + ["-m", "workbench.cli.main"]
    study = str(root / "studies" / FLORES.name)
    runs = iter(range(10 ** 6))
    out = lambda: str(Path(tmp) / f"{label}{next(runs)}.nc")  # noqa: E731 - a new output every run
    print(f"  {label}:")
    _best("workbench --help", cli + ["--help"], repeat, root)
    _best("workbench validate (Flores)", cli + ["validate", study], repeat, root)
    text = _best("workbench run (Flores, --no-plot)", cli + ["run", study, "--no-plot", "-o"], repeat,
                 root, out)
    _best("workbench run (Flores, with its 4 plots)", cli + ["run", study, "-o"], repeat, root, out)
    startup = next((p for p in (root / "workbench" / "cli" / "startup.py", root / "workbench" / "startup.py")
                    if p.is_file()), None)   # cli/startup.py since the packages by job
    if startup is not None and startup.read_text().count("def exit_now"):
        _best("run --no-plot, interpreter tear-down at exit", cli + ["run", study, "--no-plot", "-o"],
              repeat, root, out, env=dict(ENV, WORKBENCH_FAST_EXIT="0"))
    solver = next((line.strip() for line in text.splitlines() if "solver:" in line), "")
    print(f"    ({solver})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--before", type=Path, default=None, metavar="DIR",
                    help="an earlier source tree to measure beside this checkout")
    ap.add_argument("--phases-only", action="store_true", help="print only the phase table")
    ap.add_argument("--phases-child", metavar="OUT", help=argparse.SUPPRESS)
    ap.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    ap.add_argument("--hide-dask", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.phases_child:
        return _phases_child(args.phases_child, args.hide_dask, args.root)
    before = args.before.resolve() if args.before else None
    py = [sys.executable, "-W", "ignore"]
    print(f"{os.cpu_count()} cores, {args.repeat} repeats, Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory(prefix="bench_startup_") as tmp:
        if not args.phases_only:
            print("  import floors (a fresh interpreter importing only these):")
            for label, code in FLOORS.items():
                _best(f"  {label}", py + ["-c", code], args.repeat)
            for mod in ("workbench", "workbench.cli.main"):
                _, _, out = _timed(py + ["-c", f"import sys, {mod}; print(','.join(m for m in {HEAVY!r} "
                                               f"if m in sys.modules) or 'none')"])
                print(f"  import {mod}: heavy libraries loaded: {out.strip()}")
                _best(f"import {mod}", py + ["-c", f"import {mod}"], args.repeat)
            if before is not None:
                _commands(py, tmp, args.repeat, before, f"before ({before.name})")
            _commands(py, tmp, args.repeat, ROOT, "now")
        _print_phases(py, tmp, args.repeat, before)
    if args.phases_only:
        return
    proc = subprocess.run(py + ["-X", "importtime", "-m", "workbench.cli.main", "validate", str(FLORES)],
                          capture_output=True, text=True, cwd=ROOT, env=ENV)
    rows = []
    for line in proc.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit() and not parts[2].startswith("  "):  # top level
            rows.append((int(parts[1]), parts[2].strip()))
    loaded = sorted({line.split("|")[2].strip().split(".")[0] for line in proc.stderr.splitlines()
                     if line.count("|") == 2} & set(HEAVY))
    print(f"  heavy libraries validate imports: {', '.join(loaded) or 'none'}")
    print("  slowest top-level imports of validate (cumulative, ms):")
    for us, name in sorted(rows, reverse=True)[:10]:
        print(f"    {us / 1000:8.1f}  {name}")


if __name__ == "__main__":
    main()
