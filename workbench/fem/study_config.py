"""Schema and validation of a ``kind = "pressure"`` study (static pin-in-bushing contact).

Tables and keys (SI units; the one conversion is ``persson_half_angles_deg``)::

    [study]    kind = "pressure", title, description
    [grid]     theta_nodes = 720                 # contact nodes on the bore [1]
    [output]   vtu = false                       # FE displacement/stress fields at the largest load
    [compare]  baseline = "fem"                  # model label the errors are relative to
               reference = ["persson", "hertz"]  # closed forms added as models
    [[cases]]  name, bore_radius [m], clearance [m] or clearances [m] (one case each),
               length [m], outer_radius [m] (held edge of the bushing or plate),
               bushing = {E [Pa], nu [1], rigid}, journal = {...},
               loads [N] or persson_half_angles_deg (loads giving these Persson half-angles),
               worn_depth [m], worn_half_angle [rad] (a cos^2 crescent of wear at the load line),
               worn_profile = {file, joint, cycle, load_angle} (the bushing wear profile of a wear
               result — a zarr store or a netCDF export — row ``cycle`` (index, default -1),
               turned so that ``load_angle`` [rad, bushing frame; default: the deepest wear]
               lies on the load line),
               bushing_mesh, pin_mesh (mesh files for the fem model, relative to the study file)
    [models.<label>]  plugin = "<pressure model>", its parameters, and optionally
               fit_to = "fem" (winkler only: k fitted to the FE half-angle) with fit_load = index
               of the load to fit at (default: fit at every load)

Errors are :class:`~workbench.errors.StudyError` naming the file, the key path, the bad value and the
valid choices.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from workbench.errors import StudyError, choices_text, did_you_mean
from workbench.models import Material

from . import closed_forms as cf

TOP = ("study", "grid", "compare", "cases", "models", "output")
OUTPUT = ("vtu",)
STUDY = ("kind", "title", "description")
GRID = ("theta_nodes",)
COMPARE = ("baseline", "reference")
REFERENCES = ("persson", "hertz")
CASE = ("name", "bore_radius", "clearance", "clearances", "length", "outer_radius", "bushing",
        "journal", "loads", "persson_half_angles_deg", "worn_depth", "worn_half_angle",
        "worn_profile", "bushing_mesh", "pin_mesh")
WORN_PROFILE = ("file", "joint", "cycle", "load_angle")
MATERIAL = ("E", "nu", "rigid")
MODEL_RUNNER_KEYS = ("plugin", "fit_to", "fit_load")


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


def _unknown(table: dict, valid, file, key):
    for k in table:
        if k not in valid:
            raise StudyError(f"unknown key '{k}'.{did_you_mean(k, valid)} Valid keys: {choices_text(valid)}",
                             file=file, key=f"{key}.{k}" if key else k)


def _number(v, file, key, *, positive=False, nonneg=False):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise StudyError(f"expected a finite number, got {v!r}", file=file, key=key)
    if positive and v <= 0 or nonneg and v < 0:
        raise StudyError(f"expected a {'positive' if positive else 'non-negative'} number, got {v!r}",
                         file=file, key=key)
    return float(v)


def _numbers(v, file, key, **kw):
    if not isinstance(v, list) or not v:
        raise StudyError(f"expected a non-empty list of numbers, got {v!r}", file=file, key=key)
    return [_number(x, file, f"{key}[{i}]", **kw) for i, x in enumerate(v)]


def _material(v, file, key) -> Material:
    if not isinstance(v, dict):
        raise StudyError(f"expected a table {{E, nu, rigid}}, got {v!r}", file=file, key=key)
    _unknown(v, MATERIAL, file, key)
    rigid = v.get("rigid", False)
    if not isinstance(rigid, bool):
        raise StudyError(f"expected true/false, got {rigid!r}", file=file, key=f"{key}.rigid")
    E = _number(v.get("E", 207e9), file, f"{key}.E", positive=True)
    nu = _number(v.get("nu", 0.3), file, f"{key}.nu")
    if not -1.0 < nu < 0.5:
        raise StudyError(f"Poisson's ratio must lie in (-1, 0.5), got {nu}", file=file, key=f"{key}.nu")
    return Material(E, nu, rigid)


def _cases(raw, file) -> list[Case]:
    if not isinstance(raw, list) or not raw:
        raise StudyError("expected at least one [[cases]] table", file=file, key="cases")
    out = []
    for i, c in enumerate(raw):
        key = f"cases[{i}]"
        if not isinstance(c, dict):
            raise StudyError("expected a table", file=file, key=key)
        _unknown(c, CASE, file, key)
        for req in ("name", "bore_radius", "length", "outer_radius"):
            if req not in c:
                raise StudyError(f"missing key '{req}'", file=file, key=f"{key}.{req}")
        R = _number(c["bore_radius"], file, f"{key}.bore_radius", positive=True)
        if ("clearance" in c) == ("clearances" in c):
            raise StudyError("give exactly one of 'clearance' and 'clearances'", file=file, key=key)
        cls = [_number(c["clearance"], file, f"{key}.clearance", nonneg=True)] if "clearance" in c \
            else _numbers(c["clearances"], file, f"{key}.clearances", nonneg=True)
        if ("loads" in c) == ("persson_half_angles_deg" in c):
            raise StudyError("give exactly one of 'loads' and 'persson_half_angles_deg'", file=file, key=key)
        common = dict(
            bore_radius=R,
            length=_number(c["length"], file, f"{key}.length", positive=True),
            outer_radius=_number(c["outer_radius"], file, f"{key}.outer_radius", positive=True),
            bushing=_material(c.get("bushing", {}), file, f"{key}.bushing"),
            journal=_material(c.get("journal", {}), file, f"{key}.journal"),
            worn_depth=_number(c.get("worn_depth", 0.0), file, f"{key}.worn_depth", nonneg=True),
            worn_half_angle=_number(c.get("worn_half_angle", 0.5), file, f"{key}.worn_half_angle",
                                    positive=True))
        base = Path(file).resolve().parent if file else Path.cwd()
        if "worn_profile" in c:
            common["worn_profile"] = _worn_profile(c["worn_profile"], base, file, f"{key}.worn_profile")
        for mk in ("bushing_mesh", "pin_mesh"):
            if mk in c:
                if not isinstance(c[mk], str):
                    raise StudyError(f"expected a mesh file path, got {c[mk]!r}", file=file, key=f"{key}.{mk}")
                path = (base / c[mk]).resolve()
                if not path.exists():
                    raise StudyError(f"mesh file {path} does not exist (run meshes/make_meshes.py)",
                                     file=file, key=f"{key}.{mk}")
                common[mk] = str(path)
        if common["outer_radius"] <= R * 1.05:
            raise StudyError(f"outer_radius must exceed 1.05 x bore_radius = {1.05 * R}", file=file,
                             key=f"{key}.outer_radius")
        if common["bushing"].rigid and common["journal"].rigid:
            raise StudyError("at least one of bushing and journal must be elastic", file=file, key=key)
        name = c["name"]
        if not isinstance(name, str) or not name:
            raise StudyError(f"expected a text name, got {name!r}", file=file, key=f"{key}.name")
        for dR in cls:
            if not 0 <= dR < 0.5 * R:
                raise StudyError(f"clearance {dR} m must lie in [0, R/2)", file=file, key=f"{key}.clearance")
            if "loads" in c:
                loads = _numbers(c["loads"], file, f"{key}.loads", positive=True)
            else:
                eps = _numbers(c["persson_half_angles_deg"], file, f"{key}.persson_half_angles_deg",
                               positive=True)
                if dR <= 0:
                    raise StudyError("persson_half_angles_deg needs a positive clearance", file=file, key=key)
                E_star = 1.0 / (common["bushing"].h + common["journal"].h)
                loads = []
                for j, e in enumerate(eps):
                    if not e < math.degrees(cf.PERSSON_EPS_MAX):
                        raise StudyError(f"Persson half-angles must lie below "
                                         f"{math.degrees(cf.PERSSON_EPS_MAX):.2f} deg, got {e}",
                                         file=file, key=f"{key}.persson_half_angles_deg[{j}]")
                    loads.append(cf.persson_load_ratio(math.radians(e)) * E_star * dR * common["length"])
            label = name if len(cls) == 1 else f"{name}_c{dR:.3g}"
            out.append(Case(label, clearance=dR, loads=tuple(loads), **common))
    n_loads = {len(c.loads) for c in out}
    if len(n_loads) > 1:
        raise StudyError(f"every case needs the same number of loads, got {sorted(n_loads)}", file=file,
                         key="cases")
    names = [c.name for c in out]
    if len(set(names)) != len(names):
        raise StudyError(f"case names must be unique, got {names}", file=file, key="cases")
    return out


def _models(raw, registry, file, n_loads) -> list[ModelSpec]:
    if not isinstance(raw, dict) or not raw:
        raise StudyError("expected at least one [models.<label>] table", file=file, key="models")
    out = []
    for label, m in raw.items():
        key = f"models.{label}"
        if not isinstance(m, dict) or "plugin" not in m:
            raise StudyError(f"expected a table with plugin = \"<{'|'.join(registry.names('pressure'))}>\"",
                             file=file, key=key)
        plugin = m["plugin"]
        params = {k: v for k, v in m.items() if k not in MODEL_RUNNER_KEYS}
        registry.create("pressure", plugin, params, file=file, key=key)  # checks names and values
        fit_to, fit_load = m.get("fit_to"), m.get("fit_load")
        if fit_to is not None:
            if fit_to != "fem" or plugin != "winkler":
                raise StudyError(f"fit_to = {fit_to!r} is only valid as \"fem\" on a winkler model",
                                 file=file, key=f"{key}.fit_to")
        if fit_load is not None and (isinstance(fit_load, bool) or not isinstance(fit_load, int)
                                     or not 0 <= fit_load < n_loads):
            raise StudyError(f"fit_load must be a load index in [0, {n_loads - 1}], got {fit_load!r}",
                             file=file, key=f"{key}.fit_load")
        if label in REFERENCES:
            raise StudyError(f"model label '{label}' is reserved for the closed form", file=file, key=key)
        out.append(ModelSpec(label, plugin, params, fit_to, fit_load))
    return out


def parse_pressure_study(config: dict, registry, file: str | None) -> PressureStudy:
    """Validate a pressure study document and return it as a :class:`PressureStudy`."""
    _unknown(config, TOP, file, "")
    st = config.get("study", {})
    _unknown(st, STUDY, file, "study")
    if st.get("kind") != "pressure":
        raise StudyError(f"expected kind = \"pressure\", got {st.get('kind')!r}", file=file, key="study.kind")
    grid = config.get("grid", {})
    _unknown(grid, GRID, file, "grid")
    n = grid.get("theta_nodes", 720)
    if isinstance(n, bool) or not isinstance(n, int) or n < 24 or n % 4:
        raise StudyError(f"theta_nodes must be an integer >= 24 divisible by 4, got {n!r}", file=file,
                         key="grid.theta_nodes")
    cases = _cases(config.get("cases"), file)
    models = _models(config.get("models"), registry, file, len(cases[0].loads))
    cmp_ = config.get("compare", {})
    _unknown(cmp_, COMPARE, file, "compare")
    labels = [m.label for m in models]
    baseline = cmp_.get("baseline", "fem")
    if baseline not in labels:
        raise StudyError(f"baseline '{baseline}' is not a model label.{did_you_mean(baseline, labels)} "
                         f"Valid choices: {choices_text(labels)}", file=file, key="compare.baseline")
    ref = cmp_.get("reference", list(REFERENCES))
    if not isinstance(ref, list) or any(r not in REFERENCES for r in ref):
        bad = [r for r in ref if r not in REFERENCES] if isinstance(ref, list) else ref
        raise StudyError(f"unknown closed form {bad!r}. Valid choices: {choices_text(REFERENCES)}",
                         file=file, key="compare.reference")
    if any(m.fit_to == "fem" for m in models) and not any(m.plugin == "fem" for m in models):
        raise StudyError("fit_to = \"fem\" needs a model with plugin = \"fem\"", file=file, key="models")
    output = config.get("output", {})
    _unknown(output, OUTPUT, file, "output")
    vtu = output.get("vtu", False)
    if not isinstance(vtu, bool):
        raise StudyError(f"expected true/false, got {vtu!r}", file=file, key="output.vtu")
    return PressureStudy(str(st.get("title", "")), n, baseline, tuple(ref), cases, models, vtu)


def _worn_profile(v, base: Path, file, key: str) -> tuple:
    """``(h_bushing [m], load_angle [rad])`` from ``worn_profile = {file, joint, cycle, load_angle}``."""
    if not isinstance(v, dict) or "file" not in v:
        raise StudyError("expected a table {file = \"<wear result>\", joint = \"<name>\", cycle = -1, "
                         "load_angle = <rad>}", file=file, key=key)
    _unknown(v, WORN_PROFILE, file, key)
    path = (base / str(v["file"])).resolve()
    if not path.exists():
        raise StudyError(f"wear result {path} does not exist (run the wear study first)", file=file,
                         key=f"{key}.file")
    from workbench.results import open_results
    try:
        ds = open_results(path)
        depth = ds["wear_depth"]
    except (OSError, ValueError, KeyError) as exc:
        raise StudyError(f"{path} is not a wear result ({exc})", file=file, key=f"{key}.file") from None
    joints = [str(j) for j in ds["joint"].values]
    joint = str(v.get("joint", joints[0]))
    if joint not in joints:
        raise StudyError(f"joint '{joint}' is not in {path}.{did_you_mean(joint, joints)} Valid: "
                         f"{choices_text(joints)}", file=file, key=f"{key}.joint")
    cycle = v.get("cycle", -1)
    n = ds.sizes["cycle"]
    if not isinstance(cycle, int) or not -n <= cycle < n:
        raise StudyError(f"cycle must be a row index in [-{n}, {n - 1}], got {cycle!r}", file=file,
                         key=f"{key}.cycle")
    h = np.asarray(depth.sel(joint=joint, surface="bushing").isel(cycle=cycle).values, float)
    if "load_angle" in v:
        angle = _number(v["load_angle"], file, f"{key}.load_angle")
    else:
        angle = float(2 * math.pi * np.argmax(h) / h.size)
    return (tuple(h.tolist()), angle)
