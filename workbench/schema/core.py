"""The schema machinery: keys, sections, and the one value check every input goes through.

A :class:`Section` is a table of an input file (a study of any kind, a sweep, a model's
parameters); a :class:`Key` is one of its keys with type, SI unit, default, bounds and meaning.
:func:`read_table` checks a table against a section -- unknown keys (with a did-you-mean),
missing required keys, types, bounds and choices -- and *collects* every problem in a
:class:`Problems` list instead of stopping at the first one; :meth:`Problems.raise_if_any` then
reports them together, each with the file, the key path and the value.

Model parameters (:func:`workbench.models.parameter`) are checked by the same
:func:`check_value`, through :func:`parameter_key`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..errors import StudyError, choices_text, did_you_mean

REQUIRED = object()   # marks a key without a default
BAD = object()        # value of a key whose check failed (the problem is already recorded)

#: kinds of values a key can hold (see :class:`Key`)
KINDS = ("number", "int", "bool", "text", "free_text", "vec2", "numbers", "triples", "points",
         "texts", "table", "tables", "any")


@dataclass(frozen=True)
class Key:
    """One key of a table.

    kind: ``number`` | ``int`` | ``bool`` | ``text`` | ``free_text`` (may be empty) | ``vec2`` |
    ``numbers`` | ``triples`` | ``points`` | ``texts`` | ``table`` | ``tables`` (array of tables) |
    ``any`` (checked by the caller).  ``gt``/``lt`` are exclusive bounds, ``min``/``max``
    inclusive ones (for ``numbers``: of every element).  ``default=None`` marks an optional key
    with no default value.
    """
    name: str
    kind: str
    unit: str
    doc: str
    default: Any = REQUIRED
    gt: float | None = None
    lt: float | None = None
    min: float | None = None
    max: float | None = None
    choices: tuple | None = None

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


@dataclass(frozen=True)
class Section:
    """A table of an input file (``path`` as written in the docs, e.g. ``mechanism.bodies[]``)."""
    path: str
    doc: str
    keys: tuple[Key, ...]

    def names(self) -> list[str]:
        return [k.name for k in self.keys]

    def key(self, name: str) -> Key | None:
        return next((k for k in self.keys if k.name == name), None)


# --------------------------------------------------------------------------------------------
# problem collection
# --------------------------------------------------------------------------------------------
class Problems:
    """Every problem found in one input file, reported together by :meth:`raise_if_any`."""

    def __init__(self, file: str | None):
        self.file = file
        self.items: list[StudyError] = []

    def add(self, key: str | None, message: str) -> None:
        self.items.append(StudyError(message, file=self.file, key=key))

    def extend(self, exc: StudyError) -> None:
        """Record ``exc``; a multi-problem error contributes each of its problems."""
        self.items.extend(getattr(exc, "problems", None) or [exc])

    def raise_if_any(self) -> None:
        if not self.items:
            return
        if len(self.items) == 1:
            raise self.items[0]
        lines = "\n  - ".join(f"[{e.key}] {bare_message(e)}" if e.key else bare_message(e) for e in self.items)
        err = StudyError(f"{len(self.items)} problems:\n  - {lines}", file=self.file)
        err.problems = list(self.items)
        raise err


def bare_message(e: StudyError) -> str:
    """The message of a StudyError without its ``file: [key]:`` prefix."""
    text = str(e)
    prefix = (f"{e.file}" if e.file else "") + (f"{': ' if e.file else ''}[{e.key}]" if e.key else "")
    return text[len(prefix) + 2:] if prefix and text.startswith(prefix + ": ") else text


# --------------------------------------------------------------------------------------------
# value checks
# --------------------------------------------------------------------------------------------
def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _u(unit: str) -> str:
    return "" if unit in ("", "1", "text") else f" {unit}"


def bounds_text(key: Key) -> str:
    """``"between 1 and 3"``, ``"> 0 and <= 0.5"``, ``">= 2"`` ... (no unit)."""
    if key.min is not None and key.max is not None and key.gt is None and key.lt is None:
        return f"between {key.min:g} and {key.max:g}"
    parts = []
    if key.gt is not None:
        parts.append(f"> {key.gt:g}")
    if key.min is not None:
        parts.append(f">= {key.min:g}")
    if key.lt is not None:
        parts.append(f"< {key.lt:g}")
    if key.max is not None:
        parts.append(f"<= {key.max:g}")
    return " and ".join(parts)


#: units spelled out in messages ("a positive number of seconds")
UNIT_WORDS = {"s": "seconds", "m": "metres", "N": "newtons", "Pa": "pascals", "kg": "kilograms"}


def fmt_number(v: float) -> str:
    """``4.0``, ``-0.21``, ``1e+12``: the value as typed where short, else in ``g`` form."""
    g = f"{v:g}"
    return g if "e" in g or "n" in g else repr(v)


def range_problem(v: float, key: Key, typed: Any = None) -> str | None:
    """Why the finite number ``v`` is outside the bounds of ``key``, or ``None``; ``typed``: the
    value as the file has it (an integer is shown as one: ``0``, not ``0.0``)."""
    unit = _u(key.unit)
    x = str(typed) if isinstance(typed, int) and not isinstance(typed, bool) else fmt_number(v)
    valid = f"; valid: {bounds_text(key)}{unit}"
    if key.gt is not None and not v > key.gt:
        words = f" (a positive number of {UNIT_WORDS[key.unit]})" if key.gt == 0 and key.unit in UNIT_WORDS else ""
        alone = bounds_text(key) == f"> {key.gt:g}"
        return f"{key.name} must be a finite number > {key.gt:g}{unit}{words}, got {x}{'' if alone else valid}"
    if key.min is not None and v < key.min:
        return f"value {x} is below the minimum {key.min}{unit} (must be >= {key.min:g}){valid}"
    if key.lt is not None and not v < key.lt:
        alone = bounds_text(key) == f"< {key.lt:g}"
        return f"{key.name} must be < {key.lt:g}{unit}, got {x}{'' if alone else valid}"
    if key.max is not None and v > key.max:
        return f"value {x} is above the maximum {key.max}{unit} (must be <= {key.max:g}){valid}"
    return None


def _number(v: Any, key: Key, path: str, probs: Problems) -> Any:
    unit = f" in {key.unit}" if key.unit not in ("", "1") else ""
    if not _is_number(v):
        probs.add(path, f"expected a number{unit}, got {v!r}")
        return BAD
    typed, v = v, float(v)
    if not math.isfinite(v):
        probs.add(path, f"expected a finite number{unit}, got {v!r}")
        return BAD
    why = range_problem(v, key, typed)
    if why:
        probs.add(path, why)
        return BAD
    return v


def _toml_text(c: Any) -> str:
    """A choice as a study file writes it (``true``/``false`` for booleans)."""
    return ("true" if c else "false") if isinstance(c, bool) else str(c)


def _in_choices(v: Any, choices) -> bool:
    """``v in choices``, where a boolean matches only a boolean (``1 == True`` in Python, not in TOML)."""
    return any(v == c and isinstance(v, bool) == isinstance(c, bool) for c in choices)


def _choice(v: Any, key: Key, path: str, probs: Problems) -> Any:
    if _in_choices(v, key.choices):
        return v
    names = [_toml_text(c) for c in key.choices]
    probs.add(path, f"{v!r} is not valid.{did_you_mean(str(v), names)} Valid choices: {choices_text(names)}")
    return BAD


def check_value(v: Any, key: Key, path: str, probs: Problems) -> Any:
    """Check and convert one value; record a problem and return :data:`BAD` when it is wrong."""
    k = key.kind
    if k == "any":
        return v
    if k == "number":
        return _number(v, key, path, probs)
    if k == "int":
        if not isinstance(v, int) or isinstance(v, bool):
            probs.add(path, f"expected an integer, got {v!r}")
            return BAD
        n = _number(v, key, path, probs)
        return BAD if n is BAD else int(n)
    if k == "bool":
        if not isinstance(v, bool):
            probs.add(path, f"expected true/false, got {v!r}")
            return BAD
        return v
    if k == "free_text":
        if not isinstance(v, str):
            probs.add(path, f"expected a text, got {v!r}")
            return BAD
        return v if key.choices is None else _choice(v, key, path, probs)
    if k == "text":
        if key.choices is not None:
            return _choice(v, key, path, probs)
        if not isinstance(v, str) or not v.strip():
            probs.add(path, f"expected a non-empty text, got {v!r}")
            return BAD
        return v
    if k == "vec2":
        if not isinstance(v, (list, tuple)) or len(v) != 2 or not all(_is_number(x) for x in v):
            probs.add(path, f"expected two numbers [x, y] [{key.unit}], got {v!r}")
            return BAD
        if not all(math.isfinite(float(x)) for x in v):
            probs.add(path, f"expected finite numbers, got {v!r}")
            return BAD
        return (float(v[0]), float(v[1]))
    if k == "numbers":
        if not isinstance(v, (list, tuple)) or not v or not all(_is_number(x) for x in v):
            probs.add(path, f"expected a non-empty list of numbers, got {v!r}")
            return BAD
        bad = [i for i, x in enumerate(v) if not math.isfinite(float(x))]
        if bad:
            probs.add(path, f"expected finite numbers, got {v[bad[0]]!r} at index {bad[0]} of {v!r}")
            return BAD
        out = tuple(float(x) for x in v)
        for i, x in enumerate(out):
            why = range_problem(x, key, v[i])
            if why:
                probs.add(f"{path}[{i}]", why)
                return BAD
        return out
    if k == "triples":
        if not isinstance(v, (list, tuple)) or not all(
                isinstance(t, (list, tuple)) and len(t) == 3 and all(_is_number(x) for x in t) for t in v):
            probs.add(path, f"expected a list of [amplitude, frequency, phase] triples, got {v!r}")
            return BAD
        bad = [i for i, t in enumerate(v) if not all(math.isfinite(float(x)) for x in t)]
        if bad:
            probs.add(path, f"expected finite numbers, got {v[bad[0]]!r} at index {bad[0]}")
            return BAD
        return tuple(tuple(float(x) for x in t) for t in v)
    if k == "points":
        if not isinstance(v, dict):
            probs.add(path, f"expected a table of named points, e.g. {{A = [0.0, 0.0]}}, got {v!r}")
            return BAD
        out, bad = {}, False
        for name, xy in v.items():
            val = check_value(xy, Key(name, "vec2", "m", ""), f"{path}.{name}", probs)
            bad |= val is BAD
            out[name] = val
        return BAD if bad else out
    if k == "texts":
        if not isinstance(v, (list, tuple)) or not all(isinstance(x, str) and x.strip() for x in v):
            probs.add(path, f"expected a list of names, e.g. [\"B\"], got {v!r}")
            return BAD
        if key.choices is not None:
            bad = [i for i, x in enumerate(v) if x not in key.choices]
            for i in bad:
                _choice(v[i], key, f"{path}[{i}]", probs)
            if bad:
                return BAD
        return tuple(v)
    if k == "table":
        if not isinstance(v, dict):
            probs.add(path, f"expected a table {{...}}, got {v!r}")
            return BAD
        return v
    if k == "tables":
        if not isinstance(v, list) or not all(isinstance(t, dict) for t in v):
            probs.add(path, f"expected an array of tables ([[{path}]] entries), got {v!r}")
            return BAD
        return v
    raise ValueError(f"unknown key kind {k!r}")  # programming error, not a user error


def read_table(table: Any, section: Section, path: str, probs: Problems,
               *, extra: tuple[str, ...] = ()) -> dict | None:
    """Check ``table`` against ``section``; return ``{name: value}`` with defaults filled in
    (:data:`BAD` for failed keys) or ``None`` when ``table`` is not a table at all.

    ``extra`` names keys that are allowed but handled by the caller (left out of the result).
    """
    if not isinstance(table, dict):
        probs.add(path or None, f"expected a table, got {table!r}")
        return None
    valid = section.names() + list(extra)
    for k in table:
        if k not in valid:
            where = f"{path}.{k}" if path else k
            probs.add(where, f"unknown key '{k}'.{did_you_mean(k, valid)} "
                             f"Valid keys here: {choices_text(valid)}")
    out = {}
    for key in section.keys:
        where = f"{path}.{key.name}" if path else key.name
        if key.name not in table:
            if key.required:
                probs.add(where, f"missing required key '{key.name}' ({key.doc}"
                                 f"{', ' + key.unit if key.unit not in ('', '1') else ''})")
                out[key.name] = BAD
            else:
                out[key.name] = key.default
            continue
        out[key.name] = check_value(table[key.name], key, where, probs)
    return out


def has_bad(values: dict | None) -> bool:
    return values is None or any(v is BAD for v in values.values())


def unknown_tables(doc: dict, valid: tuple[str, ...], probs: Problems) -> None:
    """Record every top-level table of ``doc`` that is not in ``valid``."""
    for k in doc:
        if k not in valid:
            probs.add(k, f"unknown top-level table '{k}'.{did_you_mean(k, valid)} "
                         f"Valid: {choices_text(valid)}")


def exactly_one(values: dict, names: tuple[str, ...], path: str, probs: Problems, units=()) -> str | None:
    """The one of ``names`` given (not ``None``) in ``values``; a problem when none or several are."""
    given = [n for n in names if values.get(n) is not None]
    if len(given) == 1:
        return given[0]
    units = dict(units)
    listed = " and ".join(f"'{n}'" + (f" [{units[n]}]" if n in units else "") for n in names)
    probs.add(path or None, f"give exactly one of {listed} (got {', '.join(repr(g) for g in given) or 'none'})")
    return None


# --------------------------------------------------------------------------------------------
# model parameters
# --------------------------------------------------------------------------------------------
def parameter_key(info) -> Key:
    """The :class:`Key` of a model parameter (a :class:`workbench.models.ParameterInfo`):
    its default's type gives the kind, its metadata the bounds and choices."""
    d = info.default
    if info.choices is not None:
        kind = "text" if all(isinstance(c, str) for c in info.choices) else "any"
    elif isinstance(d, bool):
        kind = "bool"
    elif isinstance(d, int):   # a count (an int default): checked and handed over as an int
        kind = "int"
    elif isinstance(d, float) or d is None and info.unit != "text":
        kind = "number"
    elif isinstance(d, str) or d is None:
        kind = "free_text"
    else:   # another type (a third party's tuple ...): the model's own checks decide
        kind = "any"
    return Key(info.name, kind, "" if info.unit == "text" else info.unit, info.doc,
               d, gt=getattr(info, "gt", None), lt=getattr(info, "lt", None),
               min=info.min, max=info.max, choices=info.choices)


def check_parameters(infos, values: dict, path: str, probs: Problems, what: str) -> dict | None:
    """Check a model's parameter table ``values`` against its :class:`ParameterInfo` list;
    every problem goes to ``probs`` (key path ``path.<name>``).  Returns the checked keyword
    values, or ``None`` when one failed.  ``what`` names the model in messages
    (e.g. ``"contact model 'hertz'"``)."""
    by = {p.name: p for p in infos}
    out, ok = {}, True
    for k, v in values.items():
        where = f"{path}.{k}" if path else k
        if k not in by:
            probs.add(where, f"unknown parameter '{k}' for {what}.{did_you_mean(k, by)} "
                             f"Valid parameters: {choices_text(by) or 'none'}")
            ok = False
            continue
        key = parameter_key(by[k])
        if key.kind == "any":
            if key.choices is not None and not _in_choices(v, key.choices):
                _choice(v, key, where, probs)
                ok = False
                continue
            out[k] = v
            continue
        val = check_value(v, key, where, probs)
        if val is BAD:
            ok = False
        out[k] = val
    return out if ok else None
