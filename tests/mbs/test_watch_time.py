"""Following the simulated time of a compiled run (:func:`workbench.mbs.run_control.watch_time`).

The integrator writes its time into ``ctl[CTL_TIME]`` at every step; the thread that waits for it
reads it between its slices.  A stand-in for the integrator (a function that advances
``ctl[CTL_TIME]`` and sleeps, releasing the GIL as the compiled one does) checks the reports
without compiling anything; ``tests/kinds/test_dynamics_progress.py`` follows a real run.
"""
import time

import numpy as np
import pytest

from workbench.mbs.integrator import CTL_ABORT, CTL_TIME
from workbench.mbs.run_control import POLL, current_watch, run_in_worker, watch_time


def _fake_integrator(ctl, t0, t1, steps=8, pause=1.5 * POLL):
    for k in range(1, steps + 1):
        if ctl[CTL_ABORT]:
            return "aborted"
        time.sleep(pause)
        ctl[CTL_TIME] = t0 + (t1 - t0) * k / steps
    return "done"


def test_the_waiting_thread_reports_the_simulated_time_in_order():
    seen = []
    ctl = np.zeros(4)
    ctl[CTL_TIME] = 0.0            # before the first step: clamped to t_start
    with watch_time(lambda t, t0, t1: seen.append((t, t0, t1))):
        out, reason = run_in_worker(_fake_integrator, (ctl, 0.5, 1.5), ctl, float("inf"), span=(0.5, 1.5))
    assert (out, reason) == ("done", None)
    assert len(seen) >= 4                                   # 8 steps of 1.5 polls each
    times = [t for t, _, _ in seen]
    assert times == sorted(times) and all(0.5 <= t <= 1.5 for t in times)
    assert times[-1] == 1.5 and {(t0, t1) for _, t0, t1 in seen} == {(0.5, 1.5)}   # the last word: the end
    assert current_watch() is None                          # the block ended


def test_no_watch_no_span_no_reports():
    ctl = np.zeros(4)
    with watch_time(lambda *a: pytest.fail("reported without a span")):
        out, _ = run_in_worker(_fake_integrator, (ctl, 0.0, 1.0, 3), ctl, float("inf"))
    assert out == "done"


def test_a_callback_that_raises_stops_the_run_and_its_error_comes_out():
    ctl = np.zeros(4)

    def boom(t, t0, t1):
        raise ValueError("the user's callback failed")
    with watch_time(boom), pytest.raises(ValueError, match="user's callback"):
        run_in_worker(_fake_integrator, (ctl, 0.0, 1.0, 50), ctl, float("inf"), span=(0.0, 1.0))
    assert ctl[CTL_ABORT] == 1.0                           # the integrator was told to stop
