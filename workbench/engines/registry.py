"""The engines in preference order, the one selector, and the one ``simulate``.

:func:`select` is the only place that decides which engine runs a mechanism:

* ``[solver] engine = "auto"`` (the default): the first engine of :data:`ENGINES` that accepts the
  mechanism and settings; the reason recorded is the preferred engine's refusal
  (``"auto: set-valued friction on joint 'A' needs the event-driven engine (event_driven)"``);
* ``engine = NAME``: that engine, or :class:`EngineRefused` naming why it refuses and the engines
  that would run the study.

The older spellings keep working: ``path = "scipy"`` asks for ``scipy_reference``, ``method =
"moreau_jean"`` for ``moreau_jean`` (the engines read them in ``accepts``).
"""
from __future__ import annotations

from ..errors import SolverError, choices_text, did_you_mean
from . import compiled, event_driven, generalized_alpha, moreau_jean, scipy_reference, spatial
from .base import AUTO, Engine, Selection

#: every engine, in preference order (``auto`` takes the first that accepts)
ENGINES: tuple[Engine, ...] = (compiled.ENGINE, scipy_reference.ENGINE, event_driven.ENGINE,
                               generalized_alpha.ENGINE, moreau_jean.ENGINE, spatial.ENGINE)


class EngineRefused(SolverError):
    """No engine runs the mechanism with these settings, or the one asked for refuses.  ``key``:
    the ``[solver]`` key path that made the choice (``solver.engine``, ``solver.path``,
    ``solver.method``; ``mechanism`` under ``auto``)."""

    def __init__(self, message: str, key: str = "solver.engine"):
        super().__init__(message)
        self.key = key


def names() -> tuple[str, ...]:
    """The engine names, in preference order."""
    return tuple(e.name for e in ENGINES)


def get(name: str) -> Engine:
    """The engine called ``name``."""
    for e in ENGINES:
        if e.name == name:
            return e
    raise EngineRefused(f"unknown engine '{name}'.{did_you_mean(name, names())} "
                        f"Valid: {choices_text((AUTO,) + names())}")


def _accepting(mechanism, settings) -> list[str]:
    return [e.name for e in ENGINES if e.accepts(mechanism, settings) is None]


def _legacy_key(settings) -> str:
    if getattr(settings, "method", "") == moreau_jean.NAME:
        return "solver.method"
    if getattr(settings, "path", "fast") == "scipy":
        return "solver.path"
    return "mechanism"


def select(mechanism, settings) -> Selection:
    """The engine that runs ``mechanism`` with ``settings`` (a
    :class:`~workbench.mbs.solution.SolverSettings`), and why; :class:`EngineRefused` when none does."""
    name = getattr(settings, "engine", AUTO) or AUTO
    if name != AUTO:
        engine = get(name)
        why = engine.accepts(mechanism, settings)
        if why is not None:
            ok = [n for n in _accepting(mechanism, settings) if n != name]
            raise EngineRefused(f"[solver] engine = '{name}' cannot run this study: {why}. Engines "
                                f"that run it: {choices_text(ok) if ok else 'none'} (all: "
                                f"{choices_text((AUTO,) + names())})")
        return Selection(engine, f"[solver] engine = '{name}'")
    refusals = []
    for engine in ENGINES:
        why = engine.accepts(mechanism, settings)
        if why is None:
            if not refusals:
                return Selection(engine, f"auto: the preferred engine '{engine.name}' accepts this "
                                         f"mechanism and these settings")
            return Selection(engine, f"auto: {refusals[0][1]}")
        refusals.append((engine.name, why))
    raise EngineRefused("no engine runs this study:\n  - "
                        + "\n  - ".join(f"{n}: {w}" for n, w in refusals), key=_legacy_key(settings))


def run(selection: Selection, mechanism, settings, **kw):
    """Run ``mechanism`` on the selected engine; the :class:`~workbench.mbs.solution.Simulation`
    records the engine and the reason (``engine``, ``engine_reason``)."""
    sim = selection.engine.simulate(mechanism, settings, **kw)
    sim.engine, sim.engine_reason = selection.engine.name, selection.reason
    return sim


def simulate(mechanism, settings, **kw):
    """THE entry point: select the engine for ``mechanism`` and ``settings`` and run it; return
    its :class:`~workbench.mbs.solution.Simulation` (``sim.engine``, ``sim.engine_reason``).

    ``kw`` go to the engine: ``surfaces``, ``geometries`` (worn profiles by clearance-joint
    index), ``initial`` (``(q, v)`` at ``t_start``) for the engines that take them.  Errors,
    time limit and Ctrl-C as :func:`workbench.mbs.solver.simulate` (each engine's)."""
    return run(select(mechanism, settings), mechanism, settings, **kw)


def study_problems(mechanism, settings, *, wear=None) -> tuple[Selection | None, list[tuple[str, str]]]:
    """The selection for a study's mechanism and settings and the problems of that choice that
    need no build: no engine (or the one asked for refuses), a wear study on an engine without
    worn surfaces, keys only other engines read."""
    try:
        sel = select(mechanism, settings)
    except EngineRefused as exc:
        return None, [(exc.key, str(exc))]
    out = []
    if wear is not None and not sel.engine.worn_surfaces:
        ok = [e.name for e in ENGINES if e.worn_surfaces]
        key = "solver.engine" if getattr(settings, "engine", AUTO) != AUTO else (
            "solver.method" if _legacy_key(settings) == "solver.method" else "study.kind")
        out.append((key, f"the wear loop runs an engine that takes worn surfaces ({choices_text(ok)}); "
                         f"this study's goes to '{sel.name}' ({sel.reason}). Valid: [study] kind = "
                         f"\"dynamics\", or a mechanism and settings one of those engines runs"))
    from .base import foreign_keys
    for k in foreign_keys(sel.engine, settings):
        owners = [e.name for e in ENGINES if k in {f for f in e.settings.__dataclass_fields__}]
        out.append((f"solver.{k}", f"'{k}' is a key of the engine{'s' if len(owners) > 1 else ''} "
                                   f"{choices_text(owners)} only (this study runs '{sel.name}': {sel.reason})"))
    return sel, out
