"""Sweep files: a base study, a parameter grid, and the summary quantities to compare.

A sweep file is TOML::

    [sweep]
    title = "Contact laws on the Flores slider-crank"      # optional
    description = "..."                                    # optional
    base = "flores_slider_crank.toml"    # the base study, relative to this file
    summary = ["first_impact_peak_force", "n_impacts"]     # reducers (workbench.results.reducers);
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..study import schema as S
from ..errors import StudyError, choices_text, did_you_mean
from ..schema import sweep as W
from ..schema.core import BAD, Problems, has_bad, read_table, unknown_tables
from ..study.input import is_sweep_file  # noqa: F401 (re-exported)
from ..schema.paths import (check_path, checked_parts, format_path, key_units, parse_path, set_path,  # noqa: F401 (re-exported)
                           unset_path)

TOP_LEVEL = W.TOP_LEVEL
SWEEP_KEYS = tuple(W.SWEEP.names())
ENTRY_KEYS = tuple(W.ENTRY.names())
#: variable names of the sweep dataset and dimensions of study results: not usable as parameter names
RESERVED = ("status", "error", "wall_time", "cpu_time", "case_file", "worker", "case", "time", "joint", "body",
            "driver", "component", "axis", "impact", "cycle", "surface", "theta")
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
# loading
# --------------------------------------------------------------------------------------------
def load_sweep(path: str | Path, registry=None, max_cases: int | None = None) -> Sweep:
    """Read and check the sweep file ``path`` (its base study is read too); ``max_cases``
    overrides the file's ``[sweep] max_cases``."""
    from ..study.input import read_file_text
    path = Path(path)
    return load_sweep_text(read_file_text(path, "sweep file"), file=path, registry=registry,
                           max_cases=max_cases)


def _read_base(head: dict, file, probs: Problems) -> tuple[Path, str, dict] | None:
    from ..study.input import parse_toml, read_file_text
    base_file = Path(str(head["base"]))
    if not base_file.is_absolute():
        base_file = (Path(file).parent if file is not None else Path.cwd()) / base_file
    try:
        base_text = read_file_text(base_file, "base study")
        return base_file, base_text, parse_toml(base_text, str(base_file))
    except StudyError as exc:
        probs.add("sweep.base", f"{S.bare_message(exc)} ({base_file})".replace(
            "not valid TOML", f"the base study {base_file} is not valid TOML", 1))
        return None


def load_sweep_text(text: str, *, file: str | Path | None = None, registry=None,
                    max_cases: int | None = None) -> Sweep:
    """Check a sweep given as TOML text; a relative ``base`` is relative to ``file``'s folder.

    Every problem of the file is reported at once (a :class:`StudyError` naming the file, the key
    path, the value and the valid choices).  A grid of more cases than ``max_cases`` (default: the
    file's ``[sweep] max_cases``) is refused before any case is built (:func:`check_size`)."""
    from ..study.input import parse_toml
    fname = str(file) if file is not None else "<sweep>"
    doc = parse_toml(text, fname)
    probs = Problems(fname)
    unknown_tables(doc, TOP_LEVEL, probs)
    head = read_table(doc.get("sweep", {}), W.SWEEP, "sweep", probs)
    base = _read_base(head, file, probs) if head is not None and head["base"] is not BAD else None
    if base is None:
        probs.raise_if_any()   # nothing below can be checked without the base study
    base_file, base_text, base_doc = base
    kind = str(base_doc.get("study", {}).get("kind", "dynamics"))
    if registry is None:
        from ..plugins import build_registry
        registry = build_registry()

    effective = copy.deepcopy(base_doc)
    unset = head["unset"] if head["unset"] is not BAD else ()
    for i, key in enumerate(unset):
        parts = checked_parts(key, effective, registry, "sweep.unset", probs)
        if parts is None:
            continue
        if _missing(effective, parts):
            probs.add("sweep.unset", f"'{key}' is not set in the base study, so it cannot be unset")
            continue
        unset_path(effective, parts)
    fixed = []
    set_table = doc.get("set", {})
    if not isinstance(set_table, dict):
        probs.add("set", f"expected a table of study key = value, got {set_table!r}")
        set_table = {}
    for key, value in set_table.items():
        parts = checked_parts(key, effective, registry, f"set.{key}", probs)
        if parts is not None:
            fixed.append((key, parts, value))
    for _, parts, value in fixed:
        set_path(effective, parts, value)

    grid = doc.get("grid", {})
    if not isinstance(grid, dict) or not grid:
        probs.add("grid", "the sweep has no parameters: add a [grid] table, e.g. "
                          "\"mechanism.clearance_joints[0].clearance\" = [1.0e-4, 2.0e-4]")
        grid = {}
    params = [p for key, entry in grid.items()
              if (p := _parameter(key, entry, effective, registry, probs)) is not None]
    names = [p.name for p in params]
    for n in dict.fromkeys(names):
        if names.count(n) > 1:
            dup = [p.path for p in params if p.name == n]
            probs.add("grid", f"two parameters have the dimension name '{n}' ({', '.join(dup)}); "
                              "give them distinct names with {{ values = [...], name = \"...\" }}")

    groups = _groups(head["zip"], params, probs) if len(params) == len(grid) else None
    if groups is not None and head["max_cases"] is not BAD:   # before anything costs time
        n_before = len(probs.items)
        check_size(params, groups, max_cases if max_cases is not None else head["max_cases"],
                   "--max-cases" if max_cases is not None else "[sweep] max_cases", probs)
        if len(probs.items) > n_before:
            probs.raise_if_any()
    from ..results.reducers import reducers_for   # imports xarray: only when a sweep is loaded
    valid = reducers_for(kind)
    summary = head["summary"] if head["summary"] not in (None, BAD) else list(valid)
    if head["summary"] is not BAD and not summary:
        probs.add("sweep.summary", f"expected a non-empty list of summary quantities, got {summary!r}; "
                                   f"valid for a {kind} study: {choices_text(valid)}")
    for s in summary:
        if s not in valid:
            probs.add("sweep.summary", f"'{s}' is not a summary quantity of a {kind} study."
                                       f"{did_you_mean(str(s), valid)} Valid: {choices_text(valid)}")
        if s in names:
            probs.add("grid", f"parameter name '{s}' is also a summary quantity; rename the parameter")

    probs.raise_if_any()
    case_timeout = head["case_timeout"]
    title = str(head["title"] or (Path(file).stem if file is not None else "sweep"))
    sweep = Sweep(file=Path(file) if file is not None else None, text=text, title=title,
                  description=str(head["description"]), base_file=base_file,
                  base_text=base_text, base_doc=base_doc, kind=kind, unset=tuple(unset),
                  fixed=tuple(fixed),
                  parameters=tuple(params), groups=groups, summary=tuple(summary),
                  case_timeout=float(case_timeout) if case_timeout is not None else None)
    return Sweep(**{**sweep.__dict__, "cases": tuple(expand(sweep))})


#: the default of ``[sweep] max_cases``
DEFAULT_MAX_CASES = int(W.SWEEP.key("max_cases").default)


def quick_size_check(path: str | Path, max_cases: int | None = None) -> None:
    """Refuse a grid above its case limit from the sweep file's text alone, before the plugins
    are loaded (so that ``validate`` answers a 10^6-case grid in well under a second): the cases
    are the product of the grid's list lengths.  Only when that count is exact -- no ``zip``
    groups, every entry a list or a table with a ``values`` list, a valid ``max_cases`` -- does it
    refuse; anything else is left to :func:`load_sweep` (which checks the size again, exactly)."""
    from ..study.input import parse_toml, read_file_text
    try:
        doc = parse_toml(read_file_text(Path(path), "sweep file"), str(path))
    except StudyError:
        return
    head, grid = doc.get("sweep"), doc.get("grid")
    if not isinstance(head, dict) or not isinstance(grid, dict) or not grid or "zip" in head:
        return
    limit = max_cases if max_cases is not None else head.get("max_cases", DEFAULT_MAX_CASES)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        return
    sizes = []
    for entry in grid.values():
        values = entry.get("values") if isinstance(entry, dict) else entry
        if not isinstance(values, list) or not values:
            return
        sizes.append(len(values))
    n = math.prod(sizes)
    if n > limit:
        where = "--max-cases" if max_cases is not None else "[sweep] max_cases"
        probs = Problems(str(path))
        probs.add("grid", f"the grid has {n:,} cases ({' x '.join(str(k) for k in sizes)}), above the "
                          f"limit of {limit:,} ({where}): each case is a full run writing its own result "
                          f"file, so the sweep would run {n:,} studies; coarsen the grid, or raise the "
                          f"limit ([sweep] max_cases = N in the sweep file, or --max-cases N) if it is meant")
        probs.raise_if_any()


def check_size(params, groups, limit: int, where: str, probs: Problems) -> None:
    """Refuse a grid of more than ``limit`` cases, counted from the dimensions' lengths (the cases
    are not enumerated): the number, the dimensions and the limit with the key to raise."""
    by = {p.name: p for p in params}
    sizes = [len(by[g[0]].values) for g in groups]
    n = math.prod(sizes)
    if n > limit:
        probs.add("grid", f"the grid has {n:,} cases ({' x '.join(f'{g[0]} ({k})' for g, k in zip(groups, sizes))}), "
                          f"above the limit of {limit:,} ({where}): each case is a full run writing its "
                          f"own result file, so the sweep would run {n:,} studies; coarsen the grid, or "
                          f"raise the limit ([sweep] max_cases = N in the sweep file, or --max-cases N) "
                          f"if it is meant")


def _missing(doc: dict, parts: tuple) -> bool:
    node: Any = doc
    for p in parts:
        try:
            node = node[p]
        except (KeyError, IndexError, TypeError):
            return True
    return False


def _parameter(key: str, entry: Any, base_doc: dict, registry, probs: Problems) -> Parameter | None:
    where = f"grid.{key}"
    parts = checked_parts(key, base_doc, registry, where, probs)
    if parts is None:
        return None
    opts = {"values": entry} if isinstance(entry, list) else entry
    if not isinstance(opts, dict) or "values" not in opts:
        probs.add(where, "expected a list of values or a table { values = [...], name = ..., "
                         f"labels = [...], units = ... }}, got {entry!r}")
        return None
    v = read_table(opts, W.ENTRY, where, probs)
    values = v["values"]
    if not isinstance(values, list) or not values:
        probs.add(where, f"expected a non-empty list of values, got {values!r}")
        return None
    strs = [p for p in parts if isinstance(p, str)]
    name = v["name"] if v["name"] is not None else \
        (f"{strs[-2]}_model" if strs[-1] == "model" and len(strs) > 1 else strs[-1])
    if name is BAD or not _NAME.match(name) or name in RESERVED:
        probs.add(f"{where}.name", f"'{opts.get('name', name)}' cannot be a dimension name (letters, digits "
                                   f"and '_'; not one of {choices_text(RESERVED)}); set name = \"...\"")
        return None
    labels = v["labels"]
    if labels is None:
        if all(isinstance(x, dict) for x in values):
            labels = [x.get("model") for x in values]
            if None in labels:
                probs.add(f"{where}.labels", "table values without a 'model' key need labels = [...]")
                return None
        elif any(isinstance(x, (dict, list)) for x in values):
            probs.add(f"{where}.labels", "array or table values need labels = [...] (one per value)")
            return None
        else:
            labels = list(values)
    if not isinstance(labels, list) or len(labels) != len(values):
        probs.add(f"{where}.labels", f"expected {len(values)} labels (one per value), got {labels!r}")
        return None
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in labels)
    labels = [float(x) for x in labels] if numeric else [str(x) for x in labels]
    if numeric and not all(math.isfinite(x) for x in labels):
        probs.add(where, f"labels must be finite numbers, got {labels!r}")
        return None
    if len(set(labels)) != len(labels):
        probs.add(f"{where}.labels", f"labels must be distinct, got {labels!r}")
        return None
    if has_bad(v):
        return None
    units = v["units"]
    if units is None:
        units = key_units(base_doc, parts, registry) if numeric else ""
    long_name = str(v["long_name"] or f"study key {key}")
    return Parameter(name=name, path=key, parts=parts, values=tuple(values), labels=tuple(labels),
                     units=str(units), long_name=long_name)


def _groups(zips: Any, params: list[Parameter], probs: Problems) -> tuple[tuple[str, ...], ...] | None:
    by = {p.name: p for p in params}
    if zips is BAD:
        return None
    if not isinstance(zips, (list, tuple)) or not all(isinstance(g, list) for g in zips):
        probs.add("sweep.zip", f"expected a list of lists of parameter names, got {zips!r}")
        return None
    n_bad = len(probs.items)
    seen: dict[str, int] = {}
    for i, g in enumerate(zips):
        if len(g) < 2:
            probs.add("sweep.zip", f"group {g!r} needs at least two parameter names")
        for n in g:
            if n not in by:
                probs.add("sweep.zip", f"'{n}' is not a parameter name.{did_you_mean(str(n), by)} "
                                       f"Valid: {choices_text(by)}")
            elif n in seen:
                probs.add("sweep.zip", f"'{n}' is in two zip groups")
            else:
                seen[n] = i
        sizes = {n: len(by[n].values) for n in g if n in by}
        if len(set(sizes.values())) > 1:
            probs.add("sweep.zip", f"the parameters of a zip group need the same number of values, "
                                   f"got {sizes}")
    if len(probs.items) > n_bad:
        return None
    groups, done = [], set()
    for p in params:   # dimensions in the order the grid lists them
        if p.name in done:
            continue
        g = tuple(zips[seen[p.name]]) if p.name in seen else (p.name,)
        groups.append(g)
        done.update(g)
    return tuple(groups)


def check_cases(sweep: Sweep, registry=None) -> None:
    """Load every case's study as ``run`` will (schema, models packed, mechanism assembled,
    plausibility guards), so that ``workbench validate`` refuses a sweep with a case that would
    fail at its start.  Every failing case is reported at once, under ``grid`` with its labels."""
    from ..study.load import load_study_text
    from .run import case_text
    probs = Problems(str(sweep.file) if sweep.file is not None else "<sweep>")
    for case in sweep.cases:
        try:
            load_study_text(case_text(sweep.base_doc, case.settings, sweep.unset),
                            file=sweep.base_file, registry=registry)
        except StudyError as exc:
            where = ", ".join(f"{k} = {v!r}" for k, v in case.labels.items())
            for e in getattr(exc, "problems", None) or [exc]:
                probs.add("grid", f"case {case.index} ({where}): [{e.key}] {S.bare_message(e)}"
                          if e.key else f"case {case.index} ({where}): {S.bare_message(e)}")
    probs.raise_if_any()


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
