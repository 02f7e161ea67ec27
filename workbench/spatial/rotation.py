"""Euler parameters (unit quaternions) ``p = (e0, e1, e2, e3)``: rotation matrix, kinematics.

Conventions (Nikravesh, *Computer-Aided Analysis of Mechanical Systems*, 1988, ch. 6; Haug,
*Computer-Aided Kinematics and Dynamics of Mechanical Systems*, 1989, ch. 6): ``A(p)`` maps
body coordinates to world coordinates, ``A = (2 e0^2 - 1) I + 2 (e e^T + e0 e~)``;
``G(p) = [-e, -e~ + e0 I]`` (3 x 4), so that the body-frame angular velocity is
``omega' = 2 G p_dot`` and ``p_dot = G^T omega' / 2`` (because ``G p = 0`` and ``G G^T = I``).
"""
from __future__ import annotations

import math

import numpy as np

#: tolerance on | |p| - 1 | of an input quaternion [1]
UNIT_TOLERANCE = 1e-9


def cross(a, b) -> np.ndarray:
    """``a x b`` of two 3-vectors: numpy's ``cross`` formula, without its axis handling (which
    cost ~90 us a call, most of the reference path's output samples)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def rotation_matrix(p) -> np.ndarray:
    """``A(p)`` (3 x 3) of the Euler parameters ``p`` (normalised here: a projection onto the unit
    sphere, so that a state whose norm drifted still gives a rotation)."""
    e0, e1, e2, e3 = np.asarray(p, float) / math.sqrt(float(np.dot(p, p)))
    return np.array([
        [e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
        [2 * (e1 * e2 + e0 * e3), e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3, 2 * (e2 * e3 - e0 * e1)],
        [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3]])


def g_matrix(p) -> np.ndarray:
    """``G(p)`` (3 x 4): ``omega' = 2 G p_dot`` (body frame)."""
    e0, e1, e2, e3 = p
    return np.array([[-e1, e0, e3, -e2],
                     [-e2, -e3, e0, e1],
                     [-e3, e2, -e1, e0]])


def from_axis_angle(axis, angle: float) -> np.ndarray:
    """Euler parameters of a rotation by ``angle`` [rad] about the unit vector ``axis``."""
    a = np.asarray(axis, float)
    a = a / np.linalg.norm(a)
    return np.concatenate([[math.cos(angle / 2)], math.sin(angle / 2) * a])


def from_matrix(A) -> np.ndarray:
    """Euler parameters (``e0 >= 0``) of the rotation matrix ``A`` (Shepperd (1978))."""
    A = np.asarray(A, float)
    tr = np.trace(A)
    cands = [tr, A[0, 0], A[1, 1], A[2, 2]]
    k = int(np.argmax(cands))
    if k == 0:
        e0 = 0.5 * math.sqrt(1 + tr)
        p = [e0, (A[2, 1] - A[1, 2]) / (4 * e0), (A[0, 2] - A[2, 0]) / (4 * e0), (A[1, 0] - A[0, 1]) / (4 * e0)]
    else:
        i = k - 1
        j, l = (i + 1) % 3, (i + 2) % 3
        ei = 0.5 * math.sqrt(1 + 2 * A[i, i] - tr)
        p = [0.0] * 4
        p[0] = (A[l, j] - A[j, l]) / (4 * ei)
        p[1 + i] = ei
        p[1 + j] = (A[j, i] + A[i, j]) / (4 * ei)
        p[1 + l] = (A[l, i] + A[i, l]) / (4 * ei)
    p = np.array(p)
    return -p if p[0] < 0 else p


def perpendicular(z) -> np.ndarray:
    """A unit vector perpendicular to the unit vector ``z`` (deterministic: built from the
    coordinate axis least aligned with ``z``)."""
    z = np.asarray(z, float)
    e = np.zeros(3)
    e[int(np.argmin(np.abs(z)))] = 1.0
    x = e - np.dot(e, z) * z
    return x / np.linalg.norm(x)


def skew(a) -> np.ndarray:
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
