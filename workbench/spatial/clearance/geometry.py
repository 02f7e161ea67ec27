"""Contact points of the spatial clearance joints: penetration, normal, material points.

Each joint has its contact points (``KIND_*``):

* spherical, one point: ``d = P_j - P_i``, ``n = d/|d|``, ``delta = |d| - c`` (``c = R_i - R_j``),
  material points ``Q_i = P_i + R_i n`` (socket), ``Q_j = P_j + R_j n`` (ball); the line of
  centres carries the force.
* revolute and cylindrical, two rim points ``k`` (one per journal end, ``h_k = -L/2, +L/2`` on
  the journal axis ``z_j``): the rim circle of radius ``R_j`` about ``J_k = P_j + h_k z_j`` in the
  plane normal to ``z_j``; its point farthest from the bushing axis (through ``P_i`` along
  ``z_i``, the tilted axis) is ``X_k = J_k + R_j u`` with ``u`` the unit part of the radial
  direction ``n`` normal to ``z_j``, and ``n`` the direction of the radial offset
  ``e_k = (I - z_i z_i^T)(X_k - P_i)`` (two fixed-point passes from ``n = e(J_k)/|e(J_k)|``: the
  error is of fourth order in the tilt); ``delta_k = |e_k| - R_i``, ``Q_j = X_k``,
  ``Q_i = P_i + (z_i.(X_k - P_i)) z_i + R_i n``.  An aligned journal has ``u = n`` and
  ``delta_k = |e(J_k)| - c``: the planar clearance joint's penetration at both rims (the contact
  scenarios of Marques, Isaac, Dourado & Flores (2017): none, one rim, two rims on the same or on
  opposite sides, the line contact of an aligned journal as its two rims at equal penetration).
* revolute, two axial points (the journal's end faces against the bushing's shoulders):
  ``delta = s_k (F_k - P_i).z_i - (L/2 + a)``, ``F_k = P_j + h_k z_j`` the end-face centre,
  ``s_k = -1, +1``, ``a`` the axial clearance; normal ``s_k z_i``, both material points at
  ``F_k`` (the resultant of a face contact; a tilted journal's rim reaches ``R_j |sin tau|``
  further, which this lumped face neglects).

In every case the force ``-f n`` at ``Q_j`` and ``+f n`` at ``Q_i`` is ``-f`` times the gradient
of ``delta`` with respect to the bodies' motion (the two points lie on the line of action), so
``(v_Qj - v_Qi).n = d delta/dt`` and a force that depends on ``delta`` only stores and returns
energy exactly.
"""
from __future__ import annotations

import math

import numpy as np

KIND_SPHERE, KIND_RIM, KIND_AXIAL = 0, 1, 2
#: share of the joint's contact law that each rim carries: the bearing length is lumped at its
#: two rims, so an aligned journal (both rims at the same penetration) carries the law once,
#: as the planar clearance joint does
RIM_SHARE = 0.5


def _unit_perp(v, axis):
    """Unit part of ``v`` normal to the unit ``axis`` (``v`` itself when that part vanishes)."""
    w = v - (v @ axis) * axis
    nw = math.sqrt(w @ w)
    return w / nw if nw > 0.0 else v


def point(kind, h, Pi, Pj, zi, zj, Ri, Rj, c, gap):
    """``(delta, n, Q_i, Q_j)`` of one contact point (world vectors; module docstring).
    ``h``: the journal-axis offset of the rim or face [m]; ``gap``: the axial clearance [m]."""
    if kind == KIND_SPHERE:
        d = Pj - Pi
        dist = math.sqrt(d @ d)
        n = d / dist if dist > 0.0 else np.array([1.0, 0.0, 0.0])
        return dist - c, n, Pi + Ri * n, Pj + Rj * n
    if kind == KIND_RIM:
        J = Pj + h * zj
        d = J - Pi
        e = d - (d @ zi) * zi
        em = math.sqrt(e @ e)
        n = e / em if em > 0.0 else _unit_perp(np.array([1.0, 0.0, 0.0]), zi)
        for _ in range(2):
            X = J + Rj * _unit_perp(n, zj)
            d = X - Pi
            a = d @ zi
            e = d - a * zi
            em = math.sqrt(e @ e)
            if em > 0.0:
                n = e / em
        return em - Ri, n, Pi + a * zi + Ri * n, X
    # axial: end face at h (sign of h: which shoulder)
    s = 1.0 if h > 0.0 else -1.0
    F = Pj + h * zj
    n = s * zi
    return s * ((F - Pi) @ zi) - (abs(h) + gap), n, F, F
