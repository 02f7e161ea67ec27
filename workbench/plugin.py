"""Everything a model plugin imports, in one place: ``from workbench.plugin import ...``.

A plugin module (built in under ``plugins/`` or a third party's, registered through the
``workbench`` entry-point group) needs

* the model base classes and their data: :class:`ContactLaw`, :class:`FrictionLaw`,
  :class:`PressureModel`, :class:`WearLaw` (:class:`Model` their base), :class:`ContactGeometry`,
  :class:`Material`, :class:`BoreSection`, :class:`PressureSolution`;
* parameters: :func:`parameter` (default, SI unit, doc, bounds), :class:`NoParams`, and the named
  slots of a kernel's ``p`` array generated from ``Params``: :func:`kernel_slots` (a kernel reads
  ``p[S.stiffness]``, ``pack`` builds ``p`` with ``S.from_params(...)``: the order cannot drift);
  the slots a distributed-contact law packs first, :data:`DISTRIBUTED_SLOTS` (and the column
  constants :data:`P_K` ... :data:`N_PARAM`, :data:`MAX_GAUSS` of the engine that reads them);
* :data:`hookimpl`, the marker of the ``register_*`` hook functions (:mod:`workbench.hookspecs`);
* :func:`njit`, the house decorator of compiled kernels (numba is imported on first use);
* the errors: :class:`WorkbenchError`, :class:`StudyError` (a bad parameter: name the key),
  :class:`PluginError`, :class:`SolverError`, and :func:`choices_text` / :func:`did_you_mean`
  for messages;
* the engine services the built-in pressure and contact models call, loaded on first use (the FE
  model is slow to import): :class:`JointModel`, :class:`ContactSolver`, :func:`half_angle`,
  :func:`solve_robust`, :func:`fe_solve_loads` (the compiled batch of :mod:`workbench.fem.batch`),
  :func:`fit_winkler_stiffness`, :func:`persson_half_angle`, :func:`winkler_stiffness_for_half_angle`.

The names are the host's own objects (``workbench.plugin.ContactLaw is
workbench.models.ContactLaw``); the modules they come from stay importable for plugins written
before this facade.  The built-in plugins import nothing else from the host but
:mod:`workbench.models` and :mod:`workbench.hookspecs` (a contract in ``pyproject.toml`` checks it).

In the layers of the house (``docs/architecture.md``) this module sits above the engines, since it
hands out engine services, and nothing in the host imports it.
"""
from __future__ import annotations

import importlib

from .errors import (MechanismError, PluginError, SolverError, StudyError, WorkbenchError,  # noqa: F401
                     choices_text, did_you_mean)
from .hookspecs import hookimpl  # noqa: F401
from .jit import is_compiled, njit  # noqa: F401
from .models import (BASES, DISTRIBUTED_SLOTS, FAMILIES, MAX_GAUSS, N_PARAM, P_CHI, P_K,  # noqa: F401
                     P_LEN, P_NGAUSS, P_PIECES, P_VFLOOR, BoreSection, ContactGeometry, ContactLaw,
                     FrictionLaw, KernelSlots, LubricationModel, Material, Model, NoParams, ParameterInfo, PressureModel,
                     PressureSolution, WearLaw, kernel_slots, parameter, range_text)

#: engine services, imported when first asked for: name -> (module, attribute)
_SERVICES = {
    "JointModel": ("workbench.fem.joint", "JointModel"),
    "ContactSolver": ("workbench.fem.contact", "ContactSolver"),
    "half_angle": ("workbench.fem.contact", "half_angle"),
    "solve_robust": ("workbench.fem.primal", "solve_robust"),
    "fe_solve_loads": ("workbench.fem.batch", "solve_loads"),
    "fit_winkler_stiffness": ("workbench.fem.calibration", "fit_winkler_stiffness"),
    "persson_half_angle": ("workbench.fem.closed_forms", "persson_half_angle"),
    "winkler_stiffness_for_half_angle": ("workbench.fem.closed_forms", "winkler_stiffness_for_half_angle"),
    # lubricated joints (workbench.lubrication): film kernels and the modules of the tabulated
    # finite bearing and of mixed lubrication (attribute None: the module itself)
    "short_bearing_kernel": ("workbench.lubrication.short_bearing", "short_bearing_kernel"),
    "long_bearing_kernel": ("workbench.lubrication.long_bearing", "long_bearing_kernel"),
    "finite_bearing": ("workbench.lubrication.finite_bearing", None),
    "mixed_lubrication": ("workbench.lubrication.mixed", None),
    "worn_film": ("workbench.lubrication.worn_film", None),
    "worn_finite": ("workbench.lubrication.worn_finite", None),
    "jfo_table": ("workbench.lubrication.jfo_table", None),
}

__all__ = [
    # models and their data
    "FAMILIES", "BASES", "Model", "ContactLaw", "FrictionLaw", "PressureModel", "WearLaw",
    "LubricationModel",
    "ContactGeometry", "Material", "BoreSection", "PressureSolution",
    # parameters and kernel slots
    "parameter", "NoParams", "ParameterInfo", "range_text", "kernel_slots", "KernelSlots",
    "DISTRIBUTED_SLOTS", "P_K", "P_LEN", "P_CHI", "P_VFLOOR", "P_NGAUSS", "P_PIECES", "N_PARAM",
    "MAX_GAUSS",
    # hooks, compiled kernels, errors
    "hookimpl", "njit", "is_compiled",
    "WorkbenchError", "StudyError", "PluginError", "SolverError", "MechanismError",
    "choices_text", "did_you_mean",
    # engine services (loaded on first use)
    *_SERVICES,
]


def __getattr__(name: str):
    if name in _SERVICES:
        module, attr = _SERVICES[name]
        value = importlib.import_module(module)
        value = value if attr is None else getattr(value, attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
