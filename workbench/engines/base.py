"""What an engine is: its name, what it accepts, its own settings and checks, and one ``simulate``.

An :class:`Engine` is plain data holding functions (Exudyn's ``SolveDynamic(mbs, settings,
solverType)``: the choice of solver is one explicit decision).  The engines live one per module
beside this one; :mod:`.registry` lists them in preference order and picks one
(:func:`~workbench.engines.registry.select`).

Settings: the study keeps one container, :class:`~workbench.mbs.solution.SolverSettings` (the
``[solver]`` table; ``engine = "auto" | NAME``).  Each engine declares the part it reads as a
dataclass of its own (:class:`CommonSettings` plus its extras), so the union of every engine's
settings is the container (a test keeps them in step) and a key no engine of the run reads is
found by :func:`foreign_keys`.

Layer: engines and physics.  This package never imports a study kind, the CLI or
:mod:`workbench.results`; the engine modules import their solvers inside ``simulate`` so that
loading a study stays light.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Callable

#: the value of ``[solver] engine`` that lets :func:`~workbench.engines.registry.select` choose
AUTO = "auto"


@dataclass(frozen=True)
class CommonSettings:
    """The settings every engine reads (the fields of the same names of
    :class:`~workbench.mbs.solution.SolverSettings`, whose docstring gives units and meaning)."""
    t_end: float
    t_start: float = 0.0
    output_step: float = 1e-5
    rtol: float = 1e-11
    atol: float = 1e-14
    max_step: float = 0.0
    first_step: float = 1e-6
    max_wall_time: float = math.inf
    engine: str = AUTO


def view(cls, settings):
    """The engine settings ``cls`` (a :class:`CommonSettings` subclass) read from the study's
    container ``settings`` (a :class:`~workbench.mbs.solution.SolverSettings`)."""
    return cls(**{f.name: getattr(settings, f.name) for f in dataclasses.fields(cls)})


@dataclass(frozen=True)
class Engine:
    """One time integrator behind the one interface.

    Attributes
    ----------
    name : the value of ``[solver] engine`` that asks for it.
    summary : one line: what it integrates, and how.
    settings : its settings dataclass (:class:`CommonSettings` plus its own fields).
    accepts : ``accepts(mechanism, settings) -> str | None``: ``None`` when it runs this mechanism
        with these settings, else the reason why not (one sentence a user can act on).
    problems : ``problems(mechanism, settings, *, wear=None, build=False) -> [(key, message)]``:
        what ``validate`` must report for a run on this engine (the key path in the study file
        and the message).  ``wear``: the wear loop's spec when the run is a wear study;
        ``build``: also build the engine's model as the run will (the caller sets it once every
        model is packed, so a broken law is reported once).
    simulate : ``simulate(mechanism, settings, **kw) -> Simulation``
        (:class:`~workbench.mbs.solution.Simulation`, the one result type; ``kw``: ``surfaces``,
        ``geometries``, ``initial`` where the engine takes them).
    describe : ``describe(settings) -> str``: a few words for ``validate``'s line
        (``"Moreau-Jean time stepping, h = 1e-05 s"``); an engine whose path depends on the
        mechanism takes it as an optional keyword, ``describe(settings, mechanism=None)``
        (:func:`describe_run` passes it when the signature has it).
    worn_surfaces : it takes worn profiles (``surfaces=``, ``geometries=``, ``initial=``), so the
        wear loop can run it.
    rigid : it runs rigid bodies (the ideal mechanism's assembly along the driver cycle is
        checked before its run; :func:`workbench.mbs.degenerate.cycle_problems`).
    checked : ``checked(mechanism) -> mechanism``: the mechanism the study's general pre-run
        checks compile (default: the mechanism itself).
    """
    name: str
    summary: str
    settings: type
    accepts: Callable
    problems: Callable
    simulate: Callable
    describe: Callable
    worn_surfaces: bool = True
    rigid: bool = True
    checked: Callable = None

    def __post_init__(self):
        if self.checked is None:
            object.__setattr__(self, "checked", _itself)

    def own_settings(self, settings):
        """This engine's view of the study's ``settings`` (an instance of :attr:`settings`)."""
        return view(self.settings, settings)


def _itself(mechanism):
    return mechanism


@dataclass(frozen=True)
class Selection:
    """The engine that runs a mechanism, and why it was chosen (recorded in the dataset as the
    attributes ``engine`` and ``engine_reason``)."""
    engine: Engine
    reason: str

    @property
    def name(self) -> str:
        return self.engine.name


def foreign_keys(engine: Engine, settings) -> list[str]:
    """Fields of ``settings`` that are set (not ``None``) although only other engines read them:
    the keys whose default is ``None`` ("not given") and that ``engine`` does not declare."""
    from ..mbs.solution import SolverSettings
    own = {f.name for f in dataclasses.fields(engine.settings)}
    return [f.name for f in dataclasses.fields(SolverSettings)
            if f.default is None and f.name not in own and getattr(settings, f.name, None) is not None]


# -- small helpers the engines share ---------------------------------------------------------
def spatial_refusal(mechanism) -> str | None:
    """Why a planar engine cannot run ``mechanism`` (``None``: it is planar)."""
    if getattr(mechanism, "dimension", 2) == 3:
        return "the mechanism is spatial (dimension = 3), which the spatial engine integrates"
    return None


def has_beams(mechanism) -> bool:
    """True when ``mechanism`` has flexible beams."""
    return bool(getattr(mechanism, "beams", ()))


def set_valued_joints(mechanism) -> list[str]:
    """Names of the ideal joints whose friction law is set-valued (``set_valued = True``)."""
    from ..nonsmooth.support import is_set_valued
    return [j.name for j in mechanism.joints if is_set_valued(getattr(j, "friction", None))]


def names_text(names) -> str:
    return ", ".join(repr(n) for n in names)


def describe_run(engine, settings, mechanism) -> str:
    """The engine's words for ``validate``: ``describe(settings, mechanism=...)`` when its
    ``describe`` takes the mechanism (what it runs may depend on it), else ``describe(settings)``."""
    import inspect
    if "mechanism" in inspect.signature(engine.describe).parameters:
        return engine.describe(settings, mechanism=mechanism)
    return engine.describe(settings)
