"""Hostile models that hang or crawl, for the watchdog tests (tests/runtime/test_hangs.py).

Registered in-process (``get_plugin_manager(extra_plugins=(hang_models,))``) or, for a
``workbench`` command in a child process, as an installed plugin (:func:`install`):

* ``spinning``: a contact law (Hooke, ``F = k delta``) whose compiled kernel never returns once the
  bodies touch -- it spins inside the integrator's step, where no Python runs;
* ``sleeping``: the built-in Winkler pressure model (Wang & Liu (2015) eq. 23-24) that first
  sleeps ``$WB_TEST_SLEEP`` seconds (default an hour) in every call;
* ``huge_wear``: Archard wear (Wang & Liu (2015) eq. 14) times 1e12: one cycle wears more than
  any depth step.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from workbench.hookspecs import hookimpl
from workbench.models import ContactLaw, WearLaw, parameter
from workbench_plugins.pressure.winkler import Winkler


@njit(cache=False)
def _spin(delta, delta_dot, delta_dot_minus, p):
    if delta <= 0.0:
        return 0.0
    x = 1.0
    while x > 0.0:          # never false: x grows without bound (inf > 0); no side effect to drop
        x = x * 1.0000001 + p[0]
    return x


class Spinning(ContactLaw):
    """Linear spring whose kernel spins once in contact (test fixture: a kernel that never returns)."""
    name = "spinning"
    reference = "test fixture (2026)"

    @dataclass(frozen=True)
    class Params:
        stiffness: float = parameter(1e8, unit="N/m", doc="k", min=0.0)

    kernel = _spin

    def pack(self, geometry):
        return np.array([self.params.stiffness])


class Sleeping(Winkler):
    """The built-in Winkler model, asleep for ``$WB_TEST_SLEEP`` s (default 3600) in every call."""
    name = "sleeping"
    reference = "test fixture after Wang & Liu (2015) eq. (23)-(24) (2026)"

    def solve_loads(self, section, loads, gaps=None):
        time.sleep(float(os.environ.get("WB_TEST_SLEEP", "3600")))
        return super().solve_loads(section, loads, gaps)


class HugeWear(WearLaw):
    """Archard ``dh = k_d p ds`` (Wang & Liu (2015) eq. 14) times 1e12: absurdly deep."""
    name = "huge_wear"
    reference = "test fixture after Archard 1953, Wang & Liu (2015) eq. (14)"

    @dataclass(frozen=True)
    class Params:
        wear_coefficient: float = parameter(1e-15, unit="1/Pa", doc="k_d before the factor 1e12", min=0.0)

    def depth(self, pressure, slip, sliding_distance=0.0):
        p, s = np.broadcast_arrays(np.asarray(pressure, float), np.abs(np.asarray(slip, float)))
        return 1e12 * self.params.wear_coefficient * np.maximum(p, 0.0) * s


@hookimpl
def register_contact_laws(register):
    register(Spinning)


@hookimpl
def register_pressure_models(register):
    register(Sleeping)


@hookimpl
def register_wear_laws(register):
    register(HugeWear)


def install(site: Path) -> dict:
    """Make this module an installed plugin (an entry point in ``site``) for a child process;
    return the environment that child needs (``PYTHONPATH``: ``site`` and the tests folder)."""
    site.mkdir(parents=True, exist_ok=True)
    info = site / "wb_test_hangs-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: wb-test-hangs\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[workbench]\nhangs = hang_models\n")
    here = Path(__file__).resolve().parent
    root = here.parent
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(here), str(root)])}
