"""The wear loop on a lubricated joint acts on the asperity (solid contact) load only.

Rig: ``studies/journal_wear_constant_load.toml`` (a rigid journal at 600 rpm in a fixed
Winkler-lined bushing, constant radial load 2 kN, frictionless, Archard, Winkler pressure), the
same joint dry and with the ``mixed_lubrication`` model (short-bearing film + Greenwood & Tripp
(1970) asperities; boundary friction 0 so that the rig stays frictionless; roughness 2 um on the
20 um clearance, 0.2 um for full film).  (A thicker oil at this roughness would need some
100 times the viscosity: a squeeze film so stiff against the 0.5 kg journal that the explicit
integrator crawls.)  The dynamics records the asperity load as the joint's contact force and the
film's force apart (``workbench.mbs.clearance.film_forces``); the loop reads the contact force.

Oracles:

* dry: docs/validation.md wear bookkeeping, ``V = k_d F s * (int p dtheta / int p cos theta
  dtheta)`` with the Winkler closed form (as ``tests/wear/test_wear_loop.py``);
* mixed: the same bookkeeping with the asperity load ``F_a`` in place of ``F``, where ``F_a`` is
  the asperity share of the steady journal (``workbench.lubrication.mixed.steady_state``: film
  + asperities carry the load; Greenwood & Tripp (1970) for the asperity pressure);
* full film: the asperities carry nothing (share 8e-10 at lambda = h_min / sigma = 4.4): no wear.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from workbench.lubrication import mixed as mx
from workbench.wear.loop import run_wear_study

from test_wear_loop import F, KD, R_J, rig, volume_rate, winkler_factor

CONTACT = 'contact = { model = "winkler_foundation", stiffness = 3.0e12, restitution = 0.3 }'
SIGMA = 2.0e-6        # m, composite roughness: a turned steel journal on a polymer liner
OMEGA = 20 * math.pi  # rad/s, the rig's 600 rpm


def _lubricated(registry, viscosity: float, sigma: float = SIGMA):
    lub = (f'\nlubrication = {{ model = "mixed_lubrication", viscosity = {viscosity!r}, '
           f'roughness = {sigma!r}, boundary_friction = 0.0 }}')
    # a 50 kg journal instead of 0.5 kg: the steady state does not depend on the mass, and the
    # squeeze film's damping over the mass (~1e7 1/s at 0.5 kg) set the explicit integrator's
    # step to ~1e-7 s (minutes per run); at 50 kg the film still damps the journal onto its
    # steady state well within the settling cycle (damping ratio ~2)
    return rig(registry, **{CONTACT: CONTACT + lub, "mass = 0.5\n": "mass = 50.0\n"})


def _steady_share(st, viscosity: float) -> dict:
    """The steady journal's load sharing with the study's own joint data (pack of the model)."""
    from workbench.mbs.mechanism import contact_geometry
    j = st.mechanism.clearance_joints[0]
    p = j.lubrication.pack(contact_geometry(j))
    assert p[0] == viscosity
    return mx.steady_state(p, F, OMEGA)


def test_mixed_joint_wears_by_its_asperity_load_only(registry, tmp_path):
    """One wear update each (the rig is steady): dry as before; mixed (0.01 Pa s, lambda 0.67)
    wears exactly as a dry joint carrying only the asperity load F_a, which is the asperity share
    of the steady journal (58.5 % here); in full film (the same oil on surfaces of 0.2 um roughness,
    lambda 4.4, asperity share 8e-10) it wears nothing to 1e-8 of the dry joint.
    Tolerances: the dynamics' mean load to 1e-8 of F_a (the journal has settled after the
    settling cycle; measured 2e-12), the volume to 2e-4 (720 nodes on the Winkler arc, as the dry
    check)."""
    dry = run_wear_study(rig(registry), registry=registry, out=tmp_path / "dry.zarr", max_updates=1)
    s = 2 * math.pi * R_J
    v_dry = volume_rate(dry)
    assert v_dry == pytest.approx(KD * F * s * winkler_factor(F)[1], rel=2e-4)
    assert "dyn_film_force" not in dry

    st = _lubricated(registry, 0.01)
    share = _steady_share(st, 0.01)
    assert 0.3 < share["asperity_share"] < 0.8 and share["lambda"] < 1.0      # mixed regime
    mixed = run_wear_study(st, registry=registry, out=tmp_path / "mixed.zarr", max_updates=1)
    fa = float(mixed.mean_contact_force.values[0, 0])
    assert fa == pytest.approx(share["asperity_share"] * F, rel=1e-8)
    v_mixed = volume_rate(mixed)
    assert v_mixed == pytest.approx(KD * fa * s * winkler_factor(fa)[1], rel=2e-4)
    assert 0.3 * v_dry < v_mixed < 0.8 * v_dry
    # the film's force is recorded apart: film + asperities carry the load (film force along
    # its own direction, asperities along the line of centres: |film| > F - F_a)
    film = mixed.dyn_film_force.isel(record=0).values[:, 0]
    assert np.all(film > F - fa) and np.all(film < F)
    assert mixed.dyn_film_force.attrs["units"] == "N" and mixed.dyn_film_force.attrs["long_name"]
    # provenance: each update's film and asperities run on the bore worn by the updates before it
    import json
    assert "worn bushing" in json.loads(mixed.attrs["lubrication_bore"])[st.mechanism.clearance_joints[0].name]

    # full film: the same oil on smoother surfaces (0.2 um, lapped): lambda 4.4
    st = _lubricated(registry, 0.01, sigma=0.2e-6)
    share = _steady_share(st, 0.01)
    assert share["lambda"] > 4.0 and share["asperity_share"] < 1e-8                 # full film
    full = run_wear_study(st, registry=registry, out=tmp_path / "full.zarr", max_updates=1)
    assert float(full.max_contact_force.values[0, 0]) < 1e-8 * F
    assert volume_rate(full) < 1e-8 * v_dry
    film = full.dyn_film_force.isel(record=0).values[:, 0]
    np.testing.assert_allclose(film, F, rtol=1e-4)       # the film alone carries the load


@pytest.mark.slow   # ~10 s (two wear updates); the default suite keeps the seam with
# tests/lubrication/test_worn_film_forces.py::test_a_worn_joint_in_the_dynamics_feels_the_kernel_on_its_profile
def test_the_second_update_runs_on_the_bore_the_first_wore(registry, tmp_path):
    """Two wear updates of the mixed rig (0.01 Pa s, lambda 0.67): the second update's journal
    settles where the film and asperities of the bore worn by the first update carry the 2 kN
    load, so its mean asperity load is that equilibrium's (the mixed model packed with the stored
    profile, ``pack_worn``; the equilibrium by a root search on the kernel); tolerance 1e-9 of the
    load (the journal's settling; measured 6e-13: 1243.157 N).  The first update's 1 um pocket under
    the load thickens the film where it carries, so the asperities carry more than on the nominal
    bore (1170.0 N, asserted > 100 times the tolerance away): a loop that kept the nominal film
    would fail."""
    from scipy.optimize import fsolve

    from workbench.mbs.mechanism import contact_geometry
    st = _lubricated(registry, 0.01)
    ds = run_wear_study(st, registry=registry, out=tmp_path / "two.zarr", max_updates=2)
    assert ds.sizes["cycle"] >= 2
    hb = ds.wear_depth.isel(cycle=1).sel(surface="bushing").values[0]   # the bore of update 1
    assert hb.max() > 1e-7
    j = st.mechanism.clearance_joints[0]
    m, g = j.lubrication, contact_geometry(j)
    parts = type(m).parts_kernel

    def equilibrium(p):
        def residual(e):
            fx, fy, *_ = parts(e[0] * 1e-6, e[1] * 1e-6, 0.0, 0.0, OMEGA, p)
            return [fx / F, (fy - F) / F]
        e0 = ds.dyn_eccentricity.isel(record=-1).values[-1, 0] * 1e6
        e = fsolve(residual, e0, xtol=1e-13) * 1e-6
        assert max(map(abs, residual(e * 1e6))) < 1e-10
        out = parts(e[0], e[1], 0.0, 0.0, OMEGA, p)
        return math.hypot(out[3], out[5])      # the asperity load: both components of its resultant

    f_worn = equilibrium(m.pack_worn(g, hb))
    f_nominal = equilibrium(m.pack(g))
    fa = float(ds.mean_contact_force.isel(cycle=1).values[0])
    assert fa == pytest.approx(f_worn, abs=1e-9 * F)
    assert abs(f_nominal - f_worn) > 100 * 1e-9 * F
    assert "worn bushing" in ds.attrs["lubrication_bore"]


def test_a_finite_bearing_wear_run_runs_on_the_worn_bore(registry, tmp_path):
    """The finite bearing in the wear loop (workbench.lubrication.worn_finite): the rig with a
    film too thin to carry the 2 kN (0.1 mPa s: the film saturates at eps_cap, the Winkler backstop
    carries the rest, so the bushing wears), two updates.  The second update's dynamics runs on
    the bore the first wore: the film force it records at the settled journal is the kernel's on
    the packed worn profile (1e-6 of it: the journal's residual motion, which the kernel call
    here leaves out; measured 5e-7) and not the circular table's (asserted > 1e-3 off; measured
    87 %: the journal sits at eps 1.41 in the liner, where the film is held at its floor, and on
    the worn bore the floor is met at the pocket's edge: 23.6 N against 180.6 N); the store says
    what the film saw, and the 1 um pocket on the 20 um clearance raises no worn-film flag."""
    lub = '\nlubrication = { model = "finite_bearing", viscosity = 1.0e-4 }'
    st = rig(registry, **{CONTACT: CONTACT + lub, "mass = 0.5\n": "mass = 50.0\n"})
    ds = run_wear_study(st, registry=registry, out=tmp_path / "finite.zarr", max_updates=2)
    assert ds.sizes["cycle"] >= 2
    assert "harmonic" in ds.attrs["lubrication_bore"]
    assert not any("worn film" in w for w in json.loads(ds.attrs.get("validity_warnings", "[]")))
    hb = ds.wear_depth.isel(cycle=1).sel(surface="bushing").values[0]    # the bore update 2 ran on
    assert ds.sizes["record"] >= 2                          # update 2 recorded its dynamics
    assert hb.max() > 1e-7 and hb.max() - hb.min() > 1e-7
    from workbench.mbs.mechanism import contact_geometry
    j = st.mechanism.clearance_joints[0]
    m, g = j.lubrication, contact_geometry(j)
    e = ds.dyn_eccentricity.isel(record=-1).values[-1, 0]
    rec = float(ds.dyn_film_force.isel(record=-1).values[-1, 0])
    fw = type(m).kernel(e[0], e[1], 0.0, 0.0, OMEGA, m.pack_worn(g, hb))
    fn = type(m).kernel(e[0], e[1], 0.0, 0.0, OMEGA, m.pack(g))
    assert rec == pytest.approx(math.hypot(fw[0], fw[1]), rel=1e-6)
    assert abs(rec - math.hypot(fn[0], fn[1])) > 1e-3 * rec
