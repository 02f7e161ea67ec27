"""Mechanism -> arrays for the compiled kernels.

The tables below are the whole interface between the Python model (:mod:`.mechanism`) and the
numba code (:mod:`.equations`, :mod:`.integrator`).  Row layouts:

``cons_i`` (int, one row per constraint): ``[type, body_i, body_j, first_row]`` with type
``REV`` (2 rows), ``TRANS`` (2 rows), ``DRV_PHI``/``DRV_X``/``DRV_Y`` (1 row); body -1 = ground.
``cons_f`` (float): REV ``[s_ix, s_iy, s_jx, s_jy]``; TRANS ``[s_ix, s_iy, s_jx, s_jy, n_x', n_y',
phi0]`` (n' = axis normal in body-i frame); drivers ``[driver row in drv_f]``.
``drv_f``: ``[n_poly, a0..a5, n_harm, (A, w, phase) x 3]``.
``frc_i``: ``[type, body_i, body_j]`` with SPRING, FORCE, TORQUE; ``frc_f``: SPRING ``[s_ix, s_iy,
s_jx, s_jy, k, c, l0, f0]``, FORCE ``[s_x, s_y, f_x, f_y]``, TORQUE ``[T, c_rot]``.
``clr_i``: ``[type, body_i (bushing/guide), body_j (journal/slider), first_point, n_points]`` with
CL_REV, CL_TRANS; ``clr_f``: CL_REV ``[s_bx, s_by, s_jx, s_jy, R_b, R_j, M, max h_b, max h_j, ., ., .,
mu_max, h_b[0..M), h_j[0..M)]`` (``M`` worn-profile nodes, 0 = circular; wear depths [m] on body-fixed
nodes ``theta_k = 2 pi k / M`` of the bushing and the journal, see :mod:`.clearance`); CL_TRANS ``[s_gx, s_gy,
s_sx, s_sy, a_x', a_y' (guide frame), u_x', u_y' (slider frame), L, W, H, mu_max]``; ``mu_max``
(column ``CL_FRICTION_BOUND``) bounds the friction force, ``|f_t| <= mu_max f_n``
(:func:`friction_bound`).
Contact points (1 per revolute, 4 corners per translational clearance joint) each own one
friction state slot (LuGre) and one ``delta_dot_minus`` slot.
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np

from ..errors import MechanismError
from . import kernels
from .mechanism import (ConstantForce, ConstantTorque, Mechanism, RevoluteClearanceJoint,
                        RevoluteJoint, SpringDamper, TranslationalJoint, contact_geometry)

REV, TRANS, DRV_PHI, DRV_X, DRV_Y = 0, 1, 2, 3, 4
SPRING, FORCE, TORQUE = 0, 1, 2
CL_REV, CL_TRANS = 0, 1
REV_NODES, REV_HB_MAX, REV_HJ_MAX, REV_PROFILE = 6, 7, 8, 12
CL_FRICTION_BOUND = 11  # both kinds: largest friction coefficient of the joint's law (inf: unbounded)
#: CL_REV columns: 1.0 when the joint's contact law is distributed over the bore
#: (:mod:`workbench.mbs.distributed`; the law's kernel is then not called), and the lower bound of
#: the interpolated clearance increase [m] (:func:`workbench.mbs.distributed.clearance_floor`)
REV_DISTRIBUTED, REV_DIST_FLOOR = 9, 10
MAX_POLY, MAX_HARM = 6, 3


#: The arrays and kernels of one mechanism as the compiled functions take them (one argument,
#: a numba named tuple; see the module docstring for the layouts).  Besides the tables:
#: ``pt_joint``, the clearance joint of each contact point.
#: Joint friction (:mod:`.joint_friction`): ``jf_i``/``jf_f`` its tables (0 rows: none), ``jkern``
#: the friction laws' C functions, ``jpar`` their packed parameters, ``jinfo`` the loop statistics.
#: Lubricated revolute clearance joints (:mod:`workbench.lubrication`): ``lflag`` 1 per lubricated
#: joint, ``lkern`` the lubrication models' C functions, ``lpar`` their packed parameters.
#: ``dist``: True when a clearance joint has a distributed contact law.
#: A feature the mechanism does not have is None (``dist``; ``jf_i``, ``jf_f``, ``jkern``, ``jpar``;
#: ``lflag``, ``lkern``, ``lpar``): numba then prunes its branch before typing (an ``is None`` test
#: on an argument), so the compile leaves the feature's functions out (:func:`features`).
Model = namedtuple("Model", [
    "mass", "cons_i", "cons_f", "n_rows", "drv_f", "frc_i", "frc_f", "gravity", "clr_i", "clr_f",
    "pt_joint", "ckern", "fkern", "cpar", "fpar", "has_z",
    "jf_i", "jf_f", "jkern", "jpar", "jinfo",  # joint friction (owner: reactions)
    "lflag", "lkern", "lpar",  # lubrication
    "dist"])  # distributed contact


@dataclass
class CompiledModel:
    """Arrays and kernels of one mechanism (see the module docstring for the layouts)."""
    mechanism: Mechanism
    nb: int
    mass: np.ndarray
    cons_i: np.ndarray
    cons_f: np.ndarray
    n_rows: int
    drv_f: np.ndarray
    frc_i: np.ndarray
    frc_f: np.ndarray
    gravity: np.ndarray
    clr_i: np.ndarray
    clr_f: np.ndarray
    n_points: int
    contact_kernels: tuple
    friction_kernels: tuple
    contact_params: np.ndarray
    friction_params: np.ndarray
    has_friction_state: np.ndarray  # per clearance joint, 0/1
    driver_rows: np.ndarray  # constraint row of each driver
    joint_rows: np.ndarray  # first constraint row of each ideal joint
    #: ``(jf_i, jf_f, kernels, params)`` of :func:`.joint_friction.compile_tables` (None: none)
    joint_friction: tuple | None = None
    #: the loop statistics the right-hand side writes (:data:`.joint_friction.INFO_FIELDS`), then
    #: its scratch: one right-hand side at a time per compiled model (each run compiles its own)
    joint_friction_info: np.ndarray = field(default_factory=lambda: np.zeros(8))
    #: lubrication: 1 per lubricated clearance joint, the models' C functions and packed parameters
    lubricated: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int64))
    lubrication_kernels: tuple = ()
    lubrication_params: np.ndarray = field(default_factory=lambda: np.zeros((1, 1)))

    def model(self) -> Model:
        """The :data:`Model` the compiled functions take."""
        pt_joint = np.array([j for j, c in enumerate(self.clr_i) for _ in range(c[4])] or [0], np.int64)
        if self.n_points > len(pt_joint):   # the ideal joints' friction-state slots: never in contact
            pt_joint = np.concatenate([pt_joint, np.zeros(self.n_points - len(pt_joint), np.int64)])
        friction, lubricated, distributed = model_features(self)
        jf = (None, None, None, None)
        if friction:
            jf = self.joint_friction
            if jf is None:   # the merged type (model_features) of a mechanism without joint friction
                jf = (np.zeros((0, 4), np.int64), np.zeros((0, 2)), (), np.zeros((1, 1)))
            jf = (jf[0], jf[1], padded_kernels(jf[2], kernels.no_friction), jf[3])
        lub = (None, None, None)
        if lubricated:
            lub = (self.lubricated, padded_kernels(self.lubrication_kernels, kernels.no_lubrication),
                   self.lubrication_params)
        return Model(self.mass, self.cons_i, self.cons_f, self.n_rows, self.drv_f,
                     self.frc_i, self.frc_f, self.gravity, self.clr_i, self.clr_f, pt_joint,
                     padded_kernels(self.contact_kernels, kernels.no_contact),
                     padded_kernels(self.friction_kernels, kernels.no_friction), self.contact_params,
                     self.friction_params, self.has_friction_state, *jf, self.joint_friction_info,
                     *lub, True if distributed else None)


#: environment variable choosing the model types: ``"per_feature"`` (default: a mechanism's
#: compiled model leaves out the features it lacks, :func:`features`) or ``"merged"`` (every
#: mechanism gets one type with every feature on, the branches of the missing ones taken by none
#: of its joints: one compile serves every feature set -- what the test suite uses, which runs
#: every feature set and would otherwise compile the integrator once per set)
MODEL_TYPES_ENV = "WORKBENCH_MODEL_TYPES"


def model_features(cm: CompiledModel) -> tuple[bool, bool, bool]:
    """The features ``cm``'s :data:`Model` carries: :func:`features`, or all three with
    ``WORKBENCH_MODEL_TYPES=merged`` (:data:`MODEL_TYPES_ENV`).  Results are the same either way
    (a feature's branch does nothing for a mechanism without it); only what is compiled differs."""
    import os
    if os.environ.get(MODEL_TYPES_ENV, "per_feature") == "merged":
        return True, True, True
    return features(cm)


def features(cm: CompiledModel) -> tuple[bool, bool, bool]:
    """Which optional features compiled model ``cm`` uses: ``(joint friction, lubrication,
    distributed contact)``.  Each one it lacks is None in its :data:`Model`, and numba leaves the
    feature's functions out of the compile: a first run of a plain mechanism (the Flores
    slider-crank) compiles about a quarter less.  Each combination is one numba type of the model
    (one compile of the integrator); within one, joint counts share it (:data:`KERNEL_SLOTS`)."""
    friction = cm.joint_friction is not None and len(cm.joint_friction[0]) > 0
    lubricated = bool(np.any(cm.lubricated != 0))
    distributed = any(int(cm.clr_i[j, 0]) == CL_REV and cm.clr_f[j, REV_DISTRIBUTED] > 0.0
                      for j in range(len(cm.clr_i)))
    return friction, lubricated, distributed


#: The kernel tuples of a :data:`Model` (``ckern``, ``fkern``, ``jkern``, ``lkern``) hold this many
#: entries, or the next power of two above it for more joints, padded with the family's no-op
#: kernel (never called: the loops run over the joints' tables).  A numba tuple's length is part of
#: its type, so without the padding every new count of clearance joints or friction laws compiled
#: the integrator and everything taking the model again (about two minutes of CPU each).
KERNEL_SLOTS = 4


def padded_kernels(kernels_: tuple, filler) -> tuple:
    """``kernels_`` padded with ``filler()`` to :data:`KERNEL_SLOTS` entries, or the next power of two
    above that when there are more."""
    size = KERNEL_SLOTS
    while size < len(kernels_):
        size *= 2
    return tuple(kernels_) + (filler(),) * (size - len(kernels_))


def _rot(phi: float) -> np.ndarray:
    c, s = np.cos(phi), np.sin(phi)
    return np.array([[c, -s], [s, c]])


def _compiled_kernel(make, model, family: str, joint: str):
    """The solver-signature C function of ``model``'s kernel; a kernel numba cannot compile with
    that signature is an error naming the model and the joint."""
    try:
        return make(type(model).kernel)
    except Exception as exc:  # numba TypingError / LoweringError / anything the plugin raises
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise MechanismError(f"clearance joint '{joint}': the {family} model '{model.name}' has a kernel "
                             f"that does not compile with the solver's signature (it must return "
                             f"one float{'' if family == 'contact' else ' and set the state rate'}): "
                             f"{first}") from None


#: parameters that are friction coefficients [1] in the built-in laws' naming
_COEFFICIENT_NAMES = ("mu", "mu_s", "mu_d", "mu_c", "mu_k", "c_f")


def friction_bound(model) -> float:
    """Largest ``|f_t| / f_n`` [1] the friction law ``model`` can produce, inf when unknown.

    A law may state it with a ``max_coefficient()`` method; otherwise, for a memoryless law
    (``n_states == 0``, a Coulomb-type law ``f_t = -mu(v) f_n``), it is the largest of its
    friction-coefficient parameters (named ``mu*`` or ``c_f``, unit 1).  Laws with internal state
    (LuGre: bristle damping and viscous terms) are not bounded by a coefficient: inf.
    """
    if model is None:
        return 0.0
    own = getattr(model, "max_coefficient", None)
    if callable(own):
        return float(own())
    if getattr(type(model), "n_states", 0) != 0:
        return float("inf")
    values = [abs(float(getattr(model.params, p.name))) for p in type(model).parameters()
              if p.name in _COEFFICIENT_NAMES and isinstance(getattr(model.params, p.name, None), (int, float))]
    return max(values) if values else float("inf")


def _packed(values, model, family: str, joint: str) -> np.ndarray:
    p = np.asarray(values, float)
    if p.ndim != 1 or not np.all(np.isfinite(p)):
        raise MechanismError(f"clearance joint '{joint}': the {family} model '{model.name}' packed "
                             f"its parameters into {p.shape} {'non-finite ' if p.ndim == 1 else ''}"
                             f"values; pack() must return a 1-D array of finite floats")
    return p


def film_profile(bushing_wear, journal_wear) -> np.ndarray:
    """The bore profile [m] a lubrication model's ``pack_worn`` receives: the bushing's wear depth
    on its body-fixed nodes plus the journal's mean wear depth.  The gap is ``c + h_b(psi) +
    h_j(psi - phi_rel)`` (:mod:`workbench.wear.surfaces`); the journal's profile turns with the
    journal, which the film kernels do not follow, but its mean over the journal is a uniform
    clearance increase at every ``phi_rel``: the part of the journal's wear the film sees exactly.
    An unworn journal leaves the bushing's profile as it is (bit for bit)."""
    hb = np.asarray(bushing_wear, float)
    hj = np.asarray(journal_wear, float)
    m = float(hj.mean()) if hj.size else 0.0
    return hb + m if m != 0.0 else hb


def compile_mechanism(mech: Mechanism, *, angles: np.ndarray | None = None,
                      surfaces: dict | None = None, geometries: dict | None = None) -> CompiledModel:
    """Build the arrays of ``mech``.

    ``angles`` (body angles at assembly, [rad]) fix the reference relative angle of
    translational joints and the slider axis of translational clearance joints; default: the
    bodies' ``angle`` guesses.  ``surfaces`` maps a clearance-joint index to the wear depths
    ``(h_bushing, h_journal)`` [m] of a worn revolute joint on ``M`` body-fixed nodes each;
    ``geometries`` maps a clearance-joint index to the :class:`ContactGeometry` its contact law is
    packed with (default: the joint's nominal radii, :func:`.mechanism.contact_geometry`), e.g.
    the worn clearance.
    """
    mech.validate()
    bad = [j.name for j in (*mech.joints, *mech.clearance_joints)
           if getattr(type(getattr(j, "friction", None)), "set_valued", False)]
    if bad:
        raise MechanismError(f"joints {bad} carry set-valued Coulomb friction, which the compliant "
                             f"(regularised) solver cannot run; run the mechanism with "
                             f"workbench.engines.simulate, which picks the event_driven engine "
                             f"(a dynamics study does)")
    ang = np.array([b.angle for b in mech.bodies]) if angles is None else np.asarray(angles)
    nb = len(mech.bodies)
    mass = np.zeros(3 * nb)
    for i, b in enumerate(mech.bodies):
        mass[3 * i:3 * i + 3] = (b.mass, b.mass, b.inertia)
    cons_i, cons_f, joint_rows, row = _ideal_joints(mech, ang)
    drv_f, driver_rows, row = _drivers(mech, cons_i, cons_f, row)
    frc_i, frc_f = _force_elements(mech)
    clr = _clearance_joints(mech, ang, surfaces or {}, geometries or {})
    n_prof = clr["n_prof"]
    return CompiledModel(
        mechanism=mech, nb=nb, mass=mass,
        cons_i=_table(cons_i, 4, np.int64), cons_f=_table(cons_f, 8), n_rows=row,
        drv_f=_table(drv_f, 2 + MAX_POLY + 3 * MAX_HARM),
        frc_i=_table(frc_i, 3, np.int64), frc_f=_table(frc_f, 8),
        gravity=np.asarray(mech.gravity, float),
        clr_i=_table(clr["i"], 5, np.int64),
        # rows padded to the widest
        clr_f=_table([r + [0] * (max(map(len, clr["f"])) - len(r)) for r in clr["f"]],
                     max(map(len, clr["f"]), default=12 + 2 * n_prof)),
        # joint friction (owner: reactions): the LuGre states of ideal joints after the contact points
        n_points=clr["n_points"] + _joint_friction_states(mech),
        contact_kernels=tuple(clr["ck"]), friction_kernels=tuple(clr["fk"]),
        contact_params=kernels.pack_rows(clr["cp"]), friction_params=kernels.pack_rows(clr["fp"]),
        has_friction_state=np.array(clr["hs"] if clr["hs"] else [0], dtype=np.int64),
        driver_rows=np.array(driver_rows, dtype=np.int64),
        joint_rows=np.array(joint_rows, dtype=np.int64),
        lubricated=np.array(clr["lf"] or [0], dtype=np.int64),
        lubrication_kernels=tuple(clr["lk"]), lubrication_params=kernels.pack_rows(clr["lp"]),
        **_joint_friction(mech, 3 * nb, row, clr["n_points"]))  # joint friction (owner: reactions)


def _joint_friction_states(mech: Mechanism) -> int:
    """Friction-state slots of the ideal joints' laws (LuGre), after the clearance contact points."""
    from .joint_friction import n_friction_states
    return n_friction_states(mech)


def _joint_friction(mech: Mechanism, n: int, n_rows: int, first_state: int = 0) -> dict:
    """The :class:`CompiledModel` fields of joint friction: the tables of ``mech``
    (:func:`.joint_friction.compile_tables`; ``first_state`` the slot of the first joint state) and
    the statistics + scratch array; none when no ideal joint has friction (the right-hand side
    then runs exactly as without it)."""
    from .joint_friction import compile_tables, friction_joints, scratch_size
    nf = len(friction_joints(mech))
    if not nf:
        return {}
    return {"joint_friction": compile_tables(mech, list(range(len(mech.joints))), _compiled_kernel,
                                             _packed, friction_bound, first_state),
            "joint_friction_info": np.zeros(scratch_size(nf, n, max(n_rows, 1)))}


def _table(x, width, dtype=float) -> np.ndarray:
    """Rows ``x`` as a C-contiguous ``(len(x), width)`` array (``(0, width)`` when empty)."""
    if not x:
        return np.zeros((0, width), dtype)
    return np.ascontiguousarray(np.array(x, dtype=dtype).reshape(-1, width))


def _ang_of(ang, i) -> float:
    return 0.0 if i < 0 else ang[i]


def _ideal_joints(mech: Mechanism, ang):
    """``cons_i``/``cons_f`` rows of the ideal joints (2 constraint rows each), their first rows,
    and the next free row."""
    cons_i, cons_f, joint_rows = [], [], []
    row = 0
    for j in mech.joints:
        bi, bj = mech.body_index(j.body_i), mech.body_index(j.body_j)
        si, sj = mech.point(j.body_i, j.point_i), mech.point(j.body_j, j.point_j)
        joint_rows.append(row)
        if isinstance(j, RevoluteJoint):
            cons_i.append([REV, bi, bj, row]); cons_f.append([*si, *sj, 0, 0, 0, 0])
        elif isinstance(j, TranslationalJoint):
            a = np.asarray(j.axis, float)
            a = a / np.linalg.norm(a)
            n = np.array([-a[1], a[0]])
            cons_i.append([TRANS, bi, bj, row])
            cons_f.append([*si, *sj, *n, _ang_of(ang, bj) - _ang_of(ang, bi), 0])
        else:  # pragma: no cover - validated upstream
            raise MechanismError(f"unknown joint type {type(j).__name__}")
        row += 2
    return cons_i, cons_f, joint_rows, row


def driver_row(function) -> np.ndarray:
    """The ``drv_f`` row of a :class:`~.mechanism.DriverFunction` (polynomial and harmonics)."""
    f = function
    rowf = np.zeros(2 + MAX_POLY + 3 * MAX_HARM)
    rowf[0] = len(f.polynomial)
    rowf[1:1 + len(f.polynomial)] = f.polynomial
    rowf[1 + MAX_POLY] = len(f.harmonics)
    for m, h in enumerate(f.harmonics):
        rowf[2 + MAX_POLY + 3 * m: 5 + MAX_POLY + 3 * m] = h
    return rowf


def _drivers(mech: Mechanism, cons_i, cons_f, row):
    """Append the drivers' constraint rows (1 each) to ``cons_i``/``cons_f``; returns ``drv_f``,
    the drivers' rows and the next free row."""
    drv_f, driver_rows = [], []
    for d in mech.drivers:
        f = d.function
        if len(f.polynomial) > MAX_POLY or len(f.harmonics) > MAX_HARM:
            raise MechanismError(f"driver '{d.name}': at most {MAX_POLY} polynomial coefficients "
                                 f"and {MAX_HARM} harmonics")
        drv_f.append(driver_row(f))
        typ = {"phi": DRV_PHI, "x": DRV_X, "y": DRV_Y}[d.coordinate]
        cons_i.append([typ, mech.body_index(d.body), mech.body_index(d.relative_to), row])
        cons_f.append([len(drv_f) - 1, 0, 0, 0, 0, 0, 0, 0])
        driver_rows.append(row)
        row += 1
    return drv_f, driver_rows, row


def _force_elements(mech: Mechanism):
    """``frc_i``/``frc_f`` rows of springs-dampers, constant forces and torques."""
    frc_i, frc_f = [], []
    bidx = mech.body_index
    for f in mech.forces:
        if isinstance(f, SpringDamper):
            si, sj = mech.point(f.body_i, f.point_i), mech.point(f.body_j, f.point_j)
            frc_i.append([SPRING, bidx(f.body_i), bidx(f.body_j)])
            frc_f.append([*si, *sj, f.stiffness, f.damping, f.free_length, f.force])
        elif isinstance(f, ConstantForce):
            s = mech.point(f.body, f.point)
            frc_i.append([FORCE, bidx(f.body), -1]); frc_f.append([*s, *f.force, 0, 0, 0, 0])
        elif isinstance(f, ConstantTorque):
            frc_i.append([TORQUE, bidx(f.body), -1])
            frc_f.append([f.torque, f.damping, 0, 0, 0, 0, 0, 0])  # damping [N m s/rad] (nonsmooth)
        else:  # pragma: no cover
            raise MechanismError(f"unknown force element {type(f).__name__}")
    return frc_i, frc_f


def _clearance_joints(mech: Mechanism, ang, surfaces: dict, geometries: dict) -> dict:
    """Rows, kernels and packed parameters of the clearance joints (``i``, ``f``, ``ck``, ``fk``,
    ``cp``, ``fp``, ``hs``, ``n_points``, ``n_prof``)."""
    # --- worn translational joints (owner: trans): their ``surfaces`` entry is the packed column array
    # of workbench.mbs.guide_profile.pack_guide; n_prof counts the revolute profiles only
    n_prof = max((len(np.asarray(v[0])) for jc, v in surfaces.items()
                  if isinstance(mech.clearance_joints[jc], RevoluteClearanceJoint)), default=0)
    out = {k: [] for k in ("i", "f", "ck", "fk", "cp", "fp", "hs", "lf", "lk", "lp")}
    npts = 0
    bidx = mech.body_index
    for jc, c in enumerate(mech.clearance_joints):
        if isinstance(c, RevoluteClearanceJoint):
            bi, bj = bidx(c.bushing_body), bidx(c.journal_body)
            sb, sj = mech.point(c.bushing_body, c.bushing_point), mech.point(c.journal_body, c.journal_point)
            out["i"].append([CL_REV, bi, bj, npts, 1])
            crow = [*sb, *sj, c.bushing_radius, c.journal_radius] + [0] * (6 + 2 * n_prof)
            if jc in surfaces:
                hb, hj = (np.asarray(h, float) for h in surfaces[jc])
                if hb.shape != hj.shape or hb.ndim != 1 or not len(hb):
                    raise MechanismError(f"clearance joint '{c.name}': worn profiles need equal "
                                         f"1-D node arrays, got {hb.shape} and {hj.shape}")
                M = len(hb)
                crow[REV_NODES] = M
                crow[REV_HB_MAX] = max(float(hb.max()), 0.0); crow[REV_HJ_MAX] = max(float(hj.max()), 0.0)
                crow[REV_PROFILE:REV_PROFILE + M] = hb
                crow[REV_PROFILE + M:REV_PROFILE + 2 * M] = hj
            crow[CL_FRICTION_BOUND] = friction_bound(c.friction)
            out["f"].append(crow)
            npts += 1
        else:
            bi, bj = bidx(c.guide_body), bidx(c.slider_body)
            sg, ss = mech.point(c.guide_body, c.guide_point), mech.point(c.slider_body, c.slider_point)
            a = np.asarray(c.axis, float)
            a = a / np.linalg.norm(a)
            # slider axis in slider frame: the guide axis at assembly, seen from the slider
            u = _rot(_ang_of(ang, bj)).T @ (_rot(_ang_of(ang, bi)) @ a)
            out["i"].append([CL_TRANS, bi, bj, npts, 4])
            out["f"].append([*sg, *ss, *a, *u, c.slider_length, c.slider_height, c.guide_height,
                             friction_bound(c.friction)] + [0] * (2 * n_prof))
            # packed guide and slider profiles
            if jc in surfaces:
                out["f"][-1] = out["f"][-1][:12] + np.asarray(surfaces[jc], float).tolist()
            npts += 4
        geom = geometries.get(jc) or contact_geometry(c)
        out["ck"].append(_compiled_kernel(kernels.contact_cfunc, c.contact, "contact", c.name))
        out["cp"].append(_packed(c.contact.pack(geom), c.contact, "contact", c.name))
        if getattr(c.contact, "distributed", False):
            from .distributed import clearance_floor
            from .distributed_joint import check_joint
            check_joint(c)
            out["f"][-1][REV_DISTRIBUTED] = 1.0
            if jc in surfaces:
                from .distributed import seen_profiles
                hb, hj = seen_profiles(c.contact, *surfaces[jc])
                if getattr(getattr(c.contact, "params", None), "smooth_profile", False):   # the row holds what the law sees
                    crow[REV_HB_MAX] = max(float(hb.max()), 0.0); crow[REV_HJ_MAX] = max(float(hj.max()), 0.0)
                    crow[REV_PROFILE:REV_PROFILE + len(hb)] = hb
                    crow[REV_PROFILE + len(hb):REV_PROFILE + 2 * len(hb)] = hj
                out["f"][-1][REV_DIST_FLOOR] = clearance_floor(hb, hj)
        lub = getattr(c, "lubrication", None)
        if lub is None:
            out["lf"].append(0); out["lk"].append(kernels.no_lubrication()); out["lp"].append(np.zeros(1))
        else:
            if getattr(c.contact, "distributed", False):
                raise MechanismError(f"clearance joint '{c.name}': a lubricated joint needs a point-contact "
                                     f"law as its backstop, not the distributed '{c.contact.name}'")
            out["lf"].append(1)
            # its parts kernel when it has one: the record then holds the asperity load apart
            out["lk"].append(_compiled_kernel(lambda _k, m=type(lub): kernels.lubrication_model_cfunc(m), lub,
                                              "lubrication", c.name))
            # the nominal geometry with the bushing's worn profile when the model has a worn form
            # (LubricationModel.pack_worn; docs/lubrication.md): not the contact law's worn geometry,
            # whose clearance enlarged all round by the deepest wear would let the journal into the
            # unworn bushing.  The journal's wear turns with the journal: its mean over the journal
            # (a uniform clearance increase, exactly) is added to the bushing's profile; the rest of
            # it is not in the film (docs/lubrication.md, limits).
            packed = lub.pack_worn(contact_geometry(c), film_profile(*surfaces[jc])) \
                if jc in surfaces else None
            out["lp"].append(_packed(lub.pack(contact_geometry(c)) if packed is None else packed, lub,
                                     "lubrication", c.name))
        if c.friction is None:
            out["fk"].append(kernels.no_friction()); out["fp"].append(np.zeros(1)); out["hs"].append(0)
        else:
            out["fk"].append(_compiled_kernel(kernels.friction_cfunc, c.friction, "friction", c.name))
            out["fp"].append(_packed(c.friction.pack(), c.friction, "friction", c.name))
            out["hs"].append(int(type(c.friction).n_states > 0))
    if not out["ck"]:  # the compiled code wants non-empty tuples of one type
        out["ck"].append(kernels.no_contact()); out["fk"].append(kernels.no_friction())
    out["n_points"] = npts
    out["n_prof"] = n_prof
    return out
