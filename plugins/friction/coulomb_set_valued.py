"""Set-valued Coulomb friction: ``F in -mu |N| Sgn(v_r)`` with stiction ``|F| <= mu_static |N|``.

Coulomb's dry friction with the *set-valued* sign function (Pfeiffer & Glocker (1996) §4.3;
Wang, Wang & Zhuang, their eqs 4-5): while the relative velocity ``v_r`` is not zero the friction
force is ``-mu |N| sgn(v_r)``; when ``v_r`` and the relative acceleration are zero (stick) it is
whatever force keeps the contact at rest, bounded by ``mu_static |N|``.  There is no
regularisation velocity: the law cannot be written as a function ``f_t(v_t, f_n)``, so the
compliant (regularised) solver refuses it, and a dynamics study whose ideal joints carry it is
run by the event-driven solver of :mod:`workbench.nonsmooth.event_driven`, which switches between
stick and slip at events and decides the modes with a linear complementarity problem.

The kernel below is the law's *slip branch* only (``-mu f_n sgn(v_t)``, 0 at ``v_t = 0``), which
the event-driven solver never calls; it exists so that the model satisfies the friction-law
interface (and its conformance checks) like every other law.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from workbench.plugin import FrictionLaw, StudyError, hookimpl, kernel_slots, njit, parameter


@njit(cache=True)
def coulomb_slip_branch(v_t, f_n, z, p):
    """``(-mu f_n sgn(v_t), 0.0)`` with ``sgn(0) = 0``; ``p``: slots :data:`S` (mu, mu_static)."""
    fn = f_n if f_n > 0.0 else 0.0
    if v_t > 0.0:
        return -p[S.mu] * fn, 0.0
    if v_t < 0.0:
        return p[S.mu] * fn, 0.0
    return 0.0, 0.0


class CoulombSetValued(FrictionLaw):
    """Set-valued Coulomb friction (stick and slip), kinetic ``mu``, static ``mu_static >= mu``
    (Pfeiffer & Glocker (1996) §4.3; Wang, Wang & Zhuang eqs 4-5).  Ideal joints only, run by the
    event-driven solver; never regularised."""
    name = "coulomb_set_valued"
    reference = ("Coulomb 1785 with the set-valued Sgn; Pfeiffer & Glocker (1996) §4.3; "
                 "Wang, Wang & Zhuang eqs 4-5")
    n_states = 0
    #: the law is set-valued: no smooth f_t(v_t, f_n); the compliant solver must refuse it
    set_valued: ClassVar[bool] = True

    @dataclass(frozen=True)
    class Params:
        mu: float = parameter(0.2, unit="1", doc="kinetic (sliding) friction coefficient", min=0.0)
        mu_static: float | None = parameter(
            None, unit="1", doc="static friction coefficient, >= mu (default: mu)", min=0.0)

        def __post_init__(self):
            if self.mu_static is not None and not self.mu_static >= self.mu:
                raise StudyError(f"coulomb_set_valued: mu_static = {self.mu_static} is below the "
                                 f"kinetic mu = {self.mu}; the static coefficient must be >= mu",
                                 key="mu_static")

    slots = kernel_slots(Params)
    kernel = coulomb_slip_branch

    @property
    def mu_static(self) -> float:
        """Static coefficient [1] (``mu`` when not given)."""
        p = self.params
        return float(p.mu if p.mu_static is None else p.mu_static)

    def max_coefficient(self) -> float:
        """Largest ``|F| / |N|`` [1]: the static coefficient."""
        return self.mu_static

    def pack(self) -> np.ndarray:
        return self.slots.pack(mu=self.params.mu, mu_static=self.mu_static)


#: the named slots of the kernel's ``p`` (compile-time indices in :func:`coulomb_slip_branch`)
S = CoulombSetValued.slots


def is_set_valued(model) -> bool:
    """Whether a friction model is set-valued (needs the event-driven solver)."""
    return bool(getattr(type(model), "set_valued", False)) if model is not None else False


@hookimpl
def register_friction_laws(register):
    register(CoulombSetValued)
