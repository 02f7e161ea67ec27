"""Study files: load a TOML study into a :class:`Study`, and run it.

A study file is TOML in SI units (the one conversion at the boundary is ``speed_rpm``).  Its
tables and keys are defined, with units and defaults, in :mod:`workbench.study.schema` and
documented in ``docs/study_format.md``, generated from them (the
``pressure`` kind's tables in :mod:`workbench.schema.pressure`).  ``[study] kind`` selects the study kind
(:mod:`workbench.kinds`): ``"dynamics"`` (the planar multibody solver; this module builds the
:class:`~workbench.mbs.mechanism.Mechanism` and :class:`~workbench.mbs.solution.SolverSettings`),
``"wear"`` (the same plus ``Study.wear``) or ``"pressure"`` (``Study.pressure``, parsed by the
kind's own ``parse``).  :func:`run_study` hands a loaded study to the one dispatcher,
:func:`workbench.kinds.run`.

Every mistake is a :class:`~workbench.errors.StudyError` naming the file, the key path (e.g.
``mechanism.clearance_joints[0].contact.restitution``), the bad value and the valid choices; the
loader collects every schema problem of a file and reports them together, then reports every
problem of the mechanism (unknown bodies, points, duplicate names ...) together, then everything
``run`` would refuse at its start (:mod:`workbench.study.checks`: every model packed for its joint,
law ranges, plausibility guards of ``[checks]``, lock-up along the driver cycle).  The file must be
UTF-8 text (a byte-order mark is dropped); binary, mis-encoded or absurdly nested files are
refused with the line and byte.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import MechanismError, StudyError, WorkbenchError, choices_text, did_you_mean
from ..mbs.mechanism import (Body, ConstantForce, ConstantTorque, Driver, DriverFunction, Mechanism,
                            RevoluteClearanceJoint, RevoluteJoint, SpringDamper,
                            TranslationalClearanceJoint, TranslationalJoint)
from ..mbs.solution import SolverSettings
from ..models import Material
from ..mbs.mechanism import MIN_AXIS_LENGTH, axis_ok
from .checks import Checks, ImplausibleResultError, penetration_findings, pre_run, read_checks
from . import schema as S
from .input import parse_toml, read_file_text  # noqa: F401 (read_file_text: used by sweep_spec)
from ..flex.beam_body import BeamBody

if TYPE_CHECKING:  # the per-kind specs (imported where the kinds parse them)
    from ..kinds.pressure_config import PressureStudy
    from ..kinds.wear_config import WearConfig



@dataclass(frozen=True)
class OutputOptions:
    """What goes into the results dataset (see ``[output]`` in ``docs/study_format.md``)."""
    step: float = 1e-5
    compare_ideal: bool = True
    energies: bool = True
    joint_reactions: bool = True
    constraint_drift: bool = True
    slip_velocity: bool = True


@dataclass(frozen=True)
class Study:
    """A loaded study.

    Attributes
    ----------
    kind : a registered study kind (:mod:`workbench.kinds`): ``"dynamics"``, ``"wear"``, ``"pressure"``.
    title, description : from ``[study]``.
    text : the study file's text, stored verbatim in the results.
    file : the study file's path (``None`` for a study loaded from text).
    mechanism, solver, output, checks : the mechanism run (dynamics and wear; ``None`` otherwise).
    wear : the wear loop's spec (kind ``"wear"``).
    pressure : the pressure study's spec (kind ``"pressure"``).
    warnings : plausibility findings the run writes into the dataset.
    changes : the changes made in Python since the study file was read (``"key: old -> new"``;
        :mod:`workbench.study.sync`), stored with the result as ``study_changes``; ``text`` is
        then regenerated from what runs.
    """
    kind: str
    title: str
    description: str
    text: str
    file: Path | None
    mechanism: Mechanism | None = None
    solver: SolverSettings | None = None
    output: OutputOptions | None = None
    wear: WearConfig | None = None
    pressure: PressureStudy | None = None
    checks: Checks | None = None
    warnings: tuple[str, ...] = ()
    changes: tuple[str, ...] = ()

    @property
    def spec(self):
        """The kind's own typed spec: ``wear`` or ``pressure`` (``None`` for dynamics)."""
        return {"wear": self.wear, "pressure": self.pressure}.get(self.kind)


# --------------------------------------------------------------------------------------------
# loading
# --------------------------------------------------------------------------------------------
def load_study(path: str | Path, registry=None) -> Study:
    """Read and check the study file ``path``; ``registry`` defaults to the installed plugins."""
    path = Path(path)
    return load_study_text(read_file_text(path, "study file"), file=path, registry=registry)


def load_study_text(text: str, *, file: str | Path | None = None, registry=None,
                    run_checks: bool = True) -> Study:
    """Check a study given as TOML text (``file`` is only used in messages and provenance).

    ``run_checks=False`` leaves out the checks ``run`` makes at its start beyond the schema and
    the engine (:func:`workbench.study.checks.pre_run`): for the text regenerated from a study
    changed in Python (:mod:`workbench.study.sync`), which ran without them."""
    fname = str(file) if file is not None else "<study>"
    doc = parse_toml(text, fname)
    probs = S.Problems(fname)
    head_probs = S.Problems(fname)  # [study] problems: a pressure study's own parser reports them
    head = S.read_table(doc.get("study", {}), S.STUDY, "study", head_probs) or {}
    kind = head.get("kind", "dynamics")
    if kind is S.BAD:
        head_probs.raise_if_any()
    if kind in ("dynamics", "wear"):
        probs.items.extend(head_probs.items)
    title = head.get("title")
    if title is None or title is S.BAD:
        title = Path(file).stem if file is not None else "untitled study"
    common = dict(kind=kind, title=title, description=head.get("description", ""),
                  text=text, file=Path(file) if file is not None else None)
    if kind not in ("dynamics", "wear"):
        if registry is None:
            from ..plugins import build_registry
            registry = build_registry()
        # the kind's own parse hook, once; its problems join the file's
        from .. import kinds
        spec = kinds.get(kind).parse(doc, registry=registry, file=fname, problems=probs)
        probs.raise_if_any()
        return _loaded(Study(**common, **{kind: spec}))

    for k in doc:
        if k not in S.TOP_LEVEL:
            probs.add(k, f"unknown top-level table '{k}'.{did_you_mean(k, S.TOP_LEVEL)} "
                         f"Valid: {choices_text(S.TOP_LEVEL)}")
    if "mechanism" not in doc:
        probs.add("mechanism", "missing required table [mechanism]")
    if kind == "wear" and "wear" not in doc:
        probs.add("wear", "missing required table [wear] (a kind = \"wear\" study)")
    elif kind != "wear" and "wear" in doc:
        probs.add("wear", f"a [wear] table needs [study] kind = \"wear\" (this study is '{kind}')")
    if registry is None:
        from ..plugins import build_registry
        registry = build_registry()
    from . import spatial as spatial_tables
    spatial = spatial_tables.is_spatial(doc.get("mechanism"))
    if spatial and kind not in ("dynamics", "wear"):
        probs.add("study.kind", f"a spatial mechanism ([mechanism] dimension = 3) runs in a "
                                f"kind = \"dynamics\" or \"wear\" study (this study is '{kind}')")
        probs.raise_if_any()
    if spatial:
        mechanism = spatial_tables.parse_mechanism(doc["mechanism"], probs, registry, _model)
    else:
        mechanism = _mechanism(doc.get("mechanism", {}), probs, registry) if "mechanism" in doc else None
    checks = read_checks(doc.get("checks", {}), probs)
    out = S.read_table(doc.get("output", {}), S.OUTPUT, "output", probs)
    output = OutputOptions(**out) if not S.has_bad(out) else None
    wear = None
    if kind == "wear":
        if spatial:   # worn maps over the bearing surface (workbench.wear.spatial_loop)
            from ..kinds.spatial_wear_config import parse_spatial_wear as parse_wear
        else:
            from ..kinds.wear_config import parse_wear
        wear = parse_wear(doc.get("wear", {}), mechanism, registry, probs, _model)
        solver = _solver(doc.get("solver", {}), probs, mechanism, output,
                         t_end=wear.cycle_period if wear is not None else 1.0)
    else:
        solver = _solver(doc.get("solver", {}), probs, mechanism, output)
    probs.raise_if_any()
    if spatial:   # checked by parse_mechanism, every problem under its key
        solver = _spatial_engine(solver, probs)
        probs.raise_if_any()
    try:
        mechanism.validate()
    except MechanismError as exc:
        raise StudyError(str(exc), file=fname) from None
    # the engine that will run it (workbench.engines: the one selector), and what it refuses
    from ..engines import study_problems
    # a spatial wear study's maps are its own loop's (workbench.wear.spatial_loop), not an engine's surfaces
    engine_wear = None if spatial else wear
    selection, found = study_problems(mechanism, solver, wear=engine_wear)
    for key, msg in found:
        probs.add(key, msg)
    probs.raise_if_any()
    # everything run would reject beyond the schema: models packed, ranges, assembly, plausibility
    warnings = pre_run(mechanism, solver, checks, probs, kind=kind, wear=engine_wear,
                       compare_ideal=output.compare_ideal, engine=selection.engine) if run_checks else []
    probs.raise_if_any()
    return _loaded(Study(mechanism=mechanism, solver=solver, output=output, wear=wear, checks=checks,
                         warnings=tuple(warnings), **common))


def _loaded(study: Study) -> Study:
    from .sync import mark_loaded
    return mark_loaded(study)


def _spatial_engine(solver: SolverSettings, probs: S.Problems) -> SolverSettings:
    """A spatial study runs on the ``spatial`` engine, written into its settings so that the study
    text regenerated from what ran names it (``engine = "auto"`` would pick it too: every planar
    engine refuses a 3-D mechanism); a planar engine asked for by name is an error under its key."""
    import dataclasses
    from ..engines import spatial as spatial_engine
    if solver.engine in ("auto", spatial_engine.NAME):
        return dataclasses.replace(solver, engine=spatial_engine.NAME)
    probs.add("solver.engine", f"engine = '{solver.engine}' runs planar mechanisms; this one is spatial "
                               f"([mechanism] dimension = 3). Valid: 'auto', '{spatial_engine.NAME}'")
    return solver


def _items(values: dict, name: str, path: str) -> list[tuple[str, Any]]:
    v = values.get(name)
    return [] if v is S.BAD or v is None else [(f"{path}.{name}[{i}]", t) for i, t in enumerate(v)]


def _typed(table: dict, types: dict, path: str, probs: S.Problems):
    """Section of an array-of-tables entry chosen by its ``type`` key (``None`` if unusable)."""
    t = table.get("type")
    if t is None:
        probs.add(f"{path}.type", f"missing required key 'type' (one of {choices_text(types)})")
        return None
    if t not in types:
        probs.add(f"{path}.type", f"'{t}' is not valid.{did_you_mean(str(t), types)} "
                                  f"Valid choices: {choices_text(types)}")
        return None
    return types[t]


def _material(value, path: str, probs: S.Problems) -> Material | None:
    if value is None:
        return Material()
    vals = S.read_table(value, S.MATERIAL, path, probs)
    return None if S.has_bad(vals) else Material(**vals)


def _model(registry, family: str, table, path: str, probs: S.Problems):
    """A model instance from ``{model = "name", <params>}`` (``S.BAD`` on error)."""
    if not isinstance(table, dict):
        probs.add(path, f"expected a table {{model = \"<name>\", ...}}, got {table!r}")
        return S.BAD
    name = table.get("model")
    if name is None:
        probs.add(f"{path}.model", f"missing required key 'model'; valid {family} models: "
                                   f"{choices_text(registry.names(family)) or '(none registered)'}")
        return S.BAD
    params = {k: v for k, v in table.items() if k != "model"}
    try:
        registry.entry(family, str(name), file=probs.file, key=f"{path}.model")
        return registry.create(family, str(name), params, file=probs.file, key=path)
    except StudyError as exc:
        if exc.file is None:  # raised by a model's own checks, which know neither file nor path
            key = f"{path}.{exc.key}" if exc.key else path
            exc = StudyError(S.bare_message(exc), file=probs.file, key=key)
        probs.extend(exc)
        return S.BAD
    except (TypeError, ValueError) as exc:  # a model's own parameter checks
        probs.add(path, f"{family} model '{name}' rejected its parameters: {exc}")
        return S.BAD


def _read_beams(items, probs) -> list[BeamBody]:
    """The ``[[mechanism.beams]]`` tables (``(path, table)`` pairs) as :class:`BeamBody`; every
    problem goes to ``probs`` (file, key, value and the valid range)."""
    out = []
    for path, t in items:
        v = S.read_table(t, S.BEAM, path, probs)
        if v is None:
            continue
        pts, ok = {}, True
        length = v["length"] if v["length"] is not S.BAD else math.inf
        points = v["points"] if isinstance(v["points"], dict) else {}
        for pname, s in points.items():
            if isinstance(s, bool) or not isinstance(s, (int, float)) or not math.isfinite(s) \
                    or not 0.0 <= s <= length:
                probs.add(f"{path}.points.{pname}", f"a beam point is an arc length in [0, {length:g}] m "
                                                    f"(the beam's length), got {s!r}")
                ok = False
            else:
                pts[str(pname)] = float(s)
        if ok and not S.has_bad(v):
            v["points"] = pts
            v["position"] = tuple(v["position"])
            out.append(BeamBody(**v))
    return out


def _mechanism(table, probs: S.Problems, registry) -> Mechanism | None:
    m = S.read_table(table, S.MECHANISM, "mechanism", probs)
    if m is None:
        return None
    bodies = []
    for path, t in _items(m, "bodies", "mechanism"):
        v = S.read_table(t, S.BODY, path, probs)
        if not S.has_bad(v):
            bodies.append(Body(**v))
    beams = _read_beams(_items(m, "beams", "mechanism"), probs)
    joints = []
    for path, t in _items(m, "joints", "mechanism"):
        sec = _typed(t, S.JOINT_TYPES, path, probs)
        v = S.read_table(t, sec, path, probs) if sec else None
        # the friction law of an ideal joint
        if v is not None and v.get("friction") not in (None, S.BAD):
            v["friction"] = _model(registry, "friction", v["friction"], f"{path}.friction", probs)
            from ..mbs.joint_friction import check_law
            why = None if v["friction"] is S.BAD else check_law(v["friction"], str(v.get("name")),
                                                                 set_valued_ok=True)
            if why:
                probs.add(f"{path}.friction.model", why)
                v["friction"] = S.BAD
            if v.get("pin_radius", 0.0) is None:
                probs.add(f"{path}.pin_radius", "a revolute joint with friction needs 'pin_radius' "
                                                "[m] > 0, the radius of its friction circle")
                continue
        if v is not None and v.get("pin_radius", 0.0) is None:
            v["pin_radius"] = 0.0
        if not S.has_bad(v):
            cls = RevoluteJoint if v.pop("type") == "revolute" else TranslationalJoint
            if cls is TranslationalJoint and not _axis(v["axis"], f"{path}.axis", probs):
                continue
            joints.append(cls(**v))
    drivers = [d for path, t in _items(m, "drivers", "mechanism")
               if (d := _driver(t, path, probs)) is not None]
    forces = []
    for path, t in _items(m, "forces", "mechanism"):
        sec = _typed(t, S.FORCE_TYPES, path, probs)
        v = S.read_table(t, sec, path, probs) if sec else None
        if not S.has_bad(v):
            cls = {"spring_damper": SpringDamper, "force": ConstantForce, "torque": ConstantTorque}[v.pop("type")]
            forces.append(cls(**v))
    clearance = [c for path, t in _items(m, "clearance_joints", "mechanism")
                 if (c := _clearance(t, path, probs, registry)) is not None]
    from ..nonsmooth.support import set_valued_problems
    for key, msg in set_valued_problems(joints, clearance, m):
        probs.add(key, msg)
    if m["bodies"] is not S.BAD and not m["bodies"]:
        probs.add("mechanism.bodies", "the mechanism needs at least one moving body ([[mechanism.bodies]])")
    if S.has_bad(m):
        return None
    return Mechanism(bodies=tuple(bodies), joints=tuple(joints), drivers=tuple(drivers),
                     forces=tuple(forces), clearance_joints=tuple(clearance),
                     ground_points=dict(m["ground_points"]), gravity=m["gravity"],
                     beams=tuple(beams))  # flexible beams (owner: workbench.flex)


def _driver(t, path: str, probs: S.Problems) -> Driver | None:
    v = S.read_table(t, S.DRIVER, path, probs)
    if S.has_bad(v):
        return None
    given = [k for k in ("speed", "speed_rpm", "function") if v[k] is not None]
    if len(given) != 1:
        probs.add(path, f"give exactly one of 'speed' [m/s or rad/s], 'speed_rpm' [rev/min] or "
                        f"'function'; got {', '.join(repr(g) for g in given) or 'none'}")
        return None
    if v["speed_rpm"] is not None and v["coordinate"] != "phi":
        probs.add(f"{path}.speed_rpm", f"'speed_rpm' is for angle drivers (coordinate = \"phi\"), "
                                       f"this driver moves '{v['coordinate']}'; use 'speed' [m/s]")
        return None
    if v["function"] is not None:
        if "initial" in t:
            probs.add(f"{path}.initial", "'initial' goes with 'speed'; with 'function' put the "
                                         "value at t = 0 in function.polynomial[0]")
            return None
        f = S.read_table(v["function"], S.DRIVER_FUNCTION, f"{path}.function", probs)
        if S.has_bad(f):
            return None
        func = DriverFunction(polynomial=f["polynomial"], harmonics=f["harmonics"])
    else:
        key = "speed" if v["speed"] is not None else "speed_rpm"
        speed = v["speed"] if v["speed"] is not None else v["speed_rpm"] * 2.0 * math.pi / 60.0
        from .bounds import driver_speed
        if not driver_speed(speed, path, key, v[key], probs):
            return None
        func = DriverFunction(polynomial=(v["initial"], speed))
    return Driver(name=v["name"], body=v["body"], function=func, coordinate=v["coordinate"],
                  relative_to=v["relative_to"])


def _clearance(t, path: str, probs: S.Problems, registry):
    sec = _typed(t, S.CLEARANCE_TYPES, path, probs)
    v = S.read_table(t, sec, path, probs) if sec else None
    if v is None:
        return None
    kind = v.pop("type")
    contact_table, friction_table = v.pop("contact"), v.pop("friction")
    contact = S.BAD if contact_table is S.BAD else \
        _model(registry, "contact", contact_table, f"{path}.contact", probs)
    if friction_table is None or friction_table is S.BAD:
        friction = friction_table
    else:
        friction = _model(registry, "friction", friction_table, f"{path}.friction", probs)
    lub_table = v.pop("lubrication", None)
    lubrication = lub_table if lub_table is None or lub_table is S.BAD else \
        _model(registry, "lubrication", lub_table, f"{path}.lubrication", probs)
    if kind == "revolute":
        mats = ("bushing_material", "journal_material")
        size, alt = "bushing_radius", "clearance"
    else:
        mats = ("guide_material", "slider_material")
        size, alt = "guide_height", "clearance"
    for mname in mats:
        if v[mname] is not S.BAD:
            v[mname] = _material(v[mname], f"{path}.{mname}", probs)
    if (S.has_bad(v) or contact is S.BAD or friction is S.BAD or lubrication is S.BAD
            or None in (v[mats[0]], v[mats[1]])):
        return None
    c = v.pop(alt)
    if (v[size] is None) == (c is None):
        probs.add(path, f"give exactly one of '{size}' [m] and 'clearance' [m]")
        return None
    if kind == "revolute":
        if c is not None:
            v[size] = v["journal_radius"] + c
        return RevoluteClearanceJoint(contact=contact, friction=friction, lubrication=lubrication, **v)
    if c is not None:
        v[size] = v["slider_height"] + 2.0 * c
    if not _axis(v["axis"], f"{path}.axis", probs):
        return None
    return TranslationalClearanceJoint(contact=contact, friction=friction, **v)


def _axis(axis, path: str, probs: S.Problems) -> bool:
    """A translational axis must be a direction (it is normalised): not zero, not denormal."""
    if axis_ok(axis):
        return True
    probs.add(path, f"axis {list(axis)} is not a direction: its length must be at least "
                    f"{MIN_AXIS_LENGTH:g} (it is normalised), e.g. [1.0, 0.0]")
    return False


def first_angle_driver(mechanism: Mechanism) -> Driver | None:
    """The first driver of an angle (``phi``), or ``None``."""
    return mechanism.first_angle_driver()


def _solver(table, probs: S.Problems, mechanism: Mechanism | None,
            output: OutputOptions | None, t_end: float | None = None) -> SolverSettings | None:
    """``[solver]``; ``t_end`` given by the caller (wear loop) replaces t_end/revolutions."""
    v = S.read_table(table, S.SOLVER, "solver", probs)
    if S.has_bad(v):
        return None
    if t_end is not None:
        v.pop("t_end"); v.pop("revolutions")
        step = output.step if output is not None else S.OUTPUT.keys[0].default
        return SolverSettings(t_end=v["t_start"] + t_end, output_step=step, **v)
    t_end, revs = v.pop("t_end"), v.pop("revolutions")
    if (t_end is None) == (revs is None):
        probs.add("solver", "give exactly one of 't_end' [s] and 'revolutions' "
                            f"(got {'both' if t_end is not None else 'neither'})")
        return None
    if revs is not None:
        if mechanism is None or probs.items:  # the driver may be the broken part: no follow-on error
            return None
        d = first_angle_driver(mechanism)
        f = d.function if d is not None else None
        if f is None or f.harmonics or len(f.polynomial) != 2 or f.polynomial[1] == 0.0:
            probs.add("solver.revolutions", "'revolutions' needs a first angle driver with a "
                                            "constant non-zero speed; give 't_end' [s] instead")
            return None
        t_end = v["t_start"] + revs * 2.0 * math.pi / abs(f.polynomial[1])
    if not t_end > v["t_start"]:
        probs.add("solver.t_end", f"t_end = {t_end:g} s must be after t_start = {v['t_start']:g} s")
        return None
    step = output.step if output is not None else S.OUTPUT.keys[0].default
    return SolverSettings(t_end=t_end, output_step=step, **v)


# --------------------------------------------------------------------------------------------
# running
# --------------------------------------------------------------------------------------------
def run_study(study: Study, *, registry=None, out: str | Path | None = None, **options):
    """Run ``study`` and return its dataset, written to ``out`` when given.

    The one dispatcher on the study kind is :func:`workbench.kinds.run` (this is its name in
    the study layer); ``options`` are the kind's own (wear: ``resume``, ``overwrite``, ``note`` ...).
    """
    from .. import kinds
    return kinds.run(study, registry=registry, out=out, **options)


def load_any(path_or_text, *, registry=None):
    """A :class:`Study` from a path (``str`` or :class:`~pathlib.Path`) to a TOML study file, the
    TOML text itself (a string with a line break or starting with ``[``), or a loaded study
    (returned as it is).  Relative paths inside a study given as text are taken from the current
    folder.  ``registry``: the model registry (default: a new one of the installed models)."""
    if isinstance(path_or_text, Study):
        return path_or_text
    if registry is None:
        from ..plugins import build_registry
        registry = build_registry()
    if isinstance(path_or_text, str) and ("\n" in path_or_text or path_or_text.lstrip().startswith("[")):
        return load_study_text(path_or_text, registry=registry)
    if not isinstance(path_or_text, (str, Path)):
        raise WorkbenchError(f"load_study: expected a path or TOML text, got {type(path_or_text).__name__}")
    return load_study(path_or_text, registry=registry)

