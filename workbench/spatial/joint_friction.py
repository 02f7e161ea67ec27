"""Friction in spatial joints from their constraint reactions (Qi, Luo & Huang (2009)).

The joint keeps its kinematic constraint (infinitesimal clearance); the distributed contact that
carries the constraint reaction is replaced by equivalent point contacts (their eqs. 1-11; for a
uniform sliding direction, omega = 0, matching the resultant force and moment, eq. 8, is enough).
Everything here is in the joint frame ``(e1, e2, e3)``: ``e1`` the joint axis, the origin the
centre of the sleeve whose end faces are ``2c`` apart; a contact point at azimuth ``theta`` lies
at radius ``R`` in the direction ``n = sin(theta) e2 + cos(theta) e3`` (their Fig. 3).

**Cylindrical joint** (their eqs. 12-26).  One contact point per end face, ``p_k = -+c e1 + R n_k``
(k = 1, 2); the normal force on the inner body is ``-F_k n_k`` (``F_k >= 0``), the friction
``F_k (k_s e1 + k_r e1 x n_k)`` with the equivalent coefficients (their eq. 20, with the square
of ``s_dot`` that its typesetting lost)

    k_s = -mu s_dot / sqrt(s_dot^2 + omega^2 R^2),    k_r = -mu omega R / sqrt(s_dot^2 + omega^2 R^2)

(``s_dot`` the relative sliding speed along ``e1``, ``omega`` the relative rotation rate about it:
both points slide at the same speed ``v = sqrt(s_dot^2 + omega^2 R^2)``).  With a regularised law
``mu`` is ``-f_t(v, 1)``, the law's force at unit load (laws linear in the load: Coulomb,
Ambrosio, Bai-Zhao).  With ``u_k = F_k n_k = F_k (sin theta_k, cos theta_k)``, the components of the
contact system across the axis are linear in ``u`` (their eq. 19):

    F2 = -a - k_r b,   F3 = k_r a - b,
    M2 = -s c k_r a + (s c + R k_s) b,   M3 = -(s c + R k_s) a - s c k_r b

for a point with ``u = (a, b)`` on the face ``s = -1`` (k = 1) or ``s = +1`` (k = 2); summed over
the two points they equal the constraint reaction (force ``F2, F3``, moment ``M2, M3`` about the
sleeve centre).  (Their printed matrix has ``-k_s c`` in the last entry, a misprint for ``-k_r c``
by the symmetry of the two faces.)  Solving the 4 x 4 system gives ``F_k = |u_k|`` (their
eqs. 21-24), then the axial friction force ``k_s (F1 + F2)`` and moment ``k_r R (F1 + F2)``
(their eqs. 25-26), applied to the inner body along ``e1`` (the opposite to the other body).

**Revolute joint** (their eqs. 27-53).  The end faces are closed: besides the two radial contacts,
an axial contact on the left face (``g3 e1`` at ``-c e1 + R n3``) or the right one (``-g4 e1`` at
``c e1 + R n4``), with ``0 <= g3 _|_ g4 >= 0`` and ``g3 - g4`` the axial reaction (their eqs. 38-41:
``g3 = max(f1, 0)``, ``g4 = max(-f1, 0)``).  The axial contact sits where the tilted journal reaches
the face: ``n3 = (n2 - n1)/|n2 - n1|``, ``n4 = -n3`` (their eqs. 28-37); when the face's moment
``g R`` would exceed what the joint has to carry, the journal does not tilt and its flush face
carries the load on its rim with the resultant inside it (:mod:`.axial_contact`: our reading of the
case their eq. 36 leaves open, with its evidence).  The axial friction moment is ``k_r R (F1 + F2 +
g3 + g4)`` (their eq. 53; ``k_s = 0``: no sliding).

**Universal joint** (their eqs. 54-58): two revolute joints through a massless cross; each sees
the cross's wrench, whose moment about the other axis is that joint's friction moment, and
carries its axial load as the revolute joint does (their eqs. 54 and 56 with ``g3, g4`` and
``g7, g8`` at the azimuths of eq. 36; :func:`universal`).
"""
from __future__ import annotations

import math

import numpy as np

from . import axial_contact



def coefficients(law, s_dot: float, omega: float, R: float) -> tuple[float, float, float]:
    """``(k_s, k_r, v)``: the equivalent coefficients (their eq. 20) with ``mu = -law(v)``,
    ``law(v)`` the friction law's force at slip speed ``v`` [m/s] and unit load."""
    v = math.sqrt(s_dot * s_dot + omega * omega * R * R)
    if v == 0.0:
        return 0.0, 0.0, 0.0
    ft = law(v)
    return ft * s_dot / v, ft * omega * R / v, v


def _radial_matrix(k_s, k_r, R, c) -> np.ndarray:
    A = np.empty((4, 4))
    for col, s in ((0, -1.0), (2, 1.0)):
        A[:, col] = (-1.0, k_r, -s * c * k_r, -(s * c + R * k_s))
        A[:, col + 1] = (-k_r, -1.0, s * c + R * k_s, -s * c * k_r)
    return A


def cylinder(F, M, law, s_dot, omega, R, c, axial: bool):
    """Contact loads and friction of a cylindrical (``axial = False``) or revolute (``axial = True``)
    joint from its reaction on the inner body (the revolute's axial load at the tilt point of their
    eq. 36 or on the flush face, :func:`.axial_contact.solve`; an axial load of round-off size beside
    the radial one is not placed, :func:`.axial_contact.negligible`): force ``F`` [N] and moment ``M`` [N m] about the
    sleeve centre, joint-frame components (``F[0]``, ``M[0]`` along the axis are not used but for
    the revolute's axial force ``F[0]``).  ``R`` radius [m], ``c`` half the distance of the end faces [m].

    Returns ``(f_axial [N], m_axial [N m], F1, F2, g3, g4 [N], theta1, theta2 [rad])``: the
    friction force and moment on the inner body along ``e1``, the contact loads, the azimuths.
    """
    k_s, k_r, v = coefficients(law, s_dot, omega, R)
    if axial:
        k_s = 0.0
    A = _radial_matrix(k_s, k_r, R, c)
    b0 = np.array([F[1], F[2], M[1], M[2]], float)
    g3 = max(F[0], 0.0) if axial else 0.0
    g4 = max(-F[0], 0.0) if axial else 0.0
    u = np.linalg.solve(A, b0)
    if (g3 or g4) and not axial_contact.negligible(max(g3, g4), u):
        u = axial_contact.solve(A, b0, g3, g4, k_r, R, c)[0]
    F1, F2 = math.hypot(u[0], u[1]), math.hypot(u[2], u[3])
    return (k_s * (F1 + F2), k_r * R * (F1 + F2 + g3 + g4), F1, F2, g3, g4,
            math.atan2(u[0], u[1]), math.atan2(u[2], u[3]))


def universal(F, Mn, m_f1, m_f2, law, omega1, omega2, R1, c1, R2, c2, law_j=None):
    """Friction moments of a universal joint as two revolute joints (Qi, Luo & Huang (2009)
    eqs. 54-58).  Frame ``(a, b, n)``: ``a`` the cross axis on body i, ``b`` the one on body j,
    ``n = a x b``; ``F`` the force on body j (components along a, b, n) [N], ``Mn`` its constraint
    moment about ``n`` [N m], ``m_f1``, ``m_f2`` the current friction moments about ``a`` and ``b``
    (each journal carries the other's friction moment across its axis), ``omega1 = (omega_j -
    omega_i) . a``, ``omega2 = ... . b`` [rad/s]; ``law_j``: journal 2's law when it differs from
    journal 1's ``law`` (the LuGre bristles give each journal its own coefficient).  Returns the new ``(m_f1, m_f2)`` and the two
    journals' contact loads ``(F1 + F2 + g3 + g4)``.

    Journal 1 (axis a, frame ``e1 = a, e2 = b, e3 = n``): force ``(F_a, F_b, F_n)``, moment
    ``(., m_f2, Mn)``.  Journal 2 (axis b, frame ``e1 = b, e2 = n, e3 = a``, the cyclic
    substitution of their eq. 56): force ``(F_b, F_n, F_a)``, moment ``(., Mn, m_f1)``.

    Each journal is a revolute joint (their eqs. 54 and 56 are eq. 50 in the journal's frame): its
    axial load (``g3, g4`` = ``F_a`` of journal 1, their eq. 41; ``g7, g8`` = ``F_b`` of journal 2,
    their eq. 57) sits at the tilt point of their eq. 36, or on the flush face where the journal does
    not tilt (:func:`cylinder`, :mod:`.axial_contact`), so it adds a moment across the journal's axis
    and changes the radial loads; the friction moments are their eqs. 55 and 58, ``mu R (F1 + F2 +
    g3 + g4)``.  The two journals' friction moments are coupled (each carries the other's across
    its axis): the caller's reactions-friction loop closes them.
    """
    r1 = cylinder((F[0], F[1], F[2]), (0.0, m_f2, Mn), law, 0.0, omega1, R1, c1, axial=True)
    r2 = cylinder((F[1], F[2], F[0]), (0.0, Mn, m_f1), law if law_j is None else law_j, 0.0, omega2, R2, c2,
                  axial=True)
    return r1[1], r2[1], sum(r1[2:6]), sum(r2[2:6])
