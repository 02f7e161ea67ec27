"""Engine ``scipy_reference``: the planar multibody reference path (``scipy.integrate.solve_ivp``
on a plain-Python right-hand side, :func:`workbench.mbs.solver.simulate` with ``path = "scipy"``).

The same mechanisms as :mod:`.compiled`, slower; the fast path is tested against it.  A study asks
for it by ``[solver] engine = "scipy_reference"`` (older spelling: ``path = "scipy"``).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .base import CommonSettings, Engine, spatial_refusal
from .compiled import compile_problems, rigid_refusal


@dataclass(frozen=True)
class Settings(CommonSettings):
    """The reference path's own settings (see :class:`~workbench.mbs.solution.SolverSettings`)."""
    baumgarte_alpha: float = 5.0
    baumgarte_beta: float = 5.0
    #: the scipy method (``"DOP853"``, ``"RK45"``, ``"Radau"`` ...)
    method: str = "DOP853"
    detection: str = "event"
    #: the older spelling of the engine choice: ``"scipy"`` (this engine)
    path: str = "fast"


def accepts(mechanism, settings) -> str | None:
    if spatial_refusal(mechanism):
        return spatial_refusal(mechanism)
    return rigid_refusal(mechanism, settings)


def problems(mechanism, settings, *, wear=None, build=False) -> list[tuple[str, str]]:
    return compile_problems(mechanism) if build else []


def simulate(mechanism, settings, **kw):
    """:func:`workbench.mbs.solver.simulate` on the scipy path (looked up at call time)."""
    from ..mbs import solver
    if settings.path != "scipy":
        settings = dataclasses.replace(settings, path="scipy")
    return solver.simulate(mechanism, settings, **kw)


def describe(settings) -> str:
    return f"scipy reference path ({settings.method})"


ENGINE = Engine(
    name="scipy_reference", summary="scipy solve_ivp on a plain-Python right-hand side: the "
    "reference the compiled path is tested against",
    settings=Settings, accepts=accepts, problems=problems, simulate=simulate, describe=describe)
