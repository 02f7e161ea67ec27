"""FE meshes and condensed compliances (workbench.fem.mesh, workbench.fem.compliance)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.errors import WorkbenchError
from workbench.fem.compliance import ElasticPart
from workbench.fem.mesh import bushing_mesh, load_mesh, pin_mesh, rotation_order, surface_nodes
from workbench.models import Material

STEEL = Material(200e9, 0.3)


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))


def test_meshes_have_uniform_named_surfaces_and_rotation_order():
    b = bushing_mesh(0.01, 0.03, 96)
    p = pin_mesh(0.0099, 96)
    nodes, th = surface_nodes(b, "bore")
    assert np.array_equal(nodes, np.arange(96))
    assert np.allclose(np.diff(th), 2 * math.pi / 96)
    assert np.allclose(np.hypot(*b.p[:, nodes]), 0.01)
    pn, _ = surface_nodes(p, "surface")
    assert np.allclose(np.hypot(*p.p[:, pn]), 0.0099)
    outer = np.unique(b.facets[:, b.boundaries["outer"]])
    assert np.allclose(np.hypot(*b.p[:, outer]), 0.03)
    # ring counts halve away from the surface; the mesh repeats with the coarsest ring's count
    assert rotation_order(b, 96) == len(outer) < 96
    centre = p.p.shape[1] - 1
    ring = np.unique(p.t[:, np.any(p.t == centre, axis=0)])
    assert rotation_order(p, 96) == len(ring) - 1 < 96
    # the triangles tile the polygons spanned by the boundary nodes exactly
    def poly(r, m):
        return 0.5 * m * r ** 2 * math.sin(2 * math.pi / m)
    for mesh, area in ((b, poly(0.03, len(outer)) - poly(0.01, 96)), (p, poly(0.0099, 96))):
        x, y = mesh.p[0, mesh.t], mesh.p[1, mesh.t]
        a = 0.5 * np.abs((x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]))
        assert a.min() > 1e-3 * a.max() ** 1  # no degenerate triangles
        assert a.sum() == pytest.approx(area, rel=1e-12)


def test_mesh_round_trip_through_file_keeps_boundaries(tmp_path):
    b = bushing_mesh(0.01, 0.02, 48)
    path = tmp_path / "bushing.vtu"
    b.save(str(path))
    again = load_mesh(path)
    n1, _ = surface_nodes(again, "bore")
    assert len(n1) == 48 and "outer" in again.boundaries
    with pytest.raises(WorkbenchError, match="no boundary named 'surface'"):
        surface_nodes(again, "surface")


def test_lame_uniform_pressure_on_bore():
    """Mode 0 against the Lame solution of a plane-strain annulus (bore radius a, held at r = b).

    u = A r + B/r with u(b) = 0 and sigma_rr(a) = -p gives u(a) = B (1/a - a/b^2),
    B = p / (2(lam+mu)/b^2 + 2mu/a^2).  Linear triangles with 96 bore nodes: 0.5 % tolerance
    (the observed discretisation error is about 0.1 %)."""
    a, bb, n, p = 0.01, 0.02, 96, 1e6
    part = ElasticPart(bushing_mesh(a, bb, n), STEEL, "bushing")
    C = part.compliance()
    u = C @ np.full(n, p * a * 2 * math.pi / n)  # nodal line loads of a uniform pressure
    E, nu = STEEL.E, STEEL.nu
    lam, mu = E * nu / ((1 + nu) * (1 - 2 * nu)), E / (2 * (1 + nu))
    B = p / (2 * (lam + mu) / bb ** 2 + 2 * mu / a ** 2)
    exact = B * (1 / a - a / bb ** 2)
    assert np.allclose(u, exact, rtol=5e-3)


def test_symmetric_build_equals_unit_load_solves_and_cache_reloads(tmp_path):
    part = ElasticPart(bushing_mesh(0.01, 0.02, 64), STEEL, "bushing")
    C_sym, q = part.compute_compliance()
    C_full, q_full = part.compute_compliance(use_symmetry=False)
    assert q < q_full == 64
    assert np.allclose(C_sym, C_full, rtol=1e-9, atol=1e-12 * np.abs(C_full).max())
    assert np.allclose(C_sym, C_sym.T)
    assert np.all(np.linalg.eigvalsh(C_sym) > 0)
    C1 = part.compliance()
    files = list((tmp_path / "cache").glob("compliance-bushing-*.npy"))
    assert len(files) == 1
    np.save(files[0], 2 * C1)  # tamper: a reload must read the file, not recompute
    assert np.allclose(part.compliance(), 2 * C1)


def test_pin_compliance_has_no_mode_one_and_is_positive_otherwise():
    """A free pin's surface: mode 1 (rigid translation) is removed; every other mode is stiff."""
    n = 64
    part = ElasticPart(pin_mesh(0.01, n), STEEL, "pin")
    C = part.compliance()
    th = part.theta
    assert np.allclose(C @ np.cos(th), 0, atol=1e-10 * np.abs(C).max())
    w = np.linalg.eigvalsh(C)
    assert np.sum(np.abs(w) < 1e-8 * w.max()) == 2
    assert w.min() > -1e-10 * w.max()


def test_rigid_part_has_no_fe_model():
    with pytest.raises(WorkbenchError, match="rigid"):
        ElasticPart(pin_mesh(0.01, 32), Material(rigid=True), "pin")


def test_vtu_export_matches_condensed_compliance(tmp_path):
    """The exported bore displacement is the condensed compliance applied to the same loads, and
    the stresses near the load are compressive (radial load on the bore)."""
    import meshio

    from workbench.fem.contact import ContactSolver
    from workbench.fem.export import export_vtu
    from workbench.fem.joint import JointModel

    n, R, dR = 96, 0.01, 2e-5
    model = JointModel(R, R - dR, 2 * R, n, STEEL, STEEL)
    th = 2 * np.pi * np.arange(n) / n
    res = ContactSolver(model.compliance(), th, R, 0.01).solve(np.full(n, dR), load=[2e4, 0.0])
    paths = export_vtu(tmp_path / "contact", model, res.pressure)
    assert [p.name for p in paths] == ["contact_bushing.vtu", "contact_pin.vtu"]
    m = meshio.read(paths[0])
    part = model.bushing_part()
    u = m.point_data["displacement"]
    ur = u[part.nodes, 0] * np.cos(th) + u[part.nodes, 1] * np.sin(th)
    expected = part.compliance() @ (res.pressure * R * 2 * np.pi / n)
    assert np.allclose(ur, expected, atol=1e-9 * np.abs(expected).max())
    assert m.cell_data["von_mises"][0].max() > 0.5 * res.pressure.max()


def test_committed_meshes_are_the_generated_ones():
    """meshes/*.vtu (used by studies/winkler_vs_fem.toml) are exactly what the generator makes, so
    the study gives the same answer (and compliance cache entry) with the files or without them."""
    import importlib.util
    from pathlib import Path

    from workbench.fem.mesh import mesh_hash

    root = Path(__file__).resolve().parents[2] / "meshes"
    spec = importlib.util.spec_from_file_location("make_meshes", root / "make_meshes.py")
    mm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mm)
    for name in mm.MESHES:
        committed = load_mesh(root / f"{name}.vtu")
        assert mesh_hash(committed) == mesh_hash(mm.make(name)), name
        assert set(committed.boundaries) >= ({"bore", "outer"} if "bushing" in name else {"surface"})


def test_morphed_bore_matches_lame_at_the_new_radius():
    """Moving the bore nodes out by a uniform depth d (wear) gives the annulus a+d: its mode-0
    compliance follows Lame at the new radius (0.5 %, as above) and differs from the unworn one."""
    from workbench.fem.mesh import morph_bore

    a, bb, n, p, d = 0.01, 0.02, 96, 1e6, 5e-4
    mesh = morph_bore(bushing_mesh(a, bb, n), np.full(n, d))
    nodes, _ = surface_nodes(mesh, "bore")
    assert np.allclose(np.hypot(*mesh.p[:, nodes]), a + d)
    outer = np.unique(mesh.facets[:, mesh.boundaries["outer"]])
    assert np.allclose(np.hypot(*mesh.p[:, outer]), bb)
    C, q = ElasticPart(mesh, STEEL, "bushing").compute_compliance()
    u = C @ np.full(n, p * (a + d) * 2 * math.pi / n)
    E, nu = STEEL.E, STEEL.nu
    lam, mu = E * nu / ((1 + nu) * (1 - 2 * nu)), E / (2 * (1 + nu))
    a2 = a + d
    B = p / (2 * (lam + mu) / bb ** 2 + 2 * mu / a2 ** 2)
    assert np.allclose(u, B * (1 / a2 - a2 / bb ** 2), rtol=5e-3)


def test_fem_plugin_moves_the_bore_when_wear_exceeds_the_threshold(registry):
    """Wear below remesh_fraction x element size enters through the gap only; beyond it the bore
    nodes move (non-symmetric mesh, rebuilt compliance) and the pressure changes only a little."""
    from workbench.models import BoreSection

    n, R, dR = 96, 0.01, 2e-5
    th = 2 * np.pi * np.arange(n) / n
    h = R * 2 * math.pi / n
    model = registry.create("pressure", "fem", {"remesh_fraction": 0.5})
    F = np.array([3e4, 0.0])
    shallow = dR + 0.2 * h * np.clip(np.cos(th), 0, None) ** 4
    deep = dR + 0.8 * h * np.clip(np.cos(th), 0, None) ** 4
    s1 = model.solve_load(BoreSection(th, R, shallow, 0.01, STEEL, STEEL), F)
    s2 = model.solve_load(BoreSection(th, R, deep, 0.01, STEEL, STEEL), F)
    assert s1.info["bore_moved"] == 0.0 and s2.info["bore_moved"] == 1.0
    ref = registry.create("pressure", "fem", {"remesh_fraction": 1e9})
    s3 = ref.solve_load(BoreSection(th, R, deep, 0.01, STEEL, STEEL), F)
    assert s3.info["bore_moved"] == 0.0
    assert np.allclose(s2.force, F) and np.allclose(s3.force, F)
    assert 0 < np.max(np.abs(s2.pressure - s3.pressure)) < 0.1 * s3.pressure.max()
