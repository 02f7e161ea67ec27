"""Clearance joints at beam points: the plugins' compiled kernels through proxy rigid bodies.

Each beam point a clearance joint uses is a *proxy rigid body* whose position is the beam's
centre line there and whose angle is the slope's direction ``atan2(r'_y, r'_x)``; the proxy
mechanism (the rigid bodies plus the proxies, with the clearance joints only) is compiled by
:func:`workbench.mbs.compiled.compile_mechanism` and its forces come from
:func:`workbench.mbs.clearance.clearance_forces`, exactly as on the rigid path.  The proxies'
generalised forces ``(F, M)`` go back to the beam as ``J^T (F, M)`` with ``J`` the Jacobian of the
proxy coordinates (``S`` for the position, ``dtheta/de`` for the angle).  The forces' tangent is
taken by forward finite differences over the proxy coordinates (the kernels give no derivatives).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
from numba import njit

from ..errors import MechanismError
from ..mbs.clearance import clearance_forces
from ..mbs.mechanism import GROUND, Body, Mechanism, RevoluteClearanceJoint


class ClearanceProxy:
    """The clearance-joint part of :class:`workbench.flex.flex_mechanism.FlexModel` (a mixin: it
    uses the model's ``mech``, ``nb``, ``n``, ``q_ref``, ``point`` and ``slope``)."""

    def _proxy(self, surfaces, geometries):
        """The rigid-body mechanism the clearance kernels see (module docstring)."""
        from ..mbs.compiled import compile_mechanism
        from ..mbs import kernels
        self.n_clr = len(self.mech.clearance_joints)
        self.proxies = []             # (beam point descriptor, proxy body index)
        if not self.n_clr:
            return
        bodies = list(self.mech.bodies)
        angles = [self.q_ref[3 * i + 2] for i in range(self.nb)]
        beams = {bm.name for bm in self.mech.beams}
        names = {}
        joints = []
        for c in self.mech.clearance_joints:
            fields = (("bushing_body", "bushing_point"), ("journal_body", "journal_point")) \
                if isinstance(c, RevoluteClearanceJoint) else (("guide_body", "guide_point"),
                                                               ("slider_body", "slider_point"))
            repl = {}
            for fb, fp in fields:
                body, pt = getattr(c, fb), getattr(c, fp)
                if body in beams:
                    key = (body, pt)
                    if key not in names:
                        names[key] = f"{body}@{pt}"
                        p = self.point(body, pt)
                        bodies.append(Body(names[key], 1.0, 1.0, points={"P": (0.0, 0.0)}))
                        self.proxies.append((p, len(bodies) - 1))
                        r1 = self.slope(self.q_ref, p)
                        angles.append(math.atan2(r1[1], r1[0]))
                    repl[fb], repl[fp] = names[key], "P"
            if getattr(c.friction, "n_states", 0) or getattr(type(c.friction), "n_states", 0):
                raise MechanismError(f"clearance joint '{c.name}': friction laws with an internal state "
                                     f"(e.g. LuGre) are not supported in a mechanism with beams yet")
            joints.append(dataclasses.replace(c, **repl))
        proxy = Mechanism(bodies=tuple(bodies), clearance_joints=tuple(joints),
                          ground_points=self.mech.ground_points, gravity=self.mech.gravity)
        self.cm = compile_mechanism(proxy, angles=np.array(angles), surfaces=surfaces, geometries=geometries)
        self.cmodel = self.cm.model()
        self.np_ = 3 * len(bodies)
        self.n_points = self.cm.n_points
        self.dm = np.full(max(self.n_points, 1), 1e-3)
        self._tmp = np.zeros(kernels.N_OUT)
        self._z = np.zeros(max(self.n_points, 1))
        self._zdot = np.zeros(max(self.n_points, 1))
        self.rec = np.zeros((self.n_clr, 9))
        self._entries = {}
        # proxy coordinates each clearance force depends on (for the finite-difference tangent)
        pbodies = set()
        for c in joints:
            for b in ((c.bushing_body, c.journal_body) if isinstance(c, RevoluteClearanceJoint)
                      else (c.guide_body, c.slider_body)):
                if b != GROUND:
                    pbodies.add([x.name for x in bodies].index(b))
        self.clr_pcols = np.array(sorted(3 * b + i for b in pbodies for i in range(3)), dtype=int)

    def proxy_state(self, q, v):
        """Positions, velocities and the Jacobian ``J = d(proxy coordinates)/dq`` of the proxy
        rigid mechanism (its velocities are ``J v``; its generalised forces map back as ``J^T``)."""
        qp = np.zeros(self.np_)
        J = np.zeros((self.np_, self.n))
        n3 = 3 * self.nb
        qp[:n3] = q[:n3]
        J[:n3, :n3] = np.eye(n3)
        for p, k in self.proxies:
            c = p[1]
            e = q[c:c + 8]
            sh, ds = p[2], p[3]
            r1 = np.array([ds @ e[0::2], ds @ e[1::2]])
            qp[3 * k:3 * k + 3] = (sh @ e[0::2], sh @ e[1::2], math.atan2(r1[1], r1[0]))
            g2 = r1 @ r1
            J[3 * k, c:c + 8:2] = sh
            J[3 * k + 1, c + 1:c + 8:2] = sh
            J[3 * k + 2, c:c + 8:2] = -r1[1] / g2 * ds
            J[3 * k + 2, c + 1:c + 8:2] = r1[0] / g2 * ds
        return qp, J @ v, J

    def _entry(self, disp, args):
        """The compiled entry point of numba function ``disp`` for ``args``' types, looked up once:
        calling it skips the dispatcher's type resolution, which costs about a millisecond per
        call for the plugin kernels' function-pointer tuples."""
        key = disp.__name__
        if key not in self._entries:
            disp(*args)
            types = tuple(disp.typeof_pyval(a) for a in args)
            self._entries[key] = disp.overloads[types].entry_point
        return self._entries[key]

    def _proxy_forces(self, qp, vp, rec):
        from ..mbs.clearance import N_FAULT, clearance_forces
        Qp = np.zeros(self.np_)
        md = self.cmodel
        args = (qp, vp, self._z, self.dm, Qp, self._zdot, md.clr_i, md.clr_f, md.ckern, md.fkern, md.cpar,
                md.fpar, md.has_z, rec, self._tmp)
        _, _, bad = self._entry(clearance_forces, args)(*args)
        if bad >= 0:
            c = self.mech.clearance_joints[bad // N_FAULT]
            raise FloatingPointError(f"clearance joint '{c.name}': its contact or friction model gave "
                                     f"a bad value (cause {bad % N_FAULT})")
        return Qp

    def clearance(self, q, v):
        """Generalised clearance forces [N] on ``q`` and whether any contact point is loaded;
        fills :attr:`rec` (the solver's clearance record, :mod:`workbench.mbs.clearance`)."""
        from ..mbs.clearance import C_FN
        qp, vp, J = self.proxy_state(q, v)
        self.rec = np.zeros((self.n_clr, 9))
        Qp = self._proxy_forces(qp, vp, self.rec)
        self._last = (qp, vp, J, Qp)
        return J.T @ Qp, bool(np.any(self.rec[:, C_FN] > 0.0))

    def clearance_tangent(self, q, v, Q0):
        """``(K_c, C_c)`` = ``-(dQ/dq, dQ/dv)``: forward differences of the proxy forces over the
        proxy coordinates of the bodies in contact (:func:`proxy_tangent`), mapped by ``J^T (.) J``
        (the terms of the Jacobian's own variation, of the order of the forces times the beam's
        curvature, are left out: Newton then converges a little slower, to the same solution)."""
        qp, vp, J, Qp0 = self._last
        npx = self.np_
        dq = np.zeros((npx, npx)); dv = np.zeros((npx, npx))
        md = self.cmodel
        args = (qp, vp, self._z, self.dm, self._zdot, md.clr_i, md.clr_f, md.ckern, md.fkern, md.cpar, md.fpar,
                md.has_z, self.clr_pcols, Qp0, dq, dv, np.zeros_like(self.rec), self._tmp)
        self._entry(proxy_tangent, args)(*args)
        return -(J.T @ dq @ J), -(J.T @ dv @ J)

    def gaps(self, q, v):
        """Penetration [m] and its rate [m/s] of every contact point."""
        from ..mbs.clearance import contact_gaps
        qp, vp, _ = self.proxy_state(q, v)
        g = np.zeros(max(self.n_points, 1)); gd = np.zeros(max(self.n_points, 1))
        contact_gaps(np.concatenate([qp, vp]), self.np_, self.cmodel.clr_i, self.cmodel.clr_f, g, gd)
        return g[:self.n_points], gd[:self.n_points]


@njit(cache=True)
def proxy_tangent(qp, vp, z, dm, zdot, clr_i, clr_f, ckern, fkern, cpar, fpar, has_z, cols, Q0, dq, dv, rec, tmp):
    """Forward differences ``dQ/dqp``, ``dQ/dvp`` of the proxy mechanism's clearance forces over
    the columns ``cols`` (steps 1e-9 m or rad and 1e-6 m/s or rad/s, relative above 1)."""
    n = qp.shape[0]
    Q = np.zeros(n)
    for c in cols:
        h = 1e-9 * max(1.0, abs(qp[c]))
        x = qp[c]
        qp[c] = x + h
        Q[:] = 0.0
        clearance_forces(qp, vp, z, dm, Q, zdot, clr_i, clr_f, ckern, fkern, cpar, fpar, has_z, rec, tmp)
        qp[c] = x
        dq[:, c] = (Q - Q0) / h
        hv = 1e-6 * max(1.0, abs(vp[c]))
        x = vp[c]
        vp[c] = x + hv
        Q[:] = 0.0
        clearance_forces(qp, vp, z, dm, Q, zdot, clr_i, clr_f, ckern, fkern, cpar, fpar, has_z, rec, tmp)
        vp[c] = x
        dv[:, c] = (Q - Q0) / hv


