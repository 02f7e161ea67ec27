"""Running a mechanism: assembly, integration (fast or reference path), sampled outputs.

:func:`simulate` is the one entry point.  The fast path is the compiled Dormand-Prince integrator
with event location (:mod:`.integrator`); the reference path is ``scipy.integrate.solve_ivp``
(DOP853 by default) on the same right-hand side, with contact starts as terminal events.  Ctrl-C,
wall-time limits and failure messages: :mod:`.run_control`.
"""
from __future__ import annotations

import math
import time as _time

import numpy as np
from ..jit import njit  # house: numba is imported when a compiled function is first needed

from ..errors import SolverError
from .compiled import CompiledModel, TRANS, compile_mechanism, model_features
from .clearance import C_EX, C_EY, C_FILM, C_FN, C_FT, C_PEN, C_PHI, C_PSI, C_VT, N_CREC, contact_gaps
from .equations import mechanical_energy, rhs, workspace
from .kinematics import constraints
from .integrator import (CTL_TIME, DETECT_EVENT, DETECT_HALVING, IMP_MAX_PEN, IMP_PEAK_FORCE, IMP_PEAK_TIME,
                         IMP_TIME, IMP_VELOCITY, N_CTL, STATUS_ABORTED, STATUS_BAD_MODEL, STATUS_OK,
                         STATUS_SINGULAR, Settings, integrate)
from .mechanism import Mechanism, RevoluteClearanceJoint
# RunInterrupted, SolverTimeLimit and wall_time_limit are part of this module's interface
from .run_control import (RunInterrupted, SolverTimeLimit, current_deadline, failure_message,  # noqa: F401
                          RunTooSlow, not_returning, run_in_worker, settings_limit, wall_time_limit)
from .run_control import _compiled
from . import split_compile
from ..runtime.watchdog import Stalled, budget_text
from .solution import Simulation, SolverSettings

MAX_IMPACTS = 200_000
#: run the compiled integrator in a worker thread (so that Ctrl-C and time limits are answered);
#: False runs it in the calling thread, deaf to both (tests/benchmarks/bench_dynamics.py measures
#: what the thread costs)
USE_WORKER_THREAD = True


# ------------------------------------------------------------------------------ assembly
def _constraint_arrays(cm: CompiledModel, t, q, qd):
    m, n = cm.n_rows, 3 * cm.nb
    Phi = np.zeros(m); J = np.zeros((m, n)); gam = np.zeros(m); Phit = np.zeros(m)
    if m:
        constraints(t, q, qd, cm.cons_i, cm.cons_f, cm.drv_f, Phi, J, gam, Phit)
    return Phi, J, gam, Phit


def assemble_positions(constraints, q, t0: float, tol: float, max_iter: int, check: str) -> np.ndarray:
    """Positions on the constraint manifold by Gauss-Newton from the guess ``q`` (minimum-norm
    corrections): ``constraints(q) -> (Phi, Phi_q)``, ``tol`` [m] on ``|Phi|``; a failure names
    ``t0`` [s], the violation left and what to ``check``.  ``q`` is updated in place and returned."""
    for _ in range(max_iter):
        Phi, J = constraints(q)
        if np.linalg.norm(Phi) < tol:
            return q
        q -= np.linalg.lstsq(J, Phi, rcond=None)[0]
    raise SolverError(f"could not assemble the mechanism at t = {t0} s: constraint violation "
                      f"{np.linalg.norm(Phi):.3e} after {max_iter} Newton iterations; check the "
                      f"{check}")


def assemble(mech: Mechanism, t0: float = 0.0, *, tol: float = 1e-13, max_iter: int = 50):
    """Consistent initial positions and velocities of ``mech`` at ``t0``.

    Clearance joints are held ideal (journal centred in the bushing, slider centred in the guide),
    so a clearance mechanism starts from its ideal twin's state — positions by Gauss-Newton from
    the bodies' guesses (minimum-norm corrections), velocities by projecting the guesses onto
    ``Phi_q qdot = -Phi_t``.  Returns ``(q0, qd0)``.
    """
    ideal = compile_mechanism(mech.ideal())
    q = np.array([c for b in mech.bodies for c in (*b.position, b.angle)], float)
    qd = np.array([c for b in mech.bodies for c in (*b.velocity, b.angular_velocity)], float)
    if ideal.n_rows == 0:
        return q, qd
    q = assemble_positions(lambda x: _constraint_arrays(ideal, t0, x, qd)[:2], q, t0, tol, max_iter,
                           "body position/angle guesses and the joint points")
    Phi, J, _, Phit = _constraint_arrays(ideal, t0, q, qd)
    qd = qd - np.linalg.lstsq(J, J @ qd + Phit, rcond=None)[0]
    return q, qd


# ------------------------------------------------------------------------------ outputs
@njit(cache=True)
def _evaluate_samples(times, Y, DM, alpha, beta, model):
    """Accelerations, multipliers, clearance records, energies and constraint drift at the samples.

    The specialised path (:mod:`.codegen_module`) runs a copy of this source with its ``rhs``
    call replaced by the specialised ``rhs_full``."""
    nt = times.shape[0]
    ny = Y.shape[1]
    n = model.mass.shape[0]
    n_rows = model.n_rows
    nc = model.clr_i.shape[0]
    QDD = np.zeros((nt, n)); LAM = np.zeros((nt, max(n_rows, 1))); REC = np.zeros((nt, max(nc, 1), N_CREC))
    KE = np.zeros(nt); PE = np.zeros(nt); DP = np.zeros(nt); DV = np.zeros(nt)
    ydot = np.zeros(ny)
    ws = workspace(model.mass, n_rows, ny - 2 * n - 4)
    Phi = np.zeros(max(n_rows, 1)); J = np.zeros((max(n_rows, 1), n)); gam = np.zeros(max(n_rows, 1))
    Phit = np.zeros(max(n_rows, 1))
    for k in range(nt):
        rhs(times[k], Y[k], DM[k], ydot, LAM[k], REC[k], ws, alpha, beta, model)
        for i in range(n):   # a loop, not a slice assignment: see integrator._copy
            QDD[k, i] = ydot[n + i]
        KE[k], PE[k] = mechanical_energy(Y[k], n, model.mass, model.gravity, model.frc_i, model.frc_f)
        if n_rows > 0:
            constraints(times[k], Y[k, :n], Y[k, n:2 * n], model.cons_i, model.cons_f, model.drv_f,
                        Phi[:n_rows], J[:n_rows], gam[:n_rows], Phit[:n_rows])
            # |Phi| and |Phi_q qd + Phi_t| by loops: no temporary arrays or BLAS call per sample
            # (they cost about as much as the sample's right-hand side)
            sp = 0.0; sv = 0.0
            for i in range(n_rows):
                sp += Phi[i] * Phi[i]
                v = Phit[i]
                for c in range(n):
                    v += J[i, c] * Y[k, n + c]
                sv += v * v
            DP[k] = math.sqrt(sp)
            DV[k] = math.sqrt(sv)
    return QDD, LAM, REC, KE, PE, DP, DV


def joint_reactions(cm, Y, LAM):
    """The ideal joints' reactions on ``body_j`` [N], ``(sample, joint, x/y)``, from the multipliers
    ``LAM`` at the states ``Y`` of compiled mechanism ``cm`` (a translational joint's normal row acts
    along its axis's normal, turned with ``body_i``)."""
    nt = len(Y)
    reac = np.zeros((nt, len(cm.mechanism.joints), 2))
    for k, row in enumerate(cm.joint_rows):
        if cm.cons_i[k, 0] == TRANS:
            bi = cm.cons_i[k, 1]
            phi = Y[:, 3 * bi + 2] if bi >= 0 else np.zeros(nt)
            nxp, nyp = cm.cons_f[k, 4], cm.cons_f[k, 5]
            reac[:, k, 0] = -(np.cos(phi) * nxp - np.sin(phi) * nyp) * LAM[:, row]
            reac[:, k, 1] = -(np.sin(phi) * nxp + np.cos(phi) * nyp) * LAM[:, row]
        else:
            reac[:, k, :] = LAM[:, row:row + 2]
    return reac


def _to_simulation(cm: CompiledModel, times, Y, DM, imp, stats, settings, status="complete",
                   evaluate=None) -> Simulation:
    """The :class:`Simulation` of the samples ``Y``; ``evaluate``: the compiled function evaluating
    them (default :func:`_evaluate_samples`; the specialised path's own, same results)."""
    mech = cm.mechanism
    n, nb, npts = 3 * cm.nb, cm.nb, cm.n_points
    QDD, LAM, REC, KE, PE, DP, DV = (evaluate or _evaluate_samples)(
        times, Y, DM, settings.baumgarte_alpha, settings.baumgarte_beta, cm.model())
    nt = len(times)
    nc = len(mech.clearance_joints)
    reac = joint_reactions(cm, Y, LAM)
    W = Y[:, 2 * n + npts:]
    imp_t, imp_v, imp_j, imp_p = imp[:4]
    peaks = imp[4] if len(imp) > 4 else None  # the impact table's extremes (fast path)
    return Simulation(
        body_names=[b.name for b in mech.bodies], driver_names=[d.name for d in mech.drivers],
        joint_names=[j.name for j in mech.joints], clearance_names=[c.name for c in mech.clearance_joints],
        clearance_kinds=["revolute" if isinstance(c, RevoluteClearanceJoint) else "translational"
                         for c in mech.clearance_joints],
        time=times.copy(),
        position=Y[:, :n].reshape(nt, nb, 3).copy(), velocity=Y[:, n:2 * n].reshape(nt, nb, 3).copy(),
        acceleration=QDD.reshape(nt, nb, 3),
        driver_load=-LAM[:, cm.driver_rows] if len(cm.driver_rows) else np.zeros((nt, 0)),
        joint_reaction=reac,
        contact_force=REC[:, :nc, C_FN].copy(), friction_force=REC[:, :nc, C_FT].copy(),
        penetration=REC[:, :nc, C_PEN].copy(), eccentricity=REC[:, :nc, C_EX:C_EY + 1].copy(),
        slip_velocity=REC[:, :nc, C_VT].copy(),
        contact_angle=REC[:, :nc, C_PSI].copy(), relative_rotation=REC[:, :nc, C_PHI].copy(),
        film_force=REC[:, :nc, C_FILM].copy(),
        kinetic_energy=KE, potential_energy=PE, contact_energy=W[:, 1].copy(), driver_work=W[:, 0].copy(),
        dissipated_energy=W[:, 2] + W[:, 3],
        drift_position=DP, drift_velocity=DV,
        impact_time=np.asarray(imp_t, float), impact_velocity=np.asarray(imp_v, float),
        impact_joint=np.asarray(imp_j, np.int64), impact_point=np.asarray(imp_p, np.int64),
        impact_peak_force=None if peaks is None else peaks[:, IMP_PEAK_FORCE].copy(),
        impact_peak_time=None if peaks is None else peaks[:, IMP_PEAK_TIME].copy(),
        impact_max_penetration=None if peaks is None else peaks[:, IMP_MAX_PEN].copy(),
        stats=stats, status=status)


# ------------------------------------------------------------------------------ paths
def _fast_path(cm, y0, settings, out_times, deadline):
    s = Settings(rtol=float(settings.rtol), atol=float(settings.atol), h0=float(settings.first_step),
                 hmax=float(settings.max_step), alpha=float(settings.baumgarte_alpha),
                 beta=float(settings.baumgarte_beta), eps_crit=float(settings.critical_penetration),
                 hmin_halving=float(settings.min_step),
                 detect={"event": DETECT_EVENT, "step_halving": DETECT_HALVING}[settings.detection],
                 n_err=6 * cm.nb + cm.n_points, max_steps=int(settings.max_steps), max_impacts=MAX_IMPACTS,
                 track=bool(settings.impact_peaks))
    ctl = np.zeros(N_CTL)
    args = (y0, float(settings.t_start), float(settings.t_end), out_times, s, cm.model(), ctl)
    run, evaluate, why = _integrator_for(cm, settings)
    split = split_compile.start(args[5]) if run is integrate else None   # a cold cache: two processes
    go = run if split is None else split.then(run)
    info = {}
    out, reason = None, "failed"
    try:
        if USE_WORKER_THREAD:
            out, reason = run_in_worker(go, args, ctl, deadline,
                                        span=(float(settings.t_start), float(settings.t_end)), info=info)
        else:
            out, reason = go(*args), None
    finally:
        if split is not None:
            split.close(wait=reason is None)
    if out is None and not _compiled(run):   # numba still compiling: nothing integrated yet
        if reason == "time_limit":
            raise SolverTimeLimit(f"stopped at the wall-time limit after {settings_limit(settings, deadline)} "
                                  f"while the integrator was still being compiled (a first run after "
                                  f"an install or an edit compiles it once, for minutes)")
        raise RunInterrupted("interrupted (Ctrl-C) before the integration had started")
    if out is None:   # the worker did not stop: it hangs inside a step (a model's kernel spins)
        why = not_returning(cm, {"time_limit": "the wall-time limit", "stalled": "no progress",
                                 "too_slow": "[checks] max_run_hours", "interrupted": "Ctrl-C"}.get(reason, str(reason)), float(ctl[CTL_TIME]))
        if reason == "time_limit":
            raise SolverTimeLimit(f"stopped at the wall-time limit after "
                                  f"{settings_limit(settings, deadline)}: {why}")
        if reason == "interrupted":
            raise RunInterrupted(f"interrupted (Ctrl-C): {why}")
        raise Stalled(f"the simulated time stood still at t = {float(ctl[CTL_TIME]):.9g} s for more "
                      f"than {budget_text()}: {why}")
    Y, DM, k_out, imp, imp_j, imp_p, n_imp, st, status, t_fail, fault = out
    stats = {"steps": int(st[0]), "rejected_steps": int(st[1]), "rhs_calls": int(st[2]),
             "events": int(st[3]), "contact_probes": int(st[4]), "specialised": why is None}
    if why is not None and why != "not asked":
        stats["specialise_skipped"] = why
    peaks = imp[:n_imp] if settings.impact_peaks else None  # None: NaN in the Simulation
    table = (imp[:n_imp, IMP_TIME], imp[:n_imp, IMP_VELOCITY], imp_j[:n_imp], imp_p[:n_imp], peaks)
    result = Y[:k_out], DM[:k_out], table, stats
    if status == STATUS_OK:
        return result + (evaluate,)
    kind = {"interrupted": "interrupted", "time_limit": "time_limit"}.get(reason, "failed") \
        if status == STATUS_ABORTED else "failed"
    partial = (_to_simulation(cm, out_times[:k_out], *result, settings, status=kind)
               if k_out else None)
    done = f" (the run had produced {k_out} of {len(out_times)} output samples)"
    if status == STATUS_ABORTED and reason == "too_slow":
        raise RunTooSlow(f"stopped: {info.get('pace', 'too slow')}{done}", partial=partial)
    if status == STATUS_ABORTED and reason == "stalled":
        raise Stalled(f"the simulated time stood still at t = {t_fail:.9g} s for more than "
                      f"{budget_text()} (the integrator made no step){done}", partial=partial)
    if status == STATUS_ABORTED and reason == "interrupted":
        raise RunInterrupted(f"interrupted (Ctrl-C) at t = {t_fail:.9g} s{done}", partial=partial)
    if status == STATUS_ABORTED:
        raise SolverTimeLimit(f"stopped at the wall-time limit after {settings_limit(settings, deadline)} "
                              f"at t = {t_fail:.9g} s of {settings.t_end:g} s{done}", partial=partial)
    raise SolverError(failure_message(cm, status, t_fail, fault, k_out, len(out_times),
                                       partial=partial), partial=partial)


#: ``specialise = "auto"`` specialises a structure whose compiled specialised code is in the cache
#: already, and one whose runs in this process (this run included) span more than this [s of
#: simulated time]: the Flores slider-crank integrates about 0.4 s of its motion per CPU second at
#: rtol 1e-10 on the generic path, so 1 s of motion is ~2.5 s of generic integration, of which the
#: specialised path saves ~1.4 s per further second simulated, against a one-off compile of 1-4 min
#: that stays in the on-disk cache: it pays on long runs and wear loops, and for every later study of
#: that structure
AUTO_SPECIALISE_SPAN = 1.0
_SPAN_RUN: dict = {}   # simulated span [s] run so far in this process, per mechanism structure


def _integrator_for(cm, settings):
    """The compiled ``integrate`` the fast path runs and the function evaluating its samples: the
    specialised ones of ``cm``'s structure (:mod:`.codegen_module`) when ``settings.specialise``
    asks for them and the structure allows it, else the generic ones.  Returns ``(integrate,
    evaluate_samples, None)`` when specialised, ``(integrate, _evaluate_samples, reason)`` when
    not."""
    want = settings.specialise
    if want is False or want is None:
        return integrate, _evaluate_samples, "not asked"
    from . import codegen_module
    if want == "auto" and codegen_module.unsupported(cm) is None:
        shape = codegen_module.structure(cm)
        _SPAN_RUN[shape] = _SPAN_RUN.get(shape, 0.0) + settings.t_end - settings.t_start
        if not (_SPAN_RUN[shape] > AUTO_SPECIALISE_SPAN or codegen_module.is_compiled(cm)):
            return integrate, _evaluate_samples, "not asked"
    mod, why = codegen_module.load(cm)
    if mod is None:
        return integrate, _evaluate_samples, why
    return mod.integrate, mod._evaluate_samples, None


class _Deadline(Exception):
    """Raised inside the reference path's right-hand side at the wall-time limit."""


def _scipy_path(cm, y0, settings, out_times, deadline=math.inf):
    n, npts = 3 * cm.nb, cm.n_points
    model = cm.model()
    dm = np.full(max(npts, 1), 1e-3)
    lam = np.zeros(max(cm.n_rows, 1)); rec = np.zeros((max(len(cm.mechanism.clearance_joints), 1), N_CREC))
    g = np.zeros(max(npts, 1)); gd = np.zeros(max(npts, 1))
    contact_gaps(y0, n, cm.clr_i, cm.clr_f, g, gd, model.dist)
    for p in range(npts):
        if g[p] > 0:
            dm[p] = max(gd[p], 1e-6)
    counters = {"rhs_calls": 0}
    ws = workspace(cm.mass, cm.n_rows, npts)

    def f(t, y):
        if _time.monotonic() >= deadline:
            raise _Deadline
        yd = np.empty_like(y)
        bad = rhs(t, y, dm, yd, lam, rec, ws, settings.baumgarte_alpha, settings.baumgarte_beta, model)
        counters["rhs_calls"] += 1
        if bad == -3 or bad >= 0 or bad <= -10:  # <= -10: joint friction (owner: reactions)
            # a trial stage left the finite range or a model gave a non-finite value there: NaN
            # makes scipy reject the step and shrink it; if it cannot recover, the failure is
            # reported below with the last culprit
            counters["last_bad"] = (bad, t)
            yd[:] = np.nan
            return yd
        if bad == -2:
            raise SolverError(failure_message(cm, STATUS_SINGULAR, t, bad, 0, len(out_times)))
        return yd

    def make_event(p):
        def ev(t, y):
            contact_gaps(y, n, cm.clr_i, cm.clr_f, g, gd, model.dist)
            return g[p]
        ev.terminal = True
        ev.direction = 1.0
        return ev

    # joint friction (owner: reactions): the contact points only (the ideal joints' friction states follow them)
    events = [make_event(p) for p in range(int(cm.clr_i[:, 4].sum()) if len(cm.clr_i) else 0)]
    t, y = settings.t_start, y0.copy()
    Ys, DMs, imp = [], [], ([], [], [], [])
    pt_joint = [j for j, c in enumerate(cm.clr_i) for _ in range(c[4])]
    steps = 0
    k0 = 0
    try:
        _scipy_segments(cm, f, events, settings, out_times, t, y, dm, g, gd, pt_joint, Ys, DMs, imp, counters)
    except (KeyboardInterrupt, _Deadline) as exc:
        reason = "interrupted" if isinstance(exc, KeyboardInterrupt) else "time_limit"
        k0 = sum(len(a) for a in Ys)
        Y = np.vstack(Ys) if Ys else np.zeros((0, len(y0)))
        DM = np.vstack(DMs) if DMs else np.zeros((0, max(npts, 1)))
        stats = {"steps": 0, "rejected_steps": 0, "rhs_calls": counters["rhs_calls"], "events": len(imp[0])}
        partial = (_to_simulation(cm, out_times[:k0], Y, DM, tuple(np.array(a) for a in imp), stats,
                                  settings, status=reason) if k0 else None)
        done = f" (the run had produced {k0} of {len(out_times)} output samples)"
        if reason == "interrupted":
            raise RunInterrupted(f"interrupted (Ctrl-C){done}", partial=partial) from None
        raise SolverTimeLimit(f"stopped at the wall-time limit after {settings_limit(settings, deadline)}"
                              f"{done}", partial=partial) from None
    Y = np.vstack(Ys) if Ys else np.zeros((0, len(y0)))
    DM = np.vstack(DMs) if DMs else np.zeros((0, max(npts, 1)))
    stats = {"steps": counters["steps"], "rejected_steps": 0, "rhs_calls": counters["rhs_calls"],
             "events": len(imp[0])}
    return Y, DM, tuple(np.array(a) for a in imp), stats


def _scipy_segments(cm, f, events, settings, out_times, t, y, dm, g, gd, pt_joint, Ys, DMs, imp, counters):
    """Integrate segment by segment (a segment ends at a contact start), appending to ``Ys``,
    ``DMs`` and ``imp`` as it goes (so that an interrupted run keeps what it had)."""
    from scipy.integrate import solve_ivp  # lazily (house): scipy.integrate is slow to import
    n = 3 * cm.nb
    dist = True if model_features(cm)[2] else None   # the model's distributed flag (compiled.model_features)
    k0 = 0
    steps = 0
    counters["steps"] = 0
    while t < settings.t_end:
        t_eval = out_times[k0:]
        t_eval = t_eval[t_eval >= t]
        with np.errstate(invalid="ignore", over="ignore"):
            sol = solve_ivp(f, (t, settings.t_end), y, method=settings.method, t_eval=t_eval,
                            rtol=settings.rtol, atol=settings.atol, events=events or None,
                            first_step=settings.first_step,
                            max_step=settings.max_step if settings.max_step > 0 else np.inf)
        if sol.status == -1:
            bad, tb = counters.get("last_bad", (-1, t))
            if bad >= 0 or bad <= -10:  # <= -10: joint friction (owner: reactions)
                raise SolverError(failure_message(cm, STATUS_BAD_MODEL, tb, bad, k0, len(out_times)))
            raise SolverError(f"scipy {settings.method} failed at t = {sol.t[-1] if len(sol.t) else t:.9g} s: "
                              f"{sol.message}")
        steps += int(sol.nfev)
        counters["steps"] = steps
        ys = np.asarray(sol.y, float).reshape(len(y), -1)  # scipy gives [] when t_eval is empty
        if ys.shape[1]:
            Ys.append(ys.T.copy()); DMs.append(np.tile(dm, (ys.shape[1], 1)))
            k0 += ys.shape[1]
        if sol.status == 1:  # a contact started
            for p, (te, ye) in enumerate(zip(sol.t_events, sol.y_events)):
                if len(te):
                    t, y = float(te[-1]), ye[-1].copy()
                    contact_gaps(y, n, cm.clr_i, cm.clr_f, g, gd, dist)
                    dm[p] = max(gd[p], 1e-6)
                    imp[0].append(t); imp[1].append(gd[p]); imp[2].append(pt_joint[p]); imp[3].append(p)
                    # restart just inside the contact so the event does not fire again
                    break
            # nudge: step the penetration off zero by integrating a tiny interval
            if g[p] <= 0.0:
                small = solve_ivp(f, (t, t + 1e-12), y, method="RK45", rtol=1e-12, atol=1e-15)
                t, y = small.t[-1], small.y[:, -1]
        else:
            break


def simulate(mech: Mechanism, settings: SolverSettings, *, surfaces: dict | None = None,
             geometries: dict | None = None, initial: tuple | None = None) -> Simulation:
    """Run ``mech`` with ``settings``; return the sampled :class:`Simulation`.

    ``surfaces`` / ``geometries``: worn profiles and contact-law geometries of revolute clearance
    joints, by joint index (see :func:`.compiled.compile_mechanism`).  ``initial``: ``(q0, qd0)``
    positions and velocities to start from (default: :func:`assemble`, clearance joints ideal).

    Raises :class:`SolverError` (naming the joint, model and time) when the integration fails,
    :class:`SolverTimeLimit` at the wall-time limit, :class:`RunInterrupted` (a
    ``KeyboardInterrupt``) on Ctrl-C; each carries the samples integrated so far in ``partial``.
    The compiled integrator runs in a worker thread so that Ctrl-C and the limit are answered
    within :data:`POLL` s plus one step.
    """
    if settings.path not in ("fast", "scipy"):
        raise SolverError(f"unknown solver path '{settings.path}'; valid: 'fast', 'scipy'")
    if settings.detection not in ("event", "step_halving"):
        raise SolverError(f"unknown contact detection '{settings.detection}'; valid: 'event', 'step_halving'")
    wall = _time.perf_counter()
    q0, qd0 = assemble(mech, settings.t_start) if initial is None else (np.asarray(initial[0], float),
                                                                        np.asarray(initial[1], float))
    cm = compile_mechanism(mech, angles=q0[2::3], surfaces=surfaces, geometries=geometries)
    y0 = np.concatenate([q0, qd0, np.zeros(cm.n_points), np.zeros(4)])
    n_out = int(np.floor((settings.t_end - settings.t_start) / settings.output_step + 1e-9)) + 1
    out_times = settings.t_start + settings.output_step * np.arange(n_out)
    deadline = min(current_deadline(),
                   _time.monotonic() + settings.max_wall_time if settings.max_wall_time > 0 else math.inf)
    if settings.specialise not in (True, False, "auto"):
        raise SolverError(f"unknown [solver] specialise {settings.specialise!r}; valid: true, false, 'auto'")
    evaluate = None
    if settings.path == "fast":
        Y, DM, imp, stats, evaluate = _fast_path(cm, y0, settings, out_times, deadline)
    else:
        Y, DM, imp, stats = _scipy_path(cm, y0, settings, out_times, deadline)
    sim = _to_simulation(cm, out_times[:len(Y)], Y, DM, imp, stats, settings, evaluate=evaluate)
    sim.stats["wall_time"] = _time.perf_counter() - wall
    sim.stats["path"] = settings.path
    # the reaction-friction loop's statistics
    if cm.joint_friction is not None:
        from .joint_friction import loop_stats
        sim.stats.update(loop_stats(cm.joint_friction_info))
    return sim
