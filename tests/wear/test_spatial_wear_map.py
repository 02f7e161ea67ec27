"""Worn maps of a spatial journal bearing (issue 29): the tilted journal under a constant load.

The rig (:func:`workbench.wear.spatial_samples.constant_load_rig`): a rigid journal (R_j = 10 mm,
length L = 10 mm) turns at 600 rpm in a fixed bushing lined with a Winkler layer (k_w = 3e12 Pa/m,
radial clearance c = 20 um), pressed by a constant load W along theta_L = -90 deg, its axis tilted
by tau against the bore in the load's plane.  Archard's law ``dh = k_d p ds``, all of it on the
bushing.

**Closed form (rigid tilted cylinder on a Winkler layer).**  The journal's axis is the line
``e(z) = (c + delta0 + z tan tau)`` along the load, so its surface penetrates the layer by
``u(theta, z) = (c + delta(z)) cos(theta - theta_L) - c`` with ``delta(z) = delta0 + z tan tau``.
Along the load line the pressure is ``p(z) = k_w max(0, delta0 + z tan tau)`` and, integrated over
the contact arc ``|theta - theta_L| < alpha(z)``, ``cos alpha = c / (c + delta)``, the slice
carries ``q(delta) = k_w R (c + delta)(alpha - sin alpha cos alpha)`` per unit length (the
planar Winkler closed form of ``studies/journal_wear_constant_load.toml`` slice by slice).
``delta0`` is fixed by the load: ``W = int_{-L/2}^{L/2} q(delta(z)) dz``.  The journal's surface
slides ``s = 2 pi R_j`` per cycle over every bushing point it presses, so the first update's depth
rate along the load line is ``k_d s k_w max(0, delta0 + z tan tau)``: the loaded edge wears first,
and the groove's taper is ``k_d s k_w tan tau`` per cycle wherever the line touches.
"""
from __future__ import annotations

import math
import types

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import brentq

from workbench.wear.spatial_loop import SpatialWearConfig, groove_taper, run_spatial_wear
from workbench.wear.spatial_samples import constant_load_rig

from spatial_wear_rig import C, K, KD, L, R_I, R_J, RPM, ball_joint, study


def slice_load(delta: float) -> float:
    """``q(delta)`` [N/m] of the module docstring."""
    if delta <= 0.0:
        return 0.0
    a = math.acos(C / (C + delta))
    return K * R_I * (C + delta) * (a - math.sin(a) * math.cos(a))


def delta0(W: float, tilt: float) -> float:
    """Mid-length penetration [m] of the tilted journal carrying ``W`` [N] (module docstring)."""
    tt = math.tan(tilt)

    def excess(d0):
        lo = max(-0.5 * L, -d0 / tt) if tt > 0.0 else -0.5 * L
        return quad(lambda z: slice_load(d0 + z * tt), lo, 0.5 * L, limit=200, epsabs=0.0, epsrel=1e-8)[0] - W
    return brentq(excess, -0.5 * L * tt + 1e-15, 1e-4, xtol=1e-18, rtol=1e-14)


def first_rate(ds):
    """Bushing depth rate of the first update along the load line (theta = 270 deg) [m/cycle]."""
    r = ds.wear_rate.isel(cycle=0, joint=0).sel(surface="bushing")
    return r.sel(theta=1.5 * math.pi, method="nearest").values


def test_tilted_journal_wears_the_edge_first_along_the_winkler_closed_form(registry, tmp_path):
    W, tilt = 300.0, math.radians(0.1)          # the line touches over 0.39 of the length
    ds = run_spatial_wear(study(registry), out=tmp_path / "tilt.zarr", source=constant_load_rig(W, tilt, RPM, 2),
                          max_updates=1)
    z = ds.z.values
    rate = first_rate(ds)
    d0 = delta0(W, tilt)
    expected = KD * 2.0 * math.pi * R_J * K * np.maximum(0.0, d0 + z * math.tan(tilt))
    # edge first: the end z = +L/2 wears most, the far end not at all (the line is off the layer there)
    assert rate[-1] == rate.max() > 0.0 and rate[0] == 0.0
    z_front = -d0 / math.tan(tilt)               # where the line leaves the layer: inside the bearing
    assert -0.4 * L < z_front < 0.4 * L
    # the closed form to 1e-3 of the edge's rate (measured 5.0e-4): 360 angle nodes carry the
    # slices' loads to ~(dtheta/alpha)^2 ~ 3e-4 (alpha ~ 10-20 deg), which moves delta0 by that fraction
    assert np.max(np.abs(rate - expected)) < 1e-3 * expected.max()
    # the taper where the line touches is k_d s k_w tan(tau) per cycle: exact on the nodes (the node
    # at the load line sees u = delta0 + z tan tau, linear in z wherever it is positive, whatever
    # the discretisation does to delta0; measured 7e-16)
    touch = expected > 0.05 * expected.max()
    assert groove_taper(rate[touch], z[touch]) == pytest.approx(KD * 2 * math.pi * R_J * K * math.tan(tilt), rel=1e-9)
    # the map carries the load: the mean contact force is W
    assert float(ds.mean_contact_force.values[0, 0]) == pytest.approx(W, rel=1e-12)


def test_the_groove_takes_the_journal_tilt_as_it_wears(registry, tmp_path):
    """With the worn map fed back into the gap, along the load line (the whole length in contact)
    ``dh/dN = k_d s (p)`` with ``p = k_w (delta0(N) + z tan tau - h)``, so the taper ``h_z`` obeys
    ``d h_z/dN = a (tan tau - h_z)``, ``a = k_d s k_w``: ``h_z = tan tau (1 - exp(-a N))``, whatever
    ``delta0(N)`` the load balance gives.  The loop's jumps are explicit Euler steps in ``N``: with
    ``depth_step = 0.02`` (0.4 um per update, 10 updates to 2000 cycles) ``a dN`` stays below 0.04,
    and the taper is checked to 1.5 % of ``tan tau`` (the Euler error ``~ a dN / 2`` per step; over
    4000 cycles measured 0.75 %, and 0.37 % at half the depth step: first order, as an Euler step
    should be).  36 angle nodes suffice: the closed form holds on the node at the load line
    whatever the discretisation does to ``delta0``."""
    W, tilt = 2000.0, math.radians(0.05)
    a = KD * 2.0 * math.pi * R_J * K
    ds = run_spatial_wear(study(registry, nodes=36, z_nodes=5, cycles=2000.0, depth_step=0.02),
                          out=tmp_path / "taper.zarr", source=constant_load_rig(W, tilt, RPM, 2))
    h = ds.wear_depth.isel(joint=0).sel(surface="bushing").sel(theta=1.5 * math.pi, method="nearest").values
    N = ds.cycle.values
    taper = np.array([groove_taper(x, ds.z.values) for x in h])
    expected = math.tan(tilt) * (1.0 - np.exp(-a * N))
    assert N[-1] == 2000.0 and len(N) >= 10
    # a third of the way to the journal's tilt, and visibly not the unworn rate's linear growth
    assert expected[-1] > 0.3 * math.tan(tilt) and a * N[-1] * math.tan(tilt) - expected[-1] > 0.05 * math.tan(tilt)
    assert np.max(np.abs(taper - expected)) < 0.015 * math.tan(tilt)
    # the groove is deepest at the loaded edge throughout
    assert np.all(h[1:, -1] > h[1:, 0])


def test_zero_tilt_wears_a_uniform_groove_equal_to_the_planar_profile(registry, tmp_path):
    """An aligned journal: every slice of the map is the planar loop's profile (the planar Winkler
    plugin on the same section and load, :func:`workbench.wear.increment.wear_rate`)."""
    from workbench.wear.increment import ContactSamples, wear_rate
    from workbench.wear.surfaces import WornJoint
    W = 2000.0
    st = study(registry, nodes=360, z_nodes=5)
    ds = run_spatial_wear(st, out=tmp_path / "flat.zarr", source=constant_load_rig(W, 0.0, RPM, 2), max_updates=1)
    m = ds.wear_rate.isel(cycle=0, joint=0).sel(surface="bushing").values          # (theta, z)
    jt = st.mechanism.spatial_clearance_joints[0]
    planar = types.SimpleNamespace(name="J", bushing_radius=R_I, journal_radius=R_J, length=L,
                                   bushing_material=jt.material_i, journal_material=jt.material_j)
    worn = WornJoint.fresh(planar, 360)
    ns = 4
    t = np.arange(ns) * (60.0 / RPM / 2)
    samples = ContactSamples(force=np.full(ns, W), friction=np.zeros(ns), angle=np.full(ns, -0.5 * math.pi),
                             phi_rel=2 * math.pi * RPM / 60 * t, slip=np.full(ns, 2 * math.pi * R_J / 2),
                             penetration=np.zeros(ns), time=t)
    ref = wear_rate(worn, samples, 2, st.wear.pressure, st.wear.law, 1.0).depth_bushing
    assert ref.max() > 0.0
    # uniform along z to rounding, and the planar profile to the two equilibrium solvers' rounding
    # (both Newton iterations end on the same active set; measured 0 and 1.0e-15)
    assert np.max(np.abs(m - m[:, :1])) <= 1e-12 * m.max()
    assert np.max(np.abs(m[:, 2] - ref)) < 1e-12 * ref.max()


def test_a_worn_map_opens_the_rims_of_the_spatial_contact(registry):
    """The spatial clearance contact takes the map's depth at each rim off its penetration: a map
    ``h = h0 + g z`` (bushing) opens the rims of an aligned journal at ``z = -L/2, +L/2`` by
    ``h0 -+ g L/2``; the shoulders are unchanged.  (A tilted journal's rim point sits
    ``R_j sin tau`` nearer the middle: its opening is the map there.)"""
    from spatial_clearance_models import slider_crank
    from workbench.spatial.clearance.forces import Clearances
    from workbench.spatial.model import Model
    from workbench.wear.spatial_map import WornMap
    mech = slider_crank(registry)
    model = Model(mech)
    jt = mech.spatial_clearance_joints[0]
    w = WornMap.fresh(jt, 72, 6)
    h0, g = 3e-6, 2e-4
    w.h_bushing[:] = h0 + g * w.z[None, :]
    from workbench.spatial.solver import initial_state
    y = initial_state(model, 0.0)
    y[1] += 2e-4                                   # the journal's rod moved off-centre: rims at some angle
    kin = model.kinematics(y)
    plain = Clearances(model, mech.spatial_clearance_joints, compiled=False).gaps(kin)[0]
    worn = Clearances(model, mech.spatial_clearance_joints, compiled=False, worn={0: w}).gaps(kin)[0]
    assert plain - worn == pytest.approx([h0 - g * L / 2, h0 + g * L / 2, 0.0, 0.0], abs=1e-15)
    # the compiled contact points (the wear loop's dynamics) take the same depths off
    fast = Clearances(model, mech.spatial_clearance_joints, compiled=True, worn={0: w}).gaps_fast(y)[0]
    assert fast == pytest.approx(worn, abs=1e-15)


def _turned_states(model, y0, rng, n):
    """``n`` states near ``y0``: bodies moved by up to 0.2 mm and turned by up to ~0.3 rad about
    random axes (unit quaternions), so rims, turns and tilts sweep the maps."""
    nb = model.nb
    out = []
    for _ in range(n):
        y = y0.copy()
        y[:3 * nb] += rng.uniform(-2e-4, 2e-4, 3 * nb)
        for b in range(nb):
            q = y[3 * nb + 4 * b:3 * nb + 4 * b + 4] + rng.uniform(-0.15, 0.15, 4)
            y[3 * nb + 4 * b:3 * nb + 4 * b + 4] = q / np.linalg.norm(q)
        out.append(y)
    return out


def test_the_compiled_map_lookup_takes_the_python_paths_depths(registry):
    """The compiled lookup of the worn depths (:mod:`workbench.spatial.clearance.worn_kernels`,
    the wear loop's dynamics) against the Python path (:meth:`WornView.depth`), on random maps of
    bushing and journal (uneven in angle and along the bore) of a tilted journal and a worn ball
    socket, over 40 states that turn the journal and sweep the rims over the maps (clipped ends
    included): the same penetrations to 1e-15 m (the same formulas; the last bits differ by the
    order of a sum).  A wild trial state does not raise."""
    from spatial_clearance_models import ball_in_socket, slider_crank
    from workbench.spatial.clearance.forces import Clearances
    from workbench.spatial.model import Model
    from workbench.spatial.solver import initial_state
    from workbench.wear.spatial_cap import WornCap
    from workbench.wear.spatial_map import WornMap
    rng = np.random.default_rng(29)
    mech = slider_crank(registry, tilt=0.02)
    model = Model(mech)
    w = WornMap.fresh(mech.spatial_clearance_joints[0], 90, 7)
    w.h_bushing[:] = rng.uniform(0.0, 5e-6, w.shape)
    w.h_journal[:] = rng.uniform(0.0, 2e-6, w.shape)
    ball = ball_in_socket(registry.create("contact", "hertz", {}), position=(3e-4, 1e-4, 0.0))
    bmodel = Model(ball)
    cap = WornCap.fresh(ball.spatial_clearance_joints[0], 72, 36)
    cap.h_bushing[:] = rng.uniform(0.0, 4e-6, cap.shape)
    for mdl, mch, worn in ((model, mech, {0: w}), (bmodel, ball, {0: cap})):
        ref = Clearances(mdl, mch.spatial_clearance_joints, compiled=False, worn=worn)
        fast = Clearances(mdl, mch.spatial_clearance_joints, compiled=True, worn=worn)
        plain = Clearances(mdl, mch.spatial_clearance_joints, compiled=True)
        for y in _turned_states(mdl, initial_state(mdl, 0.0), rng, 40):
            g_ref = ref.gaps(mdl.kinematics(y))[0]
            g_fast = fast.gaps_fast(y)[0]
            assert g_fast == pytest.approx(g_ref, abs=1e-15)
            assert np.all(plain.gaps_fast(y)[0] - g_fast >= 0.0)     # wear only opens the gap
        # a wild trial stage of the integrator (a body flung to 1e300 m: the ball's normal is 0)
        # gets a penetration, not an exception (its step is rejected)
        wild = initial_state(mdl, 0.0)
        wild[:3] = 1e300
        fast.gaps_fast(wild)


def test_a_ball_wears_its_socket_along_the_winkler_cap_closed_form(registry, tmp_path):
    """A ball (R_j = 10 mm) spinning at omega = 2 pi / 0.1 s about z in a socket lined with the
    rig's Winkler layer, pressed along x by W = 2 kN.  The cap carries
    ``W = 2 pi k_w R_i^2 (e (1 - cos^3 alpha)/3 - c sin^2 alpha / 2)``, ``cos alpha = c/e``
    (``p = k_w (e cos gamma - c)`` integrated over the cap, ``gamma`` from the load), and each socket
    node in direction ``n`` wears ``k_d k_w max(0, e n_x - c) |omega x n| R_j T`` per cycle
    (its own slip: the spin's poles do not slide).  144 x 72 nodes (2.5 deg): 3.0e-5 of the
    deepest rate (7.7e-6 at twice the nodes: second order); checked to 1e-4."""
    from workbench.wear.spatial_samples import ball_rig
    W, T = 2000.0, 0.1
    omega = 2.0 * math.pi / T
    st = study(registry, nodes=144, z_nodes=72, cycles=1000.0, joint=ball_joint(registry))
    ds = run_spatial_wear(st, out=tmp_path / "ball.zarr", source=ball_rig([W, 0.0, 0.0], [0.0, 0.0, omega], 2, T),
                          max_updates=1)
    assert ds.wear_depth.dims == ("cycle", "joint", "surface", "theta", "phi")

    def load(e):
        ca = C / e
        return 2 * math.pi * K * R_I ** 2 * (e * (1 - ca ** 3) / 3 - C * (1 - ca ** 2) / 2) - W
    e = brentq(load, C * (1 + 1e-12), 2 * C, xtol=1e-20, rtol=1e-15)
    assert 30.0 < math.degrees(math.acos(C / e)) < 60.0          # a cap of ~45 deg, many nodes across
    th, ph = np.meshgrid(ds.theta.values, ds.phi.values, indexing="ij")
    n = np.stack([np.sin(ph) * np.cos(th), np.sin(ph) * np.sin(th), np.cos(ph)], axis=-1)
    slip = np.linalg.norm(np.cross([0.0, 0.0, omega], n), axis=-1) * R_J * T
    expected = KD * K * np.maximum(0.0, e * n[..., 0] - C) * slip
    rate = ds.wear_rate.isel(cycle=0, joint=0).sel(surface="bushing").values
    assert np.max(np.abs(rate - expected)) < 1e-4 * expected.max()


def test_a_worn_cap_opens_the_ball_contact(registry):
    """The ball's penetration loses the socket's depth in the contact direction."""
    from spatial_clearance_models import ball_in_socket
    from workbench.spatial.clearance.forces import Clearances
    from workbench.spatial.model import Model
    from workbench.spatial.solver import initial_state
    from workbench.wear.spatial_cap import WornCap
    mech = ball_in_socket(registry.create("contact", "hertz", {}), position=(3e-4, 1e-4, 0.0))
    model = Model(mech)
    cap = WornCap.fresh(mech.spatial_clearance_joints[0], 72, 36)
    cap.h_bushing[:] = 2e-6 * np.cos(cap.theta)[:, None] ** 2     # deepest along +-x
    kin = model.kinematics(initial_state(model, 0.0))
    plain = Clearances(model, mech.spatial_clearance_joints, compiled=False).gaps(kin)[0]
    worn = Clearances(model, mech.spatial_clearance_joints, compiled=False, worn={0: cap}).gaps(kin)[0]
    d = np.array([3e-4, 1e-4, 0.0])
    assert plain[0] - worn[0] == pytest.approx(cap.depth_dir(d), rel=1e-12)
    assert 0.5e-6 < cap.depth_dir(d) < 2e-6                             # the map, interpolated, not 0 or the peak
