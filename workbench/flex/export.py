"""ParaView export of the deformed beams of a dynamics result: a VTU time series and its ``.pvd``
index, written through meshio.

Each output sample ``k`` becomes ``<stem>_<k>.vtu``: every beam's centre line as a polyline (line
cells) through its nodes and ``points_per_element - 1`` points inside each element, placed by the
element's cubic Hermite interpolation of the nodal positions and slopes (the ANCF cable's own
shape functions, :func:`workbench.flex.ancf_cable.hermite`).  Coordinates are metres in the plane
``z = 0``.  Point data, the unit in each name (VTU files have no unit attribute):

* ``displacement [m]`` — position minus the position of the same point at the first sample
  (ParaView's *Warp By Vector* of the first frame shows the motion);
* ``slope [1]`` — the centre line's gradient ``dr/ds`` (the ANCF slope coordinates);
* ``axial_strain [1]`` — ``|dr/ds| - 1``;
* ``arc_length [m]`` — reference arc length ``s`` of the point along its beam;
* ``beam [1]`` — index of the beam in the dataset's ``beam`` coordinate.

The ``.pvd`` file lists the frames with their time [s].  Existing files are never replaced: the
export stops before writing anything, naming the first file that exists.
"""
from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import quoteattr

import numpy as np

from ..errors import WorkbenchError
from .ancf_cable import hermite

#: points per element along the polyline (the two nodes included once) [1]
POINTS_PER_ELEMENT = 4


def _centre_lines(pos, slope, s, n_sub: int):
    """Interpolated centre lines of one beam: ``(x, r', s)`` of shapes ``(nt, P, 2)``,
    ``(nt, P, 2)``, ``(P,)`` from nodal positions/slopes ``(nodes, 2, nt)`` and node arc lengths."""
    nodes = int(np.count_nonzero(np.isfinite(s)))
    pos, slope, s = pos[:nodes], slope[:nodes], s[:nodes]
    xs, rs, ss = [], [], []
    for e in range(nodes - 1):
        le = float(s[e + 1] - s[e])
        for k in range(n_sub if e < nodes - 2 else n_sub + 1):
            xi = k / n_sub
            S, dS, _ = hermite(xi, le)
            # the element's coordinates (r_a, r'_a, r_b, r'_b) per axis; shapes (2, nt)
            x = S[0] * pos[e] + S[1] * slope[e] + S[2] * pos[e + 1] + S[3] * slope[e + 1]
            r1 = dS[0] * pos[e] + dS[1] * slope[e] + dS[2] * pos[e + 1] + dS[3] * slope[e + 1]
            xs.append(x.T); rs.append(r1.T); ss.append(s[e] + xi * le)
    return np.stack(xs, axis=1), np.stack(rs, axis=1), np.array(ss)


def export_vtu(ds, out_dir: str | Path, *, stem: str = "beams",
               points_per_element: int = POINTS_PER_ELEMENT) -> Path:
    """Write the beams of the dynamics dataset ``ds`` as a VTU time series into ``out_dir``
    (created if missing); returns the ``.pvd`` index.  ``points_per_element`` [1] >= 1: polyline
    points per element (1: the nodes only).  Raises :class:`WorkbenchError` when ``ds`` has no
    beams or a file to be written exists."""
    import meshio
    if "beam_node_position" not in ds:
        raise WorkbenchError(f"{ds.attrs.get('study_file') or 'the dataset'}: no flexible beams to export "
                             f"(variable 'beam_node_position' missing); valid: the result of a dynamics "
                             f"study with [[mechanism.beams]]")
    if int(points_per_element) < 1:
        raise WorkbenchError(f"points_per_element = {points_per_element!r}: valid: an integer >= 1")
    out_dir = Path(out_dir)
    t = np.asarray(ds["time"].values, float)
    nt = len(t)
    width = max(5, len(str(nt - 1)))
    files = [out_dir / f"{stem}_{k:0{width}d}.vtu" for k in range(nt)]
    pvd = out_dir / f"{stem}.pvd"
    for f in (pvd, *files):
        if f.exists():
            raise WorkbenchError(f"{f} exists: the export never replaces a file; valid: a new or empty "
                                 f"directory, or another stem")
    pos = np.asarray(ds["beam_node_position"].transpose("beam", "beam_node", "axis", "time").values, float)
    slope = np.asarray(ds["beam_node_slope"].transpose("beam", "beam_node", "axis", "time").values, float)
    s_all = np.asarray(ds["beam_node_s"].transpose("beam", "beam_node").values, float)
    X, R, S, B, cells, off = [], [], [], [], [], 0
    for b in range(pos.shape[0]):
        x, r1, s = _centre_lines(pos[b], slope[b], s_all[b], int(points_per_element))
        X.append(x); R.append(r1); S.append(s); B.append(np.full(len(s), b, np.int32))
        cells.append(off + np.column_stack([np.arange(len(s) - 1), np.arange(1, len(s))]))
        off += len(s)
    X, R = np.concatenate(X, axis=1), np.concatenate(R, axis=1)        # (nt, P, 2)
    S, B, cells = np.concatenate(S), np.concatenate(B), np.concatenate(cells)
    z = np.zeros(X.shape[:2] + (1,))
    out_dir.mkdir(parents=True, exist_ok=True)
    for k, f in enumerate(files):
        pts = np.concatenate([X[k], z[k]], axis=1)
        data = {"displacement [m]": np.concatenate([X[k] - X[0], z[k]], axis=1),
                "slope [1]": np.concatenate([R[k], z[k]], axis=1),
                "axial_strain [1]": np.linalg.norm(R[k], axis=1) - 1.0,
                "arc_length [m]": S, "beam [1]": B}
        meshio.write(f, meshio.Mesh(pts, [("line", cells)], point_data=data), file_format="vtu")
    rows = "\n".join(f'    <DataSet timestep="{float(t[k])!r}" group="" part="0" file={quoteattr(f.name)}/>'
                     for k, f in enumerate(files))
    names = ", ".join(str(n) for n in ds["beam"].values)
    pvd.write_text('<?xml version="1.0"?>\n'
                   f"<!-- workbench: deformed beams ({names}); timestep in s, coordinates in m -->\n"
                   '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">\n  <Collection>\n'
                   f"{rows}\n  </Collection>\n</VTKFile>\n")
    return pvd
