"""Engine ``event_driven``: smooth phases between friction events, for mechanisms whose ideal joints
carry set-valued Coulomb friction (stick and slip without a regularisation velocity;
:mod:`workbench.nonsmooth.event_driven`, Wang, Wang & Zhuang's method).

No clearance joints, no beams.  The run's event table and frictional-joint samples ride on the
:class:`~workbench.mbs.solution.Simulation` as ``extras["event_run"]`` and ``extras["samples"]``
(read by :func:`workbench.nonsmooth.dataset.to_dataset`).
"""
from __future__ import annotations

from dataclasses import dataclass

from .base import CommonSettings, Engine, has_beams, set_valued_joints, spatial_refusal
from .compiled import compile_problems


@dataclass(frozen=True)
class Settings(CommonSettings):
    """The event-driven engine's own settings (see :class:`~workbench.mbs.solution.SolverSettings`)."""
    baumgarte_alpha: float = 5.0
    baumgarte_beta: float = 5.0
    #: the scipy method of the smooth phases
    method: str = "DOP853"


def accepts(mechanism, settings) -> str | None:
    if spatial_refusal(mechanism):
        return spatial_refusal(mechanism)
    if has_beams(mechanism):
        return "the event-driven engine runs rigid bodies only (this mechanism has flexible beams)"
    if getattr(settings, "method", "") == "moreau_jean":
        return ("method = 'moreau_jean' (the older spelling of engine = 'moreau_jean') asks for "
                "Moreau-Jean time stepping")
    if not set_valued_joints(mechanism):
        return ("no ideal joint carries set-valued friction (the event-driven engine runs "
                "coulomb_set_valued joints; regularised laws run on the compiled engine)")
    if mechanism.clearance_joints:
        return "the event-driven engine has no clearance joints (this mechanism has some)"
    return None


def checked(mechanism):
    """The mechanism without its joints' friction: what the general pre-run checks compile."""
    from ..nonsmooth.event_driven import strip_friction
    return strip_friction(mechanism)


def problems(mechanism, settings, *, wear=None, build=False) -> list[tuple[str, str]]:
    """The joints it takes (a translational joint's set-valued friction on a particle slider);
    with ``build``, the mechanism without joint friction compiled as the run will."""
    from ..nonsmooth.support import is_set_valued
    out = []
    for i, j in enumerate(mechanism.joints):
        if (is_set_valued(getattr(j, "friction", None)) and hasattr(j, "axis")
                and j.slider_length != 0.0):   # a revolute joint: its friction circle (nonsmooth.pins)
            out.append((f"mechanism.joints[{i}].slider_length",
                        f"joint '{j.name}': slider_length = {j.slider_length} m; the event-driven "
                        f"solver's set-valued friction takes the particle slider only (valid: 0.0)"))
    if build and not out:
        out += compile_problems(checked(mechanism))
    return out


def simulate(mechanism, settings, *, regularisation: float = 0.0, **kw):
    """:func:`workbench.nonsmooth.dataset.simulate`; its event run and samples go to ``extras``.
    ``regularisation`` [m/s] > 0 runs the regularised law instead (a test oracle)."""
    from ..errors import SolverError
    if kw:
        raise SolverError(f"the event-driven engine takes no {', '.join(sorted(kw))} (no worn "
                          f"surfaces, always the consistent start)")
    from ..nonsmooth import dataset
    sim, run, smp = dataset.simulate(mechanism, settings, regularisation=regularisation)
    sim.extras.update(event_run=run, samples=smp)
    return sim


def describe(settings) -> str:
    return "event-driven solver (set-valued friction)"


ENGINE = Engine(
    name="event_driven", summary="smooth phases between stick/slip events: ideal joints with "
    "set-valued Coulomb friction (no clearance joints)",
    settings=Settings, accepts=accepts, problems=problems, simulate=simulate, describe=describe,
    worn_surfaces=False, checked=checked)
