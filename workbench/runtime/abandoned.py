"""Temporaries of a killed process, removed by the next run -- only ours, only of dead processes.

A results file is written to ``.OUT.PID.tmp`` beside ``OUT`` and renamed when complete
(:func:`workbench.results.dataset.write_dataset`); plots are drawn in a hidden staging folder
``.workbench-plots-PID-XXXXXXXX`` inside the plot folder (:func:`workbench.results.plot_files.publish`).
A ``kill -9`` (or a power loss) in between leaves them behind.  The next write to the same place
removes exactly these: names matching the pattern of *this* output, of the right kind (a regular
file, a real folder; never a symbolic link), whose PID is not a running process
(:func:`pid_alive`).  Anything else -- a user's file with a similar name, the temporary of a run
still going -- is left alone.
"""
from __future__ import annotations

import os
import re
import shutil
import stat
from pathlib import Path


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` runs on this machine (one of another user counts as running)."""
    if pid <= 0:
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def _dead_matches(folder: Path, pattern: re.Pattern, want_dir: bool) -> list[Path]:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    found = []
    for e in entries:
        m = pattern.fullmatch(e.name)
        if m is None:
            continue
        try:
            mode = os.lstat(e.path).st_mode
        except OSError:
            continue
        if (stat.S_ISDIR(mode) if want_dir else stat.S_ISREG(mode)) and not pid_alive(int(m.group("pid"))):
            found.append(Path(e.path))
    return found


def tmp_file_pattern(out: Path) -> re.Pattern:
    """The temporary file names of a write to ``out``: ``.OUT.PID.tmp``."""
    return re.compile(rf"\.{re.escape(out.name)}\.(?P<pid>\d+)\.tmp")


def remove_abandoned_tmp_files(out: str | Path) -> list[Path]:
    """Remove the ``.OUT.PID.tmp`` files of dead processes beside ``out``; return them."""
    out = Path(out)
    gone = []
    for p in _dead_matches(out.parent, tmp_file_pattern(out), want_dir=False):
        try:
            p.unlink()   # safe: our temporary name for this output, of a process that no longer runs
            gone.append(p)
        except OSError:
            pass
    return gone


#: the staging folders of plots: ``.workbench-plots-PID-<random>``
STAGING = re.compile(r"\.workbench-plots-(?P<pid>\d+)-[A-Za-z0-9_]{4,16}")


def staging_prefix() -> str:
    """The prefix of this process's plot staging folders (``tempfile.mkdtemp(prefix=...)``)."""
    return f".workbench-plots-{os.getpid()}-"


def remove_abandoned_staging(folder: str | Path) -> list[Path]:
    """Remove the plot staging folders of dead processes in ``folder``; return them."""
    gone = []
    for p in _dead_matches(Path(folder), STAGING, want_dir=True):
        shutil.rmtree(p, ignore_errors=True)   # safe: a staging folder of ours (name, real folder, dead writer)
        gone.append(p)
    return gone
