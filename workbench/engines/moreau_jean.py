"""Engine ``moreau_jean``: Moreau-Jean time stepping with the revolute clearance joints as
non-smooth contacts (Signorini, Newton's restitution, set-valued Coulomb;
:mod:`workbench.nonsmooth.moreau_jean`), fixed step ``[solver] step``.

Never chosen by ``engine = "auto"``: a study asks for it by ``engine = "moreau_jean"`` (older
spelling: ``method = "moreau_jean"``).  The contacts' friction events ride on the
:class:`~workbench.mbs.solution.Simulation` as ``extras["friction_events"]``.
"""
from __future__ import annotations

from dataclasses import dataclass

from .base import CommonSettings, Engine, has_beams, set_valued_joints, spatial_refusal

NAME = "moreau_jean"


@dataclass(frozen=True)
class Settings(CommonSettings):
    """Moreau-Jean's own settings (see :class:`~workbench.mbs.solution.SolverSettings`)."""
    #: fixed time step h [s] (required)
    step: float | None = None
    #: Newton's restitution e_n [1] replacing the contact laws' own (None: the laws')
    restitution: float | None = None
    #: the older spelling of the engine choice: ``"moreau_jean"``
    method: str = "DOP853"


def asked_for(settings) -> bool:
    """Whether ``settings`` ask for this engine (``engine``, or the older ``method``)."""
    return getattr(settings, "engine", "auto") == NAME or getattr(settings, "method", "") == NAME


def accepts(mechanism, settings) -> str | None:
    if spatial_refusal(mechanism):
        return spatial_refusal(mechanism)
    if not asked_for(settings):
        return ("Moreau-Jean time stepping runs when a study asks for it "
                "(engine = 'moreau_jean' with its fixed 'step')")
    if has_beams(mechanism):
        return "Moreau-Jean time stepping runs rigid bodies only (this mechanism has flexible beams)"
    sv = set_valued_joints(mechanism)
    if sv:
        return (f"Moreau-Jean time stepping takes frictionless ideal joints; {', '.join(map(repr, sv))} "
                f"carry set-valued friction (the event_driven engine runs them)")
    return None


def _whole_multiple(a: float, b: float) -> bool:
    k = round(a / b)
    return k >= 1 and abs(k * b - a) <= 1e-9 * a


def problems(mechanism, settings, *, wear=None, build=False) -> list[tuple[str, str]]:
    """The fixed step and the output step, and what the scheme does not run in the mechanism
    (:func:`workbench.nonsmooth.moreau_jean.problems`)."""
    out = []
    if settings.step is None:
        out.append(("solver.step", "engine 'moreau_jean' (method = 'moreau_jean') needs the fixed "
                                   "time step 'step' [s]"))
    elif not _whole_multiple(settings.output_step, settings.step):
        out.append(("output.step", f"output.step = {settings.output_step:g} s must be a whole multiple "
                                   f"of solver.step = {settings.step:g} s (engine 'moreau_jean')"))
    from ..nonsmooth.moreau_jean import problems as scheme_problems
    out += scheme_problems(mechanism, settings.restitution)
    return out


def simulate(mechanism, settings, **kw):
    """:func:`workbench.nonsmooth.mj_results.simulate` with ``settings.step`` and
    ``settings.restitution``; the friction events go to ``extras["friction_events"]``."""
    from ..errors import SolverError
    if kw:
        raise SolverError(f"the moreau_jean engine takes no {', '.join(sorted(kw))} (no worn "
                          f"surfaces, always the consistent start)")
    if settings.step is None:
        raise SolverError("engine 'moreau_jean' needs the fixed time step [solver] step [s]")
    from ..nonsmooth import mj_results
    events: list = []
    sim = mj_results.simulate(mechanism, settings, step=settings.step,
                              restitution=settings.restitution, friction_events=events)
    sim.extras["friction_events"] = events
    return sim


def describe(settings) -> str:
    return f"Moreau-Jean time stepping, h = {settings.step:g} s"


ENGINE = Engine(
    name=NAME, summary="Moreau-Jean time stepping, fixed step: revolute clearance joints as "
    "non-smooth contacts (Signorini, Newton's restitution, set-valued Coulomb)",
    settings=Settings, accepts=accepts, problems=problems, simulate=simulate, describe=describe,
    worn_surfaces=False)
