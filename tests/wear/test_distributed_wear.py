"""One contact, one pressure field: the wear loop with the distributed contact
(:mod:`workbench.wear.coupled`, the ``dynamics`` pressure model).

Oracles: the pressure the wear law integrates carries, sample by sample, the force the dynamics
recorded (sharing each quadrature point's force between its two nodes conserves the load; the
resultant's error is O(dtheta^2)); Archard's law on that field, summed over the samples, is
``k_d sum(F_arc ds)`` (Wang & Liu (2015) eq. 14) with ``F_arc = R b sum(p dtheta)``; a point-contact joint
cannot take the dynamics' pressure (refused before any work).
"""
from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from mechanisms import OMEGA, slider_crank
from workbench.errors import WorkbenchError
from workbench.mbs.solution import SolverSettings
from workbench.mbs.solver import simulate
from workbench.plugins import build_registry, get_plugin_manager
from workbench.study.load import load_study_text
from workbench.wear import coupled
from workbench.wear.increment import ContactSamples, check_load
from workbench.wear.loop import run_wear_study
from workbench.wear.surfaces import WornJoint

ROOT = Path(__file__).resolve().parents[2]
STUDY = ROOT / "studies" / "slider_crank_wear_distributed.toml"


@pytest.fixture
def reg():
    """The registry with the distributed law and the dynamics pressure (in-process until the
    package is reinstalled with their entry points)."""
    r = build_registry()
    missing = []
    import workbench_plugins.contact.distributed_winkler as dw
    import workbench_plugins.pressure.dynamics as dp
    if "distributed_winkler" not in r.names("contact"):
        missing.append(dw)
    if "dynamics" not in r.names("pressure"):
        missing.append(dp)
    return build_registry(get_plugin_manager(extra_plugins=tuple(missing))) if missing else r


def _fake_run(reg, mech, nodes, h_bushing=None):
    joint = mech.clearance_joints[0]
    w = WornJoint.fresh(joint, nodes)
    if h_bushing is not None:
        w.h_bushing = h_bushing
    cfg = SimpleNamespace(stiffness="nominal", pressure=reg.create("pressure", "dynamics", {}))
    return SimpleNamespace(study=SimpleNamespace(mechanism=mech), cfg=cfg, worn={0: w})


@pytest.mark.parametrize("worn", [False, True])
def test_the_sampled_pressure_carries_the_recorded_force(reg, worn):
    """One crank revolution: at every contact sample the nodal pressure's resultant
    R b sum(p n dtheta) equals the dynamics' recorded force vector to 1e-4 (dtheta^2 = 7.6e-5 at 720
    nodes; lumping each point to the NEAREST node instead gave 2.8e-3, the direction error dtheta/2),
    and the pressure is zero where the joint is open."""
    contact = reg.create("contact", "distributed_winkler", {"calibrate": "persson", "calibration_load": 1000.0})
    friction = reg.create("friction", "ambrosio", {"c_f": 0.01, "v0": 1e-4, "v1": 1e-2})
    mech = slider_crank(contact, friction)
    nodes = 720
    hb = None
    surfaces = None
    if worn:
        psi = np.arange(nodes) * 2 * math.pi / nodes
        hb = 30e-6 * np.exp(-((psi - math.pi) / 0.4) ** 2) + 10e-6 * np.exp(-(psi / 0.3) ** 2)
        surfaces = {0: (hb, np.zeros(nodes))}
    rev = 2 * math.pi / OMEGA
    sim = simulate(mech, SolverSettings(t_end=rev, output_step=rev / 1440, rtol=1e-9, atol=1e-11),
                   surfaces=surfaces)
    run = _fake_run(reg, mech, nodes, hb)
    p = coupled.dynamics_pressure(run, sim, 0, 0)
    F = sim.contact_force[:, 0]
    on = F > 0.0
    assert on.sum() > 50 and np.all(p >= 0.0) and np.all(p[~on] == 0.0)
    w = run.worn[0]
    sec = w.section()
    res = sec.radius * sec.length * sec.dtheta * (p[on] @ sec.normals)
    load = F[on, None] * np.column_stack([np.cos(sim.contact_angle[on, 0]), np.sin(sim.contact_angle[on, 0])])
    err = np.linalg.norm(res - load, axis=1) / F[on]
    assert err.max() < 1e-4
    check_load(w, p[on], load, run.cfg.pressure)   # the wear loop's own check passes


def test_the_dynamics_pressure_model_answers_bound_loads_else_is_winkler(reg):
    """Bound (in the wear loop): the pressure of the sample with that load, and an error for a load
    no sample carries.  Unbound (a pressure study, the conformance suite): the winkler model's
    quasi-static field with the same parameters."""
    model = reg.create("pressure", "dynamics", {"stiffness": 3e13})
    from workbench.models import BoreSection, Material
    th = np.arange(72) * 2 * math.pi / 72
    sec = BoreSection(theta=th, radius=0.01, gap=np.full(72, 1e-4), length=0.01, bushing=Material(),
                      journal=Material())
    loads = np.array([[300.0, 100.0]])
    p, e = model.solve_loads(sec, loads)
    pw, ew = reg.create("pressure", "winkler", {"stiffness": 3e13}).solve_loads(sec, loads)
    assert np.array_equal(p, pw) and np.array_equal(e, ew) and p.max() > 0.0
    bound = model.bound({np.array([1.0, 0.0]).tobytes(): np.arange(72.0)})
    p, _ = bound.solve_loads(sec, np.array([[0.0, 0.0], [1.0, 0.0]]))
    assert np.array_equal(p[1], np.arange(72.0)) and not p[0].any()
    with pytest.raises(WorkbenchError, match="no dynamics sample"):
        bound.solve_loads(sec, np.array([[2.0, 0.0]]))


def _small(text: str) -> str:
    for a, b in (("cycles = 1.0e6", "cycles = 1.0e5"), ("average_cycles = 16 ", "average_cycles = 2 "),
                 ("max_average_cycles = 16", "max_average_cycles = 2"),
                 ("samples_per_cycle = 2880", "samples_per_cycle = 720"), ("nodes = 720", "nodes = 360"),
                 ("rtol = 1.0e-10", "rtol = 1.0e-8"), ("atol = 1.0e-12", "atol = 1.0e-10")):
        assert a in text, a
        text = text.replace(a, b)
    return text


def test_one_coupled_update_wears_by_archard_on_the_dynamics_pressure(reg, tmp_path):
    """One update of studies/slider_crank_wear_distributed.toml (2 averaging cycles, coarser grid):
    the bushing volume rate is Archard's k_d sum_s(R b sum_k p_sk dtheta) |v_t,s| dt per cycle
    (Wang & Liu (2015) eq. 14) on the dynamics' own pressure, whose arc sum is the sum of the
    quadrature points' normal forces: the recorded resultant |F| times the arc factor
    (eps/sin eps - 1 < 1 % for arcs below 14 deg), so k_d sum(|F| |v_t| dt) / n from the stored
    averaging-cycle dynamics is a lower bound within 2 %."""
    st = load_study_text(_small(STUDY.read_text()), file=STUDY, registry=reg)
    ds = run_wear_study(st, registry=reg, out=tmp_path / "d.zarr", max_updates=1)
    first = ds.isel(cycle=0)
    vol = float(np.asarray(first["volume_rate"].values).ravel()[0])
    F = np.asarray(first["dyn_contact_force"].values).ravel()
    v = np.asarray(first["dyn_slip_velocity"].values).ravel()
    n = int(first["average_cycles"].values)
    dt = st.wear.cycle_period / st.wear.samples_per_cycle
    k_d = st.wear.law.params.wear_coefficient
    m = min(len(F), n * st.wear.samples_per_cycle)
    archard = k_d * float(np.sum(np.maximum(F[:m], 0.0) * np.abs(v[:m]))) * dt / n
    assert archard > 0.0
    assert archard <= vol * (1 + 1e-9) and vol == pytest.approx(archard, rel=0.02)


def test_point_contact_joint_cannot_take_the_dynamics_pressure(reg, tmp_path):
    text = STUDY.read_text().replace(
        'contact = { model = "distributed_winkler", calibrate = "persson", calibration_load = 1000.0, restitution = 0.9 }',
        'contact = { model = "lankarani_nikravesh", restitution = 0.9 }')
    # validate (the loader) rejects it first, naming the key; run_wear_study keeps the same guard
    with pytest.raises(WorkbenchError, match="point-contact law 'lankarani_nikravesh'") as exc:
        load_study_text(text, file=STUDY, registry=reg)
    assert "wear.pressure.model" in str(exc.value)
    assert not (tmp_path / "x.zarr").exists()


def test_impact_speeds_follow_the_integrators_floor():
    """The impact speed in force at a sample is the last contact start's approach speed floored at
    1e-6 m/s, as the integrator keeps it (a grazing start on a worn bore can have a rate <= 0: the
    wear coupling once re-evaluated such samples as open and found no pressure)."""
    sim = SimpleNamespace(time=np.array([0.0, 1.0, 2.0, 3.0, 4.0]), impact_joint=np.array([0, 1, 0]),
                          impact_time=np.array([0.5, 1.5, 2.5]), impact_velocity=np.array([-0.2, 0.3, 0.4]))
    assert coupled.impact_speeds(sim, 0, 0).tolist() == [1e-6, 1e-6, 1e-6, 0.4, 0.4]
    assert coupled.impact_speeds(sim, 1, 1).tolist() == [1e-6, 0.3, 0.3, 0.3]


def _turning_samples(n, turn, delta, c, R_b=0.0105):
    """A journal body (index 0) in a grounded bushing whose eccentricity ``c + delta`` [m] turns
    by ``turn`` [rad] per sample; returns (pos, vel) (n, 3)."""
    a = np.arange(n) * turn
    r = c + delta
    pos = np.column_stack([r * np.cos(a), r * np.sin(a), np.zeros(n)])
    return np.ascontiguousarray(pos), np.zeros_like(pos)


def test_the_swept_pressure_fills_the_arc_the_contact_turns_through(reg):
    """Unworn bore, the contact turning 10 deg per sample round the bore (36 samples), each
    sample's instantaneous patch 3.2 deg wide (overlap 0.2 um): the instants alone paint a comb (nodes that no
    sample loads), the swept field paints the circle evenly: by rotation symmetry its sum over
    the samples is uniform; the sub-samples every 0.5 deg of turn are a quadrature of the sweep
    whose ripple (max - min) / mean, 1.5 % here, falls at second order with the step (a quarter of
    the step: 0.09 %), and each swept row carries the sample's force magnitude times
    |mean of the turned normals| (the load turned at constant magnitude) to 2e-4."""
    from workbench.mbs import kernels
    from workbench.mbs.distributed_reference import profile_row
    contact = reg.create("contact", "distributed_winkler", {"calibrate": "persson", "calibration_load": 1000.0})
    from workbench.models import ContactGeometry, Material
    steel = Material(E=207e9, nu=0.3)
    cp = np.asarray(contact.pack(ContactGeometry("cylindrical", 0.010, 0.0105, 0.01, steel, steel)), float)
    row = profile_row(0.0105, 0.010)
    c = 0.0005
    n, turn, nodes = 36, math.radians(10.0), 720
    pos, vel = _turning_samples(n + 1, turn, 0.2e-6, c)
    dms = np.full(n + 1, 0.1)
    inst = coupled.sample_pressures(pos, vel, -1, 0, row, cp, dms, nodes, kernels.no_friction(), np.zeros(1))
    w = 0.0105 * 0.01 * 2 * math.pi / nodes
    th = np.arange(nodes) * 2 * math.pi / nodes
    F = np.hypot(inst @ np.cos(th), inst @ np.sin(th)) * w
    swept = coupled.swept_pressures(pos, vel, -1, 0, row, cp, dms, F, nodes, kernels.no_friction(), np.zeros(1),
                                    coupled.SWEEP_STEP, coupled.MAX_SUBSAMPLES)[:n]
    inst = inst[:n]
    assert (inst.sum(axis=0) == 0.0).mean() > 0.5          # the comb: most nodes never loaded
    band = swept.sum(axis=0)
    ripple = (band.max() - band.min()) / band.mean()
    assert band.min() > 0.0 and ripple < 0.02
    fine = coupled.swept_pressures(pos, vel, -1, 0, row, cp, dms, F, nodes, kernels.no_friction(), np.zeros(1),
                                   coupled.SWEEP_STEP / 4, 4 * coupled.MAX_SUBSAMPLES)[:n].sum(axis=0)
    assert (fine.max() - fine.min()) / fine.mean() < ripple / 8
    m = 20   # sub-samples per 10 deg at 0.5 deg
    shrink = abs(np.mean(np.exp(1j * np.arange(m) * turn / m)))
    Fs = np.hypot(swept @ np.cos(th), swept @ np.sin(th)) * w
    assert np.allclose(Fs, F[:n] * shrink, rtol=2e-4)


@pytest.mark.parametrize("worn", [False, True])
def test_the_swept_pressure_passes_the_wear_loops_load_check(reg, worn):
    """The field the wear loop integrates (swept over each sample's interval) carries each
    sample's recorded force magnitude in the arc sense of the loop's check: one crank revolution
    of the slider-crank, unworn and on a worn bore with two scars."""
    contact = reg.create("contact", "distributed_winkler", {"calibrate": "persson", "calibration_load": 1000.0})
    friction = reg.create("friction", "ambrosio", {"c_f": 0.01, "v0": 1e-4, "v1": 1e-2})
    mech = slider_crank(contact, friction)
    nodes = 720
    hb = surfaces = None
    if worn:
        psi = np.arange(nodes) * 2 * math.pi / nodes
        hb = 30e-6 * np.exp(-((psi - math.pi) / 0.4) ** 2) + 10e-6 * np.exp(-(psi / 0.3) ** 2)
        surfaces = {0: (hb, np.zeros(nodes))}
    rev = 2 * math.pi / OMEGA
    sim = simulate(mech, SolverSettings(t_end=rev, output_step=rev / 720, rtol=1e-9, atol=1e-11),
                   surfaces=surfaces)
    run = _fake_run(reg, mech, nodes, hb)
    p = coupled.dynamics_pressure(run, sim, 0, 0, sweep=True)
    F = sim.contact_force[:, 0]
    on = F > 0.0
    assert on.sum() > 50 and np.all(p >= 0.0) and np.all(p[~on] == 0.0) and np.all(p[on].max(axis=1) > 0.0)
    w = run.worn[0]
    sec = w.section()
    arc = sec.radius * sec.length * sec.dtheta * p[on].sum(axis=1)
    assert np.all(arc >= F[on] * (1 - 1e-3))
    load = F[on, None] * np.column_stack([np.cos(sim.contact_angle[on, 0]), np.sin(sim.contact_angle[on, 0])])
    check_load(w, p[on], load, run.cfg.pressure)


def _update_stats(study, h_bushing):
    """One update's measurement of ``study`` on a bushing worn by ``h_bushing`` [m]: per averaging
    cycle the peak contact force [N], the impacts [1] and the worn volume [m^3]; each as (mean,
    standard error of the mean)."""
    import dataclasses
    from workbench.wear import loop as L
    cfg = dataclasses.replace(study.wear, average_cycles=12, max_average_cycles=12, outlier_k=1e9)
    run = L.WearRun(study, cfg, worn={j: WornJoint.fresh(study.mechanism.clearance_joints[j], cfg.nodes)
                                      for j in cfg.joints})
    run.worn[0].h_bushing = np.asarray(h_bushing, float).copy()
    m = L.measure(run, L._ideal_output(study, cfg))
    sim, c, n, T = m.sim, m.rates[0].cycles, m.n_cycles, cfg.cycle_period
    t0 = sim.time[m.start]
    it = sim.impact_time[(sim.impact_joint == 0) & (sim.impact_time >= t0)]
    impacts = np.bincount(np.minimum(((it - t0) / T).astype(int), n - 1), minlength=n)
    mse = lambda x: (float(np.mean(x)), float(np.std(x, ddof=1) / math.sqrt(len(x))))   # noqa: E731
    return {"peak_force": mse(c.peak_force), "impacts": mse(impacts), "volume": mse(np.sum(c.volume, axis=1))}


@pytest.mark.slow
def test_deep_wear_chain_a_wider_clearance_hits_harder_and_wears_faster(reg):
    """The chain the deep-wear study shows (studies/slider_crank_wear_deep.toml), its first links
    measured directly: the same joint with the bushing worn uniformly by 0.6 c (300 um, "most of the
    clearance"; a uniform depth is a larger radial clearance) against the unworn joint, one update
    of 12 averaging cycles each (outlier screening off, so both are sampled alike).  A wider
    clearance lets the journal travel farther in free flight and hit the bushing faster, so the
    impacts are more frequent and their peak forces larger (Flores & Ambrosio (2004): the impact
    force peaks grow with the radial clearance); Archard's volume is k_d int F ds (Wang & Liu
    (2015) eq. 14), so the worn volume per cycle grows.  Each must grow by more than twice the
    standard error of the difference.  Measured (mean +- standard error over the cycles) at 0, 0.1,
    0.2, 0.4, 0.6 c: peak force 21.9 +- 9.2, 19.6 +- 7.1, 52.7 +- 13.6, 65.0 +- 14.4, 78.2 +- 13.8 kN;
    impacts 5.8 +- 2.7, 5.2 +- 2.4, 14.8 +- 3.8, 18.5 +- 4.2, 25.5 +- 3.4 per cycle; volume 9.22 +-
    0.38, 9.41 +- 0.17, 10.94 +- 0.32, 12.46 +- 0.65, 14.79 +- 0.72 e-14 m^3/cycle (3.4, 4.6 and 6.9
    sigma between 0 and 0.6 c; this test's own 0.6 c run, with c from the radii, lands on another
    chaotic path: 81.0 +- 17.1 kN, 24.2 +- 5.2 impacts, 15.18 +- 0.66 e-14).  Below 0.2 c the unworn joint's bursts hide the trend: it switches
    between a quiet regime (0.3 impacts per cycle at rtol 1e-12) and bursts (6-9 at 1e-10)."""
    from workbench.study.load import load_study
    st = load_study(ROOT / "studies" / "slider_crank_wear_deep.toml", registry=reg)
    M = st.wear.nodes
    c = st.mechanism.clearance_joints[0].bushing_radius - st.mechanism.clearance_joints[0].journal_radius
    fresh = _update_stats(st, np.zeros(M))
    worn = _update_stats(st, np.full(M, 0.6 * c))
    print("unworn", fresh, "worn 0.6 c", worn)
    for key in ("impacts", "peak_force", "volume"):
        (a, sa), (b, sb) = fresh[key], worn[key]
        assert b - a > 2.0 * math.hypot(sa, sb), (key, fresh[key], worn[key])


def _jump_interval(reg, h, e0, e1):
    """Two contact samples of a journal (body 0) in a grounded bushing worn by ``h`` [m] at the
    eccentricities ``e0``, ``e1`` [m] (bushing frame, at rest, impact speed 0.05 m/s): the row,
    the packed contact, (pos, vel, dms), the instantaneous fields [Pa] and their resultants [N]."""
    from workbench.mbs import kernels
    from workbench.mbs.distributed import seen_profiles
    from workbench.mbs.distributed_reference import profile_row
    from workbench.models import ContactGeometry, Material
    contact = reg.create("contact", "distributed_winkler", {"calibrate": "persson", "calibration_load": 1000.0,
                                                            "restitution": 0.9})
    steel = Material(E=207e9, nu=0.3)
    cp = np.asarray(contact.pack(ContactGeometry("cylindrical", 0.010, 0.0105, 0.01, steel, steel)), float)
    row = profile_row(0.0105, 0.010, *seen_profiles(contact, h, np.zeros(len(h))))
    pos = np.ascontiguousarray([[e0[0], e0[1], 0.0], [e1[0], e1[1], 0.0]])
    vel, dms = np.zeros_like(pos), np.full(2, 0.05)
    inst = coupled.sample_pressures(pos, vel, -1, 0, row, cp, dms, len(h), kernels.no_friction(), np.zeros(1))
    th = np.arange(len(h)) * 2 * math.pi / len(h)
    res = 0.0105 * 0.01 * (2 * math.pi / len(h)) * np.column_stack([inst @ np.cos(th), inst @ np.sin(th)])
    return row, cp, (pos, vel, dms), inst, res


def _bore(nodes=720):
    from workbench.models import Material
    return WornJoint.fresh(SimpleNamespace(name="B", bushing_radius=0.0105, journal_radius=0.010, length=0.01,
                                           bushing_material=Material(E=207e9, nu=0.3),
                                           journal_material=Material(E=207e9, nu=0.3)), nodes)


@pytest.mark.parametrize("case", ["second patch", "conformal swing"])
def test_the_sweep_never_crosses_a_jump_and_the_field_carries_the_load(reg, case):
    """A sample interval across a jump keeps the sample's own field, which carries the load.

    * second patch: two grooves 30 um deep at +-0.2 rad; the journal, 5 um into the bore, turns
      from 10 deg (one land: 3.3 kN at 4.5 deg) to 12 deg (a second land engages: 1.8 kN at
      16.8 deg): the patch count changes (the forces differ by less than the force ratio);
    * conformal swing: a 149 um Gaussian pocket (half-width 0.56 rad) with the journal near its
      bottom: a 2.9 deg turn of the eccentricity swings the resultant from -6.5 to 22.4 deg and
      the force from 11.6 to 92 kN (a force jump); the unguarded turned-and-reseated sweep then
      misses the sample's load beyond the wear loop's tolerances (the failure that stopped the
      deep-wear run).
    Load balance: the field's resultant R b sum(p n dtheta) equals the sample's own resultant
    to 1e-4 (the nodal sharing's O(dtheta^2)) and the wear loop's check passes."""
    from workbench.mbs import kernels
    psi = np.arange(720) * 2 * math.pi / 720
    wrap = lambda a: (psi - a + math.pi) % (2 * math.pi) - math.pi   # noqa: E731
    if case == "second patch":
        h = 30e-6 * (np.exp(-(wrap(-0.2) / 0.06) ** 2) + np.exp(-(wrap(0.2) / 0.06) ** 2))
        r = 0.0005 + 5e-6
        e0, e1 = r * np.array([math.cos(math.radians(10)), math.sin(math.radians(10))]), \
            r * np.array([math.cos(math.radians(12)), math.sin(math.radians(12))])
        want = coupled.JUMP_PATCHES
    else:
        h = 149.04e-6 * np.exp(-(wrap(0.0) / 0.5638) ** 2)
        a0, turn, r0, r1 = -0.0016969, 0.0509236, 6.421017e-4, 6.411208e-4
        e0 = r0 * np.array([math.cos(a0), math.sin(a0)])
        e1 = r1 * np.array([math.cos(a0 + turn), math.sin(a0 + turn)])
        want = coupled.JUMP_FORCE
    row, cp, (pos, vel, dms), inst, res = _jump_interval(reg, h, e0, e1)
    F = np.hypot(res[:, 0], res[:, 1])
    assert np.all(F > 1000.0)
    flags = np.zeros(2, np.int64)
    p = coupled.swept_pressures(pos, vel, -1, 0, row, cp, dms, F, 720, kernels.no_friction(), np.zeros(1),
                                coupled.SWEEP_STEP, coupled.MAX_SUBSAMPLES, flags)
    assert flags[0] == want
    assert np.array_equal(p[0], inst[0])            # the sample's own field
    w = _bore()
    sec = w.section()
    got = sec.radius * sec.length * sec.dtheta * (p[:1] @ sec.normals)
    assert np.linalg.norm(got - res[:1]) / F[0] < 1e-4
    check_load(w, p[:1], res[:1], SimpleNamespace(name="dynamics"))
    if case == "conformal swing":   # the unguarded sweep fails the loop's check here
        from workbench.wear.increment import LOAD_ANGLE, LOAD_TOLERANCE, ModelOutputError
        naive = coupled.swept_fields(pos, vel, -1, 0, row, cp, dms, F, 720, kernels.no_friction(), np.zeros(1),
                                     coupled.SWEEP_STEP, coupled.MAX_SUBSAMPLES, False, LOAD_TOLERANCE,
                                     math.cos(LOAD_ANGLE), flags)
        assert flags[0] == coupled.SWEPT
        with pytest.raises(ModelOutputError, match="does not carry the load"):
            check_load(w, naive[:1], res[:1], SimpleNamespace(name="dynamics"))


def test_a_smooth_interval_on_a_worn_bore_is_still_swept(reg):
    """The guard leaves a smooth interval alone: the journal 5 um into the first groove's land
    turning from 0 to 3 deg (one patch at both ends, forces within 10 %) is swept (the field
    differs from the instant's and spreads over more nodes) and carries the sample's load within
    the sweep's share of the loop's tolerances."""
    from workbench.mbs import kernels
    from workbench.wear.increment import LOAD_ANGLE, LOAD_TOLERANCE
    psi = np.arange(720) * 2 * math.pi / 720
    h = 30e-6 * np.exp(-(((psi - 0.2 + math.pi) % (2 * math.pi) - math.pi) / 0.06) ** 2)
    r = 0.0005 + 5e-6
    e0 = r * np.array([math.cos(math.radians(-3)), math.sin(math.radians(-3))])
    e1 = r * np.array([1.0, 0.0])
    row, cp, (pos, vel, dms), inst, res = _jump_interval(reg, h, e0, e1)
    F = np.hypot(res[:, 0], res[:, 1])
    assert abs(F[1] / F[0] - 1) < 0.1
    flags = np.zeros(2, np.int64)
    p = coupled.swept_pressures(pos, vel, -1, 0, row, cp, dms, F, 720, kernels.no_friction(), np.zeros(1),
                                coupled.SWEEP_STEP, coupled.MAX_SUBSAMPLES, flags)
    assert flags[0] == coupled.SWEPT
    assert (p[0] > 0).sum() > (inst[0] > 0).sum()
    w = _bore()
    sec = w.section()
    got = sec.radius * sec.length * sec.dtheta * (p[:1] @ sec.normals)[0]
    share = coupled.SWEEP_LOAD_SHARE
    ok_res = np.linalg.norm(got - res[0]) / F[0] <= share * LOAD_TOLERANCE
    cosang = got @ res[0] / (np.linalg.norm(got) * F[0])
    assert ok_res or cosang >= math.cos(share * LOAD_ANGLE)


def test_load_patches_count_the_runs_that_carry_a_share_of_the_load():
    """Runs of loaded nodes round the bore (one across the 0/2 pi seam counts once); runs closer
    than the gap are one patch; a sliver below the share is not a patch."""
    b = np.zeros(24)
    assert coupled.load_patches(b, 0.05, 2) == 0
    b[[23, 0, 1]] = 1.0                       # across the seam
    assert coupled.load_patches(b, 0.05, 2) == 1
    b[8:10] = 1.0
    assert coupled.load_patches(b, 0.05, 2) == 2
    b[3] = 1.0                                # one empty node from the first run: joined
    assert coupled.load_patches(b, 0.05, 2) == 2 and coupled.load_patches(b, 0.05, 1) == 3
    b[15] = 0.01                              # 0.2 % of the load
    assert coupled.load_patches(b, 0.05, 2) == 2 and coupled.load_patches(b, 0.0, 2) == 3
    assert coupled.load_patches(np.ones(24), 0.05, 2) == 1
    c = np.zeros(24); c[::2] = 1.0            # every other node: one patch at gap 2, twelve at gap 1
    assert coupled.load_patches(c, 0.05, 2) == 1 and coupled.load_patches(c, 0.05, 1) == 12
