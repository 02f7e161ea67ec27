"""Lubricated revolute joints: film and asperity physics (host side, no plugin machinery).

* :mod:`.kinematics` -- eccentricity ratio, its rate, whirl and wedge velocity from the
  bushing-frame eccentricity and its rate (compiled);
* :mod:`.short_bearing` -- Ocvirk, the dynamic form of Flores et al. (2006) (short-bearing forces);
* :mod:`.long_bearing` -- Sommerfeld with the half-Sommerfeld (Gümbel) condition;
* :mod:`.reynolds` -- the finite bearing: Reynolds equation on the unwrapped film with scikit-fem,
  Gümbel, Reynolds (LCP) and mass-conserving JFO cavitation, worn film shapes;
* :mod:`.finite_bearing` -- its forces tabulated for the dynamics (bicubic, compiled);
* :mod:`.greenwood_tripp` -- asperity pressure with the ``F_5/2`` integral;
* :mod:`.mixed` -- film + asperities, friction of both, the Stribeck curve.

The models a study selects are plugins of the family ``lubrication``
(:class:`workbench.models.LubricationModel`, ``plugins/lubrication/``); the planar solver calls
their kernels through :func:`workbench.mbs.clearance.film_forces`.  See ``docs/lubrication.md``.
"""
