"""Sobol' sensitivity indices of a function of independent random inputs (Saltelli's estimators
through SALib; Sobol' (2001), Saltelli et al. (2010))."""
from __future__ import annotations

import numpy as np

from ..errors import WorkbenchError


def sobol_indices(func, distributions: dict, n: int = 1024, *, seed: int = 0) -> dict:
    """First-order and total Sobol' indices of ``func`` over independent inputs.

    func : maps an array (m, d) of input values to (m,) outputs (vectorised);
    distributions : ``{name: Prior}`` (anything with ``ppf(u)``: the inverse distribution function);
    n : base sample size (a power of 2; ``n (d + 2)`` evaluations).
    Returns ``{"names", "S1", "S1_conf", "ST", "ST_conf"}`` (arrays over the inputs; conf: the 95 %
    bootstrap half-widths).  The unit-cube design is mapped onto each distribution by its inverse
    distribution function, so any distribution with a ``ppf`` works.
    """
    try:
        from SALib.analyze import sobol as analyze
        from SALib.sample import sobol as sample
    except ImportError:
        raise WorkbenchError("Sobol' indices need SALib: pip install 'joint-wear-workbench[uq]'") from None
    names = list(distributions)
    problem = {"num_vars": len(names), "names": names, "bounds": [[0.0, 1.0]] * len(names)}
    u = sample.sample(problem, n, calc_second_order=False, seed=seed)
    x = np.column_stack([distributions[k].ppf(u[:, i]) for i, k in enumerate(names)])
    y = np.asarray(func(x), float)
    if y.shape != (len(x),) or not np.all(np.isfinite(y)):
        raise WorkbenchError("sobol_indices: the function must return one finite value per input row")
    r = analyze.analyze(problem, y, calc_second_order=False, seed=seed)
    return {"names": names, "S1": np.asarray(r["S1"]), "S1_conf": np.asarray(r["S1_conf"]),
            "ST": np.asarray(r["ST"]), "ST_conf": np.asarray(r["ST_conf"])}
