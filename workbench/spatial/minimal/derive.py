"""The equations of motion of a tree of joints in relative coordinates, derived with sympy.

Kane's method (Kane & Levinson (1985) ch. 6; ``sympy.physics.mechanics.KanesMethod``): the joint
coordinates ``q`` (angles [rad], slides [m]; 0 at the assembled start) with generalised speeds
``u = q_dot``; each body's frame is its parent's turned about the joint axis (a universal joint:
about the parent-side cross axis, then about the child-side one) and then by the constant
orientation of the start; its joint point is the parent's plus the start offset plus the slide
along the axis.  Loads: gravity at the centres of mass, the spring-damper-actuators between their
points, constant forces at points and constant torques (world frame).  The result is
``M(q) u_dot = F(q, u)`` with the mechanism's numbers in it, and, per body, the world position,
rotation matrix, velocity and angular velocity as functions of ``(q, u)`` (forward kinematics for
the dataset), the power of the applied forces and torques [W] and the dampers' dissipation [W].

sympy is imported here only: this module runs once per mechanism, at generation.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: numbers closer than this to 0, 1 or -1 (relative to 1) are written exactly (a start frame's round-off)
SNAP = 1e-14


@dataclass
class Derived:
    """The symbolic equations: ``q``, ``u`` (plain symbols), ``M`` (n x n), ``F`` (n), ``kin`` (per
    body 18 expressions: r (3) [m], A row-major (9) [1], v (3) [m/s], omega (3) [rad/s], world),
    ``power`` [W] of the applied forces and torques, ``damping`` [W] of the dampers."""
    q: list
    u: list
    M: object
    F: object
    kin: list
    power: object
    damping: object


def _num(x):
    import sympy as sp
    x = float(x)
    for v in (0.0, 1.0, -1.0):
        if abs(x - v) <= SNAP:
            return sp.Integer(int(v))
    return sp.Float(x)


def _vec(frame, a):
    return sum((_num(c) * e for c, e in zip(a, (frame.x, frame.y, frame.z))), 0 * frame.x)


def derive(model, edges) -> Derived:
    """The equations of :class:`~workbench.spatial.model.Model` ``model`` on the tree ``edges``
    (:func:`.tree.build`)."""
    try:
        import sympy as sp
    except ImportError:
        from ...errors import WorkbenchError
        raise WorkbenchError("[solver] formulation = \"minimal\" derives the equations with sympy, which is not "
                             "installed: pip install 'joint-wear-workbench[minimal]'") from None
    from sympy.physics.mechanics import KanesMethod, Point, ReferenceFrame, RigidBody, dynamicsymbols, inertia

    N = ReferenceFrame("N")
    O = Point("O")
    O.set_vel(N, 0)
    frames = {-1: N}
    coms = {-1: O}
    qs, us = [], []
    mech = model.mechanism
    for e in edges:
        n0 = len(qs)
        qe = list(dynamicsymbols(f"q{n0}:{n0 + len(e.coordinates)}")) if e.coordinates else []
        ue = list(dynamicsymbols(f"u{n0}:{n0 + len(e.coordinates)}")) if e.coordinates else []
        qs += qe
        us += ue
        Fp = frames[e.parent]
        a1 = _vec(Fp, e.axis1)
        kinds = e.coordinates
        frame = Fp
        slide = 0
        if e.type == "universal":
            I1 = ReferenceFrame(f"I{e.child}a")
            I1.orient_axis(Fp, a1, qe[0])
            I2 = ReferenceFrame(f"I{e.child}b")
            I2.orient_axis(I1, _vec(I1, e.axis2), qe[1])
            frame = I2
        else:
            for k, kind in enumerate(kinds):
                if kind == "angle":
                    I1 = ReferenceFrame(f"I{e.child}a")
                    I1.orient_axis(Fp, a1, qe[k])
                    frame = I1
                else:
                    slide = qe[k]
        Fc = ReferenceFrame(f"B{e.child}")
        Fc.orient_explicit(frame, sp.Matrix(3, 3, [_num(x) for x in np.asarray(e.C0).ravel()]))
        Pp = coms[e.parent].locatenew(f"P{e.child}", _vec(Fp, np.asarray(e.s_parent) + np.asarray(e.d0))
                                      + slide * a1)
        C = Pp.locatenew(f"C{e.child}", -_vec(Fc, e.s_child))
        frames[e.child], coms[e.child] = Fc, C
    t = dynamicsymbols._t
    qd = {q.diff(t): u for q, u in zip(qs, us)}

    def vel(P):
        return P.pos_from(O).dt(N).subs(qd)

    for b in range(model.nb):
        coms[b].set_vel(N, vel(coms[b]))
    bodies, loads = [], []
    g = _vec(N, model.gravity)
    for b in range(model.nb):
        J = model.J[b]
        Fc = frames[b]
        I = inertia(Fc, *(_num(J[0, 0]), _num(J[1, 1]), _num(J[2, 2]), _num(J[0, 1]), _num(J[1, 2]),
                          _num(J[2, 0])))
        bodies.append(RigidBody(f"body{b}", coms[b], Fc, _num(model.mass[b]), (I, coms[b])))
        if any(model.gravity):
            loads.append((coms[b], _num(model.mass[b]) * g))

    def point(b, s):
        P = coms[b].locatenew(f"X{len(loads)}_{b}", _vec(frames[b], s)) if np.any(s) else coms[b]
        if b >= 0 and np.any(s):
            P.set_vel(N, vel(P))
        return P

    power = sp.Integer(0)
    damping = sp.Integer(0)
    for b, s, F in model.forces:
        if b < 0:
            continue
        P = point(b, s)
        Fv = _vec(N, F)
        loads.append((P, Fv))
        power += Fv.dot(P.vel(N))
    for b, T in model.torques:
        if b < 0:
            continue
        Tv = _vec(N, T)
        loads.append((frames[b], Tv))
        power += Tv.dot(frames[b].ang_vel_in(N).subs(qd))
    for bi, si, bj, sj, s in model.springs:
        Pi, Pj = point(bi, si), point(bj, sj)
        d = Pj.pos_from(Pi)
        length = sp.sqrt(d.dot(d))
        e = d / length
        rate = e.dot(Pj.vel(N) - Pi.vel(N))
        tension = _num(s.stiffness) * (length - _num(s.free_length)) + _num(s.damping) * rate + _num(s.force)
        if bj >= 0:
            loads.append((Pj, -tension * e))
        if bi >= 0:
            loads.append((Pi, tension * e))
        damping += _num(s.damping) * rate ** 2
    kane = KanesMethod(N, q_ind=qs, u_ind=us, kd_eqs=[q.diff(t) - u for q, u in zip(qs, us)])
    kane.kanes_equations(bodies, loads)
    M = kane.mass_matrix.subs(qd)
    F = kane.forcing.subs(qd)
    kin = []
    for b in range(model.nb):
        r = coms[b].pos_from(O).to_matrix(N)
        A = N.dcm(frames[b])
        v = coms[b].vel(N).to_matrix(N)
        w = frames[b].ang_vel_in(N).subs(qd).to_matrix(N)
        kin.append(list(r) + list(A) + list(v) + list(w))
    Q = sp.symbols(f"q0:{len(qs)}")
    U = sp.symbols(f"u0:{len(us)}")
    plain = {**dict(zip(qs, Q)), **dict(zip(us, U))}

    def fix(x):
        return sp.sympify(x).xreplace(plain)

    M = M.applyfunc(fix).applyfunc(_simplify)
    F = F.applyfunc(fix).applyfunc(_simplify)
    kin = [[fix(x) for x in row] for row in kin]
    return Derived(list(Q), list(U), M, F, kin, fix(power), fix(damping))


def _simplify(x):
    """``trigsimp`` of a small expression (sin^2 + cos^2 of a turning frame), the expression itself
    when it is large (trigsimp's cost grows fast; ``cse`` then shares the terms)."""
    import sympy as sp
    if sp.count_ops(x) > 400:
        return sp.expand(x)
    return sp.trigsimp(sp.expand(x))
