"""Point numba's on-disk cache at a directory keyed by the source of the compiled code.

numba (``cache=True``) invalidates a cached function only when *its own* source file changes, not
when a function it calls from another module does: after an edit of
``workbench/mbs/clearance.py`` the cached integrator kept running the old contact code.  The same
happens to a user who upgrades the package over an old ``__pycache__``.  So, unless the user set
``NUMBA_CACHE_DIR`` themselves, the cache goes to ``<cache home>/joint-wear-workbench/numba-<hash>``
with ``<hash>`` taken over every ``.py`` file of ``workbench`` and ``plugins`` (a few ms); any
edit starts a fresh cache; caches of other source states unused for a week are removed.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

_PACKAGES = ("workbench", "plugins")


def source_hash(root: Path) -> str:
    h = hashlib.sha256()
    for pkg in _PACKAGES:
        for f in sorted((root / pkg).rglob("*.py")):
            h.update(str(f.relative_to(root)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def configure() -> None:
    if os.environ.get("NUMBA_CACHE_DIR") or os.environ.get("WORKBENCH_NUMBA_CACHE") == "default":
        return
    root = Path(__file__).resolve().parents[1]
    try:
        key = source_hash(root)
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "joint-wear-workbench"
        target = base / f"numba-{key}"
        target.mkdir(parents=True, exist_ok=True)
        os.utime(target)
    except OSError:  # read-only home or sources: keep numba's default
        return
    week = 7 * 24 * 3600
    for old in base.glob("numba-*"):
        try:
            if old != target and time.time() - old.stat().st_mtime > week:
                shutil.rmtree(old, ignore_errors=True)  # safe: our own numba cache of an old source state
        except OSError:
            pass
    os.environ["NUMBA_CACHE_DIR"] = str(target)
    import sys
    if "numba" in sys.modules:  # numba already imported: set its live configuration too
        sys.modules["numba"].config.CACHE_DIR = str(target)
