"""Worn cap of a spherical clearance joint (ball in socket) over ``(theta, phi)``.

The socket's worn state is a map ``h(theta, phi)`` [m] over the directions of the socket's body
frame: azimuth ``theta_k = 2 pi k / M`` about its z axis and polar angle
``phi_l = pi (l + 1/2) / Nphi`` from it (cell centres: no node on a pole); the patch of a node is
``R_i^2 sin(phi) dtheta dphi``.  In direction ``n`` the radial gap is ``c + h(n)``.

**Pressure: a rigid ball on a Winkler layer** (Winkler (1867); Johnson (1985) §5.8): with the
ball's centre offset ``e`` (3,) from the socket's, the layer is penetrated by
``u(n) = e . n - c - h(n)`` and pushes with ``p = k_w max(0, u)``; ``e`` carries the sample's load
``F`` (``sum p n dA = F``, :func:`.spatial_map.solve_offset` in 3-D).  For an unworn socket the
load carried at the contact half-angle ``alpha`` (``cos alpha = c/|e|``) is
``W = 2 pi k_w R^2 (|e| (1 - cos^3 alpha)/3 - c sin^2 alpha / 2)``.

**Slip.**  The ball turns relative to the socket with ``omega`` (socket frame); its surface slides
over the socket node in direction ``n`` at ``|omega x n| R_j``, so each node has its own slip per
sample ``|omega x n| R_j dt`` (the wear law is called with it; the pole of the spin does not
slide).  The whole depth goes to the socket (``bushing_share = 1``): the ball turns about any
axis, and its own cap would need the relative orientation per sample.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import WorkbenchError
from ..models import BoreSection
from .increment import ContactSamples
from .spatial_map import solve_offset, stiffness
from .surfaces import periodic_interp


@dataclass
class CapSamples:
    """The contact history of one ball joint over an averaging window: load (ns, 3) the ball's push
    on the socket, socket frame [N]; spin (ns, 3) the ball's angular velocity relative to the
    socket, socket frame [rad/s]; dt (ns,) [s]; friction (ns,) [N]; penetration (ns,) [m]; time (ns,) [s];
    radius [m] of the ball; contact_starts: the times [s] of the joint's contact starts in the window
    (``None``: not recorded)."""
    load: np.ndarray
    spin: np.ndarray
    dt: np.ndarray
    friction: np.ndarray
    penetration: np.ndarray
    time: np.ndarray
    radius: float = 0.0
    contact_starts: np.ndarray | None = None

    def part(self, a: int, b: int) -> "CapSamples":
        return CapSamples(*(getattr(self, f)[a:b] for f in ("load", "spin", "dt", "friction", "penetration", "time")),
                          radius=self.radius)

    def contact(self) -> ContactSamples:
        """The planar view the wear law's shear ratio and the records use (slip of the fastest point)."""
        F = np.linalg.norm(self.load, axis=1)
        ns = len(self.time)
        return ContactSamples(force=F, friction=self.friction, angle=np.zeros(ns), phi_rel=np.zeros(ns),
                              slip=np.linalg.norm(self.spin, axis=1) * self.radius * self.dt,
                              penetration=self.penetration, time=self.time)


@dataclass
class WornCap:
    """The worn socket of a spherical clearance joint (module docstring).

    joint : the spatial clearance joint; h_bushing : socket depth [m] (M, Nphi); h_journal : the
    ball's (kept zero: the socket takes the wear); sliding_bushing [m] (M, Nphi)."""
    joint: object
    h_bushing: np.ndarray
    h_journal: np.ndarray
    sliding_bushing: np.ndarray = field(default=None)

    @classmethod
    def fresh(cls, joint, nodes: int, nphi: int) -> "WornCap":
        if nphi < 2:
            raise WorkbenchError(f"a worn cap needs at least 2 polar nodes (z_nodes), got {nphi}")
        return cls(joint, np.zeros((nodes, nphi)), np.zeros((nodes, nphi)), np.zeros((nodes, nphi)))

    def __post_init__(self):
        if self.sliding_bushing is None:
            self.sliding_bushing = np.zeros_like(self.h_bushing)

    @property
    def shape(self) -> tuple[int, int]:
        return self.h_bushing.shape

    @property
    def nodes(self) -> int:
        return self.h_bushing.size

    @property
    def theta(self) -> np.ndarray:
        """Azimuth nodes [rad]."""
        return 2.0 * math.pi * np.arange(self.shape[0]) / self.shape[0]

    @property
    def phi(self) -> np.ndarray:
        """Polar nodes [rad] from the socket's z axis."""
        n = self.shape[1]
        return math.pi * (np.arange(n) + 0.5) / n

    @property
    def clearance(self) -> float:
        return self.joint.radius_i - self.joint.radius_j

    @property
    def axes(self) -> tuple:
        return (("theta", self.theta, {"units": "rad", "long_name": "azimuth about the socket's z axis (socket body frame)"}),
                ("phi", self.phi, {"units": "rad", "long_name": "polar angle from the socket's z axis"}))

    def normals(self) -> np.ndarray:
        """Unit directions of the nodes, socket frame, ``(M Nphi, 3)`` (node (k, l) -> k Nphi + l)."""
        th, ph = np.meshgrid(self.theta, self.phi, indexing="ij")
        return np.column_stack([(np.sin(ph) * np.cos(th)).ravel(), (np.sin(ph) * np.sin(th)).ravel(),
                                np.cos(ph).ravel()])

    def area_weights(self, radius: float) -> np.ndarray:
        """Patch areas [m^2] ``(M, Nphi)``: ``radius^2 sin(phi) dtheta dphi``."""
        M, n = self.shape
        return radius ** 2 * (2.0 * math.pi / M) * (math.pi / n) * np.sin(self.phi)[None, :] * np.ones((M, 1))

    def patch_areas(self):
        return (self.area_weights(self.joint.radius_i).ravel(), self.area_weights(self.joint.radius_j).ravel())

    def volumes(self) -> tuple[float, float]:
        """Worn volume of the socket [m^3] (spherical shells) and of the ball (0)."""
        R = self.joint.radius_i
        h = self.h_bushing
        a = self.area_weights(1.0)
        return float(np.sum(a * (R ** 2 * h + R * h ** 2 + h ** 3 / 3.0))), 0.0

    def depth_dir(self, direction) -> float:
        """Socket depth [m] in the socket-frame ``direction`` (bilinear; polar angle clipped to the
        outermost node rows)."""
        v = np.asarray(direction, float)
        th = math.atan2(v[1], v[0])
        ph = math.acos(max(-1.0, min(1.0, v[2] / math.sqrt(v @ v))))
        n = self.shape[1]
        f = min(max(ph * n / math.pi - 0.5, 0.0), n - 1.0)
        m = min(int(f), n - 2)
        a = f - m
        col = (1.0 - a) * self.h_bushing[:, m] + a * self.h_bushing[:, m + 1]
        return float(periodic_interp(col, th))

    def pressure(self, samples: CapSamples, model) -> np.ndarray:
        """Pressure [Pa] on the socket nodes for every sample, ``(ns, M Nphi)``."""
        ns = len(samples.time)
        p = np.zeros((ns, self.nodes))
        loaded = np.flatnonzero(np.linalg.norm(samples.load, axis=1) > 0.0)
        if not len(loaded):
            return p
        k = stiffness(model, self)
        N = self.normals()
        G = (self.clearance + self.h_bushing).ravel()
        w = self.area_weights(self.joint.radius_i).ravel()
        zero = np.zeros(self.nodes)
        for s in loaded:
            e, u = solve_offset(N, G, zero, samples.load[s], k, w)
            p[s] = k * np.maximum(u, 0.0)
        return p

    def slip(self, samples: CapSamples) -> np.ndarray:
        """Slip [m] of every node per sample: ``|omega x n| R_j dt``, ``(ns, M Nphi)``."""
        N = self.normals()
        v = np.cross(samples.spin[:, None, :], N[None, :, :])
        return np.linalg.norm(v, axis=2) * self.joint.radius_j * samples.dt[:, None]

    def to_journal(self, dh, samples, fraction: float):
        raise WorkbenchError("a ball joint's wear goes to the socket (bushing_share = 1)")

    def section(self) -> BoreSection:
        """The socket as the section a pressure model's stiffness is asked with (its materials)."""
        j = self.joint
        return BoreSection(theta=self.theta, radius=j.radius_i, gap=np.full(self.shape[0], self.clearance),
                           length=2.0 * j.radius_i, bushing=j.material_i, journal=j.material_j)
