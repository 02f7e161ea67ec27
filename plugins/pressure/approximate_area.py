"""Approximate contact area: pressure = force / (arc x length), ``A = s b``.

Seed 000 §2.3.2 eq. 22: the contact area of a revolute joint is ``A = s b`` with ``s`` the contact
arc and ``b`` the pin length, and the pressure is ``p = F / A``.  The arc is ``s = 2 a`` with ``a``
the Hertz half-width of two internal cylinders at the current load (``VALIDATION.md``:
``a = sqrt(4 P R_eff / (pi E*))``, ``1/R_eff = 1/R_pin - 1/R_hole``, ``P = F/b``) and the clearance
taken from the gap in the load direction.  The pressure is centred on the load direction, uniform
(``F/(s b)``) or elliptical (peak ``4F/(pi s b)``), and the nodal values are scaled so that
``sum p R dtheta b = F`` exactly.  For a prescribed approach, the force is the Hertz-type joint law
``F = K delta^1.5`` with ``K`` from seed 004 eq. 11.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.errors import WorkbenchError
from workbench.hookspecs import hookimpl
from workbench.models import (BoreSection, ContactGeometry, PressureModel, PressureSolution,
                              parameter)


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
