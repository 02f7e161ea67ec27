"""One wear update: contact samples -> pressure on the nodes -> wear rate per cycle, with its error.

From the averaging cycles of a simulation with the current surfaces, each contact sample (normal
force ``F_n`` along the contact direction ``psi``, relative rotation ``phi_rel``, slip speed
``v_t``, friction force ``F_t``) gets a pressure field from the pressure model on the bushing
nodes, and the wear law turns ``p`` and the slip distance ``ds = |v_t| dt`` (Wang & Liu (2015)
eq. 13-14 and 21) into a depth; a law that works on friction energy (``uses_shear``: Reye) also
gets the local friction shear ``tau = (|F_t| / F_n) p`` of the simulated friction law.  The depth
is shared between the bushing (fraction ``bushing_share``, on the bushing nodes) and the journal
(the rest, carried to the journal nodes through ``theta_journal = theta_bushing - phi_rel``).

Every averaging cycle is evaluated on its own: it is one sample of the wear rate, and
:mod:`.statistics` turns the samples into a mean rate and its standard error.

The model outputs are checked where they enter: the pressure finite, >= 0, and carrying the
sample's load (the resultant ``R b sum(p n dtheta)`` within :data:`LOAD_TOLERANCE` of the force),
the wear depth finite and >= 0; a failure names the model (the wear loop adds update and joint).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..errors import ModelFault, WorkbenchError
from ..runtime.watchdog import beat
from . import statistics as st
from .surfaces import WornJoint, periodic_scatter

#: Largest relative difference between the force a pressure field carries and the sample's load.
#: "Carries" has two accepted meanings: the resultant ``R b sum(p n dtheta)`` equals the load (a
#: model in equilibrium: Winkler, FE), or the pressure integrated over the arc, ``R b sum(p dtheta)``,
#: equals ``|F|`` with the resultant pointing along the load (within :data:`LOAD_ANGLE`): the
#: approximate-area model's own definition ``p = F / (s b)`` (Wang & Liu (2015) eq. 22), whose
#: resultant is only ``sin(eps)/eps`` of the load over an arc of half-angle ``eps``.  0.2 still
#: catches a model that drops or invents load (a sign, a factor 2, a wrong unit).
LOAD_TOLERANCE = 0.2
LOAD_ANGLE = np.radians(10.0)


class ModelOutputError(ModelFault):
    """A pressure model or wear law returned values of the wrong shape, non-finite or negative
    values, or a pressure that does not carry the load; the wear loop adds the update, the joint
    and the cycles to the message."""


def _checked(values, shape, what: str, model) -> np.ndarray:
    a = np.asarray(values, float)
    if a.shape != shape:
        raise ModelOutputError(f"the {what} '{model.name}' returned shape {a.shape}, expected {shape}")
    if not np.all(np.isfinite(a)):
        raise ModelOutputError(f"the {what} '{model.name}' returned non-finite values")
    if a.size and a.min() < 0.0:
        raise ModelOutputError(f"the {what} '{model.name}' returned a negative value {a.min():.4g}")
    return a


@dataclass
class ContactSamples:
    """The averaging-window contact history of one joint (arrays of shape ``(ns,)``).

    force [N] normal force, friction [N] friction force magnitude, angle [rad] (bushing frame),
    phi_rel [rad], slip [m] (= |v_t| dt), penetration [m], time [s].
    """
    force: np.ndarray
    friction: np.ndarray
    angle: np.ndarray
    phi_rel: np.ndarray
    slip: np.ndarray
    penetration: np.ndarray
    time: np.ndarray

    @classmethod
    def from_simulation(cls, sim, joint: int, start: int) -> "ContactSamples":
        """Samples ``start:`` of clearance joint ``joint`` of a :class:`Simulation`."""
        t = sim.time[start:]
        # rectangle weights: cycle c owns samples [c S, (c + 1) S), which cover it exactly (the
        # trapezoid rule of a periodic integrand); the window's closing sample is left out
        w = np.full_like(t, t[1] - t[0] if len(t) > 1 else 0.0)
        return cls(force=np.maximum(sim.contact_force[start:, joint], 0.0),
                   friction=np.abs(sim.friction_force[start:, joint]),
                   angle=sim.contact_angle[start:, joint], phi_rel=sim.relative_rotation[start:, joint],
                   slip=np.abs(sim.slip_velocity[start:, joint]) * w,
                   penetration=sim.penetration[start:, joint], time=t)

    def part(self, a: int, b: int) -> "ContactSamples":
        """Samples ``a:b``."""
        return ContactSamples(*(getattr(self, f)[a:b] for f in
                                ("force", "friction", "angle", "phi_rel", "slip", "penetration", "time")))


@dataclass
class CycleRates:
    """Per-cycle samples of one update for one joint (leading axis: averaging cycle).

    bushing, journal : (n, M) wear depth of each cycle [m/cycle]; sliding (n, M) [m/cycle];
    volume : (n, 2) worn volume of each cycle, bushing and journal [m^3/cycle];
    peak_force [N], peak_pressure [Pa], mean_force [N], max_penetration [m] : (n,).
    """
    bushing: np.ndarray
    journal: np.ndarray
    sliding: np.ndarray
    volume: np.ndarray
    peak_force: np.ndarray
    peak_pressure: np.ndarray
    mean_force: np.ndarray
    max_penetration: np.ndarray

    @property
    def n(self) -> int:
        return len(self.peak_force)


@dataclass
class WearRate:
    """The wear-rate estimate of one update for one joint.

    depth_bushing, depth_journal : mean wear depth per cycle on each part's nodes [m/cycle];
    stderr_bushing, stderr_journal : their standard errors [m/cycle];
    volume, volume_stderr : (2,) mean worn volume per cycle of bushing and journal and its standard
    error [m^3/cycle]; sliding : mean sliding distance under load per bushing node [m/cycle];
    peak_pressure [Pa], max_force [N], mean_force [N] over the averaging cycles;
    cycles : the per-cycle samples; samples : the contact samples (for evolving laws).
    """
    depth_bushing: np.ndarray
    depth_journal: np.ndarray
    stderr_bushing: np.ndarray
    stderr_journal: np.ndarray
    volume: np.ndarray
    volume_stderr: np.ndarray
    sliding: np.ndarray
    peak_pressure: float
    max_force: float
    mean_force: float
    cycles: CycleRates
    samples: ContactSamples

    @property
    def deepest(self) -> float:
        """Largest depth increment per cycle on either part [m/cycle]."""
        return float(max(self.depth_bushing.max(initial=0.0), self.depth_journal.max(initial=0.0)))

    @property
    def profile(self) -> np.ndarray:
        """Bushing and journal rate profiles end to end [m/cycle]."""
        return np.concatenate([self.depth_bushing, self.depth_journal])

    @property
    def profile_stderr(self) -> np.ndarray:
        return np.concatenate([self.stderr_bushing, self.stderr_journal])

    @property
    def volume_error(self) -> float:
        """Relative standard error of the total volume rate [1]."""
        tot = float(self.volume.sum())
        se = float(np.sqrt(np.sum(self.volume_stderr ** 2)))
        return 0.0 if tot == 0.0 and se == 0.0 else (se / tot if tot > 0.0 else np.inf)

    @property
    def profile_error(self) -> float:
        """``||se||_2 / ||mean||_2`` of the rate profile (bushing and journal) [1]."""
        return st.relative(self.profile_stderr, self.profile)


def pressure_field(worn: WornJoint, samples: ContactSamples, model) -> np.ndarray:
    """Pressure on the bushing nodes for every sample, shape ``(ns, M)`` [Pa], checked."""
    ns, M = len(samples.force), worn.nodes
    p = np.zeros((ns, M))
    loaded = np.flatnonzero(samples.force > 0.0)
    if len(loaded):
        loads = samples.force[loaded, None] * np.column_stack(
            [np.cos(samples.angle[loaded]), np.sin(samples.angle[loaded])])
        out = model.solve_loads(worn.section(), loads, worn.gaps(samples.phi_rel[loaded]))
        if not isinstance(out, tuple) or len(out) != 2:
            raise ModelOutputError(f"the pressure model '{model.name}' must return (pressure, "
                                   f"eccentricity) from solve_loads, got {type(out).__name__}")
        pl = _checked(out[0], (len(loaded), M), "pressure model", model)
        check_load(worn, pl, loads, model)
        p[loaded] = pl
    return p


def check_load(worn: WornJoint, pressure: np.ndarray, loads: np.ndarray, model) -> None:
    """Raise :class:`ModelOutputError` unless every row of ``pressure`` (ns, M) [Pa] carries its
    load (rows of ``loads`` (ns, 2) [N]) in one of the senses of :data:`LOAD_TOLERANCE`."""
    sec = worn.section()
    w = sec.radius * sec.length * sec.dtheta
    res = w * (pressure @ sec.normals)
    arc = w * pressure.sum(axis=1)
    mag = np.maximum(np.linalg.norm(loads, axis=1), 1e-300)
    err_res = np.linalg.norm(res - loads, axis=1) / mag
    err_arc = np.abs(arc - mag) / mag
    cosang = np.sum(res * loads, axis=1) / (np.maximum(np.linalg.norm(res, axis=1), 1e-300) * mag)
    bad = (err_res > LOAD_TOLERANCE) & ((err_arc > LOAD_TOLERANCE) | (cosang < np.cos(LOAD_ANGLE)))
    if np.any(bad):
        k = int(np.flatnonzero(bad)[0])
        raise ModelOutputError(
            f"the pressure model '{model.name}' does not carry the load: for a load of {loads[k]} N "
            f"its pressure has the resultant {res[k]} N and the arc integral {arc[k]:.6g} N "
            f"(relative errors {err_res[k]:.3g} and {err_arc[k]:.3g}; tolerance {LOAD_TOLERANCE:g})")


def wear_split(worn: WornJoint, samples: ContactSamples, dh: np.ndarray, share: float):
    """Bushing and journal nodal depths [m] from per-sample depths ``dh`` (ns, M) on the bushing nodes."""
    bushing = share * dh.sum(axis=0)
    journal = np.zeros(worn.nodes)
    if share < 1.0:
        ang = worn.theta[None, :] - samples.phi_rel[:, None]
        journal = (1.0 - share) * periodic_scatter(dh, ang, worn.nodes)
    return bushing, journal


def law_depth(law, p: np.ndarray, samples: ContactSamples, sliding: np.ndarray, slip=None) -> np.ndarray:
    """The law's depth per sample and node (ns, M) [m], checked; passes the friction shear
    ``(|F_t| / F_n) p`` [Pa] to a law with ``uses_shear``.  ``slip``: the slip of each sample and
    node [m] (a spherical joint's nodes slide by their own distance), by default the sample's."""
    ds = samples.slip[:, None] if slip is None else slip
    if getattr(law, "uses_shear", False):
        ratio = np.divide(samples.friction, samples.force, out=np.zeros_like(samples.force),
                          where=samples.force > 0.0)
        dh = law.depth(p, ds, sliding[None, :], shear=ratio[:, None] * p)
    else:
        dh = law.depth(p, ds, sliding[None, :])
    return _checked(dh, p.shape, "wear law", law)


def cycle_rates(worn: WornJoint, samples: ContactSamples, n_cycles: int, pressure_model, law,
                share: float) -> CycleRates:
    """Evaluate each of the ``n_cycles`` averaging cycles in ``samples`` on its own."""
    per = len(samples.force) // n_cycles
    M = worn.nodes
    j = worn.joint
    d = 2.0 * np.pi / M
    out = {k: np.zeros((n_cycles, M)) for k in ("bushing", "journal", "sliding")}
    vol = np.zeros((n_cycles, 2))
    scal = {k: np.zeros(n_cycles) for k in ("peak_force", "peak_pressure", "mean_force", "max_penetration")}
    for c in range(n_cycles):
        s = samples.part(c * per, (c + 1) * per)
        p = pressure_field(worn, s, pressure_model)
        dh = law_depth(law, p, s, worn.sliding_bushing)
        b, jn = wear_split(worn, s, dh, share)
        out["bushing"][c], out["journal"][c] = b, jn
        out["sliding"][c] = np.sum(np.where(p > 0.0, s.slip[:, None], 0.0), axis=0)
        vol[c] = (j.length * d * j.bushing_radius * b.sum(), j.length * d * j.journal_radius * jn.sum())
        scal["peak_force"][c] = s.force.max(initial=0.0)
        scal["peak_pressure"][c] = p.max(initial=0.0)
        scal["mean_force"][c] = s.force.mean() if len(s.force) else 0.0
        scal["max_penetration"][c] = s.penetration.max(initial=-np.inf)
        beat()   # one cycle evaluated: progress for the watchdog of the models' calls
    return CycleRates(volume=vol, **out, **scal)


def join_cycles(a: CycleRates, b: CycleRates) -> CycleRates:
    """The cycles of ``a`` followed by those of ``b``."""
    return CycleRates(*(np.concatenate([getattr(a, f.name), getattr(b, f.name)])
                        for f in dataclasses.fields(CycleRates)))


def estimate(cr: CycleRates, samples: ContactSamples) -> WearRate:
    """Mean rates and their standard errors from the per-cycle samples (:mod:`.statistics`)."""
    f = st.correlation_factor(cr.volume.sum(axis=1))
    b, se_b = st.mean_and_stderr(cr.bushing, f)
    jn, se_j = st.mean_and_stderr(cr.journal, f)
    v, se_v = st.mean_and_stderr(cr.volume, f)
    return WearRate(depth_bushing=b, depth_journal=jn, stderr_bushing=se_b, stderr_journal=se_j,
                    volume=v, volume_stderr=se_v, sliding=cr.sliding.mean(axis=0),
                    peak_pressure=float(cr.peak_pressure.max()), max_force=float(cr.peak_force.max()),
                    mean_force=float(cr.mean_force.mean()), cycles=cr, samples=samples)


def wear_rate(worn: WornJoint, samples: ContactSamples, n_cycles: int, pressure_model, law,
              share: float) -> WearRate:
    """Per-cycle wear of ``worn`` from ``samples`` spanning ``n_cycles`` cycles, with its error."""
    return estimate(cycle_rates(worn, samples, n_cycles, pressure_model, law, share), samples)


def jump_increment(worn: WornJoint, rate: WearRate, dN: float, law, share: float, pressure_model):
    """Increments of a jump of ``dN`` cycles: depths (bushing, journal) [m], sliding [m], and the
    standard errors of the depths [m].

    For Archard and Reye the increment is exactly ``dN`` times the mean per-cycle rate and its
    standard error ``dN`` times the rate's.  A law whose coefficient evolves with sliding
    (``evolving``: running-in, Wang & Liu (2015) eq. 15-20) is evaluated at the sliding distance
    before and after the jump and averaged (trapezoidal in the sliding distance, second order);
    its standard error is taken as the rate's relative one.
    """
    db, dj = dN * rate.depth_bushing, dN * rate.depth_journal
    if getattr(law, "evolving", False) and dN > 0.0:
        s1 = worn.sliding_bushing + dN * rate.sliding
        n = rate.cycles.n
        per = len(rate.samples.force) // n
        b1, j1 = np.zeros(worn.nodes), np.zeros(worn.nodes)
        for c in range(n):
            s = rate.samples.part(c * per, (c + 1) * per)
            p = pressure_field(worn, s, pressure_model)
            b, jn = wear_split(worn, s, law_depth(law, p, s, s1), share)
            b1 += b / n; j1 += jn / n
            beat()
        db, dj = 0.5 * (db + dN * b1), 0.5 * (dj + dN * j1)
    return db, dj, dN * rate.sliding, dN * rate.stderr_bushing, dN * rate.stderr_journal
