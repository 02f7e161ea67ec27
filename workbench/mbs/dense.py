"""The continuous extension of a Dormand-Prince step, and the impact table's search on it.

The extension is Shampine's 4th-order one (Math. Comp. 46, 1986; the coefficients scipy's RK45
uses).  The impact table (see :mod:`.integrator`) locates each contact's peak force and largest
penetration on it: :func:`track` watches the values at the step ends and, at a local maximum of
them, searches the step next to it with Brent's method (:func:`brent_max`), evaluating the
clearance joints at dense states (:func:`probe`).
"""
from __future__ import annotations

import math

import numpy as np
from ..jit import njit  # house: numba is imported when a compiled function is first needed

from .clearance import clearance_forces_lubricated

#: accuracy of a located maximum [fraction of the step] and the iteration cap of Brent's method
TH_TOL = 1e-9
BRENT_ITERS = 100
CGOLD = 0.3819660112501051

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
def dense(y, K, h, th, out):
    """Continuous extension at fraction ``th`` of the step into ``out``."""
    t2 = th * th; t3 = t2 * th; t4 = t3 * th
    for i in range(y.shape[0]):
        acc = 0.0
        for k in range(7):
            acc += K[k, i] * (P[k, 0] * th + P[k, 1] * t2 + P[k, 2] * t3 + P[k, 3] * t4)
        out[i] = y[i] + h * acc


@njit(cache=True)
def probe(y, K, h, th, dm, model, ys, Qs, zds, recs, tmps):
    """Clearance records ``recs`` at fraction ``th`` of the step (dense output); False on a fault."""
    n = model.mass.shape[0]
    npts = y.shape[0] - 2 * n - 4
    dense(y, K, h, th, ys)
    Qs[:] = 0.0
    _, _, bad = clearance_forces_lubricated(ys[:n], ys[n:2 * n], ys[2 * n:2 * n + npts], dm, Qs, zds, model.clr_i,
                                 model.clr_f, model.ckern, model.fkern, model.cpar, model.fpar,
                                 model.has_z, recs, tmps, model.lflag, model.lkern, model.lpar,
                                 model.dist)
    return bad == -1


@njit(cache=True)
def probe_value(y, K, h, th, dm, model, scratch, j, col):
    ys, Qs, zds, recs, tmps, count = scratch
    count[0] += 1.0
    if probe(y, K, h, th, dm, model, ys, Qs, zds, recs, tmps):
        return recs[j, col]
    return -math.inf


@njit(cache=True)
def brent_max(y, K, h, dm, model, scratch, j, col, a, b, fa, fb):
    """Largest value of record column ``col`` of joint ``j`` over step fractions ``[a, b]`` on the
    continuous extension: Brent's method (golden section with parabolic steps; Brent (1973)
    "Algorithms for Minimization without Derivatives" ch. 5), to ``TH_TOL`` of a step.  The ends
    ``a``, ``b`` (values ``fa``, ``fb``) are candidates too.  Returns ``(th, value)``."""
    a0 = a; b0 = b
    x = a + CGOLD * (b - a); w = x; v = x
    fx = -probe_value(y, K, h, x, dm, model, scratch, j, col); fw = fx; fv = fx
    d = 0.0; e = 0.0
    for _ in range(BRENT_ITERS):
        xm = 0.5 * (a + b)
        if abs(x - xm) <= 2.0 * TH_TOL - 0.5 * (b - a):
            break
        golden = True
        if abs(e) > TH_TOL:
            r = (x - w) * (fx - fv)
            q = (x - v) * (fx - fw)
            p = (x - v) * q - (x - w) * r
            q = 2.0 * (q - r)
            if q > 0.0:
                p = -p
            q = abs(q)
            e_old = e
            e = d
            if abs(p) < abs(0.5 * q * e_old) and p > q * (a - x) and p < q * (b - x):
                d = p / q   # parabolic step
                golden = False
                u = x + d
                if u - a < 2.0 * TH_TOL or b - u < 2.0 * TH_TOL:
                    d = TH_TOL if xm >= x else -TH_TOL
        if golden:
            e = (a - x) if x >= xm else (b - x)
            d = CGOLD * e
        u = x + d if abs(d) >= TH_TOL else x + (TH_TOL if d >= 0.0 else -TH_TOL)
        fu = -probe_value(y, K, h, u, dm, model, scratch, j, col)
        if fu <= fx:
            if u >= x:
                a = x
            else:
                b = x
            v = w; fv = fw; w = x; fw = fx; x = u; fx = fu
        else:
            if u < x:
                a = u
            else:
                b = u
            if fu <= fw or w == x:
                v = w; fv = fw; w = u; fw = fu
            elif fu <= fv or v == x or v == w:
                v = u; fv = fu
    th = x; val = -fx
    if fa > val:
        th = a0; val = fa
    if fb > val:
        th = b0; val = fb
    return th, val


@njit(cache=True, inline="always")
def track(v0, v1, v2, prev, step, model, scratch, j, col, imp, row, c_val, c_time):
    """Update impact ``row``'s record (columns ``c_val``, ``c_time``) of record column ``col`` of
    joint ``j`` after an accepted step.

    ``v0, v1, v2`` are the values at the start of the previous step, at the junction and at the
    end of this step; ``prev`` and ``step`` = ``(y, K, h, t, th_end, dm, valid)`` their dense
    outputs.  A maximum inside a step makes the larger end value of that step a local maximum of
    the sequence of step-end values, so when the junction is one (and at least the record) the
    maximum lies in one of the two steps: a look just inside each tells which (neither: the
    junction is the maximum), and Brent's method finds it there.
    """
    y, K, h, t, th, dm, _ = step
    if v2 > imp[row, c_val]:
        imp[row, c_val] = v2; imp[row, c_time] = t + th * h
    if not (v1 >= v0 and v1 >= v2 and (v1 > v0 or v1 > v2) and v1 >= imp[row, c_val]):
        return
    yp, Kp, hp, tp, thp, dmp, valid = prev
    if v1 > imp[row, c_val]:
        imp[row, c_val] = v1; imp[row, c_time] = t
    # which side of the junction rises above it (one look just inside each step)
    eps = 1e-6
    if valid and probe_value(yp, Kp, hp, thp * (1.0 - eps), dmp, model, scratch, j, col) > v1:
        x, v = brent_max(yp, Kp, hp, dmp, model, scratch, j, col, 0.0, thp, v0, v1)
        if v > imp[row, c_val]:
            imp[row, c_val] = v; imp[row, c_time] = tp + x * hp
    elif probe_value(y, K, h, th * eps, dm, model, scratch, j, col) > v1:
        x, v = brent_max(y, K, h, dm, model, scratch, j, col, 0.0, th, v1, v2)
        if v > imp[row, c_val]:
            imp[row, c_val] = v; imp[row, c_time] = t + x * h
