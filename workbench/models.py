"""Base classes every model implements, whether built in or third-party.

Five families of models, each registered through one hook (see :mod:`workbench.hookspecs`):

============  =========================================================================
family        question the model answers
============  =========================================================================
``contact``   normal contact force from penetration ``delta`` [m], its rate [m/s] and
              the impact velocity at the start of the contact [m/s]
``friction``  tangential force from the slip velocity [m/s] and the normal force [N]
``pressure``  contact pressure on the bore nodes [Pa] for a load or an approach
``wear``      wear depth on the nodes [m] from pressure [Pa] and slip distance [m]
``lubrication`` film (and asperity) force and friction moment on a lubricated journal from
              its eccentricity [m], the eccentricity's rate [m/s] and the relative angular
              velocity [rad/s] (:mod:`workbench.lubrication`)
============  =========================================================================

A model class carries ``name``, ``reference`` (paper and equation) and ``Params``: a frozen
dataclass whose fields are made with :func:`parameter` (default, SI unit, docstring).  Contact and
friction models also carry a compiled ``kernel`` (a ``numba.njit`` function) that the multibody
solver calls in its hot loop; their plain-Python ``kernel.py_func`` is the reference path.
"""
from __future__ import annotations

import collections
import dataclasses
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .errors import PluginError, WorkbenchError

FAMILIES = ("contact", "friction", "pressure", "wear", "lubrication")


# --------------------------------------------------------------------------------------------
# parameters
# --------------------------------------------------------------------------------------------
def parameter(default: Any, *, unit: str, doc: str, min: float | None = None,
              max: float | None = None, choices: tuple | None = None,
              valid_range: tuple[float, float] | None = None, range_source: str = "",
              gt: float | None = None, lt: float | None = None):
    """A model parameter: a dataclass field with its SI unit and docstring in the metadata.

    Parameters
    ----------
    default : the default value (``None`` means "derived from the joint geometry").
    unit : SI unit as text, ``"1"`` for dimensionless, e.g. ``"N/m^1.5"``, ``"Pa"``.
    doc : one line saying what it is.
    min, max : inclusive bounds checked when a study sets the value (outside them the formula
        itself breaks down: always an error).
    gt, lt : exclusive bounds, same role (e.g. ``gt=0.0`` for a length that must be positive).
    choices : allowed values for a text parameter.
    valid_range : inclusive ``(low, high)`` range the model's source derives it for, inside
        ``[min, max]``.  A study outside it is refused unless it sets ``[checks]
        allow_out_of_range = true``, and then the run records a warning.
    range_source : why that range (author, year, and the argument), quoted in the messages.
    """
    return dataclasses.field(default=default, metadata={
        "unit": unit, "doc": doc, "min": min, "max": max, "choices": choices,
        "valid_range": valid_range, "range_source": range_source, "gt": gt, "lt": lt})


@dataclass(frozen=True)
class ParameterInfo:
    """Description of one parameter, for ``workbench plugins`` and the conformance suite."""
    name: str
    default: Any
    unit: str
    doc: str
    min: float | None = None
    max: float | None = None
    choices: tuple | None = None
    valid_range: tuple[float, float] | None = None
    range_source: str = ""
    gt: float | None = None
    lt: float | None = None


def parameter_infos(params_cls: type) -> list[ParameterInfo]:
    """List the parameters of a ``Params`` dataclass (raises if one lacks unit or doc)."""
    out = []
    for f in dataclasses.fields(params_cls):
        md = f.metadata
        if "unit" not in md or "doc" not in md:
            raise PluginError(f"parameter '{f.name}' of {params_cls.__qualname__} has no unit/doc; "
                              "declare it with workbench.models.parameter(...)")
        default = f.default if f.default is not dataclasses.MISSING else None
        vr = md.get("valid_range")
        if vr is not None and not (len(vr) == 2 and vr[0] <= vr[1]
                                   and (md.get("min") is None or vr[0] >= md["min"])
                                   and (md.get("max") is None or vr[1] <= md["max"])
                                   and (md.get("gt") is None or vr[0] > md["gt"])
                                   and (md.get("lt") is None or vr[1] < md["lt"])):
            raise PluginError(f"parameter '{f.name}' of {params_cls.__qualname__}: valid_range {vr!r} "
                              f"must be (low, high) inside [min, max] = [{md.get('min')}, {md.get('max')}]"
                              f" and (gt, lt) = ({md.get('gt')}, {md.get('lt')})")
        gt, lt = md.get("gt"), md.get("lt")
        if isinstance(default, (int, float)) and not isinstance(default, bool) and (
                gt is not None and not default > gt or lt is not None and not default < lt):
            raise PluginError(f"parameter '{f.name}' of {params_cls.__qualname__}: default {default!r} "
                              f"is outside its bounds (gt, lt) = ({gt}, {lt})")
        out.append(ParameterInfo(f.name, default, md["unit"], md["doc"], md.get("min"),
                                 md.get("max"), md.get("choices"), md.get("valid_range"),
                                 md.get("range_source", ""), md.get("gt"), md.get("lt")))
    return out


def out_of_valid_range(model: Model) -> list[tuple[ParameterInfo, float]]:
    """The parameters of ``model`` set outside the range its source derives it for
    (``parameter(valid_range=...)``), with their values."""
    out = []
    for info in model.parameters():
        if info.valid_range is None:
            continue
        v = getattr(model.params, info.name, None)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            lo, hi = info.valid_range
            if not lo <= v <= hi:
                out.append((info, float(v)))
    return out


def range_text(lo: float | None, hi: float | None, unit: str = "") -> str:
    """``"between 1 and 3 N"``, ``">= 0 Pa"`` ... for messages."""
    u = "" if unit in ("1", "", "text") else f" {unit}"
    if lo is not None and hi is not None:
        return f"between {lo:g} and {hi:g}{u}"
    if lo is not None:
        return f">= {lo:g}{u}"
    return f"<= {hi:g}{u}"


@dataclass(frozen=True)
class NoParams:
    """Parameters of a model that has none."""


# --------------------------------------------------------------------------------------------
# named kernel parameters: the slots of the ``p`` array, generated from ``Params``
# --------------------------------------------------------------------------------------------
class KernelSlots(tuple):
    """The named slots of a kernel's parameter array ``p``: ``S.name`` is the index of ``name``.

    Made by :func:`kernel_slots` from a model's ``Params``; an instance is a named tuple of plain
    ints, so a compiled kernel reads ``p[S.stiffness]`` with the index as a compile-time constant
    (numba freezes a global named tuple; the generated code is the code of ``p[0]``).  The same
    object builds the array (:meth:`pack`, :meth:`from_params`), so the order of ``pack()`` and the
    order the kernel reads cannot drift apart; the conformance suite
    (:func:`workbench.conformance.check_slots`) checks a model's ``pack`` against its ``slots``.
    """
    __slots__ = ()
    _fields: tuple[str, ...] = ()
    #: the slots named after a field of ``Params``: ``pack`` stores that parameter's value there
    #: (given, or derived when its default ``None`` means "from the geometry")
    parameters: tuple[str, ...] = ()
    #: the other slots: values ``pack`` derives (from parameters or the geometry)
    derived: tuple[str, ...] = ()

    def pack(self, **values: float) -> np.ndarray:
        """The float64 array ``p`` with ``values[name]`` at slot ``name``; every slot must be given."""
        missing = [n for n in self._fields if n not in values]
        extra = [n for n in values if n not in self._fields]
        if missing or extra:
            raise PluginError(f"kernel parameters {type(self).__name__}: "
                              + (f"no value for {', '.join(missing)}" if missing else "")
                              + ("; " if missing and extra else "")
                              + (f"unknown {', '.join(extra)} (slots: {', '.join(self._fields)})" if extra else ""))
        row = [values[n] for n in self._fields]
        unset = [n for n, v in zip(self._fields, row) if v is None]
        if unset:
            raise PluginError(f"kernel parameters {type(self).__name__}: {', '.join(unset)} is None "
                              "(a derived parameter must be resolved before packing)")
        return np.array(row, dtype=np.float64)

    def from_params(self, params: Any, **values: float) -> np.ndarray:
        """:meth:`pack` with each parameter slot taken from ``params`` unless ``values`` gives it
        (a derived value: the stiffness from the geometry, a choice's index)."""
        given = {n: getattr(params, n) for n in self.parameters if n not in values}
        return self.pack(**given, **values)


def kernel_slots(params_cls: type = NoParams, names: tuple[str, ...] | None = None, *,
                 name: str | None = None) -> KernelSlots:
    """The named slots of ``p``, in order: by default one per field of ``params_cls``.

    ``names`` gives the slots the kernel reads, in the order of ``p``: a name that is a field of
    ``params_cls`` holds that parameter (its value, or the value derived when its default ``None``
    means "from the geometry"); any other name is a value ``pack`` derives (the hysteresis laws'
    ``chi(e)``, the clearance of the geometry).  A parameter only ``pack`` uses (e.g. the
    reference load of a default stiffness) needs no slot.  Example::

        class LuGre(FrictionLaw):
            @dataclass(frozen=True)
            class Params: ...
            slots = kernel_slots(Params)          # slots.sigma0 == 0, slots.sigma1 == 1, ...
            def pack(self):
                return self.slots.from_params(self.params)
    """
    declared = [f.name for f in dataclasses.fields(params_cls)] if dataclasses.is_dataclass(params_cls) else []
    names = tuple(declared if names is None else names)
    if len(set(names)) != len(names) or not all(n.isidentifier() and not n.startswith("_") for n in names):
        raise PluginError(f"kernel slots {names} must be distinct identifiers without a leading underscore")
    taken = sorted(set(names) & _SLOT_RESERVED)
    if taken:
        raise PluginError(f"kernel slots {names}: {', '.join(taken)} name methods of the slots; "
                          "give those slots other names")
    base = collections.namedtuple(name or _slots_name(params_cls), names)
    cls = type(base.__name__, (base, KernelSlots), {
        "__slots__": (), "__module__": getattr(params_cls, "__module__", __name__),
        "parameters": tuple(n for n in names if n in declared),
        "derived": tuple(n for n in names if n not in declared)})
    return cls(*range(len(names)))


#: names a slot cannot have: the slots' own methods and attributes
_SLOT_RESERVED = frozenset({"pack", "from_params", "parameters", "derived", "count", "index"})


def _slots_name(params_cls: type) -> str:
    q = [part for part in getattr(params_cls, "__qualname__", "Params").split(".") if part not in ("<locals>",)]
    head = [part for part in q if part != "Params"]
    return (head[-1] if head else "Kernel") + "Slots"


#: the slots of ``p`` every distributed-contact law packs first (the engine,
#: :mod:`workbench.mbs.distributed`, integrates the local pressure over the bore with them):
#: foundation modulus k [Pa/m], contact length b [m], hysteresis factor chi [1], impact-speed floor
#: [m/s], Gauss points per segment, unworn pieces; the law's own slots follow from :data:`N_PARAM`
DISTRIBUTED_SLOTS = kernel_slots(names=("k", "length", "chi", "v_floor", "gauss_points", "unworn_pieces"),
                                 name="DistributedSlots")
P_K, P_LEN, P_CHI, P_VFLOOR, P_NGAUSS, P_PIECES = DISTRIBUTED_SLOTS
#: number of the distributed-contact slots (a law's own parameters start here)
N_PARAM = len(DISTRIBUTED_SLOTS)
#: most Gauss points per segment the distributed engine integrates with
MAX_GAUSS = 8


# --------------------------------------------------------------------------------------------
# the model base
# --------------------------------------------------------------------------------------------
class Model:
    """Base of every model.  Subclasses set the class attributes below.

    Attributes
    ----------
    family : one of :data:`FAMILIES` (set by the family base class).
    name : registry name used in study files, ``snake_case``.
    reference : paper and equation the model implements.
    Params : frozen dataclass of parameters made with :func:`parameter`.
    """
    family: ClassVar[str] = ""
    name: ClassVar[str] = ""
    reference: ClassVar[str] = ""
    Params: ClassVar[type] = NoParams
    #: the named slots of the kernel's ``p`` (:func:`kernel_slots`), for models with a kernel
    slots: ClassVar[KernelSlots | None] = None

    def __init__(self, params: Any = None, **values: Any):
        if params is not None and values:
            raise TypeError("give either a Params instance or keyword values, not both")
        self.params = params if params is not None else self.Params(**values)

    @classmethod
    def parameters(cls) -> list[ParameterInfo]:
        return parameter_infos(cls.Params)

    @classmethod
    def from_mapping(cls, values: dict, *, file: str | None = None, key: str = "") -> Model:
        """Build the model from a study-file table, checking names, types and bounds.

        The check is the study schema's own (:func:`workbench.schema.core.check_parameters`):
        every bad parameter is reported at once, each naming the file, the key path, the bad
        value and the valid range or choices.
        """
        from .schema.core import Problems, check_parameters
        probs = Problems(file)
        kwargs = check_parameters(cls.parameters(), dict(values), key, probs,
                                  f"{cls.family} model '{cls.name}'")
        probs.raise_if_any()
        return cls(cls.Params(**kwargs))

    def describe(self) -> str:
        vals = ", ".join(f"{f.name}={getattr(self.params, f.name)!r}"
                         for f in dataclasses.fields(self.params))
        return f"{self.family}:{self.name}({vals})"


# --------------------------------------------------------------------------------------------
# contact geometry shared by contact laws and pressure models
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Material:
    """An isotropic linear-elastic material.

    Parameters
    ----------
    E : Young's modulus [Pa].
    nu : Poisson's ratio [1].
    rigid : treat the part as rigid (its compliance term is dropped) [bool].
    hardness : indentation hardness H [Pa], or None when not given (wear validity checks).
    """
    E: float = 207e9
    nu: float = 0.3
    rigid: bool = False
    hardness: float | None = None   # wearstats branch: wear validity flags

    @property
    def h(self) -> float:
        """Material compliance parameter ``h = (1 - nu^2)/E`` [1/Pa] (Wang, Chen, Ma & Sun (2016) eq. 12)."""
        return 0.0 if self.rigid else (1.0 - self.nu ** 2) / self.E


@dataclass(frozen=True)
class ContactGeometry:
    """Geometry and materials of one contact pair, in SI units.

    ``kind == "cylindrical"``: a journal of radius ``radius_journal`` [m] inside a bushing bore of
    radius ``radius_bushing`` [m], axial length ``length`` [m] (revolute clearance joint).
    ``kind == "planar"``: a slider corner or face on a flat guide; ``length`` [m] is the slider's
    width normal to the plane of motion and ``half_perimeter`` [m] is ``a`` of Wang, Chen, Ma & Sun (2016) eq. 26.
    ``kind == "sphere"``: two spheres of radii ``radius_journal`` and ``radius_bushing`` (external
    contact), used by restitution tests.
    """
    kind: str = "cylindrical"
    radius_journal: float = 0.0100
    radius_bushing: float = 0.0105
    length: float = 0.01
    journal: Material = Material()
    bushing: Material = Material()
    half_perimeter: float = 0.0

    @property
    def clearance(self) -> float:
        """Radial clearance ``c = R_bushing - R_journal`` [m]."""
        return self.radius_bushing - self.radius_journal

    @property
    def E_star(self) -> float:
        """Effective modulus ``1/E* = h_journal + h_bushing`` [Pa]."""
        return 1.0 / (self.journal.h + self.bushing.h)

    def default_stiffness(self) -> float:
        """Contact stiffness from the geometry.

        cylindrical: ``K = 4/(3(h_i+h_j)) sqrt(R_i R_j/(R_i - R_j))`` [N/m^1.5] (Wang, Chen, Ma & Sun (2016) eq. 11,
        with ``R_i`` the bushing and ``R_j`` the journal radius).
        planar: ``K_s = a/(0.475 (h_i + h_j))`` [N/m] (Wang, Chen, Ma & Sun (2016) eq. 26).
        sphere: Hertz ``K = 4/(3(h_i+h_j)) sqrt(R_i R_j/(R_i + R_j))`` [N/m^1.5].
        """
        hsum = self.journal.h + self.bushing.h
        Ri, Rj = self.radius_bushing, self.radius_journal
        if self.kind == "cylindrical":
            return 4.0 / (3.0 * hsum) * math.sqrt(Ri * Rj / (Ri - Rj))
        if self.kind == "planar":
            return self.half_perimeter / (0.475 * hsum)
        if self.kind == "sphere":
            return 4.0 / (3.0 * hsum) * math.sqrt(Ri * Rj / (Ri + Rj))
        raise ValueError(f"unknown contact geometry kind {self.kind!r}")


# --------------------------------------------------------------------------------------------
# contact force laws
# --------------------------------------------------------------------------------------------
class ContactLaw(Model):
    """Normal contact force law ``F_n(delta, delta_dot, delta_dot_minus)``.

    Subclasses provide

    * ``kernel``: a ``numba.njit`` function ``kernel(delta, delta_dot, delta_dot_minus, p) -> F_n``
      with ``delta`` the penetration [m] (> 0 in contact), ``delta_dot`` its rate [m/s] (> 0 while
      approaching), ``delta_dot_minus`` the approach speed at the instant the contact began [m/s]
      (> 0) and ``p`` the float64 array made by :meth:`pack`.  Returns the normal force [N]; it must
      be 0 for ``delta <= 0`` and never negative (no tension).
    * ``pack(geometry)``: the parameter array ``p`` for one contact pair; derived quantities (e.g.
      the stiffness from Wang, Chen, Ma & Sun (2016) eq. 11 when ``stiffness`` is ``None``) are resolved here, once.
    """
    family: ClassVar[str] = "contact"
    #: True for laws with hysteresis damping (Table 2 of the review), False for pure elastic.
    dissipative: ClassVar[bool] = False
    #: geometry kinds the law is meant for
    geometries: ClassVar[tuple[str, ...]] = ("cylindrical", "planar", "sphere")
    kernel: ClassVar[Any] = None

    def pack(self, geometry: ContactGeometry) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def force(self, delta, delta_dot, delta_dot_minus, geometry: ContactGeometry) -> np.ndarray:
        """Vectorised normal force [N] (reference path: loops the plain-Python kernel)."""
        p = self.pack(geometry)
        d, dd, dm = np.broadcast_arrays(np.asarray(delta, float), np.asarray(delta_dot, float),
                                        np.asarray(delta_dot_minus, float))
        f = self.kernel.py_func if hasattr(self.kernel, "py_func") else self.kernel
        out = np.empty(d.shape)
        for i in np.ndindex(d.shape):
            out[i] = f(d[i], dd[i], dm[i], p)
        return out


# --------------------------------------------------------------------------------------------
# friction laws
# --------------------------------------------------------------------------------------------
class FrictionLaw(Model):
    """Tangential friction force law.

    ``kernel(v_t, f_n, z, p) -> (f_t, z_dot)``: ``v_t`` the relative tangential (slip) velocity
    [m/s], ``f_n >= 0`` the normal force [N], ``z`` the internal state (e.g. LuGre bristle
    deflection [m]; ignored when ``n_states == 0``), ``p`` the array from :meth:`pack`.  Returns the
    friction force [N] along the tangent (it opposes ``v_t``: ``f_t * v_t <= 0`` for passive laws)
    and the state rate [unit of z / s] (0.0 when there is no state).
    """
    family: ClassVar[str] = "friction"
    #: number of internal states integrated with the dynamics (0 or 1)
    n_states: ClassVar[int] = 0
    kernel: ClassVar[Any] = None

    def pack(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def force(self, v_t, f_n, z=0.0) -> tuple[np.ndarray, np.ndarray]:
        """Vectorised ``(f_t, z_dot)`` (reference path)."""
        p = self.pack()
        v, fn, zz = np.broadcast_arrays(np.asarray(v_t, float), np.asarray(f_n, float),
                                        np.asarray(z, float))
        f = self.kernel.py_func if hasattr(self.kernel, "py_func") else self.kernel
        ft = np.empty(v.shape)
        dz = np.empty(v.shape)
        for i in np.ndindex(v.shape):
            ft[i], dz[i] = f(v[i], fn[i], zz[i], p)
        return ft, dz


# --------------------------------------------------------------------------------------------
# contact pressure models
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BoreSection:
    """A pin-in-bushing contact section: the data a pressure model needs.

    Parameters
    ----------
    theta : node angles [rad] in the bushing frame, uniformly spaced over [0, 2 pi).
    radius : nominal bore radius ``R`` [m].
    gap : radial gap per node when the journal centre sits on the bushing centre [m]
        (``R_bushing(theta) - R_journal(theta)``: worn geometry enters here).
    length : axial contact length ``b`` [m].
    bushing, journal : materials of the two parts.
    """
    theta: np.ndarray
    radius: float
    gap: np.ndarray
    length: float
    bushing: Material = Material()
    journal: Material = Material()

    @property
    def normals(self) -> np.ndarray:
        """Outward unit normals of the bore at the nodes, shape (n, 2)."""
        return np.column_stack([np.cos(self.theta), np.sin(self.theta)])

    @property
    def dtheta(self) -> float:
        return 2.0 * math.pi / len(self.theta)


@dataclass(frozen=True)
class PressureSolution:
    """What a pressure model returns.

    Attributes
    ----------
    pressure : contact pressure per node [Pa], >= 0.
    eccentricity : journal-centre offset (approach) in the bushing frame, shape (2,) [m].
    force : resultant the pressure carries, ``R b sum(p n dtheta)``, shape (2,) [N].
    info : solver diagnostics (residuals, iterations, half-angle ...), numbers only.
    """
    pressure: np.ndarray
    eccentricity: np.ndarray
    force: np.ndarray
    info: dict = dataclasses.field(default_factory=dict)


class PressureModel(Model):
    """Contact pressure on the bore nodes.

    ``solve_load(section, load)``: the journal is pressed on the bushing by ``load`` (shape (2,),
    [N], bushing frame, pointing from the bushing centre towards the contact); find the approach
    and the pressure that carry it.  ``solve_approach(section, eccentricity)``: the journal centre is
    displaced by ``eccentricity`` [m]; find the pressure.  Penetration at node ``i`` is
    ``u_i = e . n_i - gap_i`` (rigid-body approach, small-displacement).

    ``solve_loads(section, loads, gaps=None)``: the batch form of ``solve_load`` for the many contact
    samples of a wear update.  ``loads`` (ns, 2) [N] as in ``solve_load``; ``gaps`` (ns, n) [m] the
    radial gap of each sample on the section's nodes (a worn journal turns against the worn bushing,
    so each sample has its own gap; ``None``: ``section.gap`` for every sample).  Returns
    ``(pressure (ns, n) [Pa], eccentricity (ns, 2) [m])``; a sample with ``|load| == 0`` gives zero
    pressure and zero eccentricity.  The default loops over ``solve_load`` (the reference path);
    models override it with a compiled kernel that must agree with that loop.
    """
    family: ClassVar[str] = "pressure"

    @staticmethod
    def batch_inputs(section: BoreSection, loads, gaps=None) -> tuple[np.ndarray, np.ndarray | None]:
        """Checked float arrays ``(loads (ns, 2), gaps (ns, n) or None)`` for :meth:`solve_loads`."""
        n = len(section.theta)
        L = np.asarray(loads, dtype=float)
        if L.ndim != 2 or L.shape[1] != 2:
            raise WorkbenchError(f"solve_loads: loads must have shape (samples, 2), got {L.shape}")
        if not np.all(np.isfinite(L)):
            raise WorkbenchError("solve_loads: loads must be finite")
        if gaps is None:
            return np.ascontiguousarray(L), None
        G = np.asarray(gaps, dtype=float)
        if G.shape != (len(L), n):
            raise WorkbenchError(f"solve_loads: gaps must have shape (samples, nodes) = ({len(L)}, {n}), "
                                 f"got {G.shape}")
        if not np.all(np.isfinite(G)):
            raise WorkbenchError("solve_loads: gaps must be finite")
        return np.ascontiguousarray(L), np.ascontiguousarray(G)

    def solve_loads(self, section: BoreSection, loads, gaps=None) -> tuple[np.ndarray, np.ndarray]:
        """Pressure (ns, n) [Pa] and eccentricity (ns, 2) [m] for ``ns`` load samples (see the class
        docstring); reference path: one :meth:`solve_load` per loaded sample."""
        L, G = self.batch_inputs(section, loads, gaps)
        pressure = np.zeros((len(L), len(section.theta)))
        ecc = np.zeros((len(L), 2))
        for i, F in enumerate(L):
            if not (F[0] != 0.0 or F[1] != 0.0):
                continue
            sec = section if G is None else dataclasses.replace(section, gap=G[i])
            sol = self.solve_load(sec, F)
            pressure[i] = sol.pressure
            ecc[i] = sol.eccentricity
        return pressure, ecc

    def solve_load(self, section: BoreSection, load) -> PressureSolution:  # pragma: no cover
        raise NotImplementedError

    def solve_approach(self, section: BoreSection, eccentricity) -> PressureSolution:  # pragma: no cover
        raise NotImplementedError


# --------------------------------------------------------------------------------------------
# wear laws
# --------------------------------------------------------------------------------------------
class WearLaw(Model):
    """Wear depth law.

    ``depth(pressure, slip, sliding_distance)``: wear depth per node [m] produced by contact
    pressure ``pressure`` [Pa] acting over a slip distance ``slip`` [m] (same shape), when the
    surface has already slid ``sliding_distance`` [m] in total (used by laws whose coefficient
    evolves, e.g. running-in).  Returns an array >= 0 of the same shape.

    A law with ``uses_shear = True`` is called ``depth(pressure, slip, sliding_distance,
    shear=tau)`` with the local friction shear stress ``tau = (|F_t| / F_n) p`` [Pa] that the
    joint's own friction law produced in the simulation (energy laws such as Reye's); the others
    keep the three-argument call.
    """
    family: ClassVar[str] = "wear"
    #: True when the depth depends on ``sliding_distance`` (running-in): the wear loop then
    #: averages the law at the start and the end of a cycle jump (trapezoidal in the sliding
    #: distance); False (Archard, Reye) evaluates it once.
    evolving: ClassVar[bool] = False
    # --- wearstats branch: friction shear from the dynamics
    #: True when ``depth`` needs the keyword ``shear`` [Pa] (the simulated friction shear).
    uses_shear: ClassVar[bool] = False

    def depth(self, pressure, slip, sliding_distance=0.0) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError


# --------------------------------------------------------------------------------------------
# lubricated joints
# --------------------------------------------------------------------------------------------
class LubricationModel(Model):
    """Force of a lubricant film (and, in mixed lubrication, of the asperities) on a journal.

    Not a contact law: a film carries load while the journal is *inside* the clearance (the
    contact-law contract demands zero force there), its force has a component normal to the
    eccentricity, and it depends on the journal's whirl and on the surfaces' rotation, which a
    contact kernel never sees (see :mod:`workbench.lubrication` for the full argument).

    Subclasses provide

    * ``kernel``: a ``numba.njit`` function ``kernel(ex, ey, vx, vy, omega, p) -> (f_x, f_y, t_j)``.
      Inputs, all in the **bushing frame**: ``(ex, ey)`` the journal centre minus the bushing centre
      [m]; ``(vx, vy)`` the rate of that vector as seen from the bushing [m/s]; ``omega`` the
      journal's angular velocity minus the bushing's [rad/s].  Outputs: the force the film (plus
      asperities) exerts on the journal, applied at the journal centre, in the bushing frame [N],
      and the moment about the journal centre [N m] (film shear, asperity friction).  The bushing
      receives the opposite force at the same point and the opposite moment.  The force must be
      finite for ``|e| < c`` (models that allow ``|e| >= c``, e.g. mixed lubrication, say so with
      ``max_eccentricity_ratio``), zero for a centred journal at rest, and rotate with the frame.
    * ``pack(geometry)``: the parameter array ``p`` for one joint (a
      :class:`ContactGeometry`: radii, length, materials), resolved once per run.
    * optionally ``parts_kernel``: a ``numba.njit`` function with the arguments of ``kernel``
      returning ``(f_x, f_y, t_j, f_na, f_ta, f_nt)``: the same force and moment, and the part of
      the force that solid (asperity) contact carries: its normal load along the line of centres
      ``u_e = e / |e|``, ``f_na >= 0`` [N] (pushing the journal back), its friction force ``f_ta``
      [N] along ``u_t`` (``u_e`` turned +90 deg) and its normal load's component ``f_nt`` [N] along
      ``u_t`` (a worn bore's asperities push across the line of centres too; 0 on a circular
      bore).  The solver then calls it instead of ``kernel`` and records that part as the joint's
      contact force (``|(f_na, f_nt)|``, what the wear law acts on) and friction force
      (``f_ta``), books the normal part's power with the contact energy, and the rest of the
      force as the film force; models without it carry everything by the film.
    * optionally ``pack_worn(geometry, bushing_wear)``: the parameter array for a worn bushing
      (wear depth [m] on ``M`` uniform body-fixed nodes ``2 pi k / M`` of the bushing, the wear
      loop's profile), packed again at every wear update; ``None`` (the default) keeps the
      nominal bore.  A zero profile must give ``pack(geometry)`` itself.  ``worn_bore()`` says
      in words what of the worn bore the model sees (recorded with the wear study), ``""`` nothing;
      ``worn_validity(geometry, bushing_wear)`` says why a reduced worn form is outside the range
      its error was measured on (``""``: inside; flagged by the wear loop).
    * optionally ``range_validity(eps_max)``: why a run that reached the eccentricity ratio
      ``eps_max`` left the range the force was built for (``""``: inside; flagged by a dynamics run).
    """
    family: ClassVar[str] = "lubrication"
    kernel: ClassVar[Any] = None
    #: optional kernel returning the asperity part of the force besides it (see above)
    parts_kernel: ClassVar[Any] = None
    #: largest eccentricity ratio |e|/c the conformance grid goes to
    max_eccentricity_ratio: ClassVar[float] = 0.99
    #: True when the force never does positive work on the relative motion of journal and bushing
    #: while they do not turn (``omega = 0``: ``F . v <= 0``); False for models that store energy
    #: (asperity elasticity)
    passive: ClassVar[bool] = True

    def pack(self, geometry: ContactGeometry) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def pack_worn(self, geometry: ContactGeometry, bushing_wear: np.ndarray) -> np.ndarray | None:
        """Parameters for the bushing worn by ``bushing_wear`` [m] (uniform body-fixed nodes), or
        ``None``: the model has no worn form and keeps the nominal bore (the default)."""
        return None

    def worn_bore(self) -> str:
        """What of a worn bore the model's force sees, in words (``""``: nothing, the nominal bore)."""
        return ""

    def turn_bushing(self, p: np.ndarray, angle: float) -> np.ndarray:
        """The packed parameters ``p`` of the same joint with every feature fixed in the bushing (a
        feed groove) turned by ``angle`` [rad] in the bushing frame: the conformance suite turns the
        journal's state and these together to check frame invariance.  Default: ``p`` (a circular
        bore without such features is invariant by itself)."""
        return p

    def range_validity(self, eps_max: float) -> str:
        """Why a run whose journal reached the eccentricity ratio ``eps_max`` [1] left the range
        the model's force was built for (a table that ends below it and is continued beyond), in
        words; ``""``: within it (the default).  A dynamics run puts a non-empty answer in its
        result's warnings."""
        return ""

    def worn_validity(self, geometry: ContactGeometry, bushing_wear: np.ndarray) -> str:
        """Why the worn form's error on ``bushing_wear`` [m] is not the one its documentation
        states (a bore outside the range it was measured on), in words; ``""``: within it (the
        default).  The wear loop flags a non-empty answer in the result's validity warnings."""
        return ""

    def force(self, e, e_dot, omega, geometry: ContactGeometry, *,
              bushing_wear=None) -> tuple[np.ndarray, np.ndarray]:
        """Vectorised reference path: ``e``, ``e_dot`` (..., 2) [m], [m/s]; ``omega`` (...) [rad/s].
        Returns ``(F (..., 2) [N], t_j (...) [N m])`` by looping the plain-Python kernel;
        ``bushing_wear`` [m]: a worn bushing's profile (:meth:`pack_worn`)."""
        p = None if bushing_wear is None else self.pack_worn(geometry, np.asarray(bushing_wear, float))
        p = self.pack(geometry) if p is None else p
        e = np.asarray(e, float); v = np.asarray(e_dot, float)
        shape = np.broadcast_shapes(e.shape[:-1], v.shape[:-1], np.shape(omega))
        e = np.broadcast_to(e, shape + (2,)); v = np.broadcast_to(v, shape + (2,))
        w = np.broadcast_to(np.asarray(omega, float), shape)
        f = self.kernel.py_func if hasattr(self.kernel, "py_func") else self.kernel
        F = np.empty(shape + (2,)); T = np.empty(shape)
        for i in np.ndindex(shape):
            fx, fy, t = f(e[i][0], e[i][1], v[i][0], v[i][1], w[i], p)
            F[i] = (fx, fy); T[i] = t
        return F, T


BASES: dict[str, type[Model]] = {
    "contact": ContactLaw, "friction": FrictionLaw, "pressure": PressureModel, "wear": WearLaw,
    "lubrication": LubricationModel}
