"""Design runs: a wear study run at several values of some of its parameters (for the surrogates of
:mod:`.mcmc` and :mod:`workbench.uq.propagate`)."""
from __future__ import annotations

import copy
import shutil
import tempfile
import tomllib
from pathlib import Path

import numpy as np

from ..errors import WorkbenchError
from .run import simulate


def with_values(study, names: list[str], values, registry=None):
    """The study with the keys ``names`` (paths as in a sweep, ``"a.b[0].c"``) set to ``values`` (SI)."""
    import tomli_w
    from ..schema.paths import parse_path, set_path
    from ..study.load import load_study_text
    doc = copy.deepcopy(tomllib.loads(study.text))
    for path, v in zip(names, np.atleast_1d(values)):
        try:
            set_path(doc, parse_path(path), float(v))
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise WorkbenchError(f"parameter {path!r}: cannot set it in the study ({exc})") from None
    return load_study_text(tomli_w.dumps(doc), file=study.file, registry=registry)


def design_runs(study, names: list[str], points, cycles: float, registry=None) -> list:
    """``[(values, dataset)]``: the study run to ``cycles`` at each row of ``points`` (n, d)."""
    out = []
    tmp = Path(tempfile.mkdtemp(prefix="workbench-design-"))
    try:
        for j, theta in enumerate(np.atleast_2d(points)):
            st = with_values(study, names, theta, registry)
            out.append((np.atleast_1d(theta), simulate(st, cycles, tmp / f"design{j}.zarr", registry=registry).load()))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)   # safe: our own temporary folder
    return out
