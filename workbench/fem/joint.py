"""The FE model of a pin-in-bushing joint: both parts' condensed compliances, summed.

:func:`joint_compliance` builds (or loads from the caches) the bore compliance of the bushing — an
annulus ``R <= r <= R_out`` whose outer edge is held (a stiff housing, or a large plate) — and the
surface compliance of the pin (a free disc of radius ``R_pin``, mode 1 = rigid translation), each
for its own material; a rigid part contributes nothing.  The result maps radial nodal line loads
[N/m] to the opening of the gap [m] on the ``n`` contact nodes ``theta_k = 2 pi k / n``.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from workbench.errors import WorkbenchError
from workbench.models import Material

from .compliance import ElasticPart
from .mesh import GROWTH, bushing_mesh, load_mesh, morph_bore, pin_mesh


@dataclass(frozen=True)
class JointModel:
    """Geometry and FE settings of the joint model (all lengths in m).

    Parameters
    ----------
    radius : bore radius R [m].
    pin_radius : pin radius [m].
    outer_radius : outer (held) radius of the bushing or plate [m].
    n : number of contact nodes on the bore and on the pin [1].
    bushing, journal : materials.
    growth : radial growth factor of the element size away from the contact [1].
    bushing_mesh_file, pin_mesh_file : optional mesh files replacing the generated meshes.
    bore_wear : radial wear depth of the bore on the n nodes [m]; the bore nodes are moved by it
        (:func:`workbench.fem.mesh.morph_bore`) and the compliance is rebuilt (no rotational symmetry
        left, so n unit-load solves).
    """
    radius: float
    pin_radius: float
    outer_radius: float
    n: int
    bushing: Material
    journal: Material
    growth: float = GROWTH
    bushing_mesh_file: str | None = None
    pin_mesh_file: str | None = None
    bore_wear: tuple | None = None

    def bushing_part(self) -> ElasticPart:
        mesh = load_mesh(self.bushing_mesh_file) if self.bushing_mesh_file else \
            bushing_mesh(self.radius, self.outer_radius, self.n, growth=self.growth)
        if self.bore_wear is not None:
            mesh = morph_bore(mesh, np.asarray(self.bore_wear))
        return ElasticPart(mesh, self.bushing, "bushing")

    def pin_part(self) -> ElasticPart:
        mesh = load_mesh(self.pin_mesh_file) if self.pin_mesh_file else \
            pin_mesh(self.pin_radius, self.n, growth=self.growth)
        return ElasticPart(mesh, self.journal, "pin")

    def compliance(self) -> np.ndarray:
        """Total gap-opening compliance (n, n) [m^2/N] (memoised in the process, cached on disk)."""
        return _compliance(self)


@lru_cache(maxsize=16)
def _compliance(model: JointModel) -> np.ndarray:
    if model.bushing.rigid and model.journal.rigid:
        raise WorkbenchError("the FE pressure model needs at least one elastic part; "
                             "both the bushing and the journal are rigid")
    C = np.zeros((model.n, model.n))
    for rigid, make in ((model.bushing.rigid, model.bushing_part), (model.journal.rigid, model.pin_part)):
        if rigid:
            continue
        part = make()
        if part.n != model.n:
            raise WorkbenchError(f"mesh has {part.n} contact nodes but the section has {model.n}")
        C += part.compliance()
    C.setflags(write=False)
    return C
