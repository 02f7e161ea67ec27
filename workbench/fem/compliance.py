"""Plane-strain elasticity of one joint part and its compliance condensed onto the contact nodes.

A part is a triangle mesh (:mod:`workbench.fem.mesh`) with a circular contact boundary of ``n``
uniformly spaced nodes and an isotropic material.  The *condensed normal compliance* ``C`` [m^2/N]
maps radial nodal line loads ``f_j`` [N/m] (outward unit normal ``n_j``, per unit axial length) to
the outward radial displacements ``u_i . n_i`` [m] of the contact nodes.  For the bushing (bore
nodes) an outward load opens the gap; for the pin the contact pressure pushes the surface inward and
opens the gap by ``-u . n``, which by linearity is again ``C f`` with ``C`` built from outward unit
loads — so the total gap opening is ``(C_bushing + C_pin) f``.

Supports
--------
* bushing (``kind="bushing"``): the ``"outer"`` boundary is held.
* pin (``kind="pin"``): a free disc.  Its unit loads are made self-equilibrated by subtracting their
  Fourier mode 1 (``2/n cos(theta_k - theta_j) n_k``), the centre node and one tangential degree of
  freedom are held (a statically determinate support, so the reactions vanish), and mode 1 is
  projected out of the result.  A mode-1 normal displacement of a circle is indistinguishable from a
  rigid translation, so the pin's approach is its best-fit rigid translation.

Symmetry: if the mesh is invariant under a rotation by ``2 pi / m`` (:func:`rotation_order`) the
compliance is block-circulant with blocks of ``q = n/m`` nodes, and only ``q`` unit-load solves are
needed (one for a fully rotationally symmetric mesh); otherwise ``n`` solves share one sparse LU.

Compliances are cached on disk (:func:`workbench.runtime.caches.fe_cache_dir`: ``$WORKBENCH_CACHE`` or
the user cache folder) keyed by the mesh hash, the part kind and the material.
"""
from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse.linalg as spla
from skfem import Basis, ElementTriP1, ElementVector, MeshTri, asm
from skfem.models.elasticity import lame_parameters, linear_elasticity

from workbench.errors import WorkbenchError
from workbench.models import Material

from .mesh import mesh_hash, rotation_order, surface_nodes

CACHE_VERSION = "1"
BOUNDARY = {"bushing": "bore", "pin": "surface"}


def cache_dir() -> Path:
    """Directory of the compliance cache (created on demand; the rule of :mod:`workbench.runtime.caches`)."""
    from ..runtime.caches import fe_cache_dir  # house: one rule for every cache
    return fe_cache_dir()


@dataclass
class ElasticPart:
    """One elastic joint part: mesh, material, support and (lazily) its factorised stiffness.

    Parameters
    ----------
    mesh : triangle mesh with the boundary ``"bore"`` (bushing, plus ``"outer"``) or ``"surface"`` (pin).
    material : E [Pa], nu [1]; ``rigid`` parts have no FE model (use compliance 0).
    kind : ``"bushing"`` or ``"pin"``.
    """
    mesh: MeshTri
    material: Material
    kind: str
    nodes: np.ndarray = field(init=False)
    theta: np.ndarray = field(init=False)
    _lu: object = field(init=False, default=None, repr=False)

    def __post_init__(self):
        if self.kind not in BOUNDARY:
            raise WorkbenchError(f"unknown part kind '{self.kind}'; valid: 'bushing', 'pin'")
        if self.material.rigid:
            raise WorkbenchError("a rigid part has no FE model; its compliance is zero")
        self.nodes, self.theta = surface_nodes(self.mesh, BOUNDARY[self.kind])
        self.basis = Basis(self.mesh, ElementVector(ElementTriP1()))

    @property
    def n(self) -> int:
        return len(self.nodes)

    def _fixed_dofs(self) -> np.ndarray:
        nd = self.basis.nodal_dofs  # (2, n_nodes)
        if self.kind == "bushing":
            outer = np.unique(self.mesh.facets[:, self.mesh.boundaries["outer"]])
            return nd[:, outer].ravel()
        centre = int(np.argmin(np.hypot(self.mesh.p[0], self.mesh.p[1])))
        j = self.nodes[0]
        tangential = 1 if abs(np.cos(self.theta[0])) > 0.5 else 0
        return np.array([nd[0, centre], nd[1, centre], nd[tangential, j]])

    def _factor(self):
        if self._lu is None:
            lam, mu = lame_parameters(self.material.E, self.material.nu)
            K = asm(linear_elasticity(lam, mu), self.basis)
            fixed = self._fixed_dofs()
            free = np.setdiff1d(np.arange(K.shape[0]), fixed)
            self._free = free
            self._lu = spla.splu(K[free][:, free].tocsc())
        return self._lu

    def displacement(self, radial_forces: np.ndarray) -> np.ndarray:
        """Nodal displacement field (2, n_nodes) [m] under outward radial nodal line loads [N/m].

        ``radial_forces`` has shape (n,) or (n, k) for k load cases (then (k, 2, n_nodes)).
        """
        lu = self._factor()
        f = np.atleast_2d(np.asarray(radial_forces, float).T).T  # (n, k)
        ndof = self.basis.N
        F = np.zeros((ndof, f.shape[1]))
        nd = self.basis.nodal_dofs
        F[nd[0, self.nodes]] = np.cos(self.theta)[:, None] * f
        F[nd[1, self.nodes]] = np.sin(self.theta)[:, None] * f
        U = np.zeros_like(F)
        U[self._free] = lu.solve(np.ascontiguousarray(F[self._free]))
        out = np.stack([U[nd[0]].T, U[nd[1]].T], axis=1)  # (k, 2, n_nodes)
        return out[0] if np.ndim(radial_forces) == 1 else out

    def radial(self, u: np.ndarray) -> np.ndarray:
        """Outward radial displacement of the contact nodes from a field (2, n_nodes) or (k, 2, n_nodes)."""
        return (u[..., 0, self.nodes] * np.cos(self.theta) + u[..., 1, self.nodes] * np.sin(self.theta))

    def mode1_free(self, f: np.ndarray) -> np.ndarray:
        """Remove Fourier mode 1 from nodal values (axis 0)."""
        c, s = np.cos(self.theta), np.sin(self.theta)
        n = self.n
        return f - (2.0 / n) * (np.outer(c, c @ f) + np.outer(s, s @ f)) if f.ndim == 2 else \
            f - (2.0 / n) * (c * (c @ f) + s * (s @ f))

    def compute_compliance(self, *, use_symmetry: bool = True) -> tuple[np.ndarray, int]:
        """Condensed normal compliance (n, n) [m^2/N] and the number of unit-load solves used.

        ``use_symmetry=False`` does one unit-load solve per node (the reference path).
        """
        n = self.n
        m = rotation_order(self.mesh, n) if use_symmetry else 1
        q = n // m
        loads = np.zeros((n, q))
        loads[np.arange(q), np.arange(q)] = 1.0
        if self.kind == "pin":
            loads = self.mode1_free(loads)
        cols = self.radial(self.displacement(loads)).T  # (n, q)
        C = np.empty((n, n))
        for s in range(m):
            C[:, s * q:(s + 1) * q] = np.roll(cols, s * q, axis=0)
        if self.kind == "pin":
            C = self.mode1_free(self.mode1_free(C).T).T
        C = 0.5 * (C + C.T)
        return C, q

    def cache_key(self) -> str:
        h = hashlib.sha256(f"{CACHE_VERSION}|{self.kind}|{mesh_hash(self.mesh)}|"
                           f"{self.material.E!r}|{self.material.nu!r}".encode())
        return h.hexdigest()[:24]

    def compliance(self, *, use_cache: bool = True) -> np.ndarray:
        """The condensed compliance, from the disk cache when present."""
        path = cache_dir() / f"compliance-{self.kind}-{self.cache_key()}.npy"
        if use_cache and path.exists():
            try:
                return np.load(path)
            except (OSError, ValueError):
                pass  # a broken cache file is rebuilt
        C, _ = self.compute_compliance()
        if use_cache:
            # unique per process and thread (sweep workers share the cache), renamed into place
            # atomically: a reader sees either no file or a complete one
            tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp.npy")
            np.save(tmp, C)
            os.replace(tmp, path)
        return C
