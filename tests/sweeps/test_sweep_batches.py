"""Sweeps on dask in batches (workbench.sweeps.batches): batch sizes, finished cases recorded so
that a dying worker loses none, and a worker killed mid-sweep on a real cluster."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
import tomli_w

from workbench.sweeps import batches as B
from workbench.sweeps.run import STATUS_OK, CaseResult, CaseTask

ROOT = Path(__file__).resolve().parents[2]
FLORES = ROOT / "studies" / "flores_slider_crank.toml"


def _tasks(tmp_path, n):
    return [CaseTask(index=i, base_doc={}, base_file="", settings=(), unset=(), out=str(tmp_path / f"case_{i:04d}.nc"),
                     summary=()) for i in range(n)]


def test_many_short_cases_go_in_batches_few_cases_one_by_one(tmp_path):
    """1000 cases on 2 workers: 32 batches of at most 32 consecutive cases (16 per worker), every
    case once; 13 cases on 2 workers: one case per batch (the scheduling of a small sweep is kept)."""
    many = B.batches(_tasks(tmp_path, 1000), 2)
    assert len(many) == 32 and max(len(b) for b in many) == 32
    assert sorted(t.index for b in many for t in b) == list(range(1000))
    few = B.batches(_tasks(tmp_path, 13), 2)
    assert [len(b) for b in few] == [1] * 13


def test_a_batch_that_dies_keeps_its_finished_cases_and_reruns_the_one_it_was_running(tmp_path, monkeypatch):
    """A worker dies in the third case of a batch of five: the second attempt (another worker)
    takes the first two from their records without running them, replaces the third case's
    partial result (overwrite) and runs the rest; the records go once the sweep holds the results."""
    import workbench.sweeps.run as R
    calls, attempts = [], {}

    class Died(BaseException):
        pass

    def fake_run_case(task, registry=None):
        calls.append((task.index, task.overwrite))
        attempts[task.index] = attempts.get(task.index, 0) + 1
        Path(task.out).write_text("partial")
        if task.index == 2 and attempts[2] == 1:
            raise Died()    # the worker process ends here (its batch is lost with it)
        return CaseResult(index=task.index, status=STATUS_OK, wall_time=0.1, cpu_time=0.1)

    monkeypatch.setattr(R, "run_case", fake_run_case)
    batch = _tasks(tmp_path, 5)
    with pytest.raises(Died):
        B.run_batch(batch)
    assert sorted(B.finished(batch)) == [0, 1]
    calls.clear()
    got = B.run_batch(batch)
    assert [r.index for r in got] == [0, 1, 2, 3, 4] and all(r.status == STATUS_OK for r in got)
    assert calls == [(2, True), (3, False), (4, False)]
    B.forget(batch)
    assert not (tmp_path / B.DONE).exists()


@pytest.mark.slow   # ~30-60 s: a cluster, a worker killed and restarted; the fast test above keeps the check
def test_a_worker_killed_mid_sweep_loses_no_finished_case(tmp_path, registry):
    """A 2-worker LocalCluster runs 40 short Flores cases (0.2 ms each; 2 per batch); case 7's
    worker kills its own process the first time it runs it.  Every case ends ok, each case file
    exists, and case 7 ran twice (the marker says the first attempt died in it)."""
    import logging
    from dask.distributed import Client, LocalCluster
    from workbench.sweeps.run import run_sweep
    from workbench.sweeps.spec import load_sweep
    marker = tmp_path / "killed"
    doc = {"sweep": {"title": "kill", "base": str(FLORES), "summary": ["n_impacts"], "unset": ["solver.revolutions"]},
           "set": {"solver.t_end": 2.0e-4, "output.compare_ideal": False},
           "grid": {"mechanism.clearance_joints[0].contact.restitution":
                    [0.8 + 0.005 * i for i in range(40)]}}
    (tmp_path / "s.toml").write_text(tomli_w.dumps(doc))
    sw = load_sweep(tmp_path / "s.toml", registry=registry)

    def patch(marker=str(marker)):   # defined here: sent to the workers by value
        import workbench.sweeps.run as R
        original = R.run_case

        def run_case(task, registry=None):
            if task.index == 7 and not os.path.exists(marker):
                open(marker, "w").close()
                os._exit(1)     # the worker dies mid-case (as at a job's walltime)
            return original(task, registry)
        R.run_case = run_case

    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None,
                      silence_logs=logging.CRITICAL) as cluster:
        with Client(cluster.scheduler_address) as client:
            client.run(patch)
            ds = run_sweep(sw, tmp_path / "k.nc", scheduler=cluster.scheduler_address, registry=registry,
                           progress=False)
    assert marker.exists()
    assert (ds["status"] == "ok").all(), ds["error"].values
    assert all(Path(f).exists() for f in ds["case_file"].values.ravel())
    assert not (tmp_path / "k.cases" / B.DONE).exists()
