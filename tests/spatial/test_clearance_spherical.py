"""The spherical clearance joint (ball in socket, :mod:`workbench.spatial.clearance`).

* Energy books with e = 1 and no friction: a ball flying about its socket in 3-D, several
  impacts; kinetic energy plus the work the contact absorbed stays constant to the integration
  tolerance, and that work returns to zero after every contact (elastic).
* Static ball under a load W: the equilibrium penetration against the Hertz closed form of a
  ball in a conforming socket, ``delta = (9 W^2 / (16 R* E*^2))^(1/3)``, ``1/R* = 1/R_ball -
  1/R_socket``, ``1/E* = (1 - nu_1^2)/E_1 + (1 - nu_2^2)/E_2`` (Johnson (1985) eqs. 4.22-4.23,
  with the concave socket's radius negative).
* Friction acts in the tangent plane: a spinning ball pressed into the socket loses spin, and the
  energy books close with the friction's dissipation.
"""
from __future__ import annotations

import numpy as np
import pytest

from spatial_clearance_models import ball_in_socket
from workbench.engines.spatial import Settings
from workbench.spatial import AppliedForce, simulate


def test_energy_books_elastic_impacts(registry):
    law = registry.create("contact", "lankarani_nikravesh", {"restitution": 1.0})
    mech = ball_in_socket(law, velocity=(0.5, 0.2, -0.3), angular_velocity=(10.0, -5.0, 3.0))
    sim = simulate(mech, Settings(t_end=0.01, output_step=1e-4, rtol=1e-11, atol=1e-14))
    books = sim.kinetic_energy + sim.contact_energy
    drift = np.abs(books - books[0]).max() / books[0]
    closed = sim.extras["clearance_point_record"][:, 0, 8] >= 0.0
    left = np.abs(sim.contact_energy[~closed]).max() / books[0]
    print(f"\nball in socket, e = 1: {len(sim.impact_time)} impacts, energy books drift {drift:.2g} of the "
          f"kinetic energy, contact work left after separations {left:.2g}")
    assert len(sim.impact_time) >= 4
    assert drift < 1e-9
    assert left < 1e-9
    # the contact starts are located: each closes with the penetration at zero
    assert np.all(sim.impact_velocity > 0.1)


def test_static_ball_against_hertz(registry):
    W, E, nu, Rs, Rb = 100.0, 207e9, 0.3, 0.0105, 0.0100
    # the ball starts touching at rest: the contact closes with no approach speed, so the
    # damping divides by the law's floor min_impact_speed, set here to damp the ball about
    # critically (linear stiffness 1.2e8 N/m at 100 N, 1 kg: c_crit = 2.2e4 N s/m = W chi / v_floor)
    law = registry.create("contact", "hunt_crossley", {"restitution": 0.3, "min_impact_speed": 5e-3})
    c = Rs - Rb
    mech = ball_in_socket(law, position=(0.0, -c, 0.0), forces=(AppliedForce("W", "ball", (0.0, -W, 0.0)),))
    sim = simulate(mech, Settings(t_end=0.005, output_step=5e-4, rtol=1e-10, atol=1e-13))
    Estar = 1.0 / (2.0 * (1.0 - nu ** 2) / E)
    Rstar = 1.0 / (1.0 / Rb - 1.0 / Rs)
    hertz = (9.0 * W ** 2 / (16.0 * Rstar * Estar ** 2)) ** (1.0 / 3.0)
    pen = sim.penetration[-1, 0]
    rel = abs(pen - hertz) / hertz
    print(f"\nball in socket under {W} N: penetration {pen:.9g} m, Hertz {hertz:.9g} m, relative error {rel:.2g}; "
          f"contact force {sim.contact_force[-1, 0]:.9g} N")
    assert abs(sim.contact_force[-1, 0] - W) < 1e-6 * W
    assert rel < 1e-6


def test_friction_in_the_tangent_plane(registry):
    law = registry.create("contact", "hunt_crossley", {"restitution": 0.3})
    fr = registry.create("friction", "coulomb", {"mu": 0.2})
    c = 0.0005
    W = 100.0
    mech = ball_in_socket(law, friction=fr, position=(0.0, -c, 0.0), angular_velocity=(0.0, 0.0, 50.0),
                          forces=(AppliedForce("W", "ball", (0.0, -W, 0.0)),))
    sim = simulate(mech, Settings(t_end=0.004, output_step=2e-4, rtol=1e-10, atol=1e-13))
    spin = sim.velocity[:, 0, 5]
    books = sim.kinetic_energy + sim.contact_energy + sim.dissipated_energy - sim.driver_work
    print(f"\nspinning ball: spin {spin[0]:.4g} -> {spin[-1]:.4g} rad/s, friction dissipated "
          f"{sim.extras['clearance_friction_energy'][-1]:.4g} J, books drift {np.ptp(books):.2g} J")
    assert spin[-1] < 0.8 * spin[0]
    assert sim.extras["clearance_friction_energy"][-1] > 0.0
    assert np.ptp(books) < 1e-8 * sim.kinetic_energy[0]


def test_first_impact_against_exudyn(registry):
    """Peer engine: Exudyn's ObjectContactSphereSphere with a hollow sphere on the same ball and
    socket (tests/reference/exudyn_ball_socket.py, no workbench imports), Lankarani-Nikravesh
    e = 0.9 as Exudyn's Hunt-Crossley with e_res = (1 + e^2)/2, generalized-alpha at a 1e-7 s step.
    The issue asks for 0.5 %; the two agree to 4e-7 (Exudyn's impact speed is stored one step late,
    which converges with its step)."""
    pytest.importorskip("exudyn")
    from reference.exudyn_ball_socket import first_impact
    from workbench.spatial.clearance.forces import contact_geometry
    law = registry.create("contact", "lankarani_nikravesh", {"restitution": 0.9})
    v0 = (0.3, 0.4, -0.2)
    mech = ball_in_socket(law, velocity=v0)
    K = law.pack(contact_geometry(mech.spatial_clearance_joints[0]))[0]
    sim = simulate(mech, Settings(t_end=2e-3, output_step=1e-4, rtol=1e-11, atol=1e-14))
    step = 1e-7
    t_exu, f_exu = first_impact(K=K, restitution=0.9, R_socket=0.0105, R_ball=0.0100, mass=1.0, v0=v0, step=step)
    ours_t, ours_f = sim.impact_time[0], sim.impact_peak_force[0]
    print(f"\nfirst impact: workbench t = {ours_t:.9g} s, peak {ours_f:.9g} N; Exudyn first step in contact "
          f"{t_exu:.9g} s, peak {f_exu:.9g} N ({f_exu / ours_f - 1:.2g})")
    assert ours_t <= t_exu < ours_t + 1.01 * step
    assert abs(f_exu / ours_f - 1) < 5e-3
    assert abs(f_exu / ours_f - 1) < 1e-5   # measured 4e-7
