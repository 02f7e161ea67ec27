"""Graded polar triangle meshes of the joint parts, with named boundaries.

Two parts, both built ring by ring from the contact surface outwards (bushing) or inwards (pin):

* :func:`bushing_mesh` — annulus ``R <= r <= R_out``: the bore (boundary ``"bore"``, ``n`` nodes at
  ``theta_k = 2 pi k / n``, node indices ``0..n-1``) and the held outer edge (``"outer"``).
* :func:`pin_mesh` — disc ``r <= R``: the surface (``"surface"``, nodes ``0..n-1`` as above) and a
  centre node (the last node).

Near the contact surface the elements are close to square with edge ``R 2 pi / n``; away from it the
radial step grows geometrically and the number of nodes per ring is halved (a three-triangle
transition layer) whenever the elements get too flat.  Every ring count is a multiple of the smallest
one, so the mesh is invariant under a rotation by ``2 pi / m`` with ``m`` the smallest ring count:
:func:`rotation_order` finds ``m`` for any mesh, which makes the condensed compliance block-circulant
(see :mod:`workbench.fem.compliance`).  Meshes from files (any meshio format that keeps the named
boundaries, e.g. ``.msh`` or ``.vtu`` written by skfem) work the same way through :func:`load_mesh`.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from skfem import MeshTri

from workbench.errors import WorkbenchError

#: default geometric growth of the radial step from one ring to the next [1]
GROWTH = 1.12


def _ring_plan(R: float, n: int, r_end: float, *, outward: bool, growth: float, n_min: int):
    """Radii and node counts of the rings from the contact surface to ``r_end``."""
    radii, counts = [R], [n]
    h = R * 2.0 * math.pi / n
    r, m = R, n
    while True:
        t = r * 2.0 * math.pi / m                # tangential element size on this ring
        h, next_m = h * growth, m
        capped = False
        if h > 1.5 * t:
            if m % 2 == 0 and m // 2 >= n_min:
                next_m, h = m // 2, t             # transition layer, radial step ~ fine element
            else:
                h, capped = 1.5 * t, True
        if outward:
            r_next = r + h
            if r_next >= r_end - 0.3 * h:
                radii.append(r_end), counts.append(next_m)
                break
        else:
            r_next = r - h
            if r_next <= 1.5 * h or capped:
                break                             # close the disc with a fan around the centre
        radii.append(r_next), counts.append(next_m)
        r, m = r_next, next_m
    return radii, counts


def _layer(f0: int, nf: int, c0: int, nc: int) -> list[tuple[int, int, int]]:
    """Triangles between a ring of ``nf`` nodes (first index ``f0``) and one of ``nc`` nodes."""
    tris = []
    if nc == nf:
        for k in range(nf):
            a, b = f0 + k, f0 + (k + 1) % nf
            c, d = c0 + k, c0 + (k + 1) % nc
            tris += [(a, b, d), (a, d, c)]
    elif 2 * nc == nf:
        for k in range(nc):
            a, b, c = f0 + 2 * k, f0 + 2 * k + 1, f0 + (2 * k + 2) % nf
            d, e = c0 + k, c0 + (k + 1) % nc
            tris += [(a, b, d), (b, e, d), (b, c, e)]
    else:  # pragma: no cover - the plan never does this
        raise ValueError("ring counts must be equal or halve")
    return tris


def _assemble(radii, counts, centre: bool) -> tuple[np.ndarray, np.ndarray]:
    pts, starts = [], []
    for r, m in zip(radii, counts):
        starts.append(sum(len(p) for p in pts))
        th = 2.0 * math.pi * np.arange(m) / m
        pts.append(np.column_stack([r * np.cos(th), r * np.sin(th)]))
    tris = []
    for j in range(len(radii) - 1):
        tris += _layer(starts[j], counts[j], starts[j + 1], counts[j + 1])
    p = np.vstack(pts)
    if centre:
        c = len(p)
        p = np.vstack([p, [[0.0, 0.0]]])
        s, m = starts[-1], counts[-1]
        tris += [(s + k, s + (k + 1) % m, c) for k in range(m)]
    t = np.array(tris, dtype=np.int64)
    # counter-clockwise orientation
    x, y = p[t, 0], p[t, 1]
    area = (x[:, 1] - x[:, 0]) * (y[:, 2] - y[:, 0]) - (x[:, 2] - x[:, 0]) * (y[:, 1] - y[:, 0])
    t[area < 0] = t[area < 0][:, [0, 2, 1]]
    return p, t


def _check(n: int, R: float) -> None:
    if n < 12 or R <= 0:
        raise WorkbenchError(f"mesh needs n >= 12 surface nodes and a positive radius, got n={n}, R={R}")


def bushing_mesh(R: float, R_out: float, n: int, *, growth: float = GROWTH, n_min: int = 16) -> MeshTri:
    """Annulus ``R <= r <= R_out`` [m] with ``n`` bore nodes; boundaries ``bore`` and ``outer``."""
    _check(n, R)
    if R_out <= R * (1 + 4 * math.pi / n):
        raise WorkbenchError(f"bushing outer radius {R_out} m must exceed the bore radius {R} m "
                             "by at least two elements")
    radii, counts = _ring_plan(R, n, R_out, outward=True, growth=growth, n_min=n_min)
    p, t = _assemble(radii, counts, centre=False)
    h0 = radii[1] - radii[0]
    r_in, r_out = radii[0] + 0.5 * h0, radii[-1] - 0.5 * (radii[-1] - radii[-2])
    mesh = MeshTri(np.ascontiguousarray(p.T), np.ascontiguousarray(t.T))
    return mesh.with_boundaries({
        "bore": lambda x: np.hypot(x[0], x[1]) < r_in,
        "outer": lambda x: np.hypot(x[0], x[1]) > r_out,
    })


def pin_mesh(R: float, n: int, *, growth: float = GROWTH, n_min: int = 8) -> MeshTri:
    """Disc ``r <= R`` [m] with ``n`` surface nodes and a centre node; boundary ``surface``."""
    _check(n, R)
    radii, counts = _ring_plan(R, n, 0.0, outward=False, growth=growth, n_min=n_min)
    p, t = _assemble(radii, counts, centre=True)
    h0 = radii[0] - radii[1]
    mesh = MeshTri(np.ascontiguousarray(p.T), np.ascontiguousarray(t.T))
    return mesh.with_boundaries({"surface": lambda x: np.hypot(x[0], x[1]) > radii[0] - 0.5 * h0})


def morph_bore(mesh: MeshTri, depth: np.ndarray, *, boundary: str = "bore", band: float | None = None) -> MeshTri:
    """A copy of the mesh with its circular ``boundary`` moved radially outward by ``depth`` [m].

    ``depth`` is given on the boundary nodes (sorted by angle, as :func:`surface_nodes` returns
    them) and interpolated periodically in angle; the move decays linearly to zero over ``band`` [m]
    from the boundary (default: a quarter of the mesh's radial extent), so elements stay valid.
    """
    nodes, th = surface_nodes(mesh, boundary)
    depth = np.asarray(depth, float)
    if depth.shape != th.shape:
        raise WorkbenchError(f"wear depth has {depth.size} values for {th.size} boundary nodes")
    r = np.hypot(mesh.p[0], mesh.p[1])
    R = float(np.mean(r[nodes]))
    band = band if band is not None else 0.25 * (r.max() - r.min())
    phi = np.mod(np.arctan2(mesh.p[1], mesh.p[0]), 2 * np.pi)
    w = np.interp(phi, np.append(th, th[0] + 2 * np.pi), np.append(depth, depth[0]), period=2 * np.pi)
    weight = np.clip(1.0 - np.abs(r - R) / band, 0.0, 1.0)
    scale = (r + w * weight) / np.where(r > 0, r, 1.0)
    p = mesh.p * scale
    return MeshTri(np.ascontiguousarray(p), np.ascontiguousarray(mesh.t), mesh.boundaries)


def surface_nodes(mesh: MeshTri, boundary: str) -> tuple[np.ndarray, np.ndarray]:
    """Nodes of a named circular boundary sorted by angle in [0, 2 pi): ``(indices, theta)``.

    Raises :class:`WorkbenchError` when the boundary is missing or its nodes are not uniformly spaced
    in angle (the pressure models need uniform nodes).
    """
    if mesh.boundaries is None or boundary not in mesh.boundaries:
        have = sorted(mesh.boundaries) if mesh.boundaries else []
        raise WorkbenchError(f"mesh has no boundary named '{boundary}'; it has {have}")
    nodes = np.unique(mesh.facets[:, mesh.boundaries[boundary]])
    th = np.mod(np.arctan2(mesh.p[1, nodes], mesh.p[0, nodes]), 2 * np.pi)
    order = np.argsort(th)
    nodes, th = nodes[order], th[order]
    n = len(nodes)
    expected = th[0] + 2 * np.pi * np.arange(n) / n
    if np.max(np.abs(th - expected)) > 1e-6 * 2 * np.pi / n * n:
        raise WorkbenchError(f"nodes of boundary '{boundary}' are not uniformly spaced in angle")
    return nodes, th


def rotation_order(mesh: MeshTri, n_surface: int) -> int:
    """Largest ``m`` dividing ``n_surface`` such that the mesh is invariant under a 2 pi/m rotation.

    Checked on node positions and on element connectivity (as sorted node triples).
    """
    from scipy.spatial import cKDTree

    tree = cKDTree(mesh.p.T)
    scale = np.max(np.abs(mesh.p))
    cells = {tuple(sorted(c)) for c in mesh.t.T.tolist()}
    for m in sorted((d for d in range(1, n_surface + 1) if n_surface % d == 0), reverse=True):
        if m == 1:
            return 1
        a = 2 * np.pi / m
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        dist, idx = tree.query((rot @ mesh.p).T)
        if np.max(dist) > 1e-8 * scale:
            continue
        mapped = idx[mesh.t]
        if all(tuple(sorted(c)) in cells for c in mapped.T.tolist()):
            return m
    return 1


def mesh_hash(mesh: MeshTri) -> str:
    """A short hash of node coordinates and connectivity (cache key)."""
    import hashlib

    h = hashlib.sha256()
    h.update(np.ascontiguousarray(np.round(mesh.p, 15)).tobytes())
    h.update(np.ascontiguousarray(mesh.t.astype(np.int64)).tobytes())
    return h.hexdigest()[:20]


def load_mesh(path: str | Path) -> MeshTri:
    """Read a triangle mesh with named boundaries (any meshio format skfem understands)."""
    path = Path(path)
    if not path.exists():
        raise WorkbenchError(f"mesh file {path} does not exist")
    mesh = MeshTri.load(str(path))
    return mesh
