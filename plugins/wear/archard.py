"""Archard's linear wear law in its local, incremental form ``dh = k_d p ds``.

Archard 1953 (J. Appl. Phys. 24, 981); Wang & Liu (2015) (Wang & Liu 2015) §2.1.1 eq. (9)-(10) and §2.2
eq. (13)-(14): ``V/s = k F_n / H`` (eq. 9) divided by the contact area gives ``h/s = k_d p``
(eq. 10) with the dimensional coefficient ``k_d = k / H``; for a pressure and a sliding distance
that change along the motion it is used incrementally, ``dh = k_d p ds = k_d p v dt`` (eq. 13-14).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.plugin import WearLaw, hookimpl, parameter

from ._common import as_depth, wear_inputs


class Archard(WearLaw):
    """Archard wear ``dh = k_d p ds`` (Wang & Liu (2015) eq. 10, 13-14).

    One parameter, the dimensional wear coefficient ``k_d = k / H`` [1/Pa = m^2/N]: the
    dimensionless Archard coefficient ``k`` of eq. (9) over the hardness ``H`` [Pa] of the softer
    part (e.g. ``k = 1e-5`` on ``H = 2 GPa`` gives ``k_d = 5e-15``).  ``depth`` is linear in the
    pressure and in the slip and ignores the total sliding distance (no running-in: see
    ``nonlinear_archard``).

    Inputs (numpy arrays of any broadcastable shapes): ``pressure`` p [Pa], negative values
    clamped to 0 (no load where the surfaces are apart); ``slip`` ds [m], the sliding-distance
    increment, used by magnitude (wear does not depend on the sliding direction).  Returns
    ``dh`` [m] >= 0 with the broadcast shape.
    """
    name = "archard"
    reference = ("Archard 1953, J. Appl. Phys. 24 981; Wang & Liu (2015) (Wang & Liu 2015) eq. (9)-(10), "
                 "(13)-(14)")

    @dataclass(frozen=True)
    class Params:
        wear_coefficient: float = parameter(
            1e-14, unit="1/Pa", doc="dimensional wear coefficient k_d = k/H (dimensionless Archard "
            "k over the hardness H of the softer part), m^2/N", min=0.0)

    def depth(self, pressure, slip, sliding_distance=0.0) -> np.ndarray:
        """Wear depth ``dh = k_d max(p, 0) |ds|`` [m] (Wang & Liu (2015) eq. 14)."""
        p, ds, s = wear_inputs(pressure, slip, sliding_distance)
        dh = p * ds
        dh *= self.params.wear_coefficient
        return as_depth(dh, p.shape, ds.shape, s.shape)


@hookimpl
def register_wear_laws(register):
    register(Archard)
