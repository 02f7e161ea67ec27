"""Closed-form position analysis of the ideal planar five-bar linkage (test oracle).

Topology (Wang & Liu (2015) §4.1, Fig. 15: links 1-4 moving, link 5 the frame, clearance at joint B):
ground pivots ``O`` [m] and ``D`` [m]; crank 1 ``O -> A`` of length ``l1``; coupler 1
``A -> B`` of length ``l2``; coupler 2 ``C -> B`` of length ``l3``; crank 2 ``D -> C`` of
length ``l4``.  Both crank angles ``theta1``, ``theta4`` [rad] (from +x, counter-clockwise) are
prescribed, so ``A`` and ``C`` are known and ``B`` is an intersection of the circle of radius
``l2`` about ``A`` with the circle of radius ``l3`` about ``C`` (two-circle intersection).  The
two solutions are the two assembly branches; ``branch = +1`` takes ``B`` to the left of the
directed line ``A -> C`` (``(C - A) x (B - A) > 0``), ``-1`` to the right.

Pure numpy, no workbench imports: an oracle for the workbench's solver.  Functions accept scalars
or numpy arrays for the angles.
"""
from __future__ import annotations

import numpy as np


def crank_pins(theta1, theta4, l1: float, l4: float, O=(0.0, 0.0), D=(0.0, 0.0)):
    """Positions of ``A = O + l1 e(theta1)`` and ``C = D + l4 e(theta4)`` [m], shape (..., 2)."""
    t1 = np.asarray(theta1, dtype=float)
    t4 = np.asarray(theta4, dtype=float)
    A = np.stack([O[0] + l1 * np.cos(t1), O[1] + l1 * np.sin(t1)], axis=-1)
    C = np.stack([D[0] + l4 * np.cos(t4), D[1] + l4 * np.sin(t4)], axis=-1)
    return A, C


def point_b(theta1, theta4, l1: float, l2: float, l3: float, l4: float, O=(0.0, 0.0),
            D=(0.0, 0.0), branch: int = 1):
    """Position of the coupler joint ``B`` [m], shape (..., 2), on the given assembly branch.

    With ``d = |C - A|``, the foot of ``B`` on line ``A C`` is at ``a = (l2^2 - l3^2 + d^2)/(2 d)``
    from ``A`` and ``B`` is ``h = sqrt(l2^2 - a^2)`` off the line.  Raises ``ValueError`` where
    the circles do not intersect (``d > l2 + l3`` or ``d < |l2 - l3|``: the linkage cannot be
    assembled at those crank angles).
    """
    if branch not in (1, -1):
        raise ValueError(f"branch must be +1 or -1, got {branch!r}")
    A, C = crank_pins(theta1, theta4, l1, l4, O, D)
    dv = C - A
    d = np.hypot(dv[..., 0], dv[..., 1])
    if np.any(d >= l2 + l3) or np.any(d <= abs(l2 - l3)):
        raise ValueError(f"five-bar cannot be assembled: |AC| outside ({abs(l2 - l3)}, {l2 + l3}) m")
    a = (l2 * l2 - l3 * l3 + d * d) / (2.0 * d)
    h = np.sqrt(l2 * l2 - a * a)
    u = dv / d[..., None]
    n = np.stack([-u[..., 1], u[..., 0]], axis=-1)
    return A + a[..., None] * u + branch * h[..., None] * n


def coupler_angles(theta1, theta4, l1: float, l2: float, l3: float, l4: float, O=(0.0, 0.0),
                   D=(0.0, 0.0), branch: int = 1):
    """Angles [rad] of the vectors ``A -> B`` (coupler 1) and ``C -> B`` (coupler 2), in (-pi, pi]."""
    A, C = crank_pins(theta1, theta4, l1, l4, O, D)
    B = point_b(theta1, theta4, l1, l2, l3, l4, O, D, branch)
    p2 = np.arctan2(B[..., 1] - A[..., 1], B[..., 0] - A[..., 0])
    p3 = np.arctan2(B[..., 1] - C[..., 1], B[..., 0] - C[..., 0])
    return p2, p3
