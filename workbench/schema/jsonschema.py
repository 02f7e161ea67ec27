"""JSON Schemas of the study and sweep files, generated from the schema sections, for editors.

TOML editors that read JSON Schema (e.g. Taplo / "Even Better TOML" with a ``#:schema`` line or
a schema association) then complete keys, show units and meanings, and flag unknown keys and
values out of range while the file is typed.  ``docs/study.schema.json`` covers every study kind
(chosen by ``[study] kind``), ``docs/sweep.schema.json`` the sweep file; ``workbench schema
[--kind K]`` prints them.  Model tables list the registered models with their parameters; the
committed files list the built-in ones (those of this distribution).
"""
from __future__ import annotations

import json
import math

from .core import Key, Section

DRAFT = "https://json-schema.org/draft/2020-12/schema"
#: committed schema files -> the kind they describe
SCHEMA_FILES = {"docs/study.schema.json": "study", "docs/sweep.schema.json": "sweep"}
KINDS = ("study", "dynamics", "wear", "pressure", "sweep")
OWN_DISTRIBUTION = "joint-wear-workbench"


def _jsonable(v):
    if isinstance(v, tuple):
        return [_jsonable(x) for x in v]
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _describe(key: Key) -> str:
    unit = f" [{key.unit}]" if key.unit not in ("", "1") else ""
    return f"{key.doc}{unit}"


def key_schema(key: Key) -> dict:
    """The JSON Schema of one key's value (bounds, choices, default, description)."""
    k = key.kind
    num: dict = {"type": "number"}
    for attr, name in (("gt", "exclusiveMinimum"), ("lt", "exclusiveMaximum"),
                       ("min", "minimum"), ("max", "maximum")):
        if getattr(key, attr) is not None:
            num[name] = getattr(key, attr)
    if k == "number":
        out = dict(num)
    elif k == "int":
        out = {**num, "type": "integer"}
    elif k == "bool":
        out = {"type": "boolean"}
    elif k in ("text", "free_text"):
        out = {"type": "string"} if key.choices is None else {"enum": list(key.choices)}
        if k == "text" and key.choices is None:
            out["minLength"] = 1
    elif k == "vec2":
        out = {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}
    elif k == "numbers":
        out = {"type": "array", "items": num, "minItems": 1}
    elif k == "triples":
        out = {"type": "array", "items": {"type": "array", "items": {"type": "number"},
                                          "minItems": 3, "maxItems": 3}}
    elif k == "points":
        out = {"type": "object", "additionalProperties": {
            "type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}}
    elif k == "texts":
        item = {"type": "string", "minLength": 1} if key.choices is None else {"enum": list(key.choices)}
        out = {"type": "array", "items": item}
    elif k == "table":
        out = {"type": "object"}
    elif k == "tables":
        out = {"type": "array", "items": {"type": "object"}}
    else:
        out = {}
    out["description"] = _describe(key)
    if not key.required and key.default is not None and not isinstance(key.default, dict):
        out["default"] = _jsonable(key.default)
    return out


def section_schema(section: Section, tree: dict, path: str, registry, extra: dict | None = None) -> dict:
    """An object schema of ``section`` at table path ``path``; sub-tables from ``tree``."""
    props = {}
    for key in section.keys:
        sub = f"{path}.{key.name}" if path else key.name
        s = key_schema(key)
        if key.kind == "tables" and f"{sub}[]" in tree:
            s["items"] = node_schema(tree[f"{sub}[]"], tree, f"{sub}[]", registry)
        elif key.kind == "table" and sub in tree:
            s = {**node_schema(tree[sub], tree, sub, registry), "description": s["description"]}
        props[key.name] = s
    out = {"type": "object", "description": section.doc, "properties": {**props, **(extra or {})},
           "required": [k.name for k in section.keys if k.required]}
    out["additionalProperties"] = False
    return out


def model_schema(family: str, registry, runner: Section | None = None) -> dict:
    """A model table: ``model = "<name>"`` (or a pressure study's ``plugin``) and the model's
    parameters, one ``if``/``then`` per registered model."""
    from ..models import parameter_infos
    from .core import parameter_key
    name_key = "plugin" if runner is not None else "model"
    entries = [] if registry is None else list(registry.entries(family))
    names = sorted(e.name for e in entries)
    props = {name_key: {"description": f"registry name of the {family} model "
                                       "(`workbench plugins --family " + family + "`)",
                        **({"enum": names} if names else {"type": "string"})}}
    if runner is not None:
        props.update({k.name: key_schema(k) for k in runner.keys if k.name != "plugin"})
    cases = []
    for e in sorted(entries, key=lambda e: e.name):
        params = {i.name: key_schema(parameter_key(i)) for i in parameter_infos(e.cls.Params)}
        cases.append({"if": {"properties": {name_key: {"const": e.name}}, "required": [name_key]},
                      "then": {"properties": params}})
    out = {"type": "object", "properties": props, "required": [name_key], "allOf": cases}
    if entries:
        out["unevaluatedProperties"] = False
    return out


def node_schema(node, tree: dict, path: str, registry) -> dict:
    if isinstance(node, Section):
        return section_schema(node, tree, path, registry)
    if isinstance(node, dict):   # a typed table: {type: Section}
        types = sorted(node)
        out = {"type": "object", "properties": {"type": {"enum": types}}, "required": ["type"],
               "allOf": [{"if": {"properties": {"type": {"const": t}}, "required": ["type"]},
                          "then": section_schema(node[t], tree, path, registry)} for t in types]}
        return out
    if isinstance(node, tuple) and node[0] == "model":
        return model_schema(node[1], registry)
    raise ValueError(f"unknown schema node {node!r}")  # programming error


def _dynamics(registry) -> dict:
    from ..study import schema as S
    tree = S.TREE
    props = {name: node_schema(tree[name], tree, name, registry) for name in S.TOP_LEVEL}
    # [mechanism] dimension = 3: the spatial tables (workbench.study.spatial)
    from ..study import spatial as P3
    planar = props["mechanism"]
    props["mechanism"] = {"if": {"properties": {"dimension": {"const": 3}}, "required": ["dimension"]},
                          "then": node_schema(P3.TREE["mechanism"], P3.TREE, "mechanism", registry),
                          "else": planar}
    return {"type": "object", "properties": props, "required": ["mechanism"],
            "additionalProperties": False}


def _pressure(registry) -> dict:
    from . import pressure as P
    tree = P.TREE
    props = {name: node_schema(tree[name], tree, name, registry)
             for name in ("study", "grid", "output", "compare")}
    props["cases"] = {"type": "array", "minItems": 1, "description": P.CASE.doc,
                      "items": section_schema(P.CASE, tree, "cases[]", registry)}
    props["models"] = {"type": "object", "minProperties": 1, "description": P.MODEL.doc,
                       "additionalProperties": model_schema("pressure", registry, runner=P.MODEL)}
    return {"type": "object", "properties": props, "required": ["cases", "models"],
            "additionalProperties": False}


def _sweep() -> dict:
    from . import sweep as W
    tree: dict = {}
    entry = section_schema(W.ENTRY, tree, "grid.*", None)
    entry["properties"]["values"].update({"type": "array", "minItems": 1})
    return {"type": "object", "additionalProperties": False, "required": ["sweep", "grid"], "properties": {
        "sweep": section_schema(W.SWEEP, tree, "sweep", None),
        "set": {"type": "object", "description": "study key path = value, applied to every case"},
        "grid": {"type": "object", "minProperties": 1, "description": W.ENTRY.doc,
                 "additionalProperties": {"anyOf": [{"type": "array", "minItems": 1}, entry]}},
    }}


def build_schema(kind: str = "study", registry=None) -> dict:
    """The JSON Schema of a study of ``kind`` (``"study"``: every kind, by ``[study] kind``) or of
    a sweep file (``"sweep"``)."""
    if kind not in KINDS:
        from ..errors import StudyError, choices_text
        raise StudyError(f"unknown schema kind '{kind}'. Valid choices: {choices_text(KINDS)}")
    head = {"$schema": DRAFT, "title": f"Joint Wear Workbench {kind} file"}
    if kind == "sweep":
        return {**head, **_sweep()}
    if kind == "pressure":
        return {**head, **_pressure(registry)}
    dyn = _dynamics(registry)
    if kind in ("dynamics", "wear"):
        return {**head, **dyn}
    is_pressure = {"properties": {"study": {"properties": {"kind": {"const": "pressure"}},
                                            "required": ["kind"]}}, "required": ["study"]}
    return {**head, "if": is_pressure, "then": _pressure(registry), "else": dyn}


class _Own:
    """The models of this distribution only (the committed schema files must not depend on what
    else is installed)."""

    def __init__(self, registry):
        self.registry = registry

    def entries(self, family=None):
        return [e for e in self.registry.entries(family) if e.distribution == OWN_DISTRIBUTION]


def schema_text(kind: str = "study", registry=None, *, own_models_only: bool = False) -> str:
    """:func:`build_schema` as JSON text; ``registry`` defaults to the installed plugins, and
    ``own_models_only`` keeps the built-in models only (the committed files' form)."""
    if registry is None:
        from ..plugins import build_registry
        registry = build_registry()
    if own_models_only:
        registry = _Own(registry)
    return json.dumps(build_schema(kind, registry), indent=1, ensure_ascii=False) + "\n"
