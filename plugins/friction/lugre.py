"""LuGre dynamic friction (Canudas de Wit, Olsson, Åström & Lischinsky 1995), normalised by f_n.

The contact is a bed of elastic bristles with mean deflection ``z`` [m] (the internal state)::

    dz/dt = v - sigma0 |v| z / g(v)                               (Canudas de Wit et al. eq. 2)
    g(v)  = mu_c + (mu_s - mu_c) exp(-(v/v_s)^2)                  (eq. 4, Stribeck curve)
    f_t   = -(sigma0 z + sigma1 dz/dt + sigma2 v) f_n             (eq. 3)

This is the dimensionless-coefficient form used for clearance joints (Muvengei, Kihiu & Ikua,
Multibody Syst. Dyn. 28 (2012); Wang & Liu (2015) §1.2): the original's forces ``F_C, F_S`` become
``mu_c f_n, mu_s f_n`` and the stiffness and damping scale with the normal force, so

* ``sigma0`` [1/m]: bristle stiffness per unit normal force (tangential stiffness ``sigma0 f_n`` N/m);
* ``sigma1`` [s/m]: bristle damping per unit normal force;
* ``sigma2`` [s/m]: viscous friction per unit normal force.

Properties: at constant slip ``z`` settles to ``g(v) sgn(v)/sigma0`` and the force to
``f_ss = -(g(v) sgn(v) + sigma2 v) f_n`` (Stribeck curve with the peak ``mu_s`` at rest); a small
displacement from rest is elastic with stiffness ``sigma0 f_n`` (pre-sliding); cyclic motion gives a
hysteresis loop.  ``|z| <= max(g)/sigma0`` is invariant.  The force is not memoryless, so
``f_t v_t <= 0`` need not hold at every instant (the bristles give back stored elastic energy when
the motion reverses); over a closed cycle the law dissipates.

Out of contact (``f_n <= 0``) the kernel returns no force and **freezes** the bristle state
(``dz/dt = 0``): no junction, no deflection change, and no stiff state equation to integrate during
free flight (its time constant ``g/(sigma0 |v|)`` is microseconds at ordinary slip speeds).  A
contact that starts again reuses the frozen ``z`` (bounded by ``mu_s/sigma0``, a micrometre with the
defaults); an engine that wants fresh junctions resets ``z = 0`` at the contact-start event.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.plugin import FrictionLaw, hookimpl, kernel_slots, njit, parameter


@njit(cache=True)
def lugre_friction(v_t, f_n, z, p):
    """``(f_t, dz/dt)``; ``p``: slots :data:`S` (sigma0, sigma1, sigma2, mu_c, mu_s, v_s).  Frozen
    state for ``f_n <= 0``."""
    if not f_n > 0.0:
        return 0.0, 0.0
    sigma0 = p[S.sigma0]
    r = v_t / p[S.v_s]
    g = p[S.mu_c] + (p[S.mu_s] - p[S.mu_c]) * math.exp(-r * r)
    z_dot = v_t - sigma0 * abs(v_t) * z / g
    f_t = -(sigma0 * z + p[S.sigma1] * z_dot + p[S.sigma2] * v_t) * f_n
    return f_t, z_dot


class LuGre(FrictionLaw):
    """LuGre bristle friction, normalised by the normal force (Canudas de Wit et al. 1995, eqs. 2-4).

    ``dz/dt = v - sigma0 |v| z/g(v)``, ``g(v) = mu_c + (mu_s - mu_c) exp(-(v/v_s)^2)``,
    ``f_t = -(sigma0 z + sigma1 dz/dt + sigma2 v) f_n``.  One internal state: the mean bristle
    deflection ``z`` [m], frozen while out of contact (``f_n <= 0``).
    """
    name = "lugre"
    reference = ("Canudas de Wit, Olsson, Åström & Lischinsky, IEEE Trans. Autom. Control 40(3) (1995) "
                 "419-425, eqs. (2)-(4); normalised by f_n as in Muvengei et al., Multibody Syst. Dyn. 28 "
                 "(2012); Wang & Liu (2015) §1.2")
    n_states = 1

    @dataclass(frozen=True)
    class Params:
        sigma0: float = parameter(1e5, unit="1/m",
                                  doc="bristle stiffness per unit normal force (pre-sliding ~ mu_s/sigma0)",
                                  min=1e-12)
        sigma1: float = parameter(10.0, unit="s/m", doc="bristle damping per unit normal force", min=0.0)
        sigma2: float = parameter(0.0, unit="s/m", doc="viscous friction per unit normal force (0: dry)",
                                  min=0.0)
        mu_c: float = parameter(0.1, unit="1", doc="Coulomb (kinetic) friction coefficient", min=1e-12)
        mu_s: float = parameter(0.15, unit="1", doc="static friction coefficient (Stribeck peak at rest)",
                                min=0.0)
        v_s: float = parameter(1e-3, unit="m/s", doc="Stribeck velocity", min=1e-12)

    slots = kernel_slots(Params)
    kernel = lugre_friction

    def pack(self) -> np.ndarray:
        return self.slots.from_params(self.params)

    def stribeck(self, v) -> np.ndarray:
        """``g(v)`` [1] (Canudas de Wit et al. eq. 4): the steady-state friction coefficient without viscous part."""
        p = self.params
        v = np.asarray(v, float)
        return p.mu_c + (p.mu_s - p.mu_c) * np.exp(-(v / p.v_s) ** 2)

    def steady_force(self, v, f_n) -> np.ndarray:
        """Steady-state force ``-(g(v) sgn v + sigma2 v) f_n`` [N] at constant slip ``v`` [m/s]."""
        v = np.asarray(v, float)
        return -(self.stribeck(v) * np.sign(v) + self.params.sigma2 * v) * np.asarray(f_n, float)


#: the named slots of the kernel's ``p`` (compile-time indices in :func:`lugre_friction`)
S = LuGre.slots


@hookimpl
def register_friction_laws(register):
    register(LuGre)
