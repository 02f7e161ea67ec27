"""The runs of a UQ file: a Saltelli design over the uncertain parameters, as a sweep.

:func:`saltelli` draws SALib's Saltelli design (Saltelli et al. (2010), without second-order
terms: ``N (d + 2)`` rows for ``d`` parameters and base sample ``N``, a scrambled Sobol' sequence)
on the unit cube and maps it onto the distributions by their inverse CDFs.  Every row, including
the mixed rows ``AB_i``, is a draw of the joint input distribution (the inputs are independent), so
the bands pool all rows.  :func:`sweep_text` writes the rows as a sweep file of one dimension (all
parameters zipped), run by the sweep machinery (:mod:`workbench.sweeps`: local processes, dask,
a cluster).  With a surrogate, :func:`held_back` adds plain random draws after the design's rows:
direct runs the surrogate is checked against and not fitted on (:func:`rows`).
"""
from __future__ import annotations

import numpy as np

from ..errors import WorkbenchError
from .spec import UQSpec

#: the wear results every run reduces to (the bands read each run's store for the history)
SUMMARY = ("wear_volume", "wear_volume_stderr", "max_wear_depth")


def problem(spec: UQSpec) -> dict:
    """SALib's problem of ``spec``: the unit cube over its parameters."""
    return {"num_vars": len(spec.parameters), "names": spec.names, "bounds": [[0.0, 1.0]] * len(spec.parameters)}


def saltelli(spec: UQSpec) -> tuple[np.ndarray, np.ndarray]:
    """The unit-cube design ``u`` and the parameter values ``x`` (both ``(N (d + 2), d)``)."""
    try:
        from SALib.sample import sobol as sample
    except ImportError:
        raise WorkbenchError("uncertainty propagation needs SALib: pip install 'joint-wear-workbench[uq]'") from None
    u = sample.sample(problem(spec), spec.base_samples, calc_second_order=False, seed=spec.seed)
    x = np.column_stack([p.ppf(u[:, i]) for i, p in enumerate(spec.parameters)])
    return u, x


def held_back(spec: UQSpec) -> tuple[np.ndarray, np.ndarray]:
    """The surrogate's check runs: ``spec.held_back`` plain random draws ``u`` of the unit cube
    (independent of the design's Sobol' points; their own stream of ``spec.seed``) and their
    parameter values ``x`` (both ``(held_back, d)``; empty without a surrogate)."""
    d = len(spec.parameters)
    u = np.random.default_rng([spec.seed, 31]).uniform(size=(spec.held_back, d))
    x = np.column_stack([p.ppf(u[:, i]) for i, p in enumerate(spec.parameters)]) if len(u) else np.zeros((0, d))
    return u, x


def rows(spec: UQSpec) -> tuple[np.ndarray, np.ndarray, int]:
    """Every run of ``spec``: the Saltelli design's rows, then the held-back check runs.  Returns
    ``u``, ``x`` (all rows) and the number of design rows."""
    u, x = saltelli(spec)
    uh, xh = held_back(spec)
    return np.vstack([u, uh]), np.vstack([x, xh]), len(u)


def sweep_doc(spec: UQSpec, x: np.ndarray) -> dict:
    """The sweep file (a TOML document) that runs the rows ``x`` of the design: one case per row,
    the parameters zipped along one dimension (named after the first), labelled by row number."""
    labels = [f"r{i:05d}" for i in range(len(x))]
    grid = {p.path: {"values": [float(v) for v in x[:, i]], "name": f"uq_{p.name}", "labels": labels,
                     "long_name": f"design row (values of {p.path})"}
            for i, p in enumerate(spec.parameters)}
    head = {"title": spec.title, "description": spec.description or f"uncertainty propagation runs of {spec.title}",
            "base": str(spec.base_file.resolve()), "summary": list(SUMMARY),
            "zip": [[f"uq_{p.name}" for p in spec.parameters]] if len(spec.parameters) > 1 else []}
    if spec.case_timeout is not None:
        head["case_timeout"] = float(spec.case_timeout)
    fixed = dict(spec.fixed)
    fixed["wear.cycles"] = float(spec.cycles)
    return {"sweep": head, "set": fixed, "grid": grid}


def sweep_text(spec: UQSpec, x: np.ndarray) -> str:
    """:func:`sweep_doc` as TOML text."""
    import tomli_w
    return tomli_w.dumps(sweep_doc(spec, x))
