"""Study key paths (``mechanism.clearance_joints[0].contact.restitution``): parse them, check
them against a study document and the study format, read their units, set and unset them.

A sweep (:mod:`workbench.sweeps.spec`) names the study keys it varies by such paths.  Which keys a
table may hold comes from the schema tree (:data:`workbench.study.schema.TREE`, or
:data:`workbench.schema.pressure.TREE` for a pressure study) and, inside a model table, from the
model's own parameters.
"""
from __future__ import annotations

import copy
import re
from typing import Any

from ..study import schema as S
from ..errors import choices_text, did_you_mean

_COMPONENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_\-]*)((?:\[\d+\])*)$")


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


def _tree(doc: dict) -> tuple[tuple[str, ...], dict]:
    """Top-level tables and the table tree (:data:`workbench.study.schema.TREE`) of ``doc``'s kind."""
    kind = doc.get("study", {}).get("kind", "dynamics") if isinstance(doc.get("study"), dict) else "dynamics"
    if kind == "pressure":
        from . import pressure as P
        return P.TOP_LEVEL, P.TREE
    return S.TOP_LEVEL, S.TREE


def _spec(parent: tuple, doc: dict):
    """What the study format says of the table at ``parent``: a Section, a ``{type: Section}``
    choice, ``("model", family)``, or ``None``."""
    _, tree = _tree(doc)
    names = [p for p in parent if isinstance(p, str)]
    norm = "".join("[]" if isinstance(p, int) else (f".{p}" if i else p) for i, p in enumerate(parent))
    if norm in tree:
        return tree[norm]
    if len(names) >= 2 and not isinstance(parent[-1], int):   # a named table, e.g. models.<label>
        wild = norm[: len(norm) - len(names[-1])] + "*"
        return tree.get(wild)
    return None


def _schema_keys(parent: tuple, table: dict, doc: dict | None = None) -> dict[str, Any]:
    """Keys the study format defines for the table at ``parent`` (name -> schema Key)."""
    doc = doc if doc is not None else {}
    if not parent:
        return {k: None for k in _tree(doc)[0]}
    spec = _spec(parent, doc)
    if isinstance(spec, S.Section):
        return {k.name: k for k in spec.keys}
    if isinstance(spec, dict):    # a typed table: the section of its type, or every type's keys
        secs = [spec[table["type"]]] if table.get("type") in spec else list(spec.values())
        return {k.name: k for sec in secs for k in sec.keys}
    return {}


def _model_of(parent: tuple, table: dict, doc: dict) -> tuple[str, str] | None:
    """``(family, name)`` of the model table at ``parent``, or ``None``."""
    spec = _spec(parent, doc)
    if isinstance(spec, tuple) and spec[0] == "model" and "model" in table:
        return spec[1], str(table["model"])
    if isinstance(spec, S.Section) and "plugin" in table and spec.key("plugin") is not None:
        return "pressure", str(table["plugin"])   # [models.<label>] of a pressure study
    return None


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
        known.update(_schema_keys(parts[:i], node, doc))
        known.update(dict.fromkeys(_model_parameters(node, parts[:i], registry, doc)))
        if p in known:
            node = None
            continue
        return (f"'{p}' is not a key of '{here}' in the base study.{did_you_mean(p, known)} "
                f"Valid: {choices_text(known) or '(none)'}")
    return None


def checked_parts(key: str, doc: dict, registry, where: str, probs) -> tuple | None:
    """The parts of the study key path ``key`` when it parses and exists in ``doc``; otherwise
    ``None``, with the problem added to ``probs`` (a :class:`~workbench.schema.core.Problems`) at
    ``where``.  Sweep grids, their ``[set]`` tables and UQ files name study keys this way."""
    try:
        parts = parse_path(key)
    except ValueError as exc:
        probs.add(where, f"bad study key path '{key}': {exc}")
        return None
    why = check_path(doc, parts, registry=registry)
    if why is not None:
        probs.add(where, f"the study key '{key}' does not exist: {why}")
        return None
    return parts


def _model_parameters(table: dict, parent: tuple, registry, doc: dict) -> list[str]:
    model = _model_of(parent, table, doc)
    if registry is None or model is None:
        return []
    try:
        return [p.name for p in registry.entry(*model).cls.parameters()]
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
    if not isinstance(node, dict):
        return ""
    model = _model_of(parts[:-1], node, doc)
    if model is not None and last not in ("model", "plugin") and registry is not None:
        try:
            for info in registry.entry(*model).cls.parameters():
                if info.name == last:
                    return "" if info.unit == "text" else info.unit
        except Exception:  # noqa: BLE001
            return ""
    key = _schema_keys(parts[:-1], node, doc).get(last)
    if key is not None and key.kind in ("number", "int", "vec2", "numbers"):
        return key.unit
    return ""


