"""Winkler elastic foundation: ``p = k u`` on every node, ``k = E_w / L``.

Seed 000 §2.3.3 eq. 23-24: ``p = (E_w / L) u`` with ``u`` the local penetration (node-wise
``u_i = e . n_i - gap_i``).  The layer modulus follows a rule — ``unconstrained`` (``E``) or
``bonded`` (``(1-nu) E / ((1+nu)(1-2nu))``, a laterally constrained layer) — and when both parts are
elastic each is a layer of thickness ``L`` and the springs act in series.  The layer thickness has no
definite rule (seed 000 §2.3.3), so ``k`` can instead be calibrated: ``calibrate = "persson"`` fits
``k`` so that the Winkler closed form (rigid journal, ``VALIDATION.md``) has Persson's contact
half-angle at the calibration load (the current load when ``calibration_load`` is not given).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.errors import SolverError, WorkbenchError
from workbench.fem import closed_forms as cf
from workbench.fem.contact import half_angle
from workbench.hookspecs import hookimpl
from workbench.models import BoreSection, Material, PressureModel, PressureSolution, parameter


def layer_modulus(m: Material, rule: str) -> float:
    """Foundation modulus ``E_w`` [Pa] of a layer of material ``m`` under the given rule."""
    if rule == "bonded":
        return (1 - m.nu) * m.E / ((1 + m.nu) * (1 - 2 * m.nu))
    return m.E


class Winkler(PressureModel):
    """Winkler foundation ``p = (E_w/L) u`` (seed 000 eq. 23-24)."""
    name = "winkler"
    reference = "Winkler elastic foundation, seed 000 §2.3.3 eq. (23)-(24); calibration to Persson 1964"

    @dataclass(frozen=True)
    class Params:
        layer_thickness: float = parameter(1e-3, unit="m", doc="thickness L of the elastic layer", min=0.0)
        modulus_rule: str = parameter(
            "unconstrained", unit="text", doc="layer modulus E_w: 'unconstrained' E or 'bonded' "
            "(1-nu)E/((1+nu)(1-2nu))", choices=("unconstrained", "bonded"))
        stiffness: float | None = parameter(
            None, unit="Pa/m", doc="foundation modulus k; default E_w/L from the materials", min=0.0)
        calibrate: str = parameter(
            "none", unit="text", doc="fit k to a reference: 'none' or 'persson' (half-angle at the "
            "calibration load)", choices=("none", "persson"))
        calibration_load: float | None = parameter(
            None, unit="N", doc="load at which k is calibrated; default: the load being solved", min=0.0)

    # ----------------------------------------------------------------------------- stiffness
    def textbook_stiffness(self, section: BoreSection) -> float:
        """``k`` [Pa/m] from the layer rule, thickness and the elastic parts (springs in series)."""
        p = self.params
        if p.stiffness is not None:
            return p.stiffness
        parts = [m for m in (section.bushing, section.journal) if not m.rigid]
        if not parts:
            raise WorkbenchError("the Winkler model needs at least one elastic part")
        if p.layer_thickness <= 0:
            raise WorkbenchError("winkler layer_thickness must be positive")
        return 1.0 / sum(p.layer_thickness / layer_modulus(m, p.modulus_rule) for m in parts)

    def stiffness(self, section: BoreSection, load_magnitude: float | None) -> float:
        p = self.params
        if p.calibrate == "none":
            return self.textbook_stiffness(section)
        P_cal = p.calibration_load if p.calibration_load is not None else load_magnitude
        if P_cal is None or P_cal <= 0:
            raise WorkbenchError("winkler calibrate='persson' needs calibration_load for solve_approach")
        P = P_cal / section.length
        dR = float(np.mean(section.gap))
        if dR <= 0:
            raise WorkbenchError("winkler Persson calibration needs a positive mean clearance")
        E_star = 1.0 / (section.bushing.h + section.journal.h)
        eps = cf.persson_half_angle(P, E_star, dR)
        return cf.winkler_stiffness_for_half_angle(eps, P, section.radius, dR)

    # ----------------------------------------------------------------------------- solves
    def _solution(self, section, k, e, info) -> PressureSolution:
        u = section.normals @ e - section.gap
        pr = k * np.clip(u, 0.0, None)
        force = section.radius * section.length * section.dtheta * (section.normals.T @ pr)
        info = dict(info, stiffness=k, half_angle=half_angle(section.theta, pr, edge_exponent=1.0),
                    peak_pressure=float(pr.max()))
        return PressureSolution(pr, np.asarray(e, float), force, info)

    def solve_approach(self, section: BoreSection, eccentricity) -> PressureSolution:
        k = self.stiffness(section, None)
        return self._solution(section, k, np.asarray(eccentricity, float), {"iterations": 0})

    def solve_load(self, section: BoreSection, load) -> PressureSolution:
        F = np.asarray(load, float)
        Fm = float(np.linalg.norm(F))
        k = self.stiffness(section, Fm)
        if Fm == 0:
            return self._solution(section, k, np.zeros(2), {"iterations": 0, "equilibrium_residual": 0.0})
        N, s = section.normals, section.radius * section.length * section.dtheta
        d = F / Fm
        # start: touching at the closest node along the load, plus a rigid-journal estimate
        c = N @ d
        front = c > 0.5
        e = d * (np.min(section.gap[front] / c[front])
                 + 2.0 * Fm / (math.pi * section.length * section.radius * k))

        def energy(e):
            u = np.clip(N @ e - section.gap, 0.0, None)
            return 0.5 * s * k * u @ u - F @ e

        for it in range(1, 200):
            u = N @ e - section.gap
            on = u > 0
            grad = s * k * (N[on].T @ u[on]) - F
            if np.linalg.norm(grad) <= 1e-12 * Fm:
                break
            H = s * k * (N[on].T @ N[on]) + 1e-12 * s * k * len(N) * np.eye(2)
            step = -np.linalg.solve(H, grad)
            if np.array_equal(N @ (e + step) - section.gap > 0, on):
                e = e + step      # same contact set: the quadratic's minimiser, exact
                break
            E0, t = energy(e), 1.0
            slack = 1e-13 * (abs(E0) + abs(F @ e))
            while energy(e + t * step) > E0 + 1e-4 * t * (grad @ step) + slack and t > 1e-12:
                t *= 0.5
            e = e + t * step
        else:
            raise SolverError("winkler force-controlled solve did not converge")
        sol = self._solution(section, k, e, {"iterations": it})
        sol.info["equilibrium_residual"] = float(np.linalg.norm(sol.force - F) / Fm)
        return sol


@hookimpl
def register_pressure_models(register):
    register(Winkler)
