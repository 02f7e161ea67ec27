"""Clearance joints at beam points: the plugins' compiled kernels through proxy rigid bodies.

Each beam point a clearance joint uses is a *proxy rigid body* whose position is the beam's
centre line there and whose angle is the slope's direction ``atan2(r'_y, r'_x)``; the proxy
mechanism (the rigid bodies plus the proxies, with the clearance joints only) is compiled by
:func:`workbench.mbs.compiled.compile_mechanism` and its forces come from
:func:`workbench.mbs.clearance.clearance_forces`, exactly as on the rigid path.  The proxies'
generalised forces ``(F, M)`` go back to the beam as ``J^T (F, M)`` with ``J`` the Jacobian of the
proxy coordinates (``S`` for the position, ``dtheta/de`` for the angle).  The forces' tangent is
taken by forward finite differences over the proxy coordinates (the kernels give no derivatives).
The Newton iteration with clearance joints runs compiled (:func:`newton_clearance_kernel`: the
proxy state, the forces, their tangent and the iteration, without a Python round-trip per
iteration); the Python methods are its reference path.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
from ..jit import njit  # house: numba is imported when a compiled function is first needed

from ..errors import MechanismError
from ..mbs.clearance import C_FN, clearance_forces
from ..mbs.mechanism import GROUND, Body, Mechanism, RevoluteClearanceJoint
from .newton import newton_kernel


class ClearanceProxy:
    """The clearance-joint part of :class:`workbench.flex.mechanism.FlexModel` (a mixin: it
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
        # the compiled path's arrays (clearance_kernel, newton_clearance_kernel)
        self.pr_i = np.array([(k, p[1]) for p, k in self.proxies], np.int64).reshape(-1, 2)
        self.pr_f = np.array([np.concatenate([p[2], p[3]]) for p, k in self.proxies], float).reshape(-1, 8)
        npx, n = self.np_, self.n
        self._cwork = (np.zeros_like(self.rec), np.zeros_like(self.rec), self._tmp, np.zeros(npx), np.zeros(npx),
                       np.zeros((npx, n)), np.zeros(npx), np.zeros((npx, npx)), np.zeros((npx, npx)),
                       np.zeros(n), np.zeros((n, n)), np.zeros((n, n)))

    def clearance_args(self):
        """The arguments of :func:`newton_clearance_kernel` from ``nb`` to ``Cx``."""
        md = self.cmodel
        return (self.nb, self.pr_i, self.pr_f, self._z, self.dm, self._zdot, md.clr_i, md.clr_f, md.ckern, md.fkern,
                md.cpar, md.fpar, md.has_z, self.clr_pcols, *self._cwork)

    def fault(self, code):
        """The error a clearance kernel's fault code stands for."""
        from ..mbs.clearance import N_FAULT
        c = self.mech.clearance_joints[code // N_FAULT]
        return FloatingPointError(f"clearance joint '{c.name}': its contact or friction model gave "
                                  f"a bad value (cause {code % N_FAULT})")

    def proxy_state(self, q, v):
        """Positions, velocities and the Jacobian ``J = d(proxy coordinates)/dq`` of the proxy
        rigid mechanism (its velocities are ``J v``; its generalised forces map back as ``J^T``):
        compiled (:func:`proxy_kernel`)."""
        qp = np.zeros(self.np_)
        vp = np.zeros(self.np_)
        J = np.zeros((self.np_, self.n))
        proxy_kernel(q, v, self.nb, self.pr_i, self.pr_f, qp, vp, J)
        return qp, vp, J

    def _entry(self, disp, args):
        """The compiled entry point of numba function ``disp`` for ``args``' types, looked up once:
        calling it skips the dispatcher's type resolution, which costs about a millisecond per
        call for the plugin kernels' function-pointer tuples."""
        key = disp.__name__
        if key not in self._entries:
            types = tuple(disp.typeof_pyval(a) for a in args)
            disp.compile(types)           # compiled (or loaded from the cache), not run
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




@njit(cache=True)
def proxy_kernel(q, v, nb, pr_i, pr_f, qp, vp, J):
    """Compiled :meth:`ClearanceProxy.proxy_state` into ``qp``, ``vp``, ``J``: ``pr_i`` (k, 2) each
    proxy's body index and its element's first coordinate, ``pr_f`` (k, 8) the shape functions and
    their x-derivatives [1, m | 1/m, 1] at the beam point."""
    J[:, :] = 0.0
    for i in range(3 * nb):
        qp[i] = q[i]
        vp[i] = v[i]
        J[i, i] = 1.0
    for p in range(pr_i.shape[0]):
        k = pr_i[p, 0]
        c = pr_i[p, 1]
        x = y = r1x = r1y = 0.0
        for a in range(4):
            x += pr_f[p, a] * q[c + 2 * a]
            y += pr_f[p, a] * q[c + 2 * a + 1]
            r1x += pr_f[p, 4 + a] * q[c + 2 * a]
            r1y += pr_f[p, 4 + a] * q[c + 2 * a + 1]
        g2 = r1x * r1x + r1y * r1y
        qp[3 * k] = x
        qp[3 * k + 1] = y
        qp[3 * k + 2] = math.atan2(r1y, r1x)
        for a in range(4):
            J[3 * k, c + 2 * a] = pr_f[p, a]
            J[3 * k + 1, c + 2 * a + 1] = pr_f[p, a]
            J[3 * k + 2, c + 2 * a] = -r1y / g2 * pr_f[p, 4 + a]
            J[3 * k + 2, c + 2 * a + 1] = r1x / g2 * pr_f[p, 4 + a]
        for r in range(3 * k, 3 * k + 3):
            s = 0.0
            for j in range(c, c + 8):
                s += J[r, j] * v[j]
            vp[r] = s


@njit(cache=True)
def clearance_kernel(q, v, nb, pr_i, pr_f, z, dm, zdot, clr_i, clr_f, ckern, fkern, cpar, fpar, has_z, cols, rec,
                     rec2, tmp, qp, vp, J, Qp, dq, dv, Gx, Kx, Cx):
    """Compiled :meth:`ClearanceProxy.clearance` and :meth:`ClearanceProxy.clearance_tangent`: the
    internal-force part ``Gx = -J^T Q_p`` [N] of the clearance forces, and where a contact point is
    loaded their tangents ``Kx = -J^T dQ_p/dq_p J``, ``Cx = -J^T dQ_p/dv_p J`` (else zero).  Returns
    the plugins' fault code (``>= 0``: joint ``fault // N_FAULT`` gave a bad value) or -1."""
    n = q.shape[0]
    npx = qp.shape[0]
    proxy_kernel(q, v, nb, pr_i, pr_f, qp, vp, J)
    Qp[:] = 0.0
    rec[:, :] = 0.0
    _, _, bad = clearance_forces(qp, vp, z, dm, Qp, zdot, clr_i, clr_f, ckern, fkern, cpar, fpar, has_z, rec, tmp)
    if bad >= 0:
        return bad
    active = False
    for j in range(rec.shape[0]):
        if rec[j, C_FN] > 0.0:
            active = True
    for i in range(n):
        s = 0.0
        for r in range(npx):
            s += J[r, i] * Qp[r]
        Gx[i] = -s
    Kx[:, :] = 0.0
    Cx[:, :] = 0.0
    if not active:
        return -1
    dq[:, :] = 0.0
    dv[:, :] = 0.0
    proxy_tangent(qp, vp, z, dm, zdot, clr_i, clr_f, ckern, fkern, cpar, fpar, has_z, cols, Qp, dq, dv, rec2, tmp)
    # J^T (dq, dv) J over the proxy columns differenced (the others are zero)
    for r in range(npx):
        for c in cols:
            a = dq[r, c]
            b = dv[r, c]
            if a == 0.0 and b == 0.0:
                continue
            for i in range(n):
                if J[r, i] == 0.0:
                    continue
                for j in range(n):
                    if J[c, j] != 0.0:
                        Kx[i, j] -= J[r, i] * a * J[c, j]
                        Cx[i, j] -= J[r, i] * b * J[c, j]
    return -1


#: :func:`newton_clearance_kernel`: a contact or friction model gave a bad value
BAD_CONTACT = -2000000


@njit(cache=True)
def newton_clearance_kernel(q1, v1, acc1, lam1, t1, bp, gp, M, g0, rpf_i, rpf_f, bm_i, bm_f, pt_kind, pt_idx, pt_vec,
                            jt, jt_f, dr, dr_f, sc, phi_tol, frac, max_iter, G, K, C, Phi, B, Pt, A, rhs, lu_info, piv,
                            nb, pr_i, pr_f, z, dm, zdot, clr_i, clr_f, ckern, fkern, cpar, fpar, has_z, cols, rec,
                            rec2, tmp, qp, vp, J, Qp, dq, dv, Gx, Kx, Cx, out):
    """The Newton iteration of a step with clearance joints, compiled: every iteration evaluates the
    clearance forces and their tangent (:func:`clearance_kernel`) and runs one full Newton iteration
    (:func:`workbench.flex.newton.newton_kernel`, arguments as there) -- the Python loop of
    :meth:`workbench.flex.solver._Stepper.step` without a round-trip per iteration.  Returns
    :func:`newton_kernel`'s status (:data:`BAD_CONTACT` with the fault code in ``out[1]``);
    ``out[0]``: the iterations done."""
    for it in range(max_iter):
        bad = clearance_kernel(q1, v1, nb, pr_i, pr_f, z, dm, zdot, clr_i, clr_f, ckern, fkern, cpar, fpar, has_z,
                               cols, rec, rec2, tmp, qp, vp, J, Qp, dq, dv, Gx, Kx, Cx)
        if bad >= 0:
            out[0] = it
            out[1] = bad
            return BAD_CONTACT
        status = newton_kernel(q1, v1, acc1, lam1, t1, bp, gp, M, g0, rpf_i, rpf_f, bm_i, bm_f, pt_kind, pt_idx,
                               pt_vec, jt, jt_f, dr, dr_f, Gx, Kx, Cx, sc, phi_tol, frac, 1, G, K, C, Phi, B, Pt, A,
                               rhs, 0, 0.0, 0.0, lu_info, piv)
        if status != 0:
            out[0] = it + 1
            return status
    out[0] = max_iter
    return 0
