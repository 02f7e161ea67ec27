"""Uncertainty propagation for wear studies: parameters given as distributions, prediction bands
that combine the parameter uncertainty with the chaotic scatter of the dynamics, Sobol'
sensitivity indices, and a surrogate checked against held-back direct runs.

* UQ files (:mod:`workbench.uq.spec`): a base wear study and an ``[uncertainty]`` table; the
  Saltelli design (:mod:`workbench.uq.design`) runs as a sweep (``workbench uq``, which lives with
  the sweeps in the command line), and :mod:`workbench.uq.analyze` turns the runs into bands
  against the cycles and Sobol' indices with their confidence intervals;
* :func:`~workbench.uq.sobol.sobol_indices` (any function of independent inputs, via SALib) and
  :func:`~workbench.uq.propagate.propagate` (a wear study; the wear coefficient through the k N
  scaling of Archard-type wear, the other parameters through design runs and a surrogate).
"""
from .sobol import sobol_indices

__all__ = ["sobol_indices", "propagate"]


def propagate(*args, **kwargs):
    """See :func:`workbench.uq.propagate.propagate`."""
    from .propagate import propagate as _p
    return _p(*args, **kwargs)
