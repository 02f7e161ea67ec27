"""Validity flags of a wear run: the peak contact pressure against the hardness.

Archard's law describes the wear of surfaces that touch at their asperities, the real contact area
``A_r = F / H`` being a small fraction of the apparent one (Archard (1953) eq. 4-6, with the
asperities flowing plastically at the indentation hardness ``H``).  That picture, and the constant
wear coefficient that goes with it, holds while the apparent (nominal) pressure stays below about
``H/3``: for a rigid-plastic solid ``H ~ 3 Y`` (Tabor (1951), the constraint factor ~3), so
``p ~ H/3`` is where the bulk of the part starts to yield under the contact instead of its
asperities only (Johnson (1985) ch. 6: first yield below a Hertz contact at a peak pressure of
about 1.6-1.8 Y), and where measured wear rates rise steeply above the linear law (Hutchings &
Shipway (2017), ch. 5 on sliding wear).

Per update the store records ``pressure_hardness_ratio = p_max / H`` with ``H`` the hardness of
the softer part of the joint.  Above 1/3 the run warns (a :class:`WearValidityWarning` and the
dataset attribute ``validity_warnings``); above ``hardness_limit`` (default 10: a pressure ten
times the hardness means the contact model, not the material, sets the answer) the run stops.
A joint without a ``hardness`` on either material skips the checks, noted in the attribute
``validity_notes``.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

from ..errors import WorkbenchError

ARCHARD_RANGE = 1.0 / 3.0


class WearValidityWarning(UserWarning):
    """A wear run left the documented range of its wear law."""


def softer_hardness(joint) -> float | None:
    """The smaller hardness [Pa] of the joint's two materials that give one, or None."""
    hs = [m.hardness for m in (joint.bushing_material, joint.journal_material)
          if getattr(m, "hardness", None) is not None]
    return min(hs) if hs else None


@dataclass
class ValidityLog:
    """Warnings and notes collected over a run (stored as dataset attributes)."""
    warnings: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def pressure_ratio(self, joint, peak_pressure: float, limit: float, update: int,
                       cycles_done: float) -> float:
        """``p_max / H`` [1] of one joint in one update (NaN without a hardness); warns above 1/3,
        raises :class:`WorkbenchError` above ``limit``."""
        H = softer_hardness(joint)
        if H is None:
            self.note(f"joint '{joint.name}': no material hardness given; the pressure/hardness "
                      f"checks (Archard's range p < H/3) are skipped")
            return math.nan
        ratio = peak_pressure / H
        where = f"wear update {update} (after {cycles_done:.6g} cycles), joint '{joint.name}'"
        if ratio > limit:
            raise WorkbenchError(
                f"{where}: peak pressure {peak_pressure:.4g} Pa is {ratio:.3g} times the hardness "
                f"{H:.4g} Pa of the softer part (limit wear.hardness_limit = {limit:g}); no wear law "
                f"holds there: check the contact stiffness and the pressure model")
        if ratio > ARCHARD_RANGE:
            msg = (f"{where}: peak pressure {peak_pressure:.4g} Pa = {ratio:.3g} H, beyond Archard's "
                   f"range p < H/3 (H = {H:.4g} Pa): the wear coefficient is not constant there")
            self.warnings.append(msg)
            warnings.warn(msg, WearValidityWarning, stacklevel=3)
        return ratio
