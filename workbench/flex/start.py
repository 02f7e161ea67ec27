"""Consistent initial states of a mechanism with beams (:func:`consistent_start`).

A flexible mechanism starts from its *ideal* mechanism's configuration and velocity field: every
clearance joint held as its ideal joint (journal centred in the bushing, slider centred in the
guide, zero relative velocity), every beam first moved as a rigid body, then the least-strain
correction that satisfies the constraints exactly.  In steps:

1. *Close the joints where the bodies are.*  Gauss-Newton (minimum-norm corrections) over the
   rigid bodies' ``(x, y, phi)`` and each beam's rigid motion (translation and rotation about its
   first node, from its straight reference) with every driver held at the value it has at the
   given positions.  A body that has to move more than :data:`MOVE_LIMIT` of the mechanism's size
   (or :data:`TURN_LIMIT` in angle) to close them is not "near the given positions": the start is
   refused, naming the body, how far it would move and the joint residual at the given positions.
2. *Drive to the start.*  The drivers are moved from those values to ``f(t0)`` by continuation
   (steps of at most :data:`CONTINUATION_STEP` rad, or that fraction of the mechanism's size for a
   position driver, each a tangent predictor and a Gauss-Newton corrector): the assembly follows
   the branch of the given configuration (a slider-crank turned back by pi keeps its slider on its
   side of the crank pivot; the minimum-norm Gauss-Newton from far off jumped to the mirror image).
3. *Least-strain correction.*  Where rigid beams cannot close the joints exactly, the remaining
   violation is removed by the correction of least strain energy (the beams' stiffness matrix as
   the metric, the rigid bodies' mass); a beam axial strain beyond :data:`STRAIN_LIMIT` is refused.
4. *Velocities.*  The consistent velocities of the rigid-beam model of least kinetic-energy change
   from the bodies' velocity guesses (beams: at rest), then the least-strain-rate correction in the
   full coordinates.

The coordinates of the ideal mechanism are those of the mechanism itself (a clearance joint adds
forces, not coordinates), so the state returned starts the clearance mechanism.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import SolverError

#: a body may move at most this fraction of the mechanism's size to close the joints [1]
MOVE_LIMIT = 0.25
#: ... and turn at most this angle [rad]
TURN_LIMIT = 0.5
#: largest driver increment of the continuation [rad] (a position driver: this fraction of the size)
CONTINUATION_STEP = 0.05
#: largest beam axial strain |r'| - 1 a start or a run may have [1]: steel yields near 1e-3 and the
#: softest shipped rod (2 GPa, undamped impacts) reaches about 1e-2 at its nodes; 0.1 is far past any
#: elastic state of a rod the cable's linear material law describes, i.e. a crumpled or torn rod
STRAIN_LIMIT = 0.1


def _ideal_model(fm):
    """The model of ``fm``'s ideal mechanism (``fm`` itself without clearance joints)."""
    if not fm.mech.clearance_joints:
        return fm
    from .mechanism import FlexModel
    fi = FlexModel(fm.mech.ideal())
    if fi.n != fm.n:      # pragma: no cover - a clearance joint adds forces, not coordinates
        raise SolverError("internal: the ideal mechanism has other coordinates than the mechanism")
    return fi


class _RigidBeams:
    """The reduced coordinates ``p``: the rigid bodies' ``(x, y, phi)``, then per beam its
    translation and rotation (about its first node) from the straight reference."""

    def __init__(self, fm):
        self.fm = fm
        self.n3 = 3 * fm.nb
        self.refs = [(o, fm.q_ref[o:o + cb.n].reshape(-1, 4).copy()) for _, cb, o in fm.beams]
        self.n = self.n3 + 3 * len(self.refs)

    def p0(self):
        return np.concatenate([self.fm.q_ref[:self.n3], np.zeros(3 * len(self.refs))])

    def place(self, p):
        """``(q, dq/dp)`` of the reduced coordinates ``p``."""
        fm, n3 = self.fm, self.n3
        q = fm.q_ref.copy()
        q[:n3] = p[:n3]
        G = np.zeros((fm.n, self.n))
        G[:n3, :n3] = np.eye(n3)
        for k, (o, ref) in enumerate(self.refs):
            cx, cy, th = p[n3 + 3 * k:n3 + 3 * k + 3]
            c, s = math.cos(th), math.sin(th)
            R, dR = np.array([[c, -s], [s, c]]), np.array([[-s, -c], [c, -s]])
            rel = ref[:, 0:2] - ref[0, 0:2]
            blk = np.column_stack([ref[0, 0:2] + (cx, cy) + rel @ R.T, ref[:, 2:4] @ R.T])
            q[o:o + blk.size] = blk.ravel()
            cols = n3 + 3 * k
            G[o:o + blk.size:4, cols] = 1.0
            G[o + 1:o + blk.size:4, cols + 1] = 1.0
            G[o:o + blk.size, cols + 2] = np.column_stack([rel @ dR.T, ref[:, 2:4] @ dR.T]).ravel()
        return q, G

    def names(self):
        """``(name, kind, columns of p)`` per body."""
        fm = self.fm
        out = [(b.name, "body", slice(3 * i, 3 * i + 3)) for i, b in enumerate(fm.mech.bodies)]
        out += [(bm.name, "beam", slice(self.n3 + 3 * k, self.n3 + 3 * k + 3)) for k, (bm, _, _) in enumerate(fm.beams)]
        return out


def mechanism_size(fm) -> float:
    """The mechanism's size [m]: its largest coordinate extent, point offset or beam length."""
    pts = [np.abs(fm.q_ref[:3 * fm.nb].reshape(-1, 3)[:, :2]).max(initial=0.0)]
    for b in fm.mech.bodies:
        pts += [float(np.abs(np.asarray(v, float)).max()) for v in b.points.values()]
    pts += [float(np.abs(np.asarray(v, float)).max()) for v in fm.mech.ground_points.values()]
    pts += [bm.length for bm in fm.mech.beams]
    return max(max(pts), 1e-6)


def _joint_name(fm, row: int) -> str:
    """The joint or driver of constraint row ``row``."""
    mech = fm.mech
    for j, r in zip(mech.joints, fm.joint_rows):
        if r <= row < r + 2:
            return f"joint '{j.name}'"
    for d, r in zip(mech.drivers, fm.driver_rows):
        if r == row:
            return f"driver '{d.name}'"
    return f"constraint row {row}"


def _gauss_newton(func, p, tol, max_iter):
    """Minimum-norm Gauss-Newton on ``func(p) -> (r, J)``; returns ``(p, |r|, converged)``."""
    for _ in range(max_iter):
        r, J = func(p)
        nr = float(np.linalg.norm(r))
        if nr < tol:
            return p, nr, True
        p = p - np.linalg.lstsq(J, r, rcond=None)[0]
        if not np.all(np.isfinite(p)):
            return p, math.inf, False
    r, _ = func(p)
    nr = float(np.linalg.norm(r))
    return p, nr, nr < tol


def _least_strain(fi, q, t0):
    """The metric of the least-strain corrections: the beams' stiffness (plus a trace of their
    mass, for their rigid motions) and the rigid bodies' mass."""
    W = fi.M.copy()
    _, K, _ = fi.forces(q, np.zeros(fi.n), t0, with_tangent=True)
    for bm, cb, o in fi.beams:
        blk = slice(o, o + cb.n)
        kb = K[blk, blk]
        W[blk, blk] = kb + 1e-9 * np.abs(kb).max() / np.abs(cb.M).max() * cb.M
    return W


def _min_metric(W, B, rhs_v, rhs_c):
    """``x`` minimising ``(x - rhs_v)^T W (x - rhs_v)`` subject to ``B x = rhs_c``."""
    n, m = W.shape[0], B.shape[0]
    A = np.block([[W, B.T], [B, np.zeros((m, m))]])
    return np.linalg.lstsq(A, np.concatenate([W @ rhs_v, rhs_c]), rcond=None)[0][:n]


#: points per element where the axial strain is checked: the nodes (xi = 0, 1) and between [1]
STRAIN_POINTS = (0.0, 0.25, 0.5, 0.75, 1.0)


def axial_strains(fm, q) -> list[tuple[str, float, float]]:
    """``(beam name, largest |r'| - 1 [1], arc length s where it is [m])`` per beam, over the nodes
    and the element points :data:`STRAIN_POINTS` (a node moved alone stretches its elements, not its
    slope); non-finite coordinates give ``inf``."""
    from .ancf_cable import hermite
    out = []
    for bm, cb, o in fm.beams:
        D = np.array([hermite(x, cb.le)[1] for x in STRAIN_POINTS])          # (points, 4)
        worst, where = 0.0, 0.0
        for k in range(cb.n_el):
            e = q[o + 4 * k:o + 4 * k + 8]
            rx, ry = D @ e[0::2], D @ e[1::2]
            eps = np.abs(np.hypot(rx, ry) - 1.0)
            if not np.all(np.isfinite(eps)):
                return out + [(bm.name, math.inf, k * cb.le)]
            i = int(np.argmax(eps))
            if eps[i] > worst:
                worst, where = float(eps[i]), (k + STRAIN_POINTS[i]) * cb.le
        out.append((bm.name, worst, where))
    return out


def consistent_start(fm, t0: float = 0.0, tol: float = 1e-13, max_iter: int = 50):
    """Consistent ``(q, v)`` at ``t0`` [s] of the :class:`~workbench.flex.mechanism.FlexModel`
    ``fm`` (module docstring); :class:`SolverError` when the start cannot be assembled near the
    given positions, naming the body and the residual."""
    fi = _ideal_model(fm)
    v_guess = np.zeros(fm.n)
    for i, b in enumerate(fm.mech.bodies):
        v_guess[3 * i:3 * i + 3] = (*b.velocity, b.angular_velocity)
    if fi.m == 0:
        return fm.q_ref.copy(), v_guess
    rb = _RigidBeams(fi)
    size = mechanism_size(fi)
    p = rb.p0()
    q_given, _ = rb.place(p)
    phi_given = fi.constraints(q_given, t0)[0]
    drv = np.zeros(fi.m)
    drv[fi.driver_rows] = phi_given[fi.driver_rows]       # the drivers' offset at the given positions

    def residual(s):
        def f(x):
            q, G = rb.place(x)
            Phi, B, _ = fi.constraints(q, t0)
            return Phi - (1.0 - s) * drv, B @ G
        return f

    def where_given():
        r = np.abs(phi_given - drv)
        open_rows = {}
        for k in np.argsort(-r):
            if r[k] > 1e-9 * size:
                open_rows.setdefault(_joint_name(fi, int(k)), r[k])
        if not open_rows:
            return "every joint closed at the given positions"
        return "open at the given positions: " + ", ".join(f"{n} by {x:.3e} (m or rad)" for n, x in open_rows.items())

    # 1. the joints closed where the bodies are (drivers held)
    p1, res, ok = _gauss_newton(residual(0.0), p.copy(), tol, max_iter)
    if not ok:
        raise SolverError(f"could not assemble the mechanism near the given positions at t = {t0:.9g} s: constraint "
                          f"violation {res:.3e} left after {max_iter} Gauss-Newton iterations ({where_given()}); "
                          f"check the bodies' and beams' positions and the joint points")
    for name, kind, cols in rb.names():
        d = p1[cols] - p[cols]
        move, turn = float(np.hypot(d[0], d[1])), abs(float(d[2]))
        if move > MOVE_LIMIT * size or turn > TURN_LIMIT:
            raise SolverError(f"the start at t = {t0:.9g} s cannot be assembled near the given positions: {kind} "
                              f"'{name}' would move by {move:.4g} m and turn by {turn:.4g} rad to close the joints "
                              f"(limits {MOVE_LIMIT * size:.3g} m, {TURN_LIMIT:g} rad; {where_given()}); give "
                              f"its position and angle in the assembled mechanism")
    # 2. the drivers moved to their values at t0 by continuation (the branch of the given configuration)
    scale = np.ones(fi.m)
    for col, _, _, r in fi.driver_list:
        if col % 3 != 2 or col >= 3 * fi.nb:
            scale[r] = size
    span = float(np.max(np.abs(drv) / scale, initial=0.0))
    steps = max(1, int(math.ceil(span / CONTINUATION_STEP))) if span > 0.0 else 0
    for k in range(1, steps + 1):
        s0, s1 = (k - 1) / steps, k / steps
        q, G = rb.place(p1)
        J = fi.constraints(q, t0)[1] @ G
        p1 = p1 - np.linalg.lstsq(J, -drv * (s1 - s0), rcond=None)[0]      # tangent predictor
        p1, res, ok = _gauss_newton(residual(s1), p1, tol, max_iter)
        if not ok:
            raise SolverError(f"could not drive the mechanism from its given positions to its drivers' values at "
                              f"t = {t0:.9g} s: constraint violation {res:.3e} at {s1:.0%} of the way (a singular "
                              f"configuration on the way?); give positions closer to the start")
    # 3. the least-strain correction in the full coordinates
    q, G = rb.place(p1)
    for _ in range(max_iter):
        Phi, B, Pt = fi.constraints(q, t0)
        if np.linalg.norm(Phi) < tol:
            break
        q = q + _min_metric(_least_strain(fi, q, t0), B, np.zeros(fi.n), -Phi)
    else:
        k = int(np.argmax(np.abs(Phi)))
        raise SolverError(f"could not assemble the mechanism at t = {t0:.9g} s: constraint violation "
                          f"{np.linalg.norm(Phi):.3e} left by the least-strain correction ({_joint_name(fi, k)}: "
                          f"{abs(Phi[k]):.3e} m or rad); check the beams' lengths and points against the joints")
    for name, eps, at in axial_strains(fi, q):
        if eps > STRAIN_LIMIT:
            raise SolverError(f"the start at t = {t0:.9g} s cannot be assembled near the given positions: beam "
                              f"'{name}' would be strained by {eps:.3g} at s = {at:.4g} m (limit {STRAIN_LIMIT:g}) "
                              f"to close the joints; check its length, position and points against the joints")
    # 4. velocities: the rigid-beam field of least kinetic-energy change, then the least strain rate
    Phi, B, Pt = fi.constraints(q, t0)
    _, G = rb.place(p1)
    Mr = G.T @ fi.M @ G
    BG = B @ G
    pd_guess = np.linalg.lstsq(G, v_guess, rcond=None)[0]
    pd = _min_metric(Mr + 1e-14 * np.abs(Mr).max() * np.eye(rb.n), BG, pd_guess, -Pt)
    v = G @ pd
    rv = B @ v + Pt
    if np.abs(rv).max() > 1e-12 * max(1.0, np.abs(v).max()):
        v = v + _min_metric(_least_strain(fi, q, t0), B, np.zeros(fi.n), -rv)
    return q, v
