"""Winkler elastic foundation: ``p = k u`` on every node, ``k = E_w / L``.

Seed 000 §2.3.3 eq. 23-24: ``p = (E_w / L) u`` with ``u`` the local penetration (node-wise
``u_i = e . n_i - gap_i``).  The layer modulus follows a rule — ``unconstrained`` (``E``) or
``bonded`` (``(1-nu) E / ((1+nu)(1-2nu))``, a laterally constrained layer) — and when both parts are
elastic each is a layer of thickness ``L`` and the springs act in series.  The layer thickness has no
definite rule (seed 000 §2.3.3), so ``k`` can instead be calibrated: ``calibrate = "persson"`` fits
``k`` so that the Winkler closed form (rigid journal, ``VALIDATION.md``) has Persson's contact
half-angle at the calibration load (the current load when ``calibration_load`` is not given);
``calibrate = "fem"`` fits ``k`` (by root finding) so that the discrete Winkler half-angle equals the
FE model's (:mod:`workbench.fem`) for the current, possibly worn, gap.
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
            "none", unit="text", doc="fit k to a reference half-angle at the calibration load: 'none', "
            "'persson' (closed form) or 'fem' (the FE model of the joint)", choices=("none", "persson", "fem"))
        calibration_load: float | None = parameter(
            None, unit="N", doc="load at which k is calibrated; default: the load being solved", min=0.0)
        fem_outer_radius_ratio: float = parameter(
            2.0, unit="1", doc="calibrate='fem': held outer radius of the bushing over the bore radius",
            min=1.05)

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

    def stiffness(self, section: BoreSection, load_magnitude: float | None, direction=None) -> float:
        """``k`` [Pa/m]: textbook, or calibrated at the calibration load (the current one by default)."""
        p = self.params
        if p.calibrate == "none":
            return self.textbook_stiffness(section)
        P_cal = p.calibration_load if p.calibration_load is not None else load_magnitude
        if P_cal is None or P_cal <= 0:
            raise WorkbenchError(f"winkler calibrate='{p.calibrate}' needs calibration_load for solve_approach")
        P = P_cal / section.length
        dR = float(np.mean(section.gap))
        if dR <= 0:
            raise WorkbenchError("winkler calibration needs a positive mean clearance")
        E_star = 1.0 / (section.bushing.h + section.journal.h)
        if p.calibrate == "persson":
            eps = cf.persson_half_angle(P, E_star, dR)
            return cf.winkler_stiffness_for_half_angle(eps, P, section.radius, dR)
        return self._fem_calibrated(section, P_cal, np.array([1.0, 0.0]) if direction is None else direction)

    def _fem_calibrated(self, section: BoreSection, F: float, direction) -> float:
        """``k`` whose discrete Winkler half-angle equals the FE model's at load ``F`` [N]."""
        from workbench.fem.calibration import fit_positive
        from workbench.fem.contact import ContactSolver
        from workbench.fem.joint import JointModel

        cache = self.__dict__.setdefault("_fem_cache", {})
        R, n = float(section.radius), len(section.theta)
        model = JointModel(R, R - float(np.min(section.gap)), self.params.fem_outer_radius_ratio * R, n,
                           section.bushing, section.journal)
        load = F * np.asarray(direction, float) / np.linalg.norm(direction)
        key = (model, section.length, section.gap.tobytes(), load.tobytes())
        if key not in cache:
            solver = ContactSolver(model.compliance(), section.theta, R, section.length)
            target = half_angle(section.theta, solver.solve(section.gap, load=load).pressure)
            dR = max(float(np.mean(section.gap)), 1e-12)
            k0 = cf.winkler_stiffness_for_half_angle(target, F / section.length, R, dR)
            cache[key] = fit_positive(lambda k: self._solve_force(section, load, k).info["half_angle"],
                                      target, k0, increasing=False)
        return cache[key]

    # ----------------------------------------------------------------------------- solves
    def _solution(self, section, k, e, info) -> PressureSolution:
        u = section.normals @ e - section.gap
        pr = k * np.clip(u, 0.0, None)
        force = section.radius * section.length * section.dtheta * (section.normals.T @ pr)
        info = dict(info, stiffness=k, half_angle=half_angle(section.theta, pr, edge_exponent=1.0),
                    peak_pressure=float(pr.max()))
        return PressureSolution(pr, np.asarray(e, float), force, info)

    def solve_approach(self, section: BoreSection, eccentricity) -> PressureSolution:
        e = np.asarray(eccentricity, float)
        k = self.stiffness(section, None, e if np.any(e) else None)
        return self._solution(section, k, np.asarray(eccentricity, float), {"iterations": 0})

    def solve_load(self, section: BoreSection, load) -> PressureSolution:
        F = np.asarray(load, float)
        Fm = float(np.linalg.norm(F))
        return self._solve_force(section, F, self.stiffness(section, Fm, F if Fm > 0 else None))

    def _solve_force(self, section: BoreSection, F: np.ndarray, k: float) -> PressureSolution:
        Fm = float(np.linalg.norm(F))
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
