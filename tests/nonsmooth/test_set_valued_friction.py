"""Set-valued Coulomb friction on ideal joints: the plugin, the study checks, the HLCP, the stick
logic against the exact stick-slip oscillator, and the dataset."""
import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest

from workbench.errors import MechanismError, StudyError
from workbench.mbs.compiled import compile_mechanism
from workbench.nonsmooth.dataset import simulate
from workbench.nonsmooth.event_driven import EV_BREAKAWAY, EV_STICK, SLIP_NEG, SLIP_POS, System
from workbench.nonsmooth.lcp import enumerate_lcp, is_solution, lemke
from workbench.study.load import load_study, load_study_text

sys.path.insert(0, str(Path(__file__).parents[1] / "reference"))
from stick_slip_oscillator import Oscillator, solve  # noqa: E402

STUDIES = Path(__file__).parents[2] / "studies"
ROCKER = (STUDIES / "crank_rocker_friction_damped.toml").read_text()


# ------------------------------------------------------------------ plugin and study checks
def test_plugin_refuses_static_below_kinetic():
    bad = ROCKER.replace('{ model = "coulomb_set_valued", mu = 0.2 }',
                         '{ model = "coulomb_set_valued", mu = 0.2, mu_static = 0.1 }')
    with pytest.raises(StudyError) as e:
        load_study_text(bad, file="rocker.toml")
    msg = str(e.value)
    assert "rocker.toml" in msg and "mechanism.joints[3].friction" in msg and "mu_static" in msg


def test_set_valued_law_refused_on_a_clearance_joint():
    text = (STUDIES / "flores_slider_crank.toml").read_text()
    old = 'friction = { model = "ambrosio", c_f = 0.01, v0 = 1.0e-4, v1 = 1.0e-2 }'
    assert old in text
    text = text.replace(old, 'friction = { model = "coulomb_set_valued", mu = 0.01 }')
    with pytest.raises(StudyError) as e:
        load_study_text(text, file="flores.toml")
    msg = str(e.value)
    assert "clearance_joints[0].friction.model" in msg and "coulomb, ambrosio" in msg


@pytest.mark.parametrize("edit, key", [
    (('slider_length = 0.0            # particle slider', 'slider_length = 0.05'), "slider_length"),
    (('[solver]', '[solver]\n'), None),
])
def test_unsupported_joint_options_are_refused(edit, key):
    text = ROCKER.replace(*edit)
    if key is None:   # a revolute joint with the set-valued law but no friction circle
        # (the law itself applies to revolute joints: tests/nonsmooth/test_pin_set_valued.py)
        text = text.replace('name = "O"\ntype = "revolute"\nbody_i = "ground"\npoint_i = "O"\nbody_j = "rocker"\npoint_j = "O"',
                            'name = "O"\ntype = "revolute"\nbody_i = "ground"\npoint_i = "O"\nbody_j = "rocker"\n'
                            'point_j = "O"\nfriction = { model = "coulomb_set_valued", mu = 0.1 }')
        key = "joints[0].pin_radius"
    with pytest.raises(StudyError) as e:
        load_study_text(text, file="rocker.toml")
    assert key in str(e.value)


def test_compliant_path_refuses_the_set_valued_law():
    study = load_study_text(ROCKER, file="rocker.toml")
    with pytest.raises(MechanismError, match="set-valued"):
        compile_mechanism(study.mechanism)


def test_plugin_kernel_is_the_slip_branch(registry):
    law = registry.create("friction", "coulomb_set_valued", {"mu": 0.3, "mu_static": 0.4})
    ft, _ = law.force(np.array([-1.0, 0.0, 2.0]), np.array([10.0, 10.0, 10.0]))
    np.testing.assert_allclose(ft, [3.0, 0.0, -3.0])
    assert law.max_coefficient() == 0.4


# ------------------------------------------------------------------ the HLCP
def _rocker_system():
    return System(load_study_text(ROCKER, file="rocker.toml").mechanism)


def test_hlcp_lemke_matches_enumeration():
    # the HLCP of the frictional joint (Wang, Wang & Zhuang eqs 17-19) at states along the run,
    # with both slip directions: lemke's solution is the enumeration's, and its side makes
    # sigma lambda >= 0
    s = _rocker_system()
    from workbench.nonsmooth.phases import integrate, sample
    run = integrate(s, 1.5)
    smp = sample(run, np.linspace(0.05, 1.45, 8))
    n = s.n
    for y in smp["y"]:
        for mode in (SLIP_POS, SLIP_NEG):
            sides, (M, q) = s.hlcp(0.0, y[:n], y[n:2 * n], [mode])
            res = lemke(M, q)
            sols = enumerate_lcp(M, q, all_solutions=True)
            assert res.status == "solved" and len(sols) == 1
            np.testing.assert_allclose(res.z, sols[0], atol=1e-9 * max(1.0, np.abs(q).max()))
            assert is_solution(M, q, res.z)
            e = s.evaluate(0.0, y[:n], y[n:2 * n], [mode], sides)
            assert sides[0] * e["N"][0] >= -1e-9


def test_lemke_matches_enumeration_on_friction_like_hlcps():
    # reduced HLCPs (I + G)^-1 (I - G) for couplings G of several joints: |G| < 1 (small mu) is
    # a P-matrix problem with one solution, which lemke must find
    rng = np.random.default_rng(3)
    for _ in range(200):
        k = rng.integers(1, 5)
        G = rng.uniform(-0.3, 0.3, (k, k)) / k
        I = np.eye(k)
        M = np.linalg.solve(I + G, I - G)
        q = rng.normal(size=k)
        sols = enumerate_lcp(M, q, all_solutions=True)
        res = lemke(M, q)
        assert res.status == "solved" and len(sols) == 1
        np.testing.assert_allclose(res.z, sols[0], atol=1e-9)


# ------------------------------------------------------------------ stick-slip oscillator
@pytest.fixture(scope="module")
def oscillator():
    study = load_study(STUDIES / "stick_slip_oscillator.toml")
    return study, *simulate(study.mechanism, study.solver)


def test_stick_slip_oscillator_matches_closed_form(oscillator):
    study, sim, run, smp = oscillator
    x, v = sim.position[:, 1, 0], sim.velocity[:, 1, 0]
    xr, vr, phases = solve(Oscillator(), 0.0, 0.0, sim.time)
    assert np.abs(x - xr).max() < 1e-8        # m (amplitude ~0.04 m)
    assert np.abs(v - vr).max() < 1e-7        # m/s
    # every phase change is an event of the right kind at the closed form's time
    changes = [(p[1], p[0]) for p in phases[1:]]
    events = [(e[0], e[2]) for e in run.events]
    assert len(events) == len(changes) >= 8
    for (te, ke), (tr, kr) in zip(events, changes):
        assert te == pytest.approx(tr, abs=1e-8)
        assert ke == (EV_STICK if kr == "stick" else EV_BREAKAWAY)
    # sticking: the needed friction k x stays within mu_static N, and reaches it at the breakaway
    stick = smp["mode"][:, 0] == 0
    N = 9.80665
    assert np.all(np.abs(smp["F"][stick, 0]) <= 0.4 * N * (1 + 1e-9))
    np.testing.assert_allclose(np.abs(smp["N"][:, 0]), N, rtol=1e-9)


def test_oscillator_energy_books(oscillator):
    study, sim, run, smp = oscillator
    books = (sim.driver_work - (sim.kinetic_energy - sim.kinetic_energy[0])
             - (sim.potential_energy - sim.potential_energy[0]) - sim.dissipated_energy)
    assert np.abs(books).max() < 1e-8
    assert sim.dissipated_energy[-1] > 0.01


# ------------------------------------------------------------------ the dataset
def test_dataset_from_the_dynamics_kind(tmp_path, oscillator):
    from workbench import kinds
    from workbench.plugins import build_registry
    from workbench.results.dataset import open_results
    study = load_study(STUDIES / "stick_slip_oscillator.toml")
    study = dataclasses.replace(study, solver=dataclasses.replace(study.solver, t_end=1.0))
    out = tmp_path / "osc.nc"
    kinds.run(study, registry=build_registry(), out=out)
    ds = open_results(out)
    for name in ("joint_normal_force", "joint_friction_force", "joint_slip_velocity", "joint_mode",
                 "event_time", "event_joint", "event_kind", "event_normal_force", "position",
                 "driver_load", "kinetic_energy", "dissipated_energy", "drift_position"):
        assert name in ds, name
        assert ds[name].attrs.get("units") and ds[name].attrs.get("long_name"), name
    flags = dict(zip(ds["event_kind"].attrs["flag_meanings"].split(), ds["event_kind"].attrs["flag_values"]))
    # one event table with the impacts (workbench.nonsmooth.events): the friction kinds and 'impact'
    assert set(flags) == {"impact", "slip_reversal", "stick_start", "stick_to_slip", "side_switch"}
    assert flags["impact"] not in [int(k) for k in ds["event_kind"].values]   # no clearance joint here
    kinds_found = [int(k) for k in ds["event_kind"].values]
    assert kinds_found[:2] == [flags["stick_start"], flags["stick_to_slip"]]
    assert list(ds["friction_joint"].values) == ["contact"]
    assert ds.attrs["solver"] == "event_driven"
    counts = kinds.get("dynamics").summary(ds)["friction_events"]
    # within 1 s: stick at 0.035 s, slip at 0.409 s, stick at 0.883 s (next slip at 1.079 s)
    assert counts["stick_start"] == 2 and counts["stick_to_slip"] == 1


def test_ctrl_c_keeps_the_finished_phases(tmp_path, monkeypatch):
    # an interrupt during the third smooth phase: the two finished phases go to OUT.partial.nc,
    # OUT itself is not written
    import workbench.nonsmooth.phases as ed
    from workbench.kinds.dynamics_run import run_event_driven as run_study
    from workbench.plugins import build_registry
    from workbench.results.dataset import open_results
    real, calls = ed.solve_ivp, []

    def interrupted(*a, **k):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*a, **k)
    monkeypatch.setattr(ed, "solve_ivp", interrupted)
    study = load_study(STUDIES / "stick_slip_oscillator.toml")
    out = tmp_path / "osc.nc"
    with pytest.raises(KeyboardInterrupt) as e:
        run_study(study, registry=build_registry(), out=out)
    assert not out.exists() and "osc.partial.nc" in e.value.kept
    ds = open_results(tmp_path / "osc.partial.nc")
    assert ds.attrs["run_status"] == "interrupted"
    # two phases: slip to 0.0347 s, stick to 0.4094 s (the closed form's first two phases), and
    # the two events that ended them (stick start, stick -> slip)
    assert 0.40 < float(ds["time"][-1]) < 0.41
    assert [int(k) for k in ds["event_kind"].values] == [EV_STICK, EV_BREAKAWAY]


def test_compiled_assembly_matches_reference():
    # the compiled kernel (workbench/nonsmooth/kernels.py) and the plain-numpy reference assembly
    # give the same accelerations and forces in every mode, with and without regularisation
    # (stick on the free crank only: with the crank driven, stick over-constrains the mechanism)
    from workbench.nonsmooth.event_driven import STICK
    from workbench.nonsmooth.phases import integrate, sample
    free = (STUDIES / "crank_rocker_free.toml").read_text()
    for text, v_eps, modes_list in ((ROCKER, 0.0, ([SLIP_POS], [SLIP_NEG])),
                                    (ROCKER, 1e-3, ([SLIP_POS],)),
                                    (free, 0.0, ([SLIP_POS], [SLIP_NEG], [STICK]))):
        s = System(load_study_text(text, file="x.toml").mechanism, regularisation=v_eps)
        smp = sample(integrate(s, 0.8), np.linspace(0.05, 0.75, 5))
        n = s.n
        for y in smp["y"]:
            for modes in modes_list:
                for side in (1.0, -1.0):
                    out = []
                    for compiled in (True, False):
                        s.compiled = compiled
                        out.append(s.evaluate(0.3, y[:n], y[n:2 * n], modes, np.array([side])))
                    s.compiled = True
                    for key in ("qdd", "lam", "F", "N", "v", "at"):
                        np.testing.assert_allclose(out[0][key], out[1][key], rtol=1e-9,
                                                   atol=1e-9 * (1 + np.abs(out[1][key]).max()))


def test_two_frictional_joints_each_follow_their_closed_form():
    # two blocks on the same belt (m = 1 kg, k = 100 N/m and m = 2 kg, k = 150 N/m): two
    # frictional joints whose stick and slip phases interleave; each block must follow its own
    # closed form, so the mode of one joint is decided without upsetting the other's
    text = (STUDIES / "stick_slip_oscillator.toml").read_text()
    text = text.replace('ground_points = { O = [0.0, 0.0], A = [-1.0, 0.0] }',
                        'ground_points = { O = [0.0, 0.0], A = [-1.0, 0.0], A2 = [-1.0, 0.0] }')
    text += '''
[[mechanism.bodies]]
name = "block2"
mass = 2.0
inertia = 0.01
position = [0.0, 0.0]
points = { C = [0.0, 0.0] }

[[mechanism.joints]]
name = "contact2"
type = "translational"
body_i = "belt"
point_i = "O"
body_j = "block2"
point_j = "C"
axis = [1.0, 0.0]
friction = { model = "coulomb_set_valued", mu = 0.3, mu_static = 0.4 }

[[mechanism.forces]]
name = "spring2"
type = "spring_damper"
body_i = "ground"
point_i = "A2"
body_j = "block2"
point_j = "C"
stiffness = 150.0
free_length = 1.0
'''
    text = text.replace("t_end = 3.0", "t_end = 2.0")
    # the tables after [solver]/[output] must stay in [mechanism]: move those two to the end
    head, rest = text.split("[solver]", 1)
    solver_part, mech_part = rest.split("\n[[mechanism.bodies]]", 1)
    text = head + "[[mechanism.bodies]]" + mech_part + "\n[solver]" + solver_part
    study = load_study_text(text, file="two_blocks.toml")
    sim, run, smp = simulate(study.mechanism, study.solver)
    g = 9.80665
    for body, osc in ((1, Oscillator()), (2, Oscillator(m=2.0, k=150.0, N=2.0 * g))):
        xr, vr, phases = solve(osc, 0.0, 0.0, sim.time)
        assert np.abs(sim.position[:, body, 0] - xr).max() < 1e-8
        assert np.abs(sim.velocity[:, body, 0] - vr).max() < 1e-7
    assert {e[1] for e in run.events} == {0, 1}
