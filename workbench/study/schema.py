"""The study-file schema of the dynamics and wear kinds: every key, its type, SI unit, default
and meaning, as data.

The machinery (:class:`Key`, :class:`Section`, :class:`Problems`, :func:`read_table`) lives in
:mod:`workbench.schema.core`, re-exported here; the loader (:mod:`workbench.study.load`) reads tables
through :func:`read_table`, which checks unknown keys (with a did-you-mean), missing required
keys, types and bounds, and *collects* every problem in a :class:`Problems` list instead of
stopping at the first one.  :mod:`workbench.schema.docs` turns the same tables into the Markdown
reference in ``docs/study_format.md`` and :mod:`workbench.schema.jsonschema` into the JSON
Schema ``docs/study.schema.json``, so neither can drift from what the loader accepts.  The
``pressure`` kind's tables are in :mod:`workbench.schema.pressure`, the sweep file's in
:mod:`workbench.schema.sweep`.
"""
from __future__ import annotations

from dataclasses import fields

from ..engines.registry import names as engine_names  # light: an engine imports its solver when it runs
from ..mbs.solution import SolverSettings
from ..schema.core import (BAD, REQUIRED, Key, Problems, Section, bare_message,  # noqa: F401 (re-exported)
                          check_value, has_bad, read_table)


# --------------------------------------------------------------------------------------------
# the schema
# --------------------------------------------------------------------------------------------
KINDS = ("dynamics", "pressure", "wear")

STUDY = Section("study", "What the study is.", (
    Key("kind", "text", "", "what to run: a multibody dynamics run, a contact-pressure study or "
        "a wear loop (dynamics + pressure + wear law over many machine cycles)",
        "dynamics", choices=KINDS),
    Key("title", "free_text", "", "short title, stored in the results (default: the file name)", None),
    Key("description", "free_text", "", "free text, stored in the results", ""),
))

TOP_LEVEL = ("study", "mechanism", "solver", "output", "wear", "checks")

MECHANISM = Section("mechanism", "The planar mechanism; the fixed frame is the body `ground`.", (
    Key("dimension", "int", "", "2: this planar mechanism; 3: a spatial one (the `dimension = 3` "
        "tables)", 2, choices=(2, 3)),
    Key("gravity", "vec2", "m/s^2", "gravitational acceleration vector", (0.0, -9.81)),
    Key("ground_points", "points", "m", "named points of the ground, e.g. `{O = [0.0, 0.0]}`", {}),
    Key("bodies", "tables", "", "moving rigid bodies (array of tables, see below)"),
    Key("joints", "tables", "", "ideal joints", []),
    Key("drivers", "tables", "", "prescribed motions", []),
    Key("forces", "tables", "", "force elements", []),
    Key("clearance_joints", "tables", "", "joints with clearance, contact and friction", []),
    Key("beams", "tables", "", "flexible bodies: planar ANCF beams (array of tables, see below)", []),
))

BODY = Section("mechanism.bodies[]", "A rigid body; anchor points are relative to its centre of mass.", (
    Key("name", "text", "", "unique name (not `ground`)"),
    Key("mass", "number", "kg", "mass", gt=0.0),
    Key("inertia", "number", "kg m^2", "moment of inertia about the centre of mass", gt=0.0),
    Key("position", "vec2", "m", "initial guess of the centre-of-mass position (global frame)", (0.0, 0.0)),
    Key("angle", "number", "rad", "initial guess of the orientation", 0.0),
    Key("points", "points", "m", "named points in body coordinates, e.g. `{A = [-0.025, 0.0]}`", {}),
    Key("velocity", "vec2", "m/s", "initial guess of the centre-of-mass velocity (projected onto the "
        "constraints at assembly; a driven mechanism needs none)", (0.0, 0.0)),
    Key("angular_velocity", "number", "rad/s", "initial guess of the angular velocity", 0.0),
))

BEAM = Section("mechanism.beams[]", (
    "A flexible body: a planar ANCF cable beam (gradient-deficient, Euler-Bernoulli; Gerstmayr & "
    "Irschik (2008)), straight and undeformed in its reference state. Joints, clearance joints and "
    "forces name it like a body and its points by name; a point is an arc length `s` along the "
    "centre line. A revolute joint at a beam point holds the centre line's position there (the "
    "slope stays free); a clearance joint there takes the centre line's position and slope as the "
    "journal's frame. A mechanism with beams runs on the implicit generalised-alpha solver "
    "(`workbench.flex.solver`); `solver.rtol`/`atol` are then its local error tolerances "
    "on positions and `solver.max_step` its largest step. Dynamics and wear studies (in a wear "
    "study the averaging cycles run on it, the worn revolute joints seen at the beam points; worn "
    "translational joints and `wear.pressure = \"dynamics\"` are rigid-only); `solver.ramp` gives a "
    "speed-ramp start."), (
    Key("name", "text", "", "unique name (shared with the rigid bodies; not `ground`)"),
    Key("type", "text", "", "beam element", "ancf_beam", choices=("ancf_beam",)),
    Key("length", "number", "m", "reference length of the centre line", gt=0.0),
    Key("area", "number", "m^2", "cross-section area", gt=0.0),
    Key("second_moment", "number", "m^4", "second moment of area of the cross-section", gt=0.0),
    Key("E", "number", "Pa", "Young's modulus", gt=0.0),
    Key("density", "number", "kg/m^3", "mass density", gt=0.0),
    Key("elements", "int", "1", "number of equal elements", 6, min=1, max=200),
    Key("damping", "number", "s", "Kelvin-Voigt (strain-rate) damping time beta: axial force "
        "EA (eps + beta deps/dt), bending moment EI (kappa + beta dkappa/dt); modal damping ratio "
        "beta omega / 2, rigid motions undamped", 0.0, min=0.0),
    Key("position", "vec2", "m", "position of the beam's start (s = 0), reference state", (0.0, 0.0)),
    Key("angle", "number", "rad", "direction of the undeformed beam", 0.0),
    Key("points", "table", "m", "named arc lengths along the beam, e.g. `{A = 0.0, B = 0.12}`", {}),
    Key("curvature", "text", "", "the bending strain: `exact` (r' x r'') / |r'|^3, the curvature of "
        "the deformed centre line (Gerstmayr & Irschik (2008)), or `material` (r' x r'') / |r'|^2, the "
        "angle's rate per reference arc length (Berzeri & Shabana (2000); Exudyn's ANCFCable2D); they "
        "differ by the factor 1/(1 + axial strain), noticeable only for soft rods (0.7-2.5 % in the "
        "crank-moment peaks of the undamped 6 and 2 GPa slider-cranks)", "exact",
        choices=("exact", "material")),
))

_PAIR = (
    Key("name", "text", "", "unique name (joints, drivers, forces and clearance joints share one namespace)"),
    Key("type", "text", "", "joint type", choices=("revolute", "translational")),
    Key("body_i", "text", "", "first body (or `ground`)"),
    Key("point_i", "text", "", "point of `body_i`"),
    Key("body_j", "text", "", "second body (or `ground`)"),
    Key("point_j", "text", "", "point of `body_j`"),
)
_JOINT_FRICTION = Key(
    "friction", "table", "", "friction law acting in the ideal joint, with its reaction as the normal "
    "load (Qi, Luo & Huang (2009)): `{model = \"<name>\", <parameter> = <value>, ...}`, a memoryless "
    "law of `workbench plugins --family friction` (e.g. coulomb, ambrosio, bai_zhao), a law with one "
    "internal state (lugre: its bristle state is integrated with the dynamics, one per joint), or "
    "`coulomb_set_valued` (set-valued Coulomb friction, stick and slip, on a revolute joint or a "
    "particle slider (`slider_length = 0`), run by the event-driven solver of `workbench.nonsmooth`); "
    "omit for a frictionless joint", None)
REVOLUTE = Section("mechanism.joints[] (type = \"revolute\")",
                   "Ideal revolute joint: `point_i` of `body_i` coincides with `point_j` of `body_j`. "
                   "With `friction`, the friction-circle moment `r f(v, |lambda|)` acts in the joint "
                   "(`|lambda|` the reaction's magnitude, `v = r (omega_j - omega_i)`; a planar joint "
                   "has no axial contact; Qi, Luo & Huang (2009) eq. 53).",
                   _PAIR + (_JOINT_FRICTION,
                            Key("pin_radius", "number", "m", "friction-circle radius r (the pin's radius); "
                                "required with `friction`", None, gt=0.0)))
TRANSLATIONAL = Section(
    "mechanism.joints[] (type = \"translational\")",
    "Ideal translational joint: `point_j` slides on the line through `point_i` along `axis`; "
    "the relative angle stays at its initial value. With `friction`, the normal reaction N and the "
    "reaction moment M about `point_j` are split into two point contacts at the ends of the "
    "slider's contact, `N1 = N/2 - M/L`, `N2 = N/2 + M/L` (each end touches either face), and the "
    "friction force `f(v, |N1| + |N2|)` acts along the axis (Qi, Luo & Huang (2009) Fig. 1).",
    _PAIR + (Key("axis", "vec2", "1", "direction of the line in `body_i` coordinates (normalised)",
                 (1.0, 0.0)),
             _JOINT_FRICTION,
             Key("slider_length", "number", "m", "length L of the slider's contact along the axis, "
                 "centred at `point_j` (0: a particle slider, whose friction load is the normal reaction alone)", 0.0, min=0.0)))
JOINT_TYPES = {"revolute": REVOLUTE, "translational": TRANSLATIONAL}

DRIVER = Section("mechanism.drivers[]", (
    "Prescribed motion of one coordinate. Give exactly one of `speed`, `speed_rpm` or `function`: "
    "a constant speed makes `f(t) = initial + speed t`."), (
    Key("name", "text", "", "unique name"),
    Key("body", "text", "", "driven body"),
    Key("coordinate", "text", "", "driven coordinate", "phi", choices=("x", "y", "phi")),
    Key("relative_to", "text", "", "for `phi`: angle relative to this body", "ground"),
    Key("initial", "number", "m or rad", "value at t = 0 (constant-speed drivers)", 0.0),
    Key("speed", "number", "m/s or rad/s", "constant speed", None),
    Key("speed_rpm", "number", "rev/min", "constant angular speed (phi only), converted to rad/s", None),
    Key("function", "table", "", "a function of time, see `mechanism.drivers[].function`", None),
))

DRIVER_FUNCTION = Section(
    "mechanism.drivers[].function",
    "`f(t) = sum_k a_k t^k + sum_m A_m sin(w_m t + phi_m)`.", (
        Key("polynomial", "numbers", "unit/s^k", "coefficients `a_k`, lowest order first", (0.0,)),
        Key("harmonics", "triples", "[unit, rad/s, rad]",
            "list of `[A_m, w_m, phi_m]` triples", ()),
    ))

_FORCE_HEAD = (Key("name", "text", "", "unique name"),
               Key("type", "text", "", "force element type",
                   choices=("spring_damper", "force", "torque")))
SPRING_DAMPER = Section(
    "mechanism.forces[] (type = \"spring_damper\")",
    "`F = stiffness (l - free_length) + damping dl/dt + force` along the line between the points "
    "(tension positive).", _FORCE_HEAD + (
        Key("body_i", "text", "", "first body"),
        Key("point_i", "text", "", "point of `body_i`"),
        Key("body_j", "text", "", "second body"),
        Key("point_j", "text", "", "point of `body_j`"),
        Key("stiffness", "number", "N/m", "spring stiffness", 0.0, min=0.0),
        Key("damping", "number", "N s/m", "damping coefficient", 0.0, min=0.0),
        Key("free_length", "number", "m", "unstretched length", 0.0, min=0.0),
        Key("force", "number", "N", "constant actuator force", 0.0),
    ))
FORCE = Section("mechanism.forces[] (type = \"force\")",
                "Constant force (global frame) at a point of a body.", _FORCE_HEAD + (
                    Key("body", "text", "", "body the force acts on"),
                    Key("force", "vec2", "N", "force vector, global frame"),
                    Key("point", "text", "", "point of application (default: centre of mass)", None),
                ))
TORQUE = Section("mechanism.forces[] (type = \"torque\")", "Constant torque on a body, "
                 "minus an optional rotational damping moment `damping` x its angular velocity.",
                 _FORCE_HEAD + (Key("body", "text", "", "body the torque acts on"),
                                Key("torque", "number", "N m", "torque, counter-clockwise positive"),
                                Key("damping", "number", "N m s/rad", "rotational damping "
                                    "coefficient c: moment -c dphi/dt on the body", 0.0, min=0.0),
                                ))
FORCE_TYPES = {"spring_damper": SPRING_DAMPER, "force": FORCE, "torque": TORQUE}

MATERIAL = Section("material", "An isotropic elastic material (inline table, e.g. "
                   "`{E = 207e9, nu = 0.3}`); default steel.", (
    Key("E", "number", "Pa", "Young's modulus", 207e9, gt=0.0),
    Key("nu", "number", "1", "Poisson's ratio", 0.3, gt=-1.0, lt=0.5),
    Key("rigid", "bool", "", "drop this part's compliance from the contact stiffness", False),
    # --- wear validity (wearstats branch): hardness of the part
    Key("hardness", "number", "Pa", "indentation hardness H of the part; wear studies record "
        "p_max/H per update, warn above H/3 and stop above `wear.hardness_limit` H (optional: "
        "without it those checks are skipped)", None, gt=0.0),
))

_CLEAR_HEAD = (
    Key("name", "text", "", "unique name; also the `joint` label in the results"),
    Key("type", "text", "", "clearance joint type", choices=("revolute", "translational")),
)
_MODELS = (
    Key("contact", "table", "", "contact force law: `{model = \"<name>\", <parameter> = <value>, ...}` "
        "(see `workbench plugins --family contact`)"),
    Key("friction", "table", "", "friction law, same form (omit for frictionless contact)", None),
)
REVOLUTE_CLEARANCE = Section(
    "mechanism.clearance_joints[] (type = \"revolute\")",
    "Journal in a bushing with radial clearance (Wang & Liu (2015) §3.1, Wang, Chen, Ma & Sun (2016) §1.1). "
    "Give exactly one of `bushing_radius` and `clearance`.", _CLEAR_HEAD + (
        Key("bushing_body", "text", "", "body carrying the bushing (hole)"),
        Key("bushing_point", "text", "", "bushing centre, a point of `bushing_body`"),
        Key("journal_body", "text", "", "body carrying the journal (pin)"),
        Key("journal_point", "text", "", "journal centre, a point of `journal_body`"),
        Key("journal_radius", "number", "m", "journal radius", gt=0.0),
        Key("bushing_radius", "number", "m", "bushing radius", None, gt=0.0),
        Key("clearance", "number", "m", "radial clearance; bushing radius = journal radius + clearance",
            None, gt=0.0),
        Key("length", "number", "m", "axial length of the joint", 0.01, gt=0.0),
        Key("bushing_material", "table", "", "material of the bushing (see `material`)", None),
        Key("journal_material", "table", "", "material of the journal", None),
    ) + _MODELS + (
        Key("lubrication", "table", "", "lubricant film (and asperity) model, same form (see `workbench "
            "plugins --family lubrication`; omit for a dry joint); the contact law stays the backstop "
            "beyond the clearance", None),
    ))
TRANSLATIONAL_CLEARANCE = Section(
    "mechanism.clearance_joints[] (type = \"translational\")",
    "Rectangular slider (length L along the guide, height W) in a guide of height H, clearance "
    "C = (H - W)/2 (Wang, Chen, Ma & Sun (2016) §1.2, eq. 18). Give exactly one of `guide_height` and `clearance`.",
    _CLEAR_HEAD + (
        Key("guide_body", "text", "", "body carrying the guide"),
        Key("guide_point", "text", "", "a point of the guide's centre line, on `guide_body`"),
        Key("slider_body", "text", "", "body carrying the slider"),
        Key("slider_point", "text", "", "slider centre, a point of `slider_body`"),
        Key("slider_length", "number", "m", "slider length L along the guide", gt=0.0),
        Key("slider_height", "number", "m", "slider height W across the guide", gt=0.0),
        Key("guide_height", "number", "m", "guide height H", None, gt=0.0),
        Key("clearance", "number", "m", "clearance C; guide height = slider height + 2 C", None, gt=0.0),
        Key("axis", "vec2", "1", "guide direction in `guide_body` coordinates (normalised)", (1.0, 0.0)),
        Key("width", "number", "m", "out-of-plane width of the slider (contact stiffness, Wang, Chen, Ma & Sun (2016) eq. 26)",
            0.01, gt=0.0),
        Key("guide_material", "table", "", "material of the guide (see `material`)", None),
        Key("slider_material", "table", "", "material of the slider", None),
    ) + _MODELS)
CLEARANCE_TYPES = {"revolute": REVOLUTE_CLEARANCE, "translational": TRANSLATIONAL_CLEARANCE}

_SD = {f.name: f.default for f in fields(SolverSettings)}
#: largest Baumgarte factor accepted [1/s] (see the `[solver]` keys)
BAUMGARTE_MAX = 1e4
SOLVER = Section("solver", "Numerical settings (`workbench.mbs.solution.SolverSettings`). "
                 "Give exactly one of `t_end` and `revolutions`.", (
    Key("t_end", "number", "s", "end time", None, gt=0.0),
    Key("revolutions", "number", "1",
        "run length in revolutions of the first constant-speed angle driver: "
        "t_end = t_start + revolutions 2 pi / |speed|", None, gt=0.0),
    Key("t_start", "number", "s", "start time", _SD["t_start"]),
    Key("rtol", "number", "1", "relative tolerance of the embedded Runge-Kutta", _SD["rtol"], gt=0.0, lt=1.0),
    Key("atol", "number", "state units", "absolute tolerance", _SD["atol"], gt=0.0),
    Key("max_step", "number", "s", "largest step (0 = unlimited)", _SD["max_step"], min=0.0),
    Key("first_step", "number", "s", "initial step", _SD["first_step"], gt=0.0),
    Key("baumgarte_alpha", "number", "1/s", "Baumgarte velocity factor (Baumgarte (1972); Wang, "
        "Chen, Ma & Sun (2016) eq. 41 use 1 to 50). At most 1e4 1/s: the factors are rates of the constraint-error decay, and "
        "rates far above the mechanism's own dynamics (tens of 1/s for these machines) make the "
        "stabilised equations stiff, so the explicit integrator never finishes",
        _SD["baumgarte_alpha"], min=0.0, max=BAUMGARTE_MAX),
    Key("baumgarte_beta", "number", "1/s", "Baumgarte position factor (same range and reason as "
        "`baumgarte_alpha`)", _SD["baumgarte_beta"], min=0.0, max=BAUMGARTE_MAX),
    Key("engine", "text", "", "the engine that runs the study (`workbench.engines`): `auto` takes "
        "the first that accepts the mechanism and settings, in this order: `compiled` (the fast "
        "path: rigid bodies, compliant contact), `scipy_reference` (the same equations on scipy's "
        "`solve_ivp`), `event_driven` (ideal joints with set-valued friction), `generalized_alpha` "
        "(flexible beams), `moreau_jean` (Moreau-Jean time stepping with non-smooth revolute "
        "clearance joints; never chosen by `auto`, needs `step`). The dataset records the engine "
        "and why (attributes `engine`, `engine_reason`)", _SD["engine"],
        choices=("auto",) + engine_names()),
    Key("path", "text", "", "`fast` (compiled) or `scipy` (reference); the older spelling of "
        "`engine = \"compiled\"` / `\"scipy_reference\"`", _SD["path"],
        choices=("fast", "scipy")),
    Key("formulation", "text", "", "spatial mechanisms (`dimension = 3`): `absolute` (position and Euler "
        "parameters per body with constraint rows; every spatial mechanism) or `minimal` (the joint "
        "coordinates of a tree of ideal joints rooted at the ground, its equations derived with sympy "
        "by Kane's method and compiled for the mechanism, `workbench.spatial.minimal`: no closed loops, "
        "clearance joints, joint friction, drivers or spherical joints; the first run of a mechanism "
        "generates and compiles its code); not given: `absolute`", _SD["formulation"], choices=("absolute", "minimal")),
    Key("method", "text", "", "scipy method on the reference path and of the event-driven phases; "
        "`moreau_jean` is the older spelling of `engine = \"moreau_jean\"`", _SD["method"],
        choices=("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA", "moreau_jean")),
    Key("detection", "text", "", "contact-start detection: `event` (root finding) or "
        "`step_halving` (Wu (2014))", _SD["detection"], choices=("event", "step_halving")),
    Key("critical_penetration", "number", "m", "epsilon of the step-halving detector (Wu (2014))",
        _SD["critical_penetration"], gt=0.0),
    Key("min_step", "number", "s", "smallest step of the step-halving detector (Wu (2014))",
        _SD["min_step"], gt=0.0),
    Key("max_steps", "int", "1", "largest number of (accepted + rejected) steps before giving up",
        _SD["max_steps"], gt=0),
    # wall-time limit and impact table
    Key("max_wall_time", "number", "s", "wall-clock limit of the integration: the run stops there "
        "and keeps its samples (`<out>.partial.nc`); default: none", _SD["max_wall_time"], gt=0.0),
    Key("impact_peaks", "bool", "", "locate each impact's peak force and largest penetration on "
        "the dense output (fast path; `impact_peak_force`, `impact_max_penetration`)", _SD["impact_peaks"]),
    # specialised fast path (owner: speed)
    Key("specialise", "text", "", "run the fast path on code generated for this mechanism's "
        "structure (`workbench.mbs.codegen`; same results, each right-hand-side call about 2.3x "
        "faster): `true`; `false`: the generic compiled code; `\"auto\"`: specialise when that "
        "code is already compiled or this process's runs of the mechanism span more than 1 s of simulated time. Its first "
        "compile takes minutes (1-4 min measured on a shared 2-core machine), once per mechanism structure and workbench version. Mechanisms "
        "with translational clearance joints, distributed contact or ideal-joint friction run the "
        "generic code", _SD["specialise"], choices=(False, True, "auto")),
    Key("step", "number", "s", "fixed time step h of the `moreau_jean` engine (required there, "
        "unused otherwise); `output.step` must be a whole multiple of it", None, gt=0.0),
    Key("restitution", "number", "1", "Newton's restitution coefficient e_n of every clearance "
        "joint under the `moreau_jean` engine; replaces the contact laws' own `restitution` "
        "(needed for a law without one)", None, min=0.0, max=1.0),
    Key("ramp", "number", "s", "mechanisms with flexible beams: a pre-roll over [t_start - ramp, t_start] "
        "in which the first angle driver's speed rises smoothly from rest to its constant value "
        "(omega (3x^2 - 2x^3)); the run then starts at t_start from that state instead of the "
        "consistent start at full speed (a step load that rings the beams' axial modes); 0: no ramp",
        _SD["ramp"], min=0.0),
))

OUTPUT = Section("output", "What the results dataset holds.", (
    Key("step", "number", "s", "spacing of the output samples", _SD["output_step"], gt=0.0),
    Key("compare_ideal", "bool", "", "also run the ideal-joint twin (clearance joints made ideal) "
        "and store its `ideal_*` variables for comparison plots", True),
    Key("energies", "bool", "", "store kinetic, potential, contact energy, driver work, dissipation", True),
    Key("joint_reactions", "bool", "", "store the reactions of the ideal joints", True),
    Key("constraint_drift", "bool", "", "store the constraint-violation norms", True),
    Key("slip_velocity", "bool", "", "store the tangential slip velocity of the clearance joints", True),
))

WEAR = Section("wear", "The wear loop (Wang & Liu (2015) §4, Fig. 14) of a `kind = \"wear\"` study: each "
               "update simulates settling and averaging cycles on the current worn surfaces, turns "
               "pressure x slip into a per-cycle wear increment, jumps `dN` cycles and wears the "
               "surfaces. `[solver]` tolerances apply; its `t_end`/`revolutions` are not used.", (
    Key("cycles", "number", "1", "machine cycles to simulate", gt=0.0),
    Key("cycle_period", "number", "s", "duration of one machine cycle (default: 2 pi / speed of the "
        "first constant-speed angle driver)", None, gt=0.0),
    Key("settle_cycles", "int", "1", "cycles simulated and discarded before averaging, each update", 1, min=0),
    # --- wear statistics and error control (wearstats branch)
    Key("average_cycles", "int", "1", "smallest number of averaging cycles per update; each cycle is "
        "one sample of the wear rate (mean and standard error over the cycles)", 4, min=2),
    Key("max_average_cycles", "int", "1", "largest number of averaging cycles per update: more cycles "
        "are simulated until the standard errors meet `rate_tolerance` and `profile_tolerance`", 32, min=2),
    Key("rate_tolerance", "number", "1", "largest relative standard error of an update's wear-volume "
        "rate", 0.05, gt=0.0),
    Key("profile_tolerance", "number", "1", "largest standard error of an update's wear-rate profile "
        "(L2 norm of the standard-error profile over the L2 norm of the mean profile)", 0.15, gt=0.0),
    Key("jump_tolerance", "number", "1", "largest relative change (L2 norm, beyond the statistical "
        "noise) of the wear-rate profile over one cycle jump; a larger change shrinks the next jump",
        0.1, gt=0.0),
    Key("jump_control", "text", "", "what the change of the rate profile is measured against: "
        "'last_update' compares the last two updates with their within-update standard errors; "
        "'history' fits a line in the cycle count to the last 5 updates and also counts the scatter "
        "about it as noise (a joint whose updates land in different dynamic regimes), and limits "
        "the jump only by a trend significant against that scatter; each update's rate errors are "
        "then widened to that scatter (never narrowed)", "last_update",
        choices=("last_update", "history")),
    Key("chains", "int", "1", "independent replicas of each update's dynamics, run side by side (one "
        "core each) from different starts and pooled: the averaging cycles are shared out among them, "
        "each replica settles for settle_cycles first (workbench.wear.chains)", 1, min=1),
    Key("penetration_limit", "number", "1", "largest penetration of a sampled cycle as a fraction of "
        "the radial clearance; beyond it the update is re-sampled at rtol/100 once, then the run stops",
        0.5, gt=0.0),
    Key("outlier_k", "number", "1", "a sampled cycle whose peak force or wear volume exceeds median + "
        "outlier_k x max(MAD, median) of the update's cycles is an outlier (re-sampled once, then the "
        "run stops)",
        10.0, gt=0.0),
    Key("hardness_limit", "number", "1", "peak pressure / hardness above which the run stops "
        "(Archard's range ends at 1/3)", 10.0, gt=0.0),
    Key("samples_per_cycle", "int", "1", "contact samples per cycle for pressure and wear", 720, min=16),
    Key("nodes", "int", "1", "body-fixed nodes per worn surface (bushing and journal)", 720, min=16),
    Key("z_nodes", "int", "1", "spatial mechanisms only: axial nodes of a journal's worn map over "
        "(theta, z), or polar nodes of a ball's cap over (theta, phi) (docs/spatial.md, \"Worn maps\")",
        21, min=2, max=1001),
    Key("bushing_share", "number", "1", "fraction of the wear depth taken from the bushing; the rest "
        "from the journal (Wang & Liu (2015) §2.3.3: 1 = bushing only, 0.5 = half each)", 1.0, min=0.0, max=1.0),
    Key("depth_step", "number", "1", "largest wear-depth increment of one update, as a fraction of "
        "the radial clearance; sets the cycle jump dN", 0.02, gt=0.0, max=0.5),
    Key("max_cycle_jump", "number", "1", "upper bound of the cycle jump dN (default: none)", None, min=1.0),
    Key("joints", "texts", "", "names of the clearance joints that wear, revolute or translational "
        "(default: every revolute clearance joint, or every translational one when the mechanism has no "
        "revolute clearance joint)", None),
    Key("output_body", "text", "", "body whose motion is compared with the ideal mechanism "
        "(Wang & Liu (2015) §4 step 10; default: the last body)", None),
    Key("output_coordinate", "text", "", "coordinate of `output_body` compared", "x", choices=("x", "y", "phi")),
    Key("dynamics_every", "int", "1", "store the averaging-cycle dynamics of every n-th update (the "
        "first and the last always)", 10, min=1),
    Key("stiffness", "text", "", "contact-law geometry during wear: 'worn' packs the contact law "
        "with the clearance enlarged by the deepest wear (Wang & Liu (2015) §1.3: stiffness depends on the "
        "clearance), 'nominal' keeps the unworn radii", "worn", choices=("worn", "nominal")),
    Key("pressure", "table", "", "pressure model `{model = \"<name>\", <parameters>}`"),
    Key("law", "table", "", "wear law `{model = \"<name>\", <parameters>}`"),
))

CHECKS = Section("checks", "Plausibility guards, checked by `workbench validate` and `run` "
                 "(`workbench.study.checks`). Each has a stated limit; a study that needs to go "
                 "beyond one says so here, and the run records it.", (
    Key("min_output_samples", "int", "1", "fewest output samples a dynamics run must produce: "
        "`(t_end - t_start) / [output] step` below this is refused (a run shorter than its output "
        "step reports one sample and a peak contact force of 0 N)", 10, min=2),
    Key("allow_out_of_range", "bool", "", "run a contact or friction law outside the parameter "
        "range its source derives it for (e.g. Lankarani-Nikravesh below restitution 0.8); the "
        "dataset attribute `warnings` then says so. false: refused with the valid range", False),
    Key("max_stiffness_ratio", "number", "1", "largest factor by which a contact law's force at "
        "a penetration of 1 % of the clearance may differ (either way) from the force of the "
        "stiffness the joint's materials and geometry give (Wang, Chen, Ma & Sun (2016) eq. 11 "
        "for a pin in a bore, eq. 26 planar); catches e.g. a stiffness of 1e20", 1e3, gt=1.0),
    Key("max_penetration_ratio", "number", "1", "largest penetration a run may reach, as a fraction "
        "of the joint's clearance (and never more than this fraction of the journal radius or "
        "slider height); checked after the run on every output sample. The shipped slider-crank "
        "studies reach 0.41 (clearance 0.05 mm) and 0.22 (0.2 mm)", 1.0, gt=0.0),
    Key("on_implausible", "text", "", "what a run does when it passes `max_penetration_ratio`: "
        "'stop' (error, exit 2; the results go to `<out>.partial.nc` marked rejected) or 'warn' "
        "(the results are written with the finding in the attribute `warnings`)", "stop",
        choices=("stop", "warn")),
    Key("max_memory_gb", "number", "GB", "largest estimated size of the arrays a run holds: a "
        "dynamics run's output samples (about 8 bytes x ~10 values per body, driver, joint and "
        "clearance joint per sample, twice with the ideal twin), or a wear update's pressure "
        "samples x nodes (x (settle + average) cycles); above it the run is refused before it "
        "starts instead of running out of memory", 4.0, gt=0.0),
    Key("cycle_matches_drivers", "bool", "", "a wear study's `cycle_period` must be a whole number "
        "(>= 1) of periods of every periodic driver, to a relative 1e-6 (a machine cycle returns "
        "the mechanism to its start; e.g. 1 ps with a 600 rpm driver is refused); false skips this",
        True),
    Key("assembly_cycle", "bool", "", "before a run, assemble the ideal mechanism along one "
        "period of its drivers (at most the run) and refuse lock-up or a singular constraint "
        "Jacobian, naming the driver angle", True),
    Key("progress_timeout", "number", "s", "longest wall time a run may go without progress: the "
        "integrator not advancing the simulated time, or one call of a wear update's pressure model "
        "or wear law not returning (numba compiling counts as progress); the run then stops with "
        "exit status 3 naming the update, the joint and the model, keeping the completed updates",
        60.0, gt=0.0),
    Key("max_run_hours", "number", "h", "largest wall time one integrator run may take (a dynamics "
        "study's run, or one wear update's settling and averaging cycles), projected from its pace "
        "after 20 s of integration and checked from then on; a run projected beyond it stops with "
        "exit status 2 and the projection (e.g. a slider-crank wear study at 1 rev/min: 60 s cycles "
        "of stiff contact), keeping the completed updates", 24.0, gt=0.0),
    Key("max_cycles", "number", "1", "largest `[wear] cycles` a study may ask for; the loop "
        "needs at least one update per jump and a jump is at most the cycles left, so an absurd "
        "count (1e300) is refused before the run instead of never ending", 1e10, gt=0.0),
))

SECTIONS: tuple[Section, ...] = (
    STUDY, MECHANISM, BODY, BEAM, REVOLUTE, TRANSLATIONAL, DRIVER, DRIVER_FUNCTION, SPRING_DAMPER, FORCE,
    TORQUE, REVOLUTE_CLEARANCE, TRANSLATIONAL_CLEARANCE, MATERIAL, SOLVER, OUTPUT, WEAR, CHECKS)


# --------------------------------------------------------------------------------------------
# the tree: which section a table of the study file is checked against
# --------------------------------------------------------------------------------------------
#: table path (``[]`` for an entry of an array of tables) -> its :class:`Section`, a
#: ``{type: Section}`` choice by the table's ``type`` key, or ``("model", family)`` for a model
#: table ``{model = "<name>", <parameters>}`` checked by the model's own parameters
TREE: dict = {
    "study": STUDY,
    "mechanism": MECHANISM,
    "mechanism.bodies[]": BODY,
    "mechanism.beams[]": BEAM,   # flexible beams (owner: workbench.flex)
    "mechanism.joints[]": JOINT_TYPES,
    "mechanism.joints[].friction": ("model", "friction"),  # joint friction (owner: reactions)
    "mechanism.drivers[]": DRIVER,
    "mechanism.drivers[].function": DRIVER_FUNCTION,
    "mechanism.forces[]": FORCE_TYPES,
    "mechanism.clearance_joints[]": CLEARANCE_TYPES,
    "mechanism.clearance_joints[].contact": ("model", "contact"),
    "mechanism.clearance_joints[].friction": ("model", "friction"),
    "mechanism.clearance_joints[].lubrication": ("model", "lubrication"),
    **{f"mechanism.clearance_joints[].{m}": MATERIAL
       for m in ("bushing_material", "journal_material", "guide_material", "slider_material")},
    "solver": SOLVER,
    "output": OUTPUT,
    "wear": WEAR,
    "wear.pressure": ("model", "pressure"),
    "wear.law": ("model", "wear"),
    "checks": CHECKS,
}


def format_reference() -> str:
    """Markdown tables of every section and key (see :func:`workbench.schema.docs.format_reference`)."""
    from ..schema.docs import format_reference as fmt
    return fmt()


def update_reference(md_path) -> None:
    """Replace the generated block of ``docs/study_format.md`` (see :mod:`workbench.schema.docs`)."""
    from ..schema.docs import update_reference as upd
    upd(md_path)
