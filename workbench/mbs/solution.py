"""Solver settings and the solver's output, as plain data (SI units).

:class:`Simulation` is what :func:`workbench.mbs.solver.simulate` returns; turning it into an
xarray dataset is the job of :mod:`workbench.results.dataset` alone.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class SolverSettings:
    """Numerical settings of a dynamics run.

    Parameters
    ----------
    t_end : end time [s].
    t_start : start time [s].
    output_step : spacing of the output samples [s].
    rtol, atol : relative [1] and absolute [state units] tolerances of the embedded Runge-Kutta.
        The defaults (1e-11, 1e-14 = rtol x 1 mm) are converged for clearance-joint dynamics: the
        Flores slider-crank over two crank revolutions reproduces a solution at rtol 1e-13 to
        7e-7 m with the same impact sequence (at 1e-6 it is off by 6e-4 m and misses 17 of 43
        impacts; at 1e-10 it is off by 1.1e-5 m with one extra grazing impact).  See the
        the convergence table of docs/validation.md and ``workbench converge``.
    max_step : largest step [s] (0 = unlimited).
    first_step : initial step [s].
    baumgarte_alpha, baumgarte_beta : Baumgarte stabilisation factors [1/s] (Wang, Chen, Ma & Sun (2016) eq. 41).
    engine : which engine runs the study (:mod:`workbench.engines`): ``"auto"`` (the first engine
        that accepts the mechanism and settings, :func:`workbench.engines.select`) or an engine's
        name (``"compiled"``, ``"scipy_reference"``, ``"event_driven"``, ``"generalized_alpha"``,
        ``"moreau_jean"``).  This class is the study-level container of every engine's settings;
        each engine declares the part it reads (``workbench.engines.<engine>.Settings``).
    path : ``"fast"`` (compiled Dormand-Prince with event location) or ``"scipy"`` (reference:
        ``scipy.integrate.solve_ivp`` with a plain-Python right-hand side); the older spelling of
        ``engine = "compiled"`` / ``"scipy_reference"``.
    formulation : the spatial engine's coordinates: ``None`` (not given) or ``"absolute"`` (position
        and Euler parameters per body, constraint rows; every spatial mechanism) or ``"minimal"`` (the joint coordinates
        of a tree of ideal joints rooted at the ground, equations generated for the mechanism:
        :mod:`workbench.spatial.minimal`).
    method : scipy method on the reference path (``"DOP853"``, ``"RK45"``, ``"Radau"`` ...) and of
        the event-driven engine's smooth phases; ``"moreau_jean"`` is the older spelling of
        ``engine = "moreau_jean"``.
    detection : contact-start detection: ``"event"`` (root finding on the gap with the dense
        output) or ``"step_halving"`` (Wu (2014): two-state, three-stage step halving to the
        critical point ``0 <= delta <= epsilon``).
    critical_penetration : epsilon of Wu (2014) [m].
    min_step : smallest step of the step-halving detector [s] (Wu (2014): 0.1 us).
    max_steps : largest number of (accepted + rejected) steps before giving up [1].
    max_wall_time : wall-clock limit of the integration [s] (inf = none).  When it is reached the
        run stops cleanly at the next step and :func:`~workbench.mbs.solver.simulate` raises
        :class:`~workbench.mbs.solver.SolverTimeLimit` carrying the samples integrated so far.
    step, restitution : ``[solver] step`` [s] and ``restitution`` [1] of the Moreau-Jean
        time stepping (:mod:`workbench.nonsmooth.moreau_jean`; ``method = "moreau_jean"``).
    impact_peaks : locate each impact's peak force and largest penetration on the dense output
        (fast path; ``Simulation.impact_peak_force`` ...); False leaves them NaN and saves the
        contact evaluations this takes (one or two per step while a contact is closed).
    specialise : run the fast path on code generated for the mechanism's structure
        (:mod:`workbench.mbs.codegen`): ``False`` (the generic compiled code), ``True``, or
        ``"auto"`` (specialise a structure whose specialised code is compiled already, or whose
        runs in this process span more than :data:`~workbench.mbs.solver.AUTO_SPECIALISE_SPAN`
        [s] of simulated time).  Same results (the same arithmetic; to the last bit on the Flores
        slider-crank and the five-bar), each right-hand-side call about 2.3x faster.  The first
        run of a new structure compiles it: 1-4 min on a shared 2-core machine, once per
        structure and workbench version (on-disk cache).  A mechanism it cannot specialise
        (translational clearance joints, distributed contact, ideal-joint friction) runs the
        generic code; ``Simulation.stats`` says which ran (``specialised``,
        ``specialise_skipped``).
    """
    t_end: float
    t_start: float = 0.0
    output_step: float = 1e-5
    rtol: float = 1e-11
    atol: float = 1e-14
    max_step: float = 0.0
    first_step: float = 1e-6
    baumgarte_alpha: float = 5.0
    baumgarte_beta: float = 5.0
    path: str = "fast"
    formulation: str | None = None   # a spatial engine's key: given for a planar study, validate names it
    method: str = "DOP853"
    detection: str = "event"
    critical_penetration: float = 1e-8
    min_step: float = 1e-7
    max_steps: int = 20_000_000
    max_wall_time: float = math.inf
    impact_peaks: bool = True
    specialise: bool | str = False  # see above (owner: speed)
    #: fixed step h [s] of ``method = "moreau_jean"`` (None: not that method); Newton's
    #: restitution e_n [1] replacing the clearance joints' own (None: the contact laws')
    step: float | None = None
    restitution: float | None = None
    #: the first angle driver's speed rises smoothly from 0 to its constant value over this time
    #: [s] before ``t_start`` (a pre-roll; 0: the consistent start at full speed)
    ramp: float = 0.0
    engine: str = "auto"


@dataclass
class Simulation:
    """Output of one dynamics run, sampled at ``time``.

    Shapes: ``nt`` samples, ``nb`` moving bodies, ``nd`` drivers, ``nj`` ideal joints,
    ``nc`` clearance joints, ``ni`` impacts.

    Attributes
    ----------
    time : (nt,) [s]
    position, velocity, acceleration : (nt, nb, 3) — x [m], y [m], phi [rad] and derivatives.
    driver_load : (nt, nd) [N m] for angle drivers, [N] for x/y drivers: the generalised force the
        driver applies to its body.
    joint_reaction : (nt, nj, 2) [N] force of the ideal joint on ``body_j`` (global frame).
    contact_force : (nt, nc) [N] normal contact force (sum over contact points); for a lubricated
        joint the solid contact only: the contact law's force plus the asperity load of a mixed
        lubrication model (:attr:`workbench.models.LubricationModel.parts_kernel`), not the film.
    friction_force : (nt, nc) [N] friction force (signed along the tangent; sum over points), the
        asperities' boundary friction included.
    film_force : (nt, nc) [N] or None: magnitude of the lubricant film's force on the journal (0
        for a joint without lubrication); None from engines without lubricated joints.
    penetration : (nt, nc) [m] largest penetration (negative while apart).
    eccentricity : (nt, nc, 2) [m] journal centre relative to the bushing centre, bushing frame
        (translational joints: slider centre relative to the guide line, guide frame).
    slip_velocity : (nt, nc) [m/s] relative tangential velocity at the contact.
    kinetic_energy, potential_energy, contact_energy, driver_work, dissipated_energy : (nt,) [J]
        contact_energy = work absorbed by the normal contact forces, int F_n d(delta)/dt dt (the
        elastic energy stored in the contacts for elastic laws, plus the hysteresis loss for
        dissipative ones); dissipated_energy = friction work + damper dissipation.  The books
        ``kinetic + potential + contact + dissipated - driver_work`` stay constant.
    drift_position, drift_velocity : (nt,) [m], [m/s] norms of the constraint violations.
    impact_time, impact_velocity : (ni,) [s], [m/s] start of each contact and its approach speed
        ``delta_dot_minus`` (> 0); impact_joint, impact_point : (ni,) indices.
    impact_peak_force, impact_peak_time : (ni,) [N], [s] largest normal contact force of the joint
        (sum over its contact points) during each contact, from its start until the joint
        separates or its next contact starts, and when it occurs; located on the integrator's
        continuous extension (not on the output samples).  NaN when unknown (reference path).
    impact_max_penetration : (ni,) [m] largest penetration of the joint during each contact,
        located likewise.
    status : ``"complete"``, or why the run stopped early: ``"interrupted"`` (Ctrl-C),
        ``"time_limit"`` (``max_wall_time``), ``"failed"`` (model fault or solver failure); a
        Simulation that is not complete holds the samples integrated before the stop.
    stats : counters (steps, rejected steps, right-hand-side calls, wall time [s]).
    contact_angle : (nt, nc) [rad] direction of the contact normal in the bushing frame (revolute
        joints; with worn profiles the direction of the deepest overlap).
    relative_rotation : (nt, nc) [rad] journal angle minus bushing angle (revolute joints).
    engine, engine_reason : the engine that ran (:mod:`workbench.engines`) and why it was chosen
        (set by :func:`workbench.engines.simulate`; empty when a solver was called directly).
    extras : what an engine returns beside the common samples, read by its dataset parts
        (event-driven: ``event_run``, ``samples``; Moreau-Jean: ``friction_events``).
    """
    body_names: list[str]
    driver_names: list[str]
    joint_names: list[str]
    clearance_names: list[str]
    clearance_kinds: list[str]
    time: np.ndarray
    position: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray
    driver_load: np.ndarray
    joint_reaction: np.ndarray
    contact_force: np.ndarray
    friction_force: np.ndarray
    penetration: np.ndarray
    eccentricity: np.ndarray
    slip_velocity: np.ndarray
    kinetic_energy: np.ndarray
    potential_energy: np.ndarray
    contact_energy: np.ndarray
    driver_work: np.ndarray
    dissipated_energy: np.ndarray
    drift_position: np.ndarray
    drift_velocity: np.ndarray
    impact_time: np.ndarray
    impact_velocity: np.ndarray
    impact_joint: np.ndarray
    impact_point: np.ndarray
    stats: dict = field(default_factory=dict)
    contact_angle: np.ndarray | None = None
    relative_rotation: np.ndarray | None = None
    impact_peak_force: np.ndarray | None = None
    impact_peak_time: np.ndarray | None = None
    impact_max_penetration: np.ndarray | None = None
    film_force: np.ndarray | None = None
    status: str = "complete"
    engine: str = ""
    engine_reason: str = ""
    extras: dict = field(default_factory=dict)

    def __post_init__(self):
        ni = len(self.impact_time)
        for name in ("impact_peak_force", "impact_peak_time", "impact_max_penetration"):
            if getattr(self, name) is None:
                setattr(self, name, np.full(ni, np.nan))
