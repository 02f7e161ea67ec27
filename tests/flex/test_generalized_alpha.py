"""Generalised-alpha (workbench/flex/generalized_alpha.py): second-order convergence on a linear
oscillator (closed form), numerical damping set by rho_inf, and a free flexible ANCF pendulum that
keeps its energy and its pin (Arnold & Brüls (2007); Gerstmayr & Irschik (2008))."""
import math

import numpy as np
import pytest

from workbench.flex.ancf_cable import CableBeam, element_energy
from workbench.flex.generalized_alpha import AlphaParameters, ConstrainedSystem, integrate


def _oscillator(k=4.0 * math.pi ** 2, m=1.0):
    return ConstrainedSystem(np.array([[m]]), lambda q, v, t: (k * q, np.array([[k]]), np.zeros((1, 1))))


@pytest.mark.parametrize("rho", [1.0, 0.8])
def test_second_order_on_the_linear_oscillator(rho):
    sys_ = _oscillator()
    errs = []
    for h in (1e-2, 5e-3, 2.5e-3):
        r = integrate(sys_, [1.0], [0.0], 1.0, h, params=AlphaParameters(rho))
        errs.append(abs(r.q[-1, 0] - math.cos(2 * math.pi * 1.0)))
    orders = [math.log2(errs[i] / errs[i + 1]) for i in range(2)]
    assert min(orders) > 1.9, (errs, orders)


def test_rho_inf_damps_only_the_unresolved_frequencies():
    # A mode with omega h = 100 dies out with rho_inf = 0.5 and keeps its amplitude with 1.
    sys_ = _oscillator(k=1e8)
    for rho, survives in ((1.0, True), (0.5, False)):
        r = integrate(sys_, [1.0], [0.0], 0.2, 1e-2, params=AlphaParameters(rho))
        amp = np.abs(r.q[-5:, 0]).max()
        assert (amp > 0.5) == survives


def _pendulum(n_el=4):
    # a steel strip pinned at its first node, released horizontal under gravity
    beam = CableBeam(1.0, 1e-4, 1e-4 * 0.01 ** 2 / 12, 2.07e11 / 1000, 7850.0, n_el)
    grav = np.zeros(beam.n)
    one_y = np.zeros(beam.n)
    one_y[1::4] = 1.0
    grav = -9.81 * (beam.M @ one_y)

    def forces(q, v, t):
        Q, K = beam.forces(q)
        return Q - grav, K, np.zeros_like(K)

    def constraints(q, t):
        B = np.zeros((2, beam.n))
        B[0, 0] = B[1, 1] = 1.0
        return q[:2].copy(), B
    return beam, ConstrainedSystem(beam.M, forces, constraints), one_y


def _energy(beam, q, v, one_y):
    pot = 9.81 * float(one_y @ beam.M @ q)
    elastic = sum(element_energy(q[4 * k:4 * k + 8], beam.ea, beam.ei, beam.le) for k in range(beam.n_el))
    return 0.5 * float(v @ beam.M @ v) + pot + elastic


def test_flexible_pendulum_keeps_energy_and_pin():
    # rho_inf = 1 (trapezoidal, no numerical damping): the energy error is bounded and falls as h^2
    # (measured 2.1e-5, 5.2e-6, 1.3e-6 of m g L/2 at h = 1, 0.5, 0.25 ms).
    beam, sys_, one_y = _pendulum()
    swing = 9.81 * float(one_y @ beam.M @ one_y) * 0.5   # m g L/2, the energy scale
    errs = []
    for h in (1e-3, 5e-4):
        r = integrate(sys_, beam.q0, np.zeros(beam.n), 0.5, h, params=AlphaParameters(1.0))
        e = np.array([_energy(beam, q, v, one_y) for q, v in zip(r.q, r.v)])
        errs.append(np.abs(e - e[0]).max() / swing)
        assert np.abs(r.q[:, :2]).max() < 1e-9     # the pin holds
        assert r.q[-1, beam.n - 3] < -0.3          # it swung down
    assert errs[-1] < 1e-5
    assert errs[0] / errs[1] > 3.5
