"""Approximate contact area: pressure = force / (arc x length), ``A = s b``.

Seed 000 §2.3.2 eq. 22: the contact area of a revolute joint is ``A = s b`` with ``s`` the contact
arc and ``b`` the pin length, and the pressure is ``p = F / A``.  The arc is ``s = 2 a`` with ``a``
the Hertz half-width of two internal cylinders at the current load (``VALIDATION.md``:
``a = sqrt(4 P R_eff / (pi E*))``, ``1/R_eff = 1/R_pin - 1/R_hole``, ``P = F/b``) and the clearance
taken from the gap in the load direction.  The pressure is centred on the load direction, uniform
(``F/(s b)``) or elliptical (peak ``4F/(pi s b)``), and the nodal values are scaled so that
``sum p R dtheta b = F`` exactly.  For a prescribed approach, the force is the Hertz-type joint law
``F = K delta^1.5`` with ``K`` from seed 004 eq. 11.

:meth:`ApproximateArea.solve_loads` (the batch of a wear update) runs the same arithmetic compiled
over the samples (:func:`approximate_area_batch`); ``solve_load`` stays the reference path.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from workbench.errors import WorkbenchError
from workbench.hookspecs import hookimpl
from workbench.models import (BoreSection, ContactGeometry, PressureModel, PressureSolution,
                              parameter)


@njit(cache=True)
def approximate_area_batch(theta, gaps, loads, R, b, hsum, elliptical):
    """Compiled ``solve_load`` of :class:`ApproximateArea` over ``ns`` samples.

    ``theta`` (n,) uniform node angles [rad]; ``gaps`` (ns, n) or (1, n) [m] (one row shared by all
    samples); ``loads`` (ns, 2) [N]; ``R`` bore radius [m]; ``b`` length [m]; ``hsum`` = ``h_bushing +
    h_journal`` [1/Pa]; ``elliptical`` the pressure shape.  Returns ``(p (ns, n) [Pa], e (ns, 2) [m],
    bad)`` with ``bad`` the first loaded sample whose clearance along its load is <= 0 (-1 if none).
    Same operations, in the same order, as the reference path (interpolation of the gap at the load
    angle, Hertz half-width, seed 004 eq. 11 stiffness, nodal scaling); only the nodes within the
    arc plus two are visited (the others carry no pressure).
    """
    n = theta.size
    ns = loads.shape[0]
    twopi = 2.0 * math.pi
    dtheta = twopi / n
    theta0 = theta[0]
    p = np.zeros((ns, n))
    ecc = np.zeros((ns, 2))
    shape = np.zeros(n)
    dth = np.zeros(n)
    idx = np.zeros(n, dtype=np.int64)
    E_star = 1.0 / hsum
    for s in range(ns):
        F0, F1 = loads[s, 0], loads[s, 1]
        Fm = math.sqrt(F0 * F0 + F1 * F1)
        if Fm == 0.0:
            continue
        g = gaps[s] if gaps.shape[0] > 1 else gaps[0]
        angle = math.atan2(F1, F0)
        # np.interp of the periodic gap at the load angle (as ApproximateArea._clearance)
        x = (angle - theta0) % twopi + theta0
        j = min(max(int((x - theta0) / dtheta), 0), n - 1)
        while j > 0 and theta[j] > x:
            j -= 1
        while j < n - 1 and theta[j + 1] <= x:
            j += 1
        if j < n - 1:
            x1, g1 = theta[j + 1], g[j + 1]
        else:
            x1, g1 = theta0 + twopi, g[0]
        if x == x1:
            dR = g1
        else:
            dR = (g1 - g[j]) / (x1 - theta[j]) * (x - theta[j]) + g[j]
        if dR <= 0.0:
            return p, ecc, s
        Rj = R - dR
        K = 4.0 / (3.0 * hsum) * math.sqrt(R * Rj / (R - Rj))
        delta = (Fm / K) ** (1 / 1.5)
        ecc[s, 0] = (dR + delta) * F0 / Fm
        ecc[s, 1] = (dR + delta) * F1 / Fm
        R_eff = 1.0 / (1.0 / (R - dR) - 1.0 / R)
        a = math.sqrt(4.0 * Fm / b * R_eff / (math.pi * E_star))
        alpha = min(a / R, math.pi / 2)
        # nodes that can be within alpha of the load angle (plus a margin of two nodes)
        c = int(round((angle - theta0) / dtheta))
        m = int(alpha / dtheta) + 2
        count = min(2 * m + 1, n)
        start = c - m if 2 * m + 1 < n else 0
        n_in = 0
        dmin = math.inf
        for q in range(count):
            k = (start + q) % n
            t = theta[k] - angle
            if elliptical:      # the reference's np.angle(exp(i t)): sqrt(1 - r^2) amplifies ulps
                d = math.atan2(math.sin(t), math.cos(t))
            else:               # the same wrap to (-pi, pi] up to rounding, without transcendentals
                d = t - twopi * math.floor(t / twopi + 0.5)
            idx[q] = k
            dth[q] = d
            if abs(d) <= alpha:
                n_in += 1
            dmin = min(dmin, abs(d))
        total = 0.0
        for q in range(count):
            d = abs(dth[q])
            inside = d <= alpha if n_in > 0 else d == dmin
            v = 0.0
            if inside:
                if elliptical:
                    r = dth[q] / max(alpha, 1e-300)
                    v = math.sqrt(max(1.0 - r * r, 0.0))
                else:
                    v = 1.0
            shape[q] = v
            total += v
        if total == 0.0:            # elliptical with only edge nodes: uniform over them
            for q in range(count):
                d = abs(dth[q])
                inside = d <= alpha if n_in > 0 else d == dmin
                shape[q] = 1.0 if inside else 0.0
                total += shape[q]
        denom = R * b * dtheta * total
        for q in range(count):
            if shape[q] != 0.0:
                p[s, idx[q]] = shape[q] * Fm / denom
    return p, ecc, -1


class ApproximateArea(PressureModel):
    """``p = F / (s b)`` over the Hertz arc (seed 000 eq. 22; Hertz half-width, seed 004 eq. 11)."""
    name = "approximate_area"
    reference = "seed 000 §2.3.2 eq. (22) A = s b; Hertz half-width of internal cylinders; seed 004 eq. (11)"

    @dataclass(frozen=True)
    class Params:
        distribution: str = parameter("uniform", unit="text", doc="pressure shape over the arc: "
                                      "'uniform' or 'elliptical'", choices=("uniform", "elliptical"))

    def _clearance(self, section: BoreSection, angle: float) -> float:
        th = np.append(section.theta, section.theta[0] + 2 * math.pi)
        g = np.append(section.gap, section.gap[0])
        return float(np.interp(np.mod(angle - section.theta[0], 2 * math.pi) + section.theta[0], th, g))

    @staticmethod
    def _E_star(section: BoreSection) -> float:
        hsum = section.bushing.h + section.journal.h
        if hsum <= 0:
            raise WorkbenchError("approximate_area needs at least one elastic part")
        return 1.0 / hsum

    def half_angle(self, section: BoreSection, force: float, angle: float) -> float:
        """Half-angle ``a/R`` [rad] of the Hertz arc for force ``force`` [N] along ``angle`` [rad]."""
        dR = self._clearance(section, angle)
        R = section.radius
        if dR <= 0:
            return math.pi / 2
        R_eff = 1.0 / (1.0 / (R - dR) - 1.0 / R)
        a = math.sqrt(4.0 * force / section.length * R_eff / (math.pi * self._E_star(section)))
        return min(a / R, math.pi / 2)

    def _distribute(self, section: BoreSection, force: float, angle: float, e) -> PressureSolution:
        n, R, b = len(section.theta), section.radius, section.length
        p = np.zeros(n)
        alpha = self.half_angle(section, force, angle) if force > 0 else 0.0
        if force > 0:
            dth = np.angle(np.exp(1j * (section.theta - angle)))
            inside = np.abs(dth) <= alpha
            if not inside.any():
                inside = np.abs(dth) == np.abs(dth).min()
            if self.params.distribution == "uniform":
                shape = inside.astype(float)
            else:
                shape = np.sqrt(np.clip(1 - (dth / max(alpha, 1e-300)) ** 2, 0, None)) * inside
                if not shape.any():
                    shape = inside.astype(float)
            p = shape * force / (R * b * section.dtheta * shape.sum())
        res = R * b * section.dtheta * (section.normals.T @ p)
        arc = 2 * alpha * R
        info = {"half_angle": alpha, "peak_pressure": float(p.max()),
                "area": arc * b,
                "nominal_pressure": force / (arc * b) if arc > 0 else 0.0}
        return PressureSolution(p, np.asarray(e, float), res, info)

    def _stiffness(self, section: BoreSection, angle: float) -> float:
        dR = self._clearance(section, angle)
        if dR <= 0:
            raise WorkbenchError("approximate_area needs a positive clearance in the contact direction")
        geo = ContactGeometry("cylindrical", section.radius - dR, section.radius, section.length,
                              section.journal, section.bushing)
        return geo.default_stiffness()

    def solve_load(self, section: BoreSection, load) -> PressureSolution:
        F = np.asarray(load, float)
        Fm = float(np.linalg.norm(F))
        if Fm == 0:
            return self._distribute(section, 0.0, 0.0, np.zeros(2))
        angle = math.atan2(F[1], F[0])
        dR = self._clearance(section, angle)
        delta = (Fm / self._stiffness(section, angle)) ** (1 / 1.5)
        return self._distribute(section, Fm, angle, (dR + delta) * F / Fm)

    def solve_loads(self, section: BoreSection, loads, gaps=None) -> tuple[np.ndarray, np.ndarray]:
        """Batch :meth:`solve_load` (see :class:`workbench.models.PressureModel`), compiled over the
        samples; equal to the per-sample loop to rounding."""
        L, G = self.batch_inputs(section, loads, gaps)
        gaps2 = np.ascontiguousarray(np.asarray(section.gap, float)[None, :]) if G is None else G
        if len(L) and np.any(L != 0.0):
            self._E_star(section)   # error when both parts are rigid
        p, e, bad = approximate_area_batch(np.ascontiguousarray(section.theta, dtype=float), gaps2, L,
                                           float(section.radius), float(section.length),
                                           float(section.bushing.h + section.journal.h),
                                           self.params.distribution == "elliptical")
        if bad >= 0:
            raise WorkbenchError(f"approximate_area needs a positive clearance in the contact direction "
                                 f"(sample {bad}, load {L[bad].tolist()} N)")
        return p, e

    def solve_approach(self, section: BoreSection, eccentricity) -> PressureSolution:
        e = np.asarray(eccentricity, float)
        u = section.normals @ e - section.gap
        if not np.any(u > 0):
            return self._distribute(section, 0.0, 0.0, e)
        angle = math.atan2(e[1], e[0])
        force = self._stiffness(section, angle) * float(u.max()) ** 1.5
        return self._distribute(section, force, angle, e)


@hookimpl
def register_pressure_models(register):
    register(ApproximateArea)
