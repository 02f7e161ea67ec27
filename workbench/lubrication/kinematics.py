"""Film kinematics of a journal in a bushing, in the bushing frame (compiled).

From the eccentricity ``e = (ex, ey)`` [m] of the journal centre relative to the bushing centre, its
rate ``v = de/dt`` as seen from the bushing [m/s] and the relative angular velocity ``omega =
omega_journal - omega_bushing`` [rad/s]:

* eccentricity ratio ``eps = |e| / c`` and its rate ``eps_dot = (e . v) / (c |e|)`` [1/s];
* whirl of the line of centres seen from the bushing ``gamma_dot = (e x v) / |e|^2`` [rad/s];
* the wedge velocity ``w = omega - 2 gamma_dot`` [rad/s] of Flores et al. (2006) eq. 9 (their
  ``omega_i + omega_j - 2 gamma_dot`` with ``gamma`` measured in the ground frame: the two agree,
  since the whirl seen from the ground is the one seen from the bushing plus ``omega_bushing``).

Forces are returned along ``u_e = e / |e|`` and ``u_t = u_e`` turned +90 deg.  For a centred
journal (``|e|`` below :data:`E_TINY` times ``c``) the line of centres is taken along ``v`` (a pure
approach), or along x when the journal is at rest.
"""
from __future__ import annotations

import math

from ..jit import njit

#: below this eccentricity ratio the line of centres is taken along the velocity
E_TINY = 1e-12


@njit(cache=True)
def film_state(ex, ey, vx, vy, omega, c):
    """``(eps, eps_dot, w, uex, uey)``: eccentricity ratio [1], its rate [1/s], wedge velocity
    [rad/s] and the unit vector of the line of centres."""
    em = math.sqrt(ex * ex + ey * ey)
    if em > E_TINY * c:
        uex = ex / em; uey = ey / em
        eps_dot = (ex * vx + ey * vy) / (c * em)
        gdot = (ex * vy - ey * vx) / (em * em)
    else:
        vm = math.sqrt(vx * vx + vy * vy)
        if vm > 0.0:
            uex = vx / vm; uey = vy / vm
        else:
            uex = 1.0; uey = 0.0
        eps_dot = vm / c
        gdot = 0.0
    return em / c, eps_dot, omega - 2.0 * gdot, uex, uey


@njit(cache=True)
def to_frame(fe, ft, uex, uey):
    """Force components along ``u_e`` and ``u_t`` -> ``(fx, fy)`` in the bushing frame."""
    return fe * uex - ft * uey, fe * uey + ft * uex


@njit(cache=True)
def couette_torque(mu, R, L, c, eps, omega):
    """Film shear moment on the journal [N m], Petrov's law with the eccentric Couette film:
    ``-2 pi mu R^3 L omega / (c sqrt(1 - eps^2))`` (Petrov (1883); the eccentric form e.g.
    Hamrock, Schmid & Jacobson (2004) ch. 10).  The pressure-flow part of the shear,
    ``+- e F_t / 2``, is left out (a Petrov-type term)."""
    return -2.0 * math.pi * mu * R ** 3 * L * omega / (c * math.sqrt(1.0 - eps * eps))
