"""Engine ``spatial``: rigid bodies in 3-D (:mod:`workbench.spatial`): Euler parameters, ideal
spherical, revolute, cylindrical, prismatic, universal and fixed joints, drivers, springs and
applied loads, joint friction from the reactions (Qi, Luo & Huang (2009)); the augmented index-1
DAE with Baumgarte stabilisation integrated by ``scipy.integrate.solve_ivp`` (``method``,
DOP853 by default) on the compiled right-hand side (``path = "fast"``) or the reference one
(``path = "scipy"``).

It runs the mechanisms whose ``dimension`` is 3 (:class:`~workbench.spatial.SpatialMechanism`)
and refuses the planar ones.  Spatial clearance joints (ball in socket, journal in bore:
:mod:`workbench.spatial.clearance`) run event to event (:mod:`workbench.spatial.clearance.run`);
the engine takes no worn surfaces: the spatial wear loop (:mod:`workbench.wear.spatial_loop`)
runs the clearance dynamics on its worn maps itself.  Cylindrical and revolute joints with
set-valued friction (``coulomb_set_valued``), and the journals of a universal joint with it, run
event to event on the reference right-hand side (:mod:`workbench.spatial.stick`); cylindrical and
revolute joints with LuGre friction, and the journals of a universal joint with it, run with the
bristle states on the reference right-hand side (:mod:`workbench.spatial.bristles`).

``formulation = "minimal"`` runs a tree of ideal joints rooted at the ground in its joint
coordinates instead, on code generated for the mechanism (:mod:`workbench.spatial.minimal`); what
that path does not take (closed loops, clearance joints, joint friction, drivers, spherical
joints) is a problem of ``validate`` and an error of the run.
"""
from __future__ import annotations

from dataclasses import dataclass

from .base import CommonSettings, Engine

NAME = "spatial"


@dataclass(frozen=True)
class Settings(CommonSettings):
    """The spatial engine's own settings (see :class:`~workbench.mbs.solution.SolverSettings`)."""
    baumgarte_alpha: float = 5.0
    baumgarte_beta: float = 5.0
    method: str = "DOP853"
    #: ``"fast"``: the compiled right-hand side (numba); ``"scipy"``: the reference one (Python)
    path: str = "fast"
    #: ``None`` (not given) or ``"absolute"``: positions and Euler parameters with constraint rows
    #: (the paths above); ``"minimal"``: the joint coordinates of a tree (:mod:`workbench.spatial.minimal`)
    formulation: str | None = None


MINIMAL = "minimal"


def minimal_problems(mechanism) -> list[tuple[str, str]]:
    """What ``formulation = "minimal"`` does not take in ``mechanism`` (and sympy missing)."""
    import importlib.util

    from ..spatial.minimal import problems as tree_problems
    out = list(tree_problems(mechanism))
    if importlib.util.find_spec("sympy") is None:
        out.append(("solver.formulation", "formulation = \"minimal\" derives the equations with sympy, which is "
                                          "not installed: pip install 'joint-wear-workbench[minimal]'; valid: "
                                          "formulation = \"absolute\" (the default)"))
    return [(k, f"[solver] formulation = \"minimal\": {m}") for k, m in out]


def is_spatial(mechanism) -> bool:
    """True for a 3-D mechanism (``[mechanism] dimension = 3``)."""
    return getattr(mechanism, "dimension", 2) == 3


def accepts(mechanism, settings) -> str | None:
    if not is_spatial(mechanism):
        return ("the mechanism is planar ([mechanism] dimension = 2); the spatial engine runs "
                "dimension = 3")
    if getattr(settings, "method", "DOP853") == "moreau_jean":
        return "method = 'moreau_jean' asks for Moreau-Jean time stepping, which is planar only"
    return None


def problems(mechanism, settings, *, wear=None, build=False) -> list[tuple[str, str]]:
    out = list(mechanism.problems())
    if getattr(settings, "formulation", "absolute") == MINIMAL and not out:
        out += minimal_problems(mechanism)
    if wear is not None:
        out.append(("study.kind", "an engine takes no worn surfaces of a spatial mechanism: its wear study "
                                  "runs the spatial wear loop on worn maps (workbench.wear.spatial_loop)"))
    if build and not out:
        from ..spatial.clearance.forces import Clearances
        from ..spatial.model import Model
        try:
            model = Model(mechanism)
            if mechanism.spatial_clearance_joints:   # the laws pack with each joint's geometry
                Clearances(model, mechanism.spatial_clearance_joints, compiled=False)
        except Exception as exc:  # a law that fails to pack, a frame that cannot be built
            out.append(("mechanism", str(exc)))
    return out


def run_path(mechanism) -> str:
    """Which right-hand side :func:`simulate` runs ``mechanism`` on: ``"stick"`` (a joint with
    set-valued friction: event to event, :mod:`workbench.spatial.stick`), ``"bristles"`` (a joint
    with LuGre friction: the bristle states, :mod:`workbench.spatial.bristles`) or ``"plain"``
    (:mod:`workbench.spatial.solver`)."""
    joints = getattr(mechanism, "joints", ())
    if any(getattr(type(j.friction), "set_valued", False) for j in joints):
        return "stick"
    if any(getattr(type(j.friction), "n_states", 0) for j in joints):
        return "bristles"
    return "plain"


def simulate(mechanism, settings, **kw):
    """:func:`workbench.spatial.solver.simulate` (``initial=``: a state vector); a mechanism whose
    cylindrical or revolute joints carry set-valued friction (``coulomb_set_valued``) runs event
    to event on the reference right-hand side (:func:`workbench.spatial.stick.simulate`); one whose
    joints carry LuGre friction (a law with internal states) runs with the bristle states on the
    reference right-hand side (:func:`workbench.spatial.bristles.simulate`).  ``formulation =
    "minimal"``: :func:`workbench.spatial.minimal.run.simulate` (or its error naming what it does
    not take)."""
    if getattr(settings, "formulation", "absolute") == MINIMAL:
        from ..spatial.minimal.run import simulate as run_minimal
        return run_minimal(mechanism, settings, initial=kw.get("initial"))
    path = run_path(mechanism)
    if path == "stick":
        from ..spatial.stick import simulate as run_stick
        return run_stick(mechanism, settings, initial=kw.get("initial"))
    if path == "bristles":
        from ..spatial.bristles import simulate as run_bristles
        return run_bristles(mechanism, settings, initial=kw.get("initial"))
    from ..spatial.solver import simulate as run
    return run(mechanism, settings, initial=kw.get("initial"))


def describe(settings, mechanism=None) -> str:
    """``validate``'s engine line; with the ``mechanism``, a set-valued joint's study names the
    event-driven path it runs on (:func:`simulate` sends it there whatever ``path`` says)."""
    method = getattr(settings, "method", "DOP853")
    if getattr(settings, "formulation", "absolute") == MINIMAL:
        return (f"spatial rigid bodies, minimal (joint) coordinates of a tree, right-hand side generated "
                f"for the mechanism (sympy, Kane's method; numba), scipy {method}")
    path = run_path(mechanism) if mechanism is not None else "plain"
    if path == "stick":
        return (f"spatial rigid bodies, event-driven set-valued stick and slip (reference right-hand side), "
                f"scipy {method}")
    if path == "bristles":
        # measured on the Qi pendulum with LuGre (0.2 s, rtol 1e-10): DOP853 47 s, Radau 19 s, the
        # same run to 2e-11
        hint = ("; the bristle states are stiff: an implicit method ([solver] method = \"Radau\") is "
                "usually faster" if method in EXPLICIT_METHODS else "")
        return f"spatial rigid bodies, LuGre bristle states (reference right-hand side), scipy {method}{hint}"
    if getattr(settings, "path", "fast") == "scipy":
        return f"spatial rigid bodies, reference right-hand side, scipy {method}"
    if method == "DOP853":
        return "spatial rigid bodies, compiled right-hand side, compiled DOP853 loop"
    return f"spatial rigid bodies, compiled right-hand side, scipy {method}"


#: scipy's explicit Runge-Kutta methods (a stiff problem makes them take tiny steps)
EXPLICIT_METHODS = ("DOP853", "RK45", "RK23")


ENGINE = Engine(
    name=NAME, summary="rigid bodies in 3-D with Euler parameters, ideal spatial joints and joint "
    "friction from the reactions (augmented DAE, Baumgarte, compiled right-hand side, scipy DOP853)",
    settings=Settings, accepts=accepts, problems=problems, simulate=simulate, describe=describe,
    worn_surfaces=False, rigid=False)
