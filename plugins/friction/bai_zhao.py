"""Velocity-dependent friction coefficient with a Stribeck peak (Bai & Zhao 2012).

The modified Coulomb law that Wang & Liu (2015) §1.2 cites as ref. [55] for stick-slip: the friction
coefficient is a function of the slip velocity, ``f_t = -mu(v_t) f_n``, with ``mu`` odd in ``v_t``
and made of cubic smoothsteps ``S(s) = s^2 (3 - 2 s)``::

    |v| <  v_s:        mu = mu_s (2 S(y) - 1),   y = (v + v_s)/(2 v_s)      (from -mu_s to +mu_s)
    v_s <= |v| <= v_d: mu = sgn(v) [mu_d + (mu_s - mu_d) S(x)],  x = (|v| - v_d)/(v_s - v_d)
    |v| >  v_d:        mu = mu_d sgn(v)

so ``|mu|`` rises from 0 at rest to the static value ``mu_s`` at the static-friction critical
velocity ``v_s``, falls to the dynamic value ``mu_d`` at the dynamic critical velocity ``v_d``
(the Stribeck effect) and stays there.  ``mu`` and its derivative are continuous everywhere
(``dmu/dv = 0`` at ``|v| = v_s`` and ``v_d``).  The first piece is evaluated in the
equivalent, exactly odd form ``mu = mu_s u (3 - u^2)/2``, ``u = v/v_s``.  Near rest it is a steep
viscous law of slope ``1.5 mu_s / v_s``, which stands in for sticking.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.plugin import FrictionLaw, StudyError, hookimpl, kernel_slots, njit, parameter


@njit(cache=True)
def bai_zhao_friction(v_t, f_n, z, p):
    """``(f_t, 0.0)``, ``f_t = -mu(v_t) f_n``; ``p``: slots :data:`S` (mu_s, mu_d, v_s, v_d)."""
    fn = f_n if f_n > 0.0 else 0.0
    mu_s = p[S.mu_s]
    mu_d = p[S.mu_d]
    v_s = p[S.v_s]
    v_d = p[S.v_d]
    speed = abs(v_t)
    if speed < v_s:
        u = v_t / v_s  # mu_s (2 S((u + 1)/2) - 1) written in its exactly odd form
        return -mu_s * 0.5 * u * (3.0 - u * u) * fn, 0.0
    if speed <= v_d:
        x = (speed - v_d) / (v_s - v_d)
        m = mu_d + (mu_s - mu_d) * x * x * (3.0 - 2.0 * x)
    else:
        m = mu_d
    return (-m * fn if v_t > 0.0 else m * fn), 0.0


class BaiZhao(FrictionLaw):
    """Coulomb friction with a slip-velocity-dependent coefficient and Stribeck peak (Bai & Zhao 2012).

    ``f_t = -mu(v_t) f_n``: ``|mu|`` rises to ``mu_s`` at ``v_s``, decays to ``mu_d`` at ``v_d``,
    constant above (piecewise cubic, C1).  Memoryless, passive: ``f_t v_t <= 0``.
    """
    name = "bai_zhao"
    reference = ("Bai & Zhao, Int. J. Mech. Sci. 54 (2012) 190-205, modified Coulomb friction with "
                 "velocity-dependent coefficient mu(v_T); cited as ref. [55] in Wang & Liu (2015) §1.2")
    n_states = 0

    @dataclass(frozen=True)
    class Params:
        mu_s: float = parameter(0.15, unit="1", doc="static friction coefficient (peak of |mu| at v_s)",
                                min=0.0)
        mu_d: float = parameter(0.1, unit="1", doc="dynamic friction coefficient (|mu| above v_d)", min=0.0)
        v_s: float = parameter(1e-4, unit="m/s", doc="static-friction critical velocity (Stribeck peak)",
                               min=1e-12)
        v_d: float = parameter(1e-3, unit="m/s", doc="dynamic-friction critical velocity (end of decay)",
                               min=1e-12)

        def __post_init__(self):
            if not self.v_d > self.v_s:
                raise StudyError(f"bai_zhao: v_d ({self.v_d} m/s) must be greater than v_s "
                                 f"({self.v_s} m/s)", key="v_d")

    slots = kernel_slots(Params)
    kernel = bai_zhao_friction

    def pack(self) -> np.ndarray:
        return self.slots.from_params(self.params)


#: the named slots of the kernel's ``p`` (compile-time indices in :func:`bai_zhao_friction`)
S = BaiZhao.slots


@hookimpl
def register_friction_laws(register):
    register(BaiZhao)
