"""The compiled integration loop of the minimal path: scipy's DOP853 step for step, as the
absolute path's loop (:func:`workbench.spatial.integrate.segment`, whose coefficients, step-size
rule and dense output it uses) without contact events, friction fall-backs or stored steps.

:func:`integrate` is not compiled here: :mod:`.codegen` copies its source into each generated
module (``@njit(cache=True)``), where its global ``rhs`` is that mechanism's generated right-hand
side, called by name (a compiled function taking another one as an argument would not be cached
on disk) - as :mod:`workbench.mbs.codegen_module` does for the planar integrator.
"""
from __future__ import annotations

import numpy as np

from ..integrate import (_DC_A, _DC_B, _DC_C, _DC_D, _DC_E3, _DC_E5, _MAX_FACTOR, _MIN_FACTOR,  # noqa: F401 - the
                         _SAFETY, dense_coefficients, dense_eval, error_norm, stage_state,  # generated module
                         step_factor)                                               # imports these from here

#: accepted steps per call of :func:`integrate` (then the caller checks the wall-time limit)
CHUNK = 4096
#: :func:`integrate` status: reached ``t1``; paused after :data:`CHUNK` steps; step under scipy's smallest
DONE, PAUSED, TOO_SMALL = 0, 2, 5


def rhs(t, x, xd):   # the generated module's own replaces this stand-in
    raise NotImplementedError


def integrate(t, t1, y, h_abs, hmax, rtol, atol, times, k_out, Ys, y_out):
    """Integrate ``y' = rhs(t, y)`` from ``(t, y)`` towards ``t1``, first trying the step ``h_abs``
    (at most ``hmax``); the samples at ``times[k_out:]`` reached go into ``Ys``.  Returns
    ``(status, t, h_abs, k_out, nfev)``; the state reached in ``y_out``."""
    C = _DC_C
    ny = y.shape[0]
    nout = times.shape[0]
    K = np.empty((16, ny))
    f = np.empty(ny)
    ynew = np.empty(ny)
    ytmp = np.empty(ny)
    F = np.empty((7, ny))
    y = y.copy()
    rhs(t, y, f)
    nfev = 1
    n_steps = 0
    exponent = -1.0 / 8.0
    while True:
        if t >= t1:
            y_out[:] = y
            return DONE, t, h_abs, k_out, nfev
        if n_steps >= CHUNK:
            y_out[:] = y
            return PAUSED, t, h_abs, k_out, nfev
        min_step = 10.0 * abs(np.nextafter(t, np.inf) - t)
        if h_abs > hmax:
            h_abs = hmax
        elif h_abs < min_step:
            h_abs = min_step
        rejected = False
        while True:
            if h_abs < min_step:
                y_out[:] = y
                return TOO_SMALL, t, h_abs, k_out, nfev
            t_new = t + h_abs
            if t_new > t1:
                t_new = t1
            h = t_new - t
            h_abs = abs(h)
            K[0] = f
            for s in range(1, 13):
                tt = stage_state(s, t, t_new, h, y, K, ytmp, ynew)
                nfev += 1
                rhs(tt, ytmp, K[s])
            err = error_norm(K, y, ynew, h, atol, rtol)
            h_abs *= step_factor(err, exponent, rejected)
            if err < 1.0:
                break
            rejected = True
        if k_out < nout and times[k_out] <= t_new:   # the dense output for the samples in the step
            for s in range(13, 16):
                stage_state(s, t, t_new, h, y, K, ytmp, ynew)
                nfev += 1
                rhs(t + C[s] * h, ytmp, K[s])
            dense_coefficients(h, y, ynew, K, F)
            while k_out < nout and times[k_out] <= t_new:
                dense_eval(F, y, (times[k_out] - t) / h, Ys[k_out])
                k_out += 1
        n_steps += 1
        t = t_new
        y[:] = ynew
        f[:] = K[12]
