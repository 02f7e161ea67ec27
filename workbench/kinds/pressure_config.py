"""Parse and check a ``kind = "pressure"`` study (static pin-in-bushing contact) into a
:class:`PressureStudy`.

The tables and keys, with units and defaults, are the schema sections of
:mod:`workbench.schema.pressure` (documented in ``docs/study_format.md``); materials are the
study's ``material`` section.  :func:`parse_pressure` checks a TOML document against them and adds
the checks that need several keys or the plugin registry (exactly one of ``clearance`` and
``clearances``, the outer radius, the Persson half-angles, equal load counts, the models and their
parameters, the baseline label, the wear profile file).  Every problem goes to one
:class:`~workbench.schema.core.Problems` list, so a file with several mistakes is reported at once,
each naming the file, the key path, the bad value and the valid choices.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from workbench.errors import StudyError, choices_text, did_you_mean
from workbench.models import Material
from workbench.study import schema as S
from workbench.schema import pressure as P
from workbench.schema.core import BAD, Problems, exactly_one, has_bad, read_table, unknown_tables

from ..fem import closed_forms as cf

#: keys of a ``[models.<label>]`` table that are the study's, not the model's parameters
MODEL_RUNNER_KEYS = tuple(P.MODEL.names())
REFERENCES = P.REFERENCES


@dataclass(frozen=True)
class Case:
    """One static contact case (lengths in m, loads in N)."""
    name: str
    bore_radius: float
    clearance: float
    length: float
    outer_radius: float
    bushing: Material
    journal: Material
    loads: tuple
    worn_depth: float = 0.0
    worn_half_angle: float = 0.5
    bushing_mesh: str | None = None
    pin_mesh: str | None = None
    worn_profile: tuple | None = None   # (bushing wear depths [m] on uniform nodes, load angle [rad])

    def gap(self, theta: np.ndarray) -> np.ndarray:
        """Radial gap [m] on the nodes: clearance plus the worn crescent centred on theta = 0,
        or plus a wear result's bushing profile turned so its load angle is at theta = 0."""
        if self.worn_profile is not None:
            from workbench.wear.surfaces import periodic_interp
            h, angle = self.worn_profile
            return self.clearance + periodic_interp(np.asarray(h, float), np.asarray(theta) + angle)
        th = np.angle(np.exp(1j * theta))
        w = np.where(np.abs(th) < self.worn_half_angle,
                     np.cos(0.5 * math.pi * th / self.worn_half_angle) ** 2, 0.0)
        return self.clearance + self.worn_depth * w

    @property
    def E_star(self) -> float:
        h = self.bushing.h + self.journal.h
        return 1.0 / h if h > 0 else math.inf


@dataclass(frozen=True)
class ModelSpec:
    label: str
    plugin: str
    params: dict
    fit_to: str | None = None
    fit_load: int | None = None


@dataclass
class PressureStudy:
    title: str
    theta_nodes: int
    baseline: str
    reference: tuple
    cases: list = field(default_factory=list)
    models: list = field(default_factory=list)
    vtu: bool = False


def _material(value, path: str, probs: Problems) -> Material | None:
    vals = read_table({} if value is None else value, S.MATERIAL, path, probs)
    return None if has_bad(vals) else Material(**vals)


def _case(c, i: int, base: Path, probs: Problems) -> list[Case]:
    """The cases of one ``[[cases]]`` table (one per clearance); ``[]`` when it has problems."""
    key = f"cases[{i}]"
    v = read_table(c, P.CASE, key, probs)
    if v is None:
        return []
    mats = {m: _material(v[m], f"{key}.{m}", probs) for m in ("bushing", "journal") if v[m] is not BAD}
    clr = exactly_one(v, ("clearance", "clearances"), key, probs, {"clearance": "m", "clearances": "m"}) \
        if BAD not in (v["clearance"], v["clearances"]) else None
    how = exactly_one(v, ("loads", "persson_half_angles_deg"), key, probs,
                        {"loads": "N", "persson_half_angles_deg": "deg"}) \
        if BAD not in (v["loads"], v["persson_half_angles_deg"]) else None
    R = v["bore_radius"]
    if R is not BAD and v["outer_radius"] is not BAD and not v["outer_radius"] > 1.05 * R:
        probs.add(f"{key}.outer_radius", f"outer_radius = {v['outer_radius']} m must exceed 1.05 x "
                                         f"bore_radius = {1.05 * R} m")
    if len(mats) == 2 and None not in mats.values() and mats["bushing"].rigid and mats["journal"].rigid:
        probs.add(key, "at least one of bushing and journal must be elastic (rigid = false)")
    profile = None
    if v["worn_profile"] not in (None, BAD):
        profile = _worn_profile(v["worn_profile"], base, probs, f"{key}.worn_profile")
    meshes = {}
    for mk in ("bushing_mesh", "pin_mesh"):
        if v[mk] not in (None, BAD):
            path = (base / v[mk]).resolve()
            if not path.exists():
                probs.add(f"{key}.{mk}", f"mesh file {path} does not exist (run meshes/make_meshes.py)")
            meshes[mk] = str(path)
    if clr is None or how is None or has_bad(v) or None in mats.values() or len(mats) < 2:
        return []
    cls = [v["clearance"]] if clr == "clearance" else list(v["clearances"])
    ok = True
    for j, dR in enumerate(cls):
        if not dR < 0.5 * R:
            where = f"{key}.clearance" if clr == "clearance" else f"{key}.clearances[{j}]"
            probs.add(where, f"clearance {dR} m must lie in [0, R/2) = [0, {0.5 * R}) m")
            ok = False
    if how == "persson_half_angles_deg":
        for j, e in enumerate(v["persson_half_angles_deg"]):
            if not e < math.degrees(cf.PERSSON_EPS_MAX):
                probs.add(f"{key}.persson_half_angles_deg[{j}]",
                          f"Persson half-angles must lie below {math.degrees(cf.PERSSON_EPS_MAX):.2f} deg, got {e}")
                ok = False
        if any(dR <= 0 for dR in cls):
            probs.add(key, "persson_half_angles_deg needs a positive clearance")
            ok = False
    if not ok or (profile is BAD):
        return []
    common = dict(bore_radius=R, length=v["length"], outer_radius=v["outer_radius"],
                  bushing=mats["bushing"], journal=mats["journal"], worn_depth=v["worn_depth"],
                  worn_half_angle=v["worn_half_angle"], **meshes)
    if profile is not None:
        common["worn_profile"] = profile
    out = []
    for dR in cls:
        if how == "loads":
            loads = v["loads"]
        else:
            E_star = 1.0 / (mats["bushing"].h + mats["journal"].h)
            loads = tuple(cf.persson_load_ratio(math.radians(e)) * E_star * dR * v["length"]
                          for e in v["persson_half_angles_deg"])
        label = v["name"] if len(cls) == 1 else f"{v['name']}_c{dR:.3g}"
        out.append(Case(label, clearance=dR, loads=tuple(loads), **common))
    return out


def _cases(raw, file, probs: Problems) -> list[Case] | None:
    if raw is None or isinstance(raw, list) and not raw:
        probs.add("cases", "expected at least one [[cases]] table")
        return None
    if not isinstance(raw, list) or not all(isinstance(c, dict) for c in raw):
        probs.add("cases", f"expected an array of tables ([[cases]] entries), got {raw!r}")
        return None
    base = Path(file).resolve().parent if file and not str(file).startswith("<") else Path.cwd()
    n_bad = len(probs.items)
    out = [case for i, c in enumerate(raw) for case in _case(c, i, base, probs)]
    if len(probs.items) > n_bad:
        return None
    n_loads = {len(c.loads) for c in out}
    if len(n_loads) > 1:
        probs.add("cases", f"every case needs the same number of loads, got {sorted(n_loads)}")
    names = [c.name for c in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        probs.add("cases", f"case names must be unique, got {choices_text(dup)} more than once")
    return out if len(probs.items) == n_bad else None


def _models(raw, registry, probs: Problems, n_loads: int | None) -> list[ModelSpec] | None:
    if not isinstance(raw, dict) or not raw:
        probs.add("models", "expected at least one [models.<label>] table, e.g. [models.fem] "
                            "plugin = \"fem\"")
        return None
    n_bad = len(probs.items)
    out = []
    for label, m in raw.items():
        key = f"models.{label}"
        if label in REFERENCES:
            probs.add(key, f"model label '{label}' is reserved for the closed form; choose another label")
        if not isinstance(m, dict):
            probs.add(key, f"expected a table with plugin = \"<name>\", got {m!r}")
            continue
        params = {k: x for k, x in m.items() if k not in MODEL_RUNNER_KEYS}
        v = read_table({k: x for k, x in m.items() if k in MODEL_RUNNER_KEYS}, P.MODEL, key, probs)
        plugin = v["plugin"]
        if plugin is not BAD:
            try:
                registry.entry("pressure", plugin, file=probs.file, key=f"{key}.plugin")
                registry.create("pressure", plugin, params, file=probs.file, key=key)
            except StudyError as exc:
                if exc.file is None:  # raised by a model's own checks, which know neither file nor path
                    exc = StudyError(S.bare_message(exc), file=probs.file,
                                     key=f"{key}.{exc.key}" if exc.key else key)
                probs.extend(exc)
            except (TypeError, ValueError) as exc:
                probs.add(key, f"pressure model '{plugin}' rejected its parameters: {exc}")
        cls = _pressure_class(registry, plugin)
        if v["fit_to"] not in (None, BAD) and getattr(cls, "calibration", None) != "half_angle":
            probs.add(f"{key}.fit_to", f"fit_to = {v['fit_to']!r} is only valid as \"fem\" on a winkler model "
                                       f"(or another model calibrated by its half-angle), not on '{plugin}'")
        if v["fit_load"] not in (None, BAD) and n_loads is not None and not v["fit_load"] < n_loads:
            probs.add(f"{key}.fit_load", f"fit_load must be a load index in [0, {n_loads - 1}], got {v['fit_load']!r}")
        if not has_bad(v):
            out.append(ModelSpec(label, plugin, params, v["fit_to"], v["fit_load"]))
    if len(probs.items) == n_bad and any(m.fit_to == "fem" for m in out) and not any(
            getattr(_pressure_class(registry, m.plugin), "fe_model", False) for m in out):
        probs.add("models", "fit_to = \"fem\" needs a finite-element model (e.g. plugin = \"fem\")")
    return out if len(probs.items) == n_bad else None


def _pressure_class(registry, plugin):
    """The registered class of a pressure model (None for an unknown or unreadable name): the host
    asks a model's capabilities (``fe_model``, ``calibration``), never its name."""
    if plugin is BAD or plugin is None:
        return None
    try:
        return registry.entry("pressure", plugin).cls
    except Exception:   # an unknown name is reported by the registry check above
        return None


def parse_pressure(doc: dict, *, file: str | None, registry, problems: Problems) -> PressureStudy | None:
    """Check the pressure study ``doc`` (a parsed TOML document); every problem goes to
    ``problems``.  Returns the :class:`PressureStudy`, or ``None`` when a problem was found."""
    probs = problems
    n_bad = len(probs.items)
    unknown_tables(doc, P.TOP_LEVEL, probs)
    st = read_table(doc.get("study", {}), S.STUDY, "study", probs) or {}
    if st.get("kind") not in (BAD, "pressure"):
        probs.add("study.kind", f"expected kind = \"pressure\", got {st.get('kind')!r}")
    grid = read_table(doc.get("grid", {}), P.GRID, "grid", probs)
    n = None if has_bad(grid) else grid["theta_nodes"]
    if n is not None and n % 4:
        probs.add("grid.theta_nodes", f"theta_nodes must be a multiple of 4, got {n}")
    cases = _cases(doc.get("cases"), file, probs)
    models = _models(doc.get("models"), registry, probs, len(cases[0].loads) if cases else None)
    cmp_ = read_table(doc.get("compare", {}), P.COMPARE, "compare", probs)
    raw_models = doc.get("models")
    if cmp_ is not None and cmp_["baseline"] is not BAD and isinstance(raw_models, dict) and raw_models:
        labels = list(raw_models)
        if cmp_["baseline"] not in labels:
            b = cmp_["baseline"]
            probs.add("compare.baseline", f"baseline '{b}' is not a model label.{did_you_mean(b, labels)} "
                                          f"Valid choices: {choices_text(labels)}")
    out = read_table(doc.get("output", {}), P.OUTPUT, "output", probs)
    if len(probs.items) > n_bad or has_bad(cmp_) or has_bad(out) or cases is None or models is None:
        return None
    return PressureStudy(str(st.get("title") or ""), n, cmp_["baseline"], tuple(cmp_["reference"]),
                         cases, models, out["vtu"])


def parse_pressure_study(config: dict, registry, file: str | None) -> PressureStudy:
    """Check a pressure study document and return it; a :class:`StudyError` listing every problem."""
    probs = Problems(file)
    study = parse_pressure(config, file=file, registry=registry, problems=probs)
    probs.raise_if_any()
    return study


def _worn_profile(v: dict, base: Path, probs: Problems, key: str):
    """``(h_bushing [m], load_angle [rad])`` from ``worn_profile = {file, joint, cycle, load_angle}``
    (:data:`BAD` after recording a problem)."""
    w = read_table(v, P.WORN_PROFILE, key, probs)
    if has_bad(w):
        return BAD
    path = (base / w["file"]).resolve()
    if not path.exists():
        probs.add(f"{key}.file", f"wear result {path} does not exist (run the wear study first)")
        return BAD
    from workbench.results.dataset import open_results
    try:
        ds = open_results(path)
        depth = ds["wear_depth"]
    except (OSError, ValueError, KeyError) as exc:
        probs.add(f"{key}.file", f"{path} is not a wear result ({exc})")
        return BAD
    joints = [str(j) for j in ds["joint"].values]
    joint = w["joint"] if w["joint"] is not None else joints[0]
    if joint not in joints:
        probs.add(f"{key}.joint", f"joint '{joint}' is not in {path}.{did_you_mean(joint, joints)} Valid: "
                                  f"{choices_text(joints)}")
        return BAD
    cycle, n = w["cycle"], ds.sizes["cycle"]
    if not -n <= cycle < n:
        probs.add(f"{key}.cycle", f"cycle must be a row index in [-{n}, {n - 1}], got {cycle!r}")
        return BAD
    h = np.asarray(depth.sel(joint=joint, surface="bushing").isel(cycle=cycle).values, float)
    angle = w["load_angle"] if w["load_angle"] is not None else float(2 * math.pi * np.argmax(h) / h.size)
    return (tuple(h.tolist()), angle)
