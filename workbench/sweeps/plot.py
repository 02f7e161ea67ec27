"""The summary plot of a sweep: :func:`workbench.results.sweep_plot.plot_sweep` (it lives with the
other plots of a result, at the bottom, so a study kind's dispatcher can draw a sweep's dataset
without importing the sweeps package); named here too."""
from ..results.sweep_plot import plot_sweep  # noqa: F401
