"""Deliberately broken models for the failure-path tests.

Contact laws: NaN once in contact; an exception raised inside the compiled kernel; a read past
the packed parameter array; a tensile (negative) force.  Friction law: twice its own coefficient
times the normal force.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from workbench.hookspecs import hookimpl
from workbench.models import ContactLaw, FrictionLaw, parameter


@njit(cache=False)
def _nan_on_contact(delta, delta_dot, delta_dot_minus, p):
    return math.nan if delta > 0.0 else 0.0


class NanOnContact(ContactLaw):
    """Returns NaN as soon as the bodies touch (a model failing mid-run)."""
    name = "nan_on_contact"
    reference = "test fixture: returns NaN in contact"

    @dataclass(frozen=True)
    class Params:
        pass

    kernel = _nan_on_contact

    def pack(self, geometry):
        return np.zeros(1)


@hookimpl
def register_contact_laws(register):
    for law in (NanOnContact, RaisingContact, OverreadContact, TensileContact):
        register(law)


# ------------------------------------------------------------- faults inside compiled kernels
@njit(cache=False)
def _raise_on_contact(delta, delta_dot, delta_dot_minus, p):
    if delta > 0.0:
        raise ValueError("contact kernel failure")
    return 0.0


class RaisingContact(ContactLaw):
    """Raises an exception inside its compiled kernel once the bodies touch."""
    name = "raising_contact"
    reference = "test fixture: raises in contact"

    @dataclass(frozen=True)
    class Params:
        pass

    kernel = _raise_on_contact

    def pack(self, geometry):
        return np.zeros(1)


@njit(cache=False)
def _overread(delta, delta_dot, delta_dot_minus, p):
    if delta <= 0.0:
        return 0.0
    return p[0] * delta ** 1.5 * (1.0 + p[2] * delta_dot)  # p[2] is past the 2 packed values


class OverreadContact(ContactLaw):
    """Reads a third parameter while its pack() returns two (an out-of-range read)."""
    name = "overread_contact"
    reference = "test fixture: reads past its parameter array"

    @dataclass(frozen=True)
    class Params:
        pass

    kernel = _overread

    def pack(self, geometry):
        return np.array([1e10, 1.5])


@njit(cache=False)
def _tensile(delta, delta_dot, delta_dot_minus, p):
    if delta <= 0.0:
        return 0.0
    # Kelvin-Voigt damping without the clip: pulls while the bodies separate fast
    return p[0] * delta ** 1.5 + p[1] * delta_dot


class TensileContact(ContactLaw):
    """A linear-damping law that is not clipped at zero: a tensile force on rebound."""
    name = "tensile_contact"
    reference = "test fixture: unclipped damping"

    @dataclass(frozen=True)
    class Params:
        pass

    kernel = _tensile

    def pack(self, geometry):
        return np.array([1e10, 5e2])  # underdamped: the journal rebounds


@njit(cache=False)
def _greedy_friction(v_t, f_n, z, p):
    s = 1.0 if v_t > 0.0 else -1.0
    return -2.0 * p[0] * f_n * s, 0.0


class GreedyFriction(FrictionLaw):
    """Coulomb-type friction that applies twice its own coefficient."""
    name = "greedy_friction"
    reference = "test fixture: exceeds mu f_n"
    n_states = 0

    @dataclass(frozen=True)
    class Params:
        mu: float = parameter(0.1, unit="1", doc="friction coefficient", min=0.0)

    kernel = _greedy_friction

    def pack(self):
        return np.array([self.params.mu])


@hookimpl
def register_friction_laws(register):
    register(GreedyFriction)
