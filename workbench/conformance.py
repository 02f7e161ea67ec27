"""Conformance checks that every model must pass, built-in or third-party.

``tests/test_conformance.py`` runs these over every registered model of every family; a plugin
author runs them on their own class in their own tests::

    from workbench.conformance import check_model
    from my_package.my_law import MyLaw

    def test_my_law_conforms():
        check_model(MyLaw)

Each check raises :class:`ConformanceError` (an ``AssertionError``, so pytest reports it as a
test failure) with a message naming the model, the property that failed and the offending input.
The properties are contracts of :mod:`workbench.models`:

* every model: a non-empty ``reference`` citing a paper (a year or an equation number, i.e. a
  digit), a docstring, and parameters with a unit, a one-line doc and a default inside its bounds;
* contact laws: the kernel returns one finite float >= 0 (no tension), exactly 0 for
  ``delta <= 0``, agrees with its plain-Python reference path, its elastic part (``delta_dot = 0``)
  does not decrease with ``delta``, and it compiles with the solver's C signature;
* friction laws: the kernel returns two finite floats, no force without normal force; a
  memoryless law is passive (``f_t v_t <= 0``) and bounded by ``mu_max |f_n|``, a stateful law at
  steady sliding (its state rate 0) with its default parameters too, where ``mu_max`` is the
  largest dimensionless parameter (no bound is checked when the law has none);
* pressure models: ``solve_load`` returns finite pressures >= 0 of shape ``(n,)`` whose resultant
  ``R b sum(p n dtheta)`` equals the load to ``1e-6`` relative and ``PressureSolution.force``;
  ``solve_approach`` gives no pressure inside the clearance; ``solve_loads`` (batch) matches
  ``solve_load`` row by row;
* contact and friction laws with named kernel parameters (``slots``, made by
  :func:`workbench.models.kernel_slots`): ``pack`` returns one value per slot and each
  parameter's value sits at its own slot;
* lubrication models: the kernel returns three finite floats on a grid of eccentricities (up to
  the model's ``max_eccentricity_ratio``), eccentricity rates and relative speeds, agrees with its
  reference path, gives no force for a centred journal at rest, is frame-invariant (turning ``e``
  and ``v`` turns the force, keeps the moment), resists a pure approach (``F . v < 0``) and, for a
  ``passive`` model, never does positive work while nothing turns (``omega = 0``: ``F . v <= 0``);
  a model with a worn form (``pack_worn``) packs an unworn bore as ``pack`` itself and gives
  finite forces on a scarred one;
* wear laws: ``depth`` returns finite depths >= 0 of the inputs' broadcast shape (also for the
  wear loop's ``(samples, nodes)``, ``(samples, 1)``, ``(1, nodes)``), 0 where the pressure or the
  slip is 0, not decreasing with pressure or slip; a law with ``uses_shear`` gets
  ``shear = 0.1 p`` [Pa].

The wear loop applies the same checks where a model's output enters it (pressure finite, >= 0
and carrying each sample's load; wear depth finite and >= 0) and stops the run naming the model,
the update and the joint: a model that passes here does not meet them first in a user's run.

The inputs are a standard steel pin-in-bushing joint (R = 10 mm, radial clearance 0.1 mm,
length 10 mm, 72 bore nodes) and grids that cover free flight, grazing and hard contact.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from .errors import WorkbenchError
from .models import (BoreSection, ContactGeometry, ContactLaw, FrictionLaw, KernelSlots, LubricationModel,
                     Material,
                     PressureModel, PressureSolution, WearLaw)


class ConformanceError(AssertionError):
    """A model breaks a contract of :mod:`workbench.models`."""


def _fail(cls, what: str) -> None:
    raise ConformanceError(f"{cls.family} model '{cls.name}' ({cls.__module__}.{cls.__qualname__}): {what}")


# --------------------------------------------------------------------------------------------
# every model
# --------------------------------------------------------------------------------------------
def check_metadata(cls) -> None:
    """Reference, docstring and parameters (unit, doc, default within bounds/choices)."""
    ref = getattr(cls, "reference", "")
    if not isinstance(ref, str) or not ref.strip():
        _fail(cls, "has no reference string (paper and equation)")
    if not any(ch.isdigit() for ch in ref):
        _fail(cls, f"reference {ref!r} names no year or equation number")
    if not (cls.__doc__ or "").strip():
        _fail(cls, "has no docstring (say what it computes and cite the equation)")
    try:
        params = cls.Params()
        infos = cls.parameters()
    except Exception as exc:  # noqa: BLE001 - reported as a conformance failure
        _fail(cls, f"its Params cannot be built with the defaults: {type(exc).__name__}: {exc}")
    for info in infos:
        where = f"parameter '{info.name}'"
        if not isinstance(info.unit, str) or not info.unit.strip():
            _fail(cls, f"{where} has no unit (use '1' for dimensionless, 'text' for a choice)")
        if not isinstance(info.doc, str) or not info.doc.strip():
            _fail(cls, f"{where} has no doc line")
        value = getattr(params, info.name)
        if info.choices is not None and value is not None and value not in info.choices:
            _fail(cls, f"{where}: default {value!r} is not one of its choices {info.choices!r}")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if not math.isfinite(value):
                _fail(cls, f"{where}: default {value!r} is not finite")
            if info.min is not None and value < info.min:
                _fail(cls, f"{where}: default {value!r} is below its minimum {info.min!r}")
            if info.max is not None and value > info.max:
                _fail(cls, f"{where}: default {value!r} is above its maximum {info.max!r}")


def _dimensionless_max(params) -> float | None:
    """Largest numeric parameter with unit '1' (the friction coefficient bound), or None."""
    vals = [getattr(params, f.name) for f in dataclasses.fields(params)
            if f.metadata.get("unit") == "1"]
    vals = [float(v) for v in vals if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return max(vals) if vals else None


# --------------------------------------------------------------------------------------------
# contact laws
# --------------------------------------------------------------------------------------------
STEEL = Material(E=207e9, nu=0.3)


def standard_geometry(kind: str) -> ContactGeometry:
    """The steel joint the checks use: pin R 10 mm in a 10.1 mm bore, 10 mm long."""
    return ContactGeometry(kind=kind, radius_journal=0.0100, radius_bushing=0.0101, length=0.01,
                           journal=STEEL, bushing=STEEL, half_perimeter=0.01 if kind == "planar" else 0.0)


#: values given to parameters whose default is ``None`` ("derived"), by unit, when a law cannot
#: derive them from the geometry alone (e.g. a damping that needs an effective mass)
DERIVED_FILL = {"N/m": 1.0e8, "N/m^n": 1.0e8, "N/m^1.5": 5.0e10, "N s/m": 1.0e3, "kg": 1.0,
                "Pa": 1.0e8, "Pa/m": 1.0e13, "m": 1.0e-3}


def contact_packs(cls) -> list[tuple[str, Any, np.ndarray]]:
    """``(kind, model, p)`` for every geometry kind the law declares.

    With the default parameters; if ``pack`` refuses them with a :class:`WorkbenchError` (a
    parameter that cannot be derived for this geometry), every ``None`` ("derived") numeric
    parameter is set from :data:`DERIVED_FILL` and the law must accept that.
    """
    out = []
    for kind in cls.geometries:
        geo = standard_geometry(kind)
        model = cls()
        try:
            p = model.pack(geo)
        except WorkbenchError as first:
            fill = {i.name: DERIVED_FILL.get(i.unit, 1.0) for i in cls.parameters()
                    if i.default is None and i.unit != "text"}
            try:
                model = cls(**fill)
                p = model.pack(geo)
            except WorkbenchError as exc:
                _fail(cls, f"cannot pack a '{kind}' geometry with the defaults ({first}) nor with "
                           f"the derived parameters set to {fill} ({exc})")
        except Exception as exc:  # noqa: BLE001
            _fail(cls, f"pack({kind!r} geometry) raised {type(exc).__name__}: {exc} "
                       "(raise a workbench.errors.StudyError for a geometry it cannot handle)")
        p = np.asarray(p)
        if p.ndim != 1 or p.dtype != np.float64 or p.size == 0 or not np.all(np.isfinite(p)):
            _fail(cls, f"pack({kind!r}) must return a non-empty 1-D float64 array of finite values, "
                       f"got {p!r}")
        out.append((kind, model, p))
    if not out:
        _fail(cls, "declares no geometry kind ('geometries' is empty)")
    return out


PENETRATIONS = (-1e-3, -1e-6, -1e-12, 0.0, 1e-12, 1e-9, 1e-7, 1e-6, 5e-6, 1e-5, 3e-5, 1e-4)  # [m]
RATES = (-10.0, -1.0, -1e-2, -1e-5, 0.0, 1e-5, 1e-2, 1.0, 10.0)  # [m/s]
IMPACT_SPEEDS = (1e-6, 1e-3, 0.1, 1.0, 10.0)  # [m/s]


def _as_float(cls, value, call: str) -> float:
    if isinstance(value, (tuple, list, np.ndarray)) or not isinstance(value, (float, int, np.floating, np.integer)):
        _fail(cls, f"{call} returned {value!r} ({type(value).__name__}); a contact kernel returns one float [N]")
    return float(value)


def check_contact_law(cls) -> None:
    """Kernel: one finite float >= 0, 0 out of contact, equal to the reference path, elastic part
    non-decreasing; compiles with the solver's C signature."""
    if not issubclass(cls, ContactLaw):
        _fail(cls, "is not a workbench.models.ContactLaw")
    kernel = cls.kernel
    if not hasattr(kernel, "py_func"):
        _fail(cls, "kernel is not a numba.njit function (the solver calls it in its compiled loop)")
    for kind, model, p in contact_packs(cls):
        for dm in IMPACT_SPEEDS:
            elastic_prev = 0.0
            for d in PENETRATIONS:
                for dd in RATES:
                    call = f"kernel(delta={d:g}, delta_dot={dd:g}, delta_dot_minus={dm:g}) on a '{kind}' geometry"
                    f = _as_float(cls, kernel(d, dd, dm, p), call)
                    if not math.isfinite(f):
                        _fail(cls, f"{call} = {f} is not finite")
                    if f < 0.0:
                        _fail(cls, f"{call} = {f} N < 0: tension (the force must be clamped at 0)")
                    if d <= 0.0 and f != 0.0:
                        _fail(cls, f"{call} = {f} N: the force must be exactly 0 without penetration")
                    ref = _as_float(cls, kernel.py_func(d, dd, dm, p), "kernel.py_func" + call[6:])
                    if not math.isclose(f, ref, rel_tol=1e-9, abs_tol=1e-12):
                        _fail(cls, f"{call}: compiled {f!r} != reference path {ref!r}")
                    if dd == 0.0 and d > 0.0:
                        if f < elastic_prev * (1.0 - 1e-12):
                            _fail(cls, f"{call} = {f} N is less than at a smaller penetration "
                                       f"({elastic_prev} N): the elastic force must not decrease")
                        elastic_prev = f
    from .jit import contact_cfunc  # compiled for the solver exactly as a run does
    try:
        contact_cfunc(kernel)
    except Exception as exc:  # noqa: BLE001
        _fail(cls, f"kernel does not compile with the solver's signature "
                   f"float64(float64, float64, float64, float64*): {type(exc).__name__}: "
                   f"{str(exc).splitlines()[0] if str(exc) else ''}")


# --------------------------------------------------------------------------------------------
# friction laws
# --------------------------------------------------------------------------------------------
SLIP_SPEEDS = (-10.0, -0.1, -1e-3, -1e-5, 0.0, 1e-5, 1e-3, 0.1, 10.0)  # [m/s]
NORMAL_FORCES = (0.0, 1.0, 1e3, 1e5)  # [N]
STATES = (-1e-6, -1e-7, 0.0, 1e-7, 1e-6)  # [unit of z], for laws with one state


def _friction_call(cls, model, p, v, fn, z):
    call = f"kernel(v_t={v:g}, f_n={fn:g}, z={z:g})"
    out = cls.kernel(v, fn, z, p)
    if not isinstance(out, tuple) or len(out) != 2:
        _fail(cls, f"{call} returned {out!r}; a friction kernel returns (f_t [N], z_dot)")
    ft, dz = (float(x) for x in out)
    if not (math.isfinite(ft) and math.isfinite(dz)):
        _fail(cls, f"{call} = ({ft}, {dz}) is not finite")
    ref = tuple(float(x) for x in cls.kernel.py_func(v, fn, z, p))
    if not (math.isclose(ft, ref[0], rel_tol=1e-9, abs_tol=1e-12)
            and math.isclose(dz, ref[1], rel_tol=1e-9, abs_tol=1e-12)):
        _fail(cls, f"{call}: compiled ({ft}, {dz}) != reference path {ref}")
    return call, ft, dz


def _steady_state(cls, p, v, fn, scale=1e-9):
    """State ``z`` with ``z_dot = 0`` at constant slip (bracketed root), or None."""
    from scipy.optimize import brentq

    def rate(z):
        return float(cls.kernel(v, fn, z, p)[1])

    lo, hi = -scale, scale
    while rate(lo) * rate(hi) > 0.0:
        lo, hi = 10 * lo, 10 * hi
        if hi > 1.0:
            return None
    return brentq(rate, lo, hi, xtol=1e-300, rtol=1e-14)


def check_friction_law(cls) -> None:
    """Kernel: two finite floats, no force without normal force, bounded and passive where it
    applies; compiles with the solver's C signature."""
    if not issubclass(cls, FrictionLaw):
        _fail(cls, "is not a workbench.models.FrictionLaw")
    if not hasattr(cls.kernel, "py_func"):
        _fail(cls, "kernel is not a numba.njit function (the solver calls it in its compiled loop)")
    model = cls()
    p = np.asarray(model.pack())
    if p.ndim != 1 or p.dtype != np.float64 or p.size == 0 or not np.all(np.isfinite(p)):
        _fail(cls, f"pack() must return a non-empty 1-D float64 array of finite values, got {p!r}")
    mu = _dimensionless_max(model.params)
    states = STATES if cls.n_states else (0.0,)
    for v in SLIP_SPEEDS:
        for fn in NORMAL_FORCES:
            for z in states:
                call, ft, dz = _friction_call(cls, model, p, v, fn, z)
                if fn == 0.0 and ft != 0.0:
                    _fail(cls, f"{call} = {ft} N: no friction force without normal force")
                if cls.n_states == 0:
                    if dz != 0.0:
                        _fail(cls, f"{call}: z_dot = {dz} but the law has no state (n_states = 0)")
                    if ft * v > 0.0:
                        _fail(cls, f"{call} = {ft} N pushes along the slip (v_t = {v}): not passive")
                    if mu is not None and abs(ft) > mu * fn * (1 + 1e-12):
                        _fail(cls, f"{call}: |f_t| = {abs(ft)} N > mu_max |f_n| = {mu * fn} N "
                                   f"(mu_max = {mu}, its largest dimensionless parameter)")
    if cls.n_states and mu is not None:
        for v in (v for v in SLIP_SPEEDS if v != 0.0):
            fn = 1e3
            z = _steady_state(cls, p, v, fn)
            if z is None:
                continue
            call, ft, _ = _friction_call(cls, model, p, v, fn, z)
            if ft * v > 0.0 or abs(ft) > mu * fn * (1 + 1e-9):
                _fail(cls, f"at steady sliding, {call} = {ft} N: must oppose the slip and be "
                           f"bounded by mu_max |f_n| = {mu * fn} N (mu_max = {mu})")
    from .jit import friction_cfunc
    try:
        friction_cfunc(cls.kernel)
    except Exception as exc:  # noqa: BLE001
        _fail(cls, f"kernel does not compile with the solver's signature (v_t, f_n, z, p) -> "
                   f"(f_t, z_dot): {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")


# --------------------------------------------------------------------------------------------
# pressure models
# --------------------------------------------------------------------------------------------
def standard_section(n: int = 72, clearance: float = 1e-4) -> BoreSection:
    """A round steel bore, R = 10 mm, uniform radial clearance, length 10 mm, ``n`` nodes."""
    theta = 2.0 * math.pi * np.arange(n) / n
    return BoreSection(theta, 0.01, np.full(n, clearance), 0.01, STEEL, STEEL)


def _direction(angle: float) -> np.ndarray:
    return np.array([math.cos(angle), math.sin(angle)])


#: (magnitude [N], angle [rad]) of the loads; nodes are every 5 deg, the angles fall between
LOADS = ((1.0e3, 0.3), (1.0e4, 2.0), (3.0e4, -2.5))
LIGHT_LOAD = (20.0, 1.0)  # a load that only one or two nodes carry


def resultant(section: BoreSection, pressure: np.ndarray) -> np.ndarray:
    """``R b sum(p n dtheta)`` [N] (last axis = nodes)."""
    return section.radius * section.length * section.dtheta * (pressure @ section.normals)


def _check_solution(cls, sol, section: BoreSection, what: str) -> None:
    n = len(section.theta)
    if not isinstance(sol, PressureSolution):
        _fail(cls, f"{what} returned {type(sol).__name__}, not a workbench.models.PressureSolution")
    p, e, F = (np.asarray(x) for x in (sol.pressure, sol.eccentricity, sol.force))
    if p.shape != (n,):
        _fail(cls, f"{what}: pressure has shape {p.shape}, expected ({n},) (one value per node)")
    if e.shape != (2,) or F.shape != (2,):
        _fail(cls, f"{what}: eccentricity {e.shape} and force {F.shape} must have shape (2,)")
    if not (np.all(np.isfinite(p)) and np.all(np.isfinite(e)) and np.all(np.isfinite(F))):
        _fail(cls, f"{what}: non-finite values in pressure/eccentricity/force")
    if p.min() < 0.0:
        _fail(cls, f"{what}: negative pressure {p.min()} Pa (no tension)")
    res = resultant(section, p)
    scale = max(float(np.abs(res).max()), float(np.abs(F).max()), 1e-300)
    if np.abs(res - F).max() > 1e-9 * scale and np.abs(res - F).max() > 1e-12:
        _fail(cls, f"{what}: PressureSolution.force {F} N is not the resultant R b sum(p n dtheta) "
                   f"= {res} N of its pressure")


def check_pressure_load(cls, model=None, section: BoreSection | None = None,
                        loads=LOADS, rtol: float = 1e-6) -> None:
    """``solve_load``: shapes, finite, p >= 0, resultant == load (``rtol``), approach towards it."""
    model = model if model is not None else cls()
    section = section if section is not None else standard_section()
    for mag, angle in loads:
        load = mag * _direction(angle)
        what = f"solve_load(load = {mag:g} N at {math.degrees(angle):.0f} deg)"
        sol = model.solve_load(section, load)
        _check_solution(cls, sol, section, what)
        res = resultant(section, np.asarray(sol.pressure))
        err = float(np.linalg.norm(res - load)) / mag
        if err > rtol:
            _fail(cls, f"{what}: the pressure carries R b sum(p n dtheta) = {res} N, not the load "
                       f"{load} N (relative error {err:.2e} > {rtol:g})")
        if float(np.dot(sol.eccentricity, load)) <= 0.0:
            _fail(cls, f"{what}: the journal centre moved to {sol.eccentricity} m, not towards the load")
    sol = model.solve_load(section, np.zeros(2))
    _check_solution(cls, sol, section, "solve_load(load = 0)")
    if np.any(np.asarray(sol.pressure) != 0.0):
        _fail(cls, "solve_load(load = 0) gives a non-zero pressure")


def check_pressure_approach(cls, model=None, section: BoreSection | None = None) -> None:
    """``solve_approach``: no pressure inside the clearance, pressure along the approach beyond it."""
    model = model if model is not None else cls()
    section = section if section is not None else standard_section()
    c = float(section.gap.min())
    for angle in (0.3, 2.0, -2.5):
        for depth in (0.5 * c, 1.05 * c, 1.2 * c):
            e = depth * _direction(angle)
            what = f"solve_approach(|e| = {depth:.3g} m at {math.degrees(angle):.0f} deg)"
            sol = model.solve_approach(section, e)
            _check_solution(cls, sol, section, what)
            p = np.asarray(sol.pressure)
            if depth < c and np.any(p != 0.0):
                _fail(cls, f"{what}: pressure {p.max()} Pa although the journal is inside the clearance")
            if depth > c:
                if not np.any(p > 0.0):
                    _fail(cls, f"{what}: no pressure although the journal penetrates the bore")
                if float(np.dot(resultant(section, p), e)) <= 0.0:
                    _fail(cls, f"{what}: the resultant does not point along the approach")


def check_pressure_batch(cls, model=None, section: BoreSection | None = None, loads=LOADS) -> None:
    """``solve_loads(section, loads (ns,2), gaps (ns,n) or None) -> (pressure (ns,n), e (ns,2))``
    agrees with ``solve_load`` row by row (skipped for models without ``solve_loads``)."""
    if not hasattr(cls, "solve_loads"):
        return
    model = model if model is not None else cls()
    section = section if section is not None else standard_section()
    F = np.array([m * _direction(a) for m, a in loads])
    n = len(section.theta)
    worn = section.gap + 2e-5 * np.maximum(np.cos(section.theta - 0.5), 0.0) ** 2
    gaps = np.array([section.gap if i % 2 == 0 else worn for i in range(len(F))])
    for g in (None, gaps):
        what = f"solve_loads(loads ({len(F)},2), gaps {'None' if g is None else g.shape})"
        out = model.solve_loads(section, F, g)
        if not isinstance(out, tuple) or len(out) != 2:
            _fail(cls, f"{what} must return (pressure, eccentricity)")
        P, E = (np.asarray(x) for x in out)
        if P.shape != (len(F), n) or E.shape != (len(F), 2):
            _fail(cls, f"{what}: shapes {P.shape}, {E.shape}; expected ({len(F)}, {n}), ({len(F)}, 2)")
        for i in range(len(F)):
            sec_i = section if g is None else dataclasses.replace(section, gap=g[i])
            one = model.solve_load(sec_i, F[i])
            peak = max(float(np.max(one.pressure)), 1e-300)
            if np.abs(P[i] - one.pressure).max() > 1e-6 * peak:
                _fail(cls, f"{what}: row {i} differs from solve_load by "
                           f"{np.abs(P[i] - one.pressure).max() / peak:.2e} of the peak pressure")
            if np.abs(E[i] - one.eccentricity).max() > 1e-6 * max(np.abs(one.eccentricity).max(), 1e-300):
                _fail(cls, f"{what}: eccentricity of row {i} {E[i]} != solve_load's {one.eccentricity}")


def check_pressure_model(cls) -> None:
    """Every pressure check on the standard section."""
    if not issubclass(cls, PressureModel):
        _fail(cls, "is not a workbench.models.PressureModel")
    model, section = cls(), standard_section()
    check_pressure_load(cls, model, section, LOADS + (LIGHT_LOAD,))
    check_pressure_approach(cls, model, section)
    check_pressure_batch(cls, model, section)


# --------------------------------------------------------------------------------------------
# wear laws
# --------------------------------------------------------------------------------------------
PRESSURES = np.array([0.0, 1e3, 1e5, 1e6, 1e7, 1e8, 1e9])  # [Pa]
SLIPS = np.array([0.0, 1e-9, 1e-6, 1e-4, 1e-2])  # [m]
SLIDING_DISTANCES = (0.0, 1.0, 1.0e4)  # [m]


#: friction coefficient of the shear given to a law with ``uses_shear`` (tau = mu p)
SHEAR_MU = 0.1


def _wear_depth(model, p, s, dist=None):
    """The wear loop's call: ``shear = (|F_t|/F_n) p`` only for a law with ``uses_shear``."""
    args = (p, s) if dist is None else (p, s, dist)
    if getattr(model, "uses_shear", False):
        return model.depth(*args, shear=SHEAR_MU * np.asarray(p, float))
    return model.depth(*args)


def check_wear_law(cls) -> None:
    """``depth``: finite, >= 0, input shape, 0 without pressure or slip, monotone in both (laws
    with ``uses_shear`` are given the shear ``0.1 p``).  The wear loop checks the same where the
    depth enters it: finite and >= 0, else the run stops naming the law."""
    if not issubclass(cls, WearLaw):
        _fail(cls, "is not a workbench.models.WearLaw")
    model = cls()
    P, S = np.meshgrid(PRESSURES, SLIPS, indexing="ij")
    p, s = P.ravel(), S.ravel()
    for dist in SLIDING_DISTANCES:
        what = f"depth(pressure, slip, sliding_distance={dist:g}) on {p.size} nodes"
        dh = np.asarray(_wear_depth(model, p, s, dist))
        if dh.shape != p.shape:
            _fail(cls, f"{what} returned shape {dh.shape}, expected {p.shape} (one depth per node)")
        if not np.all(np.isfinite(dh)):
            _fail(cls, f"{what}: non-finite depths")
        if dh.min() < 0.0:
            _fail(cls, f"{what}: negative wear depth {dh.min()} m")
        if np.any(dh[(p == 0.0) | (s == 0.0)] != 0.0):
            _fail(cls, f"{what}: wear without pressure or without slip")
        D = dh.reshape(P.shape)
        if np.any(np.diff(D, axis=0) < -1e-12 * np.abs(D[1:]).max(initial=0.0)):
            _fail(cls, f"{what}: more pressure gives less wear")
        if np.any(np.diff(D, axis=1) < -1e-12 * np.abs(D[:, 1:]).max(initial=0.0)):
            _fail(cls, f"{what}: more slip gives less wear")
    one = np.asarray(_wear_depth(model, p[:3], s[:3]))
    if one.shape != (3,):
        _fail(cls, f"depth(pressure, slip) without sliding_distance returned shape {one.shape}")
    # the wear loop's call: pressure (samples, nodes), slip (samples, 1), sliding distance (1, nodes)
    ns, n = len(SLIPS), len(PRESSURES)
    dh = np.asarray(_wear_depth(model, np.tile(PRESSURES, (ns, 1)), SLIPS[:, None], np.full((1, n), 1.0)))
    if dh.shape != (ns, n):
        _fail(cls, f"depth(pressure ({ns}, {n}), slip ({ns}, 1), sliding_distance (1, {n})) returned "
                   f"shape {dh.shape}; the inputs must broadcast to ({ns}, {n})")
    if not np.all(np.isfinite(dh)) or dh.min() < 0.0:
        _fail(cls, "depth on broadcast (samples, nodes) inputs gives non-finite or negative depths")


# --------------------------------------------------------------------------------------------
# named kernel parameters
# --------------------------------------------------------------------------------------------
def _nudged(info, value: float) -> list[float]:
    """Valid values near ``value`` (inside the parameter's bounds) that differ from it."""
    out = []
    for v in (value * 1.25 if value else 0.5, value * 0.8 if value else 0.25, value + 1.0):
        if (info.min is not None and v < info.min) or (info.max is not None and v > info.max) \
                or (info.gt is not None and not v > info.gt) or (info.lt is not None and not v < info.lt):
            continue
        if info.valid_range is not None and not info.valid_range[0] <= v <= info.valid_range[1]:
            continue
        if v != value:
            out.append(float(v))
    return out


def check_slots(cls) -> None:
    """A contact or friction law that declares ``slots`` (:func:`workbench.models.kernel_slots`):
    ``pack()`` returns one value per slot, and each slot named after a parameter holds that
    parameter: set to another valid value, the parameter appears at its own slot, and no other
    parameter slot moves (the order of ``pack`` is the order the kernel reads)."""
    slots = getattr(cls, "slots", None)
    if slots is None:
        return
    if not isinstance(slots, KernelSlots):
        _fail(cls, f"slots must be made by workbench.models.kernel_slots, got {slots!r}")
    fields = {f.name for f in dataclasses.fields(cls.Params)} if dataclasses.is_dataclass(cls.Params) else set()
    if set(slots.parameters) - fields:
        _fail(cls, f"slots {sorted(set(slots.parameters) - fields)} are not parameters of "
                   f"{cls.__qualname__}.Params")
    infos = {i.name: i for i in cls.parameters()}
    contact = issubclass(cls, ContactLaw)
    packs = contact_packs(cls) if contact else [(None, cls(), np.asarray(cls().pack(), float))]
    for kind, model, p in packs:
        where = f"pack({kind!r} geometry)" if contact else "pack()"

        def repacked(name, value):
            m = type(model)(dataclasses.replace(model.params, **{name: value}))
            return np.asarray(m.pack(standard_geometry(kind)) if contact else m.pack(), float)

        if p.shape != (len(slots),):
            _fail(cls, f"{where} returned {p.size} values, its slots name {len(slots)}: {slots!r}")
        for name in slots.parameters:
            info, value = infos[name], getattr(model.params, name)
            if value is None and info.unit != "text":     # derived by default: give it a value
                value = float(DERIVED_FILL.get(info.unit, 1.0))
            if isinstance(value, bool) or not isinstance(value, (int, float)) or info.choices is not None:
                continue
            for v in _nudged(info, float(value)):
                v = type(value)(v)
                try:
                    q = repacked(name, v)
                except (WorkbenchError, ValueError, TypeError):
                    continue        # a combination the law refuses: try the next value
                if q.shape != p.shape:
                    _fail(cls, f"{where} with {name} = {v!r} returned {q.size} values, not {p.size}")
                if q[getattr(slots, name)] != float(v):
                    at = [i for i in range(q.size) if q[i] == float(v) and p[i] != q[i]]
                    if at:
                        _fail(cls, f"{where} puts parameter '{name}' at index {at[0]} "
                                   f"({slots._fields[at[0]]!r}), but its slot is {getattr(slots, name)}: "
                                   "pack and the kernel's slots disagree")
                    break       # a value pack transforms (not stored as given): nothing to compare
                moved = [o for o in slots.parameters     # (a slot derived by default may follow)
                         if o != name and getattr(model.params, o) is not None
                         and q[getattr(slots, o)] != p[getattr(slots, o)]]
                if moved:
                    _fail(cls, f"{where}: changing '{name}' moved the slots of {moved}")
                break


# --------------------------------------------------------------------------------------------
# lubrication models
# --------------------------------------------------------------------------------------------
ECC_RATIOS = (0.0, 1e-6, 0.1, 0.5, 0.9, 0.97)     # times max_eccentricity_ratio / 0.99, [1]
ECC_ANGLES = (0.0, 1.0, -2.5)                      # [rad]
RATE_RATIOS = ((0.0, 0.0), (1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.7, -0.7))  # (radial, tangential) [c/s x 100]
OMEGAS = (-300.0, 0.0, 300.0)                      # [rad/s]


def _lub_call(cls, k, ex, ey, vx, vy, w, p):
    call = f"kernel(ex={ex:.3g}, ey={ey:.3g}, vx={vx:.3g}, vy={vy:.3g}, omega={w:g})"
    out = k(ex, ey, vx, vy, w, p)
    if not isinstance(out, tuple) or len(out) != 3:
        _fail(cls, f"{call} returned {out!r}; a lubrication kernel returns (f_x, f_y, t_j)")
    vals = tuple(float(v) for v in out)
    if not all(math.isfinite(v) for v in vals):
        _fail(cls, f"{call} = {vals} is not finite")
    return call, vals


def _lub_parts(cls, parts, call, args, p, total, scale) -> None:
    """``parts_kernel`` at one grid point: six finite values, the kernel's force and moment first
    (1e-9), an asperity load ``f_na >= 0`` no larger than the whole force allows."""
    out = parts(*args, p)
    if not isinstance(out, tuple) or len(out) != 6:
        _fail(cls, f"parts_{call} returned {out!r}; it returns (f_x, f_y, t_j, f_na, f_ta, f_nt)")
    vals = tuple(float(v) for v in out)
    if not all(math.isfinite(v) for v in vals):
        _fail(cls, f"parts_{call} = {vals} is not finite")
    if (abs(vals[0] - total[0]) > 1e-9 * scale or abs(vals[1] - total[1]) > 1e-9 * scale
            or not math.isclose(vals[2], total[2], rel_tol=1e-9, abs_tol=1e-15)):
        _fail(cls, f"parts_{call}: (f_x, f_y, t_j) = {vals[:3]} differ from the kernel's {total}")
    if vals[3] < 0.0:
        _fail(cls, f"parts_{call}: asperity load f_na = {vals[3]} N < 0 (it pushes the journal back)")


def check_lubrication_model(cls) -> None:
    """Kernel: finite (f_x, f_y, t_j), reference path, centred journal at rest, frame invariance,
    resistance to approach, passivity without rotation (``passive`` models); the optional
    ``parts_kernel`` agrees with the kernel and gives an asperity load >= 0."""
    if not issubclass(cls, LubricationModel):
        _fail(cls, "is not a workbench.models.LubricationModel")
    kernel = cls.kernel
    if not hasattr(kernel, "py_func"):
        _fail(cls, "kernel is not a numba.njit function (the solver calls it in its compiled loop)")
    parts = getattr(cls, "parts_kernel", None)
    if parts is not None and not hasattr(parts, "py_func"):
        _fail(cls, "parts_kernel is not a numba.njit function (the solver calls it in its compiled loop)")
    geo = standard_geometry("cylindrical")
    model = cls()
    try:
        p = np.asarray(model.pack(geo))
    except Exception as exc:  # noqa: BLE001
        _fail(cls, f"pack(cylindrical geometry) raised {type(exc).__name__}: {exc}")
    if p.ndim != 1 or p.dtype != np.float64 or p.size == 0 or not np.all(np.isfinite(p)):
        _fail(cls, f"pack() must return a non-empty 1-D float64 array of finite values, got {p!r}")
    c = geo.clearance
    _lub_worn(cls, model, kernel, geo, p)
    # frame invariance turns the bushing's own features (a feed groove) with the state
    b = 0.7
    p_turned = np.asarray(model.turn_bushing(p, b), float)
    top = cls.max_eccentricity_ratio / 0.99
    for er in ECC_RATIOS:
        for a in ECC_ANGLES:
            ex, ey = er * top * c * math.cos(a), er * top * c * math.sin(a)
            ux, uy = math.cos(a), math.sin(a)
            for vr, vt in RATE_RATIOS:
                vx = 100.0 * c * (vr * ux - vt * uy); vy = 100.0 * c * (vr * uy + vt * ux)
                for w in OMEGAS:
                    call, (fx, fy, tj) = _lub_call(cls, kernel, ex, ey, vx, vy, w, p)
                    _, ref = _lub_call(cls, kernel.py_func, ex, ey, vx, vy, w, p)
                    scale = max(abs(fx), abs(fy), 1e-12)
                    if (abs(fx - ref[0]) > 1e-9 * scale or abs(fy - ref[1]) > 1e-9 * scale
                            or not math.isclose(tj, ref[2], rel_tol=1e-9, abs_tol=1e-15)):
                        _fail(cls, f"{call}: compiled {(fx, fy, tj)} != reference path {ref}")
                    if er == 0.0 and vr == 0.0 and vt == 0.0 and (fx != 0.0 or fy != 0.0):
                        _fail(cls, f"{call} = ({fx}, {fy}) N: a centred journal at rest carries no load")
                    # frame invariance: turn e and v (and the bushing's features, p_turned) by b
                    cb, sb = math.cos(b), math.sin(b)
                    _, (gx, gy, tk) = _lub_call(cls, kernel, cb * ex - sb * ey, sb * ex + cb * ey,
                                                cb * vx - sb * vy, sb * vx + cb * vy, w, p_turned)
                    rx, ry = cb * fx - sb * fy, sb * fx + cb * fy
                    if (abs(gx - rx) > 1e-7 * scale + 1e-9 or abs(gy - ry) > 1e-7 * scale + 1e-9
                            or not math.isclose(tk, tj, rel_tol=1e-7, abs_tol=1e-12)):
                        _fail(cls, f"{call}: turning e and v by {b} rad gives ({gx}, {gy}, {tk}), expected "
                                   f"({rx}, {ry}, {tj}): the model is not frame-invariant")
                    if parts is not None:
                        _lub_parts(cls, parts, call, (ex, ey, vx, vy, w), p, (fx, fy, tj), scale)
                    power = fx * vx + fy * vy
                    if w == 0.0 and vr > 0.0 and vt == 0.0 and er > 0.0 and not power < 0.0:
                        _fail(cls, f"{call}: F . v = {power} W >= 0 for a pure approach: the film must resist it")
                    if cls.passive and w == 0.0 and power > 1e-9 * scale * math.hypot(vx, vy):
                        _fail(cls, f"{call}: F . v = {power} W > 0 while nothing turns: the film gives energy")


def _lub_worn(cls, model, kernel, geo, p) -> None:
    """``pack_worn``: an unworn bore (720 zero depths, the wear loop's default) packs ``p`` itself
    (forces bit for bit); a scar of a fifth of the clearance gives finite forces."""
    nodes = 720
    try:
        p0 = model.pack_worn(geo, np.zeros(nodes))
    except Exception as exc:  # noqa: BLE001
        _fail(cls, f"pack_worn(cylindrical geometry, zero profile) raised {type(exc).__name__}: {exc}")
    if p0 is None:
        return
    if not np.array_equal(np.asarray(p0, float), p):
        _fail(cls, "pack_worn(geometry, zero profile) must return pack(geometry) itself: an unworn bore keeps "
                   "the model's forces bit for bit")
    c = geo.clearance
    psi = 2.0 * math.pi * np.arange(nodes) / nodes
    pw = np.asarray(model.pack_worn(geo, 0.2 * c * np.exp(-(np.angle(np.exp(1j * psi)) / 0.3) ** 2)), float)
    if pw.ndim != 1 or not np.all(np.isfinite(pw)):
        _fail(cls, "pack_worn(geometry, scarred profile) must return a 1-D array of finite floats")
    for er in (0.0, 0.5, 0.9):
        for a in (0.0, 2.0):
            ex, ey = er * c * math.cos(a), er * c * math.sin(a)
            _lub_call(cls, kernel, ex, ey, 0.05 * c, -0.02 * c, 200.0, pw)      # fails unless finite


# --------------------------------------------------------------------------------------------
CHECKS = {"contact": check_contact_law, "friction": check_friction_law,
          "pressure": check_pressure_model, "wear": check_wear_law,
          "lubrication": check_lubrication_model}


def check_model(cls) -> None:
    """Run every check of ``cls``'s family (and the metadata checks) on it."""
    family = getattr(cls, "family", "")
    if family not in CHECKS:
        raise ConformanceError(f"{cls!r} is not a model of a known family ({', '.join(CHECKS)})")
    check_metadata(cls)
    CHECKS[family](cls)
    if family in ("contact", "friction"):
        check_slots(cls)
