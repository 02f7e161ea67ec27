"""LuGre friction in the spatial Qi joints: the bristle deflections as extra states (regularised path).

A cylindrical or revolute joint whose friction law has internal states (``lugre``: Canudas de Wit,
Olsson, Åström & Lischinsky (1995) eqs. 2-4, normalised by the normal force as the planar
clearance joints use it) runs here, on the reference right-hand side.  Qi, Luo & Huang (2009)
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

State: the model's state (:mod:`.model`) followed by the bristle states of the LuGre joints, in
joint order, zero (relaxed bristles) at the start.  The bristle equation is stiff (time constant
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


def has_states(law) -> bool:
    """True for a friction law with internal states (LuGre)."""
    return law is not None and getattr(type(law), "n_states", 0) != 0


class BristleModel(Model):
    """:class:`~.model.Model` with the bristle states of its LuGre joints appended to the state."""

    def __init__(self, mech: SpatialMechanism):
        super().__init__(mech)
        self.n_base = self.n_state
        self.bristles = {}       # joint name -> (first state index, count, params)
        k = self.n_state
        for j in mech.joints:
            if has_states(j.friction):
                n = 1 if j.type == "revolute" else 2
                self.bristles[j.name] = (k, n, j.friction.params)
                k += n
        self.n_state = k
        self._y = None
        self._zdot = {}

    def _slip(self, cj, sdot, om):
        """The joint's slip vector ``(s_dot, omega R)`` [m/s] of the inner body (the journal)."""
        sg = 1.0 if cj.sleeve == "i" else -1.0
        return np.array([0.0 if cj.type == "revolute" else sg * sdot, sg * om * cj.R])

    def _lugre(self, cj, v):
        """``(k, z_dot)``: the equivalent coefficients ``(k_s, k_r)`` and the bristle rates [m/s]."""
        k0, n, p = self.bristles[cj.name]
        z = np.zeros(2)
        z[2 - n:] = self._y[k0:k0 + n]
        u = math.hypot(v[0], v[1])
        g = p.mu_c + (p.mu_s - p.mu_c) * math.exp(-(u / p.v_s) ** 2)
        zd = v - p.sigma0 * u * z / g
        if n == 1:
            zd[0] = 0.0
        return -(p.sigma0 * z + p.sigma1 * zd + p.sigma2 * v), zd

    def friction(self, D, lam, state):
        out, rec = super().friction(D, lam, state) if len(self.bristles) < self.nf else (
            np.zeros((self.nf, 3)), np.zeros((self.nf, 8)))
        from .joint_friction import cylinder
        for cj in self.friction_joints:
            if cj.name not in self.bristles:
                continue
            P, E, sdot, om = self._friction_frame(cj)
            F, N = self.reaction(cj, D, lam, P)
            v = self._slip(cj, sdot, om)
            kvec, zd = self._lugre(cj, v)
            self._zdot[cj.name] = zd
            kappa = math.hypot(kvec[0], kvec[1])
            sg = 1.0 if cj.sleeve == "i" else -1.0
            # the contact system with the coefficients (k_s, k_r): a law of constant coefficient
            # kappa and a slip vector along -(k_s, k_r)
            d = -kvec / kappa if kappa > 0 else np.zeros(2)
            r = cylinder(sg * (E @ F), sg * (E @ N), lambda s, kappa=kappa: -kappa, d[0], d[1] / cj.R, cj.R, cj.c,
                         cj.type == "revolute")
            Nload = r[2] + r[3] + r[4] + r[5]
            f, m = kvec[0] * Nload, kvec[1] * cj.R * Nload
            out[cj.friction_index] = (sg * f, sg * m, 0.0)
            rec[cj.friction_index] = r[2:] + (sdot, om)
        return out, rec

    def dynamics(self, t, y, alpha, beta, *, record=False, extra_q=None, rows=None):
        self._y = y
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
    ``extras['bristle_deflection']`` (nt, n_lugre, 2) [m]: ``(z_s, z_r)`` per LuGre joint."""
    from scipy.integrate import solve_ivp
    from .solver import initial_state, output_times, to_simulation
    model = BristleModel(mech)
    t0, t1 = settings.t_start, settings.t_end
    y0 = initial_state(model, t0) if initial is None else np.asarray(initial, float)
    alpha, beta = settings.baumgarte_alpha, settings.baumgarte_beta
    times = output_times(settings)
    calls = [0]
    deadline = _time.monotonic() + settings.max_wall_time

    def f(t, y):
        calls[0] += 1
        if _time.monotonic() > deadline:
            raise SolverError(f"the spatial LuGre run reached its wall-time limit at t = {t:.6g} s")
        return model.dynamics(t, y, alpha, beta)

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
    z = np.zeros((len(res.t), len(model.bristles), 2))
    for q, (name, (k0, n, p)) in enumerate(model.bristles.items()):
        z[:, q, 2 - n:] = res.y[k0:k0 + n].T
    sim.extras["bristle_deflection"] = z
    sim.extras["bristle_joint_names"] = list(model.bristles)
    return sim
