"""LuGre friction in the spatial Qi joints: the bristle deflections as extra states (regularised path).

A cylindrical, revolute or universal joint whose friction law has internal states (``lugre``:
Canudas de Wit, Olsson, Åström & Lischinsky (1995) eqs. 2-4, normalised by the normal force as the
planar clearance joints use it) runs here, on the reference right-hand side.  Qi, Luo & Huang (2009)
eq. 20 makes the joint's friction isotropic in the plane of the slip vector ``v = (s_dot, omega R)``
(both contact points slide at the same speed), so the bristle deflection is taken as a vector in
that plane, ``z = (z_s, z_r)`` [m] (a revolute joint: ``z_r`` only, ``s_dot = 0``), with the
isotropic extension of the LuGre law:

    dz/dt = v - sigma0 |v| z / g(|v|),        g(u) = mu_c + (mu_s - mu_c) exp(-(u / v_s)^2)
    (k_s, k_r) = -(sigma0 z + sigma1 dz/dt + sigma2 v)

``(k_s, k_r)`` are the equivalent coefficients of their eq. 19-20 (friction force ``k_s N``, moment
``k_r R N``, ``N = F1 + F2 (+ g3 + g4)`` from the contact system with these coefficients,
:func:`~workbench.spatial.joint_friction.cylinder`).  At steady slip ``z`` settles to ``g v /
(sigma0 |v|)`` and the coefficients to ``-g(|v|) v / |v| - sigma2 v``: Coulomb's law of the
set-valued path with ``mu = g`` when ``mu_c = mu_s`` and ``sigma2 = 0``; at rest under a small
force ``F`` the joint deflects elastically, ``sigma0 z N = F`` (pre-sliding).

**Universal joint** (their eqs. 54-58: two revolute journals through a massless cross).  Each
journal is a revolute joint of its own: journal 1 turns about the cross axis ``a`` of body i at
``omega_1 = (omega_j - omega_i) . a``, journal 2 about the axis ``b`` of body j at ``omega_2 =
(omega_j - omega_i) . b`` (the axes of :func:`~workbench.spatial.joint_friction.universal`), so
each carries one bristle deflection, the rotation component ``z_k`` [m] with slip ``v_k = omega_k
R_k`` and coefficient ``k_k = -(sigma0 z_k + sigma1 dz_k/dt + sigma2 v_k)``: friction moment ``k_k
R_k N_k``, ``N_k`` the journal's load from its contact system, which carries the other journal's
moment across its axis and its axial load at the tilt point of their eq. 36 or on the flush face (as
for the memoryless laws).  At
rest under a steady moment ``M`` below breakaway a journal deflects, ``sigma0 z_k N_k R_k = M``.

State: the model's state (:mod:`.model`) followed by the bristle states of the LuGre joints, in
joint order (a universal joint: journal 1, journal 2), zero (relaxed bristles) at the start.  The bristle equation is stiff (time constant
``g / (sigma0 |v|)``, microseconds at ordinary slip speeds): use an implicit ``method`` (``Radau``,
``BDF``, ``LSODA``); the dissipated energy counts the friction's work, which includes the bristles'
stored elastic energy (``sigma0 |z|^2 N / 2``, of order ``mu_s^2 N / sigma0``).
"""
from __future__ import annotations

import math
import time as _time

import numpy as np

from ..errors import SolverError
from .mechanism import SpatialMechanism
from .model import Model
from .rotation import cross


def has_states(law) -> bool:
    """True for a friction law with internal states (LuGre)."""
    return law is not None and getattr(type(law), "n_states", 0) != 0


class BristleModel(Model):
    """:class:`~.model.Model` with the bristle states of its LuGre joints appended to the state."""

    def __init__(self, mech: SpatialMechanism):
        super().__init__(mech)
        self.n_base = self.n_state
        self.bristles = {}       # joint name -> (first state index, count, params)
        #: the dataset's rows: (name, state index of the axial component or -1, of the rotation
        #: component); a universal joint has one row per journal, ``<joint>/journal_i``, ``/journal_j``
        self.units = []
        k = self.n_state
        for j in mech.joints:
            if has_states(j.friction):
                n = 2 if j.type in ("cylindrical", "universal") else 1
                self.bristles[j.name] = (k, n, j.friction.params)
                if j.type == "universal":
                    self.units += [(f"{j.name}/journal_i", -1, k), (f"{j.name}/journal_j", -1, k + 1)]
                else:
                    self.units.append((j.name, k if n == 2 else -1, k + n - 1))
                k += n
        self.n_state = k
        self._y = None
        self._zdot = {}
        self._kz = {}            # per right-hand side: joint name -> (coefficients, rates, slip)

    def _slip(self, cj, sdot, om):
        """The joint's slip vector [m/s]: ``(s_dot, omega R)`` of the inner body (the journal); a
        universal joint: its journals' ``(omega_1 R_1, omega_2 R_2)``."""
        if cj.type == "universal":
            a, b, _ = self._cross_axes(cj)
            wr = self.W[cj.j] - self.W[cj.i]
            return np.array([(wr @ a) * cj.R, (wr @ b) * cj.R2])
        sg = 1.0 if cj.sleeve == "i" else -1.0
        return np.array([0.0 if cj.type == "revolute" else sg * sdot, sg * om * cj.R])

    def _cross_axes(self, cj):
        """The universal joint's frame ``(a, b, n)`` (world): ``a`` on body i, ``b`` on body j."""
        a = self.A[cj.i] @ cj.frame_i[2]
        b = self.A[cj.j] @ cj.frame_j[2]
        n = cross(a, b)
        return a, b, n / math.sqrt(n @ n)

    @staticmethod
    def _rate(p, z, v):
        """One bristle's rate ``dz/dt`` [m/s] and its coefficient ``-(sigma0 z + sigma1 dz/dt +
        sigma2 v)`` [1] at the slip ``v`` [m/s] (a vector: the isotropic law in the slip plane)."""
        u = float(np.linalg.norm(v))
        g = p.mu_c + (p.mu_s - p.mu_c) * math.exp(-(u / p.v_s) ** 2)
        zd = v - p.sigma0 * u * z / g
        return -(p.sigma0 * z + p.sigma1 * zd + p.sigma2 * v), zd

    def _lugre(self, cj, v):
        """``(k, z_dot)``: the equivalent coefficients ``(k_s, k_r)`` (a universal joint: its
        journals' ``(k_1, k_2)``) and the bristle rates [m/s]."""
        k0, n, p = self.bristles[cj.name]
        z = np.zeros(2)
        z[2 - n:] = self._y[k0:k0 + n]
        if cj.type == "universal":    # two journals, each a scalar bristle on its own slip
            k1, zd1 = self._rate(p, z[:1], v[:1])
            k2, zd2 = self._rate(p, z[1:], v[1:])
            return np.concatenate([k1, k2]), np.concatenate([zd1, zd2])
        kvec, zd = self._rate(p, z, v)
        if n == 1:
            zd[0] = 0.0        # a revolute joint does not slide (z_s = v_s = 0: k_s = 0)
        return kvec, zd

    def friction(self, D, lam, state):
        out, rec = super().friction(D, lam, state) if len(self.bristles) < self.nf else (
            np.zeros((self.nf, 3)), np.zeros((self.nf, 8)))
        from .joint_friction import cylinder, universal
        for cj in self.friction_joints:
            if cj.name not in self.bristles:
                continue
            P, E, sdot, om = self._friction_frame(cj)
            F, N = self.reaction(cj, D, lam, P)
            if cj.name not in self._zdot:     # the bristles' rates depend on the state alone
                v = self._slip(cj, sdot, om)
                self._kz[cj.name] = self._lugre(cj, v) + (v,)
                self._zdot[cj.name] = self._kz[cj.name][1]
            kvec, zd, v = self._kz[cj.name]
            k = cj.friction_index
            if cj.type == "universal":
                # each journal a law of constant coefficient |k_q| slipping along -k_q: the
                # coefficient k_r of joint_friction.coefficients is then k_q itself
                a, b, n = self._cross_axes(cj)
                m1, m2, L1, L2 = universal((F @ a, F @ b, F @ n), N @ n, state[k, 1], state[k, 2],
                                           lambda s, q=abs(kvec[0]): -q, -kvec[0], -kvec[1], cj.R, cj.c, cj.R2, cj.c2,
                                           law_j=lambda s, q=abs(kvec[1]): -q)
                out[k] = (0.0, m1, m2)
                rec[k] = (L1, L2, 0, 0, 0, 0, 0, v[0] / cj.R)
                continue
            kappa = math.hypot(kvec[0], kvec[1])
            sg = 1.0 if cj.sleeve == "i" else -1.0
            # the contact system with the coefficients (k_s, k_r): a law of constant coefficient
            # kappa and a slip vector along -(k_s, k_r)
            d = -kvec / kappa if kappa > 0 else np.zeros(2)
            r = cylinder(sg * (E @ F), sg * (E @ N), lambda s, kappa=kappa: -kappa, d[0], d[1] / cj.R, cj.R, cj.c,
                         cj.type == "revolute")
            Nload = r[2] + r[3] + r[4] + r[5]
            f, m = kvec[0] * Nload, kvec[1] * cj.R * Nload
            out[k] = (sg * f, sg * m, 0.0)
            rec[k] = r[2:] + (sdot, om)
        return out, rec

    def dynamics(self, t, y, alpha, beta, *, record=False, extra_q=None, rows=None):
        self._y = y
        self._zdot, self._kz = {}, {}
        res = super().dynamics(t, y, alpha, beta, record=record, extra_q=extra_q, rows=rows)
        yd = res[0] if record else res
        for name, (k0, n, p) in self.bristles.items():
            if name not in self._zdot:    # no friction evaluated (no joint rows): the rates alone
                cj = next(c for c in self.friction_joints if c.name == name)
                _, _, sdot, om = self._friction_frame(cj)
                self._zdot[name] = self._lugre(cj, self._slip(cj, sdot, om))[1]
            yd[k0:k0 + n] = self._zdot[name][2 - n:]
        self._zdot = {}
        return res


def simulate(mech: SpatialMechanism, settings, *, initial=None):
    """Run ``mech`` (with LuGre Qi joints) on the reference right-hand side with the bristle states;
    a :class:`~workbench.mbs.solution.Simulation` as :func:`.solver.simulate`, with
    ``extras['bristle_deflection']`` (nt, n_units, 2) [m]: ``(z_s, z_r)`` per LuGre joint, a
    universal joint's journals as two units ``(0, z_k)`` (``extras['bristle_joint_names']``:
    ``<joint>``, ``<joint>/journal_i``, ``<joint>/journal_j``)."""
    from scipy.integrate import solve_ivp
    from .solver import initial_state, output_times, to_simulation, wall_guarded
    model = BristleModel(mech)
    t0, t1 = settings.t_start, settings.t_end
    y0 = initial_state(model, t0) if initial is None else np.asarray(initial, float)
    alpha, beta = settings.baumgarte_alpha, settings.baumgarte_beta
    times = output_times(settings)
    f, calls = wall_guarded(lambda t, y: model.dynamics(t, y, alpha, beta), settings, "the spatial LuGre run")

    kw = {"max_step": settings.max_step} if settings.max_step and settings.max_step > 0 else {}
    w0 = _time.perf_counter()
    res = solve_ivp(f, (t0, t1), y0, method=getattr(settings, "method", "DOP853") or "DOP853", t_eval=times,
                    rtol=settings.rtol, atol=settings.atol, first_step=min(settings.first_step, t1 - t0), **kw)
    wall = _time.perf_counter() - w0
    if not res.success:
        raise SolverError(f"the spatial LuGre run failed at t = {res.t[-1] if len(res.t) else t0:.6g} s: "
                          f"{res.message}")
    sim = to_simulation(model, res.t, res.y.T, alpha, beta, {"rhs_calls": calls[0], "wall_time": wall,
                                                             "nfev": int(res.nfev), "path": "scipy"})
    z = np.zeros((len(res.t), len(model.units), 2))
    for q, (name, ka, kr) in enumerate(model.units):
        if ka >= 0:
            z[:, q, 0] = res.y[ka]
        z[:, q, 1] = res.y[kr]
    sim.extras["bristle_deflection"] = z
    sim.extras["bristle_joint_names"] = [u[0] for u in model.units]
    return sim
