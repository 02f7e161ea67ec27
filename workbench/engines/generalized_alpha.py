"""Engine ``generalized_alpha``: the implicit generalised-alpha solver for mechanisms with flexible
ANCF beams (:func:`workbench.flex.solver.simulate`; Chung & Hulbert's scheme,
:mod:`workbench.flex.generalized_alpha`).

It takes worn profiles like the rigid engines, so the wear loop runs it; its beam outputs ride
on the :class:`~workbench.mbs.solution.Simulation` as ``flex``.
"""
from __future__ import annotations

from dataclasses import dataclass

from .base import CommonSettings, Engine, has_beams, set_valued_joints, spatial_refusal


@dataclass(frozen=True)
class Settings(CommonSettings):
    """The flexible solver's own settings (see :class:`~workbench.mbs.solution.SolverSettings`)."""
    critical_penetration: float = 1e-8
    min_step: float = 1e-7
    max_steps: int = 20_000_000
    #: pre-roll of the first angle driver's speed [s] (0: the consistent start at full speed)
    ramp: float = 0.0


def accepts(mechanism, settings) -> str | None:
    if spatial_refusal(mechanism):
        return spatial_refusal(mechanism)
    if not has_beams(mechanism):
        return "the mechanism has no flexible beams (the rigid engines run it)"
    if getattr(settings, "method", "") == "moreau_jean":
        return ("method = 'moreau_jean' (the older spelling of engine = 'moreau_jean') asks for "
                "Moreau-Jean time stepping, which runs rigid bodies only")
    sv = set_valued_joints(mechanism)
    if sv:
        return (f"set-valued friction on {', '.join(map(repr, sv))}: the flexible solver takes "
                f"regularised friction laws only")
    return None


class _Problems:
    """The ``probs.add`` interface of :func:`workbench.flex.mechanism.check_flexible`, collecting."""
    def __init__(self):
        self.items = []

    def add(self, key, msg):
        self.items.append((key, msg))


def problems(mechanism, settings, *, wear=None, build=False) -> list[tuple[str, str]]:
    """What the wear loop refuses with beams (:func:`workbench.wear.flex_dynamics.wear_problems`);
    with ``build``, the flexible model builds and assembles at ``t_start``."""
    out = []
    if wear is not None:
        from ..wear.flex_dynamics import wear_problems
        out += wear_problems(mechanism, wear)
    if build and not out:
        from ..flex.mechanism import check_flexible
        p = _Problems()
        check_flexible(mechanism, settings, p)
        out += p.items
    return out


def simulate(mechanism, settings, **kw):
    """:func:`workbench.flex.solver.simulate` (looked up at call time)."""
    from ..flex import solver
    return solver.simulate(mechanism, settings, **kw)


def describe(settings) -> str:
    return "generalised-alpha solver (flexible beams)"


ENGINE = Engine(
    name="generalized_alpha", summary="implicit generalised-alpha with Newton iterations: "
    "mechanisms with flexible ANCF beams",
    settings=Settings, accepts=accepts, problems=problems, simulate=simulate, describe=describe,
    rigid=False)
