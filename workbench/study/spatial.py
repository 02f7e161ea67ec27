"""The study-file tables of a spatial mechanism (``[mechanism] dimension = 3``) and their parser.

Same machinery as the planar tables (:mod:`workbench.schema.core`: unknown keys with a
did-you-mean, required keys, types, bounds; every problem collected), same key paths in the
messages.  The 3-D checks a schema type cannot express (a non-unit quaternion, an inertia tensor
that is singular or not positive definite, an axis of zero length, a universal joint whose axes
are parallel) are :meth:`workbench.spatial.SpatialMechanism.problems`, reported under the key of
the offending value.  Builds a :class:`~workbench.spatial.SpatialMechanism`.
"""
from __future__ import annotations

import math

from ..errors import choices_text, did_you_mean
from ..models import Material
from ..schema.core import BAD, Key, Problems, Section, has_bad, read_table
from ..spatial.clearance import CLEARANCE_TYPES, ClearanceJoint
from ..spatial.mechanism import (JOINT_TYPES, AppliedForce, AppliedTorque, Body, Driver, DriverFunction,
                                 Joint, SpatialMechanism, SpringDamper)

DIMENSION = Key("dimension", "int", "", "2: a planar mechanism (the tables above); 3: a spatial one "
                "(the `[mechanism] dimension = 3` tables)", 2, choices=(2, 3))

MECHANISM = Section("mechanism (dimension = 3)", "A spatial mechanism; the fixed frame is the body "
                    "`ground` (identity orientation).  Vectors are `[x, y, z]`.", (
    DIMENSION,
    Key("gravity", "numbers", "m/s^2", "gravitational acceleration vector [x, y, z]", (0.0, 0.0, 0.0)),
    Key("ground_points", "table", "m", "named points of the ground, e.g. `{O = [0.0, 0.0, 0.0]}`", {}),
    Key("bodies", "tables", "", "moving rigid bodies (array of tables)"),
    Key("joints", "tables", "", "ideal joints", []),
    Key("drivers", "tables", "", "prescribed joint motions", []),
    Key("forces", "tables", "", "force elements", []),
    Key("clearance_joints", "tables", "", "clearance joints (ball in socket, journal in bore) whose force "
        "comes from the contact and friction models", []),
))

BODY = Section("mechanism.bodies[] (dimension = 3)", "A rigid body; points are relative to its "
               "centre of mass, in body axes.", (
    Key("name", "text", "", "unique name (not `ground`)"),
    Key("mass", "number", "kg", "mass", gt=0.0),
    Key("inertia", "any", "kg m^2", "inertia tensor about the centre of mass in body axes: 3 principal "
        "moments `[Jxx, Jyy, Jzz]` or a symmetric positive definite 3 x 3 matrix"),
    Key("position", "numbers", "m", "initial centre-of-mass position (world)", (0.0, 0.0, 0.0)),
    Key("quaternion", "numbers", "1", "initial orientation, Euler parameters `[e0, e1, e2, e3]` of unit "
        "norm (body to world)", (1.0, 0.0, 0.0, 0.0)),
    Key("velocity", "numbers", "m/s", "initial centre-of-mass velocity (world; projected onto the "
        "constraints at assembly)", (0.0, 0.0, 0.0)),
    Key("angular_velocity", "numbers", "rad/s", "initial angular velocity (world)", (0.0, 0.0, 0.0)),
    Key("points", "table", "m", "named points in body coordinates, e.g. `{A = [-0.5, 0.0, 0.0]}`", {}),
    Key("box", "numbers", "m", "edge lengths `[lx, ly, lz]` of the box drawn for the body (VTU export)", None,
        gt=0.0),
))

JOINT = Section("mechanism.joints[] (dimension = 3)", "An ideal spatial joint "
                "(:class:`workbench.spatial.Joint`): `spherical`, `revolute`, `cylindrical`, `prismatic`, "
                "`universal` or `fixed`; with `friction` (cylindrical, revolute, universal) the friction "
                "from the reactions of Qi, Luo & Huang (2009).", (
    Key("name", "text", "", "unique name"),
    Key("type", "text", "", "joint type", choices=tuple(JOINT_TYPES)),
    Key("body_i", "text", "", "first body (or `ground`)"),
    Key("point_i", "text", "", "point of `body_i`"),
    Key("body_j", "text", "", "second body (or `ground`)"),
    Key("point_j", "text", "", "point of `body_j`"),
    Key("axis_i", "numbers", "1", "joint axis in `body_i` coordinates (revolute, cylindrical, "
        "prismatic; a universal joint's cross axis on body i)", None),
    Key("axis_j", "numbers", "1", "the axis in `body_j` coordinates (default: the same direction in "
        "the initial configuration; required for a universal joint: its cross axis on body j)", None),
    Key("reference_i", "numbers", "1", "direction (body i, across the axis) from which the joint angle "
        "is measured (default: built from the coordinate axis least aligned with the axis)", None),
    Key("friction", "table", "", "friction law `{model = \"<name>\", ...}` (memoryless: coulomb, "
        "ambrosio, bai_zhao; `coulomb_set_valued`: stick and slip event to event, per journal on a "
        "universal joint, `workbench.spatial.stick`; `lugre`: its bristle deflections integrated with the "
        "dynamics, per journal on a universal joint, `workbench.spatial.bristles`); omit for a "
        "frictionless joint", None),
    Key("radius", "number", "m", "journal radius R (the friction radius); with `friction`", 0.0, min=0.0),
    Key("length", "number", "m", "distance 2c of the sleeve's end faces; with `friction`", 0.0, min=0.0),
    Key("radius_j", "number", "m", "universal joint: radius of the journal on `axis_j`", 0.0, min=0.0),
    Key("length_j", "number", "m", "universal joint: end-face distance of the journal on `axis_j`", 0.0, min=0.0),
    Key("sleeve", "text", "", "the body carrying the sleeve (its end faces), centred at its joint point",
        "i", choices=("i", "j")),
))

CLEARANCE = Section("mechanism.clearance_joints[] (dimension = 3)", "A spatial clearance joint "
                    "(:class:`workbench.spatial.clearance.ClearanceJoint`): `spherical` (ball in socket), "
                    "`cylindrical` (journal in a bore, free axial sliding, two rims) or `revolute` (the "
                    "cylindrical one with axial clearance against two shoulders and an optional "
                    "misalignment `tilt`; Marques, Isaac, Dourado & Flores (2017)).", (
    Key("name", "text", "", "unique name (among all joints)"),
    Key("type", "text", "", "clearance joint type", choices=CLEARANCE_TYPES),
    Key("body_i", "text", "", "socket / bushing body (or `ground`)"),
    Key("point_i", "text", "", "centre of the socket / bushing (point of `body_i`)"),
    Key("body_j", "text", "", "ball / journal body"),
    Key("point_j", "text", "", "centre of the ball / the journal's mid-length (point of `body_j`)"),
    Key("radius_i", "number", "m", "socket / bore radius", gt=0.0),
    Key("radius_j", "number", "m", "ball / journal radius; the radial clearance is radius_i - radius_j",
        gt=0.0),
    Key("contact", "table", "", "contact law `{model = \"<name>\", ...}` (a point law: the rims and the ball "
        "are point contacts)"),
    Key("friction", "table", "", "friction law in the tangent plane `{model = \"<name>\", ...}` (memoryless: "
        "coulomb, ambrosio, bai_zhao); omit for none", None),
    Key("axis_i", "numbers", "1", "bushing axis in `body_i` coordinates (revolute, cylindrical)", None),
    Key("axis_j", "numbers", "1", "journal axis in `body_j` coordinates (default: `axis_i` carried by body j "
        "from the initial configuration)", None),
    Key("length", "number", "m", "journal length between its two rims (revolute, cylindrical)", 0.0, min=0.0),
    Key("axial_clearance", "number", "m", "axial clearance on each side against the shoulders (revolute)",
        0.0, min=0.0),
    Key("tilt", "number", "rad", "misalignment of the bushing axis (|tilt| <= 5 deg = 0.0873 rad)", 0.0),
    Key("tilt_axis", "numbers", "1", "axis (body i) of the misalignment (default: body i's x axis made "
        "perpendicular to `axis_i`)", None),
    Key("material_i", "table", "", "socket / bushing material `{E = <Pa>, nu = <1>}`", None),
    Key("material_j", "table", "", "ball / journal material `{E = <Pa>, nu = <1>}`", None),
))

DRIVER = Section("mechanism.drivers[] (dimension = 3)", "Prescribed motion of a joint: its angle or "
                 "its slide. Give exactly one of `speed`, `speed_rpm` or `function`.", (
    Key("name", "text", "", "unique name"),
    Key("joint", "text", "", "the driven joint"),
    Key("coordinate", "text", "", "what is driven", "angle", choices=("angle", "slide")),
    Key("initial", "number", "m or rad", "value at t = 0 (constant-speed drivers)", 0.0),
    Key("speed", "number", "m/s or rad/s", "constant speed", None),
    Key("speed_rpm", "number", "rev/min", "constant angular speed (angle only), converted to rad/s", None),
    Key("function", "table", "", "`{polynomial = [...], harmonics = [[A, w, phi], ...]}`", None),
))

_HEAD = (Key("name", "text", "", "unique name"),
         Key("type", "text", "", "force element type", choices=("spring_damper", "force", "torque")))
FORCE_TYPES = {
    "spring_damper": Section("mechanism.forces[] (dimension = 3, type = \"spring_damper\")",
                             "`F = stiffness (l - free_length) + damping dl/dt + force` along the line "
                             "(tension positive).", _HEAD + (
        Key("body_i", "text", "", "first body"), Key("point_i", "text", "", "point of `body_i`"),
        Key("body_j", "text", "", "second body"), Key("point_j", "text", "", "point of `body_j`"),
        Key("stiffness", "number", "N/m", "spring stiffness", 0.0, min=0.0),
        Key("damping", "number", "N s/m", "damping coefficient", 0.0, min=0.0),
        Key("free_length", "number", "m", "unstretched length", 0.0, min=0.0),
        Key("force", "number", "N", "constant actuator force", 0.0))),
    "force": Section("mechanism.forces[] (dimension = 3, type = \"force\")", "Constant force (world).", _HEAD + (
        Key("body", "text", "", "body the force acts on"),
        Key("force", "numbers", "N", "force vector [x, y, z], world frame"),
        Key("point", "text", "", "point of application (default: centre of mass)", None))),
    "torque": Section("mechanism.forces[] (dimension = 3, type = \"torque\")", "Constant torque (world).", _HEAD + (
        Key("body", "text", "", "body the torque acts on"),
        Key("torque", "numbers", "N m", "torque vector [x, y, z], world frame"))),
}

SECTIONS = (MECHANISM, BODY, JOINT, CLEARANCE, DRIVER) + tuple(FORCE_TYPES.values())

#: table path -> its section (the JSON Schema's tree of a spatial ``[mechanism]``)
TREE: dict = {
    "mechanism": MECHANISM,
    "mechanism.bodies[]": BODY,
    "mechanism.joints[]": JOINT,
    "mechanism.joints[].friction": ("model", "friction"),
    "mechanism.clearance_joints[]": CLEARANCE,
    "mechanism.clearance_joints[].contact": ("model", "contact"),
    "mechanism.clearance_joints[].friction": ("model", "friction"),
    "mechanism.drivers[]": DRIVER,
    "mechanism.forces[]": FORCE_TYPES,
}


def format_reference() -> str:
    """Markdown tables of the spatial sections (``docs/study_format.md``)."""
    from ..schema.docs import format_sections
    return format_sections(SECTIONS)


def is_spatial(table) -> bool:
    """True when a ``[mechanism]`` table says ``dimension = 3``."""
    return isinstance(table, dict) and table.get("dimension") == 3


def _vec(v, n, path, probs, what="numbers"):
    if v is None or v is BAD:
        return v
    if len(v) != n:
        probs.add(path, f"expected {n} {what}, got {list(v)!r}")
        return BAD
    return tuple(v)


def _points(table, path, probs) -> dict:
    if not isinstance(table, dict):
        probs.add(path, f"expected a table of named points, e.g. {{A = [0.0, 0.0, 0.0]}}, got {table!r}")
        return BAD
    out = {}
    for name, xyz in table.items():
        ok = (isinstance(xyz, (list, tuple)) and len(xyz) == 3 and all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(float(x)) for x in xyz))
        if not ok:
            probs.add(f"{path}.{name}", f"expected three finite numbers [x, y, z] [m], got {xyz!r}")
            out = BAD if out is BAD else out
            continue
        if out is not BAD:
            out[name] = tuple(float(x) for x in xyz)
    return out


def _inertia(v, path, probs):
    try:
        ok3 = (isinstance(v, (list, tuple)) and len(v) == 3 and
               all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v))
        ok33 = (isinstance(v, (list, tuple)) and len(v) == 3 and all(
            isinstance(r, (list, tuple)) and len(r) == 3 and
            all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in r) for r in v))
    except TypeError:
        ok3 = ok33 = False
    if ok3:
        return tuple(float(x) for x in v)
    if ok33:
        return tuple(tuple(float(x) for x in r) for r in v)
    probs.add(path, f"expected 3 principal moments [Jxx, Jyy, Jzz] or a 3 x 3 matrix [kg m^2], got {v!r}")
    return BAD


def _items(values, name, path):
    v = values.get(name)
    return [] if v is BAD or v is None else [(f"{path}.{name}[{i}]", t) for i, t in enumerate(v)]


def parse_mechanism(table, probs: Problems, registry, model_reader) -> SpatialMechanism | None:
    """The :class:`SpatialMechanism` of a ``[mechanism]`` table with ``dimension = 3`` (``None``
    when it has problems, all recorded in ``probs``).  ``model_reader(registry, family, table,
    path, probs)``: the loader's reader of a plugin model table."""
    m = read_table(table, MECHANISM, "mechanism", probs)
    if m is None:
        return None
    m["gravity"] = _vec(m["gravity"], 3, "mechanism.gravity", probs)
    m["ground_points"] = _points(m["ground_points"], "mechanism.ground_points", probs) \
        if m["ground_points"] is not BAD else BAD
    bodies = []
    for path, t in _items(m, "bodies", "mechanism"):
        v = read_table(t, BODY, path, probs)
        if v is None:
            continue
        for k, n in (("position", 3), ("velocity", 3), ("angular_velocity", 3), ("quaternion", 4), ("box", 3)):
            v[k] = _vec(v[k], n, f"{path}.{k}", probs)
        if v["inertia"] is not BAD:
            v["inertia"] = _inertia(v["inertia"], f"{path}.inertia", probs)
        if v["points"] is not BAD:
            v["points"] = _points(v["points"], f"{path}.points", probs)
        box = v.pop("box")
        if not has_bad(v):
            bodies.append(Body(**v, shape=("box", box) if box not in (None, BAD) else None))
    joints = []
    for path, t in _items(m, "joints", "mechanism"):
        v = read_table(t, JOINT, path, probs)
        if v is None:
            continue
        for k in ("axis_i", "axis_j", "reference_i"):
            v[k] = _vec(v[k], 3, f"{path}.{k}", probs)
        if v["friction"] not in (None, BAD):
            v["friction"] = model_reader(registry, "friction", v["friction"], f"{path}.friction", probs)
        if not has_bad(v):
            joints.append(Joint(**v))
    clearance = [c for path, t in _items(m, "clearance_joints", "mechanism")
                 if (c := _clearance(t, path, probs, registry, model_reader)) is not None]
    drivers = []
    for path, t in _items(m, "drivers", "mechanism"):
        v = read_table(t, DRIVER, path, probs)
        if has_bad(v):
            continue
        given = [k for k in ("speed", "speed_rpm", "function") if v[k] is not None]
        if len(given) != 1:
            probs.add(path, f"give exactly one of 'speed' [m/s or rad/s], 'speed_rpm' [rev/min] or "
                            f"'function'; got {', '.join(repr(g) for g in given) or 'none'}")
            continue
        if v["speed_rpm"] is not None and v["coordinate"] != "angle":
            probs.add(f"{path}.speed_rpm", "'speed_rpm' is for angle drivers; use 'speed' [m/s]")
            continue
        if v["function"] is not None:
            from .schema import DRIVER_FUNCTION
            f = read_table(v["function"], DRIVER_FUNCTION, f"{path}.function", probs)
            if has_bad(f):
                continue
            func = DriverFunction(polynomial=f["polynomial"], harmonics=f["harmonics"])
        else:
            speed = v["speed"] if v["speed"] is not None else v["speed_rpm"] * 2.0 * math.pi / 60.0
            func = DriverFunction(polynomial=(v["initial"], speed))
        drivers.append(Driver(v["name"], v["joint"], func, v["coordinate"]))
    springs, forces, torques = [], [], []
    for path, t in _items(m, "forces", "mechanism"):
        typ = t.get("type") if isinstance(t, dict) else None
        if typ not in FORCE_TYPES:
            probs.add(f"{path}.type", f"'{typ}' is not valid.{did_you_mean(str(typ), FORCE_TYPES)} "
                                      f"Valid choices: {choices_text(FORCE_TYPES)}")
            continue
        v = read_table(t, FORCE_TYPES[typ], path, probs)
        if v is None:
            continue
        v.pop("type")
        if typ == "force":
            v["force"] = _vec(v["force"], 3, f"{path}.force", probs)
        if typ == "torque":
            v["torque"] = _vec(v["torque"], 3, f"{path}.torque", probs)
        if has_bad(v):
            continue
        {"spring_damper": (springs, SpringDamper), "force": (forces, AppliedForce),
         "torque": (torques, AppliedTorque)}[typ][0].append(
            {"spring_damper": SpringDamper, "force": AppliedForce, "torque": AppliedTorque}[typ](**v))
    if m["bodies"] is not BAD and not m["bodies"]:
        probs.add("mechanism.bodies", "the mechanism needs at least one moving body ([[mechanism.bodies]])")
    if has_bad(m) or probs.items:
        return None
    mech = SpatialMechanism(tuple(bodies), tuple(joints), tuple(drivers), tuple(springs), tuple(forces),
                            tuple(torques), gravity=m["gravity"], ground_points=dict(m["ground_points"]),
                            spatial_clearance_joints=tuple(clearance))
    for key, msg in mech.problems():
        probs.add(key, msg)
    return None if probs.items else mech


def _clearance(t, path, probs, registry, model_reader):
    """A :class:`ClearanceJoint` from its table (``None`` when it has problems, all recorded)."""
    from .schema import MATERIAL
    v = read_table(t, CLEARANCE, path, probs)
    if v is None:
        return None
    for k in ("axis_i", "axis_j", "tilt_axis"):
        v[k] = _vec(v[k], 3, f"{path}.{k}", probs)
    if v["contact"] is not BAD:
        v["contact"] = model_reader(registry, "contact", v["contact"], f"{path}.contact", probs)
    if v["friction"] not in (None, BAD):
        v["friction"] = model_reader(registry, "friction", v["friction"], f"{path}.friction", probs)
    for k in ("material_i", "material_j"):
        if v[k] is None:
            v.pop(k)
        elif v[k] is not BAD:
            vals = read_table(v[k], MATERIAL, f"{path}.{k}", probs)
            v[k] = BAD if has_bad(vals) else Material(**vals)
    if has_bad(v):
        return None
    return ClearanceJoint(**v)
