"""Load a module of an earlier source tree beside this one, for benchmarks that compare kernels.

    git worktree add /tmp/before <commit>
    python tests/benchmarks/bench_distributed.py --before /tmp/before

:func:`load_module` imports the earlier tree's ``workbench`` package under the name
``workbench_before`` (its relative imports resolve inside that tree) and returns one of its
modules, so the current and the earlier kernels run in the same process, on the same inputs.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

ALIAS = "workbench_before"


def load_module(tree: str | Path, dotted: str):
    """The module ``dotted`` (e.g. ``"workbench.mbs.distributed"``) of the source tree ``tree``."""
    root = Path(tree).resolve() / "workbench"
    if not (root / "__init__.py").is_file():
        raise SystemExit(f"--before {tree}: no workbench package there (give a checkout of this "
                         f"repository, e.g. made with `git worktree add DIR <commit>`)")
    if ALIAS not in sys.modules:
        spec = importlib.util.spec_from_file_location(ALIAS, root / "__init__.py",
                                                      submodule_search_locations=[str(root)])
        pkg = importlib.util.module_from_spec(spec)
        sys.modules[ALIAS] = pkg
        spec.loader.exec_module(pkg)
    name = dotted.replace("workbench", ALIAS, 1)
    return importlib.import_module(name)
