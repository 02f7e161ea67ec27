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

from .start import STRAIN_LIMIT, STRAIN_POINTS

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

    def _power(self, ks):
        """``(power [W], largest driver rate scaled by its unit [1/s])`` at the samples ``ks``."""
        fm, rec = self.fm, self.rec
        p, rate = np.zeros(len(ks)), np.zeros(len(ks))
        for col, rel, drow, r in fm.driver_list:
            f1 = np.array([fm.driver_values(drow, rec.times[k])[1] for k in ks])
            p -= rec.L[ks, r] * f1
            rate = np.maximum(rate, np.abs(f1) / (1.0 if col % 3 == 2 and col < 3 * fm.nb else self.size))
        return p, rate

    def _strains(self, ks):
        """``(largest axial strain per sample (nan: non-finite), beam index, arc length [m])``
        over the beams' nodes and element points (:func:`~workbench.flex.start.axial_strains`,
        vectorised over the samples)."""
        from .ancf_cable import hermite
        worst = np.zeros(len(ks))
        which = np.zeros(len(ks), int)
        where = np.zeros(len(ks))
        for b, (bm, cb, o) in enumerate(self.fm.beams):
            D = np.array([hermite(x, cb.le)[1] for x in STRAIN_POINTS])            # (points, 4)
            idx = o + 4 * np.arange(cb.n_el)[:, None] + np.arange(8)[None, :]     # (el, 8)
            e = self.rec.Q[ks][:, idx]                                            # (ns, el, 8)
            rx = np.einsum("pa,nea->nep", D, e[:, :, 0::2])
            ry = np.einsum("pa,nea->nep", D, e[:, :, 1::2])
            eps = np.abs(np.hypot(rx, ry) - 1.0).reshape(len(ks), -1)              # (ns, el * points)
            eps = np.where(np.isfinite(eps), eps, np.inf)
            j = np.argmax(eps, axis=1)
            m = eps[np.arange(len(ks)), j]
            new = m > worst
            worst = np.where(new, m, worst)
            which = np.where(new, b, which)
            el, pt = np.divmod(j, len(STRAIN_POINTS))
            where = np.where(new, (el + np.asarray(STRAIN_POINTS)[pt]) * cb.le, where)
        return worst, which, where

    def check(self, k_end: int):
        """Check the samples from the last checked one up to ``k_end`` (exclusive); ``(k, message)``
        of the first out of bounds, or ``None``."""
        fm, rec = self.fm, self.rec
        ks = np.arange(self.k, k_end)
        if not len(ks):
            return None
        t = rec.times[ks]
        bad = {}
        eps, which, where = self._strains(ks)
        over = np.flatnonzero(~(eps <= STRAIN_LIMIT))
        if len(over):
            i = over[0]
            bad[i] = (f"beam '{fm.beams[which[i]][0].name}' axial strain {eps[i]:.3g} at s = {where[i]:.4g} m "
                      f"beyond the limit {STRAIN_LIMIT:g} at t = {t[i]:.9g} s (a crumpled or torn rod)")
        if fm.m:
            over = np.flatnonzero(~(rec.DP[ks] <= self.phi_limit))
            if len(over) and over[0] not in bad:
                i = over[0]
                bad[i] = (f"constraint residual {rec.DP[ks[i]]:.3g} m beyond the limit {self.phi_limit:.3g} m at "
                          f"t = {t[i]:.9g} s")
        # energy: trapezoidal driver work carried over from the last batch
        p, rate = self._power(ks)
        tp = np.concatenate([[rec.times[self.k - 1] if self.k else t[0]], t])
        pp = np.concatenate([[self.power if self.k else p[0]], p])
        dt = np.diff(tp)
        work = self.work + np.cumsum(0.5 * (pp[1:] + pp[:-1]) * dt)
        slack = self.slack + np.cumsum(np.abs(pp[1:] - pp[:-1]) * dt)
        coarse = np.logical_or.accumulate(rate * dt > RESOLVED) | (not self.energy)
        e = rec.KE[ks] + rec.PE[ks] - work
        e0 = e[0] if self.e0 is None else self.e0
        scale = np.maximum.accumulate(np.maximum(np.maximum(rec.KE[ks], np.abs(work)), self.scale))
        with np.errstate(invalid="ignore"):
            grown = e - e0 > ENERGY_LIMIT * scale + slack + 1e-12
        over = np.flatnonzero(~np.isfinite(e) | (grown & ~coarse))
        if len(over) and over[0] not in bad:
            i = over[0]
            bad[i] = (f"energy balance: kinetic + potential - driver work grew by {e[i] - e0:.4g} J (limit "
                      f"{ENERGY_LIMIT:g} x {scale[i]:.4g} J, the energy in play, + {slack[i]:.3g} J, the work "
                      f"quadrature's uncertainty) by t = {t[i]:.9g} s: energy created by the integration")
        if bad:
            i = min(bad)
            return int(ks[i]), bad[i]
        self.k, self.work, self.power, self.slack = k_end, float(work[-1]), float(p[-1]), float(slack[-1])
        self.e0, self.scale, self.energy = e0, float(scale[-1]), not bool(coarse[-1])
        return None
