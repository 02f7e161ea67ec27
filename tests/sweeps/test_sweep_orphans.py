"""A killed sweep takes its case processes with it: ``kill -9`` (or ``kill -TERM``) of the
``workbench sweep`` process alone -- not of its process group -- leaves no case process spinning
as an orphan.  The spinning case is a contact kernel that never returns (tests/hang_models.py);
the forked workers and, with ``--case-timeout``, their child interpreters end with their parent
(``prctl(PR_SET_PDEATHSIG)``, :func:`workbench.runtime.child.die_with_parent`)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import tomli_w

import hang_models
from workbench.sweeps.local import available

ROOT = Path(__file__).resolve().parents[2]
FLORES = ROOT / "studies" / "flores_slider_crank.toml"

pytestmark = pytest.mark.skipif(not (available() and Path("/proc/self/stat").exists()),
                                reason="forked workers and /proc are Linux's")


def _children(pid: int) -> dict[int, int]:
    """pid -> parent pid of every live process of this machine."""
    out = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] not in ("Z", "X"):
                out[int(d.name)] = int(fields[1])
    return out


def _descendants(pid: int) -> set[int]:
    table, found, todo = _children(pid), set(), [pid]
    while todo:
        p = todo.pop()
        kids = {c for c, pp in table.items() if pp == p}
        found |= kids
        todo.extend(kids)
    return found


def _alive(pids) -> set[int]:
    table = _children(0)
    return {p for p in pids if p in table}


# the SIGKILL case stays in the default suite; the other two (~30 s each) run with the slow suite
@pytest.mark.parametrize("how, extra", [
    (signal.SIGKILL, []),
    pytest.param(signal.SIGKILL, ["--case-timeout", "600"], marks=pytest.mark.slow),  # cases in child interpreters
    pytest.param(signal.SIGTERM, [], marks=pytest.mark.slow),
])
def test_killing_the_sweep_ends_its_spinning_case_processes(tmp_path, how, extra):
    env = hang_models.install(tmp_path / "site")
    doc = {"sweep": {"title": "orphans", "base": str(FLORES), "summary": ["n_impacts"],
                     "unset": ["solver.revolutions"]},
           "set": {"solver.t_end": 2.0e-3, "output.compare_ideal": False},
           "grid": {"mechanism.clearance_joints[0].contact": {
               "name": "law", "labels": ["ln", "spin"],
               "values": [{"model": "lankarani_nikravesh", "restitution": 0.9}, {"model": "spinning"}]}}}
    path = tmp_path / "sweep.toml"
    path.write_text(tomli_w.dumps(doc))
    proc = subprocess.Popen([sys.executable, "-m", "workbench.cli.main", "sweep", str(path), "-o",
                             str(tmp_path / "s.nc"), "--workers", "2", "--no-plot", *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, start_new_session=True)
    try:
        # wait for the first case's result (the spinning one then runs on the other worker)
        deadline = time.monotonic() + 300
        first = tmp_path / "s.cases" / "case_0000.nc"
        while time.monotonic() < deadline and proc.poll() is None and not first.exists():
            time.sleep(0.2)
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(3.0)
        kids = _descendants(proc.pid)
        assert kids, "the sweep should have case processes"
        os.kill(proc.pid, how)            # the sweep's process only, not its group
        proc.wait(timeout=60)
        grace = 5.0 if how == signal.SIGKILL else 20.0   # SIGTERM: the sweep's own 10 s grace
        end = time.monotonic() + grace
        while _alive(kids) and time.monotonic() < end:
            time.sleep(0.1)
        left = _alive(kids)
        for p in left:
            os.kill(p, signal.SIGKILL)
        assert not left, f"case processes {sorted(left)} outlived the killed sweep"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
