"""Calibration of the wear coefficient against measured wear, with its uncertainty.

Given measured worn profiles and/or worn volumes at known cycle counts, each with its
measurement standard error (:mod:`.data`: CSV or netCDF), and a wear study, :func:`calibrate`
returns the posterior of the study's wear coefficient as an :class:`xarray.Dataset`:

1. one reference run of the study at its own coefficient k0 (or an existing result of it);
2. the forward model (:mod:`.forward`): the run read at the measured points, ``N k/k0`` cycles
   for a coefficient k (exact for Archard-type laws: the worn state depends on k N only), or
   ``(k/k0) h(N)`` in the small-wear limit (linear in k);
3. the likelihood with the measurement error and the simulation's own standard error, a prior on k,
   and the posterior on a fine grid in ln k (:mod:`.posterior`; exact, no sampling error), with
   the closed-form Gaussian of the linear model beside it;
4. the posterior predictive at the observations and a plot of the profile against the data
   (:mod:`.plot`).

``workbench calibrate STUDY DATA -o OUT.nc`` does the same from the command line.
"""
from .data import DataError, Measurements, read_measurements, write_csv
from .posterior import PRIORS, Prior
from .run import METHODS, calibrate

__all__ = ["calibrate", "Measurements", "read_measurements", "write_csv", "DataError", "Prior", "PRIORS", "METHODS"]


def calibrate_mcmc(*args, **kwargs):
    """The wear coefficient with parameters that change the dynamics (:func:`.mcmc.calibrate_mcmc`)."""
    from .mcmc import calibrate_mcmc as _c
    return _c(*args, **kwargs)


__all__ += ["calibrate_mcmc"]
