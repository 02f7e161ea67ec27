"""Deliberately broken models for the isolation tests (tests/test_plugin_isolation.py).

Registered in-process (``get_plugin_manager(extra_plugins=(isolation_models,))``).  Each breaks
one contract of ``workbench/models.py`` only once a run is under way, so the run has produced
something before it fails:

* ``tuple_contact``: a contact kernel that returns two values instead of one force;
* ``nan_friction``: a friction kernel that returns NaN while the joint carries load;
* ``nan_when_worn`` / ``short_when_worn``: the Winkler pressure model on fresh surfaces; NaN,
  resp. one node too few, once the gaps show wear (the second wear update);
* ``nan_when_slid`` / ``summed_when_slid``: wear laws (Archard, Wang & Liu (2015) eq. 14, while the
  surface has not slid yet) that return NaN, resp. one total instead of a depth per node, once the
  sliding distance is positive.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from workbench.hookspecs import hookimpl
from workbench_plugins.pressure.winkler import Winkler
from workbench.models import ContactLaw, FrictionLaw, WearLaw, parameter


# ------------------------------------------------------------------------------------- dynamics
@njit(cache=False)
def _tuple_force(delta, delta_dot, delta_dot_minus, p):
    if delta <= 0.0:
        return 0.0, 0.0
    return p[0] * delta, 0.0


class TupleContact(ContactLaw):
    """Returns ``(F, 0)`` instead of ``F`` (a wrong-shape contact kernel)."""
    name = "tuple_contact"
    reference = "test fixture, returns a tuple (2026)"

    @dataclass(frozen=True)
    class Params:
        stiffness: float = parameter(1e8, unit="N/m", doc="stiffness", min=0.0)

    kernel = _tuple_force

    def pack(self, geometry):
        return np.array([self.params.stiffness])


@njit(cache=False)
def _nan_friction(v_t, f_n, z, p):
    return (math.nan if f_n > 0.0 else 0.0), 0.0


class NanFriction(FrictionLaw):
    """Returns NaN as soon as the joint carries a normal force."""
    name = "nan_friction"
    reference = "test fixture, NaN in contact (2026)"
    n_states = 0

    @dataclass(frozen=True)
    class Params:
        pass

    kernel = _nan_friction

    def pack(self):
        return np.zeros(1)


# ----------------------------------------------------------------------------------- wear loop
def _is_worn(gaps) -> bool:
    g = np.asarray(gaps)
    return bool(g.size) and float(np.ptp(g)) > 1e-15


class NanWhenWorn(Winkler):
    """The built-in Winkler model while the bore is round; NaN once it is worn."""
    name = "nan_when_worn"
    reference = "test fixture after Wang & Liu (2015) eq. (23)-(24) (2026)"

    def solve_loads(self, section, loads, gaps=None):
        p, e = super().solve_loads(section, loads, gaps)
        return (self.broken(p) if _is_worn(section.gap if gaps is None else gaps) else p), e

    def broken(self, p):
        return np.full_like(p, np.nan)


class ShortWhenWorn(NanWhenWorn):
    """As ``nan_when_worn`` but one node too few (instead of NaN) once the bore is worn."""
    name = "short_when_worn"
    reference = "test fixture after Wang & Liu (2015) eq. (23)-(24) (2026)"

    def broken(self, p):
        return p[:, :-1]


class NanWhenSlid(WearLaw):
    """Archard ``dh = k_d p ds`` (Wang & Liu (2015) eq. 14) while nothing has slid; NaN afterwards."""
    name = "nan_when_slid"
    reference = "test fixture after Archard 1953, Wang & Liu (2015) eq. (14)"

    @dataclass(frozen=True)
    class Params:
        wear_coefficient: float = parameter(1e-15, unit="1/Pa", doc="k_d", min=0.0)

    def depth(self, pressure, slip, sliding_distance=0.0):
        p, s, d = np.broadcast_arrays(np.asarray(pressure, float), np.abs(np.asarray(slip, float)),
                                      np.asarray(sliding_distance, float))
        dh = self.params.wear_coefficient * np.maximum(p, 0.0) * s
        return self._broken(dh) if np.any(d > 0.0) else dh

    def _broken(self, dh):
        return np.full_like(dh, np.nan)


class SummedWhenSlid(NanWhenSlid):
    """As ``nan_when_slid`` but returns the total depth (a scalar) instead of NaN."""
    name = "summed_when_slid"
    reference = "test fixture after Archard 1953, Wang & Liu (2015) eq. (14)"

    def _broken(self, dh):
        return np.sum(dh)


@hookimpl
def register_contact_laws(register):
    register(TupleContact)


@hookimpl
def register_friction_laws(register):
    register(NanFriction)


@hookimpl
def register_pressure_models(register):
    register(NanWhenWorn)
    register(ShortWhenWorn)


@hookimpl
def register_wear_laws(register):
    register(NanWhenSlid)
    register(SummedWhenSlid)
