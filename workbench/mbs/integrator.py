"""Compiled adaptive integrator with contact events.

Dormand & Prince 5(4) (J. Comput. Appl. Math. 6, 1980) with its 4th-order continuous extension
(Shampine, Math. Comp. 46, 1986 — the coefficients scipy's RK45 uses; :mod:`.dense`), standard step-size control
on positions, velocities and friction states.  Contact starts and ends are events located on the
dense output:

* ``DETECT_EVENT``: when the penetration of a contact point changes sign over an accepted step,
  the crossing is bracketed on the continuous extension and bisected to machine precision; the
  step is cut there, the impact velocity ``delta_dot_minus`` is taken from the state at the event
  and the integration restarts (FSAL reset) — the force law sees the true impact velocity.
* ``DETECT_HALVING``: Wu (2014) two-state, three-stage detection.  A step that crosses
  into (or out of) contact is rejected and halved until the end of the step lies at the critical
  point ``0 <= delta <= epsilon`` (``-epsilon <= delta <= 0`` on separation) or the step reaches
  ``min_step``; the step size before the switch is then restored.

Impact table: every contact start opens a row (time, approach speed).  While the contact of
that joint stays closed, the joint's normal force and penetration at the ends of the accepted
steps (free: from the right-hand side calls there) are watched; where a step end is a local
maximum of them and beats the row's record, Brent's method on the continuous extension of the
two steps next to it (the side that rises above it) locates the maximum (to 1e-9 of a step).  The dense output of the previous
step is kept for that (a copy of its stages).  The row thus holds the peak force and its time
and the largest penetration, as accurate as the dense output, not limited by the output step.
The row closes when all contact points of the joint have separated, or at the joint's next
contact start.  Steps with no closed contact cost nothing extra.

Layout: :func:`integrate` is the loop; a trial step is :func:`trial_step` (stages, error norm),
contact switching :func:`locate_event` / :func:`halving_verdict`, outputs :func:`write_samples`,
and the impact table :func:`track_peaks`, :func:`open_impacts`, :func:`close_rows`.  The model is
one :data:`.compiled.Model` argument, the settings one :data:`Settings`.  The parts are inlined
into the loop (``inline="always"``), so that it compiles as the one function it was: with the parts
as calls taking the named tuples the run measured 10-20 % slower (together with a slower
right-hand side, see :func:`.equations.rhs`), and the first compile was longer too (the Flores
study's first run 61.4 s of CPU against 46.7 s with the parts inlined, cold cache, 2026-12-07: each
call of a function taking the named tuples is its own compiled library).  The right-hand side
itself is a call (:func:`.equations.rhs`), typed once instead of at each site.

Specialised path (``[solver] specialise``): :mod:`.codegen_module` copies the source of
:func:`trial_step`, :func:`integrate`, :func:`track_peaks` and :func:`locate_event` verbatim into a
generated module, where ``rhs``, ``contact_gaps`` and the probes are specialised to the
mechanism's structure (it also replaces ``ny = y.shape[0]`` and the bisection's ``_dense`` call by
name, and refuses to generate when they are not found once each).  Edits here reach both paths.

Faults and aborts: a model output that fails its check (see :mod:`.clearance`) stops the run with
``STATUS_BAD_MODEL`` and the fault code; setting ``ctl[CTL_ABORT]`` from another thread (the
function releases the GIL) stops it at the next step with ``STATUS_ABORTED``.  Either way the
samples and impacts integrated so far are returned.
"""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from ..jit import njit  # house: numba is imported when a compiled function is first needed

from .clearance import C_FN, C_PEN, N_CREC, contact_gaps
from .dense import dense as _dense, probe as _probe, track as _track
from .equations import rhs, workspace
from .kernels import N_OUT

DETECT_EVENT, DETECT_HALVING = 0, 1
STATUS_OK, STATUS_STEP_UNDERFLOW, STATUS_MAX_STEPS, STATUS_BAD_MODEL, STATUS_SINGULAR = 0, 1, 2, 3, 4
STATUS_NONFINITE, STATUS_ABORTED = 5, 6
OPEN_MODE = -1.0  # impact-velocity slot of a contact point that is open (see integrate)

#: Settings of :func:`integrate`: ``rtol`` [1], ``atol`` (state units), first step ``h0`` [s],
#: largest step ``hmax`` [s] (0: none), Baumgarte ``alpha``, ``beta`` [1/s], the critical
#: penetration ``eps_crit`` [m] and smallest step ``hmin_halving`` [s] of step halving,
#: ``detect`` (``DETECT_*``), ``n_err`` (the leading state entries in the error norm: positions,
#: velocities, friction states), ``max_steps``, ``max_impacts`` (rows of the impact table) and
#: ``track`` (locate each impact's peaks on the dense output).
Settings = namedtuple("Settings", ["rtol", "atol", "h0", "hmax", "alpha", "beta", "eps_crit",
                                   "hmin_halving", "detect", "n_err", "max_steps", "max_impacts",
                                   "track"])
# control array ``ctl`` shared with the calling thread: abort request (set != 0 to stop at the
# next step), and the time reached [s] (written by the integrator after every accepted step)
CTL_ABORT, CTL_TIME = 0, 1
N_CTL = 2
# impact table columns (``imp`` float array, one row per contact start)
IMP_TIME, IMP_VELOCITY, IMP_PEAK_FORCE, IMP_PEAK_TIME, IMP_MAX_PEN, IMP_MAX_PEN_TIME = range(6)
N_IMP = 6
FIRST_ROWS = 256  # rows of the impact table at the start (it doubles when full)
#: impact-table state: the rows (``imp``, ``imp_j``, ``imp_p``), the open row of each joint
#: (``cur``, -1: none), the joints with a closed contact over the step (``active``), the force
#: and penetration of each joint at the start of the previous step (``Fm``, ``Pm``), of this step
#: (``F0``, ``P0``) and at its end (``FE``, ``PE``) from the right-hand side calls there, the
#: previous step's dense output (``y_p``, ``K_p``, ``dm_p``; ``prev`` = ``[h, t, th_end, valid]``)
#: and the probes' scratch (``scratch``: :func:`.dense.probe` buffers and a probe counter)
Table = namedtuple("Table", ["imp", "imp_j", "imp_p", "cur", "active", "Fm", "Pm", "F0", "P0", "FE",
                             "PE", "y_p", "K_p", "dm_p", "prev", "scratch"])

# Dormand-Prince 5(4) tableau
C2, C3, C4, C5 = 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0
A21 = 1.0 / 5.0
A31, A32 = 3.0 / 40.0, 9.0 / 40.0
A41, A42, A43 = 44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0
A51, A52, A53, A54 = 19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0
A61, A62, A63, A64, A65 = 9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0
B1, B3, B4, B5, B6 = 35.0 / 384.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0
E1, E3, E4, E5, E6, E7 = (-71.0 / 57600.0, 71.0 / 16695.0, -71.0 / 1920.0, 17253.0 / 339200.0,
                          -22.0 / 525.0, 1.0 / 40.0)


@njit(cache=True)
def _copy(dst, src):
    """``dst[:] = src`` for 1-D arrays of one length, as a loop: numba's slice assignment compiles
    a shape check whose error message (string formatting) cost about 0.7 s of compile per array
    rank in every function using it (2026-12-07, the Flores study's first run)."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True)
def _worse(a, b):
    """First failure code of two right-hand-side calls (-1 = all well)."""
    return a if a != -1 else b


@njit(cache=True, inline="always")
def _status(bad):
    """Integrator status of a failed right-hand side's code."""
    # codes <= -10: an ideal joint's friction (joint_friction.FAULT_BASE; owner: reactions)
    return STATUS_BAD_MODEL if (bad >= 0 or bad <= -10) else (STATUS_SINGULAR if bad == -2 else STATUS_NONFINITE)


@njit(cache=True)
def _make_table(ny, n, npts, nc, max_impacts):
    m = max(nc, 1)
    p = max(npts, 1)
    scratch = (np.zeros(ny), np.zeros(n), np.zeros(p), np.zeros((m, N_CREC)), np.zeros(N_OUT), np.zeros(1))
    rows = min(max_impacts, FIRST_ROWS)
    return Table(np.zeros((rows, N_IMP)), np.zeros(rows, np.int64),
                 np.zeros(rows, np.int64), np.full(m, -1, np.int64), np.zeros(m, np.bool_),
                 np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m),
                 np.zeros(ny), np.zeros((7, ny)), np.zeros(p), np.array([0.0, 0.0, 1.0, 0.0]), scratch)


@njit(cache=True)
def _grown(tab, max_impacts):
    """``tab`` with twice the rows (at most ``max_impacts``): the table grows as impacts come,
    rather than zeroing ``max_impacts`` rows up front (12.8 MB per run at the default cap)."""
    rows = min(2 * tab.imp.shape[0], max_impacts)
    imp = np.zeros((rows, N_IMP)); imp_j = np.zeros(rows, np.int64); imp_p = np.zeros(rows, np.int64)
    k = tab.imp.shape[0]
    for r in range(k):
        _copy(imp[r], tab.imp[r])
        imp_j[r] = tab.imp_j[r]; imp_p[r] = tab.imp_p[r]
    return Table(imp, imp_j, imp_p, tab.cur, tab.active, tab.Fm, tab.Pm, tab.F0, tab.P0, tab.FE, tab.PE,
                 tab.y_p, tab.K_p, tab.dm_p, tab.prev, tab.scratch)


@njit(cache=True, inline="always")
def _record_values(rec, nc, F, P):
    """Normal force and penetration of each joint from a right-hand side's record."""
    for j in range(nc):
        F[j] = rec[j, C_FN]; P[j] = rec[j, C_PEN]


@njit(cache=True, inline="always")
def trial_step(t, h, y, K, ytmp, ynew, dm, lam, rec, ws, s, model):
    """Stages 2-7 of a Dormand-Prince step of size ``h`` from ``(t, y)`` (``K[0]`` = f(t, y)):
    the 5th-order solution into ``ynew``, its derivative into ``K[6]`` (FSAL).  Returns
    ``(code of the stages, code at ynew, error norm)`` (codes: -1 when all is well)."""
    ny = y.shape[0]
    bad = -1; bad2 = -1
    # one call site of the (inlined) right-hand side for the six stages: the stage states are
    # formed by the branch of their stage, with the tableau's constants as before
    for st in range(1, 7):
        yy = ytmp
        if st == 1:
            tc = t + C2 * h
            for i in range(ny):
                ytmp[i] = y[i] + h * A21 * K[0, i]
        elif st == 2:
            tc = t + C3 * h
            for i in range(ny):
                ytmp[i] = y[i] + h * (A31 * K[0, i] + A32 * K[1, i])
        elif st == 3:
            tc = t + C4 * h
            for i in range(ny):
                ytmp[i] = y[i] + h * (A41 * K[0, i] + A42 * K[1, i] + A43 * K[2, i])
        elif st == 4:
            tc = t + C5 * h
            for i in range(ny):
                ytmp[i] = y[i] + h * (A51 * K[0, i] + A52 * K[1, i] + A53 * K[2, i] + A54 * K[3, i])
        elif st == 5:
            tc = t + h
            for i in range(ny):
                ytmp[i] = y[i] + h * (A61 * K[0, i] + A62 * K[1, i] + A63 * K[2, i] + A64 * K[3, i]
                                      + A65 * K[4, i])
        else:
            tc = t + h
            yy = ynew
            for i in range(ny):
                ynew[i] = y[i] + h * (B1 * K[0, i] + B3 * K[2, i] + B4 * K[3, i] + B5 * K[4, i]
                                      + B6 * K[5, i])
        code = rhs(tc, yy, dm, K[st], lam, rec, ws, s.alpha, s.beta, model)
        if st < 6:
            bad = _worse(bad, code)
        else:
            bad2 = code
    # error estimate (positions, velocities, friction states)
    err = 0.0
    for i in range(s.n_err):
        e = h * (E1 * K[0, i] + E3 * K[2, i] + E4 * K[3, i] + E5 * K[4, i] + E6 * K[5, i] + E7 * K[6, i])
        sc = s.atol + s.rtol * max(abs(y[i]), abs(ynew[i]))
        err += (e / sc) ** 2
    err = math.sqrt(err / s.n_err)
    if not math.isfinite(err):
        err = 1e10
    return bad, bad2, err


@njit(cache=True, inline="always")
def locate_event(t, h, y, K, g_old, g_new, ytmp, g_a, gd, model):
    """Fraction of the step [0, 1] at the first contact switch (a penetration changing sign),
    bisected on the continuous extension to machine precision; 2.0 when none."""
    n = model.mass.shape[0]
    th_ev = 2.0
    for p in range(g_old.shape[0]):
        if (g_old[p] > 0.0) != (g_new[p] > 0.0):
            lo = 0.0; hi = 1.0
            s_hi = g_new[p] > 0.0
            for it in range(200):
                mid = 0.5 * (lo + hi)
                _dense(y, K, h, mid, ytmp)
                contact_gaps(ytmp, n, model.clr_i, model.clr_f, g_a, gd, model.dist)
                if (g_a[p] > 0.0) == s_hi:
                    hi = mid
                else:
                    lo = mid
                if (hi - lo) * h <= 2e-16 * max(1.0, abs(t)) or hi - lo < 1e-15:
                    break
            if hi < th_ev:
                th_ev = hi
    return th_ev


@njit(cache=True, inline="always")
def halving_verdict(g_old, g_new, eps_crit):
    """Wu (2014) step halving: ``(switch, ok)`` -- a contact switches over the step, and the end
    of the step lies at the critical point (``0 <= delta <= eps_crit`` on contact,
    ``-eps_crit <= delta <= 0`` on separation)."""
    switch = False
    ok = True
    for p in range(g_old.shape[0]):
        if (g_old[p] > 0.0) != (g_new[p] > 0.0):
            switch = True
            if g_new[p] > 0.0 and g_new[p] > eps_crit:
                ok = False
            if g_new[p] <= 0.0 and g_new[p] < -eps_crit:
                ok = False
    return switch, ok


@njit(cache=True, inline="always")
def write_samples(t, h, t_new, y, K, dm, out_times, Y, DM, k_out):
    """Output samples inside ``(t, t_new]`` from the step's continuous extension; returns the
    next output index."""
    while k_out < out_times.shape[0] and out_times[k_out] <= t_new:
        _dense(y, K, h, (out_times[k_out] - t) / h, Y[k_out])
        _copy(DM[k_out], dm)
        k_out += 1
    return k_out


@njit(cache=True, inline="always")
def track_peaks(t, h, th_ev, y, K, dm, g_old, g_new, tab, track, model):
    """Impact table after an accepted step (cut at ``th_ev``): the peaks of the open contacts
    over it, located on the dense output (:func:`.dense.track`); keeps this step's dense output
    for the next."""
    nc = model.clr_i.shape[0]
    pt_joint = model.pt_joint
    cur = tab.cur; active = tab.active
    any_active = False
    for j in range(nc):
        active[j] = False
    for p in range(g_old.shape[0]):
        j = pt_joint[p]
        if cur[j] >= 0 and (g_old[p] > 0.0 or g_new[p] > 0.0):
            active[j] = True
            any_active = True
    if any_active and track:
        if th_ev < 1.0:  # a cut step: the values at the cut, on its dense output
            ys, Qs, zds, recs, tmps, count = tab.scratch
            ok_probe = _probe(y, K, h, th_ev, dm, model, ys, Qs, zds, recs, tmps)
            count[0] += 1.0
            for j in range(nc):
                tab.FE[j] = recs[j, C_FN] if ok_probe else -math.inf
                tab.PE[j] = recs[j, C_PEN] if ok_probe else -math.inf
        pv = tab.prev
        prev = (tab.y_p, tab.K_p, pv[0], pv[1], pv[2], tab.dm_p, pv[3] != 0.0)
        step = (y, K, h, t, th_ev, dm, True)
        for j in range(nc):
            if not active[j]:
                continue
            # the normal force, then the penetration: one call site, so that the inlined record
            # and its Brent search compile once (two sites typed them twice, with the record
            # column as two literal constants)
            for c in range(2):
                if c == 0:
                    v0 = tab.Fm[j]; v1 = tab.F0[j]; v2 = tab.FE[j]
                    col = C_FN; c_val = IMP_PEAK_FORCE; c_time = IMP_PEAK_TIME
                else:
                    v0 = tab.Pm[j]; v1 = tab.P0[j]; v2 = tab.PE[j]
                    col = C_PEN; c_val = IMP_MAX_PEN; c_time = IMP_MAX_PEN_TIME
                _track(v0, v1, v2, prev, step, model, tab.scratch, j, col, tab.imp, cur[j], c_val, c_time)
        _copy(tab.y_p, y); _copy(tab.dm_p, dm)
        for r in range(K.shape[0]):
            _copy(tab.K_p[r], K[r])
        pv[0] = h; pv[1] = t; pv[2] = th_ev
    tab.prev[3] = 1.0 if (any_active and track) else 0.0
    for j in range(nc):
        tab.Fm[j] = tab.F0[j]; tab.Pm[j] = tab.P0[j]
        tab.F0[j] = tab.FE[j]; tab.P0[j] = tab.PE[j]  # the new start (replaced after an event restart)


@njit(cache=True, inline="always")
def open_impacts(t_new, g_old, g_new, gd, dm, tab, n_imp, max_impacts, model):
    """A row of the impact table for every contact start at ``t_new`` (its approach speed becomes
    the point's impact velocity ``dm``); returns the new number of rows and the table (grown
    when full)."""
    for p in range(g_old.shape[0]):
        if g_new[p] > 0.0 and not (g_old[p] > 0.0):
            dm[p] = max(gd[p], 1e-6)
            j = model.pt_joint[p]
            tab.cur[j] = -1
            if n_imp < max_impacts:
                if n_imp == tab.imp.shape[0]:
                    tab = _grown(tab, max_impacts)
                imp = tab.imp
                imp[n_imp, IMP_TIME] = t_new; imp[n_imp, IMP_VELOCITY] = gd[p]
                imp[n_imp, IMP_PEAK_FORCE] = 0.0; imp[n_imp, IMP_PEAK_TIME] = t_new
                imp[n_imp, IMP_MAX_PEN] = g_new[p]; imp[n_imp, IMP_MAX_PEN_TIME] = t_new
                tab.imp_j[n_imp] = j; tab.imp_p[n_imp] = p
                tab.cur[j] = n_imp
                n_imp += 1
    return n_imp, tab


@njit(cache=True, inline="always")
def close_rows(g_new, dm, tab, model):
    """Contacts that ended over the step are open from here on; a joint's row closes when all its
    contact points are apart."""
    for p in range(g_new.shape[0]):
        if not (g_new[p] > 0.0):
            dm[p] = OPEN_MODE
    clr_i = model.clr_i
    for j in range(clr_i.shape[0]):
        if tab.cur[j] >= 0:
            closed = True
            for k in range(clr_i[j, 4]):
                if g_new[clr_i[j, 3] + k] > 0.0:
                    closed = False
            if closed:
                tab.cur[j] = -1


@njit(cache=True, nogil=True)
def integrate(y0, t0, t1, out_times, s, model, ctl):
    """Integrate from ``t0`` to ``t1``; return samples at ``out_times`` and the impact table.

    ``s`` holds the :data:`Settings`, ``model`` the :data:`.compiled.Model`, ``ctl`` the control
    array (``CTL_*``).

    Returns ``(Y, DM, n_out, imp, imp_j, imp_p, n_imp, stats, status, t_fail, fault)`` with
    ``Y[k]`` the state and ``DM[k]`` the impact velocities in force at ``out_times[k]``; ``imp``
    the impact table (``IMP_*`` columns), ``imp_j`` / ``imp_p`` the joint / contact point of
    each row; ``stats = [steps, rejected, rhs calls, events, probes]``; ``fault`` the model
    fault code (``STATUS_BAD_MODEL``) or -1.
    """
    ny = y0.shape[0]
    n = model.mass.shape[0]
    npts = ny - 2 * n - 4
    nc = model.clr_i.shape[0]
    clr_i = model.clr_i; clr_f = model.clr_f
    nout = out_times.shape[0]
    p1 = max(npts, 1)
    Y = np.zeros((nout, ny)); DM = np.zeros((nout, p1))
    tab = _make_table(ny, n, npts, nc, s.max_impacts)
    stats = np.zeros(5, np.int64)
    dm = np.full(p1, 1e-3)
    lam = np.zeros(max(model.n_rows, 1)); rec = np.zeros((max(nc, 1), N_CREC))
    ws = workspace(model.mass, model.n_rows, npts)
    K = np.zeros((7, ny)); ytmp = np.zeros(ny); ynew = np.zeros(ny)
    g_old = np.zeros(p1); g_new = np.zeros(p1); gd = np.zeros(p1); g_a = np.zeros(p1)
    go = g_old[:npts]; gn = g_new[:npts]   # the contact points' entries (views made once)
    t = t0
    y = y0.copy()
    contact_gaps(y, n, clr_i, clr_f, g_old, gd, model.dist)
    # contacts already closed at the start get their current approach speed; open ones are marked
    # OPEN_MODE: within a trial step the contact mode of the step's start is frozen (no force from
    # a point that was open, even where a stage penetrates), so the step is smooth, its error
    # estimate meaningful, and the crossing is located on a smooth dense output and the step cut
    # there.  Without it a law whose force jumps at first touch (Kelvin-Voigt: c delta_dot) made
    # every step across the contact start fail the error test down to step underflow at tight
    # tolerances (Shampine & Thompson (2000): integrate each mode smoothly, switch at events).
    for p in range(npts):
        dm[p] = max(gd[p], 1e-6) if g_old[p] > 0.0 else OPEN_MODE
    bad = rhs(t, y, dm, K[0], lam, rec, ws, s.alpha, s.beta, model)
    stats[2] += 1
    _record_values(rec, nc, tab.F0, tab.P0)
    if bad != -1:
        return Y, DM, 0, tab.imp, tab.imp_j, tab.imp_p, 0, stats, _status(bad), t, bad
    k_out = 0
    while k_out < nout and out_times[k_out] <= t0:
        _copy(Y[k_out], y); _copy(DM[k_out], dm); k_out += 1
    n_imp = 0
    h = s.h0
    h_saved = -1.0  # step before a step-halving sequence
    status = STATUS_OK
    while t < t1:
        if ctl[CTL_ABORT] != 0.0:
            status = STATUS_ABORTED
            break
        if stats[0] + stats[1] >= s.max_steps:
            status = STATUS_MAX_STEPS
            break
        if s.hmax > 0.0 and h > s.hmax:
            h = s.hmax
        last = False
        if t + h >= t1:
            h = t1 - t; last = True
        if h < 1e-15 * max(1.0, abs(t)):
            status = STATUS_STEP_UNDERFLOW
            break
        bad, bad2, err = trial_step(t, h, y, K, ytmp, ynew, dm, lam, rec, ws, s, model)
        stats[2] += 6
        _record_values(rec, nc, tab.FE, tab.PE)
        if bad2 != -1 or bad != -1:
            # a failed model check or a non-finite value inside a trial step: retry smaller (the
            # trial state may have overshot), give up at underflow
            if h > 1e-13:
                h *= 0.25
                stats[1] += 1
                continue
            bad = _worse(bad, bad2)
            return Y, DM, k_out, tab.imp, tab.imp_j, tab.imp_p, n_imp, stats, _status(bad), t, bad
        if err > 1.0:
            h *= max(0.2, 0.9 * err ** -0.2)
            stats[1] += 1
            continue
        # ---- contact switching over the step
        contact_gaps(ynew, n, clr_i, clr_f, g_new, gd, model.dist)
        if s.detect == DETECT_EVENT:
            th_ev = locate_event(t, h, y, K, go, gn, ytmp, g_a, gd, model)
        else:
            switch, ok = halving_verdict(go, gn, s.eps_crit)
            if switch and not ok and h > s.hmin_halving:
                if h_saved < 0.0:
                    h_saved = h
                h *= 0.5
                stats[1] += 1
                continue
            th_ev = 1.0 if switch else 2.0
        # ---- accept the step (cut at the first event when there is one)
        stats[0] += 1
        event = th_ev <= 1.0
        if event and th_ev < 1.0:
            _dense(y, K, h, th_ev, ynew)
            t_new = t + th_ev * h
            last = False
        else:
            t_new = t + h
            th_ev = 1.0
        k_out = write_samples(t, h, t_new, y, K, dm, out_times, Y, DM, k_out)
        track_peaks(t, h, th_ev, y, K, dm, go, gn, tab, s.track, model)
        if event:
            stats[3] += 1
            contact_gaps(ynew, n, clr_i, clr_f, g_new, gd, model.dist)
            n_imp, tab = open_impacts(t_new, go, gn, gd, dm, tab, n_imp, s.max_impacts,
                                      model)
        close_rows(gn, dm, tab, model)
        # error-based next step (from the full trial step)
        fac = 10.0 if err == 0.0 else min(10.0, max(0.2, 0.9 * err ** -0.2))
        h_next = h * fac
        if s.detect == DETECT_HALVING and event and h_saved > 0.0:
            h_next = h_saved
            h_saved = -1.0
        _copy(y, ynew)
        _copy(g_old, g_new)
        t = t_new if not last else t1
        ctl[CTL_TIME] = t
        if event:
            # restart after the event: the contact law now sees the new impact speed
            bad = rhs(t, y, dm, K[0], lam, rec, ws, s.alpha, s.beta, model)
            stats[2] += 1
            if bad != -1:
                while k_out < nout and out_times[k_out] <= t:
                    _copy(Y[k_out], y); _copy(DM[k_out], dm); k_out += 1
                return Y, DM, k_out, tab.imp, tab.imp_j, tab.imp_p, n_imp, stats, _status(bad), t, bad
            if th_ev < 1.0:
                h_next = max(h_next, 1e-12)
            _record_values(rec, nc, tab.F0, tab.P0)
        else:
            _copy(K[0], K[6])
        h = h_next
    while k_out < nout and out_times[k_out] <= t + 1e-15 * max(1.0, abs(t)):
        _copy(Y[k_out], y); _copy(DM[k_out], dm); k_out += 1
    stats[4] = int(tab.scratch[5][0])
    return Y, DM, k_out, tab.imp, tab.imp_j, tab.imp_p, n_imp, stats, status, t, -1
