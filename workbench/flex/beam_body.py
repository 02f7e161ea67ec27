"""A flexible body as data: the planar ANCF cable beam of a study (``[[mechanism.beams]]``).

The beam is straight and undeformed in its reference state: its centre line starts at
``position`` (arc length ``s = 0``) and runs along ``angle``.  Named points on it are arc-length
coordinates ``s`` [m] in ``[0, length]``; joints, clearance joints and forces attach there.  A
revolute joint at a beam point constrains the centre line's position there and leaves the slope
free; a clearance joint at a beam point takes the centre line's position and slope there as the
journal's (or slider's) frame.  The element is Gerstmayr & Irschik (2008)'s cable
(:mod:`workbench.flex.ancf_cable`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

BEAM_TYPES = ("ancf_beam",)
#: the curvature forms of :mod:`workbench.flex.ancf_cable` (``CURVATURE_EXPONENT``)
CURVATURES = ("exact", "material")


@dataclass(frozen=True)
class BeamBody:
    """A planar ANCF cable beam (gradient deficient, Euler-Bernoulli).

    Parameters
    ----------
    name : unique name (shares the namespace of the rigid bodies).
    length : reference length L [m].
    area : cross-section area A [m^2].
    second_moment : second moment of area I [m^4].
    E : Young's modulus [Pa].
    density : mass density rho [kg/m^3].
    elements : number of equal elements [1].
    damping : Kelvin-Voigt (strain-rate) damping time beta [s]: axial force ``EA (eps + beta
        eps_dot)``, bending moment ``EI (kappa + beta kappa_dot)``; stiffness-proportional Rayleigh
        damping of the undeformed beam (modal damping ratio ``beta omega / 2``) that leaves rigid
        motions undamped.  0: none.
    position : position of the beam's start (s = 0) in the reference state [m].
    angle : direction of the undeformed beam [rad].
    points : named arc-length coordinates ``s`` [m] along the beam.
    curvature : the bending strain, ``"exact"`` (default) ``(r' x r'') / |r'|^3`` (Gerstmayr &
        Irschik (2008)) or ``"material"`` ``(r' x r'') / |r'|^2`` (Berzeri & Shabana (2000);
        Exudyn's ``ANCFCable2D``): :data:`workbench.flex.ancf_cable.CURVATURE_EXPONENT`.
    """
    name: str
    length: float
    area: float
    second_moment: float
    E: float
    density: float
    elements: int = 6
    damping: float = 0.0
    position: tuple = (0.0, 0.0)
    angle: float = 0.0
    points: dict = field(default_factory=dict)
    type: str = "ancf_beam"
    curvature: str = "exact"

    @property
    def mass(self) -> float:
        """Mass [kg]."""
        return self.density * self.area * self.length

    @property
    def n_coordinates(self) -> int:
        """Nodal coordinates [1]: position and slope of each of the ``elements + 1`` nodes."""
        return 4 * (self.elements + 1)

    def problems(self) -> list[str]:
        """Every inconsistency of the beam's own data, as messages."""
        out = []
        who = f"beam '{self.name}'"
        if self.type not in BEAM_TYPES:
            out.append(f"{who}: type '{self.type}' is not valid (valid: {', '.join(BEAM_TYPES)})")
        for key, unit in (("length", "m"), ("area", "m^2"), ("second_moment", "m^4"), ("E", "Pa"),
                          ("density", "kg/m^3")):
            v = getattr(self, key)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                out.append(f"{who}: {key} must be a finite number > 0 {unit}, got {v!r}")
        if not (isinstance(self.elements, int) and 1 <= self.elements <= 200):
            out.append(f"{who}: elements must be an integer in 1 .. 200, got {self.elements!r}")
        if self.curvature not in CURVATURES:
            out.append(f"{who}: curvature '{self.curvature}' is not valid (valid: {', '.join(CURVATURES)})")
        if not (math.isfinite(self.damping) and self.damping >= 0):
            out.append(f"{who}: damping must be a finite number >= 0 s, got {self.damping!r}")
        for pname, s in self.points.items():
            if not (isinstance(s, (int, float)) and not isinstance(s, bool) and math.isfinite(s)
                    and 0.0 <= s <= self.length):
                out.append(f"{who}: point '{pname}' = {s!r} must be an arc length in [0, {self.length:g}] m")
        return out
