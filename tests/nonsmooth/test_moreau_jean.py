"""Moreau-Jean time stepping (workbench.nonsmooth.moreau_jean, workbench.nonsmooth.mj_results).

Checks: the scheme dissipates (energy never grows with e_n <= 1 and no friction; Moreau (1988),
Acary & Brogliato (2008) ch. 10); Signorini with e_n = 0 keeps a closed contact closed; before
the first impact the journal's path is the compliant solver's (no contact force acts on either);
Lemke's method and brute-force enumeration give the same contact impulses; the study keys select
it and refuse what it does not run.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from workbench.errors import StudyError
from workbench.mbs.mechanism import Body, Mechanism, RevoluteClearanceJoint
from workbench.nonsmooth.lcp import enumerate_lcp, is_solution, lemke
from workbench.nonsmooth.mj_results import simulate
from workbench.nonsmooth.moreau_jean import MoreauJean, run
from workbench.plugins import build_registry
from workbench.study.load import load_study, load_study_text

ROOT = Path(__file__).resolve().parents[2]
FLORES = ROOT / "studies" / "flores_slider_crank.toml"
C = 0.5e-3          # radial clearance [m]


@pytest.fixture(scope="module")
def registry():
    return build_registry()


def disc_in_bushing(registry, *, gravity=(0.0, 0.0), friction=None):
    """A free disc (the journal, R = 10 mm) in a bushing fixed to the ground (R = 10.5 mm)."""
    contact = registry.create("contact", "lankarani_nikravesh", {"restitution": 0.9})
    fr = None if friction is None else registry.create("friction", "coulomb", {"mu": friction})
    disc = Body("disc", 0.2, 1e-5, position=(0.0, 0.0), points={"c": (0.0, 0.0)})
    joint = RevoluteClearanceJoint("B", "ground", "O", "disc", "c", bushing_radius=0.010 + C,
                                   journal_radius=0.010, contact=contact, friction=fr)
    return Mechanism((disc,), (), (), (), (joint,), {"O": (0.0, 0.0)}, gravity)


def stepper(mech, velocity, **kw):
    """The stepper of ``mech`` started with the disc's ``velocity`` [m/s] (assembly holds the
    clearance joint ideal, which would zero it)."""
    s = MoreauJean(mech, **kw)
    s.qd0 = np.array([*velocity, 0.0])
    return s


def energy(stepper, q, v):
    g = np.asarray(stepper.cm.gravity)
    m = np.asarray(stepper.cm.mass)
    return 0.5 * float(m @ (v * v)) - float(m[0::3] @ (g[0] * q[0::3] + g[1] * q[1::3]))


@pytest.mark.parametrize("e_n", [1.0, 0.5, 0.0])
@pytest.mark.parametrize("gravity", [(0.0, 0.0), (0.0, -9.81)])
def test_energy_never_grows_without_friction(registry, e_n, gravity):
    # theta = 1/2 is exact in free flight under a constant force, and an impulse with
    # 0 <= e_n <= 1 does work P_N (u_N- + u_N+)/2 = -P_N (1 - e_n) |u_N-| / 2 <= 0
    mech = disc_in_bushing(registry, gravity=gravity)
    s = stepper(mech, (0.3, 0.1), restitution=e_n)
    q, v, h = s.q0.copy(), s.qd0.copy(), 1e-5
    E0 = E = energy(s, q, v)
    impacts = 0
    for _ in range(3000):
        q, v, info = s.step(0.0, q, v, h)
        E1 = energy(s, q, v)
        assert E1 <= E + 1e-12 * E0, (E1, E)
        impacts += int(info["PN"][0] > 0)
        E = E1
    assert impacts > 0                       # it did hit the wall
    if e_n == 1.0 and gravity == (0.0, 0.0):
        assert E == pytest.approx(E0, rel=1e-9)   # elastic and no work: conserved
    if e_n < 1.0:
        assert E < E0 * (1 - 1e-3)


def test_plastic_impact_keeps_the_contact_closed(registry):
    # e_n = 0: once the journal reaches the wall it stays there (Signorini): gravity presses it,
    # its speed along the wall is low enough for the centripetal need v^2/c < g cos(angle)
    mech = disc_in_bushing(registry, gravity=(0.0, -9.81))
    s = stepper(mech, (0.02, 0.0), restitution=0.0)
    out = run(s, 0.05, 1e-5)
    gaps = np.array([s.gap(q, s.contacts[0])[0] for q in out["q"]])
    closed = np.flatnonzero(out["PN"][:, 0] > 0)
    assert closed.size
    k0 = closed[0]
    assert np.all(out["PN"][k0:, 0] > 0)          # never lets go
    assert len(out["impacts"][0]) == 1            # one contact start only
    # the gap stays at the wall to the scheme's O(h |u_N|) penetration
    assert np.abs(gaps[k0 + 1:]).max() < 1e-7
    assert np.all(gaps[:k0] > -1e-7)


def test_friction_events_of_a_contact(registry):
    """The contact's friction state after each step with ``P_N > 0`` (stick: ``u_T+ = 0``; slip
    either way) and its changes, the Moreau-Jean rows of the event table.  The journal lands
    plastically on the bushing's wall and rolls in it: with mu = 0.5 the impact's friction
    impulse arrests the contact point at once and it rolls without slipping (no friction event);
    with mu = 0.05 it slides, and where the sliding reverses the scheme sees one step of stick
    between the two slips (a stick start, then stick -> slip one step later).

    Over 30 ms (50 ms until the default suite had to get back under 8 minutes on 2 cores): the
    journal lands at 9.7 ms and the reversal's two events come at 21.65 ms; the fixed steps make
    the shorter run the first 3000 steps of the longer one, so 20 ms of rolling contact are left."""
    from workbench.nonsmooth.events import EV_BREAKAWAY, EV_STICK
    h = 1e-5
    out = {}
    for mu in (0.5, 0.05):
        s = stepper(disc_in_bushing(registry, gravity=(0.0, -9.81), friction=mu), (0.02, 0.0), restitution=0.0)
        out[mu] = run(s, 0.03, h)
    closed = out[0.5]["PN"][:, 0] > 0
    assert closed.any() and out[0.5]["friction_events"] == []
    assert np.abs(out[0.5]["uT"][closed, 0]).max() < 1e-12
    o = out[0.05]
    ev = o["friction_events"]
    assert [e[2] for e in ev] == [EV_STICK, EV_BREAKAWAY]
    (t1, k1, _, N1), (t2, _, _, _) = ev
    assert k1 == 0 and t2 - t1 == pytest.approx(h) and N1 > 0.0
    i = int(round(t1 / h))
    assert abs(o["uT"][i, 0]) < 1e-12                       # the stick step
    assert o["uT"][i - 1, 0] * o["uT"][i + 1, 0] < 0.0      # between slips of opposite sign


@pytest.fixture(scope="module")
def flores():
    return load_study(FLORES)


def test_free_flight_matches_compliant_path(flores):
    from workbench.mbs.solver import simulate as compliant
    s = dataclasses.replace(flores.solver, t_end=2e-3)
    ref = compliant(flores.mechanism, s)
    sim = simulate(flores.mechanism, s, step=2.5e-6)
    t1 = min(ref.impact_time[0], sim.impact_time[0])
    assert abs(ref.impact_time[0] - sim.impact_time[0]) < 1e-5     # same first impact, to 4 steps
    mask = sim.time < t1
    assert mask.sum() > 10
    de = np.abs(sim.eccentricity[mask, 0] - ref.eccentricity[mask, 0]).max()
    # second-order scheme, h = 2.5 us: the paths agree to a small part of the clearance
    assert de < 1e-3 * C, de
    assert np.all(sim.contact_force[mask] == 0.0)


def test_lemke_agrees_with_enumeration(flores):
    s_l = MoreauJean(flores.mechanism)
    s_e = MoreauJean(flores.mechanism, lcp="enumerate")
    q, v, t, h = s_l.q0.copy(), s_l.qd0.copy(), 0.0, 1e-5
    checked = 0
    for i in range(1200):
        M, ql, _ = s_l.lcp(t, q, v, h)
        if M is not None and checked < 20:
            z_l = lemke(M, ql).z
            z_e = enumerate_lcp(M, ql, all_solutions=True)
            assert is_solution(M, ql, z_l)
            assert z_e and all(is_solution(M, ql, z) for z in z_e)
            # the impulses P_N and P_T = beta+ - beta- are the same for every solution
            for z in z_e:
                assert z[0] == pytest.approx(z_l[0], rel=1e-8, abs=1e-14)
                assert z[1] - z[2] == pytest.approx(z_l[1] - z_l[2], rel=1e-8, abs=1e-14)
            q1, v1, _ = s_e.step(t, q, v, h)
            q2, v2, _ = s_l.step(t, q, v, h)
            np.testing.assert_allclose(v1, v2, rtol=1e-9, atol=1e-12)
            checked += 1
        q, v, _ = s_l.step(t, q, v, h)
        t += h
        if checked >= 20:
            break
    assert checked >= 5          # contacts were active


def _flores_text(solver_extra: str, **replace) -> str:
    text = FLORES.read_text()
    for a, b in replace.items():
        text = text.replace(a, b)
    return text.replace("[solver]\n", "[solver]\n" + solver_extra + "\n")


def test_study_selects_moreau_jean(registry, tmp_path):
    from workbench import kinds
    text = _flores_text('method = "moreau_jean"\nstep = 1.0e-5',
                        **{"revolutions = 2 ": "revolutions = 0.1 "})
    study = load_study_text(text, registry=registry)
    assert study.solver.step == 1e-5 and study.solver.restitution is None
    out = tmp_path / "mj.nc"
    ds = kinds.run(study, registry=registry, out=out)
    assert out.exists() and ds.attrs["solver"] == "moreau_jean"
    assert ds.sizes["time"] == 121
    for v in ("eccentricity", "contact_force", "driver_load"):
        assert "units" in ds[v].attrs and "long_name" in ds[v].attrs
    # the impacts are in the event table shared with friction events (workbench.nonsmooth.events),
    # kind 'impact', row for row with the impact table; the contact's friction events (stick,
    # stick -> slip, slip reversal, at the step where its state changed) are the other rows
    flags = dict(zip(ds["event_kind"].attrs["flag_meanings"].split(), ds["event_kind"].attrs["flag_values"]))
    kind = ds["event_kind"].values.astype(int)
    imp = kind == flags["impact"]
    assert imp.sum() == ds.sizes["impact"] > 0
    np.testing.assert_array_equal(ds["event_time"].values[imp], ds["impact_time"].values)
    np.testing.assert_array_equal(ds["event_velocity"].values[imp], ds["impact_velocity"].values)
    assert list(ds["event_joint"].values[imp]) == list(ds["impact_joint"].values)
    assert np.all(np.diff(ds["event_time"].values) >= 0.0)
    fr = ~imp
    assert set(kind[fr]) <= {flags["stick_start"], flags["stick_to_slip"], flags["slip_reversal"]}
    assert np.all(ds["event_normal_force"].values[fr] > 0.0) and np.all(np.isnan(ds["event_velocity"].values[fr]))
    print("Moreau-Jean events:", {n: int((kind == v).sum()) for n, v in flags.items()})
    for v in ("event_time", "event_kind", "event_joint", "event_normal_force", "event_velocity"):
        assert ds[v].attrs.get("units") and ds[v].attrs.get("long_name"), v


@pytest.mark.parametrize("extra, key", [
    ('method = "moreau_jean"', "solver.step"),
    ('method = "moreau_jean"\nstep = 3.0e-6', "output.step"),
    ('step = 1.0e-5', "solver.step"),
    ('restitution = 0.5', "solver.restitution"),
    ('method = "moreau_jean"\nstep = 1.0e-5\nrestitution = 1.5', "solver.restitution"),
])
def test_bad_solver_keys(registry, extra, key):
    with pytest.raises(StudyError) as exc:
        load_study_text(_flores_text(extra), registry=registry)
    assert key in str(exc.value)


def test_unsupported_friction_law_refused(registry):
    text = _flores_text('method = "moreau_jean"\nstep = 1.0e-5', **{
        'friction = { model = "ambrosio", c_f = 0.01, v0 = 1.0e-4, v1 = 1.0e-2 }':
        'friction = { model = "lugre" }'})
    with pytest.raises(StudyError) as exc:
        load_study_text(text, registry=registry)
    assert "lugre" in str(exc.value) and "ambrosio" in str(exc.value)


def test_energy_books_close_at_first_order(flores):
    # driver work = kinetic + potential energy change + impact loss + friction loss, up to the
    # scheme's own error: the bilateral rows hold at q_m, so the ideal joints' impulses do
    # O(h^2) spurious work a step, O(h) over the run (measured: 0.50, 0.25, 0.126, 0.063 J
    # for h = 10, 5, 2.5, 1.25 us over 1 ms with three impacts, against a driver work of 39 J
    # and a kinetic energy of up to 102 J)
    s = dataclasses.replace(flores.solver, t_end=1e-3)
    res = []
    for h in (1e-5, 5e-6):
        sim = simulate(flores.mechanism, s, step=h)
        assert len(sim.impact_time) == 3
        E = (sim.kinetic_energy + sim.potential_energy + sim.contact_energy
             + sim.dissipated_energy - sim.driver_work)
        res.append(np.abs(E - E[0]).max())
    assert 1.8 < res[0] / res[1] < 2.2, res
