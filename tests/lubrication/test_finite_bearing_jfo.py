"""The grooved JFO finite bearing in the dynamics (workbench.lubrication.jfo_table, the plugin
``finite_bearing_jfo``): the shipped table, its interpolation error, and the physics.

Oracles: the direct FE solves of :func:`workbench.lubrication.reynolds.solve_film` with
``cavitation="jfo", groove=True`` on the table's mesh (96 x 17) at the same state (the table's
nodes are such solves; off the nodes the table interpolates); the Swift-Stieber (Reynolds) film,
which JFO reduces to where the film does not reform; the energy books of a free journal; a
static solve of the JFO film for the equilibrium of a loaded journal.  The measured errors are in
docs/lubrication.md ("Mass-conserving (JFO) cavitation in the dynamics").
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.lubrication import jfo_table as jt
from workbench.lubrication import reynolds as rey
from workbench.models import ContactGeometry
from workbench.plugins import build_registry

LD, N_U, N_PSI, N_G, NT, NY = jt.SHIPPED[0]


@pytest.fixture(scope="module")
def shipped():
    tab, fall = jt.table(*jt.SHIPPED[0])
    return tab, fall, jt.pack(1.0, 1.0, 2.0 * LD, 1.0, 0.99, 0.0, tab)


def _direct(eps, psi, theta_g, cavitation="jfo"):
    s = rey.solve_film(eps, LD, psi, cavitation=cavitation, groove=True, groove_angle=theta_g,
                       n_theta=NT, n_y=NY, max_iter=jt.MAX_ITER, warn=False)   # the flag read below
    ok = s.info.get("jfo_converged", False)
    return s, ok


def test_the_shipped_tables_are_package_data_and_their_entries_are_direct_solves(shipped):
    """Every shipped grid is on disk under workbench/lubrication/data (the plugin's defaults load it,
    no build); eight nodes of the L/D = 2 table drawn at random, recomputed by the same rule
    (:func:`jt.solve_node`: the JFO solve, the Reynolds film where JFO has no quasi-static
    solution), equal the stored value to 1e-9 of the force and carry the same fallback mark."""
    for grid in jt.SHIPPED:
        assert jt.shipped_path(*grid).exists(), grid
    tab, fall, _ = shipped
    eps, psi, gro = jt.eps_nodes(N_U), jt.psi_nodes(N_PSI), jt.groove_nodes(N_G)
    rng = np.random.default_rng(7)
    for _ in range(8):
        i, k, m = rng.integers(1, N_U), rng.integers(N_PSI), rng.integers(N_G)
        fe, ft, fb_ = jt.solve_node(eps[i], LD, psi[k], gro[m], NT, NY)
        s5 = (1 - eps[i] ** 2) ** 2.5
        assert fb_ == fall[i, k, m]
        assert math.hypot(fe * s5 - tab[0, i, k, m], ft * s5 - tab[1, i, k, m]) < 1e-9 * math.hypot(fe, ft) * s5


def test_jfo_table_interpolation_error(shipped):
    """The table against direct JFO solves at 12 random off-node states (eps 0.1-0.9, any squeeze
    angle, any groove angle; states whose direct JFO solve does not converge are skipped: there
    the table holds the Reynolds film, module docstring).  The error is taken over the force scale
    at that eps (the largest force over the squeeze and groove angles, as the Gümbel table's test:
    near a separating state the force itself passes through zero).  Bounds, from the measurement
    over 241 converged states of 300 (tests/benchmarks/jfo_table_error.py, docs/lubrication.md:
    largest 13.9 %, median 0.30 %; median attitude error 0.25 deg over the states whose force is
    above a tenth of the scale): each state below 1.5 times the largest measured, the median below
    twice the measured median, the median attitude error (forces above a tenth of the scale) below
    1 deg.  This is the error the table adds to the dynamics."""
    _, _, p = shipped
    rng = np.random.default_rng(11)
    errs = []; datt = []
    while len(errs) < 12:
        e, ps, g = rng.uniform(0.1, 0.9), rng.uniform(-math.pi, math.pi), rng.uniform(0, 2 * math.pi)
        s, ok = _direct(e, ps, g)
        if not ok or math.hypot(s.f_e, s.f_t) == 0.0:
            continue
        scale = max(math.hypot(*jt.interpolate(e, a, b, p)) for a in jt.psi_nodes(N_PSI) for b in jt.groove_nodes(N_G))
        fe, ft = jt.interpolate(e, ps, g, p)
        errs.append(math.hypot(fe - s.f_e, ft - s.f_t) / scale)
        if math.hypot(s.f_e, s.f_t) > 0.1 * scale:      # an attitude of a vanishing force means little
            datt.append(abs(math.remainder(math.atan2(ft, fe) - math.atan2(s.f_t, s.f_e), 2 * math.pi)))
    assert max(errs) < 1.5 * MAX_ERR and np.median(errs) < 2.0 * MEDIAN_ERR
    assert len(datt) >= 6 and math.degrees(np.median(datt)) < 1.0


# measured over 241 converged random states (docs/lubrication.md): largest / median error over
# the force scale at that eps
MAX_ERR = 0.139
MEDIAN_ERR = 0.0030


def test_with_the_groove_at_the_largest_film_jfo_is_the_reynolds_film(shipped):
    """Groove at the largest film (theta_g = 0), steady wedge (psi = 0): the film ruptures after the
    thinnest film and the cavitated zone runs into the groove, no reformation inside the film
    (checked: every full-film node downstream of the rupture is the groove's), and the JFO table
    equals the Reynolds (Swift-Stieber) film of the same bearing within the tolerance the direct
    solves meet (1 % in the load, 0.5 deg in the attitude; docs/lubrication.md).  At the table's
    nodes (eps 0.39, 0.63, 0.78, 0.86) and off them (0.45, 0.7) through the kernel (measured: load
    0.08-0.45 %, attitude <= 0.22 deg)."""
    _, _, p = shipped
    eps_n = jt.eps_nodes(N_U)
    for e in (eps_n[2], eps_n[4], eps_n[6], eps_n[8], 0.45, 0.7):
        r = rey.solve_film(float(e), LD, 0.0, cavitation="reynolds", groove=True, groove_angle=0.0,
                           n_theta=NT, n_y=NY)
        fe, ft = jt.interpolate(float(e), 0.0, 0.0, p)
        assert abs(math.hypot(fe, ft) / math.hypot(r.f_e, r.f_t) - 1) < 0.01, e
        assert abs(math.degrees(math.atan2(ft, -fe) - math.atan2(r.f_t, -r.f_e))) < 0.5, e
    j, ok = _direct(0.7, 0.0, 0.0)
    assert ok
    full = (j.fill[:, NY // 2] >= 1 - 1e-12)
    k_rupture = int(np.argmax(~full[NT // 2:])) + NT // 2        # first cavitated column after the thinnest film
    assert not full[k_rupture:].any()                             # cavitated up to the groove (column 0)


def _geometry():
    R = 0.01
    return ContactGeometry("cylindrical", R, R + 2e-5, 2.0 * LD * R)


def test_energy_books_of_a_free_journal_in_the_jfo_film():
    """A free journal (1 kg) in the JFO film (R 10 mm, c 20 um, L/D 2, 0.04 Pa s, groove at the
    bushing's +y), started at 0.7 c moving and spinning at 500 rad/s, 2 ms: the film's dissipation
    never decreases (the film never gives energy back) and the books close, ``Delta KE + D + E_c =
    0`` to 1e-9 of the initial kinetic energy."""
    from mechanisms import free_journal
    from workbench.mbs.solution import SolverSettings
    from workbench.mbs.solver import simulate
    reg = build_registry()
    c, r = 2e-5, 0.01
    lub = reg.create("lubrication", "finite_bearing_jfo", {"viscosity": 0.04})
    mech = free_journal(reg, lub, journal_radius=r, clearance=c, length=2.0 * LD * r)
    e = 0.7 * c * np.array([math.cos(0.4), math.sin(0.4)])
    sim = simulate(mech, SolverSettings(t_end=2e-3, output_step=2e-5),
                   initial=(np.array([*e, 0.0]), np.array([1e-4, -2e-4, 500.0])))
    D = np.asarray(sim.dissipated_energy)
    KE = np.asarray(sim.kinetic_energy); E_c = np.asarray(sim.contact_energy)
    assert D[-1] > 1e-3 * KE[0] and np.diff(D).min() >= 0.0
    assert np.abs(KE - KE[0] + D + E_c).max() < 1e-9 * KE[0]
    assert np.asarray(sim.film_force).max() > 0.0


def test_a_loaded_journal_settles_at_the_direct_jfo_equilibrium(shipped):
    """A free journal (10 kg; R 10 mm, c 20 um, L/D 2, 0.04 Pa s) spun at 3000 rad/s in a fixed
    bushing whose groove sits at the bushing angle psi_g, under the constant load that a direct
    static JFO solve says the film carries at eps = 0.7 with the line of centres at alpha = -1.2 rad
    (so the groove at theta_g = psi_g - alpha - pi = 31 mesh columns = 2.03 rad from the largest
    film, between table nodes): started centred at rest, the squeeze film damps it onto that
    equilibrium.  Tolerance: twice what the table's interpolation error there (0.3 % of the force)
    moves the equilibrium (measured 6.1e-4 in eps, 2.6e-3 rad in the direction); 0.03 s of
    classical Runge-Kutta at 0.5 us (compiled; at 2 us the squeeze film's damping, ~1e7 N s/m at
    L/D 2, is beyond the explicit scheme's stability and the state locks at a spurious fixed point
    of the map, found here), the final speed below 1e-6 c omega."""
    from workbench.jit import njit
    tab, _, _ = shipped
    mu_, R_, c_, w = 0.04, 0.01, 2e-5, 3000.0
    eps0, alpha = 0.7, -1.2
    dx = 2 * math.pi / NT
    theta_g = 31 * dx
    s, ok = _direct(eps0, 0.0, theta_g)
    assert ok
    k = 6 * mu_ * R_ ** 4 * w / c_ ** 2
    u = np.array([math.cos(alpha), math.sin(alpha)]); t = np.array([-u[1], u[0]])
    F = k * (s.f_e * u + s.f_t * t)
    load = -F
    psi_g = theta_g + alpha + math.pi
    p = jt.pack(mu_, R_, 2.0 * LD * R_, c_, 0.99, psi_g, tab)
    kern = jt.jfo_kernel

    @njit
    def run(m, lx, ly, w, p, dt, n):
        y = np.zeros(4)

        def f(y):
            fx, fy, _ = kern(y[0], y[1], y[2], y[3], w, p)
            return np.array([y[2], y[3], (fx + lx) / m, (fy + ly) / m])
        for _ in range(n):
            k1 = f(y); k2 = f(y + 0.5 * dt * k1); k3 = f(y + 0.5 * dt * k2); k4 = f(y + dt * k3)
            y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        return y
    y = run(10.0, load[0], load[1], w, p, 5e-7, 60000)
    e = y[:2]
    assert abs(math.hypot(*e) / c_ - eps0) < 2 * TABLE_EPS_ERR
    assert abs(math.remainder(math.atan2(e[1], e[0]) - alpha, 2 * math.pi)) < 2 * TABLE_ANGLE_ERR
    assert np.hypot(*y[2:]) < 1e-6 * c_ * w


# the table's own equilibrium at that load against the direct solve's (measured, see the test)
TABLE_EPS_ERR = 6.1e-4
TABLE_ANGLE_ERR = 2.6e-3


def test_a_study_file_selects_the_jfo_bearing_and_bad_values_are_refused(tmp_path):
    """`lubrication = {model = "finite_bearing_jfo", groove_angle = ...}` in a study file loads; a
    groove angle outside [-2 pi, 2 pi] rad or an unknown parameter is a study error at load time
    (what `workbench validate` runs) naming the key, the value and the valid range."""
    from pathlib import Path
    import workbench
    from workbench.errors import StudyError
    src = (Path(__file__).resolve().parents[2] / "studies" / "flores_slider_crank_lubricated_jfo.toml").read_text()
    workbench.load_study(src)
    with pytest.raises(StudyError, match=r"groove_angle.*7\.5.*6\.28"):
        workbench.load_study(src.replace("groove_angle = 1.5707963267948966", "groove_angle = 7.5"))
    with pytest.raises(StudyError, match=r"lubrication.*groove_angel"):
        workbench.load_study(src.replace("groove_angle = 1.5707963267948966", "groove_angel = 1.0"))
    with pytest.raises(StudyError, match=r"lubrication\.model.*finite_bearing_jfo"):
        workbench.load_study(src.replace('model = "finite_bearing_jfo"', 'model = "finite_bearing_jf"'))


def test_the_worn_bore_takes_the_jfo_table_as_its_base():
    """On a worn bushing (workbench.lubrication.jfo_table.pack_worn): a zero profile packs the
    circular table bit for bit, a uniform wear d the table at the clearance c + d (geometry, 1e-12);
    on a 0.25 c Gaussian scar (L/D 2), 10 random states against the direct worn JFO solve
    (wear and whirl, the table's mesh; states whose JFO does not converge skipped): the median
    error below twice the median measured over 150 states (5.6 %; tests/benchmarks/jfo_worn_error.py,
    docs/lubrication.md), and below the circular table's that ignores the wear (measured 11.4 %)."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import jfo_worn_error as w
    from worn_bore_rig import NODES
    reg = build_registry()
    m = reg.create("lubrication", "finite_bearing_jfo", {"viscosity": w.MU})
    g = ContactGeometry("cylindrical", w.R, w.R + w.C, 2.0 * LD * w.R)
    assert np.array_equal(m.pack_worn(g, np.zeros(NODES)), m.pack(g))
    d = 0.1 * w.C
    np.testing.assert_allclose(m.pack_worn(g, np.full(NODES, d)),
                               m.pack(ContactGeometry("cylindrical", w.R, w.R + w.C + d, g.length)), rtol=1e-12, atol=0)
    red, nom, _ = w.measure(LD, 0.25, 10, seed=5)
    assert np.median(red) < 2 * 0.056 and np.median(red) < np.median(nom), (red, nom)


def test_a_jfo_film_without_a_quasi_static_solution_says_so():
    """solve_film no longer hands back an unconverged JFO film in silence: a separating journal
    (eps 0.6, squeeze angle -1.2 rad, groove at 0; the Newton cycles, flux residual ~4e-3 of the
    Couette flux) warns FilmNotConverged and its info says jfo_converged False; a converging state
    (the same journal in a steady wedge, groove a quarter turn on) is silent and says True.  The
    table builder asks with warn=False and reads the flag itself."""
    import warnings
    with pytest.warns(rey.FilmNotConverged, match="did not converge"):
        bad = rey.solve_film(0.6, LD, -1.2, cavitation="jfo", groove=True, groove_angle=0.0,
                             n_theta=NT, n_y=NY, max_iter=jt.MAX_ITER)
    assert not bad.info["jfo_converged"] and bad.info["jfo_residual"] > 1e-6
    with warnings.catch_warnings():
        warnings.simplefilter("error", rey.FilmNotConverged)
        good = rey.solve_film(0.6, LD, 0.0, cavitation="jfo", groove=True, groove_angle=math.pi / 2,
                              n_theta=NT, n_y=NY, max_iter=jt.MAX_ITER)
        rey.solve_film(0.6, LD, -1.2, cavitation="jfo", groove=True, groove_angle=0.0, n_theta=NT,
                       n_y=NY, max_iter=jt.MAX_ITER, warn=False)
    assert good.info["jfo_converged"] and good.info["jfo_settled"] and good.info["lcp_converged"]


@pytest.mark.parametrize("model", ["finite_bearing_jfo", "finite_bearing"])
def test_a_run_past_the_film_tables_range_says_so(model):
    """The lubricated JFO slider-crank takes its journal to eps = 0.973 in two revolutions, past the
    tables' 0.95, where the force is the table's last value continued, not a Reynolds solution:
    the dynamics run's warnings say so for both tabulated films (and nothing within the range)."""
    from types import SimpleNamespace
    from pathlib import Path
    from workbench.study.checks import film_range_findings
    from workbench.study.load import load_study_text
    path = Path(__file__).resolve().parents[2] / "studies" / "flores_slider_crank_lubricated_jfo.toml"
    text = path.read_text()
    if model == "finite_bearing":
        text = text.replace('model = "finite_bearing_jfo", viscosity = 0.4, groove_angle = 1.5707963267948966',
                            'model = "finite_bearing", viscosity = 0.4')
    st = load_study_text(text, file=path, registry=build_registry())
    c = st.mechanism.clearance_joints[0]
    assert c.lubrication.name == model
    out = film_range_findings(SimpleNamespace(penetration=np.array([[-0.5 * c.clearance], [-0.027 * c.clearance]])),
                              st.mechanism)
    assert len(out) == 1 and "0.973" in out[0] and "0.95" in out[0] and model in out[0]
    assert film_range_findings(SimpleNamespace(penetration=np.array([[-0.1 * c.clearance]])), st.mechanism) == []
