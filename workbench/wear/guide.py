"""Worn surfaces of a translational clearance joint: the guide's faces along their length and the
slider's contact faces (the translational counterpart of :mod:`.surfaces`).

The guide's ``upper`` and ``lower`` faces carry a wear depth ``g(s)`` [m] on ``N`` uniform nodes
``s_i`` [m] along the guide axis (guide frame, from the guide point), spanning the travel of the
slider (:func:`guide_nodes`); the slider's ``top`` and ``bottom`` faces carry a depth on ``Nu``
uniform nodes ``u_j`` in ``[-L/2, L/2]`` [m] along the slider.  A depth removes material: the gap
between a face of the slider and the guide grows by ``g(s) + h_slider(u)`` where they meet.  The
dynamics (:mod:`workbench.mbs.clearance`) sees the guide's profile as a monotone C1 cubic and the slider's
as the reduced reach of each corner (the face depth at the corner, :meth:`WornGuide.reach`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..mbs.guide_profile import CORNERS, pack_guide
from ..mbs.mechanism import TranslationalClearanceJoint

#: extra guide length on either side of the slider's travel, as a fraction of the travel plus the
#: slider length [1]: the end nodes stay unworn, so the spline's ends are flat and zero
GUIDE_MARGIN = 0.1


def guide_nodes(s_min: float, s_max: float, L: float, nodes: int) -> np.ndarray:
    """``nodes`` uniform guide nodes [m] covering the slider centre's travel ``[s_min, s_max]`` [m]
    plus half the slider length ``L`` [m] and a margin of :data:`GUIDE_MARGIN` on either side."""
    span = (s_max - s_min) + L
    pad = 0.5 * L + GUIDE_MARGIN * span
    return np.linspace(s_min - pad, s_max + pad, nodes)


@dataclass
class WornGuide:
    """The worn state of one translational clearance joint.

    Attributes
    ----------
    joint : the clearance joint (slider length ``L``, heights ``W`` and ``H``, width [m], materials).
    s : (N,) guide node positions [m]; u : (Nu,) slider face node positions [m].
    h_guide : (2, N) wear depth of the upper and lower guide faces [m].
    h_slider : (2, Nu) wear depth of the slider's top and bottom faces [m].
    sliding_guide : (2, N) sliding distance under load each guide node has seen [m].
    sliding_slider : (2, Nu) sliding distance under load of each slider face node [m].
    """
    joint: TranslationalClearanceJoint
    s: np.ndarray
    u: np.ndarray
    h_guide: np.ndarray
    h_slider: np.ndarray
    sliding_guide: np.ndarray = field(default=None)
    sliding_slider: np.ndarray = field(default=None)

    @classmethod
    def fresh(cls, joint: TranslationalClearanceJoint, s: np.ndarray) -> "WornGuide":
        """Unworn surfaces on guide nodes ``s`` [m]; the slider's face nodes have about the guide's
        spacing (at least 9 nodes over the face)."""
        ds = float(s[1] - s[0])
        nu = max(9, int(math.ceil(joint.slider_length / ds)) + 1)
        u = np.linspace(-0.5 * joint.slider_length, 0.5 * joint.slider_length, nu)
        return cls(joint, np.asarray(s, float), u, np.zeros((2, len(s))), np.zeros((2, nu)))

    def __post_init__(self):
        if self.sliding_guide is None:
            self.sliding_guide = np.zeros_like(self.h_guide)
        if self.sliding_slider is None:
            self.sliding_slider = np.zeros_like(self.h_slider)

    @property
    def nodes(self) -> int:
        return len(self.s)

    @property
    def ds(self) -> float:
        """Guide node spacing [m]."""
        return float(self.s[1] - self.s[0])

    @property
    def du(self) -> float:
        """Slider face node spacing [m]."""
        return float(self.u[1] - self.u[0])

    @property
    def clearance(self) -> float:
        """Nominal clearance ``C = (H - W)/2`` [m] (Wang, Chen, Ma & Sun (2016) eq. 18)."""
        return self.joint.clearance

    def reach(self) -> np.ndarray:
        """Reach reduction of the four corners [m]: the slider face depth at each corner."""
        return np.array([self.h_slider[f, -1 if end > 0 else 0] for f, end in CORNERS])

    def packed(self) -> np.ndarray:
        """The columns the compiled contact reads (:func:`workbench.mbs.guide_profile.pack_guide`)."""
        return pack_guide(self.s, self.h_guide, self.reach())

    def deepest(self) -> float:
        """Deepest wear of either part [m]."""
        return float(max(self.h_guide.max(initial=0.0), self.h_slider.max(initial=0.0)))

    def volumes(self) -> tuple[float, float]:
        """Worn volume of the guide (both faces) and of the slider (both faces) [m^3]
        (trapezoidal rule over the nodes, times the out-of-plane width)."""
        b = self.joint.width
        return (b * float(np.trapezoid(self.h_guide, self.s, axis=1).sum()),
                b * float(np.trapezoid(self.h_slider, self.u, axis=1).sum()))
