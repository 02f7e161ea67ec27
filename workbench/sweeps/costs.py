"""The order a sweep sends its cases in: the longest first, from the costs measured earlier.

On N workers a sweep ends when its last case ends; sending the longest cases first (the
longest-processing-time rule, whose makespan is at most 4/3 - 1/(3N) of the optimum: Graham
(1969)) keeps a long case from starting last while the other workers idle.  A case's cost cannot
be read from its study file (it depends on the models, stiffness, impacts ...), so it is
*calibrated*: every finished case's wall time is remembered in ``sweep-costs.json`` in the cache
root (:mod:`workbench.runtime.caches`), keyed by the case's own settings (the sweep values that make it
differ from the base study, not the base study itself), as a share of the mean of its sweep.  The
next sweep over the same settings -- a re-run, a longer or shorter base study, a finer output --
sends its cases in that order; cases never measured go first, in file order (nothing is known of
them, so they may be the long ones).  The file is small (at most :data:`MAX_ENTRIES` cases, the
oldest dropped) and is rewritten atomically; a missing or broken file only means file order.
``$WORKBENCH_SWEEP_COSTS`` names another file.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

FILE = "sweep-costs.json"
MAX_ENTRIES = 5000


def case_key(settings) -> str:
    """Key of a case: a hash of its ``(path, value)`` settings."""
    text = json.dumps([[str(p), v] for p, v in settings], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


#: environment variable naming another cost file (a benchmark's own, for instance)
ENV = "WORKBENCH_SWEEP_COSTS"


def _path() -> Path:
    if os.environ.get(ENV):
        return Path(os.environ[ENV])
    from ..runtime.caches import cache_root
    return cache_root() / FILE


def load() -> dict:
    """``{key: [relative cost, time recorded]}`` (empty when there is no usable file)."""
    try:
        data = json.loads(_path().read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def order(tasks: list, costs: dict | None = None) -> list:
    """``tasks`` (with ``.settings``) in the order to send them: never measured first (file order),
    then the measured ones by decreasing cost."""
    costs = load() if costs is None else costs
    known, unknown = [], []
    for i, t in enumerate(tasks):
        c = costs.get(case_key(t.settings))
        if isinstance(c, list) and c and isinstance(c[0], (int, float)):
            known.append((-float(c[0]), i, t))
        else:
            unknown.append(t)
    return unknown + [t for _, _, t in sorted(known, key=lambda k: k[:2])]


def record(tasks: list, wall_times: dict) -> None:
    """Remember the measured ``wall_times`` ``{index: seconds}`` of ``tasks`` (finished cases only)
    as shares of their mean.  Never raises: a cost file that cannot be written is no error."""
    pairs = [(case_key(t.settings), float(wall_times[t.index])) for t in tasks
             if t.index in wall_times and wall_times[t.index] > 0 and len(t.settings)]
    if len(pairs) < 2:
        return
    mean = sum(w for _, w in pairs) / len(pairs)
    try:
        path = _path()
        data = load()
        now = time.time()
        data.update({k: [w / mean, now] for k, w in pairs})
        if len(data) > MAX_ENTRIES:
            data = dict(sorted(data.items(), key=lambda kv: kv[1][1])[-MAX_ENTRIES:])
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{FILE}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, path)
    except (OSError, TypeError, ValueError, IndexError):
        pass
