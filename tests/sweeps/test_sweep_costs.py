"""Sweep scheduling: the longest cases first, from the costs measured by earlier sweeps."""
from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from workbench.sweeps import costs as sweep_costs


@dataclass(frozen=True)
class Task:
    index: int
    settings: tuple


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))


def _tasks(n):
    return [Task(i, ((f"mechanism.clearance_joints[0].contact", {"model": f"law{i}"}),)) for i in range(n)]


def _lpt_makespan(order, times, workers=2):
    """Makespan of sending ``order`` to ``workers`` greedily (each free worker takes the next)."""
    loads = [0.0] * workers
    for t in order:
        loads[loads.index(min(loads))] += times[t.index]
    return max(loads)


def test_unmeasured_cases_keep_file_order():
    tasks = _tasks(5)
    assert sweep_costs.order(tasks) == tasks


def test_measured_cases_go_longest_first_and_new_ones_before_them(tmp_path):
    tasks = _tasks(6)
    times = {0: 1.0, 1: 1.0, 2: 1.0, 3: 1.0, 4: 1.0, 5: 5.0}   # the long case is the last in the file
    sweep_costs.record(tasks, times)
    data = json.loads((tmp_path / "cache" / sweep_costs.FILE).read_text())
    assert len(data) == 6
    ordered = sweep_costs.order(tasks)
    assert ordered[0].index == 5 and [t.index for t in ordered[1:]] == [0, 1, 2, 3, 4]
    # on 2 workers: 5 s then four 1 s cases beside it (5 s) instead of 2 + 2 + 5 = 7 s
    assert _lpt_makespan(ordered, times) == 5.0 < _lpt_makespan(tasks, times) == 7.0
    new = Task(9, (("mechanism.clearance_joints[0].contact", {"model": "never_run"}),))
    assert sweep_costs.order(tasks + [new])[0] is new


def test_costs_are_relative_so_a_longer_base_study_keeps_the_order():
    tasks = _tasks(3)
    sweep_costs.record(tasks, {0: 0.1, 1: 0.3, 2: 0.2})        # a quick run ...
    assert [t.index for t in sweep_costs.order(tasks)] == [1, 2, 0]
    sweep_costs.record(tasks, {0: 10.0, 1: 30.0, 2: 20.0})     # ... then the full one: same shares
    data = sweep_costs.load()
    assert sorted(round(v[0], 9) for v in data.values()) == [0.5, 1.0, 1.5]


def test_a_broken_cost_file_means_file_order(tmp_path):
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / sweep_costs.FILE).write_text("{not json")
    tasks = _tasks(3)
    assert sweep_costs.order(tasks) == tasks
    sweep_costs.record(tasks, {0: 1.0, 1: 3.0, 2: 2.0})        # and is replaced by a good one
    assert [t.index for t in sweep_costs.order(tasks)] == [1, 2, 0]
