"""The layers of the house (docs/architecture.md): the import contract and no import circles.

* ``lint-imports`` (import-linter) checks the contracts of ``[tool.importlinter]`` in
  ``pyproject.toml``: imports run downward through the layers (interfaces > study kinds > plugin
  facade > engines > plugin contract > foundations), and the built-in plugins reach the host only
  through :mod:`workbench.plugin` (and :mod:`workbench.models`, :mod:`workbench.hookspecs`).
* No circle among the module-level imports of ``workbench`` and ``workbench_plugins`` (an import
  inside a function, or under ``if TYPE_CHECKING``, runs later and closes no circle at import
  time).  import-linter checks layers, not circles inside a layer; this test does that.
"""
from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("workbench", "workbench_plugins")


def test_the_layer_contract_holds():
    pyproject = ROOT / "pyproject.toml"
    if not pyproject.is_file():
        pytest.skip("not a source checkout: no pyproject.toml with the contracts")
    pytest.importorskip("importlinter")
    run = subprocess.run(
        [sys.executable, "-c",
         "import sys; from importlinter.cli import lint_imports; "
         "sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True, no_logo=True))",
         str(pyproject)],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, f"lint-imports found broken contracts:\n{run.stdout}\n{run.stderr}"
    assert "0 broken" in run.stdout, run.stdout


def test_docs_show_the_contract_that_is_checked():
    """``docs/architecture.md`` quotes the contract of ``pyproject.toml`` as it is."""
    import re
    import tomllib
    doc, pyproject = ROOT / "docs" / "architecture.md", ROOT / "pyproject.toml"
    if not (doc.is_file() and pyproject.is_file()):
        pytest.skip("not a source checkout")
    quoted = re.search(r"```toml\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
    assert quoted, "docs/architecture.md has no toml block with the contract"
    with open(pyproject, "rb") as f:
        checked = tomllib.load(f)["tool"]["importlinter"]
    assert tomllib.loads(quoted.group(1))["tool"]["importlinter"] == checked


# --------------------------------------------------------------------------------------------
# module-level import circles
# --------------------------------------------------------------------------------------------
def _modules() -> dict[str, Path]:
    """Every module of the two packages: dotted name -> file."""
    out = {}
    for pkg in PACKAGES:
        spec = importlib.util.find_spec(pkg)
        root = Path(next(iter(spec.submodule_search_locations)))
        for path in root.rglob("*.py"):
            rel = path.relative_to(root).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            out[".".join([pkg, *parts])] = path
    return out


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The module of ours that an import of ``name`` executes (its longest known prefix)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _module_level_imports(mod: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Our modules that ``mod`` imports when it is imported (not in functions nor TYPE_CHECKING)."""
    is_pkg = path.name == "__init__.py"
    found: set[str] = set()

    def targets(node) -> list[str]:
        if isinstance(node, ast.Import):
            return [a.name for a in node.names]
        if node.level:
            base = mod.split(".")[: len(mod.split(".")) - node.level + (1 if is_pkg else 0)]
            head = ".".join(base + ([node.module] if node.module else []))
        else:
            head = node.module or ""
        # "from package import module" imports the module too
        return [f"{head}.{a.name}" if f"{head}.{a.name}" in modules else head for a in node.names]

    def walk(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for sub in child.orelse:
                    walk(ast.Module(body=[sub], type_ignores=[]))
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for t in targets(child):
                    target = _resolve(t, modules)
                    if target is not None and target != mod:
                        found.add(target)
            walk(child)

    walk(ast.parse(path.read_text(encoding="utf-8")))
    # importing a submodule runs its packages' __init__ first
    return found | {p for t in found for p in _parents(t) if p in modules and p != mod}


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_the_scan_finds_a_circle():
    """The scan itself: two modules importing each other at module level are a circle."""
    graph = {"a": {"b"}, "b": {"a"}, "c": {"a"}}
    assert _circles(graph) == [["a", "b"]]


def test_no_import_circle_among_module_level_imports():
    modules = _modules()
    assert "workbench.results.dataset" in modules and "workbench_plugins.contact.hertz" in modules
    graph = {m: _module_level_imports(m, p, modules) for m, p in modules.items()}
    # a package's __init__ importing its own submodules is how packages work, not a circle
    graph = {m: {t for t in ts if not t.startswith(m + ".")} for m, ts in graph.items()}
    circles = _circles(graph)
    assert not circles, "module-level import circles:\n" + "\n".join(
        " <-> ".join(c) for c in circles)
