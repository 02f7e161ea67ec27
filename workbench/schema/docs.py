"""Markdown reference of every input file, generated from the schema sections.

``docs/study_format.md`` and ``docs/sweep_format.md`` hold blocks between
``<!-- BEGIN GENERATED: <name> -->`` and ``<!-- END GENERATED -->``; :data:`BLOCKS` says which
sections fill each, :func:`update_docs` rewrites them and :func:`stale_blocks` lists the ones
that differ (a test keeps the committed files up to date).  Run
``python -m workbench.schema.docs`` after changing a schema section; it rewrites the blocks and
the JSON Schemas ``docs/study.schema.json`` and ``docs/sweep.schema.json``.
"""
from __future__ import annotations

import re
from pathlib import Path

from .core import Key


def _fmt_default(key: Key) -> str:
    if key.required:
        return "**required**"
    d = key.default
    if d is None:
        return "—"
    if isinstance(d, bool):
        return "true" if d else "false"
    if isinstance(d, str):
        return f'"{d}"'
    if isinstance(d, float):
        return f"{d:g}"
    if isinstance(d, tuple):
        return "[" + ", ".join(f"{x:g}" if isinstance(x, float) else
                               (f'"{x}"' if isinstance(x, str) else str(x)) for x in d) + "]"
    if isinstance(d, dict):
        return "{}"
    if isinstance(d, list):
        return "[]"
    return str(d)


def _kind(k: Key) -> str:
    if k.choices and k.kind in ("text", "free_text"):
        return " \\| ".join(("true" if c else "false") if isinstance(c, bool) else f'"{c}"'  # bool choices: speed
                              for c in k.choices)
    return {"free_text": "text", "any": "see meaning"}.get(k.kind, k.kind)


def format_sections(sections, inline=()) -> str:
    """Markdown tables of ``sections``; those in ``inline`` are headed as inline tables."""
    out = []
    for s in sections:
        base, _, rest = s.path.partition(" ")
        if s in inline:
            heading = f"inline table `{s.path}`"
        elif base.endswith("[]"):
            heading = f"`[[{base[:-2]}]]`" + (f" {rest}" if rest else "")
        else:
            heading = f"`[{base}]`" + (f" {rest}" if rest else "")
        out.append(f"### {heading}\n\n{s.doc}\n")
        out.append("| key | type | unit | default | meaning |")
        out.append("|---|---|---|---|---|")
        for k in s.keys:
            unit = k.unit.replace("|", "\\|") if k.unit else ""
            out.append(f"| `{k.name}` | {_kind(k)} | {unit} | {_fmt_default(k)} | {k.doc} |")
        out.append("")
    return "\n".join(out)


def format_reference() -> str:
    """The reference of the dynamics and wear study tables (``docs/study_format.md``)."""
    from ..study import schema as S
    return format_sections(S.SECTIONS, inline=(S.MATERIAL, S.DRIVER_FUNCTION))


def _format_spatial() -> str:
    from ..study.spatial import format_reference as fmt
    return fmt()


def format_pressure() -> str:
    """The reference of the pressure study tables."""
    from . import pressure as P
    return format_sections(P.SECTIONS, inline=(P.WORN_PROFILE,))


def format_sweep() -> str:
    """The reference of the sweep file's tables (``docs/sweep_format.md``)."""
    from . import sweep as W
    return format_sections(W.SECTIONS)


def included(rel: str):
    """A generator of the block that quotes the repository file ``rel`` (a shipped study) as it
    is, so that an example in the docs never drifts from the file (``None`` outside a source
    checkout: the block is then left alone)."""
    def quote(root: str | Path | None = None) -> str | None:
        path = Path(root if root is not None else _ROOT) / rel
        if not path.is_file():
            return None
        return "```toml\n" + path.read_text(encoding="utf-8").rstrip() + "\n```"
    quote.reads_root = True
    return quote


#: the repository root of a source checkout (where ``studies/`` lies beside ``workbench/``)
_ROOT = Path(__file__).resolve().parents[2]

#: file -> {block name: generator}
BLOCKS = {
    "docs/study_format.md": {"studies/flores_slider_crank.toml": included("studies/flores_slider_crank.toml"),
                             "workbench.study.schema.format_reference()": format_reference,
                             "workbench.study.spatial.format_reference()": _format_spatial,
                             "workbench.schema.docs.format_pressure()": format_pressure},
    "docs/sweep_format.md": {"workbench.schema.docs.format_sweep()": format_sweep},
}

_BLOCK = re.compile(r"(<!-- BEGIN GENERATED: (?P<name>[^\n]*?) -->\n)(?P<body>.*?)(<!-- END GENERATED -->)", re.S)


def _generate(gen, root=None) -> str | None:
    return gen(root) if getattr(gen, "reads_root", False) else gen()


def _rewrite(text: str, gens: dict, root=None) -> str:
    def repl(m):
        gen = gens.get(m.group("name"))
        body = None if gen is None else _generate(gen, root)
        return m.group(0) if body is None else m.group(1) + body.rstrip() + "\n" + m.group(4)
    return _BLOCK.sub(repl, text)


def stale_blocks(root: str | Path) -> list[str]:
    """``"file: block"`` of every generated block of the docs under ``root`` that is out of date
    (or missing)."""
    out = []
    for rel, gens in BLOCKS.items():
        text = (Path(root) / rel).read_text(encoding="utf-8")
        found = {m.group("name"): m.group("body") for m in _BLOCK.finditer(text)}
        for name, gen in gens.items():
            body = _generate(gen, root)
            if body is None:
                continue
            if name not in found or found[name].strip() != body.strip():
                out.append(f"{rel}: {name}")
    return out


def update_reference(md_path) -> None:
    """Rewrite the generated blocks of one Markdown file (``docs/study_format.md`` ...)."""
    p = Path(md_path)
    gens = {k: v for rel, g in BLOCKS.items() for k, v in g.items()}
    root = p.resolve().parent.parent     # docs/<file>: the repository root above docs/
    p.write_text(_rewrite(p.read_text(encoding="utf-8"), gens, root), encoding="utf-8")


def update_docs(root: str | Path, registry=None) -> list[Path]:
    """Rewrite every generated block and JSON Schema under ``root``; return the files written."""
    from .jsonschema import SCHEMA_FILES, schema_text
    written = []
    for rel in BLOCKS:
        update_reference(Path(root) / rel)
        written.append(Path(root) / rel)
    for rel, kind in SCHEMA_FILES.items():
        p = Path(root) / rel
        p.write_text(schema_text(kind, registry, own_models_only=True), encoding="utf-8")
        written.append(p)
    return written


if __name__ == "__main__":  # pragma: no cover - maintenance command
    import sys
    for path in update_docs(sys.argv[1] if len(sys.argv) > 1 else "."):
        print(f"wrote {path}")
