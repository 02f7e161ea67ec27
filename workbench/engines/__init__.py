"""The engines: one interface to every time integrator of the workbench.

``workbench.engines.simulate(mechanism, settings, **kw)`` selects the engine
(:func:`~workbench.engines.registry.select`: ``[solver] engine = "auto" | NAME``) and runs it,
returning a :class:`~workbench.mbs.solution.Simulation` that says which engine ran and why.
The engines, in preference order (:data:`~workbench.engines.registry.ENGINES`):

=====================  ======================================================================
``compiled``           the compiled planar fast path (rigid bodies, compliant contact)
``scipy_reference``    the same equations on scipy's ``solve_ivp`` (the reference path)
``event_driven``       ideal joints with set-valued Coulomb friction (stick/slip events)
``generalized_alpha``  mechanisms with flexible ANCF beams (implicit generalised-alpha)
``moreau_jean``        Moreau-Jean time stepping with non-smooth clearance joints (asked for only)
=====================  ======================================================================

Each engine (:class:`~workbench.engines.base.Engine`) declares what it accepts, its own settings,
the problems ``validate`` reports for it, and its ``simulate``.
"""
from .base import AUTO, CommonSettings, Engine, Selection, describe_run
from .registry import ENGINES, EngineRefused, get, names, run, select, simulate, study_problems

__all__ = ["AUTO", "CommonSettings", "ENGINES", "Engine", "EngineRefused", "Selection", "describe_run", "get", "names",
           "run", "select", "simulate", "study_problems"]
