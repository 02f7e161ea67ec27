"""Event-driven integration of a spatial mechanism with clearance joints.

The state is the spatial model's (:mod:`workbench.spatial.model`) with two more quadratures: the
work the normal contact forces absorb ``E_c = int sum f_n delta_dot dt`` [J] and the energy the
clearance joints' friction dissipates [J].

Contact modes, as in the planar engine (:mod:`workbench.mbs.integrator`, ``DETECT_EVENT``):
every contact point is open (no force, whatever its penetration) or closed with the approach
speed ``delta_dot_minus`` it had when it closed.  The compiled loop (:mod:`..integrate`, the
fast path with DOP853; scipy's steps and events) or ``scipy.integrate.solve_ivp`` (``method``,
DOP853 by default; the reference path) runs from event to event; its terminal events are the penetrations' zero
crossings (upwards for an open point, downwards for a closed one), located on the dense output
to machine precision.  At an event the modes switch: the point that crossed, and every other
point within :data:`SWITCH_TOL` of zero moving the same way (the two rims of an aligned journal
touch together), closing with ``delta_dot_minus = delta_dot`` there.  Contact starts make the
impact table: time, joint, approach speed, and the largest normal force of the joint over the
contact (it closes when all points of the joint are open, or at its next contact start), located
on the dense output (Brent's method between the neighbours of the largest step end).
"""
from __future__ import annotations

import dataclasses
import time as _time

import numpy as np

from ...errors import SolverError
from ..model import Model
from ..solver import initial_state, output_times, to_simulation
from .forces import POINT_NAMES, R_FN, R_FT, R_PEN, R_VT, Clearances

#: a point within this fraction of its joint's clearance of zero penetration switches with the
#: event that stopped the step, when it moves the same way
SWITCH_TOL = 1e-9


def simulate(mech, settings, *, initial=None, worn=None):
    """Run ``mech`` (with ``spatial_clearance_joints``) on the spatial engine's settings (see
    :func:`workbench.spatial.solver.simulate`); returns a
    :class:`~workbench.mbs.solution.Simulation` whose clearance arrays are filled and whose
    ``extras`` hold the per-point records.

    ``worn``: joint index -> worn map (:mod:`.worn`; the rims' gaps grow by its depth); the
    ``extras`` then hold, per sample and joint, the section view the wear loop reads
    (``clearance_section_load`` [N], ``clearance_axis_slope`` [1], ``clearance_turn`` [rad] of
    journals; ``clearance_ball_load`` [N] and ``clearance_ball_spin`` [rad/s] of balls, socket
    frame; zero for joints without a map)."""
    from scipy.integrate import solve_ivp  # lazily (house): scipy.integrate is slow to import
    model = Model(mech)
    fast = getattr(settings, "path", "fast") != "scipy"
    clr = Clearances(model, mech.spatial_clearance_joints, compiled=fast, worn=worn)
    n = model.n_state
    t0, t1 = settings.t_start, settings.t_end
    y0 = initial_state(model, t0) if initial is None else np.asarray(initial, float)[:n]
    Y0 = np.concatenate([y0, [0.0, 0.0]])
    alpha, beta = settings.baumgarte_alpha, settings.baumgarte_beta
    times = output_times(settings)
    deadline = _time.monotonic() + settings.max_wall_time
    npts = clr.n_points
    dm = np.full(npts, -1.0)
    calls = [0]
    args = None
    if fast:
        from ..fast_rhs import of, rhs
        from ..kernels import friction_table, pack
        args = pack(model)
        ws = of(args) if args is not None else None
        _rhs = rhs.dispatcher()   # the numba dispatcher itself: the lazy wrapper costs a call

    def f(t, Y):
        calls[0] += 1
        if _time.monotonic() > deadline:
            raise SolverError(f"the spatial run reached its wall-time limit at t = {t:.6g} s")
        y = Y[:n]
        if fast:
            Qx, pc, pf = clr.forces_fast(y, dm)
        else:
            Qx, pc, pf, _ = clr.forces(model.kinematics(y), dm)
        out = np.empty(n + 2)
        yd = np.empty(n)
        try:
            if args is None or _rhs(t, y, alpha, beta, *args, friction_table(model, args, y), Qx, yd, ws) != 0:
                yd = model.dynamics(t, y, alpha, beta, extra_q=Qx)
        except (np.linalg.LinAlgError, ZeroDivisionError, FloatingPointError):
            yd[:] = np.nan     # a wild trial stage (the step is rejected and cut)
        out[:n] = yd
        out[n] = pc
        out[n + 1] = -pf
        return out

    cache = {}

    def gaps(t, Y):
        key = (t, Y.tobytes())
        if cache.get("key") != key:
            cache["key"] = key
            cache["val"] = clr.gaps_fast(Y[:n]) if fast else clr.gaps(model.kinematics(Y[:n]))
        return cache["val"]

    def event(k):
        def g(t, Y):
            return gaps(t, Y)[0][k]
        g.terminal = True
        g.direction = 1.0 if dm[k] < 0.0 else -1.0
        return g

    tol = np.array([SWITCH_TOL * clr.joints[p.joint].clearance for p in clr.points])
    kw = {}
    if settings.max_step and settings.max_step > 0:
        kw["max_step"] = settings.max_step
    method = getattr(settings, "method", "DOP853") or "DOP853"
    loop = None
    if fast and method == "DOP853":
        from ..loop import CompiledLoop
        loop = CompiledLoop.make(model, clr, args, times, n + 2, settings, deadline)
    t = t0
    Y = Y0
    seg_t, seg_Y, seg_dm = [], [], []
    segments = []          # (t_start, t_end, dense output, dm)
    impacts = []           # (time, joint, point, approach speed)
    wall0 = _time.perf_counter()
    n_events = 0
    fallbacks = 0
    first_step = min(settings.first_step, t1 - t0)
    while True:
        if loop is not None:   # the compiled loop (:mod:`..integrate`): solve_ivp's steps and events
            piece = loop.run(t, t1, Y, first_step, dm, int(np.searchsorted(times, t, side="right" if seg_t else "left")))
            calls[0] += piece.calls
            if piece.status == 4:     # BAD_LAW: the reference path's error, at the stage's state
                clr.forces_fast(piece.y[:n], dm)
            seg_t.append(times[piece.k0:piece.k1]); seg_Y.append(piece.Y); seg_dm.append(np.tile(dm, (len(piece.Y), 1)))
            if piece.sol is not None:
                segments.append((t, piece.t, piece.sol, dm.copy()))
            if piece.status == 0:
                break
            if piece.status == 1:
                t_ev, hit, Y = piece.t, [piece.hit], piece.y
                last = piece.last_h
            else:                     # FALLBACK: this segment goes on with solve_ivp
                fallbacks += 1
                t, Y = piece.t, piece.y
                first_step = min(piece.h, t1 - t)
        if loop is None or piece.status == 3:
            te = times[piece.k1:] if loop is not None else times[times > t if seg_t else times >= t]
            with np.errstate(invalid="ignore"):   # a wild trial stage returns NaN: the step is rejected
                res = solve_ivp(f, (t, t1), Y, method=method, t_eval=te, rtol=settings.rtol, atol=settings.atol,
                                events=[event(k) for k in range(npts)], dense_output=True,
                                first_step=first_step, **kw)
            if res.status == -1:
                raise SolverError(f"the spatial run failed at t = {res.t[-1] if len(res.t) else t:.6g} s: {res.message}")
            seg_t.append(res.t); seg_Y.append(np.asarray(res.y, float).reshape(len(Y), len(res.t)).T); seg_dm.append(np.tile(dm, (len(res.t), 1)))
            if res.status != 1:
                segments.append((t, t1, res.sol, dm.copy()))
                break
            # the earliest event of this step (one, or several at the same instant)
            t_ev = min(ts[0] for ts in res.t_events if len(ts))
            hit = [k for k, ts in enumerate(res.t_events) if len(ts) and ts[0] == t_ev]
            Y = res.y_events[hit[0]][0]
            segments.append((t, t_ev, res.sol, dm.copy()))
            last = float(np.diff(res.sol.ts)[-1]) if len(res.sol.ts) > 1 else 0.0
        t = t_ev
        n_events += 1
        g, gd = clr.gaps(model.kinematics(Y[:n]))
        closed_joints = set()
        for k in range(npts):
            if dm[k] < 0.0 and (k in hit or (g[k] >= -tol[k] and gd[k] > 0.0)):
                dm[k] = max(gd[k], 0.0)
                j = clr.points[k].joint
                if j not in closed_joints:
                    impacts.append((t, j, k, dm[k]))
                    closed_joints.add(j)
            elif dm[k] >= 0.0 and (k in hit or (g[k] <= tol[k] and gd[k] < 0.0)):
                dm[k] = -1.0
        if t >= t1:
            break
        # restart with the last accepted step (the step-size heuristic of a fresh start does not
        # know the contact stiffness and tries wild steps)
        first_step = min(last if last > 0.0 else settings.first_step, t1 - t)
    wall = _time.perf_counter() - wall0
    times_out = np.concatenate(seg_t)
    Yout = np.concatenate(seg_Y)
    DM = np.concatenate(seg_dm)
    # samples: the clearance forces with the modes of their segment, then the model's records
    nt, nc = len(times_out), len(clr.joints)
    Qx = np.empty((nt, model.n_dof))
    prec = np.empty((nt, npts, 9))
    ecc = np.empty((nt, nc, 3))
    sec_load = np.zeros((nt, nc, 2)); sec_slope = np.zeros((nt, nc, 2)); sec_turn = np.zeros((nt, nc))
    ball_load = np.zeros((nt, nc, 3)); ball_spin = np.zeros((nt, nc, 3))
    for s in range(nt):
        Qx[s], rec, normals, R, A, W = _record(clr, model, Yout[s, :n], DM[s], fast)
        prec[s, :, :8] = rec
        prec[s, :, 8] = DM[s]
        for q, d in enumerate(clr.data):
            i, j, s_i, s_j = d[:4]
            ecc[s, q] = R[j] + A[j] @ s_j - R[i] - A[i] @ s_i
        if clr.worn is not None:
            for q in clr.worn.maps:
                loads = [rec[k, R_FN] * normals[k] for k in clr.worn_points if clr.points[k].joint == q]
                if q in clr.worn.frames:
                    sec_load[s, q], sec_slope[s, q], sec_turn[s, q] = clr.worn.section_sample(clr, q, R, A, loads)
                else:
                    ball_load[s, q], ball_spin[s, q] = clr.worn.ball_sample(clr, q, A, W, loads)
    stats = {"output_samples": int(nt), "rhs_calls": calls[0], "wall_time": wall, "nfev": calls[0],
             "path": "fast" if fast else "scipy", "reference_fallbacks": fallbacks, "contact_events": n_events,
             "impacts": len(impacts), "loop": "compiled" if loop is not None else "scipy"}
    sim = to_simulation(model, times_out, Yout, alpha, beta, stats, extra_q=Qx, packed=args)
    peaks = _impact_peaks(impacts, segments, clr, model, n, t1, fast)
    pj = clr.point_joint
    fn = np.stack([prec[:, pj == q, R_FN].sum(axis=1) for q in range(nc)], axis=1) if nc else np.zeros((nt, 0))
    ft = np.stack([prec[:, pj == q, R_FT].sum(axis=1) for q in range(nc)], axis=1) if nc else np.zeros((nt, 0))
    pen = np.stack([prec[:, pj == q, R_PEN].max(axis=1) for q in range(nc)], axis=1) if nc else np.zeros((nt, 0))
    vt = np.stack([prec[:, pj == q, R_VT].max(axis=1) for q in range(nc)], axis=1) if nc else np.zeros((nt, 0))
    imp = np.array(impacts, float).reshape(-1, 4)
    extras = dict(sim.extras)
    extras.update({
        "clearance_point_record": prec, "clearance_point_joint": pj,
        "clearance_point_names": [POINT_NAMES[clr.joints[p.joint].type][_rank(clr, k)] for k, p in enumerate(clr.points)],
        "clearance_offset": ecc, "clearance_friction_energy": Yout[:, n + 1].copy()})
    if clr.worn is not None:
        extras.update({"clearance_section_load": sec_load, "clearance_axis_slope": sec_slope,
                       "clearance_turn": sec_turn, "clearance_ball_load": ball_load, "clearance_ball_spin": ball_spin})
    return dataclasses.replace(
        sim, clearance_names=[c.name for c in clr.joints], clearance_kinds=[c.type for c in clr.joints],
        contact_force=fn, friction_force=ft, penetration=pen, eccentricity=np.zeros((nt, nc, 2)),
        slip_velocity=vt, contact_energy=Yout[:, n].copy(),
        dissipated_energy=sim.dissipated_energy + Yout[:, n + 1],
        impact_time=imp[:, 0], impact_velocity=imp[:, 3], impact_joint=imp[:, 1].astype(int),
        impact_point=imp[:, 2].astype(int), impact_peak_force=peaks[:, 0], impact_peak_time=peaks[:, 1],
        impact_max_penetration=peaks[:, 2], extras=extras)


def _record(clr, model, y, dm, fast):
    """``(Q, rec, normals, R, A, W)`` of state ``y`` (:meth:`.forces.Clearances.record_fast` on
    the fast path, else the reference path's kinematics and forces)."""
    out = clr.record_fast(y, dm) if fast else None
    if out is not None:
        return out
    kin = model.kinematics(y)
    R, A = kin[0], kin[1]
    Q, _, _, rec = clr.forces(kin, dm, record=True)
    normals = np.array([clr._geometry(p, R, A)[1] for p in clr.points]).reshape(-1, 3)
    return Q, rec, normals, R, A, kin[3]


def _rank(clr, k):
    """Index of point ``k`` among its joint's points."""
    j = clr.points[k].joint
    return sum(1 for p in clr.points[:k] if p.joint == j)


def _impact_peaks(impacts, segments, clr, model, n, t_end, fast=False):
    """Per impact row: the joint's largest total normal force [N] and its time [s], and its
    largest penetration [m], over the row's interval (dense output; module docstring)."""
    from scipy.optimize import minimize_scalar
    out = np.full((len(impacts), 3), np.nan)
    pj = clr.point_joint
    for r, (t_a, j, k, v) in enumerate(impacts):
        later = [ti for ti, jj, _, _ in impacts[r + 1:] if jj == j]
        t_b = later[0] if later else t_end
        best = (-1.0, t_a, -np.inf)
        for (s0, s1, sol, dm) in segments:
            if s1 <= t_a or s0 >= t_b or not np.any(dm[pj == j] >= 0.0):
                continue

            def force(t, sol=sol, dm=dm):
                rec = _record(clr, model, sol(t)[:n], dm, fast)[1]
                return rec[pj == j, R_FN].sum(), rec[pj == j, R_PEN].max()
            ts = np.unique(np.clip(sol.ts, max(s0, t_a), min(s1, t_b)))
            vals = np.array([force(x) for x in ts])
            m = int(np.argmax(vals[:, 0]))
            if vals[m, 0] > best[0]:
                lo, hi = ts[max(m - 1, 0)], ts[min(m + 1, len(ts) - 1)]
                tm, fm = ts[m], vals[m, 0]
                if hi > lo:
                    res = minimize_scalar(lambda x: -force(x)[0], bounds=(lo, hi), method="bounded",
                                          options={"xatol": 1e-12 * max(hi - lo, 1e-300)})
                    if -res.fun > fm:
                        tm, fm = res.x, -res.fun
                best = (fm, tm, max(best[2], vals[:, 1].max()))
            else:
                best = (best[0], best[1], max(best[2], vals[:, 1].max()))
        if best[0] >= 0.0:
            out[r] = best
    return out
