"""The bodies' motion as VTU files for ParaView: one unstructured grid per output sample (each
body with a ``box`` shape as a hexahedron, placed by its position and Euler parameters) and a
``.pvd`` collection with the sample times.  ``meshio`` is imported when called (an optional
part, house style)."""
from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import quoteattr

import numpy as np

from .rotation import rotation_matrix

#: corners of the unit box in VTK's hexahedron order
_CORNERS = np.array([[-1, -1, -1], [1, -1, -1], [1, 1, -1], [-1, 1, -1],
                     [-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]], float) / 2


def write_vtu(sim, mechanism, folder, *, every: int = 1, name: str = "bodies") -> Path:
    """Write ``folder/name_NNNNN.vtu`` for every ``every``-th sample of the spatial ``sim`` and
    ``folder/name.pvd``; return the ``.pvd`` path.  Bodies without a ``box`` shape are left out;
    cell data: the body index, point data: the velocity [m/s] of each corner."""
    import meshio
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    boxes = [(k, np.asarray(b.shape[1], float)) for k, b in enumerate(mechanism.bodies)
             if b.shape is not None and b.shape[0] == "box"]
    if not boxes:
        raise ValueError("no body has a box shape to draw (Body.shape = ('box', (lx, ly, lz)))")
    entries = []
    for n, k in enumerate(range(0, len(sim.time), every)):
        pts, vel, cells = [], [], []
        for c, (b, size) in enumerate(boxes):
            r, p = sim.position[k, b, :3], sim.position[k, b, 3:]
            A = rotation_matrix(p)
            local = _CORNERS * size
            world = r + local @ A.T
            v, w = sim.velocity[k, b, :3], sim.velocity[k, b, 3:]
            pts.append(world); vel.append(v + np.cross(w, world - r))
            cells.append(np.arange(8) + 8 * c)
        mesh = meshio.Mesh(np.vstack(pts), [("hexahedron", np.array(cells))],
                           point_data={"velocity": np.vstack(vel)},
                           cell_data={"body": [np.array([b for b, _ in boxes], dtype=np.int32)]})
        f = folder / f"{name}_{n:05d}.vtu"
        mesh.write(f)
        entries.append((float(sim.time[k]), f.name))
    pvd = folder / f"{name}.pvd"
    lines = ['<?xml version="1.0"?>', '<VTKFile type="Collection" version="0.1">', "  <Collection>"]
    lines += [f'    <DataSet timestep="{t:.12g}" file={quoteattr(fn)}/>' for t, fn in entries]
    lines += ["  </Collection>", "</VTKFile>", ""]
    pvd.write_text("\n".join(lines))
    return pvd
