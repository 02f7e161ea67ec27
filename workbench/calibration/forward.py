"""The forward model of a calibration: what a wear run predicts at the measured points.

A wear store (:mod:`workbench.wear.store`) holds, row by row, the cumulative wear depth on the
body nodes and the worn volume, with their standard errors.  Between rows the loop wears at a
constant rate (the cycle jump), so the state at any cycle count is the linear interpolation
between the rows around it, with the variance ``s_r^2 + f^2 (s_{r+1}^2 - s_r^2)`` (the jump's
variance grows with the square of the fraction ``f`` of the jump done).  Profiles are read at the
measured angles with the loop's own periodic interpolation.

**Wear-coefficient scaling.**  For a wear law whose depth is proportional to its coefficient k
with nothing else depending on the running time (Archard, Reye: Wang & Liu (2015) eq. 10-14), the
worn state depends on k and the cycle count only through the product k N: the surfaces after N
cycles at k are the surfaces after N k / k0 cycles at k0 (the dynamics sees only the surfaces).
One run at k0 therefore predicts every k, including the nonlinear growth once the wear changes the
pressure and the dynamics (:meth:`Forward.scaled`).  In the small-wear limit, where the wear does
not change the dynamics, the prediction is linear in k, ``(k/k0) h(N)`` (:meth:`Forward.linear`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import WorkbenchError
from ..wear.surfaces import periodic_interp
from .data import Measurements

SURFACE_INDEX = {"bushing": 0, "journal": 1}


@dataclass
class Forward:
    """Per observation ``i``: the simulated value and its standard error at every stored row.

    cycles (R,) [1] the store's rows; mean, stderr (R, n) [m or m^3]; k0 the run's coefficient [1/Pa].
    """
    cycles: np.ndarray
    mean: np.ndarray
    stderr: np.ndarray
    k0: float

    @property
    def last(self) -> float:
        return float(self.cycles[-1])

    def at(self, cycles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard error at ``cycles`` (shape (..., n): one cycle count per observation)."""
        c = np.asarray(cycles, float)
        if np.any(c > self.last * (1 + 1e-12)):
            raise WorkbenchError(f"the simulation reaches {self.last:.6g} cycles; a prediction at "
                                 f"{float(c.max()):.6g} cycles needs a longer run")
        r = np.clip(np.searchsorted(self.cycles, c, side="right") - 1, 0, len(self.cycles) - 2)
        c0, c1 = self.cycles[r], self.cycles[r + 1]
        f = np.clip((c - c0) / (c1 - c0), 0.0, 1.0)
        n = np.arange(self.mean.shape[1])
        n = np.broadcast_to(n, c.shape)
        m0, m1 = self.mean[r, n], self.mean[r + 1, n]
        v0, v1 = self.stderr[r, n] ** 2, self.stderr[r + 1, n] ** 2
        return m0 + f * (m1 - m0), np.sqrt(v0 + f * f * np.maximum(v1 - v0, 0.0))

    def scaled(self, k: np.ndarray, cycles: np.ndarray):
        """Prediction at coefficients ``k`` (G,) for observations at ``cycles`` (n,): (G, n) arrays."""
        return self.at(np.outer(np.asarray(k, float) / self.k0, cycles))

    def linear(self, k: np.ndarray, cycles: np.ndarray):
        """Small-wear prediction ``(k/k0) h(N)`` and its error ``(k/k0) s(N)``: (G, n) arrays."""
        m, s = self.at(np.asarray(cycles, float)[None, :])
        b = (np.asarray(k, float) / self.k0)[:, None]
        return b * m, b * s


def joint_index(ds, name: str) -> int:
    names = [str(x) for x in ds["joint"].values] if "joint" in ds.coords else []
    if not name:
        return 0
    if name not in names:
        raise WorkbenchError(f"joint {name!r} is not worn in the simulation; worn joints: {', '.join(names) or 'none'}")
    return names.index(name)


def from_store(ds, data: Measurements, k0: float) -> Forward:
    """The :class:`Forward` of the observations ``data`` on the wear result ``ds`` (a run at ``k0``)."""
    cycles = np.asarray(ds["cycle"].values, float)
    if len(cycles) < 2:
        raise WorkbenchError("the simulation has a single row; a calibration needs a run over the measured cycles")
    R, n = len(cycles), len(data)
    mean, se = np.zeros((R, n)), np.zeros((R, n))
    depth, dse = ds["wear_depth"].values, ds["wear_depth_stderr"].values
    vol, vse = ds["wear_volume"].values, ds["wear_volume_stderr"].values
    for i in range(n):
        j, s = joint_index(ds, str(data.joint[i])), SURFACE_INDEX[str(data.surface[i])]
        if data.quantity[i] == "wear_depth":
            mean[:, i] = periodic_interp(depth[:, j, s, :], data.theta[i])
            se[:, i] = periodic_interp(dse[:, j, s, :], data.theta[i])
        else:
            mean[:, i], se[:, i] = vol[:, j, s], vse[:, j, s]
    return Forward(cycles, mean, np.where(np.isfinite(se), se, 0.0), float(k0))
