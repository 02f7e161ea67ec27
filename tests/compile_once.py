"""The compiled families, each compiled once per test session and shared by the pytest-xdist workers.

With a cold numba cache (a fresh clone: the cache is keyed by a hash of the sources), every worker
used to compile the planar integrator itself at its first dynamics test (about 110 s of CPU), and
often the flexible and spatial kernels too, side by side with the other worker doing the same.
Here, before its first test, each worker compiles its own share of the families below with a tiny
run of a shipped study, under a file lock in the numba cache folder, and then waits for the
other's share: numba's disk cache then serves both.  A family already compiled (its marker file
beside the lock) costs a load of a few seconds.  A failing warm-up is ignored: the tests that need
the family compile it themselves, as before.
"""
from __future__ import annotations

import fcntl
import os
from dataclasses import replace
from pathlib import Path

STUDIES = Path(__file__).resolve().parents[1] / "studies"

#: (family, ((study file, simulated time of the warm-up run [s]), ...)), in the order worker gw0
#: takes them (gw1 takes them from the end).  Measured on a cold cache (CPU, 2026-12-07): planar
#: 82 s, wear 8 s after it, flexible 31 s, spatial 98 s (the spatial loop, compiled once for every
#: set of laws; the clearance joints' kernels 8 s more), so gw0 compiles planar + wear + flexible
#: while gw1 compiles the spatial family.  The two spatial studies are one family: as two, the
#: worker that found the second one free compiled the same loop again beside the other (about
#: 80 s of CPU twice).  A wear warm-up runs ``span`` cycles of the rig.
FAMILIES = [
    ("planar", (("flores_slider_crank.toml", 1e-4),)),
    ("wear", (("journal_wear_constant_load.toml", 200.0),)),
    ("flexible", (("flexible_slider_crank_c020.toml", 1e-5),)),
    ("spatial", (("qi_pendulum.toml", 1e-3), ("spatial_slider_crank_clearance.toml", 1e-4))),
]


def _run(study_file: str, span: float) -> None:
    from workbench.engines import simulate
    from workbench.plugins import build_registry
    from workbench.study.load import load_study
    reg = build_registry()
    st = load_study(STUDIES / study_file, reg)
    if getattr(st, "wear", None) is not None:
        import tempfile
        from workbench.calibration.run import simulate as wear_run
        with tempfile.TemporaryDirectory() as d:
            wear_run(st, span, Path(d) / "warm.zarr", registry=reg)
        return
    simulate(st.mechanism, replace(st.solver, t_end=st.solver.t_start + span))


def _locked(folder: Path, family: str, runs, wait: bool) -> bool:
    """Compile ``family`` under its lock unless its marker says it is done; ``wait``: block on a
    lock another worker holds.  Returns False when the lock was busy and ``wait`` is off."""
    done = folder / f".suite-warm-{family}.done"
    with open(folder / f".suite-warm-{family}.lock", "a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            return False
        try:
            if not done.exists():
                try:
                    for study_file, span in runs:
                        _run(study_file, span)
                    done.touch()
                except Exception:  # noqa: BLE001 - the tests compile the family themselves
                    pass
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
    return True


def compile_families(worker: str) -> None:
    """Worker ``gwN``'s share first (gw0 from the front of :data:`FAMILIES`, gw1 from the back,
    skipping a family another worker is compiling), then wait for the rest."""
    from workbench.runtime.caches import numba_cache_dir
    folder = numba_cache_dir()
    if folder is None:
        return
    order = FAMILIES if worker in ("gw0", "master") else FAMILIES[::-1]
    busy = [f for f in order if not _locked(folder, *f, wait=False)]
    for f in busy:
        _locked(folder, *f, wait=True)


def worker_name() -> str | None:
    """This process's pytest-xdist worker (``gw0`` ...), or None outside xdist."""
    return os.environ.get("PYTEST_XDIST_WORKER")
