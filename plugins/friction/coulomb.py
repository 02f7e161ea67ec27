"""Regularized Coulomb friction, ``f_t = -mu f_n sgn_eps(v_t)``.

Coulomb's dry friction law with the sign function replaced by a continuous one so that the force
does not jump when the slip velocity changes sign (Wang & Liu (2015) §1.2: the plain Coulomb law "easily
flips direction near v_T = 0 and upsets the integration").  Two regularizations:

* ``"tanh"`` (default): ``sgn_eps(v) = tanh(v / v_eps)``; smooth (C-infinity), which suits an
  adaptive Runge-Kutta integrator; reaches 76 % of ``mu f_n`` at ``v_eps`` and 99.9 % at 3.8 ``v_eps``.
* ``"linear"``: ``sgn_eps(v) = clip(v / v_eps, -1, 1)``; exactly Coulomb above ``v_eps``, with a
  kink (discontinuous derivative) at ``|v| = v_eps``.

Either way the regularized law cannot stick: below ``v_eps`` it is a viscous damper of slope
``mu f_n / v_eps`` (creep instead of stiction).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.plugin import (FrictionLaw, StudyError, choices_text, hookimpl, kernel_slots, njit,
                              parameter)


_REGULARIZATIONS = ("tanh", "linear")


@njit(cache=True)
def coulomb_friction(v_t, f_n, z, p):
    """``(f_t, 0.0)`` with ``f_t = -mu f_n sgn_eps(v_t)``; ``p``: slots :data:`S` (mu, v_eps,
    regularization: 0 = tanh, 1 = linear)."""
    fn = f_n if f_n > 0.0 else 0.0
    x = v_t / p[S.v_eps]
    if p[S.regularization] == 0.0:
        s = math.tanh(x)
    elif x > 1.0:
        s = 1.0
    elif x < -1.0:
        s = -1.0
    else:
        s = x
    return -p[S.mu] * fn * s, 0.0


class Coulomb(FrictionLaw):
    """Regularized Coulomb friction ``f_t = -mu f_n sgn_eps(v_t)`` (Wang & Liu (2015) §1.2, Coulomb 1785).

    ``sgn_eps`` is ``tanh(v/v_eps)`` or the linear ramp ``clip(v/v_eps, -1, 1)`` (parameter
    ``regularization``).  Memoryless (``n_states = 0``), passive: ``f_t v_t <= 0``.
    """
    name = "coulomb"
    reference = ("Coulomb 1785, regularized; Wang & Liu (2015) (Wang & Liu 2015) §1.2; "
                 "Machado et al., Mech. Mach. Theory 53 (2012)")
    n_states = 0

    @dataclass(frozen=True)
    class Params:
        mu: float = parameter(0.1, unit="1", doc="Coulomb friction coefficient", min=0.0)
        v_eps: float = parameter(1e-4, unit="m/s", doc="regularization velocity of the sign function",
                                 min=1e-12)
        regularization: str = parameter(
            "tanh", unit="text", doc="shape of the regularized sign: 'tanh' (smooth) or 'linear' ramp",
            choices=_REGULARIZATIONS)

        def __post_init__(self):
            if self.regularization not in _REGULARIZATIONS:
                raise StudyError(f"coulomb: regularization {self.regularization!r} is not valid. "
                                 f"Valid choices: {choices_text(_REGULARIZATIONS)}",
                                 key="regularization")

    slots = kernel_slots(Params)
    kernel = coulomb_friction

    def pack(self) -> np.ndarray:
        p = self.params
        return self.slots.from_params(p, regularization=float(_REGULARIZATIONS.index(p.regularization)))


#: the named slots of the kernel's ``p`` (compile-time indices in :func:`coulomb_friction`)
S = Coulomb.slots


@hookimpl
def register_friction_laws(register):
    register(Coulomb)
