"""Why the reactions-friction loop of :meth:`.model.Model._close_friction_loop` did not close: is
the mechanism self-locking at this state?

With the slip directions known (every friction unit sliding, or seeded from rest), the friction
values ``x`` the loop looks for satisfy ``x = G(x)``: the friction ``G`` of the constraint reactions
that the friction ``x`` itself changes.  The reactions are affine in ``x`` (the augmented matrix
does not depend on it), and each Qi contact load (Qi, Luo & Huang (2009) eqs. 21-24, 53, 55, 58) is
positively homogeneous of degree one in the reactions (a sum of norms of linear functions of them; an
axial load at the tilt point of their eq. 36 or on the flush face scales with them too,
:mod:`.axial_contact`), so ``G`` is an affine map of ``x`` followed by such loads: its growth at
large ``x`` is that of its positively homogeneous part

    H(x) = lim_{s -> oo} G(s x) / s,

the part of the loads that the friction itself causes (without gravity, the applied loads and the
velocity terms).  Its growth rate ``rho = max |H(d)| / |d|`` along its dominant direction ``d``
(found by power iteration) is the loop's gain per pass at large friction: below 1 a consistent
friction exists (``G`` is then asymptotically a contraction); at and above 1 the contact loads
grow with the friction they cause at least as fast as they cause it, and the consistent friction
on the branch that starts at ``mu = 0`` has run to infinity, or (with the axial contact states of
their eq. 36, whose loads are piecewise in the reactions) the branch has ended a little above the
coefficient where ``rho`` reaches 1: the joint is **self-locking** at this
state (for the bar on a universal joint of ``docs/spatial.md``: ``rho`` reaches 1 at ``mu =
0.4384``, consistent friction exists up to 0.4557 and none above, checked by brute force in
``tests/reference/qi_universal_selflock.py``).

The friction coefficient at which ``rho`` reaches 1 (``mu*``) is found by scaling every friction
law by a factor ``f`` (the contact systems depend on the coefficient too, so ``rho`` is not
proportional to it) and solving ``rho(f) = 1`` for ``f``: ``mu* = f mu``.
"""
from __future__ import annotations

import math

import numpy as np

#: the scale [1] of ``s`` in ``G(s x) / s`` relative to the friction of the state: large enough
#: that the parts not caused by the friction are 1e-8 of the rest, small enough to keep 8 digits
HOMOGENEOUS_SCALE = 1e8
#: power iterations for the dominant direction of ``H``
POWER_ITER = 200


class _Scaled:
    """A friction law ``v -> f_t(v, 1)`` scaled by ``factor`` [1]."""

    def __init__(self, law, factor):
        self.law, self.factor = law, factor

    def __call__(self, v):
        return self.factor * self.law(v)


def growth(image, shape, scale: float) -> tuple[float, np.ndarray]:
    """``(rho, d)``: the growth rate [1] per pass of the loop's map ``image`` (friction values of
    ``shape`` -> friction values) at large friction and its dominant direction (unit); ``scale``:
    the size of the friction at the state (its units, N or N m), to set ``s``."""
    base = image(np.zeros(shape))
    s = HOMOGENEOUS_SCALE * max(scale, float(np.max(np.abs(base))), 1e-300)

    def H(x):
        return (image(s * x) - base) / s

    d = base / np.linalg.norm(base) if np.any(base) else np.ones(shape) / math.sqrt(np.prod(shape))
    for _ in range(POWER_ITER):
        h = H(d)
        nh = float(np.linalg.norm(h))
        if nh == 0.0:
            return 0.0, d
        # the shifted iteration (direction of H(d) averaged with d): a plain power iteration
        # circles when H maps one unit's friction onto another's and back (two eigenvalues of
        # the same size and opposite sign, e.g. the two journals of a universal joint)
        new = h / nh + d
        new /= np.linalg.norm(new)
        if np.max(np.abs(new - d)) <= 1e-12:
            d = new
            break
        d = new
    return float(np.linalg.norm(H(d))), d


def critical_factor(image, shape, scale: float, joints) -> tuple[float, float]:
    """``(rho, f*)``: the loop's growth rate at the joints' own laws and the factor ``f*`` [1] on
    every friction law of ``joints`` (objects with a ``law`` attribute, restored on return) at which
    the growth rate is 1 (``nan`` when it is not bracketed in ``[1e-3, 1e3]``)."""
    from scipy.optimize import brentq
    laws = [cj.law for cj in joints]

    def rho_at(f):
        for cj, law in zip(joints, laws):
            cj.law = _Scaled(law, f)
        try:
            return growth(image, shape, scale)[0]
        finally:
            for cj, law in zip(joints, laws):
                cj.law = law

    rho = rho_at(1.0)
    lo, hi = (1e-3, 1.0) if rho >= 1.0 else (1.0, 1e3)
    try:
        if (rho_at(lo) - 1.0) * (rho_at(hi) - 1.0) > 0:
            return rho, math.nan
        return rho, brentq(lambda f: rho_at(f) - 1.0, lo, hi, xtol=1e-12, rtol=1e-10)
    except (ValueError, ArithmeticError, np.linalg.LinAlgError):
        return rho, math.nan


def _coefficient(law) -> float:
    """The friction coefficient [1] a law states (``mu`` or ``mu_c``), ``nan`` if none."""
    p = getattr(law, "params", None)
    for key in ("mu", "mu_c"):
        if p is not None and hasattr(p, key):
            return float(getattr(p, key))
    for key in ("mu", "mu_c", "mu_static"):
        if hasattr(law, key):
            return float(getattr(law, key))
    return math.nan


def explain(image, shape, scale: float, joints, laws_by_name: dict) -> str:
    """The sentence the loop's fault adds: self-locking with its critical coefficient per joint,
    or a solver failure on a case that should have a solution.  ``laws_by_name``: joint name ->
    the friction plugin (for its coefficient)."""
    try:
        rho, f = critical_factor(image, shape, scale, joints)
    except (ArithmeticError, ValueError, np.linalg.LinAlgError):   # the fault stands without the diagnosis
        return ""
    if not math.isfinite(rho):
        return ""
    names = ", ".join(repr(cj.name) for cj in joints)
    if rho >= 1.0:
        # the faces' advice only where it applies: a universal joint's journals carry each other's
        # friction moment across their faces (a cylindrical or revolute joint carries none)
        universal = [repr(cj.name) for cj in joints if getattr(cj, "type", None) == "universal"]
        faces = (f", or make the end faces wider apart against the radius (the ratio 2c / R: the journals of "
                 f"the universal joint(s) {', '.join(universal)} carry each other's friction moment across "
                 f"their faces)" if universal else "")
        crit = "; ".join(f"{n!r}: mu = {_coefficient(law) * f:.7g} (now {_coefficient(law):.4g})"
                         for n, law in laws_by_name.items() if not math.isnan(f))
        # below f the loop's gain at large friction is under 1 and a consistent friction exists; the
        # axial contact states of a revolute journal (their eq. 36) can keep a finite one a little
        # above f, so f is where the loop surely closes, not where it stops closing
        where = (f" The gain at large friction is below 1, and a consistent friction exists, under {f:.7g} times "
                 f"the friction coefficients ({crit})." if crit else "")
        return (f" The friction joint(s) {names}: self-locking here: the contact loads grow with the friction "
                f"they cause by {rho:.6g} per pass of the reactions-friction loop (>= 1: no consistent friction "
                f"at large friction; docs/spatial.md, 'Self-locking of a universal joint').{where} Lower the "
                f"friction coefficient{faces}.")
    return (f" The loop's gain at large friction is {rho:.4g} < 1 (not self-locking: "
            f"a consistent friction should exist; the solve failed, please report the case).")
