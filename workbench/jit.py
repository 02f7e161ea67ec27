"""The house decorator for compiled functions: :func:`njit`, numba's ``njit`` created on first use.

Importing numba costs 0.3-0.45 s, most of a warm ``workbench validate``, which checks a study
(schema, models, the mechanism's arrays, its assembly along the drivers) but runs no compiled code.
So the workbench's own modules and the built-in plugins decorate their compiled functions with
``workbench.jit.njit`` instead of ``numba.njit``: the decorator takes the same options
(``cache=True``, ``fastmath``, ``inline``, ``nogil`` ...) and returns a :class:`LazyDispatcher`,
a stand-in that imports numba and makes the real ``numba.njit`` dispatcher the first time it is
needed: called from Python, asked for a dispatcher attribute (``signatures``, ``overloads``,
``compile`` ...), or met by numba's typing in a function being compiled.  ``py_func`` (the plain
Python function, the reference path) is there without numba.

The stand-in is what module globals, class attributes (a model's ``kernel``) and closures hold;
it carries the numba type of its dispatcher (``_numba_type_``, numba's hook for foreign objects),
so a compiled function calling another one, a kernel captured by a C-callable wrapper or passed
as an argument, all compile as with ``numba.njit`` and load from the same on-disk cache
(``cache=True`` keys a function by its own source file, unchanged).  Each dispatcher is made on
demand, so a run creates only the dispatchers it uses.

Third-party plugins may keep ``numba.njit``: everything that accepts a compiled kernel takes
either (:func:`is_compiled`); they simply import numba when their module is imported.
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import math
import threading

# numba's loading and its lock are runtime machinery (:mod:`workbench.runtime.caches`); named here too
from .runtime.caches import NUMBA_LOCK as _LOCK, load_numba as load, numba_loaded as loaded  # noqa: E402,F401
from .runtime.caches import cached_cfunc as _cached_cfunc  # noqa: E402 - the C wrappers from the disk cache when warm

_LOCAL = threading.local()


@contextlib.contextmanager
def python_path():
    """Inside this block (in this thread), a compiled function called from Python runs its Python
    version (``py_func``, the reference path) instead of importing numba and loading its machine
    code, and so does every function it calls: for a short check (``validate``'s assembly along
    the drivers) whose compiled version would cost more to load than to run."""
    from .runtime.scoped import scoped
    with scoped(_LOCAL, "python", True, False):
        yield


class LazyDispatcher:
    """A compiled function not made yet: ``numba.njit(**options)(py_func)`` on first use.

    Called, it calls the dispatcher; any attribute it does not hold itself comes from the
    dispatcher; numba types it as the dispatcher (``_numba_type_``).  ``py_func`` is the Python
    function (the reference path), available without numba."""

    def __init__(self, py_func, options: dict):
        self.py_func = py_func
        self._options = dict(options)
        self._dispatcher = None
        functools.update_wrapper(self, py_func)

    def dispatcher(self):
        """The real numba dispatcher (made, with numba imported, on the first call)."""
        d = self._dispatcher
        if d is None:
            with _LOCK:
                if self._dispatcher is None:
                    load()
                    import numba
                    self._dispatcher = numba.njit(**self._options)(self.py_func)
                d = self._dispatcher
        return d

    def __call__(self, *args, **kwargs):
        if getattr(_LOCAL, "python", False):
            return self.py_func(*args, **kwargs)   # inside python_path(): the reference path
        return self.dispatcher()(*args, **kwargs)

    @property
    def _numba_type_(self):
        from numba.core import types
        return types.Dispatcher(self.dispatcher())

    def __getattr__(self, name: str):
        # a public attribute makes the dispatcher; a private one (a tool probing for its own
        # marker, ``_pytestfixturefunction`` ...) is looked up only on a dispatcher already made
        if name.startswith("__") or name in ("_dispatcher", "_options", "py_func") \
                or (name.startswith("_") and self._dispatcher is None):
            raise AttributeError(name)
        return getattr(self.dispatcher(), name)

    def __reduce__(self):
        mod, qual = getattr(self, "__module__", None), getattr(self, "__qualname__", "")
        try:
            if _by_name(mod, qual) is self:
                return _by_name, (mod, qual)
        except Exception:  # noqa: BLE001 - not importable by name: pickle the function itself
            pass
        return LazyDispatcher, (self.py_func, self._options)

    def __repr__(self) -> str:
        state = "compiled" if self._dispatcher is not None else "not made yet"
        return f"<workbench.jit.njit {getattr(self, '__qualname__', '?')} ({state})>"


def _by_name(module: str, qualname: str):
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def njit(*args, **options):
    """``numba.njit`` made on first use (:class:`LazyDispatcher`): ``@njit``, ``@njit(cache=True,
    ...)`` with numba's own options.  A signature (``njit("f8(f8)")``, eager compilation) is
    passed on to numba when the dispatcher is made."""
    if len(args) == 1 and callable(args[0]) and not options:
        return LazyDispatcher(args[0], {})
    if args:
        options = dict(options, signature_or_function=args[0])

    def decorate(func):
        return LazyDispatcher(func, options)
    return decorate


def dispatcher(func):
    """The numba dispatcher behind ``func`` (a :class:`LazyDispatcher` is made now); anything
    else is returned as it is."""
    return func.dispatcher() if isinstance(func, LazyDispatcher) else func


def is_compiled(func) -> bool:
    """Whether ``func`` is a compiled function the solver can call: a ``numba.njit`` dispatcher
    or a :class:`LazyDispatcher` (both carry the Python function as ``py_func``)."""
    return isinstance(func, LazyDispatcher) or (hasattr(func, "py_func") and hasattr(func, "signatures"))


# --------------------------------------------------------------------------------------------
# the calling convention of plugin kernels: C callbacks of a fixed signature
# --------------------------------------------------------------------------------------------
# The integrator is compiled (and cached on disk) once for *any* set of models: it receives a tuple
# of C function pointers with a fixed signature, one per clearance joint, made here by wrapping each
# plugin kernel in a ``numba.cfunc``.  A pointer call costs tens of nanoseconds and lets every
# clearance joint use its own law without recompiling the solver.  The conformance suite compiles
# every registered kernel this way (:mod:`workbench.conformance`), exactly as a run does.  The C
# signatures are numba types, made when first needed; first-class function types are what makes
# per-joint laws cheap, and the feature is stable for the plain C signatures used here
# (:func:`load` silences numba's experimental warning).

@functools.lru_cache(maxsize=None)
def contact_sig():
    """F_n = contact(delta, delta_dot, delta_dot_minus, p, out) with out[RAISED] = 1.0 when the
    kernel raised (the numba signature :data:`CONTACT_SIG`)."""
    from numba import types
    return types.float64(types.float64, types.float64, types.float64, types.CPointer(types.float64),
                         types.CPointer(types.float64))


@functools.lru_cache(maxsize=None)
def friction_sig():
    """f_t = friction(v_t, f_n, z, p, out) with out[0] = z_dot, out[RAISED] = 1.0 when the kernel
    raised (the numba signature :data:`FRICTION_SIG`)."""
    from numba import types
    return types.float64(types.float64, types.float64, types.float64,
                         types.CPointer(types.float64), types.CPointer(types.float64))


@functools.lru_cache(maxsize=None)
def lubrication_sig():
    """f_x = lubrication(ex, ey, vx, vy, omega, p, out) with out[LUB_FY] = f_y, out[LUB_TJ] = t_j,
    out[LUB_FA] / out[LUB_FAT] the asperity part's normal load and friction force (0 for a film
    without asperities), out[RAISED] = 1.0 when the kernel raised
    (:class:`workbench.models.LubricationModel`)."""
    from numba import types
    f = types.float64
    return f(f, f, f, f, f, types.CPointer(f), types.CPointer(f))


#: slot of the wrappers' ``out`` array flagging an exception raised inside the kernel
RAISED = 1
#: slots of the lubrication wrapper's ``out`` array: the force's y component, the moment
LUB_FY, LUB_TJ = 0, 2
#: slots of the lubrication wrapper's ``out`` array: the asperity (solid contact) part of the force,
#: its normal load [N] (>= 0, pushing the journal back along the line of centres), its friction
#: force [N] along the line of centres turned +90 deg and its normal load's component [N] along
#: that same direction (a worn bore's asperities push across the line of centres too)
#: (``LubricationModel.parts_kernel``)
LUB_FA, LUB_FAT, LUB_FNT = 3, 4, 5
#: length of the ``out`` array the wrappers write
N_OUT = 6


@functools.lru_cache(maxsize=None)
def contact_cfunc(kernel):
    """C-callable wrapper of a contact kernel (memoised per kernel)."""
    k = kernel

    def wrapper(delta, delta_dot, delta_dot_minus, p, out):
        try:
            f = k(delta, delta_dot, delta_dot_minus, p)
            out[RAISED] = 0.0
            return f
        except Exception:  # noqa: BLE001 - reported by the integrator as a model error
            out[RAISED] = 1.0
            return math.nan
    res = _cached_cfunc(contact_sig, wrapper, kernel)  # house: from the on-disk cache when warm
    res._workbench_kernel = kernel  # the kernel itself, for the specialised path (codegen)
    return res


@functools.lru_cache(maxsize=None)
def friction_cfunc(kernel):
    """C-callable wrapper of a friction kernel (memoised per kernel)."""
    k = kernel

    def wrapper(v_t, f_n, z, p, out):
        try:
            ft, dz = k(v_t, f_n, z, p)
            out[0] = dz
            out[RAISED] = 0.0
            return ft
        except Exception:  # noqa: BLE001 - reported by the integrator as a model error
            out[0] = 0.0
            out[RAISED] = 1.0
            return math.nan
    res = _cached_cfunc(friction_sig, wrapper, kernel)  # house: from the on-disk cache when warm
    res._workbench_kernel = kernel  # the kernel itself, for the specialised path (codegen)
    return res


@functools.lru_cache(maxsize=None)
def lubrication_cfunc(kernel, parts: bool = False):
    """C-callable wrapper of a lubrication kernel (memoised per kernel).

    ``parts``: ``kernel`` is a model's ``parts_kernel``, returning ``(f_x, f_y, t_j, f_na, f_ta,
    f_nt)`` (the asperity part of the force besides the total); a plain ``kernel`` returns ``(f_x,
    f_y, t_j)`` and the wrapper writes no asperity load."""
    k = kernel

    def wrapper(ex, ey, vx, vy, omega, p, out):
        try:
            fx, fy, tj = k(ex, ey, vx, vy, omega, p)
            out[LUB_FY] = fy
            out[LUB_TJ] = tj
            out[LUB_FA] = 0.0
            out[LUB_FAT] = 0.0
            out[LUB_FNT] = 0.0
            out[RAISED] = 0.0
            return fx
        except Exception:  # noqa: BLE001 - reported by the integrator as a model error
            out[LUB_FY] = 0.0
            out[LUB_TJ] = 0.0
            out[LUB_FA] = 0.0
            out[LUB_FAT] = 0.0
            out[LUB_FNT] = 0.0
            out[RAISED] = 1.0
            return math.nan

    def wrapper_parts(ex, ey, vx, vy, omega, p, out):
        try:
            fx, fy, tj, fa, fat, fnt = k(ex, ey, vx, vy, omega, p)
            out[LUB_FY] = fy
            out[LUB_TJ] = tj
            out[LUB_FA] = fa
            out[LUB_FAT] = fat
            out[LUB_FNT] = fnt
            out[RAISED] = 0.0
            return fx
        except Exception:  # noqa: BLE001 - reported by the integrator as a model error
            out[LUB_FY] = 0.0
            out[LUB_TJ] = 0.0
            out[LUB_FA] = 0.0
            out[LUB_FAT] = 0.0
            out[LUB_FNT] = 0.0
            out[RAISED] = 1.0
            return math.nan
    res = _cached_cfunc(lubrication_sig, wrapper_parts if parts else wrapper, kernel)
    res._workbench_kernel = kernel
    return res


def lubrication_model_cfunc(cls):
    """The C function of a lubrication model class: its ``parts_kernel`` when it has one (the
    solver then records the asperity part apart from the film), else its ``kernel``."""
    pk = getattr(cls, "parts_kernel", None)
    return lubrication_cfunc(pk, True) if pk is not None else lubrication_cfunc(cls.kernel)
