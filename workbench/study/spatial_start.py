"""A spatial run's first right-hand side, evaluated before the run: its faults at t = t_start.

A spatial study whose joint friction cannot close its reactions-friction loop at the initial
state (a universal joint released turning about both cross axes above its critical coefficient,
docs/spatial.md "Self-locking of a universal joint"; a cylindrical or revolute joint's "self-locking
joint?" fault; a LuGre Qi joint whose loop does not close) passes every check of the file, and the
run stops at its first right-hand side.  :func:`check_start` evaluates that right-hand side once,
on the reference (pure-Python) path the run itself falls back to when the compiled loop does not
close (:func:`workbench.spatial.solver.simulate`), from the same consistent initial state and on
the same model as the run's path (:func:`workbench.engines.spatial.simulate`: plain, set-valued
stick and slip after the stick test of the units at rest, LuGre bristle states).  Nothing is
compiled; measured on ``studies/qi_pendulum.toml``: 6 ms, plus about 0.36 s to import
``scipy.linalg`` in a ``validate`` (a run imports it anyway).

The fault is raised again with the study file and the joints' friction keys in front of the
run's own message (the self-locking diagnosis: the critical coefficient and what to change), and
of the run's own class, so the command line's exit status is the run's: 2 for a
:class:`~workbench.errors.MechanismError` (the study as written has no consistent start: change
its friction or its initial velocities), 3 for a :class:`~workbench.errors.SolverError` or a
:class:`~workbench.errors.ModelFault`.  Mechanisms with spatial clearance joints (their own
event-driven run, :mod:`workbench.spatial.clearance.run`) are not evaluated here.
"""
from __future__ import annotations

from ..errors import ModelFault, WorkbenchError


def first_rhs(mechanism, settings) -> None:
    """Evaluate the right-hand side the spatial engine's run of ``mechanism`` (a
    :class:`~workbench.spatial.SpatialMechanism`) with ``settings`` (the spatial engine's settings)
    starts with, at ``t_start`` [s]; raise what the run would raise there."""
    from ..engines.spatial import run_path
    from ..spatial.solver import initial_state
    t0 = settings.t_start
    alpha, beta = settings.baumgarte_alpha, settings.baumgarte_beta
    path = run_path(mechanism)
    if path == "stick":
        from ..spatial.stick import V_TOL, StickSlip
        from ..spatial.stick_modes import decide
        ss = StickSlip(mechanism, alpha, beta)
        y = initial_state(ss.base, t0)
        c = ss.coordinates(y)
        rest = [u for u in ss.units if ss.speed(c[u]) <= V_TOL]
        stuck, seeds = {}, {}
        if rest:   # the run's start: the units at rest take the coupled stick test
            res = decide(ss, t0, y, rest)
            stuck = {u: res.stuck[u] for u in rest if u in res.stuck}
            seeds = {u: res.seeds[u] for u in rest if u not in res.stuck}
            y = res.y
        ss.model(stuck, seeds).dynamics(t0, y, alpha, beta)
        return
    if path == "bristles":
        from ..spatial.bristles import BristleModel
        model = BristleModel(mechanism)
    else:
        from ..spatial.model import Model
        model = Model(mechanism)
    model.dynamics(t0, initial_state(model, t0), alpha, beta)


def check_start(mechanism, settings, file: str | None) -> None:
    """Raise the fault of the spatial run's first right-hand side (:func:`first_rhs`), of the run's
    class, its message prefixed by the study ``file`` and the friction keys of the joints it names;
    nothing for a planar mechanism or one with spatial clearance joints."""
    if getattr(mechanism, "dimension", 2) != 3 or getattr(mechanism, "spatial_clearance_joints", ()):
        return
    try:
        first_rhs(mechanism, settings)
    except WorkbenchError as exc:
        msg = str(exc)
        keys = [f"[mechanism.joints[{k}].friction]" for k, j in enumerate(mechanism.joints)
                if j.friction is not None and f"'{j.name}'" in msg]
        where = f"{file}: " if file else ""
        text = (f"{where}{' '.join(keys) + ' ' if keys else ''}the run would stop at its first right-hand "
                f"side (t = {settings.t_start:g} s, the initial state): {msg}")
        try:
            again = type(exc)(text)
        except TypeError:   # a class that needs more than a message: a fault all the same
            again = ModelFault(text)
        raise again from exc
