"""Closed-form kinematics of the ideal in-line slider-crank (test oracle).

Geometry: crank of length ``r`` [m] pivoted at the origin, connecting rod of length ``l`` [m]
(``l > r``), slider on the x axis (the guide line passes through the crank pivot).  The crank
angle ``theta`` [rad] is measured from +x, counter-clockwise; ``theta = 0`` is top dead centre
(crank and rod along +x, slider farthest from the pivot at ``x = r + l``), ``theta = pi`` bottom
dead centre.  The rod angle ``beta`` [rad] is the orientation of the vector from the crank pin to
the slider, ``l sin(beta) = -r sin(theta)``.

With ``s = sqrt(l^2 - r^2 sin^2 theta)`` the slider position is ``x = r cos(theta) + s``; its
derivatives follow by the chain rule with ``theta_dot = omega`` and ``theta_ddot = alpha``.
At constant speed the slider acceleration is ``-r omega^2 (1 + r/l)`` at top dead centre and
``+r omega^2 (1 - r/l)`` at bottom dead centre (docs/validation.md, "Slider-crank mechanics"; the
magnitudes ``r omega^2 (1 +- r/l)``).

Pure numpy, no workbench imports: this module is an oracle for the workbench and for the Exudyn
reference model.  All functions accept scalars or numpy arrays for ``theta``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def _check(r: float, l: float) -> None:
    if not (r > 0 and l > r):
        raise ValueError(f"need rod length l > crank length r > 0 m, got r={r!r}, l={l!r}")


def slider_position(theta, r: float, l: float):
    """Slider x [m] at crank angle ``theta`` [rad]."""
    _check(r, l)
    th = np.asarray(theta, dtype=float)
    return r * np.cos(th) + np.sqrt(l * l - (r * np.sin(th)) ** 2)


def _dx_dtheta(th, r, l):
    s = np.sqrt(l * l - (r * np.sin(th)) ** 2)
    return -r * np.sin(th) - r * r * np.sin(th) * np.cos(th) / s


def _d2x_dtheta2(th, r, l):
    s = np.sqrt(l * l - (r * np.sin(th)) ** 2)
    sn, cs = np.sin(th), np.cos(th)
    return -r * cs - r * r * (cs * cs - sn * sn) / s - r ** 4 * sn * sn * cs * cs / s ** 3


def slider_velocity(theta, omega: float, r: float, l: float):
    """Slider x velocity [m/s] at crank angle ``theta`` [rad], crank speed ``omega`` [rad/s]."""
    _check(r, l)
    th = np.asarray(theta, dtype=float)
    return omega * _dx_dtheta(th, r, l)


def slider_acceleration(theta, omega: float, r: float, l: float, alpha: float = 0.0):
    """Slider x acceleration [m/s^2]; ``alpha`` is the crank angular acceleration [rad/s^2]."""
    _check(r, l)
    th = np.asarray(theta, dtype=float)
    return omega * omega * _d2x_dtheta2(th, r, l) + alpha * _dx_dtheta(th, r, l)


def rod_angle(theta, r: float, l: float):
    """Rod angle beta [rad] (crank pin -> slider), ``sin(beta) = -(r/l) sin(theta)``."""
    _check(r, l)
    return np.arcsin(-(r / l) * np.sin(np.asarray(theta, dtype=float)))


def rod_angular_velocity(theta, omega: float, r: float, l: float):
    """beta_dot [rad/s] = -r omega cos(theta) / (l cos(beta))."""
    _check(r, l)
    th = np.asarray(theta, dtype=float)
    return -r * omega * np.cos(th) / (l * np.cos(rod_angle(th, r, l)))


def rod_angular_acceleration(theta, omega: float, r: float, l: float, alpha: float = 0.0):
    """beta_ddot [rad/s^2], from differentiating ``l cos(beta) beta_dot = -r cos(theta) omega``."""
    _check(r, l)
    th = np.asarray(theta, dtype=float)
    b = rod_angle(th, r, l)
    bd = rod_angular_velocity(th, omega, r, l)
    lam = r / l
    return (lam * np.sin(th) * omega ** 2 - lam * np.cos(th) * alpha + np.sin(b) * bd ** 2) / np.cos(b)


def tdc_acceleration(omega: float, r: float, l: float) -> float:
    """Slider acceleration at top dead centre (theta = 0), constant speed: ``-r w^2 (1 + r/l)``."""
    _check(r, l)
    return -r * omega ** 2 * (1.0 + r / l)


def bdc_acceleration(omega: float, r: float, l: float) -> float:
    """Slider acceleration at bottom dead centre (theta = pi), constant speed: ``+r w^2 (1 - r/l)``."""
    _check(r, l)
    return r * omega ** 2 * (1.0 - r / l)


@dataclass(frozen=True)
class BodyState:
    """Planar state of a body's centre of mass: position (x [m], y [m], phi [rad]) and velocity
    (vx [m/s], vy [m/s], phi_dot [rad/s])."""
    position: tuple
    velocity: tuple


def body_states(theta: float, omega: float, r: float, l: float) -> dict:
    """Centre-of-mass states of ``crank`` (COM at r/2), ``rod`` (COM at l/2, angle beta) and
    ``slider`` (COM on the guide, angle 0) of the ideal mechanism at one crank angle.

    Used for the initial conditions of clearance-joint models: at ``theta = 0`` the crank pin
    moves with ``(0, r omega)``, ``beta_dot = -r omega / l``, the rod COM with ``(0, r omega/2)``
    and the rod end (journal) and slider are at rest.
    """
    _check(r, l)
    th = float(theta)
    b = float(rod_angle(th, r, l))
    bd = float(rod_angular_velocity(th, omega, r, l))
    ux, uy = np.cos(th), np.sin(th)
    pin = np.array([r * ux, r * uy])
    vpin = np.array([-r * omega * uy, r * omega * ux])
    ex, ey = np.cos(b), np.sin(b)
    rod_c = pin + 0.5 * l * np.array([ex, ey])
    rod_v = vpin + 0.5 * l * bd * np.array([-ey, ex])
    xs = float(slider_position(th, r, l))
    vs = float(slider_velocity(th, omega, r, l))
    return {
        "crank": BodyState((0.5 * r * ux, 0.5 * r * uy, th), (0.5 * vpin[0], 0.5 * vpin[1], omega)),
        "rod": BodyState((rod_c[0], rod_c[1], b), (rod_v[0], rod_v[1], bd)),
        "slider": BodyState((xs, 0.0, 0.0), (vs, 0.0, 0.0)),
    }
