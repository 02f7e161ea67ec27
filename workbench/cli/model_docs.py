"""What ``workbench plugins`` prints: the registered models, for people (80 columns) and machines.

* :func:`listing` -- every model grouped by family, one line of summary and the parameters
  (name = default unit) wrapped under it; each distribution named once, at the end.
* :func:`model_doc` -- one model in full: summary, reference, provider, and every parameter with
  its unit, default, bounds, the range its source derives it for, and what it is.
* :func:`as_dicts` -- the same facts as plain data (``workbench plugins --json``).
"""
from __future__ import annotations

import inspect
import math
import textwrap

from ..errors import StudyError, choices_text, did_you_mean
from ..models import FAMILIES

WIDTH = 80
NAME_WIDTH = 22


def summary(cls) -> str:
    """First sentence-like line of a model's docstring (``` `` ``` marks dropped)."""
    doc = inspect.getdoc(cls) or ""
    first = doc.strip().split("\n\n")[0].replace("\n", " ").replace("``", "")
    return " ".join(first.split())


def _num(v) -> str:
    if isinstance(v, float):
        return "inf" if math.isinf(v) else f"{v:g}"
    return str(v)


def _unit(p) -> str:
    return "" if p.unit in ("1", "text", "") else f" {p.unit}"


def param_short(p) -> str:
    """``name = default unit`` (``derived`` when the default comes from the joint geometry)."""
    default = "derived" if p.default is None else _num(p.default)
    return f"{p.name} = {default}{_unit(p)}"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 3].rstrip() + "..."


def _distributions(entries) -> dict[str, list]:
    out: dict[str, list] = {}
    for e in entries:
        out.setdefault(f"{e.distribution} {e.version}".strip(), []).append(e)
    return out


def listing(entries, family: str | None = None, width: int = WIDTH) -> list[str]:
    """Lines of the model list (each at most ``width`` characters, but for a longer word)."""
    dists = _distributions(entries)
    main = max(dists, key=lambda d: len(dists[d])) if dists else ""
    lines: list[str] = []
    indent = " " * (NAME_WIDTH + 4)
    for fam in FAMILIES:
        mine = [e for e in entries if e.family == fam]
        if not mine:
            continue
        lines.append(f"{fam} ({len(mine)} model{'s' if len(mine) != 1 else ''})")
        for e in mine:
            dist = f"{e.distribution} {e.version}".strip()
            tag = "" if dist == main else f" [{dist}]"   # another distribution: named on its row
            head = f"  {e.name + tag:<{NAME_WIDTH}}  "
            lines.append(head + _clip(summary(e.cls), max(width - len(head), 10)))
            # one parameter is never split over two lines (NBSP while wrapping)
            params = ", ".join(param_short(p).replace(" ", "\xa0") for p in e.cls.parameters())
            lines += [line.replace("\xa0", " ") for line in
                      textwrap.wrap(params or "(no parameters)", width, initial_indent=indent,
                                    subsequent_indent=indent, break_on_hyphens=False)]
        lines.append("")
    n = len(entries)
    others = sum(len(es) for d, es in dists.items() if d != main)
    lines.append(f"{n} models" + (f" in family '{family}'" if family else "") + f", from {main}"
                 + (f" and {others} from the distributions named on their rows" if others else ""))
    lines.append("`workbench plugins NAME`: one model's parameters in full; --json for machines")
    return lines


def find(registry, name: str, family: str | None = None):
    """The registry entries named ``name`` (in ``family`` when given); a StudyError if none."""
    entries = registry.entries(family)
    found = [e for e in entries if e.name == name]
    if not found:
        names = sorted({e.name for e in entries})
        where = f"{family} model" if family else "model"
        raise StudyError(f"unknown {where} '{name}'.{did_you_mean(name, names)} "
                         f"Valid choices: {choices_text(names) or '(none registered)'}")
    return found


def _bounds(p) -> str:
    lo, hi = getattr(p, "min", None), getattr(p, "max", None)
    if lo is None and hi is None:
        return ""
    return f"{'-inf' if lo is None else _num(lo)} .. {'inf' if hi is None else _num(hi)}"


def model_doc(e, width: int = WIDTH) -> list[str]:
    """Lines documenting one model in full."""
    cls = e.cls
    wrap = lambda text, ind="  ": textwrap.wrap(text, width, initial_indent=ind,  # noqa: E731
                                                 subsequent_indent=ind, break_on_hyphens=False)
    lines = [f"{e.family} model '{e.name}'",
             f"  from {e.distribution} {e.version} (plugin {e.plugin})"]
    lines += wrap(summary(cls))
    lines += wrap(f"Reference: {cls.reference}")
    params = cls.parameters()
    lines.append(f"Parameters ({len(params)}):" if params else "Parameters: none")
    for p in params:
        unit = "1 (dimensionless)" if p.unit == "1" else p.unit
        lines.append(f"  {p.name} [{unit}]")
        facts = [f"default {'derived from the joint geometry' if p.default is None else _num(p.default)}"]
        if _bounds(p):
            facts.append(f"allowed {_bounds(p)}")
        if getattr(p, "choices", None):
            facts.append(f"choices {', '.join(map(str, p.choices))}")
        vr = getattr(p, "valid_range", None)
        if vr:
            src = getattr(p, "range_source", "")
            facts.append(f"valid {_num(vr[0])} .. {_num(vr[1])}" + (f" ({src})" if src else ""))
        lines += wrap("; ".join(facts), "      ")
        lines += wrap(p.doc, "      ")
    return lines


def _plain(v):
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    if isinstance(v, (tuple, list)):
        return [_plain(x) for x in v]
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v)


def as_dicts(entries) -> list[dict]:
    """Every fact of ``entries`` as JSON-ready dictionaries."""
    out = []
    for e in entries:
        params = []
        for p in e.cls.parameters():
            params.append({k: _plain(getattr(p, k, None)) for k in
                           ("name", "default", "unit", "doc", "min", "max", "choices", "valid_range",
                            "range_source")})
        out.append({"family": e.family, "name": e.name, "summary": summary(e.cls),
                    "reference": e.cls.reference, "distribution": e.distribution, "version": e.version,
                    "plugin": e.plugin, "parameters": params})
    return out
