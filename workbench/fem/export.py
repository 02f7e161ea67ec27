"""Export the FE fields of a contact solution to VTU (meshio) for ParaView.

For each elastic part the contact pressure is applied as nodal line loads ``p_i R dtheta`` [N/m]
(outward on the bore, inward on the pin; the pin's resultant is carried by its centre support),
the plane-strain displacement [m] is solved on the part's mesh, and the element stresses [Pa]
(``sigma_xx, sigma_yy, sigma_xy``, plane-strain ``sigma_zz`` and von Mises) are written as cell data.
"""
from __future__ import annotations

import math
from pathlib import Path

import meshio
import numpy as np
from skfem.models.elasticity import lame_parameters

from .compliance import ElasticPart
from .joint import JointModel


def part_fields(part: ElasticPart, radial_forces: np.ndarray) -> tuple[np.ndarray, dict]:
    """Nodal displacement (n_nodes, 3) [m] and element stresses [Pa] under radial nodal loads [N/m]."""
    u = part.displacement(radial_forces)  # (2, n_nodes)
    nd = part.basis.nodal_dofs
    U = np.zeros(part.basis.N)
    U[nd[0]], U[nd[1]] = u[0], u[1]
    grad = part.basis.interpolate(U).grad  # (2, 2, n_elem, n_qp)
    g = grad.mean(axis=-1)
    exx, eyy, exy = g[0, 0], g[1, 1], 0.5 * (g[0, 1] + g[1, 0])
    lam, mu = lame_parameters(part.material.E, part.material.nu)
    tr = exx + eyy
    sxx, syy, sxy = lam * tr + 2 * mu * exx, lam * tr + 2 * mu * eyy, 2 * mu * exy
    szz = lam * tr
    vm = np.sqrt(0.5 * ((sxx - syy) ** 2 + (syy - szz) ** 2 + (szz - sxx) ** 2) + 3 * sxy ** 2)
    disp = np.column_stack([u[0], u[1], np.zeros_like(u[0])])
    return disp, {"sigma_xx": sxx, "sigma_yy": syy, "sigma_xy": sxy, "sigma_zz": szz, "von_mises": vm}


def export_vtu(prefix: str | Path, model: JointModel, pressure: np.ndarray) -> list[Path]:
    """Write ``<prefix>_bushing.vtu`` and ``<prefix>_pin.vtu`` (elastic parts only); return the paths."""
    prefix = Path(prefix)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    f = np.asarray(pressure, float) * model.radius * 2 * math.pi / model.n
    out = []
    for name, material, make, sign in (("bushing", model.bushing, model.bushing_part, 1.0),
                                       ("pin", model.journal, model.pin_part, -1.0)):
        if material.rigid:
            continue
        part = make()
        disp, stress = part_fields(part, sign * f)
        pts = np.column_stack([part.mesh.p.T, np.zeros(part.mesh.p.shape[1])])
        mesh = meshio.Mesh(pts, [("triangle", part.mesh.t.T.astype(np.int64))],
                           point_data={"displacement": disp},
                           cell_data={k: [v] for k, v in stress.items()})
        path = prefix.with_name(f"{prefix.name}_{name}.vtu")
        mesh.write(path)
        out.append(path)
    return out
