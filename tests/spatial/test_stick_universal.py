"""Set-valued stick and slip per journal of a universal joint (:mod:`workbench.spatial.stick`,
:mod:`workbench.spatial.stick_journals`).

Default suite: the bar at rest on each journal's own static bound (0.98 / 1.02 of the closed form,
as the revolute joint's test does), and the first swing of a bar whose journal on the cross axis
``a`` slips while the one on ``b`` sticks (its first 0.8 s, up to the first turn of the slip) against the independent reference
``tests/reference/qi_universal_stick.py``.  Slow: the same bar swinging to a stop (events, angle,
dissipated energy, both journals' moments and loads).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE)); sys.path.insert(0, str(HERE.parent / "reference"))
from universal_bar import G, M, mechanism  # noqa: E402

from workbench.engines.spatial import Settings  # noqa: E402
from workbench.spatial import stick  # noqa: E402

MU, L = 0.5, 1.0
PHI0, PSI0 = -math.pi / 2 + 1.0, 0.05      # the swinging bar: 1 rad from hanging, tilted 0.05 rad


@pytest.fixture(scope="module")
def registry():
    from workbench.plugins import build_registry
    return build_registry()


def _law(registry, mu=MU):
    return registry.create("friction", "coulomb_set_valued", dict(mu=mu))


def _bound(R, mu=MU):
    """Largest gravity lever ``|cos phi|`` (journal 1) or ``|sin psi|`` (journal 2) at which the bar
    rests: the needed moment ``m g (L/2) x`` within ``mu R N``, ``N = sqrt((m g)^2 - (m/R)^2)`` (the
    friction circle of radius ``R mu / sqrt(1 + mu^2)``; the other journal carries no moment)."""
    return R / (L / 2) * mu / math.sqrt(1 + mu * mu)


def _books(sim):
    b = sim.kinetic_energy + sim.potential_energy + sim.dissipated_energy - sim.driver_work
    return np.abs(b - b[0]).max()


@pytest.mark.parametrize("journal", [1, 2])
@pytest.mark.parametrize("inside", [True, False])
def test_each_journal_sticks_exactly_inside_its_own_bound(registry, journal, inside):
    R1, R2 = 0.2, 0.1           # different radii: each journal has its own bound
    x = (_bound(R1) if journal == 1 else _bound(R2)) * (0.98 if inside else 1.02)
    # journal 1: the bar in the x-y plane, gravity turns it about a = z only; journal 2: hanging,
    # tilted about b, gravity turns it about b only
    mech = (mechanism(_law(registry), phi=-math.acos(x), R1=R1, R2=R2) if journal == 1
            else mechanism(_law(registry), psi=math.asin(x), R1=R1, R2=R2))
    sim = stick.simulate(mech, Settings(t_end=0.1, output_step=0.05, rtol=1e-10, atol=1e-12))
    ev = {u: k for (t, n, k, N), u in zip(sim.extras["stick_events"], sim.extras["stick_event_units"])}
    me, other = ("cross/journal_i", "cross/journal_j") if journal == 1 else ("cross/journal_j", "cross/journal_i")
    assert ev[other] == "stick_start"                      # the other journal needs nothing: it sticks
    assert ev[me] == ("stick_start" if inside else "rest_slip")
    m_mine = sim.extras["friction_moment"][:, 0, journal - 1]
    m_other = sim.extras["friction_moment"][:, 0, 2 - journal]
    N = sim.extras["contact_load"][:, 0, journal - 1]
    R = R1 if journal == 1 else R2
    assert np.abs(m_other).max() < 1e-9 * M * G
    if inside:
        assert np.abs(sim.velocity[:, 0]).max() < 1e-10 and np.abs(sim.dissipated_energy).max() == 0.0
        # the needed moment is gravity's, its load the friction circle's, within mu R N
        assert np.allclose(np.abs(m_mine), M * G * (L / 2) * x, rtol=1e-9)
        assert np.allclose(N, np.sqrt((M * G) ** 2 - (m_mine / R) ** 2), rtol=1e-9)
        assert np.all(np.abs(m_mine) <= MU * R * N)
    else:
        # it slips (its friction at mu times its load), the way gravity turns it, the other stuck
        assert np.allclose(np.abs(m_mine), MU * R * N, rtol=1e-12)
        p = sim.position[:, 0]
        if journal == 1:        # turns down about z, stays in the x-y plane
            assert p[-1, 1] < p[0, 1] - 1e-5 and np.abs(p[:, 2]).max() < 1e-12
        else:                   # swings back towards hanging about b = x, x stays 0
            assert abs(p[-1, 2]) < abs(p[0, 2]) - 1e-5 and np.abs(p[:, 0]).max() < 1e-12
        assert np.all(np.diff(sim.dissipated_energy) >= 0) and sim.dissipated_energy[-1] > 0 and _books(sim) < 1e-8


def _compare(sim, ref):
    phi = np.unwrap(np.arctan2(sim.position[:, 0, 1], sim.position[:, 0, 0]))
    fm, cl = sim.extras["friction_moment"][:, 0], sim.extras["contact_load"][:, 0]
    return {"phi": np.abs(phi - ref["phi"]).max(), "E_diss": np.abs(sim.dissipated_energy - ref["dissipated"]).max(),
            "m1": np.abs(fm[:, 0] - ref["m1"]).max(), "m2": np.abs(fm[:, 1] - ref["m2"]).max(),
            "N1": np.abs(cl[:, 0] - ref["N1"]).max(), "N2": np.abs(cl[:, 1] - ref["N2"]).max(),
            "psi": np.ptp(sim.position[:, 0, 2])}


def test_one_journal_slips_while_the_other_sticks_as_the_independent_reference(registry):
    from qi_universal_stick import UBar, solve
    T = 0.8         # journal 1's slip turns at 0.849 s (the slow test below)
    sim = stick.simulate(mechanism(_law(registry), phi=PHI0, psi=PSI0, R1=0.2, R2=0.1),
                         Settings(t_end=T, output_step=0.05, rtol=1e-11, atol=1e-12))
    ref = solve(UBar(R1=0.2, R2=0.1, mu=MU, psi=PSI0), PHI0, T, sim.time)
    kinds = dict(zip(sim.extras["stick_event_units"], [e[2] for e in sim.extras["stick_events"]]))
    assert kinds == {"cross/journal_i": "rest_slip", "cross/journal_j": "stick_start"}
    assert [k for t, k in ref["events"]] == ["rest_slip"]
    e = _compare(sim, ref)
    print(f"\nuniversal, journal i slips, journal j sticks ({T} s): " + ", ".join(f"|d {k}| {v:.2g}" for k, v in e.items()))
    # tolerances: both at rtol 1e-11 over a smooth phase; angles to 1e-9 rad, moments and loads to
    # 1e-8 of their size (m2 ~ 30 N m, N ~ 1 kN), the energy to 1e-8 J
    assert e["phi"] < 1e-9 and e["E_diss"] < 1e-8 and e["psi"] < 1e-12
    assert e["m1"] < 1e-7 and e["m2"] < 1e-7 and e["N1"] < 1e-5 and e["N2"] < 1e-5
    # journal 2 carries a real moment, inside its bound all along
    m2, N2 = sim.extras["friction_moment"][:, 0, 1], sim.extras["contact_load"][:, 0, 1]
    assert np.abs(m2).min() > 5.0 and np.all(np.abs(m2) < MU * 0.1 * N2)


@pytest.mark.slow   # ~20 s (the engine's 2 s at rtol 1e-11); the default suite keeps the first 0.8 s (above)
def test_universal_bar_swings_to_a_stop_as_the_independent_reference(registry):
    from qi_universal_stick import UBar, solve
    T = 2.0
    sim = stick.simulate(mechanism(_law(registry), phi=PHI0, psi=PSI0, R1=0.2, R2=0.1),
                         Settings(t_end=T, output_step=0.05, rtol=1e-11, atol=1e-12))
    ref = solve(UBar(R1=0.2, R2=0.1, mu=MU, psi=PSI0), PHI0, T, sim.time)
    ev = [(t, k) for (t, n, k, N), u in zip(sim.extras["stick_events"], sim.extras["stick_event_units"])
          if u == "cross/journal_i"]
    assert [k for t, k in ev] == [k for t, k in ref["events"]] == ["rest_slip", "rest_slip", "stick_start"]
    dt = max(abs(a[0] - b[0]) for a, b in zip(ev, ref["events"]))
    e = _compare(sim, ref)
    print(f"\nuniversal to a stop: events |dt| {dt:.2g} s, " + ", ".join(f"|d {k}| {v:.2g}" for k, v in e.items())
          + f"; stuck at t = {ev[-1][0]:.9f} s; journal-2 margin >= {ref['margin2']:.4g} N; books {_books(sim):.2g} J")
    assert dt < 1e-9 and e["phi"] < 1e-8 and e["E_diss"] < 1e-6 and e["psi"] < 1e-12
    assert e["m1"] < 1e-6 and e["m2"] < 1e-6 and e["N1"] < 1e-4 and e["N2"] < 1e-4
    stuck = sim.time >= ev[-1][0]
    assert np.ptp(sim.dissipated_energy[stuck]) == 0.0
    assert np.all(np.diff(sim.dissipated_energy) >= 0) and _books(sim) < 1e-7
