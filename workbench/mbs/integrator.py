"""Compiled adaptive integrator with contact events.

Dormand & Prince 5(4) (J. Comput. Appl. Math. 6, 1980) with its 4th-order continuous extension
(Shampine, Math. Comp. 46, 1986 — the coefficients scipy's RK45 uses), standard step-size control
on positions, velocities and friction states.  Contact starts and ends are events located on the
dense output:

* ``DETECT_EVENT``: when the penetration of a contact point changes sign over an accepted step,
  the crossing is bracketed on the continuous extension and bisected to machine precision; the
  step is cut there, the impact velocity ``delta_dot_minus`` is taken from the state at the event
  and the integration restarts (FSAL reset) — the force law sees the true impact velocity.
* ``DETECT_HALVING``: seed 001 (Wu 2014): two-state, three-stage detection.  A step that crosses
  into (or out of) contact is rejected and halved until the end of the step lies at the critical
  point ``0 <= delta <= epsilon`` (``-epsilon <= delta <= 0`` on separation) or the step reaches
  ``min_step``; the step size before the switch is then restored.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .clearance import N_CREC, contact_gaps
from .equations import rhs, workspace_size

DETECT_EVENT, DETECT_HALVING = 0, 1
STATUS_OK, STATUS_STEP_UNDERFLOW, STATUS_MAX_STEPS, STATUS_BAD_MODEL, STATUS_SINGULAR = 0, 1, 2, 3, 4
STATUS_NONFINITE = 5
OPEN_MODE = -1.0  # impact-velocity slot of a contact point that is open (see integrate)

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
# continuous extension: y(t + th h) = y + h sum_k K_k (P_k1 th + P_k2 th^2 + P_k3 th^3 + P_k4 th^4)
P = np.array([
    [1.0, -8048581381.0 / 2820520608.0, 8663915743.0 / 2820520608.0, -12715105075.0 / 11282082432.0],
    [0.0, 0.0, 0.0, 0.0],
    [0.0, 131558114200.0 / 32700410799.0, -68118460800.0 / 10900136933.0, 87487479700.0 / 32700410799.0],
    [0.0, -1754552775.0 / 470086768.0, 14199869525.0 / 1410260304.0, -10690763975.0 / 1880347072.0],
    [0.0, 127303824393.0 / 49829197408.0, -318862633887.0 / 49829197408.0, 701980252875.0 / 199316789632.0],
    [0.0, -282668133.0 / 205662961.0, 2019193451.0 / 616988883.0, -1453857185.0 / 822651844.0],
    [0.0, 40617522.0 / 29380423.0, -110615467.0 / 29380423.0, 69997945.0 / 29380423.0]])


@njit(cache=True)
def _worse(a, b):
    """First failure code of two right-hand-side calls (-1 = all well)."""
    return a if a != -1 else b


@njit(cache=True)
def _dense(y, K, h, th, out):
    """Continuous extension at fraction ``th`` of the step into ``out``."""
    t2 = th * th; t3 = t2 * th; t4 = t3 * th
    for i in range(y.shape[0]):
        acc = 0.0
        for k in range(7):
            acc += K[k, i] * (P[k, 0] * th + P[k, 1] * t2 + P[k, 2] * t3 + P[k, 3] * t4)
        out[i] = y[i] + h * acc


@njit(cache=True)
def integrate(y0, t0, t1, out_times, rtol, atol, h0, hmax, alpha, beta, detect, eps_crit, hmin_halving,
              n_err, n_rows, max_steps, max_impacts,
              mass, cons_i, cons_f, drv_f, frc_i, frc_f, gravity, clr_i, clr_f,
              ckern, fkern, cpar, fpar, has_z):
    """Integrate from ``t0`` to ``t1``; return samples at ``out_times`` and the impact table.

    Returns ``(Y, DM, n_out, imp_t, imp_v, imp_j, imp_p, n_imp, stats, status, t_fail, bad_joint)``
    with ``Y[k]`` the state and ``DM[k]`` the impact velocities in force at ``out_times[k]``;
    ``stats = [steps, rejected, rhs calls, events]``.
    """
    ny = y0.shape[0]
    n = mass.shape[0]
    npts = ny - 2 * n - 4
    nc = clr_i.shape[0]
    nout = out_times.shape[0]
    Y = np.zeros((nout, ny)); DM = np.zeros((nout, max(npts, 1)))
    imp_t = np.zeros(max_impacts); imp_v = np.zeros(max_impacts)
    imp_j = np.zeros(max_impacts, np.int64); imp_p = np.zeros(max_impacts, np.int64)
    stats = np.zeros(4, np.int64)
    dm = np.full(max(npts, 1), 1e-3)
    pt_joint = np.zeros(max(npts, 1), np.int64)
    for j in range(nc):
        for k in range(clr_i[j, 4]):
            pt_joint[clr_i[j, 3] + k] = j
    lam = np.zeros(max(n_rows, 1)); rec = np.zeros((max(nc, 1), N_CREC))
    ws = np.zeros(workspace_size(n, n_rows, npts))
    K = np.zeros((7, ny)); ytmp = np.zeros(ny); ynew = np.zeros(ny)
    g_old = np.zeros(max(npts, 1)); g_new = np.zeros(max(npts, 1)); gd = np.zeros(max(npts, 1))
    g_a = np.zeros(max(npts, 1))
    t = t0
    y = y0.copy()
    contact_gaps(y, n, clr_i, clr_f, g_old, gd)
    # contacts already closed at the start get their current approach speed; open ones are marked
    # OPEN_MODE: within a trial step the contact mode of the step's start is frozen (no force from
    # a point that was open, even where a stage penetrates), so the step is smooth, its error
    # estimate meaningful, and the crossing is located on a smooth dense output and the step cut
    # there.  Without it a law whose force jumps at first touch (Kelvin-Voigt: c delta_dot) made
    # every step across the contact start fail the error test down to step underflow at tight
    # tolerances (Shampine & Thompson (2000): integrate each mode smoothly, switch at events).
    for p in range(npts):
        dm[p] = max(gd[p], 1e-6) if g_old[p] > 0.0 else OPEN_MODE
    bad = rhs(t, y, dm, K[0], lam, rec, ws, alpha, beta, n_rows, mass, cons_i, cons_f, drv_f, frc_i,
              frc_f, gravity, clr_i, clr_f, ckern, fkern, cpar, fpar, has_z)
    stats[2] += 1
    if bad != -1:
        return Y, DM, 0, imp_t, imp_v, imp_j, imp_p, 0, stats, STATUS_BAD_MODEL if bad >= 0 else STATUS_SINGULAR, t, bad
    k_out = 0
    while k_out < nout and out_times[k_out] <= t0:
        Y[k_out] = y; DM[k_out, :] = dm; k_out += 1
    n_imp = 0
    h = h0
    h_saved = -1.0  # step before a step-halving sequence
    status = STATUS_OK
    while t < t1:
        if stats[0] + stats[1] >= max_steps:
            status = STATUS_MAX_STEPS
            break
        if hmax > 0.0 and h > hmax:
            h = hmax
        last = False
        if t + h >= t1:
            h = t1 - t; last = True
        if h < 1e-15 * max(1.0, abs(t)):
            status = STATUS_STEP_UNDERFLOW
            break
        # ---- stages
        for i in range(ny):
            ytmp[i] = y[i] + h * A21 * K[0, i]
        bad = rhs(t + C2 * h, ytmp, dm, K[1], lam, rec, ws, alpha, beta, n_rows, mass, cons_i, cons_f, drv_f,
                  frc_i, frc_f, gravity, clr_i, clr_f, ckern, fkern, cpar, fpar, has_z)
        for i in range(ny):
            ytmp[i] = y[i] + h * (A31 * K[0, i] + A32 * K[1, i])
        bad = _worse(bad, rhs(t + C3 * h, ytmp, dm, K[2], lam, rec, ws, alpha, beta, n_rows, mass, cons_i, cons_f,
                           drv_f, frc_i, frc_f, gravity, clr_i, clr_f, ckern, fkern, cpar, fpar, has_z))
        for i in range(ny):
            ytmp[i] = y[i] + h * (A41 * K[0, i] + A42 * K[1, i] + A43 * K[2, i])
        bad = _worse(bad, rhs(t + C4 * h, ytmp, dm, K[3], lam, rec, ws, alpha, beta, n_rows, mass, cons_i, cons_f,
                           drv_f, frc_i, frc_f, gravity, clr_i, clr_f, ckern, fkern, cpar, fpar, has_z))
        for i in range(ny):
            ytmp[i] = y[i] + h * (A51 * K[0, i] + A52 * K[1, i] + A53 * K[2, i] + A54 * K[3, i])
        bad = _worse(bad, rhs(t + C5 * h, ytmp, dm, K[4], lam, rec, ws, alpha, beta, n_rows, mass, cons_i, cons_f,
                           drv_f, frc_i, frc_f, gravity, clr_i, clr_f, ckern, fkern, cpar, fpar, has_z))
        for i in range(ny):
            ytmp[i] = y[i] + h * (A61 * K[0, i] + A62 * K[1, i] + A63 * K[2, i] + A64 * K[3, i] + A65 * K[4, i])
        bad = _worse(bad, rhs(t + h, ytmp, dm, K[5], lam, rec, ws, alpha, beta, n_rows, mass, cons_i, cons_f,
                           drv_f, frc_i, frc_f, gravity, clr_i, clr_f, ckern, fkern, cpar, fpar, has_z))
        for i in range(ny):
            ynew[i] = y[i] + h * (B1 * K[0, i] + B3 * K[2, i] + B4 * K[3, i] + B5 * K[4, i] + B6 * K[5, i])
        bad2 = rhs(t + h, ynew, dm, K[6], lam, rec, ws, alpha, beta, n_rows, mass, cons_i, cons_f, drv_f,
                   frc_i, frc_f, gravity, clr_i, clr_f, ckern, fkern, cpar, fpar, has_z)
        stats[2] += 6
        if bad2 != -1 or bad != -1:
            # a non-finite model output inside a trial step: retry smaller, give up at underflow
            if h > 1e-13:
                h *= 0.25
                stats[1] += 1
                continue
            bad = _worse(bad, bad2)
            status = STATUS_BAD_MODEL if bad >= 0 else (STATUS_SINGULAR if bad == -2 else STATUS_NONFINITE)
            return Y, DM, k_out, imp_t, imp_v, imp_j, imp_p, n_imp, stats, status, t, bad
        # ---- error estimate (positions, velocities, friction states)
        err = 0.0
        for i in range(n_err):
            e = h * (E1 * K[0, i] + E3 * K[2, i] + E4 * K[3, i] + E5 * K[4, i] + E6 * K[5, i] + E7 * K[6, i])
            sc = atol + rtol * max(abs(y[i]), abs(ynew[i]))
            err += (e / sc) ** 2
        err = math.sqrt(err / n_err)
        if not math.isfinite(err):
            err = 1e10
        if err > 1.0:
            h *= max(0.2, 0.9 * err ** -0.2)
            stats[1] += 1
            continue
        # ---- contact switching over the step
        contact_gaps(ynew, n, clr_i, clr_f, g_new, gd)
        th_ev = 2.0
        for p in range(npts):
            if (g_old[p] > 0.0) != (g_new[p] > 0.0):
                if detect == DETECT_EVENT:
                    lo = 0.0; hi = 1.0
                    s_hi = g_new[p] > 0.0
                    for it in range(200):
                        mid = 0.5 * (lo + hi)
                        _dense(y, K, h, mid, ytmp)
                        contact_gaps(ytmp, n, clr_i, clr_f, g_a, gd)
                        if (g_a[p] > 0.0) == s_hi:
                            hi = mid
                        else:
                            lo = mid
                        if (hi - lo) * h <= 2e-16 * max(1.0, abs(t)) or hi - lo < 1e-15:
                            break
                    if hi < th_ev:
                        th_ev = hi
        if detect == DETECT_HALVING:
            switch = False
            ok = True
            for p in range(npts):
                if (g_old[p] > 0.0) != (g_new[p] > 0.0):
                    switch = True
                    if g_new[p] > 0.0 and g_new[p] > eps_crit:
                        ok = False
                    if g_new[p] <= 0.0 and g_new[p] < -eps_crit:
                        ok = False
            if switch and not ok and h > hmin_halving:
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
        # outputs inside (t, t_new]
        while k_out < nout and out_times[k_out] <= t_new:
            _dense(y, K, h, (out_times[k_out] - t) / h, Y[k_out])
            DM[k_out, :] = dm
            k_out += 1
        if event:
            stats[3] += 1
            contact_gaps(ynew, n, clr_i, clr_f, g_new, gd)
            for p in range(npts):
                if g_new[p] > 0.0 and not (g_old[p] > 0.0):
                    dm[p] = max(gd[p], 1e-6)
                    if n_imp < max_impacts:
                        imp_t[n_imp] = t_new; imp_v[n_imp] = gd[p]
                        imp_j[n_imp] = pt_joint[p]; imp_p[n_imp] = p
                        n_imp += 1
        # contacts that ended over this step are open from here on
        for p in range(npts):
            if not (g_new[p] > 0.0):
                dm[p] = OPEN_MODE
        # error-based next step (from the full trial step)
        fac = 10.0 if err == 0.0 else min(10.0, max(0.2, 0.9 * err ** -0.2))
        h_next = h * fac
        if detect == DETECT_HALVING and event and h_saved > 0.0:
            h_next = h_saved
            h_saved = -1.0
        y[:] = ynew
        g_old[:] = g_new
        t = t_new if not last else t1
        if event and th_ev < 1.0:
            bad = rhs(t, y, dm, K[0], lam, rec, ws, alpha, beta, n_rows, mass, cons_i, cons_f, drv_f, frc_i,
                      frc_f, gravity, clr_i, clr_f, ckern, fkern, cpar, fpar, has_z)
            stats[2] += 1
            h_next = max(h_next, 1e-12)
        elif event:
            bad = rhs(t, y, dm, K[0], lam, rec, ws, alpha, beta, n_rows, mass, cons_i, cons_f, drv_f, frc_i,
                      frc_f, gravity, clr_i, clr_f, ckern, fkern, cpar, fpar, has_z)
            stats[2] += 1
        else:
            K[0, :] = K[6, :]
        h = h_next
    while k_out < nout and out_times[k_out] <= t + 1e-15 * max(1.0, abs(t)):
        Y[k_out] = y; DM[k_out, :] = dm; k_out += 1
    return Y, DM, k_out, imp_t, imp_v, imp_j, imp_p, n_imp, stats, status, t, -1
