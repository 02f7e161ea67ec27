"""Worn maps in the spatial clearance contact, and the section view the wear loop samples.

A worn revolute or cylindrical clearance joint carries a map of wear depth over its bearing
surface (:class:`workbench.wear.spatial_map.WornMap`: bushing and journal depths over the angle
``theta`` about the bore and ``z`` along it); a worn ball joint a cap over the socket's directions
(:class:`workbench.wear.spatial_cap.WornCap`: azimuth ``theta`` and polar angle ``phi`` in the
socket body's frame), whose depth in the contact direction is taken off the ball's penetration.
The gap grows by the local depth: a rim whose contact point lies at bushing angle ``theta`` and
axial position ``z`` has the penetration ``delta - h(theta, z)`` (:mod:`.geometry`'s ``delta``;
``h`` the bushing depth there plus the journal depth at the journal's own angle
``theta - phi_rel``).  The lumped-rim contact sees the map at its rims only: a groove inside the
bearing length does not change it (the Winkler pressure of the wear loop covers the whole length,
:mod:`workbench.wear.spatial_map`).  The penetration rate the contact law's damping sees is the
unworn geometry's: the change of ``h`` as the contact point slides over the map (``v_t`` times
the map's slope along the path) is left out.

Angles are measured in the bushing's section frame: ``x_b`` the body-i x axis (or ``tilt_axis``)
made normal to the tilted bushing axis ``z_i``, ``y_b = z_i x x_b``; the journal's turn
``phi_rel`` is that of the bushing's ``x_b`` carried by the journal body from the initial
configuration, measured in that frame about ``z_i``.
"""
from __future__ import annotations

import math

import numpy as np

from ..model import _frame


class WornView:
    """The section frames of a :class:`~.forces.Clearances`' worn joints and their maps."""

    def __init__(self, clr, model, worn: dict):
        self.maps = dict(worn)
        self.frames = {}
        A0 = model.A0
        for q, d in enumerate(clr.data):
            jt = clr.joints[q]
            if jt.type == "spherical":
                continue
            i, j, zi = d[0], d[1], d[4]
            ref = np.array([1.0, 0.0, 0.0]) if jt.tilt_axis is None else np.asarray(jt.tilt_axis, float)
            xb = _frame(zi, ref)[0]
            xj = A0[j].T @ A0[i] @ xb
            self.frames[q] = (xb, np.cross(zi, xb), xj)

    def section(self, clr, q: int, R, A):
        """``(P_i, x, y, z)`` world: the bushing centre and its section frame (worn joint ``q``)."""
        i, _, s_i, _, zi = clr.data[q][:5]
        xb, yb, _ = self.frames[q]
        return R[i] + A[i] @ s_i, A[i] @ xb, A[i] @ yb, A[i] @ zi

    def turn(self, clr, q: int, A, x, y) -> float:
        """Journal turn relative to the bushing about the bore axis [rad]."""
        xj = A[clr.data[q][1]] @ self.frames[q][2]
        return math.atan2(xj @ y, xj @ x)

    def depth(self, clr, q: int, R, A, Qi) -> float:
        """Wear depth [m] of worn joint ``q`` at the contact whose bushing (socket) point is ``Qi``."""
        if q not in self.frames:   # a ball: the socket's cap, in the socket body's frame
            i, _, s_i = clr.data[q][:3]
            return self.maps[q].depth_dir(A[i].T @ (Qi - R[i] - A[i] @ s_i))
        P, x, y, z = self.section(clr, q, R, A)
        d = Qi - P
        return self.maps[q].depth_at(math.atan2(d @ y, d @ x), d @ z, self.turn(clr, q, A, x, y))

    def ball_sample(self, clr, q: int, A, W, loads):
        """Ball joint ``q`` in the socket body's frame: the ball's push on the socket ``(3,)`` [N]
        and the ball's angular velocity relative to the socket ``(3,)`` [rad/s]."""
        i, j = clr.data[q][:2]
        F = np.sum(loads, axis=0) if len(loads) else np.zeros(3)
        return A[i].T @ F, A[i].T @ (W[j] - W[i])

    def section_sample(self, clr, q: int, R, A, loads):
        """Joint ``q`` in its section frame: the journal's push on the bushing ``(2,)`` [N] from the
        rims' world forces ``loads`` (each ``f_n n``), the journal axis' slope against the bore
        ``(2,)`` [1] and the journal's turn [rad]."""
        P, x, y, z = self.section(clr, q, R, A)
        zj = A[clr.data[q][1]] @ clr.data[q][5]
        F = np.sum(loads, axis=0) if len(loads) else np.zeros(3)
        cz = zj @ z
        return (np.array([F @ x, F @ y]), np.array([zj @ x, zj @ y]) / (cz if cz != 0.0 else 1.0),
                self.turn(clr, q, A, x, y))
