"""Ambrósio's Coulomb friction with a dynamic correction coefficient.

``f_t = -c_f c_d(|v_t|) f_n v_t/|v_t|`` (Wang, Chen, Ma & Sun (2016) eq. 13; Ambrósio 2002/2003), where the dynamic
correction coefficient ``c_d`` switches the friction off below ``v0`` and on above ``v1`` so that the
force does not flip direction when the slip velocity crosses zero (Wang & Liu (2015) §1.2).  Wang, Chen, Ma & Sun (2016) eq. 14
ramps ``c_d`` linearly, as Ambrósio and Flores & Ambrósio (2004) do::

    c_d = 0                       |v| <= v0
    c_d = (|v| - v0)/(v1 - v0)    v0 < |v| < v1
    c_d = 1                       |v| >= v1

``ramp = "cubic"`` replaces the linear ramp by the smoothstep ``s^2 (3 - 2 s)``,
``s = (|v| - v0)/(v1 - v0)``: same end values, but the derivative is also continuous at ``v0`` and
``v1`` (kinder to adaptive integrators).  Like every regularized Coulomb law it cannot stick:
below ``v0`` there is no friction at all.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.plugin import (FrictionLaw, StudyError, choices_text, hookimpl, kernel_slots, njit,
                              parameter)


_RAMPS = ("linear", "cubic")


@njit(cache=True)
def ambrosio_friction(v_t, f_n, z, p):
    """``(f_t, 0.0)``, ``f_t = -c_f c_d f_n sign(v_t)``; ``p``: slots :data:`S` (c_f, v0, v1,
    ramp: 0 linear, 1 cubic)."""
    fn = f_n if f_n > 0.0 else 0.0
    speed = abs(v_t)
    if speed <= p[S.v0]:
        return 0.0, 0.0
    if speed >= p[S.v1]:
        cd = 1.0
    else:
        s = (speed - p[S.v0]) / (p[S.v1] - p[S.v0])
        cd = s if p[S.ramp] == 0.0 else s * s * (3.0 - 2.0 * s)
    f = p[S.c_f] * cd * fn
    return (-f if v_t > 0.0 else f), 0.0


class Ambrosio(FrictionLaw):
    """Coulomb friction with Ambrósio's dynamic correction ``c_d`` (Wang, Chen, Ma & Sun (2016) eqs. 13-14).

    ``f_t = -c_f c_d f_n v_t/|v_t|``; ``c_d`` ramps from 0 at ``v0`` to 1 at ``v1`` (linear, as in
    Wang, Chen, Ma & Sun (2016) eq. 14, or the C1 cubic smoothstep).  Memoryless, passive: ``f_t v_t <= 0``.
    """
    name = "ambrosio"
    reference = ("Ambrósio, Impact of rigid and flexible multibody systems, Springer (2002) pp. 57-58; "
                 "Flores & Ambrósio, Comput. Struct. 82 (2004); Wang, Chen, Ma & Sun (2016) eqs. (13)-(14)")
    n_states = 0

    @dataclass(frozen=True)
    class Params:
        c_f: float = parameter(0.1, unit="1", doc="friction coefficient", min=0.0)
        v0: float = parameter(1e-4, unit="m/s", doc="slip speed below which friction is off (c_d = 0)",
                              min=0.0)
        v1: float = parameter(1e-2, unit="m/s", doc="slip speed above which friction is full (c_d = 1)",
                              min=0.0)
        ramp: str = parameter("linear", unit="text",
                              doc="shape of c_d between v0 and v1: 'linear' (Wang, Chen, Ma & Sun (2016) eq. 14) or 'cubic'",
                              choices=_RAMPS)

        def __post_init__(self):
            if not self.v1 > self.v0:
                raise StudyError(f"ambrosio: v1 ({self.v1} m/s) must be greater than v0 ({self.v0} m/s)",
                                 key="v1")
            if self.ramp not in _RAMPS:
                raise StudyError(f"ambrosio: ramp {self.ramp!r} is not valid. "
                                 f"Valid choices: {choices_text(_RAMPS)}", key="ramp")

    slots = kernel_slots(Params)
    kernel = ambrosio_friction

    def pack(self) -> np.ndarray:
        p = self.params
        return self.slots.from_params(p, ramp=float(_RAMPS.index(p.ramp)))

    def correction(self, speed) -> np.ndarray:
        """The dynamic correction coefficient ``c_d`` at slip speed(s) ``speed`` [m/s] (Wang, Chen, Ma & Sun (2016) eq. 14)."""
        ft, _ = self.force(np.abs(np.asarray(speed, float)), 1.0)
        return -ft / self.params.c_f if self.params.c_f > 0.0 else np.zeros_like(ft)


#: the named slots of the kernel's ``p`` (compile-time indices in :func:`ambrosio_friction`)
S = Ambrosio.slots


@hookimpl
def register_friction_laws(register):
    register(Ambrosio)
