"""Winkler elastic foundation: ``p = k u`` on every node, ``k = E_w / L``.

Wang & Liu (2015) §2.3.3 eq. 23-24: ``p = (E_w / L) u`` with ``u`` the local penetration (node-wise
``u_i = e . n_i - gap_i``).  The layer modulus follows a rule — ``unconstrained`` (``E``) or
``bonded`` (``(1-nu) E / ((1+nu)(1-2nu))``, a laterally constrained layer) — and when both parts are
elastic each is a layer of thickness ``L`` and the springs act in series.  The layer thickness has no
definite rule (Wang & Liu (2015) §2.3.3), so ``k`` can instead be calibrated: ``calibrate = "persson"`` fits
``k`` so that the Winkler closed form (rigid journal, ``docs/validation.md``) has Persson's contact
half-angle at the calibration load (the current load when ``calibration_load`` is not given);
``calibrate = "fem"`` fits ``k`` (by root finding) so that the discrete Winkler half-angle equals the
FE model's (:mod:`workbench.fem`) for the current, possibly worn, gap.

:meth:`Winkler.solve_loads` (the batch of a wear update) solves the same 2-D equilibrium compiled
(:func:`winkler_batch`), warm-started from the previous sample, with one ``k`` for the whole batch
(:meth:`Winkler.batch_stiffness`).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from workbench.plugin import (BoreSection, Material, PressureModel, PressureSolution, SolverError,
                              WorkbenchError, half_angle, hookimpl, njit, parameter)


def layer_modulus(m: Material, rule: str) -> float:
    """Foundation modulus ``E_w`` [Pa] of a layer of material ``m`` under the given rule."""
    if rule == "bonded":
        return (1 - m.nu) * m.E / ((1 + m.nu) * (1 - 2 * m.nu))
    return m.E


#: smallest penetration scale, as a fraction of the gap scale ``max(|gap|, 1e-6 R)``, at which a
#: load is solved directly: below it (loads of about a milli-newton and less on a steel joint) the
#: penetrations ``N e - gap`` would be rounding noise of near-equal numbers, so the load is raised to
#: the floor, where the contact still sits on the nodes of the rigid touch, and the pressure scaled
#: back down (exact while two nodes carry the load: their penetrations are linear in it)
FLOOR = 1e-6


@njit(cache=True)
def _energy(N, g, e0, e1, F0, F1, sk):
    """Potential ``sk/2 sum max(0, N e - g)^2 - F . e`` [J] of the journal on the foundation."""
    w = 0.0
    for i in range(g.size):
        u = N[i, 0] * e0 + N[i, 1] * e1 - g[i]
        if u > 0.0:
            w += u * u
    return 0.5 * sk * w - (F0 * e0 + F1 * e1)


@njit(cache=True)
def _same_set(N, g, e0, e1, f0, f1):
    """True when ``N e - g > 0`` and ``N f - g > 0`` select the same nodes."""
    for i in range(g.size):
        if (N[i, 0] * e0 + N[i, 1] * e1 - g[i] > 0.0) != (N[i, 0] * f0 + N[i, 1] * f1 - g[i] > 0.0):
            return False
    return True


@njit(cache=True)
def _winkler_one(N, g, F0, F1, sk, reg, b, R, k, e0, e1, warm):
    """Equilibrium of one sample: minimise the potential by Newton on the active set with an
    Armijo line search (the algorithm of :meth:`Winkler._solve_force`; a full Newton step that
    keeps the contact set lands on the minimiser).  Returns ``(e0, e1, iterations)``; iterations =
    -1 when it did not converge."""
    n = g.size
    Fm = math.sqrt(F0 * F0 + F1 * F1)
    d0, d1 = F0 / Fm, F1 / Fm
    # cold start as the reference path: touching along the load plus a rigid-journal estimate
    best = math.inf
    for i in range(n):
        c = N[i, 0] * d0 + N[i, 1] * d1
        if c > 0.5:
            best = min(best, g[i] / c)
    a = best + 2.0 * Fm / (math.pi * b * R * k)
    c0, c1 = d0 * a, d1 * a
    if not warm or _energy(N, g, c0, c1, F0, F1, sk) <= _energy(N, g, e0, e1, F0, F1, sk):
        e0, e1 = c0, c1
    for it in range(1, 200):
        h00 = h01 = h11 = r0 = r1 = 0.0
        for i in range(n):
            u = N[i, 0] * e0 + N[i, 1] * e1 - g[i]
            if u > 0.0:
                h00 += N[i, 0] * N[i, 0]
                h01 += N[i, 0] * N[i, 1]
                h11 += N[i, 1] * N[i, 1]
                r0 += N[i, 0] * u
                r1 += N[i, 1] * u
        q0, q1 = sk * r0 - F0, sk * r1 - F1
        if math.sqrt(q0 * q0 + q1 * q1) <= 1e-12 * Fm:
            return e0, e1, it
        h00, h01, h11 = sk * h00, sk * h01, sk * h11
        det = h00 * h11 - h01 * h01
        if not det > 1e-10 * (h00 + h11) ** 2:      # fewer than two nodes: regularise
            h00, h11 = h00 + reg, h11 + reg
            det = h00 * h11 - h01 * h01
        s0 = -(h11 * q0 - h01 * q1) / det
        s1 = -(h00 * q1 - h01 * q0) / det
        if _same_set(N, g, e0, e1, e0 + s0, e1 + s1):
            return e0 + s0, e1 + s1, it
        E0, t = _energy(N, g, e0, e1, F0, F1, sk), 1.0
        slack = 1e-13 * (abs(E0) + abs(F0 * e0 + F1 * e1))
        slope = q0 * s0 + q1 * s1
        while _energy(N, g, e0 + t * s0, e1 + t * s1, F0, F1, sk) > E0 + 1e-4 * t * slope + slack \
                and t > 1e-12:
            t *= 0.5
        e0, e1 = e0 + t * s0, e1 + t * s1
    return e0, e1, -1


@njit(cache=True)
def winkler_batch(N, gaps, loads, k, R, b):
    """Compiled force-controlled Winkler solve over ``ns`` samples (Wang & Liu (2015) eq. 23-24).

    ``N`` (n, 2) node normals; ``gaps`` (ns, n) or (1, n) [m]; ``loads`` (ns, 2) [N]; ``k`` [Pa/m];
    ``R`` [m]; ``b`` [m].  Each loaded sample starts from the previous loaded sample's approach or
    from the reference path's cold start, whichever has the lower potential.  Returns ``(p (ns, n)
    [Pa], e (ns, 2) [m], bad)``: ``bad`` the first sample that did not converge (-1 if none).
    Loads below the floor (:data:`FLOOR`) are solved at the floor and scaled, as in ``solve_load``.
    """
    n = N.shape[0]
    ns = loads.shape[0]
    dtheta = 2.0 * math.pi / n
    sk = R * b * dtheta * k
    reg = 1e-12 * sk * n
    p = np.zeros((ns, n))
    ecc = np.zeros((ns, 2))
    e0 = e1 = 0.0
    warm = False
    for s in range(ns):
        F0, F1 = loads[s, 0], loads[s, 1]
        if F0 == 0.0 and F1 == 0.0:
            continue
        g = gaps[s] if gaps.shape[0] > 1 else gaps[0]
        gscale = max(np.max(np.abs(g)), 1e-6 * R)
        factor = max(1.0, FLOOR * gscale * sk / math.sqrt(F0 * F0 + F1 * F1))
        e0, e1, it = _winkler_one(N, g, factor * F0, factor * F1, sk, reg, b, R, k, e0, e1, warm)
        if it < 0:
            return p, ecc, s
        warm = True
        ecc[s, 0], ecc[s, 1] = e0, e1
        for i in range(n):
            u = N[i, 0] * e0 + N[i, 1] * e1 - g[i]
            if u > 0.0:
                p[s, i] = k * u / factor
    return p, ecc, -1


class Winkler(PressureModel):
    """Winkler foundation ``p = (E_w/L) u`` (Wang & Liu (2015) eq. 23-24)."""
    name = "winkler"
    reference = "Winkler elastic foundation, Wang & Liu (2015) §2.3.3 eq. (23)-(24); calibration to Persson 1964"
    # capabilities the host asks for instead of testing the plugin's name
    #: the pressure falls linearly to zero at the contact edge (u ~ distance from the edge)
    half_angle_edge_exponent = 1.0
    #: :meth:`fit_half_angle` fits the model's parameters to a reference half-angle
    calibration = "half_angle"

    @dataclass(frozen=True)
    class Params:
        layer_thickness: float = parameter(1e-3, unit="m", doc="thickness L of the elastic layer", gt=0.0)
        modulus_rule: str = parameter(
            "unconstrained", unit="text", doc="layer modulus E_w: 'unconstrained' E or 'bonded' "
            "(1-nu)E/((1+nu)(1-2nu))", choices=("unconstrained", "bonded"))
        stiffness: float | None = parameter(
            None, unit="Pa/m", doc="foundation modulus k; default E_w/L from the materials", gt=0.0)
        calibrate: str = parameter(
            "none", unit="text", doc="fit k to a reference half-angle at the calibration load: 'none', "
            "'persson' (closed form) or 'fem' (the FE model of the joint)", choices=("none", "persson", "fem"))
        calibration_load: float | None = parameter(
            None, unit="N", doc="load at which k is calibrated; default: the load being solved", gt=0.0)
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
            # lazily: scipy.optimize is slow to import
            from workbench.plugin import persson_half_angle, winkler_stiffness_for_half_angle
            eps = persson_half_angle(P, E_star, dR)
            return winkler_stiffness_for_half_angle(eps, P, section.radius, dR)
        return self._fem_calibrated(section, P_cal, np.array([1.0, 0.0]) if direction is None else direction)

    def _fem_calibrated(self, section: BoreSection, F: float, direction) -> float:
        """``k`` whose discrete Winkler half-angle equals the FE model's at load ``F`` [N]."""
        from workbench.plugin import ContactSolver, JointModel

        cache = self.__dict__.setdefault("_fem_cache", {})
        R, n = float(section.radius), len(section.theta)
        model = JointModel(R, R - float(np.min(section.gap)), self.params.fem_outer_radius_ratio * R, n,
                           section.bushing, section.journal)
        load = F * np.asarray(direction, float) / np.linalg.norm(direction)
        key = (model, section.length, section.gap.tobytes(), load.tobytes())
        if key not in cache:
            solver = ContactSolver(model.compliance(), section.theta, R, section.length)
            target = half_angle(section.theta, solver.solve(section.gap, load=load).pressure)
            cache[key] = self.fit_half_angle(section, load, target)["stiffness"]
        return cache[key]

    def fit_half_angle(self, section: BoreSection, load, target: float, clearance: float | None = None) -> dict:
        """The parameters (``{"stiffness": k [Pa/m]}``) whose discrete half-angle at ``load`` [N]
        is ``target`` [rad]; ``clearance`` [m] for the start value (default: the mean gap).
        The fit itself is :func:`workbench.fem.calibration.fit_winkler_stiffness`."""
        from workbench.plugin import fit_winkler_stiffness
        load = np.asarray(load, float)
        dR = max(float(np.mean(section.gap)), 1e-12) if clearance is None else float(clearance)
        k = fit_winkler_stiffness(lambda k: self._solve_force(section, load, k).info["half_angle"],
                                  target, float(np.linalg.norm(load)) / section.length,
                                  float(section.radius), dR)
        return {"stiffness": k}

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

    def batch_stiffness(self, section: BoreSection, loads, gaps=None) -> float:
        """The one ``k`` [Pa/m] :meth:`solve_loads` uses for a batch.

        ``calibrate = 'none'``: the textbook value.  Calibrated: at ``calibration_load`` when given,
        else at the mean magnitude of the loaded samples (robust against the short impact peaks of a
        clearance joint, which would dominate a maximum); ``'persson'`` takes the clearance as the
        mean of all the gaps (the mean gap does not change as the journal turns), ``'fem'`` fits on
        ``section.gap`` along the direction of the largest load.
        """
        L, G = self.batch_inputs(section, loads, gaps)
        if self.params.calibrate == "none":
            return self.textbook_stiffness(section)
        mags = np.hypot(L[:, 0], L[:, 1])
        loaded = mags > 0
        if not loaded.any():
            return math.nan
        direction = L[int(np.argmax(mags))]
        P = self.params.calibration_load if self.params.calibration_load is not None \
            else float(np.mean(mags[loaded]))
        if self.params.calibrate == "persson" and G is not None:
            section = dataclasses.replace(section, gap=np.full(len(section.theta), float(np.mean(G))))
        return self.stiffness(section, P, direction)

    def solve_loads(self, section: BoreSection, loads, gaps=None) -> tuple[np.ndarray, np.ndarray]:
        """Batch :meth:`solve_load` (see :class:`workbench.models.PressureModel`), compiled and
        warm-started over the samples with one ``k`` (:meth:`batch_stiffness`).  With that ``k``
        it equals the per-sample loop to the loop's solver tolerance."""
        L, G = self.batch_inputs(section, loads, gaps)
        p = np.zeros((len(L), len(section.theta)))
        e = np.zeros((len(L), 2))
        if not np.any(L != 0.0):
            return p, e
        k = self.batch_stiffness(section, L, G)
        gaps2 = np.ascontiguousarray(np.asarray(section.gap, float)[None, :]) if G is None else G
        p, e, bad = winkler_batch(np.ascontiguousarray(section.normals), gaps2, L, float(k),
                                  float(section.radius), float(section.length))
        if bad >= 0:
            raise SolverError(f"winkler force-controlled solve did not converge (sample {bad}, "
                              f"load {L[bad].tolist()} N)")
        return p, e

    def _solve_force(self, section: BoreSection, F: np.ndarray, k: float) -> PressureSolution:
        """Force-controlled solve; a load below the floor (:data:`FLOOR`) is solved at the floor and
        its pressure scaled down (``info["load_factor"]``)."""
        Fm = float(np.linalg.norm(F))
        if Fm == 0:
            return self._solution(section, k, np.zeros(2), {"iterations": 0, "equilibrium_residual": 0.0})
        sk = section.radius * section.length * section.dtheta * k
        gscale = max(float(np.max(np.abs(section.gap))), 1e-6 * section.radius)
        factor = max(1.0, FLOOR * gscale * sk / Fm)
        if factor == 1.0:
            return self._solve_direct(section, F, k)
        sol = self._solve_direct(section, factor * F, k)
        info = dict(sol.info, load_factor=factor, peak_pressure=sol.info["peak_pressure"] / factor)
        sol = PressureSolution(sol.pressure / factor, sol.eccentricity, sol.force / factor, info)
        sol.info["equilibrium_residual"] = float(np.linalg.norm(sol.force - F) / Fm)
        return sol

    def _solve_direct(self, section: BoreSection, F: np.ndarray, k: float) -> PressureSolution:
        Fm = float(np.linalg.norm(F))
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
            H = s * k * (N[on].T @ N[on])
            if not np.linalg.det(H) > 1e-10 * np.trace(H) ** 2:   # < 2 nodes: regularise
                H = H + 1e-12 * s * k * len(N) * np.eye(2)
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
