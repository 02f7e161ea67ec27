"""The independent universal-joint references (``tests/reference/qi_universal_stick.py``, used by
``qi_universal.py``) continue each journal's face state from its last call and fall back to the
full scan of the circle; here every continued state is checked against the full scan over a span
of each reference's run (the same state kind, the same radial loads to 1e-9 of the journal's
load), so that the continuation cannot pass over a state the scan would take.

Spans: the shipped universal study's first 1 ms (both journals slipping; journal 2 passes between
its flush states with both ends and with one end alone, journal 1 tilted), and the first 0.05 s of
the bar of ``test_stick_universal.py`` (journal 1 slipping, journal 2 stuck: the fixed point of its
load)."""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "reference"))
import qi_universal_stick as qs  # noqa: E402


@pytest.fixture
def audit():
    qs.AUDIT = []
    yield qs.AUDIT
    qs.AUDIT = None


def _check(audit, what, share):
    calls = qs.CALLS.get("continued", 0) + qs.CALLS.get("scanned", 0)
    kinds = sorted({a[0] for a in audit})
    bad = [a for a in audit if a[0] != a[2] or np.abs(a[1] - a[3]).max() > 1e-9 * a[4]]
    worst = max(np.abs(a[1] - a[3]).max() / a[4] for a in audit)
    print(f"\n{what}: {len(audit)} of {calls} face states continued ({kinds}), {qs.CALLS.get('scanned', 0)} "
          f"scanned; {len(bad)} differ from the full scan, largest |du| {worst:.2g} of the load")
    assert not bad, bad[:3]
    # the continuation does the work (not a test that passes because it never runs)
    assert len(audit) > share * calls


def test_the_continued_face_states_are_the_full_scans_in_the_universal_study(audit):
    from qi_universal import solve
    bar = qs.UBar(R1=0.2, c1=0.05, R2=0.1, c2=0.05, mu=0.1)
    T = 1e-3        # about 5 s of CPU: the full scan beside each of the ~4800 continued calls (0.2 ms: 3.6 s)
    solve(bar, (0.0, 0.0, 0.0, 1.0), T, np.linspace(0.0, T, 4), v_eps=1e-4, rtol=1e-11, atol=1e-12)
    assert {"tilted", "flush"} <= set(qs.STATES)
    _check(audit, "universal study, 1 ms", 0.7)


def test_the_continued_face_states_are_the_full_scans_with_a_stuck_journal(audit):
    T = 0.05
    qs.solve(qs.UBar(R1=0.2, R2=0.1, mu=0.5, psi=0.05), -math.pi / 2 + 1.0, T, np.linspace(0.0, T, 3))
    _check(audit, "one journal stuck, 0.05 s", 0.5)
