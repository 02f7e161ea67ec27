"""The mixed model's film/asperity split on a worn bushing (workbench.lubrication.mixed).

On a worn bore the gap is not mirror-symmetric about the line of centres, so the asperity
pressure's resultant has a component across it.  That component is the asperities' (their load,
the wear law's input, their boundary friction, their stored energy), not the film's.

Oracles: a direct integration of the Greenwood & Tripp (1970) pressure (exact ``F_5/2``, parabolic
cylinder function, ``workbench.lubrication.greenwood_tripp.F``) over the worn gap on a grid 64
times finer than the kernel's; the worn film alone (``worn_film.short_film``) for the film part;
the kernel's total force for the balance of the two parts.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.lubrication import greenwood_tripp as gt
from workbench.lubrication import mixed as mx
from workbench.lubrication import worn_film as wf
from workbench.models import ContactGeometry
from workbench.plugins import build_registry

NODES = 720
PSI = 2 * math.pi * np.arange(NODES) / NODES
ALPHA = 0.3                              # direction of the eccentricity in the bushing frame [rad]
MU, R, L, C = 0.01, 0.01, 0.01, 2e-5     # Pa s, m, m, m
SIGMA, MU_B, V_REG = 2e-6, 0.12, 1e-4    # m, 1, m/s


@pytest.fixture(scope="module")
def model():
    return build_registry().create("lubrication", "mixed_lubrication", {
        "viscosity": MU, "roughness": SIGMA, "boundary_friction": MU_B, "slip_regularisation": V_REG})


def _geometry():
    return ContactGeometry("cylindrical", R, R + C, L)


def _scar(center, depth, width=0.4):
    gap = np.angle(np.exp(1j * (PSI - center)))
    return depth * np.exp(-(gap / width) ** 2)


def _oracle_asperity_force(e, depth, KE):
    """``-R L KE oint F_5/2(h / sigma) (cos, sin) dpsi`` [N], bushing frame: the worn gap
    ``h = c + h_w(psi) - e . (cos, sin)`` with ``h_w`` the nodal profile interpolated linearly (the
    wear loop's profile form), the exact ``F_5/2``, the trapezoidal rule on 64 x 720 nodes."""
    n = 64 * NODES
    psi = 2 * math.pi * np.arange(n) / n
    hw = np.interp(psi, np.append(PSI, 2 * math.pi), np.append(depth, depth[0]))
    h = C + hw - (e[0] * np.cos(psi) + e[1] * np.sin(psi))
    f = gt.F(2.5, h / SIGMA)
    d = 2 * math.pi / n
    return -R * L * KE * d * np.array([np.sum(f * np.cos(psi)), np.sum(f * np.sin(psi))])


# eccentricity along ALPHA at eps 0.95 (thinnest nominal film 0.5 sigma); a scar 0.1 c deep centred
# 0.25 rad off the line of centres: the gap opens on one side of the thinnest film only
STATES = [(0.95, 0.25, 0.0, 300.0), (0.95, 0.25, 2e-3, 300.0), (0.9, -0.35, -1e-3, -150.0)]


@pytest.mark.parametrize("eps,offset,vr,omega", STATES)
def test_the_asperity_part_on_a_worn_bore_is_the_asperity_force(model, eps, offset, vr, omega):
    """Both components of the asperity part (``f_na`` along, ``f_nt`` across the line of centres)
    against the direct integration of the Greenwood-Tripp pressure over the worn gap: measured
    2.4e-5 and 5.1e-5 of the resultant (the kernel's 720-node rule on the linearly interpolated
    profile and its F_5/2 table, 2.2e-6); asserted 1e-4.  The cross component is 15 % and -14 % of
    the resultant here (asserted > 5 %), so booking it with the film (as before) fails this test.  The boundary friction is
    ``mu_b`` times the resultant's magnitude (the regularised slip at this spin is 1 to 1e-8)."""
    g = _geometry()
    depth = _scar(ALPHA + offset, 0.1 * C)
    p = model.pack_worn(g, depth)
    u = np.array([math.cos(ALPHA), math.sin(ALPHA)]); t = np.array([-u[1], u[0]])
    e = C * eps * u
    v = vr * u + 0.0 * t
    fx, fy, tj, f_na, f_ta, f_nt = mx.mixed_parts_kernel(*e, *v, omega, p)
    ref = _oracle_asperity_force(e, depth, p[6])
    ref_na, ref_nt = -float(ref @ u), float(ref @ t)
    mag = math.hypot(ref_na, ref_nt)
    assert mag > 1.0                                             # asperities in contact [N]
    assert abs(ref_nt) > 0.05 * mag                              # a real cross component
    assert math.hypot(f_na - ref_na, f_nt - ref_nt) < 1e-4 * mag, (f_na, f_nt, ref_na, ref_nt)
    vs = R * omega                                               # no whirl: w = omega
    assert abs(f_ta) == pytest.approx(MU_B * mag * abs(vs) / math.hypot(vs, V_REG), rel=1e-4)
    assert math.copysign(1.0, f_ta) == -math.copysign(1.0, omega)


@pytest.mark.parametrize("eps,offset,vr,omega", STATES)
def test_film_and_asperity_parts_add_up_to_the_total(model, eps, offset, vr, omega):
    """The film part (the model's force less its asperity part, as the solver books it,
    ``workbench.mbs.clearance.film_forces``) is the worn short film alone (``worn_film.short_film``
    on the same block), and the two parts add up to the kernel's force: round-off (1e-12 of the
    total).  The power balance of the split: the asperities' normal power ``-F_n . v`` plus the
    rest ``-(F - F_n) . v - t_j omega`` is the model's total ``-(F . v + t_j omega)`` (1e-12), the
    normal part's share being both components of the resultant."""
    g = _geometry()
    depth = _scar(ALPHA + offset, 0.1 * C)
    p = model.pack_worn(g, depth)
    u = np.array([math.cos(ALPHA), math.sin(ALPHA)]); t = np.array([-u[1], u[0]])
    e = C * eps * u
    v = vr * u + 3e-4 * t                                        # approach and whirl
    fx, fy, tj, f_na, f_ta, f_nt = mx.mixed_parts_kernel(*e, *v, omega, p)
    assert (fx, fy, tj) == mx.mixed_kernel(*e, *v, omega, p)
    total = np.array([fx, fy])
    asp_normal = -f_na * u + f_nt * t
    asp = asp_normal + f_ta * t
    film = total - asp
    off = mx.bore_offset(p)
    sfx, sfy, _ = wf.short_film(*e, *v, omega, MU, R, L, C, p[4], p, off)
    scale = float(np.linalg.norm(total))
    np.testing.assert_allclose(film, [sfx, sfy], rtol=0, atol=1e-12 * scale)
    # the film alone would not carry the asperities' cross load: the split is not trivial
    assert abs(f_nt) > 1e-3 * scale
    p_total = -(total @ v + tj * omega)
    p_asp = -(asp_normal @ v)
    p_rest = -((total - asp_normal) @ v + tj * omega)
    assert p_asp + p_rest == pytest.approx(p_total, rel=1e-12, abs=1e-12 * abs(p_total))
    assert abs(f_nt * (t @ v)) > 1e-3 * abs(p_asp)               # the cross component does work


def test_the_circular_bore_has_no_cross_component(model):
    """On the unworn bore (the closed-form path) the asperity part has no cross component, and
    on a uniform wear (a larger clearance, no block) neither: the parts kernel returns 0.0 exactly."""
    g = _geometry()
    for p in (model.pack(g), model.pack_worn(g, np.full(NODES, 1e-6))):
        out = mx.mixed_parts_kernel(0.95 * C, 0.0, 0.0, 1e-3, 300.0, p)
        assert out[5] == 0.0 and out[3] > 0.0


def test_the_steady_journal_on_a_worn_bore_shares_its_load(model):
    """``steady_state`` on a worn bore with the scar off the load line: film and asperity shares
    are the magnitudes of the two parts, and the two vectors add up to the load (the force's
    magnitude is the load at the root: 1e-9)."""
    g = _geometry()
    p = model.pack_worn(g, _scar(0.3, 0.1 * C))
    st = mx.steady_state(p, 2000.0, 300.0)
    fe, ft, fa, fat, *_ = mx.mixed_parts.py_func(st["eps"] * C, 0.0, 0.0, 0.0, 300.0, p)
    assert math.hypot(fe + fa, ft + fat) == pytest.approx(2000.0, rel=1e-9)
    assert st["asperity_share"] == pytest.approx(math.hypot(fa, fat) / 2000.0, rel=1e-12)
    assert fat != 0.0


def test_the_solver_records_the_asperity_resultant_as_the_contact_force(model):
    """The seam: a free journal in a ground bushing with the off-centre scar, started at eps 0.95
    along ALPHA; at t = 0 the solver's contact force (the wear loop's load) is the magnitude of
    the asperity resultant, both components (1e-12), not its component along the line of
    centres alone (> 0.5 % apart), and the film force is the rest of the model's force."""
    from mechanisms import free_journal
    from workbench.mbs.solution import SolverSettings
    from workbench.mbs.solver import simulate
    mech = free_journal(build_registry(), model, journal_radius=R, clearance=C, length=L)
    u = np.array([math.cos(ALPHA), math.sin(ALPHA)]); t = np.array([-u[1], u[0]])
    e, v, w = 0.95 * C * u, 1e-4 * t, 300.0
    depth = _scar(ALPHA + 0.25, 0.1 * C)
    sim = simulate(mech, SolverSettings(t_end=1e-6, output_step=1e-6),
                   surfaces={0: (depth, np.zeros(NODES))}, initial=(np.array([*e, 0.0]), np.array([*v, w])))
    p = model.pack_worn(_geometry(), depth)
    fx, fy, tj, f_na, f_ta, f_nt = mx.mixed_parts_kernel(*e, *v, w, p)
    rec = float(np.asarray(sim.contact_force)[0, 0])
    assert rec == pytest.approx(math.hypot(f_na, f_nt), rel=1e-12)
    assert abs(rec - f_na) > 5e-3 * rec
    assert float(np.asarray(sim.friction_force)[0, 0]) == pytest.approx(f_ta, rel=1e-12)
    film = np.array([fx, fy]) - (-f_na * u + (f_nt + f_ta) * t)
    assert float(np.asarray(sim.film_force)[0, 0]) == pytest.approx(float(np.hypot(*film)), rel=1e-12)


def _asperity_potential(e, p, off):
    """The asperities' potential [J] on the kernel's nodes: ``V(e) = (R L K E* sigma / 3.5) sum_k
    F_7/2(h_k / sigma) dpsi`` with the exact ``F_7/2`` (``F_n' = -n F_(n-1)``: its gradient is minus
    the kernel's asperity force with the exact ``F_5/2``, Greenwood & Tripp (1970))."""
    M = int(p[off]); h0 = off + 2
    hw = p[h0:h0 + M]; cs = p[h0 + 2 * M:h0 + 3 * M]; sn = p[h0 + 3 * M:h0 + 4 * M]
    h = C + hw - (e[..., 0:1] * cs + e[..., 1:2] * sn)
    return R * L * p[6] * SIGMA / 3.5 * (2 * math.pi / M) * gt.F(3.5, h / SIGMA).sum(axis=-1)


def test_the_contact_energy_on_a_worn_bore_is_the_asperities_potential(model):
    """The energy books of the split: a free journal in a ground bushing with the off-centre scar,
    started at eps 0.93 (pressed into the asperities) moving across the line of centres and
    spinning; the asperities push it off (2 ms, eps down to 0.11).  The solver books the
    asperities' normal power ``-(F_n . v)`` with the contact energy; on this bore ``F_n`` has a
    cross component (up to 40 % of the asperity load here), so the contact energy is the
    asperities' potential change ``V(e(t)) - V(e(0))`` (exact ``F_7/2`` on the kernel's nodes)
    only when both components are booked.  Measured 1.5e-6 of V's range (7.4 mJ); asserted 1e-4
    (the F_5/2 table, 2.2e-6, and the solver's integrated power at rtol 1e-10).  The cross
    component's work along the path is 58 uJ (0.8 % of the range; asserted > 10 x the
    tolerance): booked with the film, as before, it fails.  The books close to 1e-9 of the
    initial kinetic energy (measured 8e-12)."""
    from mechanisms import free_journal
    from workbench.mbs.solution import SolverSettings
    from workbench.mbs.solver import simulate
    mech = free_journal(build_registry(), model, journal_radius=R, clearance=C, length=L)
    u = np.array([math.cos(ALPHA), math.sin(ALPHA)]); t = np.array([-u[1], u[0]])
    e0, v0, w = 0.93 * C * u, 2e-3 * t + 5e-4 * u, 50.0
    depth = _scar(ALPHA + 0.25, 0.1 * C)
    sim = simulate(mech, SolverSettings(t_end=2e-3, output_step=2e-5, rtol=1e-10, atol=1e-14),
                   surfaces={0: (depth, np.zeros(NODES))}, initial=(np.array([*e0, 0.0]), np.array([*v0, w])))
    assert sim.stats["events"] == 0                                 # the dry backstop never acts
    p = model.pack_worn(_geometry(), depth)
    ecc = np.asarray(sim.eccentricity)[:, 0]
    V = _asperity_potential(ecc, p, mx.bore_offset(p))
    dV = V - V[0]
    E_c = np.asarray(sim.contact_energy)
    rng = float(np.ptp(dV))
    assert rng > 1e-6                                               # J: the journal rides the asperities
    assert np.abs(E_c - E_c[0] - dV).max() < 1e-4 * rng, (np.abs(E_c - E_c[0] - dV).max(), rng)
    # the work of the cross component along the recorded path (the part booked with the film before)
    vel, tt = np.asarray(sim.velocity)[:, 0, :2], np.asarray(sim.time)
    cross = []
    for ek, vk in zip(ecc, vel):
        ue = ek / np.linalg.norm(ek)
        cross.append(-mx.mixed_parts_kernel(*ek, *vk, w, p)[5] * (vk @ np.array([-ue[1], ue[0]])))
    cross = np.array(cross)
    assert abs(np.sum(0.5 * (cross[1:] + cross[:-1]) * np.diff(tt))) > 10 * 1e-4 * rng
    KE, D = np.asarray(sim.kinetic_energy), np.asarray(sim.dissipated_energy)
    res = (KE - KE[0]) + (D - D[0]) + (E_c - E_c[0])
    assert np.abs(res).max() < 1e-9 * KE[0]
