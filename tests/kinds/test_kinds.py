"""Study kinds (workbench.kinds): one dispatcher, the kind stored in every dataset, one provenance
builder, and units that a units library parses for every variable of every kind's dataset."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from study_helpers import STUDY_TEXT, fake_simulation, toy_registry
from workbench import kinds
from workbench.errors import WorkbenchError
from workbench.kinds.dynamics_dataset import simulation_to_dataset
from workbench.study.load import load_study_text

ROOT = Path(__file__).resolve().parents[2]
RIG = ROOT / "studies" / "journal_wear_constant_load.toml"

#: a small pressure study: one Persson case, two loads, no FE model (fast)
PRESSURE_TEXT = """
[study]
kind = "pressure"
title = "tiny pressure study"

[grid]
theta_nodes = 48

[compare]
baseline = "winkler_textbook"
reference = ["persson", "hertz"]

[[cases]]
name = "plate"
bore_radius = 0.010
clearance = 10e-6
length = 0.010
outer_radius = 0.200
bushing = { E = 200e9, nu = 0.3 }
journal = { E = 200e9, nu = 0.3 }
loads = [1.0e3, 1.0e4]

[models.winkler_textbook]
plugin = "winkler"
layer_thickness = 0.005

[models.approximate_area]
plugin = "approximate_area"
"""

PROVENANCE = ("Conventions", "title", "description", "study_kind", "study_text", "study_file",
              "workbench_version", "plugins", "created")


@pytest.fixture(scope="module")
def datasets():
    """One dataset of every kind: dynamics (a hand-made simulation), wear (one update of the
    constant-load rig), pressure (the tiny study above)."""
    from workbench.plugins import build_registry
    reg = build_registry()
    toy = toy_registry()
    dyn = load_study_text(STUDY_TEXT, file="toy.toml", registry=toy)
    out = {"dynamics": simulation_to_dataset(fake_simulation(dyn.mechanism, nt=40, n_impacts=3),
                                             ideal=fake_simulation(dyn.mechanism.ideal(), nt=40, seed=1),
                                             study=dyn, registry=toy)}
    wear = load_study_text(RIG.read_text(), file=RIG, registry=reg)
    out["wear"] = kinds.run(wear, registry=reg, max_updates=1)
    pressure = load_study_text(PRESSURE_TEXT, file="tiny.toml", registry=reg)
    out["pressure"] = kinds.run(pressure, registry=reg)
    return out


def _units_of(ds, name):
    """The units of variable ``name``: its ``units``, or each entry of its per-coordinate units
    variable (``units_variable``, used when entries differ, e.g. angle and linear drivers)."""
    attrs = ds[name].attrs
    if "units_variable" in attrs:
        return [str(u) for u in ds[attrs["units_variable"]].values]
    return [attrs.get("units")]


@pytest.mark.parametrize("kind", ["dynamics", "wear", "pressure"])
def test_every_unit_of_every_variable_parses(datasets, kind):
    """pint parses every unit (one unit per string: no 'm, m, rad') to what it means (no unit
    per cycle, which pint reads as per 2 pi rad); every variable has a long_name; a coordinate of
    strings has no units (CF: names are not quantities); the dataset says CF-1.10."""
    pint = pytest.importorskip("pint", reason="pint is in the test extra: pip install -e '.[test]'")
    ureg = pint.UnitRegistry()
    ds = datasets[kind]
    assert ds.attrs["Conventions"] == "CF-1.10"
    for name in ds.variables:
        assert ds[name].attrs.get("long_name"), (kind, name)
        if name in ds.coords and ds[name].dtype.kind in "USO":
            assert "units" not in ds[name].attrs, (kind, name)
            continue
        for unit in _units_of(ds, name):
            assert "cycle" not in str(unit), (kind, name, unit)
            assert isinstance(unit, str) and unit and "," not in unit, (kind, name, unit)
            ureg.parse_units(unit)            # raises on an unknown or malformed unit


def test_mixed_driver_units_use_a_units_variable():
    from workbench.kinds.dynamics_dataset import _load_var
    v = _load_var(("driver", "time"), np.zeros((2, 3)), ["N m", "N"], "load")
    assert "units" not in v.attrs and v.attrs["units_variable"] == "driver_unit"
    assert _load_var(("driver", "time"), np.zeros((2, 3)), ["N", "N"], "load").attrs["units"] == "N"


@pytest.mark.parametrize("kind", ["dynamics", "wear", "pressure"])
def test_one_provenance_for_every_kind(datasets, kind):
    ds = datasets[kind]
    for key in PROVENANCE:
        assert key in ds.attrs, (kind, key)
    assert ds.attrs["study_kind"] == kind and kinds.kind_of(ds) == kind
    assert "T" in ds.attrs["created"] and ds.attrs["plugins"].startswith("{")
    assert "plugin_provenance" not in ds.attrs


@pytest.mark.parametrize("kind", ["dynamics", "wear", "pressure"])
def test_a_dataset_written_before_study_kind_is_recognised(datasets, kind):
    old = datasets[kind].copy()
    del old.attrs["study_kind"]
    assert kinds.kind_of(old) == kind


def test_unknown_kinds_are_clear_errors(datasets):
    with pytest.raises(WorkbenchError, match="unknown study kind 'presure'.*Did you mean 'pressure'"):
        kinds.get("presure")
    odd = datasets["pressure"].copy()
    odd.attrs["study_kind"] = "nonsmooth"
    with pytest.raises(WorkbenchError, match="'nonsmooth' is not a registered study kind"):
        kinds.kind_of(odd)


@pytest.mark.parametrize("kind, expect", [("dynamics", "contact_force.png"),
                                          ("wear", "wear_volume.png"),
                                          ("pressure", "pressure_plate.png")])
def test_plots_follow_the_stored_kind(datasets, kind, expect, tmp_path):
    """The plots are chosen by study_kind, not by guessing from the variables."""
    paths = kinds.plots(datasets[kind], tmp_path)
    assert expect in [p.name for p in paths] and all(p.stat().st_size > 5000 for p in paths)


@pytest.mark.parametrize("kind", ["dynamics", "wear", "pressure"])
def test_the_plot_folder_check_knows_every_name_a_kind_draws(datasets, kind, tmp_path):
    """Every figure a kind draws matches its ``workbench.results.plot_files.PLOT_NAMES``, so the check
    of the plot folder before a run sees a user's file of any of those names."""
    import fnmatch

    from workbench.results.outputs import OutputError
    from workbench.results.plot_files import PLOT_NAMES, check_plot_dir
    paths = kinds.plots(datasets[kind], tmp_path / "ours")
    assert paths
    for p in paths:
        assert any(fnmatch.fnmatchcase(p.name, pat) for pat in PLOT_NAMES[kind]), p.name
        users = tmp_path / "users" / p.name
        users.parent.mkdir(exist_ok=True)
        users.write_bytes(b"a user's figure")
        with pytest.raises(OutputError, match=p.name):
            check_plot_dir(users.parent, kind=kind, overwrite=True)
        users.unlink()


def test_summaries(datasets):
    s = kinds.summary(datasets["dynamics"])
    assert s["joints"]["B"]["impacts"] == 3 and s["driver"]["peak_load_units"] == "N m"
    w = kinds.summary(datasets["wear"])
    assert w["updates"] == 1 and w["joints"]["J"]["wear_volume_bushing"] == 0.0  # nothing worn yet
    p = kinds.summary(datasets["pressure"])
    assert p["baseline"] == "winkler_textbook"
    assert p["cases"]["plate"]["winkler_textbook"]["peak_pressure_error"] == 0.0
    for kind in ("dynamics", "wear", "pressure"):
        assert kinds.summary_lines(datasets[kind])


def test_a_pressure_study_is_parsed_once(monkeypatch):
    """load_study parses the pressure spec once; the run uses it (no second parse)."""
    from workbench.kinds import pressure_config as study_config
    from workbench.plugins import build_registry
    calls = []
    real = study_config.parse_pressure
    monkeypatch.setattr(study_config, "parse_pressure", lambda *a, **k: calls.append(1) or real(*a, **k))
    reg = build_registry()
    study = load_study_text(PRESSURE_TEXT, file="tiny.toml", registry=reg)
    kinds.run(study, registry=reg)
    assert calls == [1] and study.pressure.theta_nodes == 48


def test_library_code_never_switches_the_matplotlib_backend():
    for path in (ROOT / "workbench").rglob("*.py"):
        text = path.read_text()
        assert "matplotlib.use(" not in text and "import matplotlib.pyplot" not in text, path


def test_the_fem_engine_api_resolves():
    """Every name of the documented FE-engine API (workbench.fem) is importable from the package."""
    import workbench.fem as fem
    for name in fem.__all__:
        assert callable(getattr(fem, name)), name
    with pytest.raises(AttributeError):
        fem.run_pressure_study          # the study moved to the study kinds


def test_the_summary_counts_a_spatial_joints_impacts_by_its_index():
    """Spatial impact tables give the joint's index, planar ones its name: both are counted (a
    spatial ball-joint run read "0 impacts" with 41 in its table)."""
    import numpy as np
    import xarray as xr
    from workbench.kinds.dynamics import summary
    base = {"contact_force": (("joint", "time"), np.array([[0.0, 5.0, 2.0], [0.0, 1.0, 0.0]]))}
    for table in (np.array([0, 0, 1]), np.array(["B", "B", "C"])):
        ds = xr.Dataset({**base, "impact_joint": (("impact",), table),
                         "impact_peak_force": (("impact",), np.array([7.0, 3.0, 0.5]))},
                        coords={"joint": ["B", "C"], "time": [0.0, 1.0, 2.0]})
        s = summary(ds)["joints"]
        assert (s["B"]["impacts"], s["C"]["impacts"]) == (2, 1)
        assert (s["B"]["peak_contact_force"], s["C"]["peak_contact_force"]) == (7.0, 1.0)
