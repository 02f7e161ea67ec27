"""A dynamics run reports the fraction of simulated time, and a mechanism built in Python runs
to the shipped study's numbers bit for bit.

The Flores slider-crank over a quarter of a crank revolution (3 ms of motion, about 0.2 s of
integration with its ideal twin).  The waiting thread's slice is shortened to 5 ms so that even
this short run reports several times on any machine (the reports come from that thread only:
the slice sets how often, not what the integrator does).
"""
import numpy as np
import pytest

import workbench
from workbench.mbs import run_control

from test_build import FLORES, STUDY, flores_in_python

QUARTER = {"solver.revolutions": 0.25}


@pytest.fixture
def fine_slices(monkeypatch):
    monkeypatch.setattr(run_control, "POLL", 0.005)


def test_the_run_reports_simulated_time_then_the_twins(fine_slices):
    study = workbench.change(workbench.load_study(FLORES), QUARTER)
    seen = []
    ds = workbench.run(study, progress=seen.append)
    span = study.solver.t_end - study.solver.t_start
    assert seen, "no progress record from a compiled run"
    assert {p.unit for p in seen} == {"s"} and all(p.total == pytest.approx(2 * span) for p in seen)
    phases = [p.phase for p in seen]
    assert set(phases) <= {"dynamics", "ideal twin"} and phases == sorted(phases, key=["dynamics", "ideal twin"].index)
    done = [p.done for p in seen]
    assert done == sorted(done) and 0.0 <= done[0] and done[-1] <= 2 * span * (1 + 1e-12)
    for p in seen:   # the twin's time counts after the run's
        assert (p.done <= span * (1 + 1e-12)) if p.phase == "dynamics" else (p.done >= span * (1 - 1e-12))
    assert seen[-1].phase == "ideal twin" and seen[-1].done == pytest.approx(2 * span)   # the end is reported
    assert "of 0.003 s" in seen[-1].info
    assert ds.attrs["ideal_twin_status"] == "ok"


def test_a_mechanism_built_in_python_runs_bit_identical_to_the_shipped_study():
    built = workbench.change(flores_in_python().study(**STUDY), QUARTER)
    shipped = workbench.change(workbench.load_study(FLORES), QUARTER)
    a, b = workbench.run(built), workbench.run(shipped)
    assert sorted(a.data_vars) == sorted(b.data_vars)
    differ = [v for v in a.data_vars
              if not np.array_equal(a[v].values, b[v].values, equal_nan=a[v].dtype.kind == "f")]
    assert not differ, differ
    assert int((a["impact_joint"] == "B").sum()) >= 1      # the run reached the first impacts
