"""Reproduce a result from the file alone: ``workbench rerun RESULT -o OUT``.

A result carries what ran (:mod:`workbench.results.dataset`): the study text regenerated from
what ran, the study file's path, the SHA-256 of every file the study read, the plugins that
provided each model, the workbench version and commit.  :func:`study_of_result` rebuilds the
study from them and names everything that stands in the way: a model whose plugin is not
installed (with the distribution that provided it), an input file that is missing or whose
contents changed since the run.  Version differences are notes, not errors.
:func:`compare` says how the rerun agrees with the original: bit for bit for every variable of a
dynamics study; for a wear study each quantity with a standard error within ``k`` combined
standard errors.
"""
from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import StudyError, WorkbenchError

#: attributes that differ between two runs of the same study by their nature
VOLATILE = ("created", "history", "solver_wall_time", "solver_stats", "ideal_solver_stats",
            "environment", "git_commit", "git_dirty", "wall_time", "run_status")


@dataclass
class Rerun:
    """A study rebuilt from a result: the study, and notes on what differs from the original run."""
    study: object
    notes: list[str] = field(default_factory=list)


def _models_in(text: str) -> list[tuple[str, str]]:
    """``(family, name)`` of every model a study text names (``model = "..."`` in a table whose key
    says its family: contact, friction, pressure, law/wear_law ...)."""
    found = []
    families = {"contact": "contact", "friction": "friction", "pressure": "pressure",
                "law": "wear", "wear_law": "wear", "model": None}

    def walk(node, key=None):
        if isinstance(node, dict):
            if isinstance(node.get("model"), str) and key is not None:
                fam = families.get(key) or ("pressure" if "pressure" in key else
                                           "wear" if "wear" in key or "law" in key else None)
                if fam:
                    found.append((fam, node["model"]))
            for k, v in node.items():
                walk(v, k)
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
    try:
        walk(tomllib.loads(text))
    except tomllib.TOMLDecodeError:
        pass
    return found


def study_of_result(ds, *, registry, where: str = "the result", check_inputs: bool = True) -> Rerun:
    """The study that made ``ds`` (see the module docstring); :class:`WorkbenchError` naming every
    missing plugin and every missing or changed input file at once."""
    from .load import load_study_text
    from ..runtime.version import __version__
    from ..results.provenance import code_version, sha256
    text = ds.attrs.get("study_text")
    if not text:
        raise WorkbenchError(f"{where} has no study_text attribute: it was not written by "
                             f"`workbench run`, and cannot be rerun")
    problems, notes = [], []
    made_with = json.loads(ds.attrs.get("plugins") or "{}")
    have = registry.provenance()
    for fam, name in _models_in(text):
        key = f"{fam}:{name}"
        if key in have:
            if key in made_with and made_with[key] != have[key]:
                notes.append(f"{key} was provided by {made_with[key]}, now by {have[key]}")
            continue
        try:
            names = registry.names(fam)
        except Exception:  # noqa: BLE001 - an unknown family: the loader reports it
            names = ()
        if name in names:
            continue
        origin = made_with.get(key)
        if origin:
            dist = origin.split(" (")[0]
            problems.append(f"the {fam} model '{name}' is not installed: the result was made with "
                            f"{origin}; install it (pip install {dist.split()[0]}=={dist.split()[-1]})")
        else:
            problems.append(f"the {fam} model '{name}' is not installed")
    stored_file = ds.attrs.get("study_file") or ""
    file = Path(stored_file) if stored_file else None
    base = file.resolve().parent if file is not None and file.parent.exists() else Path.cwd()
    if file is not None and not file.parent.exists():
        notes.append(f"the study's folder {file.parent} is not here; relative paths are taken "
                     f"from {base}")
        file = None
    inputs = json.loads(ds.attrs.get("input_files") or "{}")
    study_name = file.name if file is not None else None
    for rel, digest in inputs.items():
        p = base / rel
        if rel == study_name and ds.attrs.get("study_changes"):
            continue   # the text ran is the stored one; the file was only its starting point
        if not p.exists():
            if rel == study_name:
                continue   # the stored text is the study; its file is not needed
            problems.append(f"input file {p} is missing (the run read it: {digest})")
        elif check_inputs and rel != study_name and "sha256:" + sha256(p) != digest:
            problems.append(f"input file {p} has changed since the run (now sha256:{sha256(p)}, "
                            f"the run read {digest})")
    if problems:
        raise WorkbenchError(f"cannot rerun {where}:\n  - " + "\n  - ".join(problems))
    mine = code_version()
    if ds.attrs.get("workbench_version") not in (None, __version__):
        notes.append(f"made with workbench {ds.attrs['workbench_version']}, rerun with {__version__}")
    if ds.attrs.get("git_commit") and mine.get("git_commit") and ds.attrs["git_commit"] != mine["git_commit"]:
        notes.append(f"made at commit {ds.attrs['git_commit'][:12]}, rerun at {mine['git_commit'][:12]}")
    if int(ds.attrs.get("git_dirty", 0) or 0):
        notes.append("the original run was made from a checkout with uncommitted changes")
    try:
        # a study changed in Python ran without the loader's start-of-run checks: so does its rerun
        study = load_study_text(text, file=file, registry=registry,
                                run_checks=not ds.attrs.get("study_changes"))
    except StudyError as exc:
        raise WorkbenchError(f"cannot rerun {where}: its study no longer loads: {exc}") from None
    changes = ds.attrs.get("study_changes")
    if changes:
        import dataclasses
        from .sync import mark_loaded
        study = mark_loaded(dataclasses.replace(study, changes=tuple(json.loads(changes))))
    return Rerun(study, notes)


def compare(orig, new, *, k: float = 3.0) -> tuple[bool, list[str]]:
    """Whether ``new`` reproduces ``orig``, and a line per finding.

    Every data variable of a dynamics (or pressure) result must be bit-identical.  A wear result
    is statistical: a variable ``X`` with a standard error ``X_se`` (or ``X_stderr``) agrees when
    ``|X_new - X_orig| <= k sqrt(se_orig^2 + se_new^2)``; the others are compared as numbers
    within 1e-9 relative."""
    lines, ok = [], True
    wear = orig.attrs.get("study_kind") == "wear"
    for name, a in orig.data_vars.items():
        if name not in new:
            lines.append(f"{name}: missing from the rerun"); ok = False
            continue
        b = new[name]
        if a.dtype.kind not in "fiub" or b.dtype.kind not in "fiub":
            if not np.array_equal(np.asarray(a.values), np.asarray(b.values)):
                lines.append(f"{name}: differs"); ok = False
            continue
        if a.shape != b.shape:
            lines.append(f"{name}: shape {a.shape} vs {b.shape}"); ok = False
            continue
        x, y = np.asarray(a.values, dtype=float), np.asarray(b.values, dtype=float)
        if np.array_equal(x, y, equal_nan=True):
            continue
        se = next((s for s in (f"{name}_se", f"{name}_stderr", f"{name}_standard_error")
                   if s in orig and s in new), None)
        if wear and se is not None:
            s = np.hypot(np.asarray(orig[se].values, float), np.asarray(new[se].values, float))
            z = np.abs(y - x) / np.where(s > 0, s, np.inf)
            worst = float(np.nanmax(z)) if z.size else 0.0
            good = worst <= k
            lines.append(f"{name}: within {worst:.2f} standard errors" + ("" if good else f" (> {k:g})"))
            ok &= good
        elif wear and np.allclose(x, y, rtol=1e-9, atol=0.0, equal_nan=True):
            continue
        else:
            d = np.nanmax(np.abs(y - x)) if x.size else 0.0
            lines.append(f"{name}: not identical (largest difference {d:.3g})")
            ok = False if not wear else ok
    if ok and not lines:
        lines.append(f"all {len(orig.data_vars)} variables bit-identical")
    return ok, lines
