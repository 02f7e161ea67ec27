"""Checks of the closed-form ideal slider-crank oracle (tests/reference/ideal_slider_crank_closed_form.py).

Source: docs/validation.md "Slider-crank mechanics" (TDC/BDC accelerations r w^2 (1 +- r/l)) and the
loop-closure geometry of the in-line slider-crank.  Derivatives are checked against central finite
differences of the module's own positions: with step h = 1e-4 rad the truncation error is
O(h^2) ~ 1e-8 relative, so 1e-6 relative tolerance can only fail on a wrong formula.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest


def _load():
    path = Path(__file__).parents[1] / "reference" / "ideal_slider_crank_closed_form.py"
    spec = importlib.util.spec_from_file_location("ideal_slider_crank_closed_form", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod          # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


cf = _load()
R, L = 0.05, 0.12                      # Flores slider-crank [m]
W = 5000 * 2 * np.pi / 60              # 5000 rpm [rad/s]
THETA = np.linspace(0.0, 2 * np.pi, 37)[:-1] + 0.01


def _fd_time(f, theta0, omega, alpha, h=1e-7):
    """First and second time derivatives of f(theta(t)), theta = theta0 + omega t + alpha t^2/2."""
    th = lambda t: theta0 + omega * t + 0.5 * alpha * t * t
    fp, f0, fm = f(th(h)), f(th(0.0)), f(th(-h))
    return (fp - fm) / (2 * h), (fp - 2 * f0 + fm) / (h * h)


@pytest.mark.parametrize("alpha", [0.0, 3.0e4])
def test_slider_velocity_and_acceleration_match_finite_differences(alpha):
    # h = 1e-7 s at 524 rad/s is 5e-5 rad: FD truncation ~ (5e-5)^2 relative, rounding of the
    # second difference ~ eps * x / h_theta^2 ~ 1e-7 relative to r w^2 -> tolerance 1e-5 * r w^2.
    v_fd, a_fd = _fd_time(lambda t: cf.slider_position(t, R, L), THETA, W, alpha)
    v = cf.slider_velocity(THETA, W, R, L)
    a = cf.slider_acceleration(THETA, W, R, L, alpha)
    np.testing.assert_allclose(v, v_fd, rtol=0, atol=1e-6 * R * W)
    np.testing.assert_allclose(a, a_fd, rtol=0, atol=1e-5 * R * W * W)


@pytest.mark.parametrize("alpha", [0.0, 3.0e4])
def test_rod_angle_derivatives_match_finite_differences(alpha):
    bd_fd, bdd_fd = _fd_time(lambda t: cf.rod_angle(t, R, L), THETA, W, alpha)
    np.testing.assert_allclose(cf.rod_angular_velocity(THETA, W, R, L), bd_fd, rtol=0,
                               atol=1e-6 * W * R / L)
    np.testing.assert_allclose(cf.rod_angular_acceleration(THETA, W, R, L, alpha), bdd_fd, rtol=0,
                               atol=1e-5 * W * W * R / L)


def test_loop_closure():
    """Crank pin + rod vector lands on the guide (y = 0) at the slider position."""
    b = cf.rod_angle(THETA, R, L)
    x = R * np.cos(THETA) + L * np.cos(b)
    y = R * np.sin(THETA) + L * np.sin(b)
    np.testing.assert_allclose(y, 0.0, atol=1e-15)
    np.testing.assert_allclose(x, cf.slider_position(THETA, R, L), rtol=1e-14)


def test_tdc_bdc_accelerations():
    """docs/validation.md: |a_TDC| = r w^2 (1 + r/l), |a_BDC| = r w^2 (1 - r/l), written out here
    independently of the module's helper functions."""
    a_tdc = cf.slider_acceleration(0.0, W, R, L)
    a_bdc = cf.slider_acceleration(np.pi, W, R, L)
    np.testing.assert_allclose(a_tdc, -R * W ** 2 * (1 + R / L), rtol=1e-12)
    np.testing.assert_allclose(a_bdc, R * W ** 2 * (1 - R / L), rtol=1e-12)
    assert cf.tdc_acceleration(W, R, L) == pytest.approx(float(a_tdc), rel=1e-12)
    assert cf.bdc_acceleration(W, R, L) == pytest.approx(float(a_bdc), rel=1e-12)
    # extreme positions: slider at rest there
    assert abs(cf.slider_velocity(0.0, W, R, L)) < 1e-12
    assert abs(cf.slider_velocity(np.pi, W, R, L)) < 1e-9


def test_body_states_are_rigid_body_consistent():
    """At any angle: the rod end moves with the slider, the rod start with the crank pin."""
    for th in (0.0, 0.7, 2.5, 4.0):
        s = cf.body_states(th, W, R, L)
        cx, cy, b = s["rod"].position
        vx, vy, bd = s["rod"].velocity
        end_v = np.array([vx, vy]) + 0.5 * L * bd * np.array([-np.sin(b), np.cos(b)])
        np.testing.assert_allclose(end_v, [s["slider"].velocity[0], 0.0], atol=1e-9 * R * W)
        start_v = np.array([vx, vy]) - 0.5 * L * bd * np.array([-np.sin(b), np.cos(b)])
        np.testing.assert_allclose(start_v, 2 * np.array(s["crank"].velocity[:2]), atol=1e-9 * R * W)
        np.testing.assert_allclose([cx + 0.5 * L * np.cos(b), cy + 0.5 * L * np.sin(b)],
                                   [s["slider"].position[0], 0.0], atol=1e-15)
    s0 = cf.body_states(0.0, W, R, L)
    assert s0["rod"].velocity[2] == pytest.approx(-R * W / L, rel=1e-14)
    assert s0["rod"].velocity[:2] == pytest.approx((0.0, R * W / 2), abs=1e-12)


def test_rejects_bad_geometry():
    with pytest.raises(ValueError, match="l > crank length r"):
        cf.slider_position(0.0, 0.2, 0.1)
