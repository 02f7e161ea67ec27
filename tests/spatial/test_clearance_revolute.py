"""The revolute and cylindrical clearance joints of the spatial engine (journal in a bore, two
rims, misalignment; :mod:`workbench.spatial.clearance`).

* Zero tilt, in-plane load: the Flores slider-crank (``studies/flores_slider_crank.toml``, planar
  engine) written as the spatial R-U-P chain with the rod-slider joint a revolute clearance joint
  reproduces the planar engine: first impact time, approach speed and peak force to 1e-6; the
  trajectory to 1e-7 m (a quarter revolution at rtol 1e-10 here; two revolutions at rtol 1e-12
  in the slow test).
* Rim statics: a journal in a misaligned bore under a static load; the two rim forces against the
  statics of the two rim points (closed form): a load W at the axial offset a gives
  ``W (1/2 -+ a/L)``, a moment M across the axis gives ``M / (L cos phi - 2 R_j sin phi)`` on
  opposite rims (``phi`` the journal's angle to the bore, ``R_j`` its radius: the rim circle
  touches where it reaches farthest across the bore axis).
* Energy books with e = 1 and no friction for a journal flying in a tilted bore.
"""
from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from spatial_clearance_models import slider_crank
from workbench import engines
from workbench.engines.spatial import Settings
from workbench.models import Material
from workbench.spatial import AppliedForce, AppliedTorque, Body, SpatialMechanism, simulate
from workbench.spatial.clearance import ClearanceJoint
from workbench.study.load import load_study

STUDY = Path(__file__).resolve().parents[2] / "studies" / "flores_slider_crank.toml"
CLEARANCE_STUDY = STUDY.parent / "spatial_slider_crank_clearance.toml"


def _pair(registry, revolutions, rtol, atol):
    st = load_study(STUDY, registry=registry)
    s = dataclasses.replace(st.solver, output_step=1e-4, rtol=rtol, atol=atol, t_end=revolutions * 0.012)
    planar = engines.simulate(st.mechanism, s)
    spatial = engines.simulate(slider_crank(registry), dataclasses.replace(s, engine="spatial"))
    return planar, spatial


def _compare(planar, spatial, traj_tol):
    assert spatial.engine == "spatial" and planar.engine == "compiled"
    n = min(3, len(planar.impact_time))
    assert len(spatial.impact_time) == len(planar.impact_time) >= 1
    e_t = abs(spatial.impact_time[0] - planar.impact_time[0]) / planar.impact_time[0]
    e_v = np.abs(spatial.impact_velocity[:n] / planar.impact_velocity[:n] - 1).max()
    e_f = np.abs(spatial.impact_peak_force[:n] / planar.impact_peak_force[:n] - 1).max()
    e_x = np.abs(planar.position[:, :, :2] - spatial.position[:, :, :2]).max()
    out = np.abs(spatial.position[:, :, 2]).max()
    print(f"\nFlores slider-crank, spatial vs planar: {len(planar.impact_time)} impacts; first impact time "
          f"{e_t:.2g}, approach speeds {e_v:.2g}, peak forces {e_f:.2g} (relative, first {n}); trajectory "
          f"{e_x:.2g} m; out of plane {out:.2g} m; spatial {spatial.stats['rhs_calls']} rhs calls, "
          f"{spatial.stats['wall_time']:.3g} s")
    assert e_t < 1e-6 and e_v < 1e-6 and e_f < 1e-6
    assert e_x < traj_tol
    assert out < 1e-12


def test_flores_slider_crank_first_impacts(registry):
    # a quarter revolution, three impacts (~10 s); the two revolutions are the slow test below
    _compare(*_pair(registry, 0.25, 1e-10, 1e-13), traj_tol=1e-7)


@pytest.mark.slow   # ~100 s; test_flores_slider_crank_first_impacts keeps the check in the default suite
def test_flores_slider_crank_two_revolutions(registry):
    _compare(*_pair(registry, 2.0, 1e-12, 1e-15), traj_tol=1e-7)


def test_first_impact_against_exudyn(registry):
    """Peer engine: ``studies/spatial_slider_crank_clearance.toml`` (aligned bore) built in Exudyn
    with the same Lankarani-Nikravesh law and Ambrosio friction as a symbolic (C++) function of an
    ``ObjectConnectorRigidBodySpringDamper`` (tests/reference/exudyn_spatial_slider_crank.py, no
    workbench imports; the laws' packed parameters go in as numbers), generalized-alpha at a
    1e-7 s step: the first impact's time, approach speed and peak force.  Measured against the
    workbench at rtol 1e-12 (tests/benchmarks/bench_spatial_clearance.py): 1.2e-8, 1.1e-7, 4.8e-6
    (Exudyn's peak is its largest force at a step end, short of the true peak by up to a step)."""
    pytest.importorskip("exudyn")
    from reference.exudyn_spatial_slider_crank import clearance
    from workbench.spatial.clearance.forces import contact_geometry
    st = load_study(CLEARANCE_STUDY, registry=registry)
    cj = st.mechanism.spatial_clearance_joints[0]
    law, fric = cj.contact.pack(contact_geometry(cj)), cj.friction.pack()
    sim = engines.simulate(st.mechanism, dataclasses.replace(st.solver, t_end=4e-4, output_step=1e-4, rtol=1e-10,
                                                             atol=1e-13))
    ex = clearance(4e-4, 1e-7, law, fric)["impacts"]
    ours = np.array([sim.impact_time[0], sim.impact_velocity[0], sim.impact_peak_force[0]])
    rel = ex[0] / ours - 1.0
    print(f"\nfirst impact, workbench: t = {ours[0]:.10g} s, approach speed {ours[1]:.10g} m/s, peak {ours[2]:.10g} N; "
          f"Exudyn at 1e-7 s: {ex[0, 0]:.10g} s, {ex[0, 1]:.10g} m/s, {ex[0, 2]:.10g} N; relative {rel}")
    assert len(sim.impact_time) == len(ex) == 1
    assert abs(rel[0]) < 1e-6 and abs(rel[1]) < 1e-6
    assert -2e-5 < rel[2] <= 0.0


STEEL = Material(E=207e9, nu=0.3)


def _journal(registry, *, tilt=0.0, forces=(), torques=(), position=(0.0, 0.0, 0.0), velocity=(0.0, 0.0, 0.0),
             angular_velocity=(0.0, 0.0, 0.0), restitution=0.3, floor=5e-3, kind="cylindrical", L=0.02):
    law = registry.create("contact", "hunt_crossley", {"restitution": restitution, "min_impact_speed": floor})
    m = 1.0
    J = (m * (3 * 0.01 ** 2 + L ** 2) / 12, m * (3 * 0.01 ** 2 + L ** 2) / 12, m * 0.01 ** 2 / 2)
    body = Body("journal", m, J, position=position, velocity=velocity, angular_velocity=angular_velocity,
                points={"C": (0.0, 0.0, 0.0), "E": (0.0, 0.0, 0.004)})
    cj = ClearanceJoint("bearing", kind, "ground", "O", "journal", "C", 0.0105, 0.0100, law, axis_i=(0.0, 0.0, 1.0),
                        axis_j=(0.0, 0.0, 1.0), length=L, tilt=tilt, axial_clearance=1e-4 if kind == "revolute" else 0.0,
                        material_i=STEEL, material_j=STEEL)
    return SpatialMechanism((body,), forces=tuple(forces), torques=tuple(torques), ground_points={"O": (0.0, 0.0, 0.0)},
                            spatial_clearance_joints=(cj,))


def test_rim_forces_of_an_off_centre_load(registry):
    # the bore tilted by 0.05 deg about x; the journal (L = 20 mm) starts aligned with it, resting on
    # its lower side, and carries W = 100 N at a = 4 mm from its mid-length: both rims touch
    W, a, L, tilt = 100.0, 0.004, 0.02, math.radians(0.05)
    c = 0.0005
    zb = np.array([0.0, -math.sin(tilt), math.cos(tilt)])
    mech = _journal(registry, tilt=tilt, forces=(AppliedForce("W", "journal", (0.0, -W, 0.0), point="E"),),
                    position=(0.0, -c, 0.0))
    # start the journal aligned with the tilted bore: a rotation about x by the tilt
    body = dataclasses.replace(mech.bodies[0], quaternion=(math.cos(tilt / 2), math.sin(tilt / 2), 0.0, 0.0))
    mech = dataclasses.replace(mech, bodies=(body,))
    sim = simulate(mech, Settings(t_end=0.005, output_step=5e-4, rtol=1e-10, atol=1e-13))
    rec = sim.extras["clearance_point_record"][-1]
    f1, f2 = rec[0, 0], rec[1, 0]
    # statics of the two rim points (normals along -y up to the tilt, arms along the bore axis)
    e1 = abs(f1 - W * (0.5 - a / L)) / W
    e2 = abs(f2 - W * (0.5 + a / L)) / W
    print(f"\noff-centre load on a tilted journal: rim forces {f1:.9g}, {f2:.9g} N; statics {W * (0.5 - a / L):.9g}, "
          f"{W * (0.5 + a / L):.9g} N; errors {e1:.2g}, {e2:.2g} of W; axis . bore {zb @ sim_axis(sim):.12f}")
    # measured 1.7e-5: the unequal rim loads tilt the journal in the bore by (delta_2 - delta_1)/L,
    # about 5e-5 rad, which moves each rim's contact point by R_j phi along the axis (5e-5 of the arm
    # L/2); the statics of the two points without that shift hold to that order
    assert e1 < 2e-4 and e2 < 2e-4
    assert abs(f1 + f2 - W) < 1e-6 * W


def sim_axis(sim):
    q = sim.position[-1, 0, 3:]
    from workbench.spatial.rotation import rotation_matrix
    return rotation_matrix(q) @ np.array([0.0, 0.0, 1.0])


def test_rim_forces_of_a_moment_on_a_tilted_journal(registry):
    # a moment across the axis turns the journal until its rims touch on opposite sides (edge load):
    # each rim carries M / (L cos phi - 2 R_j sin phi), phi the journal's angle to the bore axis
    M, L, tilt, Rj, Rb = 5.0, 0.02, math.radians(0.5), 0.0100, 0.0105
    # start just short of the opposite-rim touch, (L/2) sin phi0 + R_j cos phi0 = R_b, so that the
    # rims close at a crawl and the damping (floor 2.5e-2 m/s: about critical for the tilt mode)
    # settles the journal within the run
    from scipy.optimize import brentq
    phi0 = brentq(lambda p: 0.5 * L * math.sin(p) + Rj * math.cos(p) - Rb, 0.0, 0.5) - 1e-6
    th = tilt + phi0
    mech = _journal(registry, tilt=tilt, torques=(AppliedTorque("M", "journal", (M, 0.0, 0.0)),), floor=2.5e-2)
    mech = dataclasses.replace(mech, bodies=(dataclasses.replace(mech.bodies[0], quaternion=(
        math.cos(th / 2), math.sin(th / 2), 0.0, 0.0)),))
    sim = simulate(mech, Settings(t_end=0.003, output_step=5e-4, rtol=1e-10, atol=1e-13))
    rec = sim.extras["clearance_point_record"][-1]
    zb = np.array([0.0, -math.sin(tilt), math.cos(tilt)])
    zj = sim_axis(sim)
    cphi = float(zb @ zj)
    # the rims touch where their circles reach farthest across the bore axis: X = P_j +- (L/2) z_j
    # + R_j u with u normal to z_j, so the arm of the normal force (across the bore axis, in the
    # plane of the tilt) along the bore axis is (L/2) cos phi - R_j sin phi, and the two rim forces
    # on opposite sides make the couple M = f (L cos phi - 2 R_j sin phi)
    sphi = math.sqrt(max(1.0 - cphi * cphi, 0.0))
    expect = M / (L * cphi - 2 * Rj * sphi)
    f1, f2 = rec[0, 0], rec[1, 0]
    print(f"\nmoment on a tilted journal: rim forces {f1:.9g}, {f2:.9g} N, statics M / (L cos phi - 2 R_j sin phi) "
          f"{expect:.9g} N "
          f"(phi = {math.degrees(math.acos(min(cphi, 1.0))):.4f} deg)")
    assert abs(f1 - expect) < 1e-6 * expect and abs(f2 - expect) < 1e-6 * expect


def test_energy_books_of_a_journal_in_a_tilted_bore(registry):
    mech = _journal(registry, tilt=math.radians(1.0), restitution=1.0, kind="revolute",
                    velocity=(0.3, -0.2, 0.05), angular_velocity=(2.0, 1.0, 30.0))
    sim = simulate(mech, Settings(t_end=0.01, output_step=1e-4, rtol=1e-11, atol=1e-14))
    books = sim.kinetic_energy + sim.contact_energy
    drift = np.abs(books - books[0]).max() / books[0]
    names = sim.extras["clearance_point_names"]
    hit = sorted({names[k] for k in sim.impact_point})
    print(f"\njournal in a tilted bore, e = 1: {len(sim.impact_time)} impacts at {hit}; energy books drift {drift:.2g}")
    assert len(sim.impact_time) >= 3
    assert drift < 1e-9
