"""Where a wear update is (:mod:`workbench.wear.progress`): settling and averaging cycles from the
simulated time, per chain, reported from chain 0's thread and only when something moved."""
from pathlib import Path

import pytest

from workbench.wear.progress import CyclePosition, cycle_watch, describe, position

RIG = Path(__file__).resolve().parents[2] / "studies" / "journal_wear_constant_load.toml"

T = 0.012     # s: one machine cycle


def test_cycle_from_the_simulated_time():
    # 2 settling + 5 averaging cycles from t = 0.1 s
    t0, t1 = 0.1, 0.1 + 7 * T
    assert position(t0, t0, t1, T, 2) == CyclePosition("settling", 1, 2)
    assert position(t0 + 1.5 * T, t0, t1, T, 2) == CyclePosition("settling", 2, 2)
    assert position(t0 + 2.01 * T, t0, t1, T, 2) == CyclePosition("averaging", 1, 5)
    assert position(t1, t0, t1, T, 2) == CyclePosition("averaging", 5, 5)     # the end: the last cycle
    assert position(t0 + 4.5 * T, t0, t1, T, 2).text == "averaging cycle 3 of 5"


def test_chains_are_seen_and_chain_zero_reports_only_changes():
    reports = []
    watch = cycle_watch(T, 1, reports.append)
    # chain 1 (3 averaging cycles) moves first: recorded, not reported from its thread
    watch(0.5 * T, 0.0, 4 * T, chain=1)
    assert reports == []
    watch(1.5 * T, 0.0, 5 * T, chain=0)      # chain 0: 1 settling + 4 averaging
    watch(1.6 * T, 0.0, 5 * T, chain=0)      # the same cycle again: no new report
    assert len(reports) == 1
    where = reports[0]
    assert where == {0: CyclePosition("averaging", 1, 4), 1: CyclePosition("settling", 1, 1)}
    assert describe(where) == "averaging cycle 1 of 4 (chains: 1/4, settling 1/1)"
    watch(2.5 * T, 0.0, 4 * T, chain=1)
    watch(1.7 * T, 0.0, 5 * T, chain=0)      # chain 1 moved: reported with chain 0's next look
    assert len(reports) == 2 and reports[1][1] == CyclePosition("averaging", 2, 3)
    assert describe({0: CyclePosition("settling", 2, 3)}) == "settling cycle 2 of 3"


def test_a_wear_run_reports_its_settling_and_averaging_cycles(monkeypatch):
    """The journal rig (1 settling + 2 averaging cycles per update), one update, with the waiting
    thread's slice at 5 ms so that each cycle is seen: the records name the update, the phase and
    the cycle of that phase, in order, between the update's start and its stored row."""
    import workbench
    from workbench.mbs import run_control
    monkeypatch.setattr(run_control, "POLL", 0.005)
    seen = []
    workbench.run(workbench.load_study(RIG), progress=seen.append, max_updates=1)
    phases = [p.phase for p in seen]
    assert phases[0] == "dynamics" and "update" in phases
    inside = [p for p in seen[:phases.index("update")] if p.phase in ("settling", "averaging")]
    assert inside, phases
    assert {(p.phase, p.of) for p in inside} <= {("settling", 1), ("averaging", 2)}
    order = [(p.phase != "settling", p.cycle) for p in inside]
    assert order == sorted(order) and all(p.update == 0 and p.chains == () for p in inside)
    assert inside[-1].info.startswith("update 0: ") and "cycle" in inside[-1].info
