"""The ``dynamics`` pressure model: the pressure the distributed contact computed in the dynamics.

Selecting it (``[wear] pressure = { model = "dynamics" }``) couples the wear law to the contact of
the dynamics (:mod:`workbench.wear.coupled`): one contact, one pressure field.  It has no field of
its own: the wear loop binds it, per update and joint, to the pressure the distributed contact
law (:mod:`workbench.mbs.distributed`) produced at every contact sample, and it returns that
pressure for the sample whose load it is asked about.  Unbound (a pressure study, the conformance
suite) it is the quasi-static field of the same foundation: the ``winkler`` model with these
parameters (the dynamics' pressure without damping, at equilibrium with the load).
"""
from __future__ import annotations

import numpy as np

from workbench_plugins.pressure.winkler import Winkler
from workbench.plugin import BoreSection, PressureSolution, WorkbenchError, hookimpl


class DynamicsPressure(Winkler):
    """The dynamics' own contact pressure (distributed contact), sampled over the averaging cycles;
    unbound, the ``winkler`` model's quasi-static field."""
    name = "dynamics"
    reference = ("the pressure of the distributed Winkler contact in the dynamics, Wang & Liu (2015) "
                 "§2.3.3 eq. (23)-(24) integrated over the worn bore (workbench.mbs.distributed)")

    def bound(self, table: dict) -> "DynamicsPressure":
        """A copy answering the loads in ``table`` (load vector bytes -> nodal pressure [Pa])."""
        other = type(self)(self.params)
        other.__dict__["_table"] = table
        return other

    def _lookup(self, load) -> np.ndarray:
        table = self.__dict__["_table"]
        key = np.asarray(load, float).tobytes()
        if key not in table:
            raise WorkbenchError(f"pressure model 'dynamics': no dynamics sample carries the load "
                                 f"{np.asarray(load).tolist()} N")
        return table[key]

    def solve_loads(self, section: BoreSection, loads, gaps=None):
        if "_table" not in self.__dict__:
            return super().solve_loads(section, loads, gaps)
        L, _ = self.batch_inputs(section, loads, gaps)
        p = np.zeros((len(L), len(section.theta)))
        for i, F in enumerate(L):
            if F[0] != 0.0 or F[1] != 0.0:
                p[i] = self._lookup(F)
        return p, np.zeros((len(L), 2))

    def solve_load(self, section: BoreSection, load) -> PressureSolution:
        if "_table" not in self.__dict__:
            return super().solve_load(section, load)
        p = self._lookup(load)
        w = section.radius * section.length * section.dtheta
        return PressureSolution(p, np.zeros(2), w * (section.normals.T @ p), {})


@hookimpl
def register_pressure_models(register):
    register(DynamicsPressure)
