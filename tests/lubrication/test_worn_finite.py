"""The finite bearing on a worn bushing (workbench.lubrication.worn_finite): the shipped table
corrected by the ratio of the worn to the circular harmonic-mean film (Hirani, Athre & Biswas
(1999)), packed with the bore's profile at every wear update.

Oracles: the table itself on the circular bore and on a uniform wear (a larger clearance,
geometry); the direct FE solve of the same worn film (workbench.lubrication.reynolds.solve_film
with ``wear`` and ``whirl``, 192 x 25 mesh) at L/D = 0.5 and 1; the energy books of a free journal
on a scarred bore (the film dissipates, never generates).  The measured error over 300 random
states per case is in docs/lubrication.md ("The finite bearing on a worn bore").
"""
from __future__ import annotations

import math
import types

import numpy as np
import pytest

from workbench.lubrication import reynolds as rey
from workbench.lubrication import worn_finite as wfin
from workbench.models import ContactGeometry
from workbench.plugins import build_registry

from worn_bore_rig import NODES, PSI, scar

MU, R, C = 0.04, 0.01, 5e-4       # viscosity [Pa s], journal radius [m], radial clearance [m]
V = 300.0                          # |(w, 2 eps_dot)| [rad/s]


@pytest.fixture(scope="module")
def model():
    return build_registry().create("lubrication", "finite_bearing", {"viscosity": MU})


def _geometry(ld):
    return ContactGeometry("cylindrical", R, R + C, 2.0 * ld * R)


def _state(eps, psq, whirl, alpha):
    """Bushing-frame ``(e, v, omega)`` of a journal at ``eps`` along ``alpha`` [rad] with the squeeze
    angle ``psq`` [rad] and the whirl ``2 gamma_dot / V`` [1] (the FE's scaling)."""
    u = np.array([math.cos(alpha), math.sin(alpha)]); t = np.array([-u[1], u[0]])
    w = V * math.cos(psq); ed = 0.5 * V * math.sin(psq); gd = 0.5 * whirl * V
    return eps * C * u, C * ed * u + C * eps * gd * t, w + 2.0 * gd


def _dimless(model, p, eps, psq, whirl, alpha):
    """The kernel's force in the FE's scaling ``f = F c^2 / (6 mu R^4 V)``, line-of-centres frame."""
    e, v, om = _state(eps, psq, whirl, alpha)
    fx, fy, _ = type(model).kernel(*e, *v, om, p)
    u = np.array([math.cos(alpha), math.sin(alpha)]); t = np.array([-u[1], u[0]])
    return np.array([np.dot((fx, fy), u), np.dot((fx, fy), t)]) * C * C / (6.0 * MU * R ** 4 * V)


def _fe(ld, depth, eps, psq, whirl, alpha):
    s = rey.solve_film(eps, ld, psq, cavitation="gumbel", wear=rey.bushing_wear(PSI, depth, C, alpha),
                       whirl=whirl, n_theta=192, n_y=25)
    return np.array([s.f_e, s.f_t])


def _rel(a, b):
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def test_the_circular_and_the_uniformly_worn_bore_keep_the_table(model):
    """A zero profile packs ``pack`` itself (the table, bit for bit); a uniform wear d packs the table
    at the clearance c + d (geometry, exact; 1e-12 for c + d summed otherwise than the radii); a scar packs the reduced model, whose force differs."""
    g = _geometry(0.5)
    p0 = model.pack(g)
    assert np.array_equal(model.pack_worn(g, np.zeros(NODES)), p0)
    d = 0.1 * C
    g_d = ContactGeometry("cylindrical", R, R + C + d, g.length)
    # the clearance c + d against the radii's difference: round-off
    np.testing.assert_allclose(model.pack_worn(g, np.full(NODES, d)), model.pack(g_d), rtol=1e-12, atol=0)
    pw = model.pack_worn(g, scar(0.0, 0.25 * C))
    assert len(pw) > len(p0)
    f0 = _dimless(model, p0, 0.6, 0.0, 0.0, math.pi)
    fw = _dimless(model, pw, 0.6, 0.0, 0.0, 0.0)          # the scar under the thinnest film
    assert _rel(fw, f0) > 0.05


#: states (eps, squeeze angle [rad], whirl 2 gamma_dot / V [1], direction of the line of centres
#: from the scar's centre [rad]): wedge, squeeze, whirl, both signs; the scar at 0.25 c (width 0.4 rad)
STATES = ((0.3, 0.0, 0.0, 0.3), (0.6, 0.7, 0.5, -0.2), (0.85, -0.5, -0.4, 0.5), (0.6, 0.0, 0.0, math.pi),
          (0.45, 1.2, -0.8, 2.0), (0.75, -2.0, 0.3, -1.0))
#: the stated error at 0.25 c over 300 random states (docs/lubrication.md): p95 and largest, per L/D
STATED = {0.5: (0.125, 1.31), 1.0: (0.101, 0.505)}


@pytest.mark.parametrize("ld", (0.5, 1.0))
def test_the_reduced_worn_film_against_direct_worn_solves(model, ld):
    """Six states over a 0.25 c scar: the reduced model against the direct FE solve of the same
    worn film (with the whirl's source).  Asserted: every state within the stated largest error and
    the states' median within the stated p95 (docs/lubrication.md: at 0.25 c, p95 12.5 % / 10.1 %
    at L/D = 0.5 / 1); the table on the nominal bore (today's film before this model) is asserted
    more than twice as far off in the median, so the check tells the two apart (measured: reduced
    0.6-21 %, nominal 1-93 %)."""
    g = _geometry(ld)
    depth = scar(0.0, 0.25 * C, 0.4)
    pw, p0 = model.pack_worn(g, depth), model.pack(g)
    err, nom = [], []
    for s in STATES:
        ref = _fe(ld, depth, *s)
        err.append(_rel(_dimless(model, pw, *s), ref))
        nom.append(_rel(_dimless(model, p0, *s), ref))
    p95, top = STATED[ld]
    assert max(err) < top, err
    assert np.median(err) < p95, err
    assert np.median(nom) > 2.0 * np.median(err), (err, nom)


@pytest.mark.slow   # ~3 s per L/D (60 FE solves), kept out of the default suite for its FE cost; the
# default suite keeps the check with
# test_the_reduced_worn_film_against_direct_worn_solves (six states)
@pytest.mark.parametrize("ld", (0.5, 1.0))
def test_the_reduced_worn_films_error_over_random_states(model, ld):
    """60 random states (eps 0.1-0.95, any squeeze angle, whirl -1..1, any direction) on a 0.5 c scar:
    the p95 of the relative error within 1.3 times the stated p95 at 0.5 c (28.3 % / 20.2 %; 60
    states estimate the 300-state p95 to about that), the median within 1.5 times the stated median
    (5.96 % / 5.55 %)."""
    rng = np.random.default_rng(7)
    g = _geometry(ld)
    depth = scar(0.0, 0.5 * C, 0.4)
    pw = model.pack_worn(g, depth)
    err = []
    for _ in range(60):
        s = (rng.uniform(0.1, 0.95), rng.uniform(-math.pi, math.pi), rng.uniform(-1, 1), rng.uniform(-math.pi, math.pi))
        err.append(_rel(_dimless(model, pw, *s), _fe(ld, depth, *s)))
    p95, med = {0.5: (0.283, 0.0596), 1.0: (0.202, 0.0555)}[ld]
    assert np.percentile(err, 95) < 1.3 * p95 and np.median(err) < 1.5 * med, (np.percentile(err, 95), np.median(err))


@pytest.mark.slow   # the Reynolds (LCP) table costs about 90 s to build at L/D = 0.5 on first use
def test_the_reduced_worn_film_with_reynolds_cavitation():
    """The same six states and 0.25 c scar with Swift-Stieber cavitation in the table and in the
    direct solves: every state within the largest error measured over 60 random states at 0.25 c
    (75 %, docs/lubrication.md) and the median within that measurement's p95 (12.0 %); the
    circular table more than twice as far off in the median (as for the Gümbel film)."""
    rmodel = build_registry().create("lubrication", "finite_bearing", {"viscosity": MU, "cavitation": "reynolds"})
    g = _geometry(0.5)
    depth = scar(0.0, 0.25 * C, 0.4)
    pw, p0 = rmodel.pack_worn(g, depth), rmodel.pack(g)
    assert rmodel.worn_validity(g, depth) == ""          # no longer flagged for its condition
    err, nom = [], []
    for st in STATES:
        r = rey.solve_film(st[0], 0.5, st[1], cavitation="reynolds", wear=rey.bushing_wear(PSI, depth, C, st[3]),
                           whirl=st[2], n_theta=192, n_y=25)
        ref = np.array([r.f_e, r.f_t])
        err.append(_rel(_dimless(rmodel, pw, *st), ref))
        nom.append(_rel(_dimless(rmodel, p0, *st), ref))
    assert max(err) < 0.75 and np.median(err) < 0.12, err
    assert np.median(nom) > 2.0 * np.median(err), (err, nom)


def test_a_bore_outside_the_measured_range_is_flagged(model):
    """The model says when a bore is outside what its error was measured on (scar deeper than the
    clearance, L/D > 1), and the wear loop's check puts it once in the run's validity warnings."""
    from workbench.wear import film_validity
    g = _geometry(0.5)
    assert model.worn_validity(g, scar(0.0, 0.9 * C)) == ""
    assert model.worn_validity(g, np.full(NODES, 2.0 * C)) == ""          # uniform: exact
    why = model.worn_validity(g, scar(0.0, 1.2 * C))
    assert "1.2 of the radial clearance" in why
    assert "L/D = 1.5" in model.worn_validity(_geometry(1.5), scar(0.0, 0.1 * C))
    assert model.worn_validity(_geometry(1.5), np.zeros(NODES)) == ""        # the circular bore: the table
    joint = types.SimpleNamespace(name="J", lubrication=model, kind="cylindrical", radius_journal=R,
                                  radius_bushing=R + C, length=R)
    worn = types.SimpleNamespace(joint=joint, h_bushing=scar(0.0, 1.2 * C), h_journal=np.zeros(NODES))
    run = types.SimpleNamespace(worn={"J": worn}, validity=types.SimpleNamespace(warnings=[]), update=3,
                                cycles_done=1e4)
    with pytest.warns(UserWarning, match="worn film of joint 'J'"):
        film_validity.check(run, geometry=lambda j: g)
    film_validity.check(run, geometry=lambda j: g)                      # once per joint
    assert len(run.validity.warnings) == 1 and "1.2 of the radial clearance" in run.validity.warnings[0]


def test_energy_books_of_a_journal_on_a_scarred_bore():
    """A free journal (1 kg) in the finite-bearing film on a 0.5 c scar, started at 0.7 c over the scar's
    edge, moving and spinning at 500 rad/s, 2 ms: the film's dissipation never decreases and the books
    close, ``Delta KE + D + E_c = 0`` to 1e-9 of the initial kinetic energy (the solver integrates
    each power apart)."""
    from mechanisms import free_journal
    from workbench.mbs.solution import SolverSettings
    from workbench.mbs.solver import simulate
    reg = build_registry()
    c, r = 2e-5, 0.01
    lub = reg.create("lubrication", "finite_bearing", {"viscosity": 0.04})
    mech = free_journal(reg, lub, journal_radius=r, clearance=c, length=r)
    hb = scar(0.0, 0.5 * c)
    e = 0.7 * c * np.array([math.cos(0.4), math.sin(0.4)])
    sim = simulate(mech, SolverSettings(t_end=2e-3, output_step=2e-5),
                   surfaces={0: (hb, np.zeros(NODES))}, initial=(np.array([*e, 0.0]), np.array([1e-4, -2e-4, 500.0])))
    D = np.asarray(sim.dissipated_energy)
    KE = np.asarray(sim.kinetic_energy); E_c = np.asarray(sim.contact_energy)
    assert D[-1] > 1e-3 * KE[0] and np.diff(D).min() >= 0.0
    assert np.abs(KE - KE[0] + D + E_c).max() < 1e-9 * KE[0]
    assert np.asarray(sim.film_force).max() > 0.0
