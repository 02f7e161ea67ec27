"""Closed-form contact pressures of a pin in a bore (the oracles of ``docs/validation.md``).

* Persson (1964), in the form of Ciavarella & Decuzzi, IJSS 38 (2001): plane strain, frictionless,
  pin and infinite plate of one material, radial clearance ``dR << R``.
* Hertz, two internal cylinders (valid while the contact half-angle is small).
* Rigid journal in a Winkler-lined bushing (elastic foundation ``p = k u``, Wang & Liu (2015) eq. 23-24).

All functions take SI units: ``P`` is the load per unit axial length [N/m], ``E_star`` [Pa] with
``1/E* = (1-nu1^2)/E1 + (1-nu2^2)/E2``, radii and clearances [m], angles [rad] measured from the
load line.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from workbench.errors import WorkbenchError


def _persson_denominator(eps: float) -> float:
    return math.cos(eps) + math.cos(eps / 2) ** 4 * math.log(math.cos(eps / 2))


#: limiting Persson half-angle as the clearance goes to zero [rad] (about 85 deg)
PERSSON_EPS_MAX = brentq(_persson_denominator, 1.0, math.pi / 2 - 1e-9)


def persson_load_ratio(eps: float) -> float:
    """``P / (E* dR)`` for contact half-angle ``eps`` [rad] (Persson; Ciavarella & Decuzzi 2001)."""
    if not 0.0 < eps < PERSSON_EPS_MAX:
        raise WorkbenchError(f"Persson half-angle must lie in (0, {PERSSON_EPS_MAX:.4f}) rad, got {eps}")
    return math.pi * math.sin(eps / 2) ** 2 / _persson_denominator(eps)


def persson_half_angle(P: float, E_star: float, dR: float) -> float:
    """Contact half-angle [rad] for load ``P`` [N/m], ``E*`` [Pa], clearance ``dR`` [m] (Persson)."""
    if P <= 0:
        return 0.0
    if dR <= 0:
        return PERSSON_EPS_MAX
    target = P / (E_star * dR)
    hi = PERSSON_EPS_MAX * (1 - 1e-12)
    if persson_load_ratio(hi) <= target:
        return hi
    return brentq(lambda e: persson_load_ratio(e) - target, 1e-9, hi, xtol=1e-15, rtol=1e-14)


def persson_pressure(theta, eps: float, P: float, R: float) -> np.ndarray:
    """Persson's pressure [Pa per unit length: N/m^2] at angles ``theta`` [rad] from the load line."""
    th = np.abs(np.asarray(theta, float))
    out = np.zeros_like(th)
    on = th < eps
    c = np.cos(th[on])
    s2 = math.sin(eps / 2) ** 2
    x = np.sqrt(np.clip((c - math.cos(eps)) / (1 + c), 0.0, 1.0 - 1e-16))
    out[on] = P / (math.pi * R) * (math.cos(eps / 2) ** 4 / s2 * np.arctanh(x)
                                   + math.sqrt(2) * np.cos(th[on] / 2) * np.sqrt(np.clip(c - math.cos(eps), 0, None)))
    return out


def persson_peak(eps: float, P: float, R: float) -> float:
    """Persson's peak pressure [Pa] on the load line."""
    s = math.sin(eps / 2)
    return P / (math.pi * R) * (math.cos(eps / 2) ** 4 * math.atanh(s) / s ** 2 + 2 * s)


def hertz_internal(P: float, R_pin: float, R_hole: float, E_star: float) -> tuple[float, float]:
    """Hertz half-width ``a`` [m] and peak ``p0`` [Pa] for two internal cylinders."""
    R_eff = 1.0 / (1.0 / R_pin - 1.0 / R_hole)
    a = math.sqrt(4.0 * P * R_eff / (math.pi * E_star))
    return a, 2.0 * P / (math.pi * a)


def hertz_pressure(theta, P: float, R_pin: float, R_hole: float, E_star: float) -> np.ndarray:
    """Hertz elliptical pressure [Pa] at bore angles ``theta`` [rad] (arc coordinate ``R_hole theta``)."""
    a, p0 = hertz_internal(P, R_pin, R_hole, E_star)
    x = R_hole * np.asarray(theta, float) / a
    return p0 * np.sqrt(np.clip(1.0 - x ** 2, 0.0, None))


def winkler_load(eps: float, k: float, R: float, dR: float) -> float:
    """Load per length [N/m] of a rigid journal in a Winkler-lined bore at half-angle ``eps``."""
    if dR == 0:
        return R * k * 0.0 + float("nan")
    return R * k * dR * (eps - math.sin(eps) * math.cos(eps)) / math.cos(eps)


def winkler_stiffness_for_half_angle(eps: float, P: float, R: float, dR: float) -> float:
    """Foundation modulus ``k`` [Pa/m] that gives half-angle ``eps`` at load ``P`` [N/m]."""
    return P * math.cos(eps) / (R * dR * (eps - math.sin(eps) * math.cos(eps)))
