"""Bounds a run of :func:`workbench.flex.solver.simulate` must stay within, checked at its samples.

A run that leaves them stops with a :class:`~workbench.errors.SolverError` (exit status 3 on the
command line) naming the time and the cause, and keeps its samples up to and including the first
one out of bounds (the error's ``partial``; written to ``<out>.partial.nc`` by the study path):

* **constraint residual**: ``|Phi|`` at a sample above :data:`CONSTRAINT_LIMIT` times the
  mechanism's size (the Newton iteration holds it near ``1e-3 atol``; a larger one means the
  iteration stopped on something else);
* **beam axial strain**: ``|r'| - 1`` at a node or inside an element
  (:func:`~workbench.flex.start.axial_strains`) above :data:`~workbench.flex.start.STRAIN_LIMIT`
  (0.1: a hundred times the yield strain of steel and ten times the largest strain of the softest
  shipped rod, 2 GPa with impacts; far outside the cable's linear material law: a crumpled rod);
* **energy balance**: the kinetic plus potential energy (gravity, constant forces, strain) minus
  the drivers' work grown above its start by more than :data:`ENERGY_LIMIT` of the energy in play
  (the largest kinetic energy and driver work so far) plus the uncertainty of the driver work's
  trapezoidal quadrature over the samples (the difference of the left and right rectangle rules,
  ``sum |P_k - P_(k-1)| dt``: sparse samples loosen the check; where a driver moves more than
  :data:`RESOLVED` between two samples, their work is unknown and the check is off for the rest
  of the run, e.g. the speed-ramp pre-roll's single sample).  Every other term of the books removes
  energy (beam damping, contact damping and friction, the scheme's numerical damping) or stores it
  for the length of an impact (the contact potential, not in the potential energy), so energy
  created beyond the driver work's quadrature error is the integration going wrong.
"""
from __future__ import annotations

import numpy as np

from .start import STRAIN_LIMIT, axial_strains

#: largest constraint residual at a sample, as a fraction of the mechanism's size [1]
CONSTRAINT_LIMIT = 1e-6
#: largest energy created (kinetic + potential - driver work - its start value), as a fraction of the
#: energy in play (largest kinetic energy and |driver work| so far) [1]
ENERGY_LIMIT = 0.1
#: the energy check runs while a driver moves at most this much between samples [rad, or this
#: fraction of the mechanism's size]: coarser samples cannot give its work
RESOLVED = 0.1


class RunGuard:
    """Checks the samples of one run (module docstring) as they are recorded."""

    def __init__(self, fm, rec, size: float):
        self.fm, self.rec = fm, rec
        self.phi_limit = CONSTRAINT_LIMIT * size
        self.size = size
        self.energy = True            # off once the samples do not resolve the drivers' motion
        self.k = 0                    # samples checked
        self.work = 0.0               # drivers' work up to sample k - 1 [J]
        self.power = 0.0              # drivers' power at sample k - 1 [W]
        self.e0 = None
        self.scale = 0.0
        self.slack = 0.0              # the work quadrature's uncertainty so far [J]

    def _power(self, k):
        """``(power [W], largest driver rate scaled by its unit [1/s])`` at sample ``k``."""
        fm, rec = self.fm, self.rec
        p, rate = 0.0, 0.0
        for col, rel, drow, r in fm.driver_list:
            f1 = fm.driver_values(drow, rec.times[k])[1]
            p += -rec.L[k, r] * f1
            rate = max(rate, abs(f1) / (1.0 if col % 3 == 2 and col < 3 * fm.nb else self.size))
        return p, rate

    def check(self, k_end: int):
        """Check the samples up to ``k_end`` (exclusive); ``(k, message)`` of the first out of
        bounds, or ``None``."""
        fm, rec = self.fm, self.rec
        for k in range(self.k, k_end):
            t = rec.times[k]
            for name, eps, at in axial_strains(fm, rec.Q[k]):
                if not eps <= STRAIN_LIMIT:
                    return k, (f"beam '{name}' axial strain {eps:.3g} at s = {at:.4g} m beyond the limit "
                               f"{STRAIN_LIMIT:g} at t = {t:.9g} s (a crumpled or torn rod)")
            if fm.m and not rec.DP[k] <= self.phi_limit:
                return k, (f"constraint residual {rec.DP[k]:.3g} m beyond the limit {self.phi_limit:.3g} m at "
                           f"t = {t:.9g} s")
            p, rate = self._power(k)
            if k > 0:
                if rate * (t - rec.times[k - 1]) > RESOLVED:
                    self.energy = False
                self.work += 0.5 * (p + self.power) * (t - rec.times[k - 1])
                self.slack += abs(p - self.power) * (t - rec.times[k - 1])
            self.power = p
            e = rec.KE[k] + rec.PE[k] - self.work
            if self.e0 is None:
                self.e0 = e
            self.scale = max(self.scale, rec.KE[k], abs(self.work))
            if not np.isfinite(e) or self.energy and e - self.e0 > ENERGY_LIMIT * self.scale + self.slack + 1e-12:
                return k, (f"energy balance: kinetic + potential - driver work grew by {e - self.e0:.4g} J (limit "
                           f"{ENERGY_LIMIT:g} x {self.scale:.4g} J, the energy in play, + {self.slack:.3g} J, the work "
                           f"quadrature's uncertainty) by t = {t:.9g} s: energy "
                           f"created by the integration")
            self.k = k + 1
        return None
