"""The impact table: peak force, its time and the largest penetration of every contact, located
on the integrator's continuous extension (not on the output samples).

Oracles:
* a journal pushed from rest at the centre of a fixed bushing by a constant force ``F`` (no
  gravity) across the clearance ``c`` into a pure Hertz law ``F_n = K delta^n`` (e = 1).  (A run
  starts from its ideal twin's state, journal centred and at rest, so the approach speed comes
  from a force.)  Work and energy (Hertz 1881; Johnson (1985) "Contact Mechanics" §11.4, with the
  work of ``F`` added): impact speed ``v^2 = 2 F c / m`` at ``t_hit = sqrt(2 m c / F)``; the
  largest penetration solves ``K delta^a / a = F (c + delta)``, ``a = n + 1``, and gives the peak
  force ``K delta_max^n``, reached ``int_0^delta_max d delta / sqrt(2 (F (c + delta) - K delta^a
  / a) / m)`` after the impact.  For ``F -> 0`` this is Johnson's ``delta_max = (a m v^2 /
  (2 K))^(1/a)``;
* a brute-force search on a very fine output step, which samples the same continuous extension.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import brentq

from mechanisms import slider_crank
from workbench.mbs.analysis import impact
from workbench.mbs.mechanism import (Body, ConstantForce, Driver, DriverFunction, Mechanism,
                                     RevoluteClearanceJoint)
from workbench.mbs.solution import SolverSettings
from workbench.mbs.solver import simulate

MASS, R_J, C0 = 0.2, 0.01, 0.5e-3  # kg, m, m


def pushed_journal(contact, push: float) -> Mechanism:
    """A free journal (rotation held) at rest in the centre of a ground bushing, pushed along x."""
    body = Body("journal", MASS, 1e-5, position=(0.0, 0.0), points={"C": (0.0, 0.0)})
    joint = RevoluteClearanceJoint("J", "ground", "O", "journal", "C", bushing_radius=R_J + C0,
                                   journal_radius=R_J, contact=contact)
    return Mechanism((body,), (), (Driver("hold", "journal", DriverFunction(polynomial=(0.0,))),),
                     (ConstantForce("push", "journal", (push, 0.0)),), (joint,), {"O": (0.0, 0.0)},
                     (0.0, 0.0))


def closed_form(n, K, F):
    """(t_hit, v_hit, delta_max, F_max, compression time) of the pushed journal."""
    a = n + 1.0
    t_hit = math.sqrt(2.0 * MASS * C0 / F)
    v = math.sqrt(2.0 * F * C0 / MASS)
    g = lambda d: F * (C0 + d) - K * d ** a / a  # noqa: E731 - kinetic energy left at penetration d
    d_max = brentq(g, 1e-12, 1.0, xtol=1e-300, rtol=1e-15)
    # d = d_max (1 - s^2) takes the inverse-square-root end point out of the integrand
    t_c = quad(lambda s: 2.0 * d_max * s / math.sqrt(2.0 * max(g(d_max * (1.0 - s * s)), 1e-300) / MASS)
               if s > 0.0 else 2.0 * d_max / math.sqrt(2.0 * d_max * (K * d_max ** n - F) / MASS),
               0.0, 1.0, epsabs=0.0, epsrel=1e-13, limit=200)[0]
    return t_hit, v, d_max, K * d_max ** n, t_c


@pytest.mark.parametrize("n, K, F", [(1.5, 1e9, 10.0), (1.0, 2e7, 2.0), (2.2, 1e12, 50.0)])
def test_hertz_impact_matches_the_closed_form(registry, n, K, F):
    contact = registry.create("contact", "hertz", {"stiffness": K, "exponent": n})
    t_hit, v, d_max, f_max, t_c = closed_form(n, K, F)
    t_end = t_hit + 1.5 * t_c
    # a coarse output step (10 samples over the whole run): the table does not depend on it
    sim = simulate(pushed_journal(contact, F), SolverSettings(t_end=t_end, output_step=t_end / 10))
    assert len(sim.impact_time) == 1
    assert sim.impact_time[0] == pytest.approx(t_hit, rel=1e-9)
    assert sim.impact_velocity[0] == pytest.approx(v, rel=1e-9)
    assert sim.impact_max_penetration[0] == pytest.approx(d_max, rel=1e-8)
    assert sim.impact_peak_force[0] == pytest.approx(f_max, rel=1e-8)
    assert sim.impact_peak_time[0] - t_hit == pytest.approx(t_c, rel=1e-6)
    # the samples miss the peak by far: the table is not read from them
    assert np.max(sim.contact_force) < 0.99 * f_max


def _flores(registry):
    c = registry.create("contact", "lankarani_nikravesh", {"restitution": 0.9})
    f = registry.create("friction", "ambrosio", {"c_f": 0.01, "v0": 1e-4, "v1": 1e-2})
    return slider_crank(c, f)


def test_table_agrees_with_a_brute_force_search_on_fine_samples(registry):
    """The first impacts of the Flores slider-crank: the table's extremes are the maxima of the
    continuous extension, which fine output samples (5 ns) approach from below."""
    mech = _flores(registry)
    fine = simulate(mech, SolverSettings(t_end=1.5e-3, output_step=5e-9))
    coarse = simulate(mech, SolverSettings(t_end=1.5e-3, output_step=1e-5))
    # the output step does not change the steps: identical tables
    for name in ("impact_time", "impact_peak_force", "impact_peak_time", "impact_max_penetration"):
        np.testing.assert_array_equal(getattr(fine, name), getattr(coarse, name), err_msg=name)
    assert len(fine.impact_time) >= 2
    t = fine.time
    starts = list(fine.impact_time) + [np.inf]
    for k in range(len(fine.impact_time)):
        inside = (t >= starts[k]) & (t < starts[k + 1])
        f, pen, ts = fine.contact_force[inside, 0], fine.penetration[inside, 0], t[inside]
        i = int(np.argmax(f))
        peak = fine.impact_peak_force[k]
        # never below a sample (Brent search to 1e-9 of a step), and the 5 ns sampling
        # misses a quadratic peak of a ~20 us contact by about (2.5 ns / 20 us)^2 ~ 2e-8 relative
        assert f[i] <= peak * (1 + 1e-12)
        assert peak - f[i] < 1e-7 * peak
        assert abs(fine.impact_peak_time[k] - ts[i]) < 5e-9
        assert np.max(pen) <= fine.impact_max_penetration[k] * (1 + 1e-12)
        assert fine.impact_max_penetration[k] - np.max(pen) < 1e-7 * fine.impact_max_penetration[k]


def test_first_impact_of_the_flores_study_comes_from_the_table(registry):
    """analysis.impact and the first_impact_peak_force reducer read the table, so the first-impact
    peak no longer depends on the output step."""
    from workbench.results.reducers import REDUCERS
    from workbench.kinds.dynamics_dataset import simulation_to_dataset

    mech = _flores(registry)
    sim = simulate(mech, SolverSettings(t_end=4e-4, output_step=1e-5))
    first = impact(sim)
    assert first.peak_force == sim.impact_peak_force[0]
    assert first.peak_time == sim.impact_peak_time[0]
    assert first.max_penetration == sim.impact_max_penetration[0]
    assert sim.impact_time[0] < first.peak_time < sim.impact_time[0] + 5e-5
    ds = simulation_to_dataset(sim)
    for name, unit in (("impact_peak_force", "N"), ("impact_peak_time", "s"), ("impact_max_penetration", "m")):
        assert ds[name].dims == ("impact",)
        assert ds[name].attrs["units"] == unit and ds[name].attrs["long_name"]
    reduced = REDUCERS["first_impact_peak_force"](ds)
    assert float(reduced.sel(joint="rod_slider")) == sim.impact_peak_force[0]
    # a sampled peak at 10 us spacing is well below it
    assert np.max(sim.contact_force) < sim.impact_peak_force[0]

