"""Shared pieces of the built-in contact laws (not a plugin: no entry point, no hook).

* :func:`resolve_stiffness` — the generalized stiffness ``K`` of a power law ``K delta^n`` from
  the parameters or from the joint geometry (Wang, Chen, Ma & Sun (2016) eq. 11 / eq. 26, Hertz for spheres).
* :func:`linear_stiffness` — a linear stiffness ``K`` [N/m] for the laws that are linear in
  ``delta`` (Hooke, Kelvin-Voigt) when none is given.
* :func:`check_restitution` — bounds of the restitution coefficient of a hysteresis law.
* :func:`hysteresis_force` — the one compiled kernel of the seven hysteresis-damping laws
  ``F = K delta^n (1 + chi delta_dot / delta_dot_minus)`` (Machado et al. 2012, Table 2 of
  Wang & Liu (2015)); the laws differ only in ``chi(e)``, which their ``pack`` computes once.

Sign conventions (see :class:`workbench.models.ContactLaw`): ``delta`` > 0 in contact,
``delta_dot`` > 0 while approaching, ``delta_dot_minus`` > 0 the approach speed at the start of
the contact.
"""
from __future__ import annotations

from dataclasses import dataclass

import math

import numpy as np

from workbench.plugin import ContactGeometry, StudyError, kernel_slots, njit, parameter


#: relative tolerance on "exponent == 1.5" / "exponent == 1" when the geometric stiffness is used
_EXP_TOL = 1e-12


def _check_positive(value: float, what: str, law: str) -> float:
    v = float(value)
    if not math.isfinite(v) or v <= 0.0:
        raise StudyError(f"contact law '{law}': {what} must be a finite number > 0, got {value!r}",
                         key=what if what.isidentifier() else None)
    return v


def resolve_stiffness(stiffness: float | None, exponent: float, geometry: ContactGeometry,
                      law: str) -> float:
    """Generalized stiffness ``K`` [N/m^n] of ``F = K delta^n``.

    ``stiffness`` given: returned as is (checked > 0).  ``None``: from the geometry,
    :meth:`ContactGeometry.default_stiffness` — Wang, Chen, Ma & Sun (2016) eq. 11 (``kind="cylindrical"``, a
    Hertz-type stiffness in N/m^1.5), Hertz sphere-sphere (``"sphere"``, N/m^1.5) or Wang, Chen, Ma & Sun (2016)
    eq. 26 (``"planar"``, a *linear* stiffness in N/m).  The geometric value has the units of one
    exponent only, so it is used only with that exponent (1.5, resp. 1 for ``"planar"``);
    otherwise a :class:`StudyError` asks for an explicit stiffness.
    """
    if stiffness is not None:
        return _check_positive(stiffness, "stiffness", law)
    n_geom = 1.0 if geometry.kind == "planar" else 1.5
    if abs(exponent - n_geom) > _EXP_TOL:
        raise StudyError(
            f"contact law '{law}': the default stiffness of a '{geometry.kind}' contact "
            f"(Wang, Chen, Ma & Sun (2016) eq. {26 if geometry.kind == 'planar' else 11}) is for exponent {n_geom:g}, "
            f"but exponent = {exponent:g}; set exponent = {n_geom:g} or give 'stiffness' "
            f"in N/m^{exponent:g}", key="exponent")
    try:
        K = geometry.default_stiffness()
    except (ValueError, ZeroDivisionError) as exc:
        raise StudyError(f"contact law '{law}': no default stiffness for this geometry ({exc}); "
                         "give 'stiffness' explicitly") from None
    return _check_positive(K, f"default stiffness of the '{geometry.kind}' geometry", law)


def johnson_deflection(force: float, geometry: ContactGeometry) -> float:
    """Approach [m] of a journal in a bore under ``force`` [N], Johnson's line-contact law.

    ``delta = F/(pi L E*) [ln(4 pi L dR E*/F) - 1]`` (Johnson, Contact Mechanics 1985, pp. 99-104,
    as tabulated by Pereira, Ramalho & Ambrosio, Nonlinear Dyn 63 (2011) 681, Johnson model).
    """
    L, dR, Es = geometry.length, geometry.clearance, geometry.E_star
    return force / (math.pi * L * Es) * (math.log(4.0 * math.pi * L * dR * Es / force) - 1.0)


def linear_stiffness(stiffness: float | None, reference_load: float, geometry: ContactGeometry,
                     law: str) -> float:
    """Linear contact stiffness ``K`` [N/m] for ``F = K delta`` (Hooke, Kelvin-Voigt).

    ``stiffness`` given: returned (checked > 0).  ``None``:

    * ``"planar"``: Wang, Chen, Ma & Sun (2016) eq. 26, ``K_s = a / (0.475 (h_i + h_j))``.
    * ``"cylindrical"``: secant stiffness ``F_ref / delta(F_ref)`` of Johnson's plane-strain
      line-contact law for a pin in a bore (Pereira et al. 2011, Johnson model;
      ``delta = F/(pi L E*) [ln(4 pi L dR E*/F) - 1]``) at ``F_ref = reference_load``.  The
      logarithm makes this weakly load dependent (about +-30 % per decade of load for steel
      joints of mm clearance), which is why a reference load has to be chosen.
    * ``"sphere"``: secant stiffness of the Hertz sphere law ``F = K_h delta^1.5`` at
      ``reference_load``: ``K = K_h^(2/3) F_ref^(1/3)``.
    """
    if stiffness is not None:
        return _check_positive(stiffness, "stiffness", law)
    F = _check_positive(reference_load, "reference_load", law)
    kind = geometry.kind
    if kind == "planar":
        return resolve_stiffness(None, 1.0, geometry, law)
    if kind == "sphere":
        Kh = resolve_stiffness(None, 1.5, geometry, law)
        return Kh ** (2.0 / 3.0) * F ** (1.0 / 3.0)
    if kind == "cylindrical":
        L, dR, Es = geometry.length, geometry.clearance, geometry.E_star
        F_max = 4.0 * math.pi * L * dR * Es * math.exp(-2.0)
        if not (dR > 0.0 and L > 0.0) or F >= F_max:
            raise StudyError(
                f"contact law '{law}': reference_load = {F:g} N is outside the range of Johnson's "
                f"line-contact law for this joint (needs clearance > 0, length > 0 and load < "
                f"{F_max:.4g} N); give 'stiffness' in N/m")
        return F / johnson_deflection(F, geometry)
    raise StudyError(f"contact law '{law}': unknown geometry kind {kind!r}; valid: 'cylindrical', "
                     "'planar', 'sphere'")


def check_restitution(e: float, law: str, e_min: float, e_max: float = 1.0) -> float:
    """Check ``e_min <= e <= e_max`` (the range the law's formula allows) and return ``e``."""
    v = float(e)
    if not math.isfinite(v) or v < e_min or v > e_max:
        raise StudyError(f"contact law '{law}': restitution = {e!r} is outside "
                         f"[{e_min:g}, {e_max:g}]", key="restitution")
    return v


def hysteresis_params(K: float, n: float, chi: float, min_impact_speed: float,
                      law: str) -> np.ndarray:
    """``p`` of :func:`hysteresis_force`: slots :data:`H` (``stiffness`` K, ``exponent`` n,
    ``chi``, ``min_impact_speed`` v_floor)."""
    v_floor = _check_positive(min_impact_speed, "min_impact_speed", law)
    return H.pack(stiffness=K, exponent=float(n), chi=float(chi), min_impact_speed=v_floor)


@njit(cache=True)
def hysteresis_force(delta, delta_dot, delta_dot_minus, p):
    """``F = K delta^n (1 + chi delta_dot / max(delta_dot_minus, v_floor))``, clamped at 0.

    ``p``: slots :data:`H` (K, n, chi, v_floor).  Zero for ``delta <= 0``.  During restitution
    (``delta_dot < 0``) the damping term would make the force negative (tension) once
    ``delta_dot < -delta_dot_minus/chi``; it is clamped to 0.  In a free two-body impact this never
    happens (``delta_dot = -v0/chi`` is an invariant line of the motion, the force only tends to
    0), but it can when other forces pull the bodies apart or when ``v_floor`` is active.
    ``v_floor`` guards the division for grazing contacts whose impact speed is (nearly) zero.
    """
    if delta <= 0.0:
        return 0.0
    v_minus = delta_dot_minus
    if not v_minus > p[H.min_impact_speed]:  # also catches NaN
        v_minus = p[H.min_impact_speed]
    # delta^1.5 (the Hertz exponent of nearly every study) as delta sqrt(delta): a pow() call is
    # several times dearer and this kernel runs in every right-hand side during contact
    dn = delta * math.sqrt(delta) if p[H.exponent] == 1.5 else delta ** p[H.exponent]
    f = p[H.stiffness] * dn * (1.0 + p[H.chi] * delta_dot / v_minus)
    if f > 0.0:
        return f
    return 0.0


class HysteresisLaw:
    """Mixin of the seven hysteresis-damping laws.

    ``F = K delta^n (1 + chi(e) delta_dot/delta_dot_minus)`` (Machado et al. 2012 §4).

    A law module subclasses ``(HysteresisLaw, ContactLaw)`` and sets ``name``, ``reference``,
    ``Params`` (fields ``stiffness``, ``exponent``, ``restitution``, ``min_impact_speed``),
    ``restitution_range`` (the ``e`` its formula allows) and ``hysteresis_factor(e)``.
    """
    dissipative = True
    kernel = hysteresis_force
    #: the named slots of ``p``: :data:`H`, made at the end of this module from the shared Params
    slots = None
    #: (min, max) restitution the law's formula allows
    restitution_range: tuple[float, float] = (0.0, 1.0)

    @staticmethod
    def hysteresis_factor(e: float) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def pack(self, geometry: ContactGeometry) -> np.ndarray:
        """``p`` in the slots :data:`H`: stiffness resolved once (:func:`resolve_stiffness`)."""
        prm = self.params
        n = float(prm.exponent)
        K = resolve_stiffness(prm.stiffness, n, geometry, self.name)
        e = check_restitution(prm.restitution, self.name, *self.restitution_range)
        return hysteresis_params(K, n, self.hysteresis_factor(e), prm.min_impact_speed, self.name)


def stiffness_field():
    """The ``stiffness`` parameter shared by the power laws."""
    return parameter(None, unit="N/m^n",
                     doc="generalized stiffness K; default from the geometry (Wang, Chen, Ma & Sun (2016) eq. 11, "
                         "Hertz for spheres, eq. 26 for planar with exponent 1)", gt=0.0)


def exponent_field():
    """The ``exponent`` parameter shared by the power laws."""
    return parameter(1.5, unit="1", doc="force exponent n (1.5 for Hertz point/cylinder laws)",
                     min=1.0, max=3.0)


def min_impact_speed_field():
    """The guard of ``delta_dot_minus`` shared by the hysteresis laws."""
    return parameter(1e-4, unit="m/s",
                     doc="floor of the impact speed delta_dot_minus in the damping term "
                         "(guards grazing contacts; real impacts are much faster)", min=1e-12)


def _hysteresis_params(min_e: float, valid_range: tuple[float, float] | None = None,
                       range_source: str = ""):
    @dataclass(frozen=True)
    class Params:
        """Parameters of a hysteresis-damping law (Machado et al. 2012 §4)."""
        stiffness: float | None = stiffness_field()
        exponent: float = exponent_field()
        restitution: float = parameter(0.9, unit="1", doc="coefficient of restitution e",
                                       min=min_e, max=1.0, valid_range=valid_range,
                                       range_source=range_source)
        min_impact_speed: float = min_impact_speed_field()
    return Params


#: parameters of the laws defined for 0 <= e <= 1
HysteresisParams = _hysteresis_params(0.0)
#: the range of e the near-elastic laws are derived for
NEAR_ELASTIC_RANGE = (0.8, 1.0)
#: parameters of the laws whose chi(e) comes from an energy balance first order in (1 - e)
#: (Hunt & Crossley 1975, Lankarani & Nikravesh 1990, Herbert & McWhannell 1977): meant for e
#: near 1.  The restitution they reproduce under-dissipates by up to 2 (1 - e)^2 (measured in
#: tests/plugins/test_restitution.py), 0.08 at e = 0.8; at e = 0.3 LN gives 0.68.
HysteresisParamsNearElastic = _hysteresis_params(
    0.0, NEAR_ELASTIC_RANGE,
    "derived from an energy balance first order in (1 - e), for little dissipation "
    "(Lankarani & Nikravesh (1990); Flores et al. (2011) §3): at lower e the law dissipates too "
    "little (e = 0.3 rebounds with e = 0.68); use flores, gonthier or zhiying_qishao there")
#: parameters of the laws whose factor divides by e (Gonthier, Flores): 0.01 <= e <= 1
HysteresisParamsPositiveE = _hysteresis_params(0.01)
#: the slots of ``p`` of :func:`hysteresis_force` (K, n, chi(e) in place of e, v_floor), named
#: from the hysteresis laws' parameters; the kernel reads them by name (a compile-time index)
H = kernel_slots(HysteresisParams, ("stiffness", "exponent", "chi", "min_impact_speed"),
                 name="HysteresisSlots")
HysteresisLaw.slots = H
