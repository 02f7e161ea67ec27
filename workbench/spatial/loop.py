"""Driving the compiled integration loop (:mod:`.integrate`) from Python: one call per segment
between contact events, resumed after each :data:`.integrate.CHUNK` steps for the wall-time check.

:class:`CompiledLoop` holds the packed arguments (the laws' C callbacks among them,
:func:`.integrate.load`) and the output buffers;
:meth:`CompiledLoop.run` integrates from ``(t, y)`` to ``t1`` or the first event and returns a
:class:`Piece`: the samples reached, the dense output of the steps (for the impact table's peak
search), how it ended and where.
"""
from __future__ import annotations

import math
import time as _time
from dataclasses import dataclass

import numpy as np

from ..errors import SolverError
from . import integrate as _it


@dataclass
class Piece:
    """What one :meth:`CompiledLoop.run` integrated: ``status`` (:data:`.integrate.DONE`,
    ``EVENT`` or ``FALLBACK``), the time ``t`` [s] and state ``y`` reached (the event's, or the
    start of the step a fallback dropped), ``h`` the next step size [s], ``last_h`` the length of
    the last step [s], ``hit`` the event's contact point (-1), the samples ``k0:k1`` of the
    output times (``Y``), ``sol`` the dense output (None unless stored) and the right-hand side
    calls."""
    status: int
    t: float
    y: np.ndarray
    h: float
    last_h: float
    hit: int
    k0: int
    k1: int
    Y: np.ndarray
    sol: object
    calls: int


class CompiledLoop:
    """The compiled loop of ``model`` (clearance joints ``clr`` or None) at ``settings``; None from
    :meth:`make` when a law's kernel does not compile as a C callback (the scipy loop stays)."""

    def __init__(self, laws, args, times, ny, settings, deadline, store):
        self.cargs, self.jargs, self.nq, self.cfs, self.ffs = laws
        self.args = args
        self.times = np.asarray(times, float)
        self.ny = ny
        self.rtol, self.atol = float(settings.rtol), float(settings.atol)
        self.hmax = settings.max_step if settings.max_step and settings.max_step > 0 else math.inf
        self.alpha, self.beta = settings.baumgarte_alpha, settings.baumgarte_beta
        self.deadline = deadline
        self.store = store
        self.Ys = np.empty((len(self.times), ny))
        c = _it.CHUNK if store else 0
        self._T = np.empty(c + 1); self._H = np.empty(c)
        self._F = np.empty((c, 7, ny)); self._Y0 = np.empty((c, ny))
        self._y_out = np.empty(ny)

    @classmethod
    def make(cls, model, clr, args, times, ny, settings, deadline):
        laws = _it.load(model, clr)
        if laws is None:
            return None
        return cls(laws, args, times, ny, settings, deadline, clr is not None)

    def run(self, t, t1, y, h, dm, k_out) -> Piece:
        """Integrate from ``(t, y)`` with the first step ``h`` towards ``t1`` (contact modes ``dm``),
        the samples from ``times[k_out]`` on."""
        k0 = k_out
        calls = 0
        ts, Hs, Fs, Y0s = [], [], [], []
        y = np.ascontiguousarray(y, float)
        dm = np.ascontiguousarray(dm, float)
        while True:
            status, t, h, last_h, k_out, ns, nfev, hit = _it.segment(
                t, t1, y, h, self.hmax, self.rtol, self.atol, self.times, k_out, self.Ys, dm, self.alpha,
                self.beta, self.args, self.cargs, self.jargs, self.nq, self.cfs, self.ffs, self.store, self._T,
                self._H, self._F, self._Y0, self._y_out)
            calls += nfev
            y = self._y_out.copy()
            if self.store and ns:
                ts.append(self._T[:ns + 1].copy() if not ts else self._T[1:ns + 1].copy())
                Hs.append(self._H[:ns].copy()); Fs.append(self._F[:ns].copy()); Y0s.append(self._Y0[:ns].copy())
            if status == _it.PAUSED:
                if _time.monotonic() > self.deadline:
                    raise SolverError(f"the spatial run reached its wall-time limit at t = {t:.6g} s")
                continue
            if status == _it.TOO_SMALL:
                raise SolverError(f"the spatial run failed at t = {t:.6g} s: Required step size is less than "
                                  "spacing between numbers.")
            break
        sol = None
        if self.store and ts:
            sol = _it.DenseSteps(np.concatenate(ts), np.concatenate(Hs), np.concatenate(Fs), np.concatenate(Y0s))
        return Piece(status, t, y, h, last_h, hit, k0, k_out, self.Ys[k0:k_out].copy(), sol, calls)
