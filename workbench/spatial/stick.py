"""Set-valued stick and slip of the spatial Qi joints, event to event (the reference path).

A cylindrical, revolute or universal joint whose friction law is set-valued (``coulomb_set_valued``:
kinetic ``mu``, static ``mu_static``) runs here instead of through a regularisation velocity.  The
stick **units** are the cylindrical and revolute joints and each journal of a universal joint
(:mod:`.stick_journals`: its own lock row, bound and events); the units at rest at one instant take
one coupled stick test (:mod:`.stick_modes`), which replaces the per-joint test described below
wherever several units are at rest.  The method
is the event-driven one of the planar engine (:mod:`workbench.nonsmooth.event_driven`; Wang, Wang
& Zhuang §2-3; Pfeiffer & Glocker (1996) §4.3): smooth phases between events located by the
event functions of ``scipy.integrate.solve_ivp``, the mode of each joint fixed within a phase.

**The slip vector.**  The friction of Qi, Luo & Huang (2009) eq. 20 is isotropic in the plane of
the relative sliding speed ``s_dot`` and the rim speed ``omega R``: with ``v = sqrt(s_dot^2 +
omega^2 R^2)`` the equivalent coefficients are ``k_s = -mu s_dot / v``, ``k_r = -mu omega R / v``,
so the axial friction force and moment on the inner body are ``(f, m / R) = -mu N (s_dot, omega R)
/ v`` with ``N = F1 + F2`` (their eqs. 25-26; a revolute joint: ``k_s = 0`` and ``N = F1 + F2 + g3 +
g4``, their eq. 53).  Its set-valued extension is the disk ``|(f, m / R)| <= mu N``.  Hence:

* there is one stick state per joint, ``s_dot = omega = 0`` (a revolute joint: ``omega = 0``); an
  axial speed of zero while the joint turns is a slip state with ``k_s = 0``, in which (without an
  axial load) ``s_dot`` stays zero by itself;
* **slip** phases integrate :class:`~workbench.spatial.model.Model` with the law's slip branch
  ``mu sgn(v)`` (Coulomb without regularisation; ``N`` from the reactions as there: Qi, Luo &
  Huang (2009) eqs. 12-26, 27-53); a phase that starts from rest takes its direction from the
  needed friction (below) until the slip vector is measurable (:data:`V_FLOOR`);
* **events in slip**: a component of the slip vector through zero (``omega``, and ``s_dot`` for a
  cylindrical joint; only the components moving at the start of the phase are watched, each for
  its crossing from the side it started on).  At such an event ``v`` is compared with
  :data:`V_TOL`: above it the other component carries the slip and the phase goes on; at or below
  it the joint is at rest (``v = 0`` is reached as a touch of ``v``, the crossing of the last
  moving component) and the stick test follows;
* **stick test**: the joint's sliding and turning are locked by two added constraint rows (the
  ``slide`` and ``angle`` driver rows of the model, held at their values at the event; a revolute
  joint: ``angle`` only); their multipliers are the needed friction ``(f_n, m_n)``, and the
  velocities are first projected onto the locked manifold (a plastic impulse of size ``v <=
  V_TOL``, its energy booked as dissipated).  ``N`` depends on the needed friction through the
  contact system (the coefficients ``k_s = f_n / N``, ``k_r = m_n / (R N)`` enter its matrix, Qi,
  Luo & Huang (2009) eq. 19): the small implicit problem ``N = N(T / N)``, ``T = |(f_n, m_n / R)|``,
  is solved by **fixed-point iteration on the scalar N** from the frictionless loads (a
  contraction for the coefficients below 1), with a secant step on ``N - N(T/N)`` when it has not
  met :data:`N_RTOL` after :data:`N_ITER` passes.  Stick holds when ``T <= mu_static N``;
* **stuck** phases integrate the locked model (the joint does no work: its rows hold ``v = 0``);
  their event is the margin ``mu_static N - T`` through zero, and the joint then slips in the
  direction that makes its friction point the way of the needed force (slip vector ``-(f_n, m_n /
  R) / T``), the velocity zero at the start.

Energy: the slip friction's power ``f s_dot + m omega <= 0`` goes to the dissipated quadrature as
in the regularised runs; a stuck joint dissipates nothing; the projections' energy (of order
``m V_TOL^2``) is added to the dissipated energy and reported (``stats['projection_energy']``).
"""
from __future__ import annotations

import dataclasses
import math
import time as _time

import numpy as np

from ..errors import MechanismError, SolverError
from .mechanism import Driver, DriverFunction, SpatialMechanism
from . import stick_journals
from .model import Model

#: a slip vector [m/s] at or below this at a component's zero crossing is a joint at rest
V_TOL = 1e-9
#: below this slip speed [m/s] a slip phase takes its direction from the phase's start (from rest)
V_FLOOR = 1e-13
#: the fixed point of the normal load in stick: passes and relative tolerance
N_ITER = 60
N_RTOL = 1e-13
#: the largest number of phases of one run (a guard against Zeno sequences)
MAX_PHASES = 100000


def is_set_valued(law) -> bool:
    return law is not None and bool(getattr(type(law), "set_valued", False))


def set_valued_joints(mech: SpatialMechanism) -> list[str]:
    """Names of the joints whose friction law is set-valued."""
    return [j.name for j in mech.joints if is_set_valued(j.friction)]


def _static(law) -> float:
    return float(law.mu_static) if hasattr(law, "mu_static") else float(law.params.mu)


def unit_label(unit) -> str:
    """``"joint"`` for a cylindrical or revolute joint, ``"joint/journal_i"`` (``_j``) for a journal
    of a universal joint."""
    name, q = unit
    return name if q == 0 else f"{name}/{('journal_i', 'journal_j')[q - 1]}"


class _PhaseModel(Model):
    """The model of one phase: the set-valued cylindrical and revolute joints in ``stuck`` carry
    lock rows instead of friction, a universal joint's stuck journals a lock row each
    (:mod:`.stick_journals`, appended after the drivers); ``seeds`` (unit -> unit slip direction
    ``(s_dot, omega R)``) give the slip direction while ``v < V_FLOOR``."""

    def __init__(self, mech, seeds, journal_locks=()):
        super().__init__(mech)
        self.seeds = seeds
        self._seeding = False
        self.journal_locks = {}          # joint name -> {journal: row}
        for name, q, th0 in journal_locks:
            cj = next(c for c in self.joints if c.name == name)
            self.drivers.append((cj, stick_journals.JOURNAL_COORDS[q], DriverFunction((th0,)), self.n_rows))
            self.journal_locks.setdefault(name, {})[q] = self.n_rows
            self.n_rows += 1

    def _driver_row(self, t, cj, coord, f, k, R, A, V, W, Phi, Phit, Jw, gam):
        if coord in ("journal_i", "journal_j"):
            return stick_journals.lock_row(cj, coord, f, k, R, A, V, W, Phi, Phit, Jw, gam, t)
        return super()._driver_row(t, cj, coord, f, k, R, A, V, W, Phi, Phit, Jw, gam)

    def friction(self, D, lam, state):
        self._seeding = True
        try:
            out, rec = super().friction(D, lam, state)
        finally:
            self._seeding = False
        for cj in self.friction_joints:
            if cj.type == "universal":
                seeds = {q: self.seeds[(cj.name, q)][1] for q in (1, 2) if (cj.name, q) in self.seeds}
                out[cj.friction_index], rec[cj.friction_index] = stick_journals.phase_friction(
                    self, cj, D, lam, state, self.journal_locks.get(cj.name, {}), seeds, V_FLOOR)
        return out, rec

    def _friction_frame(self, cj):
        P, E, sdot, om = super()._friction_frame(cj)
        if self._seeding and (cj.name, 0) in self.seeds and math.hypot(sdot, om * cj.R) < V_FLOOR:
            ds, dr = self.seeds[(cj.name, 0)]
            sdot, om = V_FLOOR * ds, V_FLOOR * dr / cj.R
        return P, E, sdot, om


class StickSlip:
    """The phases of a mechanism with set-valued Qi joints: its models by mode, the event
    functions, the stick test.  The stick units are ``(joint, 0)`` for a cylindrical or revolute
    joint and ``(joint, 1)``, ``(joint, 2)`` for the two journals of a universal joint."""

    def __init__(self, mech: SpatialMechanism, alpha: float, beta: float):
        self.mech, self.alpha, self.beta = mech, alpha, beta
        self.base = Model(mech)
        self.sv = {j.name: j for j in mech.joints if is_set_valued(j.friction)}
        self.cj = {c.name: c for c in self.base.joints}
        self.units = [(n, q) for n, j in self.sv.items() for q in ((1, 2) if j.type == "universal" else (0,))]

    def radius(self, unit) -> float:
        """The friction radius [m] of a stick unit."""
        cj = self.cj[unit[0]]
        return cj.R2 if unit[1] == 2 else cj.R

    def speed(self, c) -> float:
        """The slip speed [m/s] of a unit's coordinates ``c`` (with its radius appended)."""
        return math.hypot(c[2], c[3] * c[4])

    # ------------------------------------------------------------------ models
    def coordinates(self, y):
        """``{unit: (slide [m], angle [rad], s_dot [m/s], omega [rad/s], R [m])}`` of the stick units."""
        m = self.base
        kin = m.kinematics(y)
        m.R, m.A, m.V, m.W = kin
        out = {}
        for name in self.sv:
            cj = self.cj[name]
            R, A = kin[0], kin[1]
            if cj.type == "universal":
                w1, w2 = stick_journals.rates(cj, A, kin[3])
                out[(name, 1)] = (0.0, stick_journals.angle(cj, A, 1), 0.0, w1, cj.R)
                out[(name, 2)] = (0.0, stick_journals.angle(cj, A, 2), 0.0, w2, cj.R2)
                continue
            si, sj = A[cj.i] @ cj.s_i, A[cj.j] @ cj.s_j
            d = R[cj.j] + sj - R[cj.i] - si
            zi = A[cj.i] @ cj.frame_i[2]
            _, _, sdot, om = m._friction_frame(cj)
            out[(name, 0)] = (float(zi @ d), m.joint_angle(cj, A), sdot, om, cj.R)
        return out

    def model(self, stuck: dict, seeds: dict) -> _PhaseModel:
        """The phase model: units in ``stuck`` (unit -> (slide, angle) held) locked, the others
        with their law's slip branch."""
        joints, drivers, locks = [], list(self.mech.drivers), []
        for j in self.mech.joints:
            if (j.name, 0) in stuck:
                s0, th0 = stuck[(j.name, 0)]
                joints.append(dataclasses.replace(j, friction=None))
                drivers.append(Driver(f"{j.name}#stick_angle", j.name, DriverFunction((th0,)), "angle"))
                if j.type == "cylindrical":
                    drivers.append(Driver(f"{j.name}#stick_slide", j.name, DriverFunction((s0,)), "slide"))
            else:
                joints.append(j)
                locks += [(j.name, q, stuck[(j.name, q)][1]) for q in (1, 2) if (j.name, q) in stuck]
        # a copy of the seeds: the run's own dict changes at later events, and the phase's output
        # samples are recorded by this model afterwards
        return _PhaseModel(dataclasses.replace(self.mech, joints=tuple(joints), drivers=tuple(drivers)), dict(seeds),
                           locks)

    def lock_rows(self, model: Model, name: str) -> tuple[int, int | None]:
        """Rows of the angle and (cylindrical) slide locks of joint ``name`` in ``model``."""
        ang = sl = None
        for cj, coord, f, row in model.drivers:
            if cj.name == name and row >= self.base.n_rows:
                if coord == "angle":
                    ang = row
                elif coord == "slide":
                    sl = row
        return ang, sl

    # ------------------------------------------------------------------ stick test
    def needed(self, model: Model, t, y):
        """Per stuck unit of ``model``: ``(f_n [N], m_n [N m], N [N], (F1, F2, g3, g4), margin [N])``:
        the needed friction on body j (along / about the unit's axis), the contact loads with that
        friction, and ``mu_static N - T``, ``T = |(f_n, m_n / R)|``."""
        yd, rec = model.dynamics(t, y, self.alpha, self.beta, record=True)
        D, lam = rec["D"], rec["lam"]
        out = {}
        for name, j in self.sv.items():
            cj = next(c for c in model.joints if c.name == name)
            if j.type == "universal":
                locks = model.journal_locks.get(name, {})
                if not locks:
                    continue
                for q, (m_n, Nload, loads) in stick_journals.needed(model, cj, D, lam, rec["friction"],
                                                                    locks).items():
                    R = cj.R2 if q == 2 else cj.R
                    out[(name, q)] = (0.0, m_n, Nload, loads, _static(j.friction) * Nload - abs(m_n) / R)
                continue
            ang, sl = self.lock_rows(model, name)
            if ang is None:
                continue
            # a lock row's force on body j is -lambda along z_i (slide) / about z_i (angle)
            f_n = -lam[sl] if sl is not None else 0.0
            m_n = -lam[ang]
            P, E, _, _ = model._friction_frame(cj)
            F, Nm = model.reaction(cj, D, lam, P)
            sg = 1.0 if cj.sleeve == "i" else -1.0
            Nload, loads = contact_load(sg * (E @ F), sg * (E @ Nm), sg * f_n, sg * m_n, cj.R, cj.c,
                                        j.type == "revolute")
            T = math.hypot(f_n, m_n / cj.R)
            out[(name, 0)] = (f_n, m_n, Nload, loads, _static(j.friction) * Nload - T)
        return out

    def slip_load(self, stuck, seeds, t, y, unit) -> float:
        """``N`` [N] of ``unit`` slipping from rest along its seed (the load after the event)."""
        m = self.model(stuck, seeds)
        rec = m.dynamics(t, y, self.alpha, self.beta, record=True)[1]["friction_record"]
        k = next(c.friction_index for c in m.friction_joints if c.name == unit[0])
        return float(rec[k, unit[1] - 1]) if unit[1] else float(rec[k, :4].sum())

    def project(self, model: Model, t, y):
        """``y`` with the velocities projected (mass-weighted, a plastic impulse) onto ``D w =
        -Phi_t`` of ``model``; the kinetic energy removed [J]."""
        y = y.copy()
        kin = model.kinematics(y)
        _, D, Phit, _ = model.constraints(t, kin)
        nb = model.nb
        Minv = np.zeros(6 * nb)
        for b in range(nb):
            Minv[6 * b:6 * b + 3] = 1.0 / model.mass[b]
        Jinv = [np.linalg.inv(model.J[b]) for b in range(nb)]
        w = y[7 * nb:13 * nb].copy()

        def minv(x):
            out = x * Minv
            for b in range(nb):
                out[6 * b + 3:6 * b + 6] = Jinv[b] @ x[6 * b + 3:6 * b + 6]
            return out

        MDt = np.column_stack([minv(D[k]) for k in range(D.shape[0])]) if D.shape[0] else np.zeros((6 * nb, 0))
        r = D @ w + Phit
        mu_ = np.linalg.lstsq(D @ MDt, r, rcond=None)[0]
        wn = w - MDt @ mu_
        ke = lambda v: sum(0.5 * model.mass[b] * v[6 * b:6 * b + 3] @ v[6 * b:6 * b + 3]
                           + 0.5 * v[6 * b + 3:6 * b + 6] @ model.J[b] @ v[6 * b + 3:6 * b + 6] for b in range(nb))
        lost = ke(w) - ke(wn)
        y[7 * nb:13 * nb] = wn
        y[13 * nb + 1] += lost
        return y, lost


def contact_load(F, M, f_n, m_n, R, c, revolute):
    """``N`` [N] (``F1 + F2``, a revolute joint ``F1 + F2 + g3 + g4``) and the loads ``(F1, F2, g3,
    g4)`` of a stuck joint: inner-body reaction ``F``, ``M`` (joint frame, about the sleeve centre)
    and needed friction ``f_n`` [N], ``m_n`` [N m] on the inner body.  Fixed point on ``N``:
    ``k_s = f_n / N``, ``k_r = m_n / (R N)`` in the contact system of Qi, Luo & Huang (2009) eq. 19
    (:func:`workbench.spatial.joint_friction.cylinder`, called with a law of constant coefficient
    ``T / N`` and a slip vector along ``-(f_n, m_n / R)``)."""
    from .joint_friction import cylinder
    if revolute:
        f_n = 0.0
    T = math.hypot(f_n, m_n / R)
    sd, om = (-f_n, -m_n / (R * R)) if T > 0 else (0.0, 0.0)

    def image(N):
        kappa = T / N if N > 0 else 0.0
        r = cylinder(F, M, lambda v: -kappa, sd, om, R, c, revolute)
        return r[2] + r[3] + r[4] + r[5], r[2:6]

    N, loads = image(0.0)
    for _ in range(N_ITER):
        N1, loads = image(N)
        if N1 <= 1e-9 * T:
            return 0.0, loads   # the needed friction exceeds what any load could carry: no stick
        if abs(N1 - N) <= N_RTOL * max(N1, 1e-300):
            return N1, loads
        N = N1
    from scipy.optimize import root_scalar
    sol = root_scalar(lambda x: x - image(x)[0], x0=N, x1=1.01 * N, method="secant", xtol=1e-14 * N)
    if not sol.converged:
        raise MechanismError(f"stick test: the normal load of a stuck joint did not converge (T = {T:.6g} N)")
    return sol.root, image(sol.root)[1]


def simulate(mech: SpatialMechanism, settings, *, initial=None):
    """Run ``mech`` (with set-valued Qi joints) phase to phase; a
    :class:`~workbench.mbs.solution.Simulation` as :func:`.solver.simulate`, with
    ``extras['stick_events']``: ``(time [s], joint, kind, N [N])`` rows (``stick_start``,
    ``stick_to_slip``, ``rest_slip``: at rest but stick does not hold), ``extras['stick_event_units']``
    the unit of each row (:func:`unit_label`: the joint, or a universal joint's journal) and
    ``stats``: phases, events, ``projection_energy`` [J], ``largest_projection`` [m/s],
    ``coupled_rests`` (stick tests of more than one unit), ``inconsistent_rest``."""
    from scipy.integrate import solve_ivp
    from .solver import initial_state, output_times
    from .stick_modes import decide
    alpha, beta = settings.baumgarte_alpha, settings.baumgarte_beta
    ss = StickSlip(mech, alpha, beta)
    base = ss.base
    t0, t1 = settings.t_start, settings.t_end
    y = initial_state(base, t0) if initial is None else np.asarray(initial, float)
    times = output_times(settings)
    deadline = _time.monotonic() + settings.max_wall_time
    method = getattr(settings, "method", "DOP853") or "DOP853"
    kw = {"max_step": settings.max_step} if settings.max_step and settings.max_step > 0 else {}
    stuck: dict = {}     # unit -> (slide, angle) held
    seeds: dict = {}     # unit -> slip direction at the start of the phase (from rest)
    events, units, proj_E, proj_v = [], [], 0.0, 0.0
    counts = {"coupled_rests": 0, "inconsistent_rest": 0}
    segments = []        # (model, sample times, states)
    calls = [0]
    w0 = _time.perf_counter()

    def log(t, u, kind, N):
        events.append((t, u[0], kind, N))
        units.append(unit_label(u))

    def at_rest(t, y, new, force_slip=()):
        """The coupled stick test of the stuck units and the units ``new`` at rest at ``(t, y)``
        (:func:`.stick_modes.decide`): the new modes, the projected state."""
        nonlocal proj_E, proj_v
        c = ss.coordinates(y)
        S = list(stuck) + [u for u in new if u not in stuck]
        if new:
            proj_v = max(proj_v, max(ss.speed(c[u]) for u in new))
        res = decide(ss, t, y, S, force_slip)
        proj_E += res.lost
        counts["coupled_rests"] += len(S) > 1
        counts["inconsistent_rest"] += not res.consistent
        for u in S:
            if u in res.stuck:
                seeds.pop(u, None)
                if u not in stuck:
                    stuck[u] = res.stuck[u]
                    log(t, u, "stick_start", res.need[u][2])
            else:
                seeds[u] = res.seeds[u]
                if u in stuck:
                    del stuck[u]
                    log(t, u, "stick_to_slip", res.locked_need[u][2])
                else:
                    log(t, u, "rest_slip", None)
        for k, (t_, n_, kind, N) in enumerate(events):   # the loads they slip under, the modes known
            if N is None:
                u = next(x for x in ss.units if unit_label(x) == units[k])
                events[k] = (t_, n_, kind, ss.slip_load(stuck, seeds, t, res.y, u))
        return res.y

    # the start: units at rest take the stick test
    c = ss.coordinates(y)
    rest = [u for u in ss.units if ss.speed(c[u]) <= V_TOL]
    if rest:
        y = at_rest(t0, y, rest)
    t = t0
    phases = 0
    while t < t1:
        phases += 1
        if phases > MAX_PHASES:
            raise SolverError(f"the stick-slip run reached {MAX_PHASES} phases at t = {t:.9g} s "
                              f"(a Zeno sequence of events?)")
        model = ss.model(stuck, seeds)
        c = ss.coordinates(y)
        # the way each component leaves zero (a component at rest: the sign of its rate)
        h = 1e-7 * max(t1 - t0, 1e-300)
        cp = ss.coordinates(y + h * model.dynamics(t, y, alpha, beta))
        evs, owners = [], []
        for u in ss.units:
            if u in stuck:
                def margin(tt, yy, u=u, model=model):
                    return ss.needed(model, tt, yy)[u][4]
                margin.terminal, margin.direction = True, -1
                evs.append(margin); owners.append((u, "margin"))
                continue
            s, th, sd, om, Ru = c[u]
            comps = [(3, om * Ru, seeds.get(u, (0.0, 0.0))[1], (cp[u][3] - om) * Ru)]
            if u[1] == 0 and ss.sv[u[0]].type == "cylindrical":
                comps.append((2, sd, seeds.get(u, (0.0, 0.0))[0], cp[u][2] - sd))
            for k, val, seed, dval in comps:
                if abs(val) > V_TOL:
                    sign = math.copysign(1.0, val)
                elif seed:
                    sign = math.copysign(1.0, seed)
                elif abs(dval) > V_TOL * 1e-3:
                    sign = math.copysign(1.0, dval)
                else:
                    continue    # at rest and staying there (no load along it): its zero is no event

                def comp(tt, yy, u=u, k=k, sign=sign):
                    return sign * ss.coordinates(yy)[u][k]
                comp.terminal, comp.direction = True, -1
                evs.append(comp); owners.append((u, "zero"))

        def f(tt, yy, model=model):
            calls[0] += 1
            if _time.monotonic() > deadline:
                raise SolverError(f"the stick-slip run reached its wall-time limit at t = {tt:.6g} s")
            return model.dynamics(tt, yy, alpha, beta)

        te = times[(times > t) & (times <= t1)]
        if t == t0:
            te = times[(times >= t) & (times <= t1)]
        res = solve_ivp(f, (t, t1), y, method=method, t_eval=te, rtol=settings.rtol, atol=settings.atol,
                        events=evs or None, first_step=min(settings.first_step, t1 - t), **kw)
        if res.status < 0:
            raise SolverError(f"the stick-slip run failed at t = {res.t[-1] if len(res.t) else t:.6g} s: {res.message}")
        if len(res.t):
            segments.append((model, res.t, res.y.T))
        if res.status == 0:
            break
        # the first event of the phase
        hits = [(float(res.t_events[k][0]), k) for k in range(len(evs)) if len(res.t_events[k])]
        te_, k = min(hits)
        ye = res.y_events[k][0].copy()
        u, kind = owners[k]
        t = te_
        seeds.pop(u, None)
        ce = ss.coordinates(ye)
        # every slipping unit at rest now takes the stick test with this one (rests at one instant)
        resting = [x for x in ss.units if x not in stuck and ss.speed(ce[x]) <= V_TOL]
        if kind == "margin":
            y = at_rest(t, ye, resting, force_slip={u})
        elif resting:
            y = at_rest(t, ye, resting)
        else:
            y = ye      # one component through zero, the other carries the slip
        if t >= t1:
            break
    wall = _time.perf_counter() - w0
    sim = _assemble(ss, segments, times, {"phases": phases, "rhs_calls": calls[0], "wall_time": wall,
                                                  "path": "scipy", "projection_energy": proj_E,
                                                  "largest_projection": proj_v, "events": len(events), **counts})
    sim.extras["stick_events"] = events
    sim.extras["stick_event_units"] = units
    return sim


def _assemble(ss: StickSlip, segments, times, stats):
    """One :class:`Simulation` from the phases' samples: each sample recorded by its phase's model
    (a stuck unit's friction is its needed friction, its contact loads those of the stick test);
    the lock rows' driver columns dropped."""
    from .solver import to_simulation
    base = ss.base
    seen = set()
    parts = []
    for model, ts, Y in segments:
        keep = [k for k, t in enumerate(ts) if t not in seen and np.any(np.isclose(t, times, rtol=0, atol=1e-12))]
        if not keep:
            continue
        seen.update(float(ts[k]) for k in keep)
        ts, Y = ts[keep], Y[keep]
        sim = to_simulation(model, ts, Y, ss.alpha, ss.beta, {})
        names = sim.extras["friction_joint_names"]
        nt = len(ts)
        fr = {key: np.zeros((nt, base.nf) + sim.extras[key].shape[2:]) for key in
              ("friction_force", "friction_moment", "contact_load", "contact_azimuth", "slide_rate", "rotation_rate")}
        journals = getattr(model, "journal_locks", {})
        for q, cj in enumerate(base.friction_joints):
            if cj.name in names:
                p = names.index(cj.name)
                for key in fr:
                    fr[key][:, q] = sim.extras[key][:, p]
                if journals.get(cj.name):     # a universal joint's stuck journals: their needed moments
                    for k in range(nt):
                        need = ss.needed(model, ts[k], Y[k])
                        for jq in journals[cj.name]:
                            fr["friction_moment"][k, q, jq - 1] = need[(cj.name, jq)][1]
                            fr["contact_load"][k, q, jq - 1] = need[(cj.name, jq)][2]
            else:   # stuck in this phase: the needed friction
                for k in range(nt):
                    f_n, m_n, N, loads, _ = ss.needed(model, ts[k], Y[k])[(cj.name, 0)]
                    fr["friction_force"][k, q] = f_n
                    fr["friction_moment"][k, q, 0] = m_n
                    fr["contact_load"][k, q] = loads
                    c = ss.coordinates(Y[k])[(cj.name, 0)]
                    fr["slide_rate"][k, q], fr["rotation_rate"][k, q] = c[2], c[3]
        sim.extras.update(fr, friction_joint_names=[c.name for c in base.friction_joints])
        sim.driver_load = sim.driver_load[:, :len(base.drivers)]
        sim.driver_names = sim.driver_names[:len(base.drivers)]
        parts.append(sim)
    first = parts[0]
    arrays = [f.name for f in dataclasses.fields(first)
              if isinstance(getattr(first, f.name), np.ndarray) and getattr(first, f.name).ndim >= 1
              and getattr(first, f.name).shape[0] == len(first.time) and f.name not in ("impact_time", "impact_velocity",
                                                                                         "impact_joint", "impact_point")]
    out = parts[0]
    if len(parts) > 1:
        for a in arrays:
            setattr(out, a, np.concatenate([getattr(p, a) for p in parts]))
        for key in ("angular_velocity_body", "friction_force", "friction_moment", "contact_load", "contact_azimuth",
                    "slide_rate", "rotation_rate"):
            out.extras[key] = np.concatenate([p.extras[key] for p in parts])
    out.stats = dict(stats, output_samples=len(out.time),
                     quaternion_drift=max(p.stats.get("quaternion_drift", 0.0) for p in parts))
    return out
