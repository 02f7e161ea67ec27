"""The journal's wear in the film (workbench.mbs.compiled.film_profile): its mean over the journal
is a uniform clearance increase, which the film sees; the rest turns with the journal and is not
in the film (docs/lubrication.md, limits).

Oracle: geometry (the gap ``c + h_b(psi) + h_j(psi - phi_rel)`` of workbench.wear.surfaces averages
over ``phi_rel`` to ``c + h_b(psi) + mean h_j``, and a uniform ``h_j`` is that at every
``phi_rel``); the kernel on the profile it should see.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.mbs.compiled import film_profile
from workbench.models import ContactGeometry
from workbench.plugins import build_registry

from worn_bore_rig import ALPHA, C, L, NODES, PSI, R, film_force_at_start
from worn_bore_rig import scar as _scar


def test_film_profile_adds_the_journal_mean_and_keeps_an_unworn_journal_bit_for_bit():
    hb = _scar(ALPHA, 3e-6)
    assert np.array_equal(film_profile(hb, np.zeros(NODES)), hb)
    hj = _scar(1.0, 4e-6)
    np.testing.assert_allclose(film_profile(hb, hj), hb + hj.mean(), rtol=0, atol=1e-22)
    # the mean is the phi_rel-average of the journal's part of the gap (geometry): 2 pi-periodic,
    # trapezoidal rule on the nodes is exact for the nodal interpolant's mean
    rot = np.array([np.interp(np.mod(PSI - phi, 2 * math.pi), PSI, hj, period=2 * math.pi)
                    for phi in 2 * math.pi * np.arange(NODES) / NODES])
    np.testing.assert_allclose(rot.mean(axis=0), hj.mean(), rtol=1e-12)


def test_a_worn_journal_widens_the_film_in_the_dynamics():
    """The seam: a free journal in a ground bushing with a bushing scar and a worn journal (mean
    wear 0.1 c), started eccentric, moving and spinning: the film force the solver records at t = 0
    is the kernel's on the bushing's profile plus the journal's mean (1e-12) and differs from the
    bushing's profile alone (> 5 %, the old film)."""
    hb = _scar(ALPHA, 0.3 * C)
    hj = 0.1 * C * (1.0 + np.cos(PSI - 2.0))              # mean 0.1 c
    lub, e, v, w, rec = film_force_at_start(build_registry(), (hb, hj))
    geom = ContactGeometry("cylindrical", R, R + C, L)
    f_seen, _ = lub.force(e, v, w, geom, bushing_wear=hb + hj.mean())
    f_old, _ = lub.force(e, v, w, geom, bushing_wear=hb)
    assert rec == pytest.approx(float(np.hypot(*f_seen)), rel=1e-12)
    assert abs(rec - float(np.hypot(*f_old))) > 0.05 * rec
