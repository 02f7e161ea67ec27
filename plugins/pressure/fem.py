"""Finite-element contact pressure: plane-strain bushing and pin condensed onto the contact nodes.

scikit-fem plane-strain model of the bushing (annulus, outer edge held) and the pin (disc), each
elastic or rigid with its own material, condensed once onto the ``n`` contact nodes; frictionless
contact solved as a linear complementarity problem by a warm-started active-set method (see
:mod:`workbench.fem.contact`).  The FE approach to contact pressure is the accurate reference of
Wang & Liu (2015) §2.3.3; validated against Persson (1964) / Ciavarella & Decuzzi, IJSS 38 (2001) eq. for
``P/(E* dR)`` and ``p_max`` (``docs/validation.md``).

:meth:`FEM.solve_loads` (the samples of a wear update) builds or reuses the FE model once for the
batch, from ``section.gap``, and solves every sample's gap and load on it
(:func:`workbench.fem.batch.solve_loads`, compiled, warm-started).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

# the FE contact solver (workbench.fem.contact) loads with the module, as before; the FE joint
# model and the batch solver on first use (scikit-fem is slow to import)
from workbench.plugin import (BoreSection, ContactSolver, PressureModel, PressureSolution,
                              WorkbenchError, half_angle, hookimpl, parameter)


class FEM(PressureModel):
    """FE contact pressure (Wang & Liu (2015) §2.3.3; Persson 1964 / Ciavarella & Decuzzi 2001 as oracle)."""
    name = "fem"
    # capabilities the host asks for instead of testing the plugin's name
    #: a finite-element model of the joint: the reference a Winkler fit (``fit_to``) targets, with
    #: the case geometry of :meth:`geometry_params` and a VTU export (:meth:`joint_model`)
    fe_model = True

    @staticmethod
    def geometry_params(*, outer_radius_ratio: float, bushing_mesh: str | None = None,
                        pin_mesh: str | None = None) -> dict:
        """Parameters a study case sets unless the model table gives them: the held outer radius
        over the bore radius [1] and the optional mesh files."""
        out = {"outer_radius_ratio": outer_radius_ratio}
        out.update({k: v for k, v in (("bushing_mesh", bushing_mesh), ("pin_mesh", pin_mesh)) if v})
        return out
    reference = ("plane-strain FE (scikit-fem) condensed onto the bore nodes, frictionless LCP; "
                 "Wang & Liu (2015) §2.3.3; validated against Persson 1964 / Ciavarella & Decuzzi, IJSS 38 (2001)")

    @dataclass(frozen=True)
    class Params:
        outer_radius_ratio: float = parameter(
            2.0, unit="1", doc="outer radius of the bushing (held edge) over the bore radius", min=1.05)
        mesh_growth: float = parameter(
            1.12, unit="1", doc="radial growth factor of the element size away from the contact", min=1.0,
            max=1.5)
        tolerance: float = parameter(
            1e-10, unit="1", doc="relative gap tolerance of the active-set contact solver", min=0.0, max=1e-3)
        bushing_mesh: str | None = parameter(
            None, unit="text", doc="optional bushing mesh file (boundaries 'bore', 'outer')")
        pin_mesh: str | None = parameter(
            None, unit="text", doc="optional pin mesh file (boundary 'surface')")
        remesh_fraction: float = parameter(
            0.5, unit="1", doc="move the bore nodes and rebuild the compliance when the wear depth "
            "(gap minus its minimum) changes by this fraction of the bore element size R dtheta", min=0.0)

    def __init__(self, params=None, **values):
        super().__init__(params, **values)
        self._solvers: dict = {}
        self._wear: dict = {}   # nominal geometry -> bore wear the current compliance was built for

    def joint_model(self, section: BoreSection) -> "JointModel":
        """The FE joint model for a section.

        The pin radius is ``R - min(gap)`` at the first solve; the wear depth ``gap - min(gap)``
        moves the bore nodes (and the compliance is rebuilt) once it has changed by
        ``remesh_fraction`` of the bore element size ``R dtheta`` since the last rebuild, and the pin
        radius is renewed when ``min(gap)`` has moved by as much; below that, worn geometry enters
        through the gap only (no rebuild inside a wear loop's small steps).
        """
        n = len(section.theta)
        R = float(section.radius)
        th = np.asarray(section.theta, float)
        steps = np.diff(th)
        # the FE bore nodes are theta_k = 2 pi k / n: the gap on node k (and the bore morph built
        # from it) must sit at that angle
        if n < 12 or not np.allclose(steps, 2 * np.pi / n, rtol=1e-9, atol=1e-12) \
                or abs(math.remainder(th[0], 2 * np.pi)) > 1e-9 * 2 * np.pi / n:
            raise WorkbenchError("the fem pressure model needs >= 12 bore nodes theta_k = 2 pi k / n, "
                                 f"k = 0..n-1 (the FE mesh's bore nodes); got n = {n}, theta[0] = {th[0]}")
        gap = np.asarray(section.gap, float)
        gmin = float(np.min(gap))
        if not 0.0 <= gmin < 0.5 * R:
            raise WorkbenchError(f"the smallest gap {gmin} m must lie in [0, R/2) for the fem model")
        p = self.params
        h = R * 2 * np.pi / n
        tol = p.remesh_fraction * h
        key = (R, n, section.bushing, section.journal)
        state = self._wear.get(key)
        wear = gap - gmin
        if state is None or abs(state[0] - gmin) > tol:
            state = (gmin, np.zeros(n))
        if np.max(np.abs(wear - state[1])) > tol:
            state = (state[0], wear)
        self._wear[key] = state
        from workbench.plugin import JointModel  # lazily: scikit-fem is slow to import
        nominal = JointModel(R, R - state[0], p.outer_radius_ratio * R, n, section.bushing,
                             section.journal, p.mesh_growth, p.bushing_mesh, p.pin_mesh)
        if not np.any(state[1] > 0):
            return nominal
        return dataclasses.replace(nominal, bore_wear=tuple(np.round(state[1], 15)))

    def solver(self, section: BoreSection) -> ContactSolver:
        model = self.joint_model(section)
        key = (model, float(section.length))
        if key not in self._solvers:
            self._solvers[key] = ContactSolver(model.compliance(), section.theta, section.radius,
                                               section.length, tol=self.params.tolerance)
            self._solvers[key].bore_moved = model.bore_wear is not None
        return self._solvers[key]

    def _solution(self, section, solver, res) -> PressureSolution:
        n = len(section.theta)
        force = section.radius * section.length * (2 * math.pi / n) * (section.normals.T @ res.pressure)
        info = dict(res.info)
        info["half_angle"] = half_angle(section.theta, res.pressure)
        info["peak_pressure"] = float(res.pressure.max())
        info["bore_moved"] = float(solver.bore_moved)
        return PressureSolution(res.pressure, np.asarray(res.eccentricity, float), force, info)

    def solve_load(self, section: BoreSection, load) -> PressureSolution:
        solver = self.solver(section)
        load = np.asarray(load, float)
        from workbench.plugin import solve_robust
        return self._solution(section, solver, solve_robust(solver, np.asarray(section.gap, float), load))

    def solve_loads(self, section: BoreSection, loads, gaps=None) -> tuple[np.ndarray, np.ndarray]:
        """Batch :meth:`solve_load` (see :class:`workbench.models.PressureModel`).

        The FE model (pin radius, bore morph, compliance) is chosen once, by :meth:`joint_model` on
        ``section.gap`` — pass the bushing's worn gap to a round journal there, so that only the
        bushing's wear moves the mesh (past ``remesh_fraction``) —; each sample's own gap (bushing
        and turned journal) then enters the contact problem as the initial gap, with no rebuild.
        Equal to a loop of :meth:`solve_load` whenever that loop would keep one FE model.
        """
        L, G = self.batch_inputs(section, loads, gaps)
        solver = self.solver(section)
        gaps2 = np.ascontiguousarray(np.asarray(section.gap, float)[None, :]) if G is None else G
        from workbench.plugin import fe_solve_loads
        return fe_solve_loads(solver, gaps2, L)

    def solve_approach(self, section: BoreSection, eccentricity) -> PressureSolution:
        solver = self.solver(section)
        res = solver.solve(section.gap, eccentricity=np.asarray(eccentricity, float))
        return self._solution(section, solver, res)


@hookimpl
def register_pressure_models(register):
    register(FEM)
