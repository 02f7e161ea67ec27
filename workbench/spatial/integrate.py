"""The compiled integration loop of the spatial engine (the fast path): DOP853 with its dense
output and the clearance joints' contact events, returning to Python only at an event, at the end,
after :data:`CHUNK` steps (the wall-time check) or when a call needs the reference path.

The method is scipy's ``DOP853`` (Hairer, Norsett & Wanner (1993) §II.10; the coefficients of
``scipy.integrate._ivp.dop853_coefficients``) step for step: the same error norm (the 5th- and
3rd-order estimates combined), step-size factors (safety 0.9, within 0.2 and 10, exponent -1/8),
the given first step, the 7th-order dense output with its three extra stages, and the events as
``solve_ivp`` finds them: a penetration's sign change over an accepted step in the direction of
its point's mode (upwards while open, downwards while closed) is located by Brent's method
(``brentq``, to ``4 eps`` absolute and relative) on the dense output, the earliest root ends the
run.  So the reference path (``path = "scipy"``: ``solve_ivp`` with the Python right-hand side)
and this loop take the same steps up to rounding.

The right-hand side (:func:`deriv`: :func:`.kernels.rhs`, the clearance forces of
:func:`.clearance.compiled_forces.forces`, the joints' friction table) and the contact points
(:func:`gaps`) are compiled functions called by name; the laws reach them as C callbacks, as in
the planar engine (:mod:`workbench.mbs.kernels`): each contact and friction law's kernel wrapped in
a ``numba.cfunc`` of the plugin contract's signature (cached on disk,
:func:`workbench.runtime.caches.cached_cfunc`), passed in two tuples of first-class function values
(``cfs`` the contact laws, ``ffs`` the friction laws of the clearance joints and of the ideal
joints, padded to a multiple of :data:`.clearance.compiled_forces.SLOTS`), with each joint's index
into them (:func:`load`).  numba cannot cache a function that takes a Python-level function as an
argument, but it caches one that takes C function pointers: so :func:`segment` is compiled once per
source state and cached on disk (``cache=True``), whatever the laws, the number of clearance joints
(their parameters are the rows of one array) and whether there are any (``nq = 0``: the clearance
arguments are empty arrays of the same types).  A law whose kernel does not compile as a C callback
keeps ``solve_ivp`` (:func:`load` returns None).  The indirect call costs a few nanoseconds against
the kernel's inlined body; the arithmetic is the same, so are the results (to the last bit).

:func:`segment` status codes: :data:`DONE` (reached ``t1``), :data:`EVENT` (a contact event:
the state at the root in ``y_out``, the event's point in the result), :data:`PAUSED` (``CHUNK``
steps: call again from the returned state and step size, the results are those of one call),
:data:`FALLBACK` (the joints' friction loop did not close in a call, or the axial point has no
consistent position: the caller continues from ``t`` on the reference right-hand side),
:data:`BAD_LAW` (a clearance law returned a force that is not finite, or raised: the stage state in
``y_out``, the caller raises the reference path's error), :data:`TOO_SMALL` (the step fell under
scipy's smallest step).
"""
from __future__ import annotations

import numpy as np
from scipy.integrate._ivp import dop853_coefficients as _dc

from ..jit import N_OUT, njit
from .clearance.compiled_forces import forces
from .clearance.kernels import G_PEN, points_of_state
from .clearance.worn_kernels import take_depths
from .fast_rhs import rhs, workspace
from .kernels import slip_speeds

DONE, EVENT, PAUSED, FALLBACK, BAD_LAW, TOO_SMALL = 0, 1, 2, 3, 4, 5
#: accepted steps per call of :func:`segment` (then the caller checks the wall-time limit)
CHUNK = 4096
#: ``deriv`` status: 0 fine, 1 the friction loop did not close, 2 a clearance law's bad force
D_OK, D_FRICTION, D_BAD_LAW = 0, 1, 2

_SAFETY, _MIN_FACTOR, _MAX_FACTOR = 0.9, 0.2, 10.0
_DC_A = _dc.A
_DC_B = _dc.B
_DC_C = _dc.C
_DC_E3 = _dc.E3
_DC_E5 = _dc.E5
_DC_D = _dc.D


@njit(cache=True)
def stage_state(s, t, t_new, h, y, K, ytmp, ynew):
    """The state at which scipy's DOP853 evaluates stage ``s`` of the step ``[t, t_new]`` of size
    ``h`` (stages 1-11 and the dense output's 13-15 from the stages ``K`` before them; stage 12 the
    8th-order solution, also written to ``ynew``) into ``ytmp``; returns the stage's time."""
    ny = y.shape[0]
    if s == 12:
        for i in range(ny):
            acc = 0.0
            for q in range(12):
                acc += K[q, i] * _DC_B[q]
            ynew[i] = y[i] + h * acc
            ytmp[i] = ynew[i]
        return t_new
    for i in range(ny):
        acc = 0.0
        for q in range(s):
            acc += K[q, i] * _DC_A[s, q]
        ytmp[i] = y[i] + acc * h
    return t + _DC_C[s] * h


@njit(cache=True)
def dense_coefficients(h, y, ynew, K, F):
    """scipy's DOP853 dense-output coefficients ``F`` (7, ny) of the step of size ``h`` from ``y`` to
    ``ynew`` with the 16 stages ``K`` (:func:`dense_eval` evaluates them)."""
    for i in range(y.shape[0]):
        dy = ynew[i] - y[i]
        F[0, i] = dy
        F[1, i] = h * K[0, i] - dy
        F[2, i] = 2.0 * dy - h * (K[12, i] + K[0, i])
        for r in range(4):
            acc = 0.0
            for q in range(16):
                acc += _DC_D[r, q] * K[q, i]
            F[3 + r, i] = h * acc


@njit(cache=True)
def error_norm(K, y, ynew, h, atol, rtol):
    """scipy's DOP853 error norm of a trial step of size ``h`` from ``y`` to ``ynew`` with the
    stages ``K`` (its 5th- and 3rd-order estimates combined); a step is accepted below 1."""
    ny = y.shape[0]
    e5 = 0.0; e3 = 0.0
    for i in range(ny):
        sc = atol + max(abs(y[i]), abs(ynew[i])) * rtol
        a5 = 0.0; a3 = 0.0
        for q in range(13):
            a5 += K[q, i] * _DC_E5[q]
            a3 += K[q, i] * _DC_E3[q]
        a5 /= sc; a3 /= sc
        e5 += a5 * a5; e3 += a3 * a3
    if e5 == 0.0 and e3 == 0.0:
        return 0.0
    return abs(h) * e5 / np.sqrt((e5 + 0.01 * e3) * ny)


@njit(cache=True)
def step_factor(err, exponent, rejected):
    """scipy's factor on the step size after a trial step with the error norm ``err``: grown at
    most ``_MAX_FACTOR`` (not at all right after a rejection) when accepted (``err < 1``), shrunk
    at least to ``_MIN_FACTOR`` when rejected."""
    if err < 1.0:
        if err == 0.0:
            factor = _MAX_FACTOR
        else:
            factor = _SAFETY * err ** exponent
            if not factor < _MAX_FACTOR:
                factor = _MAX_FACTOR
        if rejected and factor > 1.0:
            factor = 1.0
        return factor
    factor = _SAFETY * err ** exponent
    if not factor > _MIN_FACTOR:
        factor = _MIN_FACTOR
    return factor


@njit(cache=True)
def deriv(t, Y, dm, alpha, beta, rargs, cargs, jargs, nq, cfs, ffs, out, ws):
    """The state's derivative into ``out``; a ``D_*`` status.  The clearance forces
    (:func:`.clearance.compiled_forces.forces`, with ``nq = 2`` the normal forces' and the
    friction's work as the last two states; ``nq = 0``: no clearance joint, ``cargs`` empty
    arrays), the joints' friction table (each joint's law at unit load, ``jargs`` of
    :func:`load`: the law's index in ``ffs``) and :func:`.fast_rhs.rhs` with its workspace ``ws``
    (:func:`.fast_rhs.workspace`: no array allocated here without clearance joints or friction)."""
    n = out.shape[0] - nq
    y = Y[:n]
    pc = 0.0
    pf = 0.0
    if nq:
        Qx, pc, pf, bad, kind, value = forces(y, dm, cargs[0], cargs[1], cargs[2], cargs[3], cargs[4], cargs[5],
                                              cargs[6], cargs[7], cargs[8], cargs[9], cargs[10], cargs[11],
                                              cargs[12], cfs, ffs)
        if bad >= 0:
            return D_BAD_LAW
    else:
        Qx = ws[19]
    ftab = ws[20]
    if jargs[0].shape[0] > 0:
        for q in range(ftab.shape[0]):
            ftab[q, 0] = 0.0
            ftab[q, 1] = 0.0
        v = slip_speeds(y, rargs[0], rargs[4], rargs[5])
        tmp = np.zeros(N_OUT)
        for m in range(jargs[0].shape[0]):
            q = jargs[0][m]
            p = jargs[3][m]
            ftab[q, 0] = ffs[jargs[1][m]](v[q, 0], 1.0, 0.0, p.ctypes, tmp.ctypes)
            if jargs[2][m]:
                ftab[q, 1] = ffs[jargs[1][m]](v[q, 1], 1.0, 0.0, p.ctypes, tmp.ctypes)
    yd = ws[21]
    st = 0
    try:
        st = rhs(t, y, alpha, beta, rargs[0], rargs[1], rargs[2], rargs[3], rargs[4], rargs[5], rargs[6],
                 rargs[7], rargs[8], rargs[9], rargs[10], rargs[11], rargs[12], rargs[13], rargs[14], rargs[15],
                 rargs[16], rargs[17], ftab, Qx, yd, ws)
    except Exception:   # a wild trial stage (singular system): NaN, the step is rejected
        yd[:] = np.nan
    if st != 0:
        return D_FRICTION
    out[:n] = yd
    if nq:
        out[n] = pc
        out[n + 1] = -pf
    return D_OK


@njit(cache=True)
def gaps(Y, n, cargs):
    """Penetration [m] of every contact point of the state ``Y`` (none when ``n`` is the whole
    state: no clearance joint)."""
    if n == Y.shape[0]:
        return np.zeros(0)
    R, A, V, W, G = points_of_state(Y[:n], cargs[0], cargs[1], cargs[2])
    if cargs[8].shape[0] > 0:
        take_depths(G, R, A, cargs[8], cargs[9], cargs[10])
    return G[:, G_PEN].copy()


@njit(cache=True)
def dense_eval(F, y_old, x, out):
    """scipy's ``Dop853DenseOutput`` at fraction ``x`` of the step into ``out``."""
    for i in range(y_old.shape[0]):
        v = 0.0
        for r in range(7):
            v += F[6 - r, i]
            if r % 2 == 0:
                v *= x
            else:
                v *= 1.0 - x
        out[i] = v + y_old[i]


@njit(cache=True)
def event_root(k, t_old, h, F, y_old, n, cargs, ytmp):
    """The zero of point ``k``'s penetration on the dense output of the step ``[t_old, t_old + h]``:
    scipy's ``brentq`` (its C code; ``xtol = rtol = 4 eps``, 100 iterations)."""
    xtol = 4.0 * 2.220446049250313e-16
    rtol = xtol
    xpre = t_old
    xcur = t_old + h
    dense_eval(F, y_old, (xpre - t_old) / h, ytmp)
    fpre = gaps(ytmp, n, cargs)[k]
    dense_eval(F, y_old, (xcur - t_old) / h, ytmp)
    fcur = gaps(ytmp, n, cargs)[k]
    if fpre == 0.0:
        return xpre
    if fcur == 0.0:
        return xcur
    xblk = 0.0; fblk = 0.0; spre = 0.0; scur = 0.0
    for _ in range(100):
        if fpre != 0.0 and fcur != 0.0 and ((fpre < 0.0) != (fcur < 0.0)):
            xblk = xpre; fblk = fpre
            spre = xcur - xpre; scur = spre
        if abs(fblk) < abs(fcur):
            xpre = xcur; xcur = xblk; xblk = xpre
            fpre = fcur; fcur = fblk; fblk = fpre
        delta = (xtol + rtol * abs(xcur)) / 2.0
        sbis = (xblk - xcur) / 2.0
        if fcur == 0.0 or abs(sbis) < delta:
            return xcur
        if abs(spre) > delta and abs(fcur) < abs(fpre):
            if xpre == xblk:
                stry = -fcur * (xcur - xpre) / (fcur - fpre)
            else:
                dpre = (fpre - fcur) / (xpre - xcur)
                dblk = (fblk - fcur) / (xblk - xcur)
                stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            if 2.0 * abs(stry) < min(abs(spre), 3.0 * abs(sbis) - delta):
                spre = scur; scur = stry
            else:
                spre = sbis; scur = sbis
        else:
            spre = sbis; scur = sbis
        xpre = xcur; fpre = fcur
        if abs(scur) > delta:
            xcur += scur
        else:
            xcur += delta if sbis > 0.0 else -delta
        dense_eval(F, y_old, (xcur - t_old) / h, ytmp)
        fcur = gaps(ytmp, n, cargs)[k]
    return xcur


@njit(cache=True)
def segment(t, t1, y, h_abs, hmax, rtol, atol, times, k_out, Ys, dm, alpha, beta, rargs, cargs, jargs,
            nq, cfs, ffs, store, Tst, Hst, Fst, Yst, y_out):
    """Integrate from ``(t, y)`` towards ``t1`` (DOP853, module docstring), first trying the step
    ``h_abs`` (at most ``hmax``); the samples at ``times[k_out:]`` reached go into ``Ys``; with
    ``store`` each accepted step's dense output goes into ``Tst`` (step starts, then the end),
    ``Hst`` (the steps' full lengths), ``Fst``, ``Yst`` (:data:`CHUNK` steps at most).  Returns ``(status, t, h_abs, last_h, k_out,
    n_steps, nfev, hit)``: the time reached, the next step size, the length of the last step (to
    the event), the next sample, the steps stored, the right-hand side calls and the event's
    point (-1); the state reached in ``y_out``."""
    C = _DC_C
    ny = y.shape[0]
    n = ny - nq
    nout = times.shape[0]
    K = np.empty((16, ny))
    f = np.empty(ny)
    ynew = np.empty(ny)
    ytmp = np.empty(ny)
    F = np.empty((7, ny))
    ws = workspace(rargs[0], rargs[4].shape[0], rargs[11], rargs[2])
    y = y.copy()
    nfev = 1
    st = deriv(t, y, dm, alpha, beta, rargs, cargs, jargs, nq, cfs, ffs, f, ws)
    if st != 0:
        y_out[:] = y
        return (FALLBACK if st == 1 else BAD_LAW), t, h_abs, 0.0, k_out, 0, nfev, -1
    g = gaps(y, n, cargs)
    npts = g.shape[0]
    n_steps = 0
    last_h = 0.0
    exponent = -1.0 / 8.0
    while True:
        if t >= t1:
            y_out[:] = y
            return DONE, t, h_abs, last_h, k_out, n_steps, nfev, -1
        if n_steps >= CHUNK:
            y_out[:] = y
            return PAUSED, t, h_abs, last_h, k_out, n_steps, nfev, -1
        min_step = 10.0 * abs(np.nextafter(t, np.inf) - t)
        if h_abs > hmax:
            h_abs = hmax
        elif h_abs < min_step:
            h_abs = min_step
        rejected = False
        while True:
            if h_abs < min_step:
                y_out[:] = y
                return TOO_SMALL, t, h_abs, last_h, k_out, n_steps, nfev, -1
            t_new = t + h_abs
            if t_new > t1:
                t_new = t1
            h = t_new - t
            h_abs = abs(h)
            K[0] = f
            for s in range(1, 13):
                tt = stage_state(s, t, t_new, h, y, K, ytmp, ynew)
                nfev += 1
                st = deriv(tt, ytmp, dm, alpha, beta, rargs, cargs, jargs, nq, cfs, ffs, K[s], ws)
                if st != 0:
                    if st == 1:
                        y_out[:] = y
                        return FALLBACK, t, h_abs, last_h, k_out, n_steps, nfev, -1
                    y_out[:] = ytmp
                    return BAD_LAW, t, h_abs, last_h, k_out, n_steps, nfev, -1
            err = error_norm(K, y, ynew, h, atol, rtol)
            h_abs *= step_factor(err, exponent, rejected)
            if err < 1.0:
                break
            rejected = True
        # the accepted step [t, t_new]: events, dense output, samples
        g_new = gaps(ynew, n, cargs)
        active = False
        for k in range(npts):
            if dm[k] < 0.0:
                if g[k] <= 0.0 and g_new[k] >= 0.0:
                    active = True
            elif g[k] >= 0.0 and g_new[k] <= 0.0:
                active = True
        need = store or active or (k_out < nout and times[k_out] <= t_new)
        if need:
            for s in range(13, 16):
                stage_state(s, t, t_new, h, y, K, ytmp, ynew)
                nfev += 1
                st = deriv(t + C[s] * h, ytmp, dm, alpha, beta, rargs, cargs, jargs, nq, cfs, ffs, K[s], ws)
                if st != 0:      # the step is dropped: the caller goes on from its start
                    if st == 1:
                        y_out[:] = y
                        return FALLBACK, t, h, last_h, k_out, n_steps, nfev, -1
                    y_out[:] = ytmp
                    return BAD_LAW, t, h, last_h, k_out, n_steps, nfev, -1
            dense_coefficients(h, y, ynew, K, F)
        t_end = t_new
        hit = -1
        if active:
            for k in range(npts):
                up = g[k] <= 0.0 and g_new[k] >= 0.0
                down = g[k] >= 0.0 and g_new[k] <= 0.0
                if (dm[k] < 0.0 and up) or (dm[k] >= 0.0 and down):
                    r = event_root(k, t, h, F, y, n, cargs, ytmp)
                    if hit < 0 or r < t_end:
                        t_end = r
                        hit = k
        while k_out < nout and times[k_out] <= t_end:
            dense_eval(F, y, (times[k_out] - t) / h, Ys[k_out])
            k_out += 1
        if store:
            Tst[n_steps] = t
            Tst[n_steps + 1] = t_end
            Hst[n_steps] = h
            Fst[n_steps] = F
            Yst[n_steps] = y
        n_steps += 1
        last_h = t_end - t
        if hit >= 0:
            dense_eval(F, y, (t_end - t) / h, y_out)
            return EVENT, t_end, h_abs, last_h, k_out, n_steps, nfev, hit
        t = t_new
        y[:] = ynew
        f[:] = K[12]
        g = g_new


def _joint_laws(model, table):
    """``jargs``: per joint with friction its index, its law's index in ``table`` (a
    :class:`.clearance.compiled_forces.LawTable`, the friction callbacks), whether it is a
    universal joint (two journals) and its law's parameters (rows padded with zeros)."""
    rows = []
    for q, j in enumerate(model.mechanism.joints):
        if j.friction is None:
            continue
        rows.append((q, table.friction(j.friction.kernel), j.type == "universal",
                     np.asarray(j.friction.pack(), float)))
    width = max([len(r[3]) for r in rows] + [1])
    jp = np.zeros((len(rows), width))
    for m, r in enumerate(rows):
        jp[m, :len(r[3])] = r[3]
    return (np.array([r[0] for r in rows], np.int64), np.array([r[1] for r in rows], np.int64),
            np.array([r[2] for r in rows], np.bool_), jp)


def _no_clearance() -> tuple:
    """``cargs`` of a model without clearance joints: the types of :func:`_clearance_args`'s, no rows."""
    from .clearance.worn_kernels import N_WFLT, N_WINT
    i0 = np.zeros(0, np.int64)
    return (0, np.zeros((0, 3), np.int64), np.zeros((0, 17)), np.zeros(0), np.zeros(0, np.bool_), i0,
            np.zeros((1, 1)), np.zeros((1, 1)), np.zeros((0, N_WINT), np.int64), np.zeros((0, N_WFLT)),
            np.zeros(0), i0, i0)


def _clearance_args(clr, table) -> tuple:
    """``cargs`` of the clearance joints ``clr``: :func:`.clearance.compiled_forces.arguments`
    with the laws' parameters as the rows of one array each (NaN-padded,
    :func:`workbench.mbs.kernels.pack_rows`: the argument types do not depend on the number of
    joints) and the joints' law indices in ``table``."""
    from ..mbs.kernels import pack_rows
    from .clearance.compiled_forces import arguments, callbacks
    got = callbacks(clr, table)
    if got is None:
        return None
    cidx, fidx, _ = got
    a = arguments(clr)
    return a[:6] + (pack_rows(list(a[6])), pack_rows(list(a[7]))) + a[8:] + (cidx, fidx)


def load(model, clr=None):
    """The arguments of :func:`segment` that say which laws act: ``(cargs, jargs, nq, cfs, ffs)``
    for ``model`` and its clearance joints ``clr`` (a :class:`.clearance.forces.Clearances`, or
    None); None when a law's kernel does not compile as a C callback (the caller keeps the scipy
    loop)."""
    from .clearance.compiled_forces import LawTable
    table = LawTable()
    try:
        jargs = _joint_laws(model, table)
    except Exception:  # noqa: BLE001 - a kernel numba cannot wrap: the scipy loop
        return None
    if clr is None:
        cargs, nq = _no_clearance(), 0
    else:
        cargs, nq = _clearance_args(clr, table), 2
        if cargs is None:
            return None
    cfs, ffs = table.tuples()
    return cargs, jargs, nq, cfs, ffs


class DenseSteps:
    """The dense output of the accepted steps of compiled segments, as scipy's ``OdeSolution``:
    ``ts`` the step ends (the first the start), ``sol(t)`` the state at ``t`` (a step's end with the
    step before it); ``H`` the steps' full lengths (the last may end at an event inside it)."""

    def __init__(self, ts, H, F, Y0):
        self.ts = np.asarray(ts, float)
        self._H = H
        self._F = F
        self._Y0 = Y0

    def __call__(self, t):
        i = int(np.searchsorted(self.ts, t, side="left"))
        i = max(0, min(i - 1, len(self._F) - 1))
        x = (t - self.ts[i]) / self._H[i]
        y = np.zeros(self._Y0.shape[1])
        for r, f in enumerate(reversed(self._F[i])):
            y += f
            y *= x if r % 2 == 0 else 1.0 - x
        return y + self._Y0[i]
