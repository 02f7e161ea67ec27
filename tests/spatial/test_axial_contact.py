"""The revolute joint's axial contact (:mod:`workbench.spatial.axial_contact`): the tilted state of
Qi, Luo & Huang (2009) eq. 36 and the flush state of our reading.  Without friction the face's
moment ``g R`` splits the loads exactly (tilted above it, flush below) and exactly one state is
consistent for random loads; with friction the state found reproduces the reaction."""
from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.spatial import axial_contact as ac
from workbench.spatial.joint_friction import _radial_matrix


def _state(F, M, k_r, R, c):
    A = _radial_matrix(0.0, k_r, R, c)
    b0 = np.array([F[1], F[2], M[1], M[2]], float)
    g3, g4 = max(F[0], 0.0), max(-F[0], 0.0)
    return A, b0, g3, g4


@pytest.mark.parametrize("x", [0.5, 0.99, 1.01, 2.0])
def test_the_face_moment_splits_the_states(x):
    R, c, g = 0.02, 0.04, 50.0
    # a radial force of 1 uN: with none at all the tilted loads are exactly opposite (n2 = -n1)
    # and the azimuth of their mean, which the solver uses, is undefined
    A, b0, g3, g4 = _state((g, 1e-6, 0.0), (0.0, x * g * R, 0.0), 0.0, R, c)
    u, n3, state = ac.solve(A, b0, g3, g4, 0.0, R, c)
    F1, F2 = math.hypot(*u[:2]), math.hypot(*u[2:])
    assert state == ("flush" if x < 1 else "tilted")
    # tilted: the radial loads carry what the face does not, c (F1 + F2) = |M| - g R
    assert c * (F1 + F2) == pytest.approx(max(x - 1.0, 0.0) * g * R, abs=2e-6 * c)
    assert np.linalg.norm(n3) == pytest.approx(min(x, 1.0), abs=1e-6)


@pytest.mark.parametrize("R, c", [(0.02, 0.04), (0.05, 0.5), (0.05, 0.02)])
def test_exactly_one_state_without_friction(R, c):
    rng = np.random.default_rng(7)
    seen = set()
    for _ in range(12):
        F = rng.normal(size=3) * 100
        M = rng.normal(size=3) * rng.choice([0.3, 3.0, 30.0]) * c / 0.04
        A, b0, g3, g4 = _state(F, M, 0.0, R, c)
        t = ac.tilted(A, b0, g3, g4, 0.0, R, c)
        f = ac.flush(A, b0, g3, g4, 0.0, R, c)
        assert (t is None) != (f is None)
        seen.add("tilted" if t is not None else "flush")
    assert seen == {"tilted", "flush"}


@pytest.mark.parametrize("seed", range(6))
def test_the_state_reproduces_the_reaction_with_friction(seed):
    rng = np.random.default_rng(20 + seed)
    R, c, mu = 0.05, 0.5, 0.1
    F, M = rng.normal(size=3) * 100, rng.normal(size=3) * 30
    k_r = -mu * math.copysign(1.0, rng.normal())
    A, b0, g3, g4 = _state(F, M, k_r, R, c)
    u, n3, state = ac.solve(A, b0, g3, g4, k_r, R, c)
    assert state in ("tilted", "flush")
    assert np.allclose(A @ u + ac.axial_perp(g3, g4, n3, k_r, R, c), b0, atol=1e-8)
    n1, n2 = u[:2] / np.linalg.norm(u[:2]), u[2:] / np.linalg.norm(u[2:])
    if state == "tilted":      # their eq. 36
        d = np.array([0.0, *(n2 - n1)])
        assert np.allclose(n3, d / np.linalg.norm(d), atol=1e-8)
    else:                      # flush: n1 = n2, n3 across the load direction, inside the rim
        assert np.allclose(n1, n2, atol=1e-9) and abs(n3[1:] @ n1) < 1e-9 and np.linalg.norm(n3) <= 1 + 1e-12


def _random_face_loads(rng, n):
    """``n`` random journal loads for the face solves: ``(A, b0, g3, g4, k_r, c)`` with the
    radial matrix of a friction coefficient k_r (zero half the time) and face distance c [m], a
    radial load b0 [N, N m], and an axial load on one face, of order 1 or 100 N."""
    from workbench.spatial import kernels as K
    for _ in range(n):
        c, k_r = rng.uniform(0.02, 0.5), rng.choice([0.0, rng.uniform(-0.3, 0.3)])
        A = K._radial_matrix(0.0, k_r, 0.05, c)
        b0 = rng.normal(size=4) * np.array([100.0, 100.0, 10.0, 10.0])
        g = abs(rng.normal()) * rng.choice([1.0, 100.0])
        g3, g4 = (g, 0.0) if rng.random() < 0.5 else (0.0, g)
        yield A, b0, g3, g4, k_r, c


def test_the_compiled_flush_solve_is_the_python_one():
    """``kernels._flush`` (what the compiled path and :func:`axial_contact.flush` run) against
    :func:`axial_contact.flush_py` (the same steps in Python, with numpy's polyfit and lstsq) on
    random loads, faces and friction: the same states found, radial loads and face points to 1e-12
    (measured 5.1e-14 with the determinants, the cubic's roots and the least squares written out;
    9.5e-15 when it called numpy's)."""
    from workbench.spatial import kernels as K
    rng = np.random.default_rng(1)
    found = 0
    for A, b0, g3, g4, k_r, c in _random_face_loads(rng, 300):
        py = ac.flush_py(A, b0, g3, g4, k_r, 0.05, c)
        ok, u, n3 = K._flush(A, b0, g3, g4, k_r, 0.05, c)
        assert ok == (py is not None)
        if ok:
            found += 1
            scale = max(1.0, float(np.abs(py[0]).max()))
            assert np.abs(u - py[0]).max() <= 1e-12 * scale and np.abs(n3 - py[1]).max() <= 1e-12
    assert found >= 20      # the sample holds flush states (39 of 300 with this seed)


def test_the_compiled_tilted_scan_is_the_python_one():
    """``kernels._tilted_scan`` (what :func:`axial_contact.tilted` runs when its secant fails)
    against :func:`axial_contact._tilted_scan_py` (the same scan and bisection in Python) on random
    loads, faces and friction: the same states found, radial loads and face points to 1e-9 (the
    bisection's last steps may part on round-off)."""
    from workbench.spatial import kernels as K
    rng = np.random.default_rng(2)
    found = worst = 0
    for A, b0, g3, g4, k_r, c in _random_face_loads(rng, 60):
        py = ac._tilted_scan_py(A, b0, g3, g4, k_r, 0.05, c)
        ok, u, n3 = K._tilted_scan(A, b0, g3, g4, k_r, 0.05, c)
        assert ok == (py is not None)
        if ok:
            found += 1
            scale = max(1.0, float(np.abs(py[0]).max()))
            worst = max(worst, np.abs(u - py[0]).max() / scale, np.abs(n3 - py[1]).max())
    print(f"\n{found} of 60 tilted; largest difference {worst:.2g}")
    assert worst <= 1e-9 and found >= 20
