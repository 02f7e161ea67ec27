"""Engine ``compiled``: the planar multibody fast path (compiled Dormand-Prince with event
location of the contact starts, :mod:`workbench.mbs.integrator`; optionally the code generated for
the mechanism's structure, :mod:`workbench.mbs.codegen`).

Rigid bodies, ideal and clearance joints with compliant (regularised) contact and friction laws.
The preferred engine: :func:`~workbench.engines.registry.select` picks it whenever it accepts.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .base import CommonSettings, Engine, has_beams, names_text, set_valued_joints, spatial_refusal


@dataclass(frozen=True)
class Settings(CommonSettings):
    """The compiled path's own settings (see :class:`~workbench.mbs.solution.SolverSettings`)."""
    baumgarte_alpha: float = 5.0
    baumgarte_beta: float = 5.0
    detection: str = "event"
    critical_penetration: float = 1e-8
    min_step: float = 1e-7
    max_steps: int = 20_000_000
    impact_peaks: bool = True
    specialise: bool | str = False
    #: the older spelling of the engine choice: ``"fast"`` (this engine) or ``"scipy"``
    path: str = "fast"


def rigid_refusal(mechanism, settings) -> str | None:
    """Why the compliant planar solver (either path) cannot run ``mechanism``: beams, set-valued
    friction, or ``method = "moreau_jean"`` (``None``: it can)."""
    if has_beams(mechanism):
        return (f"the mechanism has flexible beams ({names_text(b.name for b in mechanism.beams)}), "
                f"which the generalized_alpha engine integrates")
    sv = set_valued_joints(mechanism)
    if sv:
        return (f"set-valued friction on joint{'s' if len(sv) > 1 else ''} {names_text(sv)} needs "
                f"the event-driven engine (event_driven)")
    if getattr(settings, "method", "") == "moreau_jean":
        return ("method = 'moreau_jean' (the older spelling of engine = 'moreau_jean') asks for "
                "Moreau-Jean time stepping")
    return None


def accepts(mechanism, settings) -> str | None:
    if spatial_refusal(mechanism):
        return spatial_refusal(mechanism)
    why = rigid_refusal(mechanism, settings)
    if why is None and getattr(settings, "path", "fast") == "scipy":
        return ("path = 'scipy' (the older spelling of engine = 'scipy_reference') asks for the "
                "scipy reference engine")
    return why


def compile_problems(mechanism) -> list[tuple[str, str]]:
    """Compile ``mechanism`` as the run will (the models' kernels with the solver's signature;
    cached for the run in the same process); ``(key, message)`` of what the compiler refuses."""
    from ..errors import MechanismError
    from ..mbs.compiled import compile_mechanism
    try:
        compile_mechanism(mechanism)
    except MechanismError as exc:
        msg = str(exc)
        key = next((f"mechanism.clearance_joints[{i}].{fam}"
                    for i, c in enumerate(mechanism.clearance_joints)
                    for fam in ("contact", "friction") if f"clearance joint '{c.name}': the {fam}" in msg),
                   "mechanism")
        return [(key, msg)]
    return []


def problems(mechanism, settings, *, wear=None, build=False) -> list[tuple[str, str]]:
    return compile_problems(mechanism) if build else []


def simulate(mechanism, settings, **kw):
    """:func:`workbench.mbs.solver.simulate` on the fast path (looked up at call time)."""
    from ..mbs import solver
    if settings.path != "fast":
        settings = dataclasses.replace(settings, path="fast")
    return solver.simulate(mechanism, settings, **kw)


def describe(settings) -> str:
    return "compiled fast path" + (" (specialised code)" if settings.specialise is True else "")


ENGINE = Engine(
    name="compiled", summary="compiled Dormand-Prince with contact-start location: rigid bodies, "
    "compliant clearance joints, regularised friction (the fast path)",
    settings=Settings, accepts=accepts, problems=problems, simulate=simulate, describe=describe)
