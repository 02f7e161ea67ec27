"""Sweep files: a base study, a parameter grid, and the summary quantities to compare.

A sweep file is TOML::

    [sweep]
    title = "Contact laws on the Flores slider-crank"      # optional
    description = "..."                                    # optional
    base = "flores_slider_crank.toml"    # the base study, relative to this file
    summary = ["first_impact_peak_force", "n_impacts"]     # reducers (workbench.reducers);
                                                           # default: all of the study's kind
    zip = [["clearance", "speed"]]       # optional: parameters varied together (equal lengths)
    unset = ["mechanism.clearance_joints[0].bushing_radius"]   # optional: keys removed from the
                                         # base first (here: so that 'clearance' can be swept)
    case_timeout = 600.0                 # optional [s]: a case running longer is stopped and
                                         # recorded as timed_out (each case then runs in its own
                                         # process; `workbench sweep --case-timeout` overrides it)

    [set]                                # optional: the same change in every case
    "output.compare_ideal" = false

    [grid]                               # one entry per parameter: study key = values
    "mechanism.clearance_joints[0].clearance" = [1.0e-4, 2.5e-4, 5.0e-4]
    "mechanism.drivers[0].speed_rpm" = { values = [1000.0, 5000.0], name = "speed" }
    "mechanism.clearance_joints[0].contact" = { name = "contact_law", values = [
        { model = "hertz" }, { model = "lankarani_nikravesh", restitution = 0.9 } ] }

A key is a dotted path into the base study (``[i]`` indexes an array of tables).  Every key must
exist in the base study, except a last component that the study format (or, inside a model table,
the model) defines, which may be added.  An entry is either the list of values or a table with
``values`` and optionally ``name`` (the dimension name; default: the last key component,
``<table>_model`` for a ``model`` key), ``labels`` (coordinate labels; default: the values, the
``model`` of table values), ``units`` (default: the unit the study format or the model gives the
key) and ``long_name``.

The cases are the full outer product of the parameters; the parameters of one ``zip`` group vary
together and share one dimension (named after the group's first parameter).
"""
from __future__ import annotations

import copy
import itertools
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import study_schema as S
from .errors import StudyError, choices_text, did_you_mean
from .reducers import reducers_for

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

TOP_LEVEL = ("sweep", "set", "grid")
SWEEP_KEYS = ("title", "description", "base", "summary", "zip", "unset", "case_timeout")
ENTRY_KEYS = ("values", "name", "labels", "units", "long_name")
#: variable names of the sweep dataset and dimensions of study results: not usable as parameter names
RESERVED = ("status", "error", "wall_time", "cpu_time", "case_file", "worker", "case", "time", "joint", "body",
            "driver", "component", "axis", "impact", "cycle", "surface", "theta")
_MODEL_FAMILY = {"contact": "contact", "friction": "friction", "pressure": "pressure", "law": "wear"}
_COMPONENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_\-]*)((?:\[\d+\])*)$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Parameter:
    """One swept study key.

    name : dimension name in the sweep dataset.
    path : dotted key path in the study (``mechanism.clearance_joints[0].clearance``).
    values : the TOML values put into the study, one per case along the dimension.
    labels : coordinate labels (numbers or strings), one per value.
    units, long_name : of the coordinate.
    """
    name: str
    path: str
    parts: tuple
    values: tuple
    labels: tuple
    units: str
    long_name: str

    @property
    def numeric(self) -> bool:
        return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in self.labels)


@dataclass(frozen=True)
class Case:
    """One run of the sweep: its flat index, its position along every sweep dimension, the
    labels of every parameter and the ``(path, value)`` settings applied to the base study."""
    index: int
    position: tuple[int, ...]
    labels: dict
    settings: tuple


@dataclass(frozen=True)
class Sweep:
    """A loaded sweep file (see the module docstring)."""
    file: Path | None
    text: str
    title: str
    description: str
    base_file: Path
    base_text: str
    base_doc: dict
    kind: str
    unset: tuple            # (path, ...) removed from the base study first
    fixed: tuple            # ((path, parts, value), ...) applied to every case
    parameters: tuple[Parameter, ...]
    groups: tuple[tuple[str, ...], ...]   # parameter names per dimension (zip groups together)
    summary: tuple[str, ...]
    cases: tuple[Case, ...] = field(default=(), repr=False)
    case_timeout: float | None = None     # [s] wall time allowed per case (None: no limit)

    @property
    def dims(self) -> tuple[str, ...]:
        return tuple(g[0] for g in self.groups)

    @property
    def shape(self) -> tuple[int, ...]:
        by = {p.name: p for p in self.parameters}
        return tuple(len(by[g[0]].values) for g in self.groups)

    def parameter(self, name: str) -> Parameter:
        return next(p for p in self.parameters if p.name == name)


# --------------------------------------------------------------------------------------------
# key paths
# --------------------------------------------------------------------------------------------
def parse_path(path: str) -> tuple:
    """``"a.b[0].c"`` -> ``("a", "b", 0, "c")``; raises ``ValueError`` on a malformed path."""
    parts: list = []
    for comp in str(path).split("."):
        m = _COMPONENT.match(comp)
        if not m:
            raise ValueError(f"'{comp}' is not a key (letters, digits, '_' or '-', then optional [index])")
        parts.append(m.group(1))
        parts.extend(int(i) for i in re.findall(r"\[(\d+)\]", m.group(2)))
    return tuple(parts)


def format_path(parts) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else p)
    return out


def _sections() -> list:
    return [v for v in vars(S).values() if isinstance(v, S.Section)]


def _schema_keys(parent: tuple, table: dict) -> dict[str, Any]:
    """Keys the study format defines for the table at ``parent`` (name -> schema Key)."""
    if not parent:
        return {k: None for k in S.TOP_LEVEL}
    names = [p for p in parent if isinstance(p, str)]
    if names[-1].endswith("material"):
        return {k.name: k for k in S.MATERIAL.keys}
    norm = "".join("[]" if isinstance(p, int) else (f".{p}" if i else p) for i, p in enumerate(parent))
    out: dict[str, Any] = {}
    for sec in _sections():
        if sec.path.split(" (")[0] != norm:
            continue
        m = re.search(r'type = "([^"]+)"', sec.path)
        if m and table.get("type") not in (None, m.group(1)):
            continue
        out.update({k.name: k for k in sec.keys})
    return out


def check_path(doc: dict, parts: tuple, *, registry=None) -> str | None:
    """Why ``parts`` cannot be set in ``doc``, or ``None`` if it can.

    Every component must exist, except one the study format or the model defines for its table
    (that one, and the tables on the way to it, are created when the case is built).
    """
    node: Any = doc
    for i, p in enumerate(parts):
        here = format_path(parts[:i]) or "the top level"
        if isinstance(p, int):
            if not isinstance(node, list):
                return f"'{here}' is not an array in the base study, so [{p}] cannot index it"
            if p >= len(node):
                return (f"'{here}' has {len(node)} entr{'y' if len(node) == 1 else 'ies'} in the base "
                        f"study; index [{p}] is out of range (valid: 0 .. {len(node) - 1})")
            node = node[p]
            continue
        if node is None:   # a table the study format defines but the base study leaves out
            node = {}
        if not isinstance(node, dict):
            return f"'{here}' is a value ({node!r}) in the base study, not a table with key '{p}'"
        if p in node:
            node = node[p]
            continue
        known = dict.fromkeys(node)
        known.update(_schema_keys(parts[:i], node))
        if "model" in node:
            known.update(dict.fromkeys(_model_parameters(node, parts[:i], registry)))
        if p in known:
            node = None
            continue
        return (f"'{p}' is not a key of '{here}' in the base study.{did_you_mean(p, known)} "
                f"Valid: {choices_text(known) or '(none)'}")
    return None


def _model_parameters(table: dict, parent: tuple, registry) -> list[str]:
    family = _MODEL_FAMILY.get(next((p for p in reversed(parent) if isinstance(p, str)), ""))
    if registry is None or family is None:
        return []
    try:
        return [p.name for p in registry.entry(family, str(table["model"])).cls.parameters()]
    except Exception:  # noqa: BLE001 - an unknown model is reported when the case loads
        return []


def unset_path(doc: dict, parts: tuple) -> None:
    """Remove the key ``parts`` from ``doc`` (it must exist)."""
    node = doc
    for p in parts[:-1]:
        node = node[p]
    del node[parts[-1]]


def set_path(doc: dict, parts: tuple, value: Any) -> None:
    """Set ``parts`` in ``doc`` to a deep copy of ``value`` (creating missing tables)."""
    node = doc
    for p in parts[:-1]:
        if isinstance(p, str) and p not in node:
            node[p] = {}
        node = node[p]
    node[parts[-1]] = copy.deepcopy(value)


def key_units(doc: dict, parts: tuple, registry=None) -> str:
    """Unit of a study key: from the model's parameters or the study format; ``""`` if unknown."""
    node: Any = doc
    for p in parts[:-1]:
        try:
            node = node[p]
        except (KeyError, IndexError, TypeError):
            return ""
    last = parts[-1]
    if isinstance(node, dict) and "model" in node and last != "model" and registry is not None:
        family = _MODEL_FAMILY.get(next((p for p in reversed(parts[:-1]) if isinstance(p, str)), ""))
        try:
            for info in registry.entry(family, str(node["model"])).cls.parameters():
                if info.name == last:
                    return "" if info.unit == "text" else info.unit
        except Exception:  # noqa: BLE001
            return ""
    if isinstance(node, dict):
        key = _schema_keys(parts[:-1], node).get(last)
        if key is not None and key.kind in ("number", "int", "vec2", "numbers"):
            return key.unit
    return ""


# --------------------------------------------------------------------------------------------
# loading
# --------------------------------------------------------------------------------------------
def load_sweep(path: str | Path, registry=None) -> Sweep:
    """Read and check the sweep file ``path`` (its base study is read too)."""
    from .study import read_file_text
    path = Path(path)
    return load_sweep_text(read_file_text(path, "sweep file"), file=path, registry=registry)


def load_sweep_text(text: str, *, file: str | Path | None = None, registry=None) -> Sweep:
    """Check a sweep given as TOML text; a relative ``base`` is relative to ``file``'s folder."""
    from .study import parse_toml
    fname = str(file) if file is not None else "<sweep>"
    doc = parse_toml(text, fname)

    def err(key, msg):
        return StudyError(msg, file=fname, key=key)

    for k in doc:
        if k not in TOP_LEVEL:
            raise err(k, f"unknown table '{k}'.{did_you_mean(k, TOP_LEVEL)} Valid: {choices_text(TOP_LEVEL)}")
    head = doc.get("sweep", {})
    for k in head:
        if k not in SWEEP_KEYS:
            raise err(f"sweep.{k}", f"unknown key '{k}'.{did_you_mean(k, SWEEP_KEYS)} "
                                    f"Valid: {choices_text(SWEEP_KEYS)}")
    if "base" not in head:
        raise err("sweep.base", "missing required key 'base' (the base study file, relative to "
                                "this sweep file)")
    base_file = Path(str(head["base"]))
    if not base_file.is_absolute():
        base_file = (Path(file).parent if file is not None else Path.cwd()) / base_file
    try:
        base_text = base_file.read_text(encoding="utf-8")
        base_doc = tomllib.loads(base_text)
    except OSError as exc:
        raise err("sweep.base", f"cannot read the base study {base_file}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise err("sweep.base", f"the base study {base_file} is not valid TOML: {exc}") from None
    kind = str(base_doc.get("study", {}).get("kind", "dynamics"))
    if registry is None:
        from .plugins import build_registry
        registry = build_registry()

    unset = head.get("unset", [])
    if not isinstance(unset, list) or not all(isinstance(k, str) for k in unset):
        raise err("sweep.unset", f"expected a list of study key paths, got {unset!r}")
    effective = copy.deepcopy(base_doc)
    for key in unset:
        parts = _checked_parts(key, effective, registry, "sweep.unset", err)
        if _missing(effective, parts):
            raise err("sweep.unset", f"'{key}' is not set in the base study, so it cannot be unset")
        unset_path(effective, parts)
    fixed = []
    for key, value in doc.get("set", {}).items():
        parts = _checked_parts(key, effective, registry, f"set.{key}", err)
        fixed.append((key, parts, value))
    for _, parts, value in fixed:
        set_path(effective, parts, value)

    grid = doc.get("grid", {})
    if not grid:
        raise err("grid", "the sweep has no parameters: add a [grid] table, e.g. "
                          "\"mechanism.clearance_joints[0].clearance\" = [1.0e-4, 2.0e-4]")
    params = [_parameter(key, entry, effective, registry, err) for key, entry in grid.items()]
    names = [p.name for p in params]
    for n in names:
        if names.count(n) > 1:
            dup = [p.path for p in params if p.name == n]
            raise err("grid", f"two parameters have the dimension name '{n}' ({', '.join(dup)}); "
                              "give them distinct names with {{ values = [...], name = \"...\" }}")

    summary = head.get("summary")
    valid = reducers_for(kind)
    if summary is None:
        summary = list(valid)
    if not isinstance(summary, list) or not summary:
        raise err("sweep.summary", f"expected a non-empty list of summary quantities, got {summary!r}; "
                                   f"valid for a {kind} study: {choices_text(valid)}")
    for s in summary:
        if s not in valid:
            raise err("sweep.summary", f"'{s}' is not a summary quantity of a {kind} study."
                                       f"{did_you_mean(str(s), valid)} Valid: {choices_text(valid)}")
        if s in names:
            raise err("grid", f"parameter name '{s}' is also a summary quantity; rename the parameter")

    groups = _groups(head.get("zip", []), params, err)
    case_timeout = head.get("case_timeout")
    if case_timeout is not None and (isinstance(case_timeout, bool) or not isinstance(case_timeout, (int, float))
                                     or not math.isfinite(case_timeout) or case_timeout <= 0):
        raise err("sweep.case_timeout", f"expected a positive number of seconds, got {case_timeout!r}")
    title = str(head.get("title") or (Path(file).stem if file is not None else "sweep"))
    sweep = Sweep(file=Path(file) if file is not None else None, text=text, title=title,
                  description=str(head.get("description", "")), base_file=base_file,
                  base_text=base_text, base_doc=base_doc, kind=kind, unset=tuple(unset),
                  fixed=tuple(fixed),
                  parameters=tuple(params), groups=groups, summary=tuple(summary),
                  case_timeout=float(case_timeout) if case_timeout is not None else None)
    return Sweep(**{**sweep.__dict__, "cases": tuple(expand(sweep))})


def _missing(doc: dict, parts: tuple) -> bool:
    node: Any = doc
    for p in parts:
        try:
            node = node[p]
        except (KeyError, IndexError, TypeError):
            return True
    return False


def _checked_parts(key: str, base_doc: dict, registry, where: str, err) -> tuple:
    try:
        parts = parse_path(key)
    except ValueError as exc:
        raise err(where, f"bad study key path '{key}': {exc}") from None
    why = check_path(base_doc, parts, registry=registry)
    if why is not None:
        raise err(where, f"the study key '{key}' does not exist: {why}")
    return parts


def _parameter(key: str, entry: Any, base_doc: dict, registry, err) -> Parameter:
    where = f"grid.{key}"
    parts = _checked_parts(key, base_doc, registry, where, err)
    opts = {"values": entry} if isinstance(entry, list) else entry
    if not isinstance(opts, dict) or "values" not in opts:
        raise err(where, "expected a list of values or a table { values = [...], name = ..., "
                         f"labels = [...], units = ... }}, got {entry!r}")
    for k in opts:
        if k not in ENTRY_KEYS:
            raise err(f"{where}.{k}", f"unknown key '{k}'.{did_you_mean(k, ENTRY_KEYS)} "
                                      f"Valid: {choices_text(ENTRY_KEYS)}")
    values = opts["values"]
    if not isinstance(values, list) or not values:
        raise err(where, f"expected a non-empty list of values, got {values!r}")
    strs = [p for p in parts if isinstance(p, str)]
    name = opts.get("name") or (f"{strs[-2]}_model" if strs[-1] == "model" and len(strs) > 1 else strs[-1])
    if not isinstance(name, str) or not _NAME.match(name) or name in RESERVED:
        raise err(f"{where}.name", f"'{name}' cannot be a dimension name (letters, digits and '_'; "
                                   f"not one of {choices_text(RESERVED)}); set name = \"...\"")
    labels = opts.get("labels")
    if labels is None:
        if all(isinstance(v, dict) for v in values):
            labels = [v.get("model") for v in values]
            if None in labels:
                raise err(f"{where}.labels", "table values without a 'model' key need labels = [...]")
        elif any(isinstance(v, (dict, list)) for v in values):
            raise err(f"{where}.labels", "array or table values need labels = [...] (one per value)")
        else:
            labels = list(values)
    if not isinstance(labels, list) or len(labels) != len(values):
        raise err(f"{where}.labels", f"expected {len(values)} labels (one per value), got {labels!r}")
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in labels)
    labels = [float(v) for v in labels] if numeric else [str(v) for v in labels]
    if numeric and not all(math.isfinite(v) for v in labels):
        raise err(where, f"labels must be finite numbers, got {labels!r}")
    if len(set(labels)) != len(labels):
        raise err(f"{where}.labels", f"labels must be distinct, got {labels!r}")
    units = opts.get("units")
    if units is None:
        units = key_units(base_doc, parts, registry) if numeric else ""
    long_name = str(opts.get("long_name") or f"study key {key}")
    return Parameter(name=name, path=key, parts=parts, values=tuple(values), labels=tuple(labels),
                     units=str(units), long_name=long_name)


def _groups(zips: Any, params: list[Parameter], err) -> tuple[tuple[str, ...], ...]:
    by = {p.name: p for p in params}
    if not isinstance(zips, list) or not all(isinstance(g, list) for g in zips):
        raise err("sweep.zip", f"expected a list of lists of parameter names, got {zips!r}")
    seen: dict[str, int] = {}
    for i, g in enumerate(zips):
        if len(g) < 2:
            raise err("sweep.zip", f"group {g!r} needs at least two parameter names")
        for n in g:
            if n not in by:
                raise err("sweep.zip", f"'{n}' is not a parameter name.{did_you_mean(str(n), by)} "
                                       f"Valid: {choices_text(by)}")
            if n in seen:
                raise err("sweep.zip", f"'{n}' is in two zip groups")
            seen[n] = i
        sizes = {n: len(by[n].values) for n in g}
        if len(set(sizes.values())) > 1:
            raise err("sweep.zip", f"the parameters of a zip group need the same number of values, "
                                   f"got {sizes}")
    groups, done = [], set()
    for p in params:   # dimensions in the order the grid lists them
        if p.name in done:
            continue
        g = tuple(zips[seen[p.name]]) if p.name in seen else (p.name,)
        groups.append(g)
        done.update(g)
    return tuple(groups)


def expand(sweep: Sweep) -> list[Case]:
    """Every case of the sweep, in C order of the dimensions (last dimension fastest)."""
    by = {p.name: p for p in sweep.parameters}
    cases = []
    for index, pos in enumerate(itertools.product(*(range(n) for n in sweep.shape))):
        labels, settings = {}, [(path, value) for path, _, value in sweep.fixed]
        for g, i in zip(sweep.groups, pos):
            for name in g:
                p = by[name]
                labels[name] = p.labels[i]
                settings.append((p.path, p.values[i]))
        cases.append(Case(index=index, position=tuple(pos), labels=labels, settings=tuple(settings)))
    return cases
