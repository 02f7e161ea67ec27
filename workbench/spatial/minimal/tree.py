"""What the minimal-coordinate path takes, and the mechanism as a tree of joints rooted at the ground.

:func:`problems` names everything the path refuses (as ``(key, message)``, the key path of the
study file); :func:`build` turns a mechanism it takes, with the absolute path's assembled initial
state, into :class:`Edge` records: per joint, the parent and child body, the joint axes in parent
coordinates and the constant offsets of the assembled start (every joint coordinate is 0 there).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import choices_text
from ..mechanism import GROUND

#: the joint types the minimal path takes, and their coordinates (angles [rad], slides [m])
DOF = {"revolute": ("angle",), "prismatic": ("slide",), "cylindrical": ("angle", "slide"),
       "universal": ("angle", "angle"), "fixed": ()}
#: what the absolute-coordinate path (the default) runs and this path does not
HINT = "valid: [solver] formulation = \"absolute\" (the default), which runs it"


def problems(mech) -> list[tuple[str, str]]:
    """Everything in ``mech`` the minimal path does not take, at once."""
    out = []
    for k, j in enumerate(mech.joints):
        key = f"mechanism.joints[{k}]"
        if j.type not in DOF:
            out.append((f"{key}.type", f"joint '{j.name}': the minimal-coordinate formulation takes "
                                       f"{choices_text(DOF)} joints, not '{j.type}'; {HINT}"))
        if j.friction is not None:
            out.append((f"{key}.friction", f"joint '{j.name}': friction from the joint reactions (Qi, Luo & "
                                           f"Huang (2009)) needs the reactions, which the minimal-coordinate "
                                           f"formulation does not compute; {HINT}"))
    for k, c in enumerate(getattr(mech, "spatial_clearance_joints", ())):
        out.append((f"mechanism.clearance_joints[{k}]", f"clearance joint '{c.name}': the minimal-coordinate "
                                                        f"formulation takes ideal joints only; {HINT}"))
    for k, d in enumerate(mech.drivers):
        out.append((f"mechanism.drivers[{k}]", f"driver '{d.name}': the minimal-coordinate formulation takes "
                                               f"no prescribed motion (free trees only); {HINT}"))
    out += _tree_problems(mech)
    return out


def _tree_problems(mech) -> list[tuple[str, str]]:
    """A closed loop (a joint between two bodies already connected) or a body not connected to the
    ground through joints."""
    out = []
    names = {b.name for b in mech.bodies}
    reached = {GROUND}
    pending = list(enumerate(mech.joints))
    used = set()
    grew = True
    while grew:
        grew = False
        for k, j in pending:
            if k in used or j.body_i not in names | {GROUND} or j.body_j not in names | {GROUND}:
                continue
            a, b = j.body_i in reached, j.body_j in reached
            if a and b:
                used.add(k)
                out.append((f"mechanism.joints[{k}]", f"joint '{j.name}' closes a loop (bodies '{j.body_i}' and "
                                                      f"'{j.body_j}' are already connected through other joints); the "
                                                      f"minimal-coordinate formulation takes trees of joints rooted "
                                                      f"at the ground (no closed loops); {HINT}"))
            elif a or b:
                used.add(k)
                reached.add(j.body_j if a else j.body_i)
                grew = True
    for k, b in enumerate(mech.bodies):
        if b.name not in reached:
            out.append((f"mechanism.bodies[{k}]", f"body '{b.name}' is not connected to the ground through "
                                                  f"joints; the minimal-coordinate formulation takes trees "
                                                  f"rooted at the ground; {HINT}"))
    return out


@dataclass(frozen=True)
class Edge:
    """One joint of the tree: ``parent`` and ``child`` body indices (``-1`` the ground), the joint
    type, the joint point on each (body coordinates [m]), ``axis1`` (parent coordinates [1]: the
    rotation or slide axis, a universal joint's parent-side cross axis), ``axis2`` (a universal
    joint's child-side cross axis in the coordinates of the frame after the first rotation, [1]),
    ``C0`` (the child's orientation relative to the parent at the start, after the joint's own
    rotations [1]) and ``d0`` (child joint point minus parent joint point at the start, parent
    coordinates [m])."""
    name: str
    type: str
    parent: int
    child: int
    s_parent: np.ndarray
    s_child: np.ndarray
    axis1: np.ndarray
    axis2: np.ndarray
    C0: np.ndarray
    d0: np.ndarray

    @property
    def coordinates(self) -> tuple:
        return DOF[self.type]


def build(model, R, A) -> list[Edge]:
    """The tree of :class:`~workbench.spatial.model.Model` ``model`` (a mechanism
    :func:`problems` takes) at the assembled start ``R`` (nb + 1, 3) [m], ``A`` (nb + 1, 3, 3) [1]
    (ground last), in order from the ground outwards."""
    reached = {-1}
    edges = []
    left = list(model.joints)
    while left:
        for cj in left:
            if cj.i in reached or cj.j in reached:
                break
        left.remove(cj)
        forward = cj.i in reached
        p, c = (cj.i, cj.j) if forward else (cj.j, cj.i)
        sp_, sc = (cj.s_i, cj.s_j) if forward else (cj.s_j, cj.s_i)
        fp, fc = (cj.frame_i, cj.frame_j) if forward else (cj.frame_j, cj.frame_i)
        Ap, Ac = A[p], A[c]
        Crel = Ap.T @ Ac
        d0 = Ap.T @ (R[c] + Ac @ sc - R[p] - Ap @ sp_)
        a1 = fp[2].copy()                       # the joint axis fixed in the parent
        a2 = np.zeros(3)
        C0 = Crel
        if cj.type == "universal":
            a2 = Crel @ fc[2]                   # the child's cross axis, parent coordinates at the start
        edges.append(Edge(cj.name, cj.type, p, c, np.asarray(sp_, float), np.asarray(sc, float), a1, a2, C0, d0))
        reached.add(c)
    return edges
