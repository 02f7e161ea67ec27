"""The clearance forces of a spatial model in one compiled call: contact points, worn depths, the
laws of every point in contact and the assembly.

:meth:`.forces.Clearances.forces_fast` compiles the contact points (:mod:`.kernels`) and the
assembly; calling the plugins' contact and friction kernels from a Python loop over the points in
contact cost ~60 of the ~95 us a right-hand side spent in the clearance forces.  Here the laws
reach the compiled code as C callbacks, as in the planar engine (:mod:`workbench.mbs.kernels`):
each law's kernel wrapped in a ``numba.cfunc`` of the plugin contract's signature
(:func:`workbench.jit.contact_cfunc`, :func:`workbench.jit.friction_cfunc`, cached on disk), passed
as a tuple of first-class function values (:func:`callbacks`).  So :func:`forces`, :func:`record`
and the integration loop that calls :func:`forces` (:mod:`..integrate`) are compiled once per
source state and cached on disk, whatever the laws.

``forces(y, dm, nb, pint, pflt, share, axial, pjoint, cps, fps, wint, wflt, depths, cidx, fidx,
cfs, ffs)`` returns ``(Q, pc, pf, bad, kind, value)``: the generalised forces, the normal forces'
and the friction's power (:meth:`.forces.Clearances.forces`), and ``bad = -1``, or the point whose
contact law (``kind`` 0) or friction law (``kind`` 1) returned ``value``, not a finite force (a
kernel that raised returns NaN through its wrapper; the caller raises the reference path's
error).  ``cps[q]``, ``fps[q]``: joint ``q``'s contact and friction parameters (a tuple of rows or
the rows of a 2-D array); ``cidx[q]``, ``fidx[q]``: the index of its contact and friction laws in
the callback tuples ``cfs``, ``ffs`` (-1: no friction law).  ``record`` (same arguments) returns
what the output samples and the impact table's peak search read: ``(Q, fn, ft, G, R, A, W, bad,
kind, value)`` (the points' normal and friction forces, their ``G`` rows of :mod:`.kernels`, the
bodies' world positions, rotations and angular velocities, the ground last).  Same formulas and
order of operations as the Python loop: the same forces to the last bit.
"""
from __future__ import annotations

import math

import numpy as np

from ...jit import N_OUT, njit
from .kernels import G_PEN, G_VN, G_VT, assemble, points_of_state
from .worn_kernels import take_depths

#: slots of each callback tuple: padded with placeholder laws to a multiple of this, so that the
#: compiled code's argument types (and its cache entry) do not depend on the number of laws
SLOTS = 4


@njit(cache=True)
def laws(G, dm, share, axial, pjoint, cps, fps, cidx, fidx, cfs, ffs):
    """The normal and friction forces [N] of the points in contact, then ``(bad, kind, value)``
    (module docstring)."""
    npts = G.shape[0]
    fn = np.zeros(npts)
    ft = np.zeros(npts)
    tmp = np.zeros(N_OUT)
    for k in range(npts):
        if not (G[k, G_PEN] > 0.0 and dm[k] >= 0.0):
            continue
        q = pjoint[k]
        f = share[k] * cfs[cidx[q]](G[k, G_PEN], G[k, G_VN], dm[k], cps[q].ctypes, tmp.ctypes)
        if not (math.isfinite(f) and f >= 0.0):
            return fn, ft, k, 0, f
        fn[k] = f
        if f > 0.0 and not axial[k] and G[k, G_VT] > 0.0 and fidx[q] >= 0:
            v = ffs[fidx[q]](G[k, G_VT], f, 0.0, fps[q].ctypes, tmp.ctypes)
            if not math.isfinite(v):
                return fn, ft, k, 1, v
            ft[k] = v
    return fn, ft, -1, 0, 0.0


@njit(cache=True)
def forces(y, dm, nb, pint, pflt, share, axial, pjoint, cps, fps, wint, wflt, depths, cidx, fidx, cfs, ffs):
    """The clearance joints' generalised forces and powers of the state ``y`` (module docstring)."""
    R, A, V, W, G = points_of_state(y, nb, pint, pflt)
    if wint.shape[0] > 0:
        take_depths(G, R, A, wint, wflt, depths)
    fn, ft, bad, kind, value = laws(G, dm, share, axial, pjoint, cps, fps, cidx, fidx, cfs, ffs)
    if bad >= 0:
        return np.zeros(6 * nb), 0.0, 0.0, bad, kind, value
    Q, pc, pf = assemble(G, fn, ft, pint, R, A, nb)
    return Q, pc, pf, -1, 0, 0.0


@njit(cache=True)
def record(y, dm, nb, pint, pflt, share, axial, pjoint, cps, fps, wint, wflt, depths, cidx, fidx, cfs, ffs):
    """:func:`forces` with what the output samples read (module docstring)."""
    R, A, V, W, G = points_of_state(y, nb, pint, pflt)
    if wint.shape[0] > 0:
        take_depths(G, R, A, wint, wflt, depths)
    fn, ft, bad, kind, value = laws(G, dm, share, axial, pjoint, cps, fps, cidx, fidx, cfs, ffs)
    Q, pc, pf = assemble(G, fn, ft, pint, R, A, nb)
    return Q, fn, ft, G, R, A, W, bad, kind, value


class LawTable:
    """The distinct contact and friction laws of a model as C callbacks: :meth:`contact` and
    :meth:`friction` give a kernel's index (its wrapper made once), :meth:`tuples` the two tuples
    padded to :data:`SLOTS` with placeholder laws.  A kernel numba cannot wrap with the
    solver's signature raises (the caller keeps the Python loop)."""

    def __init__(self):
        self._c, self._f = [], []

    @staticmethod
    def _index(funs, make, kernel) -> int:
        for i, (k, _) in enumerate(funs):
            if k is kernel:
                return i
        funs.append((kernel, make(kernel)))
        return len(funs) - 1

    def contact(self, kernel) -> int:
        from ...jit import contact_cfunc
        return self._index(self._c, contact_cfunc, kernel)

    def friction(self, kernel) -> int:
        from ...jit import friction_cfunc
        return self._index(self._f, friction_cfunc, kernel)

    def tuples(self):
        """``(cfs, ffs)``: the contact and the friction laws' C callbacks, each tuple padded with a
        placeholder law to a multiple of :data:`SLOTS` (at least one slot)."""
        from ...mbs.kernels import no_contact, no_friction
        return _padded(self._c, no_contact()), _padded(self._f, no_friction())


def _padded(funs, fill) -> tuple:
    out = [c for _, c in funs]
    size = SLOTS * max(1, -(-len(out) // SLOTS))
    return tuple(out + [fill] * (size - len(out)))


def callbacks(clr, table: LawTable | None = None):
    """``(cidx, fidx)`` of the joints of ``clr`` (a :class:`.forces.Clearances`) in ``table`` (a new
    :class:`LawTable` when None) and the table; None when a law's kernel does not compile as a C
    callback (the Python loop is used)."""
    table = LawTable() if table is None else table
    cidx, fidx = [], []
    try:
        for jt in clr.joints:
            cidx.append(table.contact(jt.contact.kernel))
            fidx.append(-1 if jt.friction is None else table.friction(jt.friction.kernel))
    except Exception:  # noqa: BLE001 - a kernel numba cannot wrap: the Python loop, as before
        return None
    return np.array(cidx, np.int64), np.array(fidx, np.int64), table


def entry(fun, args):
    """``fun``'s compiled overload for the types of ``args``, as a function of the same arguments
    that numba does not type again at each call: typing the two tuples of C callbacks costs about
    0.2 ms a call (a first-class function type is made per callback), more than :func:`record`
    itself, and the output samples and the impact table's peak search call it from Python
    thousands of times.  The caller passes arguments of the same types (C-contiguous float arrays
    for ``y`` and ``dm``, :meth:`.forces.Clearances.record_fast`)."""
    from numba.core.typing.typeof import Purpose, typeof
    key = tuple(typeof(a, Purpose.argument) for a in args)
    cres = fun.overloads.get(key)
    if cres is None:
        fun(*args)          # compiled, or loaded from the cache
        cres = fun.overloads.get(key)
    return fun if cres is None else cres.entry_point


def load(clr):
    """``(forces, record)`` and the C callbacks' arguments ``(cidx, fidx, cfs, ffs)`` for ``clr``
    (a :class:`.forces.Clearances`), or None (a law's kernel not compiled as a C callback: the
    Python loop stays)."""
    got = callbacks(clr)
    if got is None:
        return None
    cidx, fidx, table = got
    return (forces, record), (cidx, fidx, *table.tuples())


def arguments(clr) -> tuple:
    """The arrays ``forces`` takes after ``(y, dm)`` for ``clr``, up to its laws' callbacks."""
    cps = tuple(np.asarray(d[11], float) for d in clr.data)
    fps = tuple(np.zeros(0) if d[13] is None else np.asarray(d[13], float) for d in clr.data)
    if clr.worn_points:
        wint, wflt, depths = clr._worn_packed
    else:
        from .worn_kernels import N_WFLT, N_WINT
        wint, wflt, depths = np.zeros((0, N_WINT), np.int64), np.zeros((0, N_WFLT)), np.zeros(0)
    return (clr.nb, clr.pint, clr.pflt, clr.share, clr.axial, clr.point_joint.astype(np.int64), cps, fps,
            wint, wflt, depths)
