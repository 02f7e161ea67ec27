"""What a colleague needs to reproduce a result: the code, the numerical stack, the input files.

* :func:`code_version` -- the workbench version and, when the package runs from a git checkout,
  the commit and whether the work tree had uncommitted changes (``git`` is asked in a child
  process; outside a checkout, or without ``git``, nothing is added and nothing is printed);
* :func:`environment` -- the versions of the numerical stack (numpy, scipy, numba, xarray, zarr,
  scikit-fem, netCDF4, matplotlib, pint) read from the installed distributions' metadata (no
  import), Python and the platform;
* :func:`file_hashes` -- the SHA-256 of every file a study reads (the study file, meshes, worn
  profiles; a folder such as a wear store hashes its files in path order);
* :func:`strict` -- the JSON convention of every structured attribute: strict JSON (RFC 8259), in
  which a non-finite float is the **string** ``"inf"``, ``"-inf"`` or ``"nan"`` (JSON has no
  Infinity or NaN; :func:`unstrict` reads them back as floats).

A foundation module: standard library only.
"""
from __future__ import annotations

import functools
import hashlib
import math
import platform
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from ..runtime.version import __version__

#: the distributions whose versions every result records (name in the metadata -> attribute key)
STACK = ("numpy", "scipy", "numba", "llvmlite", "xarray", "zarr", "scikit-fem", "netCDF4",
         "matplotlib", "pint", "pluggy")
#: how a non-finite float is written in a JSON attribute (see the module docstring)
NONFINITE = {math.inf: "inf", -math.inf: "-inf"}


def strict(obj: Any) -> Any:
    """``obj`` with every non-finite float replaced by ``"inf"``, ``"-inf"`` or ``"nan"`` and
    tuples as lists: what :func:`json.dumps` with ``allow_nan=False`` accepts."""
    if isinstance(obj, float) or type(obj).__name__ in ("float64", "float32"):
        f = float(obj)
        if math.isnan(f):
            return "nan"
        return NONFINITE.get(f, f)
    if isinstance(obj, dict):
        return {str(k): strict(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [strict(v) for v in obj]
    if hasattr(obj, "tolist") and hasattr(obj, "dtype"):      # numpy arrays and scalars
        return strict(obj.tolist())
    return obj


def unstrict(obj: Any) -> Any:
    """The inverse of :func:`strict` for values read back: ``"inf"``/``"-inf"``/``"nan"`` -> float."""
    if isinstance(obj, str) and obj in ("inf", "-inf", "nan"):
        return float(obj)
    if isinstance(obj, dict):
        return {k: unstrict(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [unstrict(v) for v in obj]
    return obj


@functools.lru_cache(maxsize=1)
def code_version() -> dict:
    """``{"workbench_version": ..., "git_commit": ..., "git_dirty": 0|1}``; the git keys only
    when the installed package is a git checkout's work tree (an editable install)."""
    out: dict = {"workbench_version": __version__}
    here = Path(__file__).resolve().parent
    try:
        def git(*args: str) -> str:
            return subprocess.run(["git", "-C", str(here), *args], capture_output=True, text=True,
                                  timeout=10, check=True).stdout.strip()
        top = Path(git("rev-parse", "--show-toplevel")).resolve()
        if not (top / "workbench" / "results" / "provenance.py").exists():
            return out      # a checkout of something else that happens to contain the install
        out["git_commit"] = git("rev-parse", "HEAD")
        out["git_dirty"] = int(bool(git("status", "--porcelain", "--untracked-files=no")))
    except (OSError, subprocess.SubprocessError, ValueError):
        pass
    return out


@functools.lru_cache(maxsize=1)
def environment() -> dict:
    """Python, the platform and the versions of :data:`STACK` (``"not installed"`` when absent)."""
    versions = {}
    for name in STACK:
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            versions[name] = "not installed"
    return {"python": platform.python_version(), "implementation": sys.implementation.name,
            "platform": platform.platform(), "machine": platform.machine(), "packages": versions}


def sha256(path: str | Path) -> str:
    """SHA-256 (hex) of a file, or of a folder: its files' relative paths and contents, in order."""
    path = Path(path)
    h = hashlib.sha256()
    if path.is_dir():
        for f in sorted(p for p in path.rglob("*") if p.is_file()):
            h.update(f.relative_to(path).as_posix().encode() + b"\0")
            h.update(_file_digest(f).encode())
        return h.hexdigest()
    return _file_digest(path)


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_hashes(paths, base: str | Path | None = None) -> dict[str, str]:
    """``{path: "sha256:<hex>"}`` of every existing path (relative to ``base`` when inside it)."""
    out = {}
    base = Path(base).resolve() if base is not None else None
    for p in paths:
        p = Path(p)
        if not p.exists():
            continue
        try:
            digest = sha256(p)
        except OSError as exc:
            digest = f"unreadable: {exc.strerror or exc}"
        else:
            digest = "sha256:" + digest
        name = p.resolve()
        if base is not None and name.is_relative_to(base):
            name = name.relative_to(base)
        out[name.as_posix()] = digest
    return out
