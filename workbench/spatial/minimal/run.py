"""A run on the minimal-coordinate path: generate (or load) the mechanism's module, integrate its
relative coordinates (``method = "DOP853"``: the module's compiled loop, :mod:`.loop`, scipy's
DOP853 step for step; another method: ``scipy.integrate.solve_ivp`` on the compiled right-hand
side), and turn the samples into the absolute
path's state (positions, Euler parameters, velocities, body-axis angular velocities, the two
quadratures) by forward kinematics, so that the :class:`~workbench.mbs.solution.Simulation` (its
accelerations, joint reactions, energies and constraint drift) comes from the same records as the
absolute path's (:func:`workbench.spatial.solver.to_simulation`)."""
from __future__ import annotations

import time as _time

import numpy as np

from ...errors import MechanismError, SolverError
from ..model import Model
from ..rotation import from_matrix
from . import tree

#: generated modules of this process, by the mechanism's text and start state
_MODULES: dict = {}
#: largest mismatch [m/s, rad/s] between the start velocities and the nearest the tree can have
VELOCITY_FIT = 1e-9


def refuse(mech) -> None:
    """Raise :class:`~workbench.errors.MechanismError` naming everything the minimal path does not take."""
    probs = tree.problems(mech)
    if probs:
        raise MechanismError("[solver] formulation = \"minimal\" cannot run this mechanism:\n  - "
                             + "\n  - ".join(f"[{k}] {m}" for k, m in probs))


def prepare(mech, t0: float = 0.0, initial=None):
    """The model, the absolute start state ``y0``, the generated module, the start ``x0`` of the
    relative coordinates and the generation's cost [s] (0 when this process had it)."""
    from ..solver import initial_state
    refuse(mech)
    model = Model(mech)
    y0 = initial_state(model, t0) if initial is None else np.asarray(initial, float)
    R, A, V, W = model.kinematics(y0)
    key = (repr(mech), np.round(y0[:7 * model.nb], 15).tobytes())
    w0 = _time.perf_counter()
    if key not in _MODULES:
        from .codegen import load
        edges = tree.build(model, R, A)
        mod, why, _ = load(model, edges, ", ".join(f"{e.type} '{e.name}'" for e in edges))
        if mod is None:
            raise SolverError(f"the minimal-coordinate path: {why}")
        _MODULES[key] = mod
    mod = _MODULES[key]
    gen = _time.perf_counter() - w0
    n, nb = mod.N_COORD, mod.N_BODY
    x0 = np.zeros(2 * n + 2)
    x0[2 * n:] = y0[13 * nb:13 * nb + 2]
    if n:   # the speeds: the velocities are linear in u (no drivers), fitted to the start's
        out = np.empty((nb, 18))
        Jac = np.empty((6 * nb, n))
        for k in range(n):
            x = x0.copy()
            x[n + k] = 1.0
            mod.kinematics(x, out)
            Jac[:, k] = out[:, [12, 13, 14, 15, 16, 17]].ravel()
        target = np.concatenate([np.concatenate([V[b], W[b]]) for b in range(nb)])
        u, *_ = np.linalg.lstsq(Jac, target, rcond=None)
        miss = float(np.max(np.abs(Jac @ u - target)))
        if miss > VELOCITY_FIT * max(1.0, float(np.max(np.abs(target)))):
            raise SolverError(f"the minimal-coordinate path: the start velocities are not those of the tree "
                              f"of joints (mismatch {miss:.3g})")
        x0[n:2 * n] = u
    return model, y0, mod, x0, gen


def absolute_states(model, mod, X, p_start) -> np.ndarray:
    """The absolute path's states (nt, 13 nb + 2) of the relative-coordinate samples ``X``; the
    Euler parameters' sign continued from ``p_start`` (nb, 4)."""
    nb, n = model.nb, mod.N_COORD
    Y = np.empty((len(X), 13 * nb + 2))
    out = np.empty((nb, 18))
    prev = np.asarray(p_start, float).copy()
    for k, x in enumerate(X):
        mod.kinematics(np.ascontiguousarray(x), out)
        for b in range(nb):
            A = out[b, 3:12].reshape(3, 3)
            p = from_matrix(A)
            if p @ prev[b] < 0:
                p = -p
            prev[b] = p
            Y[k, 3 * b:3 * b + 3] = out[b, :3]
            Y[k, 3 * nb + 4 * b:3 * nb + 4 * b + 4] = p
            Y[k, 7 * nb + 6 * b:7 * nb + 6 * b + 3] = out[b, 12:15]
            Y[k, 7 * nb + 6 * b + 3:7 * nb + 6 * b + 6] = A.T @ out[b, 15:18]
        Y[k, 13 * nb:] = x[2 * n:]
    return Y


def simulate(mech, settings, *, initial=None):
    """Run ``mech`` (a tree of ideal joints, :func:`.tree.problems` empty) with the spatial engine's
    ``settings`` (``t_start``, ``t_end``, ``output_step``, ``rtol``, ``atol``, ``max_step``,
    ``first_step``, ``method``; the Baumgarte factors only enter the records' drift, which is
    round-off here); ``initial``: an absolute state vector to start from."""
    from scipy.integrate import solve_ivp
    from ..solver import output_times, to_simulation, wall_guarded
    t0, t1 = settings.t_start, settings.t_end
    w0 = _time.perf_counter()
    model, y0, mod, x0, gen = prepare(mech, t0, initial)
    rhs = mod.rhs

    def xdot(t, x):
        xd = np.empty_like(x)
        rhs(t, x, xd)
        return xd
    f, calls = wall_guarded(xdot, settings)
    deadline = _time.monotonic() + settings.max_wall_time   # the compiled loop's check between its chunks

    times = output_times(settings)
    method = getattr(settings, "method", "DOP853") or "DOP853"
    hmax = settings.max_step if settings.max_step and settings.max_step > 0 else np.inf
    first = min(settings.first_step, t1 - t0)
    w1 = _time.perf_counter()
    if method == "DOP853":   # the compiled loop in the generated module (scipy's DOP853 step for step)
        from .loop import DONE, PAUSED
        Xs = np.zeros((len(times), len(x0)))
        x, t, h, k_out = x0.copy(), t0, first, 0
        y_out = np.empty_like(x0)
        while True:
            st, t, h, k_out, nfev = mod.integrate(t, t1, x, h, hmax, settings.rtol, settings.atol, times, k_out,
                                                  Xs, y_out)
            calls[0] += nfev
            x = y_out.copy()
            if st == DONE:
                break
            if st != PAUSED:
                raise SolverError(f"the spatial run (minimal coordinates) failed at t = {t:.6g} s: the step "
                                  f"fell under the smallest step")
            if _time.monotonic() > deadline:
                raise SolverError(f"the spatial run reached its wall-time limit at t = {t:.6g} s")
        t_out, X = times[:k_out], Xs[:k_out]
        loop = "compiled"
    else:
        kw = {} if hmax == np.inf else {"max_step": hmax}
        res = solve_ivp(f, (t0, t1), x0, method=method, t_eval=times, rtol=settings.rtol, atol=settings.atol,
                        first_step=first, **kw)
        if not res.success:
            raise SolverError(f"the spatial run (minimal coordinates) failed at t = "
                              f"{res.t[-1] if len(res.t) else t0:.6g} s: {res.message}")
        t_out, X = res.t, res.y.T
        loop = "scipy"
    wall = _time.perf_counter() - w1
    p0 = y0[3 * model.nb:7 * model.nb].reshape(model.nb, 4)
    Y = absolute_states(model, mod, X, p0)
    from ..kernels import pack
    stats = {"output_samples": int(len(t_out)), "rhs_calls": calls[0], "nfev": calls[0], "wall_time": wall,
             "path": "minimal", "formulation": "minimal", "loop": loop, "reference_fallbacks": 0,
             "minimal_coordinates": int(mod.N_COORD), "minimal_generation_time": gen,
             "minimal_setup_time": w1 - w0}
    return to_simulation(model, t_out, Y, settings.baumgarte_alpha, settings.baumgarte_beta, stats,
                         packed=pack(model))
