"""Worn maps of a spatial journal bearing over ``(theta, z)`` and their Winkler pressure.

A spatial revolute or cylindrical clearance joint (:mod:`workbench.spatial.clearance`) wears its
bushing and its journal over the whole bearing surface, not over a section: the worn state is a
map ``h(theta, z)`` [m] on ``M`` angle nodes ``theta_k = 2 pi k / M`` (body-fixed: the bushing's
section frame for the bushing, the journal's for the journal) and ``Nz`` nodes ``z_l`` evenly
from ``-L/2`` to ``L/2`` along the bearing length (trapezoid weights, so the rims ``z = +-L/2``
are nodes).  A depth removes material: in bushing-frame direction ``theta`` at ``z`` the radial
gap is ``g(theta, z) = c + h_b(theta, z) + h_j(theta - phi_rel, z)`` (``c = R_i - R_j``,
``phi_rel`` the journal's turn about the axis relative to the bushing) -- the planar gap of
:mod:`.surfaces`, now for every slice.

**Pressure: a rigid journal on a Winkler layer over the bearing length.**  The journal is a rigid
cylinder whose axis, in the bushing's section coordinates, is the line ``e(z) = e0 + z t``
(``e0`` [m] the offset of its mid-length, ``t`` [1] the slope of its axis relative to the bore:
``tan tau`` along the tilt's direction).  Its surface penetrates the layer by
``u(theta, z) = e(z) . n(theta) - g(theta, z)`` (``n = (cos theta, sin theta)``; small clearance
and small tilt, as the planar Winkler model) and the layer pushes back with
``p = k_w max(0, u)`` [Pa] (the elastic foundation of Winkler (1867); Johnson (1985) §5.8; Wang & Liu (2015)
eq. 23-24 on a section).  A tilted journal thus loads one edge: along the load line the pressure
is ``p(z) = k_w max(0, delta0 + z tan tau)`` (a rigid tilted cylinder on a Winkler layer).

For each sample the load ``F`` [N] (the journal's push on the bushing, in section coordinates)
and the slope ``t`` come from the dynamics (or from a rig); ``e0`` solves the equilibrium
``sum p n R dtheta w_z = F`` -- the minimum of the convex potential
``k_w/2 sum max(0, u)^2 R dtheta w_z - F . e0`` (Newton on the active set with a backtracking
line search, the planar Winkler plugin's algorithm in 3-D).  The layer modulus ``k_w`` [Pa/m] is
the study's ``winkler`` pressure model's (:meth:`textbook_stiffness` of its plugin).

The depth per sample is the study's wear law on that pressure and the sample's slip (the same
call as the planar loop, :func:`.increment.law_depth`), shared between the bushing (fraction
``share``) and the journal (carried to its own angle ``theta - phi_rel`` slice by slice).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import WorkbenchError
from ..models import BoreSection
from ..runtime.watchdog import beat
from .increment import ContactSamples, CycleRates, ModelOutputError, law_depth
from .surfaces import periodic_interp, periodic_scatter

#: Newton iterations of one sample's equilibrium before it is declared failed
MAX_NEWTON = 100


def z_nodes(length: float, nz: int) -> np.ndarray:
    """The ``nz`` axial nodes [m] from ``-length/2`` to ``length/2``."""
    return np.linspace(-0.5 * length, 0.5 * length, nz)


def z_weights(length: float, nz: int) -> np.ndarray:
    """Trapezoid weights [m] of :func:`z_nodes` (they sum to ``length``)."""
    w = np.full(nz, length / (nz - 1))
    w[[0, -1]] *= 0.5
    return w


@dataclass
class WornMap:
    """The worn state of one spatial journal bearing (module docstring).

    joint : the spatial clearance joint (``radius_i``, ``radius_j``, ``length`` [m], materials).
    h_bushing, h_journal : wear depth [m], shape ``(M, Nz)`` (bushing frame, journal frame).
    sliding_bushing : sliding distance each bushing node has seen under load [m], ``(M, Nz)``.
    """
    joint: object
    h_bushing: np.ndarray
    h_journal: np.ndarray
    sliding_bushing: np.ndarray = field(default=None)

    @classmethod
    def fresh(cls, joint, nodes: int, nz: int) -> "WornMap":
        if nz < 2:
            raise WorkbenchError(f"a worn map needs at least 2 axial nodes (z_nodes), got {nz}")
        return cls(joint, np.zeros((nodes, nz)), np.zeros((nodes, nz)), np.zeros((nodes, nz)))

    def __post_init__(self):
        if self.sliding_bushing is None:
            self.sliding_bushing = np.zeros_like(self.h_bushing)

    @property
    def nodes(self) -> int:
        """Nodes of the map (``M Nz``), the length of its flattened rate profile."""
        return self.h_bushing.size

    @property
    def shape(self) -> tuple[int, int]:
        return self.h_bushing.shape

    @property
    def theta(self) -> np.ndarray:
        """Angle nodes [rad]."""
        M = self.shape[0]
        return 2.0 * math.pi * np.arange(M) / M

    @property
    def z(self) -> np.ndarray:
        """Axial nodes [m]."""
        return z_nodes(self.joint.length, self.shape[1])

    @property
    def clearance(self) -> float:
        """Nominal radial clearance ``R_i - R_j`` [m]."""
        return self.joint.radius_i - self.joint.radius_j

    def gaps(self, phi_rel) -> np.ndarray:
        """Radial gap [m] on the bushing nodes for relative turns ``phi_rel`` [rad]:
        ``(ns,)`` -> ``(ns, M, Nz)``."""
        phi_rel = np.atleast_1d(np.asarray(phi_rel, float))
        c = self.clearance + self.h_bushing
        out = np.broadcast_to(c, (len(phi_rel),) + self.shape).copy()
        if self.h_journal.any():
            ang = self.theta[None, :] - phi_rel[:, None]
            for m in range(self.shape[1]):
                out[:, :, m] += periodic_interp(self.h_journal[:, m], ang)
        return out

    def depth_at(self, theta, z, phi_rel=0.0) -> float:
        """Bushing plus journal depth [m] at bushing angle ``theta`` [rad] and ``z`` [m] (linear in
        both; ``z`` clipped to the bearing), for the spatial contact (the gap grows by it)."""
        zz = self.z
        f = float(np.clip((z - zz[0]) / (zz[1] - zz[0]), 0.0, len(zz) - 1.0))
        m = min(int(f), len(zz) - 2)
        a = f - m
        col = (1.0 - a) * self.h_bushing[:, m] + a * self.h_bushing[:, m + 1]
        d = float(periodic_interp(col, theta))
        if self.h_journal.any():
            col = (1.0 - a) * self.h_journal[:, m] + a * self.h_journal[:, m + 1]
            d += float(periodic_interp(col, theta - phi_rel))
        return d

    def area_weights(self, radius: float) -> np.ndarray:
        """Area of each node's patch [m^2], ``(M, Nz)``: ``radius dtheta w_z``."""
        M, nz = self.shape
        return radius * (2.0 * math.pi / M) * z_weights(self.joint.length, nz)[None, :] * np.ones((M, 1))

    def volumes(self) -> tuple[float, float]:
        """Worn volume of the bushing and of the journal [m^3] (annular patches)."""
        Ri, Rj = self.joint.radius_i, self.joint.radius_j
        d = 2.0 * math.pi / self.shape[0]
        w = z_weights(self.joint.length, self.shape[1])[None, :]
        vb = d * float(np.sum(w * (Ri * self.h_bushing + 0.5 * self.h_bushing ** 2)))
        vj = d * float(np.sum(w * (Rj * self.h_journal - 0.5 * self.h_journal ** 2)))
        return vb, vj

    @property
    def axes(self) -> tuple:
        """The map's coordinates: ``(name, values, attributes)`` of its two axes."""
        return (("theta", self.theta, {"units": "rad", "long_name": "angle about the bearing axis, body-fixed "
                                                              "(bushing or journal section frame)"}),
                ("z", self.z, {"units": "m", "long_name": "position along the bearing axis from its mid-length"}))

    def pressure(self, samples, model) -> np.ndarray:
        """:func:`map_pressure`, flattened to ``(ns, M Nz)``."""
        return map_pressure(self, samples, model).reshape(len(samples.time), self.nodes)

    def slip(self, samples) -> np.ndarray:
        """Slip of every node per sample [m]: the journal's, ``(ns, 1)``."""
        return samples.slip[:, None]

    def to_journal(self, dh: np.ndarray, samples, fraction: float) -> np.ndarray:
        """The journal's part ``fraction`` of the per-sample depths ``dh`` (ns, M Nz) on its own nodes."""
        M, nz = self.shape
        d3 = dh.reshape(len(samples.time), M, nz)
        ang = self.theta[None, :] - samples.phi_rel[:, None]
        jn = np.zeros((M, nz))
        for m in range(nz):
            jn[:, m] = fraction * periodic_scatter(d3[:, :, m], ang, M)
        return jn.ravel()

    def patch_areas(self) -> tuple[np.ndarray, np.ndarray]:
        """Patch areas [m^2] of the bushing's and the journal's nodes, flattened."""
        return (self.area_weights(self.joint.radius_i).ravel(), self.area_weights(self.joint.radius_j).ravel())

    def section(self) -> BoreSection:
        """The whole bearing as the bore section a pressure model's stiffness is asked with
        (nominal radius and length, materials)."""
        j = self.joint
        return BoreSection(theta=self.theta, radius=j.radius_i, gap=np.full(self.shape[0], self.clearance),
                           length=j.length, bushing=j.material_i, journal=j.material_j)


@dataclass
class MapSamples:
    """The contact history of one spatial journal bearing over an averaging window.

    load : (ns, 2) the journal's push on the bushing in the bushing's section coordinates [N];
    slope : (ns, 2) the journal axis' slope relative to the bore, ``de/dz`` [1];
    friction : (ns,) friction force magnitude [N]; phi_rel : (ns,) journal turn relative to the
    bushing [rad]; slip : (ns,) slip distance of the sample [m]; penetration : (ns,) deepest
    penetration of the joint [m]; time : (ns,) [s]; contact_starts : the times [s] of the joint's
    contact starts in the window (the impact table's; ``None``: not recorded, a rig).
    """
    load: np.ndarray
    slope: np.ndarray
    friction: np.ndarray
    phi_rel: np.ndarray
    slip: np.ndarray
    penetration: np.ndarray
    time: np.ndarray
    contact_starts: np.ndarray | None = None

    def part(self, a: int, b: int) -> "MapSamples":
        return MapSamples(*(getattr(self, f)[a:b] for f in
                            ("load", "slope", "friction", "phi_rel", "slip", "penetration", "time")))

    def contact(self) -> ContactSamples:
        """The planar view the wear law is called with (force magnitude, friction, slip)."""
        F = np.linalg.norm(self.load, axis=1)
        return ContactSamples(force=F, friction=self.friction, angle=np.arctan2(self.load[:, 1], self.load[:, 0]),
                              phi_rel=self.phi_rel, slip=self.slip, penetration=self.penetration, time=self.time)


def stiffness(model, worn: WornMap) -> float:
    """The layer modulus ``k_w`` [Pa/m] of the study's pressure model (the ``winkler`` plugin)."""
    get = getattr(model, "textbook_stiffness", None)
    if get is None:
        raise WorkbenchError(f"the spatial wear loop needs a Winkler pressure model (pressure = "
                             f"{{ model = \"winkler\" }}), got '{getattr(model, 'name', model)}'")
    k = float(get(worn.section()))
    if not (math.isfinite(k) and k > 0.0):
        raise ModelOutputError(f"the pressure model '{model.name}' gave the layer modulus {k!r} Pa/m")
    return k


def solve_offset(N, G, shift, F, k, w):
    """Offset ``e`` [m] (``d``,) of a rigid body on the layer carrying ``F`` [N] (``d``,): the minimum
    of ``k/2 sum w max(0, u)^2 - F . e`` with ``u = N e + shift - G`` on the nodes (``N`` (n, d) unit
    normals, ``G`` (n,) gaps [m], ``shift`` (n,) [m] the part of the penetration that does not move
    with ``e``, ``w`` (n,) patch areas [m^2]).  Newton on the active set with a backtracking line
    search (the planar Winkler plugin's algorithm).  Returns ``(e, u)``."""
    Fm = float(np.linalg.norm(F))
    d = np.asarray(F, float) / Fm
    c = N @ d
    ok = c > 0.5
    # touching along the load, plus a rigid estimate of the layer's give
    a = np.min((G[ok] - shift[ok]) / c[ok])
    e = d * (a + Fm / (k * float(w[ok] @ c[ok])))

    def parts(e):
        u = N @ e + shift - G
        return u, u > 0.0

    def energy(e, u, act):
        return 0.5 * k * float(w[act] @ (u[act] ** 2)) - float(F @ e)

    u, act = parts(e)
    phi = energy(e, u, act)
    scale = max(float(np.abs(G).max()), 1e-9)
    for _ in range(MAX_NEWTON):
        wa = np.where(act, w, 0.0)
        g = k * (N.T @ (wa * u)) - F
        H = k * (N.T * wa) @ N
        if not act.any():
            step = d * scale            # out of contact: move along the load
        else:   # a contact on one generatrix leaves H singular: a 1e-12 regularisation, undone by the line search
            step = -np.linalg.solve(H + 1e-12 * np.trace(H) * np.eye(len(F)), g)
        lam = 1.0
        while True:
            e1 = e + lam * step
            u1, act1 = parts(e1)
            phi1 = energy(e1, u1, act1)
            if phi1 <= phi + 1e-4 * lam * float(g @ step) or lam < 1e-12:
                break
            lam *= 0.5
        e, u, act, phi = e1, u1, act1, phi1
        if np.linalg.norm(lam * step) <= 1e-13 * scale and act.any():
            return e, u
    raise ModelOutputError(f"the Winkler map equilibrium did not converge for the load {F} N "
                           f"in {MAX_NEWTON} Newton steps")


def map_pressure(worn: WornMap, samples: MapSamples, model) -> np.ndarray:
    """Pressure [Pa] on the bushing nodes for every sample, ``(ns, M, Nz)`` (module docstring);
    samples without load carry none."""
    ns = len(samples.time)
    M, nz = worn.shape
    p = np.zeros((ns, M, nz))
    loaded = np.flatnonzero(np.linalg.norm(samples.load, axis=1) > 0.0)
    if not len(loaded):
        return p
    k = stiffness(model, worn)
    th = worn.theta
    N = np.column_stack([np.cos(th), np.sin(th)])
    Nrep = np.repeat(N, nz, axis=0)                     # node (m, l) -> m nz + l
    w = worn.area_weights(worn.joint.radius_i).ravel()
    z = worn.z
    G = worn.gaps(samples.phi_rel[loaded]).reshape(len(loaded), M * nz)
    # every sample from its own cold start: a warm start from a sample loaded the other way can
    # leave Newton on the far side of the bore (it failed there in 100 of 150 random trials;
    # cold starts: none in 2000, loads 1e-4 to 3e4 N, any slope)
    for r, s in enumerate(loaded):
        shift = np.outer(N @ samples.slope[s], z).ravel()   # (z t) . n
        e, u = solve_offset(Nrep, G[r], shift, samples.load[s], k, w)
        p[s] = k * np.maximum(u, 0.0).reshape(M, nz)
    return p


def cycle_rates(worn, samples, n_cycles: int, pressure_model, law, share: float) -> CycleRates:
    """Each of the ``n_cycles`` averaging cycles on its own (the planar
    :func:`.increment.cycle_rates` over a map, :class:`WornMap` or
    :class:`.spatial_cap.WornCap`): flattened ``(n, nodes)`` depth rates."""
    per = len(samples.time) // n_cycles
    n = worn.nodes
    out = {k: np.zeros((n_cycles, n)) for k in ("bushing", "journal", "sliding")}
    vol = np.zeros((n_cycles, 2))
    scal = {k: np.zeros(n_cycles) for k in ("peak_force", "peak_pressure", "mean_force", "max_penetration")}
    wb, wj = worn.patch_areas()
    for c in range(n_cycles):
        s = samples.part(c * per, (c + 1) * per)
        cs = s.contact()
        p = worn.pressure(s, pressure_model)
        ds = worn.slip(s)
        dh = law_depth(law, p, cs, worn.sliding_bushing.ravel(), slip=ds)
        b = share * dh.sum(axis=0)
        jn = worn.to_journal(dh, s, 1.0 - share) if share < 1.0 else np.zeros(n)
        out["bushing"][c], out["journal"][c] = b, jn
        out["sliding"][c] = np.sum(np.where(p > 0.0, np.broadcast_to(ds, p.shape), 0.0), axis=0)
        vol[c] = (float(wb @ b), float(wj @ jn))
        scal["peak_force"][c] = cs.force.max(initial=0.0)
        scal["peak_pressure"][c] = p.max(initial=0.0)
        scal["mean_force"][c] = cs.force.mean() if len(cs.force) else 0.0
        scal["max_penetration"][c] = s.penetration.max(initial=-np.inf)
        beat()
    return CycleRates(volume=vol, **out, **scal)
