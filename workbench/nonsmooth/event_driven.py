"""Event-driven dynamics of mechanisms whose ideal translational joints carry set-valued Coulomb friction.

The method of Wang, Wang & Zhuang (their §2-3), on the workbench's own mechanism tables:

* **Equations.**  First-kind Lagrange equations ``M q'' + Phi_q^T lambda = Q + sum_k W_k F_k``
  with Baumgarte's stabilised constraints ``Phi_q q'' = gamma - 2 alpha Phi' - beta^2 Phi``
  (Baumgarte (1972); Flores, Machado, Seabra & Silva (2011) on the choice of
  alpha, beta), built from the compiled
  mechanism's mass, constraint rows and force elements (:func:`workbench.mbs.kinematics.constraints`,
  :func:`workbench.mbs.equations.element_forces`).  The normal multiplier of a translational
  joint's first row is the normal force of the guide on the slider; its sign says which side of
  the guide touches (their Fig. 1).
* **Friction** of frictional joint k acts along the guide axis ``a`` at the slider point, with
  ``W_k = d s_k / dq`` where ``s_k = a . (P_j - P_i)`` is the slide coordinate, so the slip speed
  is ``v_k = W_k . q'``.  Modes: **slip** ``F_k = -mu |lambda_k| s_k`` with a fixed direction
  ``s_k = +-1`` (``|lambda_k| = sigma_k lambda_k`` with the side ``sigma_k`` fixed within a
  phase keeps the equations linear), or **stick** ``s_k'' = 0`` with ``F_k`` a multiplier bounded
  by ``mu_static |lambda_k|`` (the set-valued Sgn, their eqs 4-5).
* **Events** (terminal events of scipy's ``solve_ivp``, whose dense output locates them by root
  finding): slip velocity through zero (reversal or stick), needed friction reaching
  ``mu_static |lambda|`` (stick -> slip), normal force through zero (the other side touches).
* **At each event** the sides are the solution of the horizontal LCP of their eqs 17-19
  (``lambda = lambda+ - lambda-``, ``|lambda| = lambda+ + lambda-``, ``0 <= lambda+ _|_ lambda- >= 0``),
  reduced to a standard LCP and solved by :func:`workbench.nonsmooth.lcp.lemke`; stick or slip is
  chosen by trying the modes of the joints at rest (stick first) and keeping the first consistent
  one: stick needs ``|F| <= mu_static |lambda|``, slip from rest needs the slip acceleration to
  point the way of the assumed slip (Pfeiffer & Glocker (1996) §4.3's conditions).

**Revolute joints** (friction circle, Qi, Luo & Huang (2009) eq. 53 without axial contacts, as in
:mod:`workbench.mbs.joint_friction`): the pin of radius ``r`` carries the tangential friction
force ``F_k`` at its surface, the moment ``r F_k`` on ``body_j`` (opposite on ``body_i``), with
``W_k = r (e_phi_j - e_phi_i)`` so the slip speed is ``v_k = r (omega_j - omega_i)``.  Stick is
the same linear row ``W_k . q'' = 0`` with the multiplier ``F_k``, ``|F_k| <= mu_static |lambda_k|``;
slip is ``F_k = -mu |lambda_k| s_k`` with ``|lambda_k| = sqrt(lambda_x^2 + lambda_y^2)``, which is
not linear in the multipliers, so no side flag makes it linear and the mode decision is not a
plain LCP.  :meth:`System.evaluate` solves a slip mode by Newton's method on the norms
``n_k = |lambda_k|`` (one linear solve for the frictionless part and one per slipping pin; a
small Newton system in the ``n_k``); :meth:`System.choose` enumerates the modes (stick / slip+ /
slip-) of the joints at rest, and the sides of the translational ones, and keeps the first
combination consistent with the set-valued law (Pfeiffer & Glocker (1996) §4.3: stick needs
``|F| <= mu_static |lambda|``, slip from rest needs the slip acceleration along the slip).  A
mechanism without frictional pins takes the HLCP path above unchanged.  Events of a pin: slip
speed through zero (reversal or stick) and the needed moment reaching ``mu_static r |lambda|``
(stick -> slip); its load ``|lambda|`` has no side.

The phases are integrated by :func:`workbench.nonsmooth.phases.integrate`.  Smooth phases use
``solve_ivp`` (DOP853 by default): between events the right-hand side is
smooth, the events need its dense-output root finding, and the systems are small (a Python
right-hand side is enough; the fast path's compiled integrator does not know set-valued laws).

With ``regularisation = v_eps > 0`` the same code runs the *regularised* law
``F = -mu |lambda| tanh(v / v_eps)`` instead (no stick mode, no slip events): the limit
``v_eps -> 0`` of the regularised model is the set-valued one.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from itertools import product

import numpy as np

from ..errors import SolverError
from ..mbs.compiled import compile_mechanism
from ..mbs.equations import element_forces
from ..mbs.kinematics import constraints
from .events import EV_BREAKAWAY, EV_IMPACT, EV_REVERSAL, EV_SIDE, EV_STICK, EVENT_NAMES  # noqa: F401
from .lcp import lemke
from .pins import PinFrictionJoint, choose_enumerated, pin_newton, pin_row
from .support import is_set_valued

STICK, SLIP_POS, SLIP_NEG = 0, 1, 2
MODE_NAMES = ("stick", "slip_positive", "slip_negative")
#: event kinds: :data:`.events.EVENT_NAMES` (the dataset's ``event_kind`` flags, one table with the impacts)


@dataclass(frozen=True)
class FrictionJoint:
    """A translational joint with set-valued friction, as the solver uses it."""
    name: str
    row: int            # its normal constraint row
    bi: int             # guide body (-1 ground)
    bj: int             # slider body
    si: np.ndarray      # guide point, body-i coordinates [m]
    sj: np.ndarray      # slider point, body-j coordinates [m]
    axis: np.ndarray    # unit axis, body-i coordinates [1]
    mu: float           # kinetic coefficient [1]
    mu_static: float    # static coefficient [1]


def strip_friction(mech):
    """``mech`` with the friction of its ideal joints removed (the tables the fast path compiles)."""
    joints = tuple(dataclasses.replace(j, friction=None) if getattr(j, "friction", None) is not None
                   else j for j in mech.joints)
    return dataclasses.replace(mech, joints=joints)


def _rot(phi):
    c, s = math.cos(phi), math.sin(phi)
    return np.array([[c, -s], [s, c]])


class System:
    """The equations of ``mech`` with its set-valued friction joints.

    Parameters
    ----------
    mech : the mechanism; its ideal translational joints whose friction is set-valued are the
        frictional joints.
    alpha, beta : Baumgarte factors [1/s].
    t0 : assembly time [s].
    regularisation : 0 for the set-valued law; ``v_eps`` [m/s] > 0 for the regularised law
        ``F = -mu |lambda| tanh(v / v_eps)``.
    """

    def __init__(self, mech, *, alpha: float = 5.0, beta: float = 5.0, t0: float = 0.0,
                 regularisation: float = 0.0):
        from ..mbs.solver import assemble
        self.mech = mech
        plain = strip_friction(mech)
        self.q0, self.qd0 = assemble(plain, t0)
        self.cm = compile_mechanism(plain, angles=self.q0[2::3])
        self.alpha, self.beta = float(alpha), float(beta)
        self.v_eps = float(regularisation)
        self.n, self.m = 3 * self.cm.nb, self.cm.n_rows
        fj, pins = [], []
        for k, j in enumerate(mech.joints):
            if not is_set_valued(getattr(j, "friction", None)):
                continue
            if not hasattr(j, "axis"):   # a revolute joint: friction circle
                pins.append(PinFrictionJoint(j.name, int(self.cm.joint_rows[k]), mech.body_index(j.body_i),
                                             mech.body_index(j.body_j), float(j.pin_radius),
                                             float(j.friction.params.mu), float(j.friction.mu_static)))
                continue
            a = np.asarray(j.axis, float)
            fj.append(FrictionJoint(j.name, int(self.cm.joint_rows[k]), mech.body_index(j.body_i),
                                    mech.body_index(j.body_j), mech.point(j.body_i, j.point_i),
                                    mech.point(j.body_j, j.point_j), a / np.linalg.norm(a),
                                    float(j.friction.params.mu), float(j.friction.mu_static)))
        #: the translational joints first (indices ``< nt``), then the pins
        self.nt = len(fj)
        self.fj = fj + pins
        self.nf = len(self.fj)
        self.fj_i = np.array([[f.row, f.bi, f.bj] for f in fj], dtype=np.int64).reshape(-1, 3)
        self.fj_f = np.array([[*f.si, *f.sj, *f.axis, f.mu, f.mu_static] for f in fj],
                             dtype=float).reshape(-1, 8)
        #: True: assemble with the compiled kernel (:func:`.kernels.build_system`); False: the
        #: plain-Python reference assembly (the tests check that the two agree)
        self.compiled = True
        self.driver_rows = np.asarray(self.cm.driver_rows, int)

    # ------------------------------------------------------------------ kinematics of friction
    def slide(self, q, qd, f: FrictionJoint):
        """``W`` (n,), the convective term ``c`` of ``s'' = W.q'' + c`` [m/s^2], the slip speed
        ``v = W.q'`` [m/s], the global axis and the slider point [m]."""
        n = self.n
        W = np.zeros(n)
        if f.bi >= 0:
            ri, phi, wi = q[3 * f.bi:3 * f.bi + 2], q[3 * f.bi + 2], qd[3 * f.bi + 2]
            vi = qd[3 * f.bi:3 * f.bi + 2]
            R = _rot(phi)
        else:
            ri, wi, vi, R = np.zeros(2), 0.0, np.zeros(2), np.eye(2)
        Rj = _rot(q[3 * f.bj + 2])
        rj, vj, wj = q[3 * f.bj:3 * f.bj + 2], qd[3 * f.bj:3 * f.bj + 2], qd[3 * f.bj + 2]
        a = R @ f.axis
        ka = np.array([-a[1], a[0]])
        Ai, Aj = R @ f.si, Rj @ f.sj
        Pj = rj + Aj
        d = Pj - ri - Ai
        cross = lambda u, w: u[0] * w[1] - u[1] * w[0]  # noqa: E731
        W[3 * f.bj:3 * f.bj + 2] = a
        W[3 * f.bj + 2] = cross(Aj, a)
        if f.bi >= 0:
            W[3 * f.bi:3 * f.bi + 2] = -a
            W[3 * f.bi + 2] = -cross(Pj - ri, a)
        ddot = vj + wj * np.array([-Aj[1], Aj[0]]) - vi - wi * np.array([-Ai[1], Ai[0]])
        c = (-wi * wi * (a @ d) + 2.0 * wi * (ka @ ddot)
             + a @ (-wj * wj * Aj + wi * wi * Ai))
        return W, c, float(W @ qd), a, Pj

    def pin_row(self, f):
        """``W`` of pin ``f`` (:func:`.pins.pin_row`)."""
        return pin_row(self.n, f)

    def slip_speed(self, q, qd, k) -> float:
        """Slip speed [m/s] of friction joint ``k`` (translational: along the axis; pin: at its
        surface)."""
        f = self.fj[k]
        if k < self.nt:
            return self.slide(q, qd, f)[2]
        return float(self.pin_row(f) @ qd)

    # ------------------------------------------------------------------ one evaluation
    def evaluate(self, t, q, qd, modes, sides):
        """Accelerations and forces with the joints' ``modes`` and ``sides`` held.

        Returns a dict: ``qdd``, ``lam`` (multipliers), ``F`` (friction force on the slider along
        the axis [N]), ``N`` (normal multipliers ``lambda_k``), ``v``, ``at`` (slip speed and
        acceleration), ``p_drv``, ``p_fric``, ``p_damp`` (power of the drivers, friction
        dissipation and damper dissipation [W]); ``None`` when the system is singular.
        """
        n, m = self.n, self.m
        A, b, kin, stick, svec, Phi, J, Phit, p_damp = self._system(t, q, qd, modes, sides)
        slip_pins = [k for k in range(self.nt, self.nf) if modes[k] != STICK]
        try:
            if slip_pins:
                x, loads = pin_newton(self, A, b, kin, svec, slip_pins)
                if x is None:
                    return None
            else:
                x = np.linalg.solve(A, b)
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(x)):
            return None
        qdd, lam = x[:n], x[n:n + m]
        F = np.zeros(self.nf)
        for i, k in enumerate(stick):
            F[k] = x[n + m + i]
        N = np.array([lam[f.row] if k < self.nt else math.hypot(lam[f.row], lam[f.row + 1])
                      for k, f in enumerate(self.fj)])
        for k, f in enumerate(self.fj):
            if modes[k] != STICK:
                F[k] = -f.mu * svec[k] * (sides[k] * N[k] if k < self.nt else loads[k])
        v = np.array([kk[2] for kk in kin])
        at = np.array([kk[0] @ qdd + kk[1] for kk in kin])
        p_drv = float(sum(lam[r] * Phit[r] for r in self.driver_rows))
        return dict(qdd=qdd, lam=lam, F=F, N=N, v=v, at=at, p_drv=p_drv,
                    p_fric=float(-(F @ v)), p_damp=float(p_damp), J=J, Phi=Phi, Phit=Phit)

    def _system(self, t, q, qd, modes, sides):
        """The linear system ``A x = b`` of one evaluation, ``x = (q'', lambda, F_stick)`` (the
        stick rows of the translational joints, then of the pins); a slipping pin's friction is
        not in it (:func:`.pins.pin_newton`)."""
        nt = self.nt
        out = self._system_t(t, q, qd, list(modes)[:nt], np.asarray(sides, float).reshape(-1)[:nt])
        if self.nf == nt:
            return out
        A, b, kin, stick, svec, Phi, J, Phit, pd = out
        n = self.n
        kin, stick, svec = list(kin), list(stick), np.concatenate([svec, np.zeros(self.nf - nt)])
        rows = []
        for k in range(nt, self.nf):
            W = self.pin_row(self.fj[k])
            v = float(W @ qd)
            kin.append((W, 0.0, v))
            if modes[k] == STICK:
                stick.append(k); rows.append((W, -2.0 * self.alpha * v))
            else:
                svec[k] = self._sgn(modes[k], v)
        if rows:
            size = A.shape[0] + len(rows)
            A2, b2 = np.zeros((size, size)), np.zeros(size)
            A2[:A.shape[0], :A.shape[0]] = A; b2[:A.shape[0]] = b
            for i, (W, rhs) in enumerate(rows):
                c = A.shape[0] + i
                A2[:n, c] = -W; A2[c, :n] = W; b2[c] = rhs
            A, b = A2, b2
        return A, b, kin, stick, svec, Phi, J, Phit, pd

    def _system_t(self, t, q, qd, modes, sides):
        """:meth:`_system` of the translational joints (compiled or reference assembly)."""
        if not self.compiled:
            return self._system_reference(t, q, qd, modes, sides)
        from .kernels import build_system
        n, m, cm = self.n, self.m, self.cm
        md = np.asarray(modes, dtype=np.int64).reshape(-1)
        nt = self.nt
        stick = [k for k in range(nt) if md[k] == STICK]
        size = n + m + len(stick)
        A, b = np.empty((size, size)), np.zeros(size)
        W, c, v, svec = np.zeros((nt, n)), np.zeros(nt), np.zeros(nt), np.zeros(nt)
        Phi, J, Phit = np.zeros(m), np.zeros((m, n)), np.zeros(m)
        pd = build_system(float(t), q, qd, cm.mass, cm.cons_i, cm.cons_f, cm.drv_f, cm.frc_i,
                          cm.frc_f, cm.gravity, m, self.alpha, self.beta, self.fj_i, self.fj_f, md,
                          np.asarray(sides, dtype=float).reshape(-1), self.v_eps, A, b, W, c, v,
                          svec, Phi, J, Phit)
        kin = [(W[k], c[k], v[k]) for k in range(nt)]
        return A, b, kin, stick, svec, Phi, J, Phit, pd

    def _system_reference(self, t, q, qd, modes, sides):
        """:meth:`_system` in plain Python and numpy (the reference path)."""
        n, m = self.n, self.m
        cm = self.cm
        Q = np.zeros(n)
        p_damp = element_forces(q, qd, Q, cm.frc_i, cm.frc_f, cm.gravity, cm.mass)
        Phi, J, gam, Phit = np.zeros(m), np.zeros((m, n)), np.zeros(m), np.zeros(m)
        if m:
            constraints(t, q, qd, cm.cons_i, cm.cons_f, cm.drv_f, Phi, J, gam, Phit)
        ft = self.fj[:self.nt]
        kin = [self.slide(q, qd, f) for f in ft]
        stick = [k for k in range(self.nt) if modes[k] == STICK]
        size = n + m + len(stick)
        A = np.zeros((size, size))
        b = np.zeros(size)
        A[:n, :n] = np.diag(cm.mass)
        A[:n, n:n + m] = J.T
        A[n:n + m, :n] = J
        b[:n] = Q
        b[n:n + m] = gam - 2.0 * self.alpha * (J @ qd + Phit) - self.beta ** 2 * Phi
        for i, k in enumerate(stick):
            W, c, v = kin[k][:3]
            A[:n, n + m + i] = -W
            A[n + m + i, :n] = W
            b[n + m + i] = -c - 2.0 * self.alpha * v
        svec = np.zeros(self.nt)
        for k, f in enumerate(ft):
            if modes[k] == STICK:
                continue
            svec[k] = self._sgn(modes[k], kin[k][2])
            # F_k = -mu s |lambda_k| = -mu s sigma lambda_k moved to the left-hand side
            A[:n, n + f.row] += f.mu * svec[k] * sides[k] * kin[k][0]
        return A, b, kin, stick, svec, Phi, J, Phit, p_damp

    def _sgn(self, mode, v):
        if self.v_eps > 0.0:
            return math.tanh(v / self.v_eps)
        return 1.0 if mode == SLIP_POS else -1.0

    # ------------------------------------------------------------------ the HLCP
    def hlcp(self, t, q, qd, modes):
        """The sides of the slipping joints from the horizontal LCP of Wang, Wang & Zhuang
        (their eqs 17-19), as the standard LCP ``w = M z + q`` with ``w = lambda+``,
        ``z = lambda-`` (:func:`lemke`).  Returns ``(sides, (M, q))``; stick joints get the sign
        of their multiplier (their equations are linear in it).  ``None`` when singular or the
        LCP has no solution."""
        slip = [k for k in range(self.nf) if modes[k] != STICK]
        A0, b, kin, stick, svec, *_ = self._system(t, q, qd, modes, np.zeros(self.nf))
        try:
            lu = np.linalg.solve(A0, np.column_stack([b] + [self._g(A0.shape[0], k, kin, svec)
                                                        for k in slip]))
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(lu)) or np.linalg.cond(A0) > 1e13:
            return None
        n = self.n
        rows = [n + self.fj[k].row for k in range(self.nf)]
        N0 = lu[rows, 0]
        base_sides = np.where(N0 >= 0.0, 1.0, -1.0)
        if not slip:
            return base_sides, None
        # A0 x + sum_l g_l |lambda_l| = b  =>  lambda = y0 - G |lambda| on the slipping joints
        y0 = N0[slip]
        G = lu[[rows[k] for k in slip], 1:]
        I = np.eye(len(slip))
        try:
            Mlcp = np.linalg.solve(I + G, I - G)
            qlcp = np.linalg.solve(I + G, y0)
        except np.linalg.LinAlgError:
            return None
        res = lemke(Mlcp, qlcp)
        if res.status != "solved":
            return None
        plus, minus = res.w, res.z
        sides = base_sides.copy()
        for c, k in enumerate(slip):
            sides[k] = -1.0 if minus[c] > plus[c] else 1.0
        return sides, (Mlcp, qlcp)

    # ------------------------------------------------------------------ modes at an event
    def _g(self, size, k, kin, svec):
        """Column of joint k's friction per unit ``|lambda_k|`` in the force rows."""
        g = np.zeros(size)
        g[:self.n] = self.fj[k].mu * svec[k] * kin[k][0]
        return g

    def choose(self, t, q, qd, no_stick=()):
        """Modes and sides consistent with the set-valued law at ``(t, q, qd)``.

        A joint that slides keeps its direction; a joint at rest (``|v|`` below a tolerance) tries
        stick (unless in ``no_stick``), then slip either way, the first consistent combination
        winning.  Raises :class:`SolverError` when no combination is consistent.
        """
        scale = max(1.0, float(np.abs(qd).max(initial=0.0)))
        vtol = 1e-9 * scale
        if self.nf > self.nt:
            return choose_enumerated(self, t, q, qd, no_stick, vtol)
        if self.v_eps > 0.0:
            modes = [SLIP_POS] * self.nf
            got = self.hlcp(t, q, qd, modes)
            if got is None:
                raise SolverError(f"t = {t:.9g} s: the regularised friction problem has no solution")
            return modes, got[0]
        cands = []
        for k, f in enumerate(self.fj):
            v = self.slide(q, qd, f)[2]
            if abs(v) > vtol:
                cands.append([SLIP_POS if v > 0 else SLIP_NEG])
            else:
                cands.append(([] if k in no_stick else [STICK]) + [SLIP_POS, SLIP_NEG])
        for combo in product(*cands):
            modes = list(combo)
            got = self.hlcp(t, q, qd, modes)
            if got is None:
                continue
            sides = got[0]
            e = self.evaluate(t, q, qd, modes, sides)
            if e is None:
                continue
            ok = True
            for k, f in enumerate(self.fj):
                if modes[k] == STICK:
                    ok &= abs(e["F"][k]) <= f.mu_static * abs(e["N"][k]) * (1 + 1e-9) + 1e-12
                elif abs(e["v"][k]) <= vtol:
                    s = 1.0 if modes[k] == SLIP_POS else -1.0
                    ok &= s * e["at"][k] > 0.0
            if ok:
                return modes, sides
        raise SolverError(f"t = {t:.9g} s: no stick/slip combination of the joints "
                          f"{[f.name for f in self.fj]} is consistent with Coulomb's law "
                          f"(Painleve's paradox or a jammed mechanism)")

