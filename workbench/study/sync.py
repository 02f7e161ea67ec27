"""Keep a study's text the truth about what runs: compare, record and write back changes made in Python.

A loaded :class:`~workbench.study.load.Study` is frozen, but ``dataclasses.replace`` builds a
changed copy whose ``text`` still says what the file said.  Before a run the dispatcher calls
:func:`synced`: a study whose state (every field but ``text``, ``file`` and ``warnings``, as plain
data: :func:`state`) is the state its text loads to runs as it is; otherwise every difference is
written back into the TOML document at the same key path, the document is written with
``tomli_w`` and loaded again, and only when that study's state equals the one that runs does the
run go on -- with the regenerated text and the changes recorded (``Study.changes``, stored as the
attribute ``study_changes``).  A change that has no place in a study file is refused with the
fields that differ: the stored text is never stale.

:func:`change` is the same edit made on purpose: ``change(study, {"mechanism.clearance_joints[0]
.bushing_radius": 0.0102})`` (TOML key paths) returns the reloaded study.  :func:`to_toml` is the
text of a study, regenerated from its document (a round trip TOML -> Study -> TOML -> Study gives
an equal study; ``tests/study/test_sync.py``).
"""
from __future__ import annotations

import dataclasses
import math
import re
import tomllib
from pathlib import Path
from typing import Any

from ..errors import StudyError

#: fields of a Study that are not its state (what is compared)
_NOT_STATE = ("text", "file", "warnings", "changes")
_MISSING = object()
_INDEX = re.compile(r"^(.*)\[(\d+)\]$")


def plain(obj: Any) -> Any:
    """``obj`` as nested dicts, lists and scalars: dataclasses by field, a model as its study-file
    table ``{"model": name, <parameters>}``, tuples as lists, paths as strings."""
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, float):
        return obj
    if hasattr(obj, "family") and hasattr(obj, "params") and hasattr(obj, "name"):   # a Model
        return {"model": obj.name, **plain(obj.params)}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "tolist"):
        return plain(obj.tolist())
    if isinstance(obj, (set, frozenset)):
        return sorted(plain(v) for v in obj)
    return repr(obj)


def state(study) -> dict:
    """What a study runs, as plain data (:func:`plain` of every field but its text and file)."""
    return {f.name: plain(getattr(study, f.name)) for f in dataclasses.fields(study)
            if f.name not in _NOT_STATE}


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b if not isinstance(a, (int, float)) else a == b


def diff(old, new, path: str = "") -> list[tuple[str, Any, Any]]:
    """The leaves where ``new`` differs from ``old`` (plain data): ``(key path, old, new)``; a list
    of another length and a value of another type differ as a whole."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for k in list(old) + [k for k in new if k not in old]:
            out += diff(old.get(k, _MISSING), new.get(k, _MISSING), f"{path}.{k}" if path else k)
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        out = []
        for i, (a, b) in enumerate(zip(old, new)):
            out += diff(a, b, f"{path}[{i}]")
        return out
    return [] if _same(old, new) else [(path, old, new)]


def _steps(path: str) -> list:
    steps: list = []
    for part in path.split("."):
        m = _INDEX.match(part)
        while m:   # a[1][2]
            inner = m.group(1)
            steps_idx = [int(m.group(2))]
            m2 = _INDEX.match(inner)
            while m2:
                steps_idx.insert(0, int(m2.group(2)))
                inner = m2.group(1)
                m2 = _INDEX.match(inner)
            steps += [inner, *steps_idx]
            break
        else:
            steps.append(part)
    return steps


def _toml_value(v):
    if isinstance(v, dict):
        return {k: _toml_value(x) for k, x in v.items() if x is not None and x is not _MISSING}
    if isinstance(v, (list, tuple)):
        return [_toml_value(x) for x in v]
    return v


def set_key(doc: dict, path: str, value) -> None:
    """Set the TOML key ``path`` (``a.b[0].c``) of the parsed document ``doc`` to ``value``
    (``None`` removes the key: the default applies); missing tables are created."""
    steps = _steps(path)
    node = doc
    for i, s in enumerate(steps[:-1]):
        nxt = steps[i + 1]
        if isinstance(s, int):
            if not isinstance(node, list) or s >= len(node):
                raise KeyError(path)
            node = node[s]
        else:
            if s not in node:
                node[s] = [] if isinstance(nxt, int) else {}
            node = node[s]
    last = steps[-1]
    if isinstance(last, int):
        node[last] = _toml_value(value)
    elif value is None or value is _MISSING:
        node.pop(last, None)
    else:
        node[last] = _toml_value(value)


def _write_back(doc: dict, path: str, new, mine: dict) -> None:
    """Write one difference of the study's state into its document (the study-file spellings of
    the few values the loader derives: the end time, the drivers' functions, the sample step)."""
    if path == "solver.t_end":
        doc.setdefault("solver", {}).pop("revolutions", None)
        set_key(doc, path, new)
        return
    if path == "solver.output_step":
        set_key(doc, "output.step", new)
        return
    m = re.match(r"^mechanism\.drivers\[(\d+)\]\.function", path)
    if m:
        i = int(m.group(1))
        drv = doc["mechanism"]["drivers"][i]
        f = mine["mechanism"]["drivers"][i]["function"]
        for k in ("initial", "speed", "speed_rpm"):
            drv.pop(k, None)
        drv["function"] = {"polynomial": list(f["polynomial"]), "harmonics": [list(h) for h in f["harmonics"]]}
        return
    set_key(doc, path, new)


def _reload(study, doc: dict, registry, changes, run_checks: bool = False):
    import tomli_w
    from .load import load_study_text
    text = tomli_w.dumps(doc)
    new = load_study_text(text, file=study.file, registry=registry, run_checks=run_checks)
    new = dataclasses.replace(new, changes=tuple(changes),
                              **({} if run_checks else {"warnings": study.warnings}))
    mark_loaded(new)
    return new, text


def mark_loaded(study):
    """Remember the state a study was loaded with (:func:`synced` then needs no reload)."""
    object.__setattr__(study, "_loaded_state", state(study))
    return study


def synced(study, *, registry=None):
    """``study`` itself when its text loads to what it runs, else the study with its text
    regenerated from what runs and its changes recorded; :class:`StudyError` when a change has
    no place in a study file (see the module docstring)."""
    mine = state(study)
    if getattr(study, "_loaded_state", None) is not None and _same(study._loaded_state, mine):
        return study
    from .load import load_study_text
    base = load_study_text(study.text, file=study.file, registry=registry)
    found = diff(state(base), mine)
    if not found:
        return study
    doc = tomllib.loads(study.text)
    try:
        for path, _old, new in found:
            _write_back(doc, path, new, mine)
        regen, text = _reload(study, doc, registry, list(study.changes) + [_change_text(p, o, n) for p, o, n in found])
    except (KeyError, IndexError, TypeError, StudyError) as exc:
        raise StudyError(_refusal(found, f"writing it back gave: {exc}"), file=str(study.file or "<study>")) from None
    left = diff(state(regen), mine)
    if left:
        raise StudyError(_refusal(left, "no study-file key holds it"), file=str(study.file or "<study>"))
    return regen


def _change_text(path, old, new) -> str:
    fmt = lambda v: "(default)" if v is None or v is _MISSING else repr(v)   # noqa: E731
    return f"{path}: {fmt(old)} -> {fmt(new)}"


def _refusal(found, why: str) -> str:
    lines = "; ".join(_change_text(p, o, n) for p, o, n in found[:8])
    return (f"this study was changed in Python ({lines}) and {why}, so the study text stored with "
            f"the result would not say what ran. Change a study with workbench.change(study, "
            f"{{'<toml key path>': value}}), which edits its study file text and reloads it")


def change(study, changes: dict[str, Any], *, registry=None):
    """The study with the TOML keys ``changes`` (``"mechanism.clearance_joints[0].bushing_radius"``
    -> value; ``None`` removes a key so that its default applies) set in its text, loaded again
    and checked like a study file; the changes are recorded with the result."""
    doc = tomllib.loads(study.text)
    recorded = list(study.changes)
    for path, value in changes.items():
        try:
            old = _get(doc, path)
            set_key(doc, path, value)
        except (KeyError, IndexError, TypeError):
            raise StudyError(f"cannot set '{path}': the study has no such table or array entry",
                             file=str(study.file or "<study>")) from None
        recorded.append(_change_text(path, old, value))
    return _reload(study, doc, registry, recorded, run_checks=True)[0]


def _get(doc, path):
    node = doc
    for s in _steps(path):
        if isinstance(s, int):
            node = node[s]
        elif isinstance(node, dict) and s in node:
            node = node[s]
        else:
            return _MISSING
    return node


def to_toml(study, *, registry=None) -> str:
    """The study-file text of what ``study`` runs (regenerated with ``tomli_w`` when it was
    changed in Python; comments are not kept then)."""
    return synced(study, registry=registry).text
