"""A deliberately broken contact law for the failure-path tests: NaN once in contact."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from workbench.hookspecs import hookimpl
from workbench.models import ContactLaw


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
    register(NanOnContact)
