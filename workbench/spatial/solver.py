"""Running a spatial mechanism: assembly, integration, sampled outputs (one :class:`Simulation`).

The reference path integrates :meth:`.model.Model.dynamics` with ``scipy.integrate.solve_ivp``
(``method``, default DOP853) at ``rtol``/``atol``; the samples are then re-evaluated for the
multipliers, accelerations and friction records.

Shapes of the :class:`~workbench.mbs.solution.Simulation` of a spatial run (``nb`` moving bodies,
``nj`` joints, ``nd`` drivers, ``nf`` joints with friction): ``position`` (nt, nb, 7) = x, y, z [m],
e0..e3 [1]; ``velocity`` (nt, nb, 6) = centre-of-mass velocity [m/s] and angular velocity [rad/s],
world frame; ``acceleration`` (nt, nb, 6) likewise [m/s^2, rad/s^2]; ``joint_reaction``
(nt, nj, 6) = force [N] and moment [N m] of the joint on body j about its joint point (world;
for a cylindrical or prismatic joint about body j's point); ``driver_load`` (nt, nd) [N m] or [N].
``extras``: ``dimension`` 3, ``angular_velocity_body`` (nt, nb, 3) [rad/s], ``friction_force``
(nt, nf) [N], ``friction_moment`` (nt, nf, 2) [N m] (second: a universal joint's journal j),
``contact_load`` (nt, nf, 4) [N] (F1, F2, g3, g4 of Qi, Luo & Huang (2009)), ``contact_azimuth``
(nt, nf, 2) [rad], ``slide_rate`` (nt, nf) [m/s], ``rotation_rate`` (nt, nf) [rad/s], the names
of the friction joints.  The clearance-joint arrays are empty (no clearance joints).
"""
from __future__ import annotations

import math
import time as _time

import numpy as np

from ..errors import SolverError
from ..mbs.solution import Simulation
from .mechanism import SpatialMechanism
from .model import Model


def _quat_mul(a, b):
    a0, av = a[0], a[1:]
    b0, bv = b[0], b[1:]
    return np.concatenate([[a0 * b0 - av @ bv], a0 * bv + b0 * av + np.cross(av, bv)])


def initial_state(model: Model, t0: float, *, tol: float = 1e-13, max_iter: int = 50) -> np.ndarray:
    """Consistent initial state: positions by Newton's method on the constraints from the bodies'
    data (minimum-norm corrections, the rotations as body-frame increments), velocities by the
    minimum-norm projection of the given ones onto ``D w = -Phi_t``."""
    mech, nb = model.mechanism, model.nb
    y = np.zeros(model.n_state)
    r, p, w = model.split(y)
    for b, body in enumerate(mech.bodies):
        r[b] = body.position
        p[b] = np.asarray(body.quaternion, float) / np.linalg.norm(body.quaternion)
    for it in range(max_iter + 1):
        kin = model.kinematics(y)
        Phi, D, Phit, gam = model.constraints(t0, kin)
        if model.n_rows == 0 or np.max(np.abs(Phi)) <= tol:
            break
        if it == max_iter:
            raise SolverError(f"could not assemble the spatial mechanism at t = {t0} s: constraint "
                              f"violation {np.max(np.abs(Phi)):.3g} after {max_iter} Newton iterations")
        dx = -np.linalg.lstsq(D, Phi, rcond=None)[0]
        for b in range(nb):
            r[b] += dx[6 * b:6 * b + 3]
            dth = dx[6 * b + 3:6 * b + 6]
            a = np.linalg.norm(dth)
            dq = np.concatenate([[math.cos(a / 2)], (math.sin(a / 2) / a if a > 0 else 0.5) * dth])
            p[b] = _quat_mul(p[b], dq)
            p[b] /= np.linalg.norm(p[b])
    kin = model.kinematics(y)
    _, A, _, _ = kin
    for b, body in enumerate(mech.bodies):
        w[b, :3] = body.velocity
        w[b, 3:] = A[b].T @ np.asarray(body.angular_velocity, float)
    if model.n_rows:
        Phi, D, Phit, gam = model.constraints(t0, kin)
        wf = w.reshape(-1)
        wf -= np.linalg.lstsq(D, D @ wf + Phit, rcond=None)[0]
        w[:] = wf.reshape(nb, 6)
    return y


def output_times(settings) -> np.ndarray:
    """The output sample times [s] of a run: every ``settings.output_step`` [s] from ``t_start``
    [s], the last one clipped to ``t_end`` [s]."""
    t0, t1 = settings.t_start, settings.t_end
    n_out = int(math.floor((t1 - t0) / settings.output_step + 1e-9)) + 1
    times = t0 + settings.output_step * np.arange(n_out)
    times[-1] = min(times[-1], t1)
    return times


def wall_guarded(fun, settings, what: str = "the spatial run"):
    """``(f, calls)``: ``fun(t, y)`` for ``solve_ivp`` counting its calls in ``calls[0]`` and
    raising :class:`SolverError` once ``settings.max_wall_time`` [s] has passed."""
    calls = [0]
    deadline = _time.monotonic() + settings.max_wall_time

    def f(t, y):
        calls[0] += 1
        if _time.monotonic() > deadline:
            raise SolverError(f"{what} reached its wall-time limit at t = {t:.6g} s")
        return fun(t, y)
    return f, calls


def simulate(mech: SpatialMechanism, settings, *, initial=None, worn=None) -> Simulation:
    """Run ``mech`` with ``settings`` (a :class:`~workbench.mbs.solution.SolverSettings` or the
    spatial engine's settings: ``t_start``, ``t_end``, ``output_step``, ``rtol``, ``atol``,
    ``max_step``, ``first_step``, ``baumgarte_alpha``, ``baumgarte_beta``, ``method``, ``path``).

    ``path = "fast"`` (default): the compiled right-hand side (:mod:`.kernels`) in the compiled
    DOP853 loop (:mod:`.integrate`; ``solve_ivp`` for another ``method``), a call whose friction
    loop does not close handing the rest of the run to ``solve_ivp``, which evaluates such calls on
    the reference path (``stats['reference_fallbacks']``); the output samples from one compiled
    call (:mod:`.records`) when no joint has friction, else the reference path's record with the
    compiled constraint rows.  ``"scipy"``: the reference right-hand side
    (:meth:`.model.Model.dynamics`) under ``solve_ivp`` throughout.
    ``initial``: a state vector to start from (default :func:`initial_state`); ``worn``: worn maps
    of clearance joints (:func:`.clearance.run.simulate`)."""
    if mech.spatial_clearance_joints:
        from .clearance.run import simulate as with_clearance
        return with_clearance(mech, settings, initial=initial, worn=worn)
    from scipy.integrate import solve_ivp  # lazily (house): scipy.integrate is slow to import
    model = Model(mech)
    t0, t1 = settings.t_start, settings.t_end
    y0 = initial_state(model, t0) if initial is None else np.asarray(initial, float)
    alpha, beta = settings.baumgarte_alpha, settings.baumgarte_beta
    times = output_times(settings)
    calls = [0]
    deadline = _time.monotonic() + settings.max_wall_time

    args = None
    if getattr(settings, "path", "fast") != "scipy":
        from .fast_rhs import of
        from .kernels import pack
        args = pack(model)
        ws = of(args) if args is not None else None
    fallbacks = [0]
    qzero = np.zeros(model.n_dof)

    def f(t, y):
        calls[0] += 1
        if _time.monotonic() > deadline:
            raise SolverError(f"the spatial run reached its wall-time limit at t = {t:.6g} s")
        if args is not None:
            yd = np.empty_like(y)
            if _rhs(t, y, alpha, beta, *args, friction_table(model, args, y), qzero, yd, ws) == 0:
                return yd
            fallbacks[0] += 1    # the friction loop did not close in the compiled code
        return model.dynamics(t, y, alpha, beta)

    if args is not None:
        from .fast_rhs import rhs as _rhs
        from .kernels import friction_table

    w0 = _time.perf_counter()
    kw = {}
    if settings.max_step and settings.max_step > 0:
        kw["max_step"] = settings.max_step
    method = getattr(settings, "method", "DOP853") or "DOP853"
    first_step = min(settings.first_step, t1 - t0)
    t_done, pieces, loop = t0, [], None
    if args is not None and method == "DOP853":
        from .loop import CompiledLoop
        loop = CompiledLoop.make(model, None, args, times, model.n_state, settings, deadline)
    if loop is not None:   # the compiled loop (:mod:`.integrate`), the same steps as solve_ivp's DOP853
        piece = loop.run(t0, t1, y0, first_step, np.zeros(0), 0)
        calls[0] += piece.calls
        pieces.append((times[:piece.k1], piece.Y))
        t_done = piece.t
        if piece.status == 3:   # FALLBACK: a call's friction loop did not close; solve_ivp goes on
            fallbacks[0] += 1
            y0, first_step = piece.y, min(piece.h, t1 - piece.t)
    if loop is None or t_done < t1:
        te = times[piece.k1:] if loop is not None else times
        res = solve_ivp(f, (t_done, t1), y0, method=method, t_eval=te, rtol=settings.rtol, atol=settings.atol,
                        first_step=first_step, **kw)
        if not res.success:
            raise SolverError(f"the spatial run failed at t = {res.t[-1] if len(res.t) else t_done:.6g} s: "
                              f"{res.message}")
        pieces.append((res.t, res.y.T))
    wall = _time.perf_counter() - w0
    t_out = np.concatenate([p[0] for p in pieces])
    Y = np.concatenate([p[1] for p in pieces])
    stats = {"output_samples": int(len(t_out)), "rhs_calls": calls[0], "wall_time": wall, "nfev": calls[0],
             "path": "fast" if args is not None else "scipy", "reference_fallbacks": fallbacks[0],
             "loop": "compiled" if loop is not None else "scipy"}
    return to_simulation(model, t_out, Y, alpha, beta, stats, packed=args)


def to_simulation(model: Model, times, Y, alpha, beta, stats, *, extra_q=None, rows=None,
                  packed=None) -> Simulation:
    """The :class:`Simulation` of the samples ``Y`` (nt, n_state or more) at ``times``;
    ``extra_q`` (nt, 6 nb): generalised forces added at each sample (clearance joints); ``packed``:
    the fast path's arrays (:func:`.kernels.pack`): the samples in one compiled call
    (:mod:`.records`) when no joint has friction, else the reference path's record with the
    compiled constraint rows; ``rows``: those rows alone (:func:`.kernels.constraint_rows`; None
    and no ``packed``: the reference path's own)."""
    mech, nb, nt = model.mechanism, model.nb, len(times)
    if packed is not None and not model.nf:
        return _compiled_samples(model, np.asarray(times, float), np.asarray(Y, float), alpha, beta, stats,
                                 extra_q, packed)
    if packed is not None and rows is None:
        from .kernels import constraint_rows
        rows = constraint_rows(packed)
    nj, nd, nf = len(model.joints), len(model.drivers), model.nf
    pos = np.empty((nt, nb, 7)); vel = np.empty((nt, nb, 6)); acc = np.empty((nt, nb, 6))
    omb = np.empty((nt, nb, 3)); react = np.empty((nt, nj, 6)); dload = np.empty((nt, max(nd, 0)))
    ke = np.empty(nt); pe = np.empty(nt); dp = np.empty(nt); dv = np.empty(nt)
    ff = np.zeros((nt, nf)); fm = np.zeros((nt, nf, 2)); cl = np.zeros((nt, nf, 4)); az = np.zeros((nt, nf, 2))
    sr = np.zeros((nt, nf)); rr = np.zeros((nt, nf))
    qdrift = 0.0
    for k, (t, y) in enumerate(zip(times, Y)):
        y = y[:model.n_state]
        yd, rec = model.dynamics(t, y, alpha, beta, record=True, extra_q=None if extra_q is None else extra_q[k],
                                 rows=rows)
        r, p, w = model.split(y)
        R, A, V, W = model.R, model.A, model.V, model.W
        norms = np.linalg.norm(p, axis=1)
        qdrift = max(qdrift, float(np.max(np.abs(norms - 1.0))))
        pos[k, :, :3] = r
        pos[k, :, 3:] = p / norms[:, None]
        vel[k, :, :3] = w[:, :3]
        vel[k, :, 3:] = W[:nb]
        a = rec["acc"].reshape(nb, 6)
        acc[k, :, :3] = a[:, :3]
        acc[k, :, 3:] = np.einsum("bij,bj->bi", A[:nb], a[:, 3:])
        omb[k] = w[:, 3:]
        for jn, cj in enumerate(model.joints):
            about = R[cj.j] + A[cj.j] @ cj.s_j
            F, N = model.reaction(cj, rec["D"], rec["lam"], about)
            react[k, jn, :3], react[k, jn, 3:] = F, N
        for dn, (cj, coord, fun, row) in enumerate(model.drivers):
            dload[k, dn] = -rec["lam"][row]
        ke[k] = 0.5 * float(model.mass @ np.sum(w[:, :3] ** 2, axis=1)) + 0.5 * sum(
            w[b, 3:] @ model.J[b] @ w[b, 3:] for b in range(nb))
        pe[k] = rec["potential"]
        dp[k] = float(np.linalg.norm(rec["Phi"]))
        dv[k] = float(np.linalg.norm(rec["Phid"]))
        if nf:
            fr, fre = rec["friction"], rec["friction_record"]
            ff[k] = fr[:, 0]; fm[k] = fr[:, 1:]
            cl[k] = fre[:, :4]; az[k] = fre[:, 4:6]; sr[k] = fre[:, 6]; rr[k] = fre[:, 7]
    stats = dict(stats, quaternion_drift=qdrift)
    return _simulation(model, times, Y, stats, pos, vel, acc, omb, react, dload, ke, pe, dp, dv,
                       ff, fm, cl, az, sr, rr)


def _compiled_samples(model, times, Y, alpha, beta, stats, extra_q, packed):
    """:func:`to_simulation` with the samples' records from :func:`.records.sample_records`."""
    from .records import sample_records
    nb, nt, n = model.nb, len(times), model.n_state
    QX = np.zeros((nt, model.n_dof)) if extra_q is None else np.ascontiguousarray(extra_q, float)
    Ys = np.ascontiguousarray(Y[:, :n])
    acc, react, dload, ke, pe, dp, dv = sample_records(times, Ys, alpha, beta, *packed, QX)
    p = Ys[:, 3 * nb:7 * nb].reshape(nt, nb, 4)
    norms = np.linalg.norm(p, axis=2)
    w = Ys[:, 7 * nb:13 * nb].reshape(nt, nb, 6)
    pos = np.empty((nt, nb, 7)); vel = np.empty((nt, nb, 6))
    pos[:, :, :3] = Ys[:, :3 * nb].reshape(nt, nb, 3)
    pos[:, :, 3:] = p / norms[:, :, None]
    vel[:, :, :3] = w[:, :, :3]
    e0, ev = p[:, :, :1], p[:, :, 1:]   # world angular velocity A(p) omega' (the unnormalised p, as the records)
    om = w[:, :, 3:]
    n2 = np.sum(p * p, axis=2, keepdims=True)
    vel[:, :, 3:] = ((e0 * e0 - np.sum(ev * ev, axis=2, keepdims=True)) * om + 2.0 * np.sum(ev * om, axis=2,
                     keepdims=True) * ev + 2.0 * e0 * np.cross(ev, om)) / n2
    omb = w[:, :, 3:].copy()
    qdrift = float(np.max(np.abs(norms - 1.0))) if nt else 0.0
    z = np.zeros((nt, 0))
    stats = dict(stats, quaternion_drift=qdrift)
    return _simulation(model, times, Y, stats, pos, vel, acc, omb, react, dload, ke, pe, dp, dv,
                       z, np.zeros((nt, 0, 2)), np.zeros((nt, 0, 4)), np.zeros((nt, 0, 2)), z, z)


def _simulation(model, times, Y, stats, pos, vel, acc, omb, react, dload, ke, pe, dp, dv, ff, fm, cl, az, sr, rr):
    mech, nb, nt = model.mechanism, model.nb, len(times)
    z = np.zeros((nt, 0))
    e = np.zeros(0)
    return Simulation(
        body_names=list(model.names), driver_names=[d.name for d in mech.drivers],
        joint_names=[j.name for j in mech.joints], clearance_names=[], clearance_kinds=[],
        time=np.asarray(times, float), position=pos, velocity=vel, acceleration=acc, driver_load=dload,
        joint_reaction=react, contact_force=z, friction_force=z, penetration=z, eccentricity=np.zeros((nt, 0, 2)),
        slip_velocity=z, kinetic_energy=ke, potential_energy=pe, contact_energy=np.zeros(nt),
        driver_work=Y[:, 13 * nb].copy(), dissipated_energy=Y[:, 13 * nb + 1].copy(),
        drift_position=dp, drift_velocity=dv, impact_time=e, impact_velocity=e,
        impact_joint=np.zeros(0, int), impact_point=np.zeros(0, int), stats=stats,
        extras={"dimension": 3, "angular_velocity_body": omb, "friction_joint_names":
                [c.name for c in model.friction_joints], "friction_force": ff, "friction_moment": fm,
                "contact_load": cl, "contact_azimuth": az, "slide_rate": sr, "rotation_rate": rr})
