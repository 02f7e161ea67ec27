"""The FE engine: contact pressure of a pin in a bushing (scikit-fem, plane strain).

This package is the engine alone; the pressure-model comparison study that drives it is the study
kind :mod:`workbench.kinds.pressure`, and the pressure models that use it are plugins
(``plugins/pressure/fem.py``, ``plugins/pressure/winkler.py``).  SI units throughout.

API (importable from ``workbench.fem``; loaded on first use, so ``import workbench.fem`` stays cheap)
-----------------------------------------------------------------------------------------------------
Mesh
    :func:`bushing_mesh` (graded annulus, boundaries ``bore`` / ``outer``), :func:`pin_mesh` (disc,
    boundary ``surface``), :func:`load_mesh` (a mesh file), :func:`morph_bore` (move the bore
    nodes to a worn profile), :func:`surface_nodes`.
Compliance
    :class:`ElasticPart` (plane-strain elasticity of one part condensed onto its contact nodes,
    cached on disk under :func:`compliance_cache_dir`), :class:`JointModel` (bushing + pin for
    given radii and materials: ``JointModel(R, R_pin, R_out, n, bushing, journal).compliance()``).
Contact solve
    :class:`ContactSolver` (frictionless contact as a complementarity problem, warm-started
    active set, force- or displacement-controlled, with residuals; ``solve(gap, load=...)``
    returns a :class:`ContactResult`), :func:`solve_loads` (a batch of samples, compiled),
    :func:`half_angle` (the contact half-angle of a pressure distribution).
Calibration
    :func:`fit_winkler_stiffness` (the one fit of the Winkler modulus to a reference half-angle),
    :func:`fit_positive` (the root finder under it).
Closed forms and export
    :mod:`workbench.fem.closed_forms` (Persson (1964), Hertz, Winkler: the oracles of
    ``docs/validation.md``), :func:`export_vtu` (displacement and stress fields, meshio).

Internal modules: ``kernels``/``primal``/``updating``/``batch`` (the compiled active-set solvers).
The pressure-model comparison study (its file schema and runner) is the study kind
:mod:`workbench.kinds.pressure` (:mod:`workbench.kinds.pressure_config`).
"""

from __future__ import annotations

import importlib

_API = {
    "bushing_mesh": "mesh", "pin_mesh": "mesh", "load_mesh": "mesh", "morph_bore": "mesh",
    "surface_nodes": "mesh",
    "ElasticPart": "compliance", "JointModel": "joint",
    "ContactSolver": "contact", "ContactResult": "contact", "half_angle": "contact",
    "solve_loads": "batch",
    "fit_winkler_stiffness": "calibration", "fit_positive": "calibration",
    "export_vtu": "export",
}
_RENAMED = {"compliance_cache_dir": ("compliance", "cache_dir")}

__all__ = sorted([*_API, *_RENAMED])

# numba's cache of this package's compiled functions goes to the source-keyed folder of
# workbench.runtime.caches: workbench.jit.load sets it before the first dispatcher is made (the functions
# are decorated with workbench.jit.njit, which makes them on first use)


def __getattr__(name: str):
    if name in _API:
        return getattr(importlib.import_module(f".{_API[name]}", __name__), name)
    if name in _RENAMED:
        module, attr = _RENAMED[name]
        return getattr(importlib.import_module(f".{module}", __name__), attr)
    raise AttributeError(f"module 'workbench.fem' has no attribute '{name}'")
