"""Uncertainty propagation for wear studies: parameters given as distributions, prediction bands
that combine the parameter uncertainty with the chaotic scatter of the dynamics, Sobol'
sensitivity indices, and a surrogate checked against held-back direct runs.

:func:`~workbench.uq.sobol.sobol_indices` (any function of independent inputs, via SALib) and
:func:`~workbench.uq.propagate.propagate` (a wear study; the wear coefficient through the k N
scaling of Archard-type wear, the other parameters through design runs and a surrogate).
"""
from .sobol import sobol_indices

__all__ = ["sobol_indices", "propagate"]


def propagate(*args, **kwargs):
    """See :func:`workbench.uq.propagate.propagate`."""
    from .propagate import propagate as _p
    return _p(*args, **kwargs)
