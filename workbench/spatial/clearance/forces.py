"""Contact and friction forces of the spatial clearance joints, as generalised forces of the
spatial model (:class:`workbench.spatial.model.Model`: per body the world force and the moment
in body axes).

Per contact point (:mod:`.geometry`) with penetration ``delta > 0`` and a closed contact mode:
the normal force ``f_n = share * F(delta, delta_dot, delta_dot_minus)`` of the contact plugin
(``delta_dot = (v_Qj - v_Qi).n``; ``delta_dot_minus`` the approach speed at the start of the
contact, kept by :mod:`.run`; ``share`` 1, or :data:`.geometry.RIM_SHARE` for a rim), and the
friction of the friction plugin in the tangent plane: with ``v_t = v_r - (v_r.n) n`` the slip
velocity of the journal's material point over the bushing's (``v_r = v_Qj - v_Qi``), the force on
the journal is ``f_t(|v_t|, f_n) v_t/|v_t|`` (the law's ``f_t`` opposes a positive speed); in a
plane it is the planar joint's ``f_t(v_t) t``.  The journal gets ``-f_n n + f_t v_t/|v_t|`` at
``Q_j``, the bushing the opposite at ``Q_i``.  The shoulders (axial points) carry no friction.

Contact laws are packed with the joint's :class:`~workbench.models.ContactGeometry`: a ball in a
socket as ``kind = "sphere"`` with the socket's radius negative (a concave surface; Johnson
(1985) §4.1, ``1/R = 1/R_1 + 1/R_2``), which gives the conforming Hertz stiffness
``K = 4/3 E* sqrt(R_i R_j/(R_i - R_j))``; a journal as ``kind = "cylindrical"`` (the planar
clearance joint's geometry: Wang, Chen, Ma & Sun (2016) eq. 11).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...errors import MechanismError
from ...jit import LazyDispatcher
from ...models import ContactGeometry
from ..model import _frame, _unit
from ..rotation import cross
from .geometry import KIND_AXIAL, KIND_RIM, KIND_SPHERE, RIM_SHARE, point

#: record columns of a contact point: normal force [N], friction force [N] (<= 0 while slipping),
#: penetration [m], its rate [m/s], slip speed [m/s], contact point on the bushing (3) [m]
R_FN, R_FT, R_PEN, R_VN, R_VT, R_QX, R_QY, R_QZ = range(8)
N_REC = 8
#: contact-point names per joint type
POINT_NAMES = {"spherical": ("ball",), "cylindrical": ("rim_1", "rim_2"),
               "revolute": ("rim_1", "rim_2", "shoulder_1", "shoulder_2")}


def contact_geometry(joint) -> ContactGeometry:
    """The geometry a clearance joint's contact law is packed with (module docstring)."""
    if joint.type == "spherical":
        return ContactGeometry("sphere", joint.radius_j, -joint.radius_i, 2.0 * joint.radius_j,
                               joint.material_j, joint.material_i)
    return ContactGeometry("cylindrical", joint.radius_j, joint.radius_i, joint.length,
                           joint.material_j, joint.material_i)


def _direct(kernel):
    """The numba dispatcher of a compiled kernel (skips the lazy wrapper's call in the hot loop)."""
    return kernel.dispatcher() if isinstance(kernel, LazyDispatcher) else kernel


@dataclass
class CPoint:
    """One contact point: its joint, kind, journal-axis offset ``h`` [m] and share of the law."""
    joint: int
    kind: int
    h: float
    share: float


class Clearances:
    """The clearance joints of a spatial model, compiled (``compiled=False``: the laws' Python
    kernels, the reference path)."""

    def __init__(self, model, joints, *, compiled: bool = True, worn: dict | None = None):
        self.joints = tuple(joints)
        self.nb = model.nb
        idx = model.index
        A0 = model.A0
        self.data = []
        self.points: list[CPoint] = []
        for q, jt in enumerate(self.joints):
            i, j = idx[jt.body_i], idx[jt.body_j]
            s_i = np.asarray(model.mechanism.points_of(jt.body_i)[jt.point_i], float)
            s_j = np.asarray(model.mechanism.points_of(jt.body_j)[jt.point_j], float)
            zi = zj = np.zeros(3)
            if jt.type != "spherical":
                z0 = _unit(jt.axis_i)
                x = _frame(z0, np.array([1.0, 0.0, 0.0]) if jt.tilt_axis is None else _unit(jt.tilt_axis))[0]
                zi = math.cos(jt.tilt) * z0 + math.sin(jt.tilt) * cross(x, z0)
                zj = _unit(jt.axis_j) if jt.axis_j is not None else A0[j].T @ A0[i] @ z0
            geom = contact_geometry(jt)
            try:
                cp = np.asarray(jt.contact.pack(geom), float)
                fp = None if jt.friction is None else np.asarray(jt.friction.pack(), float)
            except Exception as exc:
                raise MechanismError(f"clearance joint '{jt.name}': its laws could not be packed ({exc})") from exc
            ck = _direct(jt.contact.kernel) if compiled else getattr(jt.contact.kernel, "py_func", jt.contact.kernel)
            fk = None
            if jt.friction is not None:
                fk = _direct(jt.friction.kernel) if compiled else getattr(jt.friction.kernel, "py_func",
                                                                           jt.friction.kernel)
            self.data.append((i, j, s_i, s_j, zi, zj, jt.radius_i, jt.radius_j, jt.clearance, jt.axial_clearance,
                              ck, cp, fk, fp))
            if jt.type == "spherical":
                self.points.append(CPoint(q, KIND_SPHERE, 0.0, 1.0))
            else:
                for h in (-0.5 * jt.length, 0.5 * jt.length):
                    self.points.append(CPoint(q, KIND_RIM, h, RIM_SHARE))
                if jt.type == "revolute":
                    for h in (-0.5 * jt.length, 0.5 * jt.length):
                        self.points.append(CPoint(q, KIND_AXIAL, h, 1.0))
        self.n_points = len(self.points)
        self._generated = None   # the compiled forces of :mod:`.compiled_forces`, made on first use
        self._entries = {}       # their calls without numba's typing of the arguments (:meth:`_entry`)
        #: points whose friction law acts while they slip (a law, and not a shoulder)
        self._rubs = np.array([self.data[p.joint][12] is not None and p.kind != KIND_AXIAL for p in self.points],
                              bool)
        self.point_joint = np.array([p.joint for p in self.points], int)
        # the arrays of the compiled path (:mod:`.kernels`; the ground is index nb there)
        g = lambda b: self.nb if b < 0 else b   # noqa: E731
        self.pint = np.array([(p.kind, g(self.data[p.joint][0]), g(self.data[p.joint][1])) for p in self.points],
                             np.int64).reshape(-1, 3)
        self.pflt = np.array([(*d[2], *d[3], *d[4], *d[5], p.h, d[6], d[7], d[8], d[9])
                              for p in self.points for d in (self.data[p.joint],)], float).reshape(-1, 17)
        self.share = np.array([p.share for p in self.points])
        self.axial = np.array([p.kind == KIND_AXIAL for p in self.points])
        # worn maps (joint index -> map, :mod:`.worn`): the rims' gaps grow by the local depth
        self.worn = None
        self.worn_points = ()
        if worn:
            from .worn import WornView
            self.worn = WornView(self, model, worn)
            self.worn_points = tuple(k for k, p in enumerate(self.points)
                                     if p.joint in self.worn.maps and p.kind != KIND_AXIAL)
            from .worn_kernels import pack
            self._worn_packed = pack(self, self.worn, self.nb)

    # ------------------------------------------------------------------ kinematics
    def _geometry(self, p: CPoint, R, A):
        i, j, s_i, s_j, zi, zj, Ri, Rj, c, gap = self.data[p.joint][:10]
        Pi = R[i] + A[i] @ s_i
        Pj = R[j] + A[j] @ s_j
        delta, n, Qi, Qj = point(p.kind, p.h, Pi, Pj, A[i] @ zi, A[j] @ zj, Ri, Rj, c, gap)
        if self.worn is not None and p.joint in self.worn.maps and p.kind != KIND_AXIAL:
            delta -= self.worn.depth(self, p.joint, R, A, Qi)
        return delta, n, Qi, Qj

    @staticmethod
    def _velocity(b, Q, R, V, W):
        return V[b] + cross(W[b], Q - R[b])

    def gaps(self, kin):
        """Penetration [m] and its rate [m/s] of every contact point (world kinematics ``kin``
        of :meth:`workbench.spatial.model.Model.kinematics`)."""
        R, A, V, W = kin
        g = np.empty(self.n_points); gd = np.empty(self.n_points)
        for k, p in enumerate(self.points):
            i, j = self.data[p.joint][:2]
            delta, n, Qi, Qj = self._geometry(p, R, A)
            g[k] = delta
            gd[k] = (self._velocity(j, Qj, R, V, W) - self._velocity(i, Qi, R, V, W)) @ n
        return g, gd

    # ------------------------------------------------------------------ forces
    def forces(self, kin, dm, *, record=False):
        """Generalised forces ``Q`` (6 nb), the power the normal forces absorb [W] (``sum f_n
        delta_dot``), the friction power [W] (<= 0) and, with ``record``, the per-point record
        (``N_REC`` columns).  ``dm[k]``: approach speed of point ``k`` at the start of its
        contact [m/s], negative while the contact is open (no force)."""
        R, A, V, W = kin
        nb = self.nb
        Q = np.zeros(6 * nb)
        pc = 0.0; pf = 0.0
        rec = np.zeros((self.n_points, N_REC)) if record else None
        for k, p in enumerate(self.points):
            i, j, *_, ck, cp, fk, fp = self.data[p.joint]
            delta, n, Qi, Qj = self._geometry(p, R, A)
            vr = self._velocity(j, Qj, R, V, W) - self._velocity(i, Qi, R, V, W)
            vn = vr @ n
            fn = 0.0; ft = 0.0; vt = 0.0
            if delta > 0.0 and dm[k] >= 0.0:
                fn = p.share * ck(delta, vn, dm[k], cp)
                if not (math.isfinite(fn) and fn >= 0.0):
                    raise MechanismError(f"clearance joint '{self.joints[p.joint].name}': the contact law "
                                         f"returned {fn!r} at penetration {delta:.6g} m (must be finite and >= 0)")
            F = -fn * n
            if fn > 0.0 and fk is not None and p.kind != KIND_AXIAL:
                vtv = vr - vn * n
                vt = math.sqrt(vtv @ vtv)
                if vt > 0.0:
                    ft = fk(vt, fn, 0.0, fp)[0]
                    if not math.isfinite(ft):
                        raise MechanismError(f"clearance joint '{self.joints[p.joint].name}': the friction law "
                                             f"returned {ft!r} at slip speed {vt:.6g} m/s")
                    F = F + (ft / vt) * vtv
            if fn > 0.0:
                for b, sg, X in ((j, 1.0, Qj), (i, -1.0, Qi)):
                    if b < 0:
                        continue
                    Q[6 * b:6 * b + 3] += sg * F
                    Q[6 * b + 3:6 * b + 6] += A[b].T @ cross(X - R[b], sg * F)
                pc += fn * vn
                pf += ft * vt
            if record:
                rec[k] = (fn, ft, delta, vn, vt, *Qi)
        return Q, pc, pf, rec


    # ------------------------------------------------------------------ compiled path
    def gaps_fast(self, y):
        """:meth:`gaps` of the state ``y`` on the compiled path."""
        from .kernels import G_PEN, G_VN, points_of_state
        R, A, _, _, G = _direct(points_of_state)(y, self.nb, self.pint, self.pflt)
        self._wear_fast(G, R, A)
        return G[:, G_PEN], G[:, G_VN]

    def _wear_fast(self, G, R, A):
        """The worn maps' depths taken off the compiled points' penetrations, in place
        (:mod:`.worn_kernels`)."""
        if self.worn_points:
            from .worn_kernels import take_depths
            _direct(take_depths)(G, R, A, *self._worn_packed)

    def forces_fast(self, y, dm):
        """:meth:`forces` (without the record) of the state ``y`` on the compiled path: one
        compiled call with the laws as C callbacks (:mod:`.compiled_forces`), else (a kernel
        that does not compile as one) the contact points and the assembly compiled and the laws'
        kernels called from Python for the points in contact."""
        if self._load_generated():
            y, dm = np.ascontiguousarray(y, float), np.ascontiguousarray(dm, float)
            Q, pc, pf, bad, kind, value = self._entry(0, y, dm)(y, dm, *self._generated[1])
            if bad >= 0:
                self._raise_bad(bad, kind, value, y)
            return Q, pc, pf
        return self._forces_loop(y, dm)

    def _load_generated(self) -> bool:
        if self._generated is None:
            from . import compiled_forces
            got = compiled_forces.load(self)
            self._generated = (got[0], compiled_forces.arguments(self) + got[1]) if got is not None else False
        return bool(self._generated)

    def _entry(self, which: int, y, dm):
        """The generated forces (``which`` 0) or record (1) as a call that numba does not type
        again (:func:`.compiled_forces.entry`), made for the current arguments."""
        funs, args = self._generated
        got = self._entries.get(which)
        if got is None or got[0] is not args:
            from .compiled_forces import entry
            got = self._entries[which] = (args, entry(funs[which], (y, dm) + args))
        return got[1]

    def record_fast(self, y, dm):
        """:meth:`forces` with the record of the state ``y`` in one compiled call (the output
        samples, the impact table's peaks), or None when a law is not compiled as a C callback:
        ``(Q, rec, normals, R, A, W)`` -- the generalised forces, the ``N_REC`` columns per point
        as :meth:`forces` fills them (the slip speed 0 where no friction acts), the points' unit
        normals ``(npts, 3)`` and the bodies' world kinematics (the ground last)."""
        if not self._load_generated():
            return None
        from .kernels import G_N, G_PEN, G_QI, G_VN, G_VT
        y, dm = np.ascontiguousarray(y, float), np.ascontiguousarray(dm, float)
        Q, fn, ft, G, R, A, W, bad, kind, value = self._entry(1, y, dm)(y, dm, *self._generated[1])
        if bad >= 0:
            self._raise_bad(bad, kind, value, y)
        rec = np.zeros((self.n_points, N_REC))
        rec[:, R_FN] = fn
        rec[:, R_FT] = ft
        rec[:, R_PEN] = G[:, G_PEN]
        rec[:, R_VN] = G[:, G_VN]
        rec[:, R_VT] = np.where((fn > 0.0) & self._rubs, G[:, G_VT], 0.0)
        rec[:, R_QX:R_QZ + 1] = G[:, G_QI:G_QI + 3]
        return Q, rec, G[:, G_N:G_N + 3], R, A, W

    def _raise_bad(self, k, kind, value, y):
        from .kernels import G_PEN, G_VT, points_of_state
        R, A, _, _, G = _direct(points_of_state)(y, self.nb, self.pint, self.pflt)
        self._wear_fast(G, R, A)
        name = self.joints[self.points[k].joint].name
        if kind == 0:
            raise MechanismError(f"clearance joint '{name}': the contact law returned {value!r} at penetration "
                                 f"{G[k, G_PEN]:.6g} m (must be finite and >= 0)")
        raise MechanismError(f"clearance joint '{name}': the friction law returned {value!r} at slip speed "
                             f"{G[k, G_VT]:.6g} m/s")

    def _forces_loop(self, y, dm):
        """:meth:`forces_fast` with the laws called from Python (a law not compiled as a C callback)."""
        from .kernels import G_PEN, G_VN, G_VT, assemble, points_of_state
        R, A, V, W, G = _direct(points_of_state)(y, self.nb, self.pint, self.pflt)
        self._wear_fast(G, R, A)
        fn = np.zeros(self.n_points); ft = np.zeros(self.n_points)
        for k in np.flatnonzero((G[:, G_PEN] > 0.0) & (dm >= 0.0)):
            *_, ck, cp, fk, fp = self.data[self.points[k].joint]
            f = self.share[k] * ck(G[k, G_PEN], G[k, G_VN], dm[k], cp)
            if not (math.isfinite(f) and f >= 0.0):
                raise MechanismError(f"clearance joint '{self.joints[self.points[k].joint].name}': the contact "
                                     f"law returned {f!r} at penetration {G[k, G_PEN]:.6g} m (must be finite and >= 0)")
            fn[k] = f
            if f > 0.0 and fk is not None and not self.axial[k] and G[k, G_VT] > 0.0:
                ft[k] = fk(G[k, G_VT], f, 0.0, fp)[0]
                if not math.isfinite(ft[k]):
                    raise MechanismError(f"clearance joint '{self.joints[self.points[k].joint].name}': the friction "
                                         f"law returned {ft[k]!r} at slip speed {G[k, G_VT]:.6g} m/s")
        return _direct(assemble)(G, fn, ft, self.pint, R, A, self.nb)
