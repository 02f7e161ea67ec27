"""One wear update of a translational clearance joint: corner contacts -> line pressure -> wear.

From the averaging cycles of a simulation with the current surfaces, every output sample gives the
four corners' penetrations ``delta_k``, guide coordinates ``s_k`` and normal forces ``F_k``
(re-evaluated with the joint's contact law, :func:`workbench.mbs.slider_guide.corner_history`, and
scaled so that they add up to the joint force the dynamics recorded), and the slip ``|v_t| dt``
[m] of the slider along the guide.  Each loaded face gets a pressure over its contact length
(:mod:`.line_contact`: approximate area or Winkler) on the guide's nodes and the slider's face
nodes; the wear law turns ``p`` and the slip into depth, unchanged from revolute joints (Archard,
Wang & Liu (2015) eq. 14; a law with ``uses_shear``, Reye, gets ``tau = (|F_t| / F_n) p``).  The
depth is shared between the guide (fraction ``bushing_share`` of the ``[wear]`` table: the guide
plays the bushing's part) and the slider (the rest).

Each averaging cycle is one sample of the wear rate; :func:`workbench.wear.increment.estimate`
turns them into the mean rate and its standard error exactly as for a revolute joint (the rate
arrays are the guide's two faces end to end, and the slider's).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import WorkbenchError
from ..mbs.compiled import compile_mechanism
from ..mbs.slider_guide import corner_history
from ..models import BoreSection
from .guide import WornGuide
from .increment import CycleRates, ModelOutputError, WearRate, estimate, law_depth, ContactSamples
from .line_contact import APPROXIMATE_AREA, WINKLER, batch_pressures

#: pressure models that apply to a translational joint (``[wear] pressure``), and why others do not
PRESSURE_MODELS = ("approximate_area", "winkler")


def pressure_problem(model) -> str | None:
    """Why ``model`` (a pressure-model instance) cannot give the pressure of a translational
    clearance joint, or ``None`` when it can."""
    name = getattr(model, "name", "?")
    if name not in PRESSURE_MODELS:
        return (f"the pressure model '{name}' does not apply to a translational clearance joint (it "
                f"solves a pin in a bore); valid for slider-in-guide contact: "
                f"{', '.join(repr(m) for m in PRESSURE_MODELS)}")
    if name == "winkler" and model.params.calibrate != "none":
        return (f"winkler calibrate = '{model.params.calibrate}' calibrates a bore; a translational "
                f"clearance joint needs calibrate = 'none' (valid: 'none')")
    return None


def _model_code(joint, model) -> tuple[int, float]:
    why = pressure_problem(model)
    if why is not None:
        raise WorkbenchError(f"wear.pressure, joint '{joint.name}': {why}")
    if model.name == "approximate_area":
        return APPROXIMATE_AREA, 0.0
    section = BoreSection(np.zeros(4), 1.0, np.zeros(4), joint.width, joint.guide_material, joint.slider_material)
    return WINKLER, float(model.textbook_stiffness(section))


@dataclass
class GuideSamples:
    """The averaging-window contact history of one translational joint.

    delta (ns, 4) corner penetrations [m]; s (ns, 4) corner guide coordinates [m]; force (ns, 4)
    corner normal forces [N]; slip (ns,) slider slip under load [m] (``|v_t| dt``); friction
    ratio (ns,) ``|F_t| / F_n`` of the joint [1]; time (ns,) [s].
    """
    delta: np.ndarray
    s: np.ndarray
    force: np.ndarray
    slip: np.ndarray
    ratio: np.ndarray
    time: np.ndarray

    def part(self, a: int, b: int) -> "GuideSamples":
        return GuideSamples(*(getattr(self, f)[a:b] for f in ("delta", "s", "force", "slip", "ratio", "time")))

    @classmethod
    def from_simulation(cls, sim, mechanism, surfaces: dict, joint: int, start: int) -> "GuideSamples":
        """Samples ``start:`` of translational clearance joint ``joint`` of ``sim``, a simulation of
        ``mechanism`` with worn ``surfaces`` (as passed to :func:`~workbench.mbs.solver.simulate`)."""
        cm = compile_mechanism(mechanism, angles=sim.position[0, :, 2], surfaces=surfaces)
        nt, nb = sim.position.shape[:2]
        P = np.ascontiguousarray(sim.position[start:].reshape(-1, 3 * nb))
        V = np.ascontiguousarray(sim.velocity[start:].reshape(-1, 3 * nb))
        t = sim.time[start:]
        # the contact law's memory: each corner's approach speed at the start of its last contact
        DM = np.zeros((len(t), 4))
        for k in range(4):
            mine = (sim.impact_joint == joint) & (sim.impact_point == k)
            it, iv = sim.impact_time[mine], sim.impact_velocity[mine]
            idx = np.searchsorted(it, t, side="right") - 1
            DM[:, k] = np.where(idx >= 0, iv[np.maximum(idx, 0)] if len(iv) else 0.0, 0.0)
        out = np.zeros((len(t), 4, 5))
        corner_history(P, V, DM, joint, cm.clr_i, cm.clr_f, cm.model().ckern, cm.contact_params, out)
        fn = out[:, :, 2]
        total = np.maximum(sim.contact_force[start:, joint], 0.0)
        got = fn.sum(axis=1)
        # the dynamics' joint force is the truth; the re-evaluation splits it between the corners
        # (exact for memoryless laws; for hysteresis laws the memory is rebuilt from the impacts)
        scale = np.divide(total, got, out=np.zeros_like(total), where=got > 0.0)
        fn = fn * scale[:, None]
        lost = (got <= 0.0) & (total > 0.0)
        if np.any(lost):     # split equally between the penetrating corners
            pen = out[lost, :, 0] > 0.0
            fn[lost] = total[lost, None] * pen / np.maximum(pen.sum(axis=1), 1)[:, None]
        w = np.full_like(t, t[1] - t[0] if len(t) > 1 else 0.0)
        vt = np.abs(out[:, :, 3])
        fsum = fn.sum(axis=1)
        v = np.divide((fn * vt).sum(axis=1), fsum, out=vt.mean(axis=1), where=fsum > 0.0)
        ratio = np.divide(np.abs(sim.friction_force[start:, joint]), total, out=np.zeros_like(total),
                          where=total > 0.0)
        return cls(delta=out[:, :, 0].copy(), s=out[:, :, 1].copy(), force=fn, slip=v * w, ratio=ratio, time=t)


def pressures(worn: WornGuide, samples: GuideSamples, model) -> tuple[np.ndarray, np.ndarray]:
    """Nodal pressures [Pa] of every sample: guide (ns, 2, N) and slider faces (ns, 2, Nu), checked
    (finite, >= 0, carrying each face's load within 1e-6)."""
    code, k = _model_code(worn.joint, model)
    row = np.concatenate([np.zeros(12), worn.packed()])
    Pg, Pu, _ = batch_pressures(np.ascontiguousarray(samples.delta), np.ascontiguousarray(samples.s),
                                np.ascontiguousarray(samples.force), row, np.ascontiguousarray(worn.h_slider),
                                float(worn.u[0]), worn.du, code, k, float(worn.joint.width))
    if not (np.all(np.isfinite(Pg)) and np.all(np.isfinite(Pu))) or Pg.min(initial=0.0) < 0.0:
        raise ModelOutputError(f"the line-contact pressure ('{model.name}') is not finite or negative")
    load = samples.force[:, [0, 3]] + samples.force[:, [1, 2]]
    carried = worn.joint.width * Pg.sum(axis=2) * worn.ds
    bad = np.abs(carried - load) > 1e-6 * np.maximum(load, 1e-9) + 1e-9
    if np.any(bad):
        i = np.argwhere(bad)[0]
        raise ModelOutputError(f"the line-contact pressure ('{model.name}') carries {carried[tuple(i)]:.6g} N "
                               f"of a face load of {load[tuple(i)]:.6g} N (guide nodes too few or the "
                               f"slider outside them)")
    return Pg, Pu


def _depths(law, p: np.ndarray, samples: GuideSamples, sliding: np.ndarray) -> np.ndarray:
    """Law depth per sample and node (ns, n) [m] for the flattened pressure ``p`` (ns, n)."""
    cs = ContactSamples(force=samples.force.sum(axis=1), friction=samples.ratio * samples.force.sum(axis=1),
                        angle=np.zeros(len(p)), phi_rel=np.zeros(len(p)), slip=samples.slip,
                        penetration=samples.delta.max(axis=1), time=samples.time)
    return law_depth(law, p, cs, sliding)


def cycle_rates(worn: WornGuide, samples: GuideSamples, n_cycles: int, model, law, share: float,
                sliding=None) -> CycleRates:
    """Each of the ``n_cycles`` averaging cycles on its own (the rate arrays: ``bushing`` = the
    guide's upper and lower faces end to end (2 N), ``journal`` = the slider's top and bottom faces
    (2 Nu); ``volume`` (n, 2) = guide, slider [m^3/cycle]).  ``sliding``: the guide's and slider's
    sliding distances for an evolving law (default: the current ones)."""
    sg, su = (worn.sliding_guide, worn.sliding_slider) if sliding is None else sliding
    per = len(samples.slip) // n_cycles
    N, nu = worn.nodes, len(worn.u)
    out = {"bushing": np.zeros((n_cycles, 2 * N)), "journal": np.zeros((n_cycles, 2 * nu)),
           "sliding": np.zeros((n_cycles, 2 * N))}
    vol = np.zeros((n_cycles, 2))
    scal = {k: np.zeros(n_cycles) for k in ("peak_force", "peak_pressure", "mean_force", "max_penetration")}
    b = worn.joint.width
    for c in range(n_cycles):
        s = samples.part(c * per, (c + 1) * per)
        Pg, Pu = pressures(worn, s, model)
        pg = Pg.reshape(len(Pg), -1); pu = Pu.reshape(len(Pu), -1)
        hg = share * law_sum(law, pg, s, sg.reshape(-1))
        hu = (1.0 - share) * law_sum(law, pu, s, su.reshape(-1))
        out["bushing"][c], out["journal"][c] = hg, hu
        out["sliding"][c] = np.sum(np.where(pg > 0.0, s.slip[:, None], 0.0), axis=0)
        vol[c] = (b * np.trapezoid(hg.reshape(2, N), dx=worn.ds, axis=1).sum(),
                  b * np.trapezoid(hu.reshape(2, nu), dx=worn.du, axis=1).sum())
        F = s.force.sum(axis=1)
        scal["peak_force"][c] = F.max(initial=0.0)
        scal["peak_pressure"][c] = max(pg.max(initial=0.0), pu.max(initial=0.0))
        scal["mean_force"][c] = F.mean() if len(F) else 0.0
        scal["max_penetration"][c] = s.delta.max(initial=-np.inf)
    return CycleRates(volume=vol, **out, **scal)


def law_sum(law, p: np.ndarray, samples: GuideSamples, sliding: np.ndarray) -> np.ndarray:
    """Depth summed over the samples on each node [m]; only loaded samples are evaluated."""
    loaded = np.flatnonzero(p.max(axis=1) > 0.0)
    if not len(loaded):
        return np.zeros(p.shape[1])
    return _depths(law, p[loaded], _select(samples, loaded), sliding).sum(axis=0)


def _select(samples: GuideSamples, idx) -> GuideSamples:
    return GuideSamples(*(getattr(samples, f)[idx] for f in ("delta", "s", "force", "slip", "ratio", "time")))


def wear_rate(worn: WornGuide, samples: GuideSamples, n_cycles: int, model, law, share: float) -> WearRate:
    """Per-cycle wear of ``worn`` from ``samples`` spanning ``n_cycles`` cycles, with its error
    (:func:`workbench.wear.increment.estimate`)."""
    return estimate(cycle_rates(worn, samples, n_cycles, model, law, share), samples)


def jump_increment(worn: WornGuide, rate: WearRate, dN: float, law, share: float, model):
    """Increments of a jump of ``dN`` cycles: guide depth (2, N) [m], slider depth (2, Nu) [m],
    guide sliding (2, N) [m], and the standard errors of the two depths [m].  An evolving law
    (running-in) is evaluated before and after the jump and averaged, as for revolute joints
    (:func:`workbench.wear.increment.jump_increment`)."""
    N, nu = worn.nodes, len(worn.u)
    dg, du = dN * rate.depth_bushing, dN * rate.depth_journal
    slide = dN * rate.sliding
    if getattr(law, "evolving", False) and dN > 0.0:
        su1 = worn.sliding_slider + dN * float(np.sum(rate.samples.slip)) / rate.cycles.n
        cr = cycle_rates(worn, rate.samples, rate.cycles.n, model, law, share,
                         sliding=(worn.sliding_guide + slide.reshape(2, N), su1))
        dg = 0.5 * (dg + dN * cr.bushing.mean(axis=0))
        du = 0.5 * (du + dN * cr.journal.mean(axis=0))
    return (dg.reshape(2, N), du.reshape(2, nu), slide.reshape(2, N),
            (dN * rate.stderr_bushing).reshape(2, N), (dN * rate.stderr_journal).reshape(2, nu))
