"""Where plots may be written: the output rules of results, applied to figure files.

A plot folder (``run --plot-dir DIR``, the default ``OUT_plots/``, ``workbench plot -o DIR``)
may hold files of the user's.  The workbench never writes over a file it did not write, and
replaces a figure of its own only when asked (``--overwrite``; a ``--resume``d wear run redraws
its own figures too).  A figure is *ours* when the folder's manifest :data:`MANIFEST` lists it
with the SHA-256 of its bytes and the file still has them: a file of the same name the user put
there, or one of our figures the user edited since, is not ours.  (A PNG text chunk would not
do: a user's copy of an earlier figure would carry it too.)

:func:`check_plot_dir` applies the rules before a run starts, to the names the study's kind may
draw (:data:`PLOT_NAMES`, glob patterns); :func:`publish` draws the figures into a temporary
folder inside the plot folder, checks every name against what is there, and only then moves
them in (a new name with ``os.link``, which refuses a file that appeared meanwhile; one of our
figures with ``os.replace``) and records them in the manifest (written to a temporary name and
renamed).  A refusal is an :class:`~workbench.results.outputs.OutputError` naming the file; nothing in
the folder is changed then.
"""
from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import shutil
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from .outputs import OutputError

MANIFEST = ".workbench-plots.json"
#: the file names each kind of result may draw (glob patterns; a meta-test checks every plot
#: the kinds write against them)
PLOT_NAMES = {
    "dynamics": ("contact_force.png", "journal_orbit.png", "slider_acceleration.png", "driver_moment.png",
                 "slider_acceleration_spectrum.png", "spatial_*.png"),
    "wear": ("profiles_*.png", "wear_volume.png", "degradation.png", "guide_*.png", "wear_trends.png",
             "map_*.png", "cuts_*.png"),
    "pressure": ("pressure_*.png", "errors_*.png"),
    "sweep": ("summary.png",),
    "uq": ("uq_bands.png", "uq_sobol.png", "uq_sobol_cycles.png", "uq_bands.pdf", "uq_sobol.pdf",
           "uq_sobol_cycles.pdf"),
}


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_manifest(folder: Path) -> dict:
    """``{name: {"sha256": ..., ...}}`` of the figures we wrote into ``folder`` (empty if none)."""
    try:
        doc = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        files = doc.get("files", {}) if isinstance(doc, dict) else {}
        return {k: v for k, v in files.items() if isinstance(v, dict) and isinstance(v.get("sha256"), str)}
    except (OSError, ValueError):
        return {}


def is_our_figure(path: Path, manifest: dict | None = None) -> bool:
    """True when ``path`` is a regular file listed in its folder's manifest with its current bytes."""
    path = Path(path)
    if manifest is None:
        manifest = read_manifest(path.parent)
    entry = manifest.get(path.name)
    if entry is None or path.is_symlink() or not path.is_file():
        return False
    try:
        return _sha256(path) == entry["sha256"]
    except OSError:
        return False


def _refuse(path: Path, ours: bool, option: str) -> OutputError:
    if ours:
        return OutputError(f"{path} is a figure of an earlier workbench run; pass --overwrite to replace it, "
                           f"or choose another plot folder ({option})")
    return OutputError(f"{path} exists and was not written by the workbench; it is never written over "
                       f"(not even with --overwrite): move it away or choose another plot folder ({option})")


def _check_folder(folder: Path, option: str) -> None:
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"the plot folder {folder} is an existing file, not a folder; it is never written "
                          f"over: choose another plot folder ({option})")


def check_plot_dir(folder: str | Path, *, kind: str, overwrite: bool = False, option: str = "--plot-dir") -> None:
    """Before a run: refuse a plot folder holding a file the ``kind``'s plots would replace that
    is not ours (or is ours, without ``overwrite``).  Raises :class:`OutputError` naming it."""
    folder = Path(folder)
    _check_folder(folder, option)
    if not folder.is_dir():
        return
    from .figures import current
    suffix = "." + current().format   # the figures are written in the format in force (--format)
    patterns = tuple(p[:-len(".png")] + suffix if p.endswith(".png") else p for p in PLOT_NAMES.get(kind, ()))
    manifest = read_manifest(folder)
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if any(fnmatch.fnmatchcase(entry.name, p) for p in patterns):
            path = folder / entry.name
            ours = is_our_figure(path, manifest)
            if not ours or not overwrite:
                raise _refuse(path, ours, option)


def _write_manifest(folder: Path, manifest: dict) -> None:
    tmp = folder / f".{MANIFEST}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps({"what": "figures written by the Joint Wear Workbench", "files": manifest},
                              indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, folder / MANIFEST)


def publish(draw, folder: str | Path, *, overwrite: bool = False, option: str = "--plot-dir") -> list[Path]:
    """Draw the figures with ``draw(staging_folder) -> [paths]`` and move them into ``folder``
    under the rules of the module docstring; return their final paths.  Nothing in ``folder`` is
    replaced when any name is refused."""
    folder = Path(folder)
    _check_folder(folder, option)
    from ..runtime.abandoned import remove_abandoned_staging, remove_abandoned_tmp_files, staging_prefix
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # what a killed plot left here (its staging folder, its manifest's temporary): ours, dead writer
        remove_abandoned_staging(folder)
        remove_abandoned_tmp_files(folder / MANIFEST)
        staging = Path(tempfile.mkdtemp(prefix=staging_prefix(), dir=folder))
    except OSError as exc:
        raise OutputError(f"cannot write the plots to {folder}: {exc.strerror or exc}") from None
    try:
        drawn = [Path(p) for p in (draw(staging) or [])]
        manifest = read_manifest(folder)
        plan = []
        for src in drawn:
            dst = folder / src.name
            exists = dst.exists() or dst.is_symlink()
            if exists:
                ours = is_our_figure(dst, manifest)
                if not ours or not overwrite:
                    raise _refuse(dst, ours, option)
            plan.append((src, dst, exists))
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        done = []
        for src, dst, exists in plan:
            digest = _sha256(src)
            if exists:
                os.replace(src, dst)   # one of our figures, checked above
            else:
                try:
                    os.link(src, dst)  # refuses a file that appeared since the check
                except FileExistsError:
                    raise _refuse(dst, False, option) from None
            manifest[dst.name] = {"sha256": digest, "written": now}
            done.append(dst)
            _write_manifest(folder, manifest)
        return done
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # safe: the temporary folder made by mkdtemp above, holding only figures we drew
