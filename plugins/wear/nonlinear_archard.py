"""Nonlinear Archard wear: a coefficient that runs in with sliding distance, and a pressure power.

From the paper (Wang & Liu (2015), Wang & Liu 2015, §2.2 item (2), eq. (15)-(20)): the ratio of real to
apparent contact area ``alpha = A_r / A_c`` (eq. 15) evolves while the asperities wear in; with
``W = (k_w/H) F s = beta F s`` (eq. 16), ``h_c = beta p_n s`` (eq. 17) and a constant load
``F = p_n A_r`` (eq. 18) the depth rate becomes ``h_c' = beta (1 - ln A_r' / ln s') p_n v_r =
beta~(s) p_n v_r`` (eq. 19-20): a wear coefficient ``beta~(s)`` that is a function of the sliding
distance, moving from its running-in value to the steady-state ``beta`` as the real contact area
stops changing.  The paper gives no closed form of ``A_r(s)``, and it warns that the derivation
assumes a fixed load (eq. 18), which a clearance joint does not have.

Our parametrisation (not the paper's): the coefficient relaxes exponentially,

    k(s) = k_ss + (k_0 - k_ss) exp(-s / s_0),

``k_0`` the running-in coefficient at ``s = 0``, ``k_ss = beta`` the steady state, ``s_0`` the
running-in sliding distance; and the pressure enters as a power law about a reference pressure,
``p_ref (p / p_ref)^m`` (``m = 1`` is the paper's eq. 20; ``m != 1`` is the common empirical
generalisation of Archard's law, our extension).  It is applied locally, node by node, with each
node's own total sliding distance ``s``.  Because an increment ``ds`` is finite, ``k`` is integrated
exactly over ``[s, s + ds]`` at constant pressure:

    dh = p_ref (p/p_ref)^m [k_ss ds + (k_0 - k_ss) s_0 e^(-s/s_0) (1 - e^(-ds/s_0))],

so the depth does not depend on how a slide is split into increments.  With ``m = 1`` and
``k_0 = k_ss`` it is Archard's ``dh = k_d p ds`` (Wang & Liu (2015) eq. 14) exactly.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.plugin import WearLaw, hookimpl, parameter

from ._common import as_depth, require_positive, wear_inputs


class NonlinearArchard(WearLaw):
    """Archard wear with a running-in coefficient ``k(s)`` and a pressure exponent ``m``
    (Wang & Liu (2015) eq. 15-20; exponential running-in and pressure power are our parametrisation).

    ``dh = p_ref (p/p_ref)^m * integral_s^{s+ds} k(s') ds'``,
    ``k(s) = k_ss + (k_0 - k_ss) exp(-s/s_0)`` with ``k_0 = initial_wear_coefficient``,
    ``k_ss = wear_coefficient`` (same name and meaning as Archard's ``k_d``),
    ``s_0 = running_in_distance``, ``m = pressure_exponent``, ``p_ref = reference_pressure``.

    Inputs: ``pressure`` p [Pa] (negative clamped to 0), ``slip`` ds [m] (the sliding-distance
    increment, used by magnitude), ``sliding_distance`` s [m] slid before this increment (scalar
    or per node; negative clamped to 0).  All broadcast; returns ``dh`` [m] >= 0.
    """
    name = "nonlinear_archard"
    evolving = True   # k(s) relaxes with the sliding distance: trapezoidal over a cycle jump
    reference = ("Wang & Liu (2015) (Wang & Liu 2015) eq. (15)-(20) (running-in coefficient beta~(s)); "
                 "Archard 1953, J. Appl. Phys. 24 981; exponential running-in and pressure "
                 "exponent: workbench parametrisation")

    @dataclass(frozen=True)
    class Params:
        wear_coefficient: float = parameter(
            1e-14, unit="1/Pa", doc="steady-state coefficient k_ss (beta of Wang & Liu (2015) eq. 20) at the "
            "reference pressure, m^2/N", min=0.0)
        initial_wear_coefficient: float = parameter(
            1e-13, unit="1/Pa", doc="running-in coefficient k_0 at sliding distance 0, m^2/N",
            min=0.0)
        running_in_distance: float = parameter(
            1000.0, unit="m", doc="sliding distance s_0 over which k relaxes from k_0 to k_ss "
            "by the factor e (> 0)", gt=0.0)
        pressure_exponent: float = parameter(
            1.0, unit="1", doc="exponent m of p/p_ref (1 = linear, Wang & Liu (2015) eq. 20) (> 0)",
            gt=0.0, max=10.0)
        reference_pressure: float = parameter(
            1e8, unit="Pa", doc="reference pressure p_ref of the pressure power law (> 0; "
            "irrelevant when m = 1)", gt=0.0)

        def __post_init__(self):
            law = "nonlinear_archard"
            require_positive(self.running_in_distance, "running_in_distance", law, "m")
            require_positive(self.pressure_exponent, "pressure_exponent", law, "")
            require_positive(self.reference_pressure, "reference_pressure", law, "Pa")

    def coefficient(self, sliding_distance) -> np.ndarray:
        """``k(s) = k_ss + (k_0 - k_ss) exp(-s/s_0)`` [1/Pa] at total sliding distance ``s`` [m]."""
        prm = self.params
        s = np.maximum(np.asarray(sliding_distance, dtype=np.float64), 0.0)
        k_ss, k_0 = prm.wear_coefficient, prm.initial_wear_coefficient
        return k_ss + (k_0 - k_ss) * np.exp(-s / prm.running_in_distance)

    def depth(self, pressure, slip, sliding_distance=0.0) -> np.ndarray:
        """Wear depth [m] over the increment ``[s, s + ds]`` (exact integral of ``k``)."""
        prm = self.params
        p, ds, s = wear_inputs(pressure, slip, sliding_distance)
        m, p_ref, s_0 = prm.pressure_exponent, prm.reference_pressure, prm.running_in_distance
        k_ss, k_0 = prm.wear_coefficient, prm.initial_wear_coefficient
        p_eff = p if m == 1.0 else p_ref * np.power(p / p_ref, m)
        dh = p_eff * ds
        dh *= k_ss  # the steady part, evaluated exactly as Archard's (p ds) k_d
        if k_0 != k_ss:
            # integral of (k_0 - k_ss) exp(-s'/s_0) over [s, s + ds]; expm1 keeps small ds exact
            decay = np.exp(-s / s_0) * -np.expm1(-ds / s_0)
            dh = dh + p_eff * ((k_0 - k_ss) * s_0 * decay)
            # k_0 < k_ss (a coefficient that grows) is allowed; the sum stays >= 0 because
            # k(s) >= min(k_0, k_ss) >= 0 everywhere; guard the last rounding bit
            dh = np.maximum(dh, 0.0)
        return as_depth(dh, p.shape, ds.shape, s.shape)


@hookimpl
def register_wear_laws(register):
    register(NonlinearArchard)
