"""A spatial (3-D) mechanism as data.

Bodies, joints, drivers and force elements are frozen dataclasses that refer to each other by
name, with points and axes in body coordinates (relative to the centre of mass, [m]); the body
named ``ground`` always exists, is fixed at the origin with the identity orientation and carries
its own named points.  Orientations are Euler parameters (unit quaternions, scalar first).
:meth:`SpatialMechanism.problems` reports every problem at once as ``(key, message)`` pairs
(the key path of the study file); :meth:`SpatialMechanism.validate` raises them together.
Compiling to arrays is :func:`workbench.spatial.model.compile_mechanism`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import MechanismError, choices_text
from ..mbs.mechanism import SpringDamper as _PlanarSpringDamper
from ..models import FrictionLaw
from .clearance.joints import problems as clearance_problems
from .rotation import UNIT_TOLERANCE

GROUND = "ground"
Vec3 = tuple[float, float, float]
#: shortest axis vector accepted [1]
MIN_AXIS_LENGTH = 1e-6
#: the joint types and the number of constraint equations of each
JOINT_TYPES = {"spherical": 3, "revolute": 5, "cylindrical": 4, "prismatic": 5, "universal": 4, "fixed": 6}
#: joint types that take an axis (the universal joint takes one per body: its cross axes)
AXIS_JOINTS = ("revolute", "cylindrical", "prismatic", "universal")
#: joint types with friction from the reactions (Qi, Luo & Huang (2009))
FRICTION_JOINTS = ("cylindrical", "revolute", "universal")
#: |cos| of the angle between a universal joint's axes above which they count as parallel
PARALLEL_COS = 1.0 - 1e-6


@dataclass(frozen=True)
class Body:
    """A rigid body.

    Parameters
    ----------
    name : unique name.
    mass : mass [kg].
    inertia : inertia tensor about the centre of mass in body axes [kg m^2], 3 x 3 symmetric
        positive definite (a 3-vector is its diagonal).
    position : initial centre-of-mass position [m], world frame.
    quaternion : initial orientation, Euler parameters ``(e0, e1, e2, e3)`` [1] of unit norm.
    velocity : initial centre-of-mass velocity [m/s], world frame (projected onto the
        constraints at assembly).
    angular_velocity : initial angular velocity [rad/s], world frame.
    points : named points in body coordinates, relative to the centre of mass [m].
    shape : ``("box", (lx, ly, lz))`` [m] for the VTU export (optional).
    """
    name: str
    mass: float
    inertia: tuple
    position: Vec3 = (0.0, 0.0, 0.0)
    quaternion: tuple = (1.0, 0.0, 0.0, 0.0)
    velocity: Vec3 = (0.0, 0.0, 0.0)
    angular_velocity: Vec3 = (0.0, 0.0, 0.0)
    points: dict = field(default_factory=dict)
    shape: tuple | None = None

    def inertia_matrix(self) -> np.ndarray:
        J = np.asarray(self.inertia, float)
        return np.diag(J) if J.shape == (3,) else J


@dataclass(frozen=True)
class Joint:
    """An ideal spatial joint between ``point_i`` of ``body_i`` and ``point_j`` of ``body_j``.

    ``type``: ``spherical`` (the points coincide), ``revolute`` (and the axes stay aligned),
    ``cylindrical`` (``point_j`` on the axis line through ``point_i``; axes aligned),
    ``prismatic`` (cylindrical without the rotation about the axis), ``universal`` (points
    coincide; ``axis_i`` on body i stays perpendicular to ``axis_j`` on body j: the cross axes of a
    Hooke joint), ``fixed`` (no relative motion).

    ``axis_i`` [1] (body-i coordinates) is the joint axis; ``axis_j`` (body-j coordinates) defaults
    to the same direction in the initial configuration (revolute, cylindrical, prismatic) and is
    required for a universal joint.  The angle of the joint is measured from the reference
    direction ``reference_i`` (perpendicular to the axis, body i; default: built from the
    coordinate axis least aligned with it) to the same direction carried by body j from the
    initial configuration; the slide of the joint is ``axis . (P_j - P_i)``.

    Friction from the reactions (Qi, Luo & Huang (2009); :mod:`workbench.spatial.joint_friction`):
    ``friction`` (a memoryless regularised :class:`~workbench.models.FrictionLaw`), ``radius`` R [m]
    of the journal (the friction radius), ``length`` 2c [m] between the two end faces of the
    sleeve, which is centred at the joint point of ``sleeve`` (``"i"`` or ``"j"``).  A universal
    joint uses ``radius``/``length`` for the journal on ``axis_i`` and ``radius_j``/``length_j``
    for the one on ``axis_j`` (their eqs. 54-58).
    """
    name: str
    type: str
    body_i: str
    point_i: str
    body_j: str
    point_j: str
    axis_i: Vec3 | None = None
    axis_j: Vec3 | None = None
    reference_i: Vec3 | None = None
    friction: FrictionLaw | None = None
    radius: float = 0.0
    length: float = 0.0
    radius_j: float = 0.0
    length_j: float = 0.0
    sleeve: str = "i"


@dataclass(frozen=True)
class DriverFunction:
    """``f(t) = sum_k a_k t^k + sum_m A_m sin(w_m t + phi_m)``: ``polynomial`` [unit/s^k],
    ``harmonics`` triples ``(A_m [unit], w_m [rad/s], phi_m [rad])``."""
    polynomial: tuple = (0.0,)
    harmonics: tuple = ()

    def __call__(self, t: float, derivative: int = 0) -> float:
        v = 0.0
        for k, a in enumerate(self.polynomial):
            if k >= derivative:
                v += a * math.prod(range(k - derivative + 1, k + 1)) * t ** (k - derivative)
        for A, w, ph in self.harmonics:
            x = w * t + ph
            v += A * w ** derivative * (math.sin(x), math.cos(x), -math.sin(x))[derivative]
        return v


@dataclass(frozen=True)
class Driver:
    """Prescribed motion of a joint: its angle (``coordinate = "angle"`` [rad]; revolute or
    cylindrical) or its slide (``"slide"`` [m]; prismatic or cylindrical) equals ``function(t)``.
    Its load (the generalised force the driver applies to body j of the joint, [N m] or [N]) is
    the dataset's ``driver_load``."""
    name: str
    joint: str
    function: DriverFunction
    coordinate: str = "angle"


#: Translational spring-damper-actuator between two named points: the planar mechanism's own
#: (``F = stiffness (l - free_length) + damping l_dot + force`` along the line, tension positive)
SpringDamper = _PlanarSpringDamper


@dataclass(frozen=True)
class AppliedForce:
    """Constant force ``force`` [N] (world frame) at ``point`` of ``body`` (default: the centre
    of mass)."""
    name: str
    body: str
    force: Vec3
    point: str | None = None


@dataclass(frozen=True)
class AppliedTorque:
    """Constant torque ``torque`` [N m] (world frame) on ``body``."""
    name: str
    body: str
    torque: Vec3


@dataclass(frozen=True)
class SpatialMechanism:
    """Bodies, ideal joints, drivers and forces in 3-D; ``gravity`` [m/s^2] (world frame),
    ``ground_points`` named points of the ground [m]."""
    bodies: tuple
    joints: tuple = ()
    drivers: tuple = ()
    spring_dampers: tuple = ()
    forces: tuple = ()
    torques: tuple = ()
    gravity: Vec3 = (0.0, 0.0, 0.0)
    ground_points: dict = field(default_factory=dict)
    #: a spatial mechanism (the planar engines run ``dimension == 2``)
    dimension: int = 3

    #: the spatial clearance joints (:class:`workbench.spatial.clearance.ClearanceJoint`)
    spatial_clearance_joints: tuple = ()

    # the attributes the engine-neutral checks read (the planar clearance joints: none in 3-D)
    beams: tuple = ()
    clearance_joints: tuple = ()

    def body(self, name: str) -> Body | None:
        return next((b for b in self.bodies if b.name == name), None)

    def points_of(self, name: str) -> dict | None:
        if name == GROUND:
            return self.ground_points
        b = self.body(name)
        return None if b is None else b.points

    def first_angle_driver(self):
        """The first driver of a joint angle, or ``None`` (``[solver] revolutions``)."""
        return next((d for d in self.drivers if d.coordinate == "angle"), None)

    def problems(self) -> list[tuple[str, str]]:
        """Every problem of the mechanism at once, as ``(key, message)``."""
        out = []
        names = [b.name for b in self.bodies]
        if not self.bodies:
            out.append(("mechanism.bodies", "a spatial mechanism needs at least one moving body"))
        for k, b in enumerate(self.bodies):
            key = f"mechanism.bodies[{k}]"
            if b.name == GROUND or names.count(b.name) > 1:
                out.append((f"{key}.name", f"body name '{b.name}' is {'reserved' if b.name == GROUND else 'used twice'}"))
            if not (math.isfinite(b.mass) and b.mass > 0):
                out.append((f"{key}.mass", f"body '{b.name}': mass {b.mass!r} must be a positive number [kg]"))
            out += _inertia_problems(b, f"{key}.inertia")
            q = np.asarray(b.quaternion, float)
            if q.shape != (4,) or not np.all(np.isfinite(q)):
                out.append((f"{key}.quaternion", f"body '{b.name}': quaternion {list(b.quaternion)!r} must be "
                                                 f"4 finite numbers (e0, e1, e2, e3)"))
            elif abs(float(np.linalg.norm(q)) - 1.0) > UNIT_TOLERANCE:
                out.append((f"{key}.quaternion", f"body '{b.name}': quaternion {list(b.quaternion)!r} has norm "
                                                 f"{float(np.linalg.norm(q)):.9g}; Euler parameters must have "
                                                 f"unit norm (within {UNIT_TOLERANCE:g}). Valid: e.g. "
                                                 f"{[round(float(x), 9) for x in q / np.linalg.norm(q)]}"
                            if np.linalg.norm(q) > 0 else f"body '{b.name}': quaternion is zero"))
        jnames = [j.name for j in self.joints]
        for k, j in enumerate(self.joints):
            key = f"mechanism.joints[{k}]"
            if jnames.count(j.name) > 1:
                out.append((f"{key}.name", f"joint name '{j.name}' is used twice"))
            if j.type not in JOINT_TYPES:
                out.append((f"{key}.type", f"joint '{j.name}': type '{j.type}' is not a spatial joint. "
                                           f"Valid: {choices_text(JOINT_TYPES)}"))
                continue
            for side in ("i", "j"):
                bn, pn = getattr(j, f"body_{side}"), getattr(j, f"point_{side}")
                pts = self.points_of(bn)
                if pts is None:
                    out.append((f"{key}.body_{side}", f"joint '{j.name}': unknown body '{bn}'. Valid: "
                                                      f"{choices_text([GROUND] + names)}"))
                elif pn not in pts:
                    out.append((f"{key}.point_{side}", f"joint '{j.name}': body '{bn}' has no point '{pn}'. "
                                                       f"Valid: {choices_text(pts)}"))
            if j.body_i == j.body_j:
                out.append((f"{key}.body_j", f"joint '{j.name}' joins body '{j.body_i}' to itself"))
            if j.type in AXIS_JOINTS:
                ai = _axis(j.axis_i)
                if j.axis_i is None or ai is None:
                    out.append((f"{key}.axis_i", f"joint '{j.name}' ({j.type}): axis_i {_show(j.axis_i)} must be a "
                                                 f"3-vector of length >= {MIN_AXIS_LENGTH:g}"))
                if j.type == "universal" or j.axis_j is not None:
                    aj = _axis(j.axis_j)
                    if aj is None:
                        out.append((f"{key}.axis_j", f"joint '{j.name}' ({j.type}): axis_j {_show(j.axis_j)} must be "
                                                     f"a 3-vector of length >= {MIN_AXIS_LENGTH:g}"))
                    elif j.type == "universal" and ai is not None:
                        out += self._universal_problems(j, key, ai, aj)
            if j.reference_i is not None and _axis(j.reference_i) is None:
                out.append((f"{key}.reference_i", f"joint '{j.name}': reference_i {_show(j.reference_i)} must be a "
                                                  f"3-vector of length >= {MIN_AXIS_LENGTH:g}"))
            if j.friction is not None:
                out += _friction_problems(j, key)
        all_names = jnames + [c.name for c in self.spatial_clearance_joints]
        for k, c in enumerate(self.spatial_clearance_joints):
            out += clearance_problems(c, f"mechanism.clearance_joints[{k}]", self.points_of, all_names)
        sv = [j.name for j in self.joints if getattr(type(j.friction), "set_valued", False)]
        if sv and self.spatial_clearance_joints:
            out.append(("mechanism.clearance_joints", f"the joints {choices_text(sv)} carry set-valued friction, "
                                                      f"run event to event (workbench.spatial.stick), which has no "
                                                      f"clearance joints; valid: no clearance joints in this "
                                                      f"mechanism, or a regularised law (coulomb, ambrosio, bai_zhao)"))
        stateful = [j.name for j in self.joints if getattr(type(j.friction), "n_states", 0) != 0]
        if stateful and self.spatial_clearance_joints:
            out.append(("mechanism.clearance_joints", f"the joints {choices_text(stateful)} carry friction with "
                                                      f"internal states (LuGre bristles, workbench.spatial.bristles), "
                                                      f"whose run has no clearance joints; valid: no clearance joints "
                                                      f"in this mechanism, or a memoryless law (coulomb, ambrosio, "
                                                      f"bai_zhao)"))
        if stateful and sv:
            out.append(("mechanism.joints", f"the joints {choices_text(sv)} carry set-valued friction (run event to "
                                            f"event) and {choices_text(stateful)} friction with internal states (run "
                                            f"with bristle states): one mechanism takes one of the two; valid: "
                                            f"coulomb_set_valued or lugre on all of them, or a memoryless law"))
        for k, d in enumerate(self.drivers):
            key = f"mechanism.drivers[{k}]"
            j = next((x for x in self.joints if x.name == d.joint), None)
            if j is None:
                out.append((f"{key}.joint", f"driver '{d.name}': unknown joint '{d.joint}'. Valid: {choices_text(jnames)}"))
                continue
            ok = {"angle": ("revolute", "cylindrical"), "slide": ("prismatic", "cylindrical")}
            if d.coordinate not in ok:
                out.append((f"{key}.coordinate", f"driver '{d.name}': coordinate '{d.coordinate}'. Valid: "
                                                 f"{choices_text(ok)}"))
            elif j.type not in ok[d.coordinate]:
                out.append((f"{key}.coordinate", f"driver '{d.name}': a {j.type} joint has no '{d.coordinate}' "
                                                 f"to drive. Valid joint types: {choices_text(ok[d.coordinate])}"))
        for group, items in (("spring_dampers", self.spring_dampers), ("forces", self.forces),
                             ("torques", self.torques)):
            for k, e in enumerate(items):
                for side in ("i", "j", ""):
                    bn = getattr(e, f"body_{side}" if side else "body", None)
                    if bn is None:
                        continue
                    pn = getattr(e, f"point_{side}" if side else "point", None)
                    pts = self.points_of(bn)
                    if pts is None:
                        out.append((f"mechanism.{group}[{k}].body{'_' + side if side else ''}",
                                    f"{e.name}: unknown body '{bn}'. Valid: {choices_text([GROUND] + names)}"))
                    elif pn is not None and pn not in pts:
                        out.append((f"mechanism.{group}[{k}].point{'_' + side if side else ''}",
                                    f"{e.name}: body '{bn}' has no point '{pn}'. Valid: {choices_text(pts)}"))
        return out

    def _universal_problems(self, j, key, ai, aj):
        """The cross axes of a universal joint, in the world frame of the initial configuration,
        must not be parallel (then the joint locks nothing and the cross is undefined)."""
        from .rotation import rotation_matrix
        qi = (1.0, 0, 0, 0) if j.body_i == GROUND else getattr(self.body(j.body_i), "quaternion", None)
        qj = (1.0, 0, 0, 0) if j.body_j == GROUND else getattr(self.body(j.body_j), "quaternion", None)
        try:
            wi, wj = rotation_matrix(qi) @ ai, rotation_matrix(qj) @ aj
        except (TypeError, ValueError, ZeroDivisionError):
            return []
        c = float(np.dot(wi, wj))
        if abs(c) >= PARALLEL_COS:
            return [(f"{key}.axis_j", f"universal joint '{j.name}': axis_i {_show(j.axis_i)} (body '{j.body_i}') "
                                      f"and axis_j {_show(j.axis_j)} (body '{j.body_j}') are parallel in the "
                                      f"initial configuration; a universal joint needs two perpendicular "
                                      f"cross axes (valid: axis_j perpendicular to axis_i)")]
        return []

    def validate(self) -> "SpatialMechanism":
        """Raise :class:`~workbench.errors.MechanismError` listing every problem; return the
        mechanism itself when it has none."""
        probs = self.problems()
        if probs:
            raise MechanismError("the spatial mechanism has problems:\n  - "
                                 + "\n  - ".join(f"[{k}] {m}" for k, m in probs))
        return self


def _show(v) -> str:
    try:
        return repr([float(x) for x in v])
    except (TypeError, ValueError):
        return repr(v)


def _axis(v):
    try:
        a = np.asarray(v, float)
    except (TypeError, ValueError):
        return None
    if a.shape != (3,) or not np.all(np.isfinite(a)) or np.linalg.norm(a) < MIN_AXIS_LENGTH:
        return None
    return a / np.linalg.norm(a)


def _inertia_problems(b: Body, key: str) -> list[tuple[str, str]]:
    try:
        J = b.inertia_matrix()
    except (TypeError, ValueError):
        J = None
    if J is None or J.shape != (3, 3) or not np.all(np.isfinite(J)):
        return [(key, f"body '{b.name}': inertia {b.inertia!r} must be a 3 x 3 matrix or the 3 principal "
                      f"moments [kg m^2]")]
    if not np.allclose(J, J.T, rtol=1e-12, atol=1e-15 * max(1.0, float(np.abs(J).max()))):
        return [(key, f"body '{b.name}': inertia tensor {J.tolist()!r} is not symmetric")]
    w = np.linalg.eigvalsh(J)
    if w[0] <= 1e-12 * max(float(w[-1]), 1e-300):
        return [(key, f"body '{b.name}': inertia tensor {J.tolist()!r} is singular or not positive definite "
                      f"(principal moments {[float(f'{x:.6g}') for x in w]} kg m^2); valid: every principal "
                      f"moment > 0")]
    if w[2] > w[0] + w[1] + 1e-9 * w[2]:
        return [(key, f"body '{b.name}': inertia tensor principal moments {[float(f'{x:.6g}') for x in w]} "
                      f"kg m^2 violate the triangle inequality (the largest must not exceed the sum of the "
                      f"other two); no rigid body has them")]
    return []


def _friction_problems(j: Joint, key: str) -> list[tuple[str, str]]:
    out = []
    if j.type not in FRICTION_JOINTS:
        out.append((f"{key}.friction", f"joint '{j.name}': friction from the reactions is modelled for "
                                       f"{choices_text(FRICTION_JOINTS)} joints, not '{j.type}'"))
        return out
    # every law runs on every friction joint: memoryless ones in the right-hand side, set-valued
    # stick and slip (per journal of a universal joint) in workbench.spatial.stick, internal states
    # (LuGre bristles, per journal of a universal joint) in workbench.spatial.bristles
    for attr in ("radius", "length") + (("radius_j", "length_j") if j.type == "universal" else ()):
        v = getattr(j, attr)
        if not (math.isfinite(v) and v > 0):
            out.append((f"{key}.{attr}", f"joint '{j.name}': {attr} {v!r} must be > 0 [m] for friction"))
    if j.sleeve not in ("i", "j"):
        out.append((f"{key}.sleeve", f"joint '{j.name}': sleeve '{j.sleeve}'. Valid: 'i', 'j'"))
    return out
