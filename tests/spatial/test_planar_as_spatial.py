"""A planar mechanism written as a spatial one reproduces the planar engine: the Flores
slider-crank with ideal joints (``studies/ideal_slider_crank.toml``; the spatial model is the
R-U-S-P chain of :mod:`slider_crank`), two crank revolutions at 5000 rpm, both engines at
rtol = 1e-12, atol = 1e-15: positions to 1e-9 m, crank moment to 1e-7 of its peak."""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from slider_crank import mechanism  # noqa: E402

from workbench import engines  # noqa: E402
from workbench.study.load import load_study  # noqa: E402

STUDY = Path(__file__).resolve().parents[2] / "studies" / "ideal_slider_crank.toml"


@pytest.fixture(scope="module")
def pair(registry_module):
    st = load_study(STUDY, registry=registry_module)
    s = dataclasses.replace(st.solver, output_step=1e-4, rtol=1e-12, atol=1e-15)
    planar = engines.simulate(st.mechanism, s)
    spatial = engines.simulate(mechanism(), dataclasses.replace(s, engine="spatial"))
    return planar, spatial


@pytest.fixture(scope="module")
def registry_module():
    from workbench.plugins import build_registry
    return build_registry()


def test_positions_agree_to_a_nanometre(pair):
    planar, spatial = pair
    assert spatial.engine == "spatial" and planar.engine == "compiled"
    assert planar.time.shape == spatial.time.shape and planar.time[-1] == pytest.approx(0.024)
    err_xy = np.abs(planar.position[:, :, :2] - spatial.position[:, :, :2]).max()
    phi = 2 * np.arctan2(spatial.position[:, :, 6], spatial.position[:, :, 3])
    err_phi = np.abs(np.angle(np.exp(1j * (planar.position[:, :, 2] - phi)))).max()
    out_of_plane = np.abs(spatial.position[:, :, 2]).max()
    print(f"\nplanar-as-spatial: |dx, dy| max {err_xy:.3g} m, |dphi| max {err_phi:.3g} rad, "
          f"|z| max {out_of_plane:.3g} m")
    assert err_xy < 1e-9
    assert err_phi < 1e-9
    assert out_of_plane < 1e-12


def test_crank_moment_agrees_to_1e_7(pair):
    planar, spatial = pair
    m_p, m_s = planar.driver_load[:, 0], spatial.driver_load[:, 0]
    rel = np.abs(m_p - m_s).max() / np.abs(m_p).max()
    print(f"\ncrank moment: peak {np.abs(m_p).max():.6g} N m, max |difference| / peak {rel:.3g}")
    assert rel < 1e-7


def test_energy_books_close(pair):
    _, s = pair
    books = s.kinetic_energy + s.potential_energy + s.dissipated_energy - s.driver_work
    assert np.abs(books - books[0]).max() < 1e-8 * np.abs(s.driver_work).max()
    assert s.stats["quaternion_drift"] < 1e-12
