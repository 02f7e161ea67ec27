"""Worn translational clearance joints: the packed guide and slider profiles the compiled contact reads.

A translational clearance joint (slider of length ``L`` and height ``W`` in a guide of height
``H``, Wang, Chen, Ma & Sun (2016) eqs. 18-31) wears on two sides:

* the guide's two faces (``upper`` at ``+H/2``, ``lower`` at ``-H/2`` from the centre line) carry a
  wear depth ``g(s)`` [m] along the guide coordinate ``s`` [m] (measured along the guide axis from
  the guide point, guide frame), sampled on ``N`` uniform nodes ``s_i = s_0 + i ds``;
* the slider's two contact faces (``top``, ``bottom``) carry a wear depth over the face; the
  corners are the contact points of the four-corner model, so the dynamics sees the slider's wear
  as a reduced reach ``r_k`` [m] of each corner (the face depth at the corner).

The corner penetration against a worn guide is ``delta = h - H/2 - g_upper(s) - r_k`` (upper
corners, ``h`` the corner's height above the centre line) and ``delta = -H/2 - h - g_lower(s) - r_k``
(lower corners).  ``g`` between the nodes is the monotone piecewise-cubic Hermite interpolant of
the nodal depths (PCHIP, Fritsch & Carlson (1980)): C1, so that the penetration and its rate are
continuous for the event-located integrator, and shape-preserving, so that it never dips below
the nodal depths -- a C2 spline through a narrow impact scar rings with negative lobes, i.e. wear
that would make the guide tighter than new.  Outside the node range the depth is the end value
(unworn ends keep it zero).

The packed columns start at :data:`TR_NODES` of the joint's ``clr_f`` row
(:func:`workbench.mbs.compiled.compile_mechanism`): ``[N, s_0, ds, worn, r_0..r_3, g_upper (N),
g_upper' (N), g_lower (N), g_lower' (N)]`` (nodal values and slopes).  :func:`spline_reference`
is the reference path (scipy) of the compiled evaluation :func:`workbench.mbs.slider_guide.guide_depth`.
"""
from __future__ import annotations

import numpy as np

#: first packed column of a worn translational joint in its ``clr_f`` row, and the offsets after it
TR_NODES, TR_S0, TR_DS, TR_WORN, TR_REACH, TR_PROFILE = 12, 13, 14, 15, 16, 20
GUIDE_SURFACES = ("upper", "lower")
SLIDER_FACES = ("top", "bottom")
#: corner k of the four-corner model (``workbench.mbs.clearance``): (face index, end of the face)
#: with end +1 at ``u = +L/2`` and -1 at ``u = -L/2``.  Corners 0, 1 are the top ones, 2, 3 the bottom.
CORNERS = ((0, +1), (0, -1), (1, -1), (1, +1))


def _spline(s: np.ndarray, h: np.ndarray):
    from scipy.interpolate import PchipInterpolator
    return PchipInterpolator(s, h)


def slopes(s: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Nodal slopes [1] of the monotone cubic interpolant through ``(s, h)`` (Fritsch & Carlson (1980))."""
    if not np.any(h):
        return np.zeros_like(h)
    return _spline(s, h)(s, 1)


def pack_guide(s: np.ndarray, h_guide: np.ndarray, reach) -> np.ndarray:
    """The packed columns (from :data:`TR_NODES` on) of a worn translational joint.

    ``s`` (N,) uniform node positions along the guide [m]; ``h_guide`` (2, N) wear depth of the
    upper and lower guide faces [m]; ``reach`` (4,) reach reduction of each slider corner [m].
    """
    s = np.asarray(s, float)
    h = np.asarray(h_guide, float)
    r = np.asarray(reach, float)
    if s.ndim != 1 or len(s) < 2 or h.shape != (2, len(s)) or r.shape != (4,):
        raise ValueError(f"worn guide: need (N,) nodes, (2, N) depths and 4 reaches, got {s.shape}, "
                         f"{h.shape}, {r.shape}")
    ds = float(s[1] - s[0])
    if not ds > 0 or not np.allclose(np.diff(s), ds, rtol=1e-9, atol=0.0):
        raise ValueError("worn guide: the nodes must be uniform and increasing")
    worn = float(h.max() > 0.0 or r.max() > 0.0)
    cols = [float(len(s)), float(s[0]), ds, worn, *r.tolist()]
    for k in range(2):
        cols += h[k].tolist() + slopes(s, h[k]).tolist()
    return np.asarray(cols)


def spline_reference(s_nodes: np.ndarray, h: np.ndarray, s) -> tuple[np.ndarray, np.ndarray]:
    """Reference path of the compiled depth: ``(g(s), g'(s))`` [m, 1] of one face, by scipy."""
    s = np.asarray(s, float)
    if not np.any(h):
        return np.zeros_like(s), np.zeros_like(s)
    sp = _spline(s_nodes, h)
    inside = (s > s_nodes[0]) & (s < s_nodes[-1])
    end = np.where(s <= s_nodes[0], h[0], h[-1])
    return np.where(inside, sp(s), end), np.where(inside, sp(s, 1), 0.0)
