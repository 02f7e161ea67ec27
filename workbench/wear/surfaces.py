"""Worn surfaces of a revolute clearance joint: bushing and journal profiles on body-fixed nodes.

Each surface is sampled on ``M`` nodes ``theta_k = 2 pi k / M`` of its own body frame (Wang & Liu (2015)
§4 steps 7-8: the geometry is rebuilt from the wear depth).  A wear depth ``h >= 0`` [m] removes
material: the bushing bore radius becomes ``R_b + h_b(theta)``, the journal radius
``R_j - h_j(theta)``.  In bushing-frame direction ``psi`` the radial clearance is
``c(psi) = R_b - R_j + h_b(psi) + h_j(psi - phi_rel)`` with ``phi_rel`` the journal angle minus the
bushing angle — the gap field the dynamics (:mod:`workbench.mbs.clearance`) and the pressure
models work with.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..mbs.mechanism import RevoluteClearanceJoint
from ..models import BoreSection, ContactGeometry


def periodic_interp(h: np.ndarray, angles) -> np.ndarray:
    """Values of the nodal field ``h`` (nodes ``2 pi k / M``) at ``angles`` [rad], linear, periodic."""
    M = h.shape[-1]
    u = np.mod(np.asarray(angles, float), 2.0 * math.pi) * (M / (2.0 * math.pi))
    i = np.floor(u).astype(np.int64)
    f = u - i
    i %= M
    return h[..., i] * (1.0 - f) + h[..., (i + 1) % M] * f


def periodic_scatter(values: np.ndarray, angles: np.ndarray, M: int) -> np.ndarray:
    """Distribute ``values`` located at ``angles`` [rad] onto ``M`` periodic nodes (the transpose of
    :func:`periodic_interp`, so the total is conserved)."""
    u = np.mod(np.asarray(angles, float), 2.0 * math.pi) * (M / (2.0 * math.pi))
    i = np.floor(u).astype(np.int64)
    f = u - i
    i %= M
    v = np.asarray(values, float)
    out = np.bincount(i.ravel(), weights=(v * (1.0 - f)).ravel(), minlength=M)
    out += np.bincount(((i + 1) % M).ravel(), weights=(v * f).ravel(), minlength=M)
    return out[:M]


@dataclass
class WornJoint:
    """The worn state of one revolute clearance joint.

    Attributes
    ----------
    joint : the clearance joint (radii [m], length [m], materials).
    h_bushing, h_journal : wear depth per node [m], shape ``(M,)``, bushing and journal frames.
    sliding_bushing : sliding distance each bushing node has seen under load [m] (running-in laws).
    """
    joint: RevoluteClearanceJoint
    h_bushing: np.ndarray
    h_journal: np.ndarray
    sliding_bushing: np.ndarray = field(default=None)

    @classmethod
    def fresh(cls, joint: RevoluteClearanceJoint, nodes: int) -> "WornJoint":
        return cls(joint, np.zeros(nodes), np.zeros(nodes), np.zeros(nodes))

    def __post_init__(self):
        if self.sliding_bushing is None:
            self.sliding_bushing = np.zeros_like(self.h_bushing)

    @property
    def nodes(self) -> int:
        return len(self.h_bushing)

    @property
    def theta(self) -> np.ndarray:
        """Body-fixed node angles [rad]."""
        return 2.0 * math.pi * np.arange(self.nodes) / self.nodes

    @property
    def clearance(self) -> float:
        """Nominal radial clearance ``R_b - R_j`` [m]."""
        return self.joint.bushing_radius - self.joint.journal_radius

    def radius_bushing(self) -> np.ndarray:
        """Worn bore radius per bushing node [m]."""
        return self.joint.bushing_radius + self.h_bushing

    def radius_journal(self) -> np.ndarray:
        """Worn journal radius per journal node [m]."""
        return self.joint.journal_radius - self.h_journal

    def gaps(self, phi_rel) -> np.ndarray:
        """Radial clearance on the bushing nodes [m] for relative rotations ``phi_rel`` [rad]
        (shape ``(ns,)`` -> ``(ns, M)``)."""
        phi_rel = np.atleast_1d(np.asarray(phi_rel, float))
        c = self.clearance + self.h_bushing
        if not self.h_journal.any():
            return np.broadcast_to(c, (len(phi_rel), self.nodes)).copy()
        return c + periodic_interp(self.h_journal, self.theta[None, :] - phi_rel[:, None])

    def section(self) -> BoreSection:
        """The bore section a pressure model works on (bushing nodes, nominal radius).  Its gap is
        the bushing's own worn clearance (the bore shape); the journal's wear, which turns with
        the journal, enters each sample's gap (:meth:`gaps`)."""
        j = self.joint
        return BoreSection(theta=self.theta, radius=j.bushing_radius, gap=self.clearance + self.h_bushing,
                           length=j.length, bushing=j.bushing_material, journal=j.journal_material)

    def contact_geometry(self) -> ContactGeometry:
        """Contact-law geometry with the clearance enlarged by the deepest wear of each part
        (Wang & Liu (2015) §1.3: the contact stiffness depends on the clearance and changes with wear)."""
        j = self.joint
        return ContactGeometry("cylindrical", j.journal_radius - float(self.h_journal.max()),
                               j.bushing_radius + float(self.h_bushing.max()), j.length,
                               j.journal_material, j.bushing_material)

    def volumes(self) -> tuple[float, float]:
        """Worn volume of the bushing and of the journal [m^3] (exact annular areas x length)."""
        d = 2.0 * math.pi / self.nodes
        Rb, Rj, b = self.joint.bushing_radius, self.joint.journal_radius, self.joint.length
        vb = b * d * float(np.sum(Rb * self.h_bushing + 0.5 * self.h_bushing ** 2))
        vj = b * d * float(np.sum(Rj * self.h_journal - 0.5 * self.h_journal ** 2))
        return vb, vj
