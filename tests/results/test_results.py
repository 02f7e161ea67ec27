"""Results datasets: every variable has units and long_name, the provenance attrs are there and
netCDF-safe, the file reopens with xarray.open_dataset, and writing is atomic."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
import xarray as xr

from study_helpers import STUDY_TEXT, fake_simulation, toy_registry
from workbench import __version__
from workbench.errors import WorkbenchError
from workbench.kinds.dynamics_dataset import driver_values, simulation_to_dataset
from workbench.results.dataset import open_results, write_dataset
from workbench.study.load import load_study_text

OMEGA = 5000.0 * 2.0 * math.pi / 60.0


@pytest.fixture(scope="module")
def setup():
    reg = toy_registry()
    study = load_study_text(STUDY_TEXT, file="toy.toml", registry=reg)
    sim = fake_simulation(study.mechanism, nt=40, n_impacts=3)
    ideal = fake_simulation(study.mechanism.ideal(), nt=40, seed=1)
    return reg, study, sim, ideal


@pytest.fixture(scope="module")
def ds(setup):
    reg, study, sim, ideal = setup
    return simulation_to_dataset(sim, ideal=ideal, study=study, registry=reg)


def test_every_variable_and_coordinate_has_units_and_long_name(ds):
    """... except a coordinate of strings (names, not quantities: CF gives them no units)."""
    for name, var in ds.variables.items():
        if name in ds.coords and var.dtype.kind in "USO":
            assert "units" not in var.attrs, name
        else:
            assert isinstance(var.attrs.get("units"), str) and var.attrs["units"], name
        assert isinstance(var.attrs.get("long_name"), str) and var.attrs["long_name"], name


def test_required_variables_and_dims(ds, setup):
    _, _, sim, _ = setup
    dims = {
        "contact_force": ("joint", "time"), "friction_force": ("joint", "time"),
        "penetration": ("joint", "time"), "eccentricity": ("joint", "axis", "time"),
        "position": ("body", "component", "time"), "velocity": ("body", "component", "time"),
        "acceleration": ("body", "component", "time"), "driver_load": ("driver", "time"),
        "angle": ("body", "time"), "angular_velocity": ("body", "time"),
        "angular_acceleration": ("body", "time"), "ideal_angle": ("body", "time"),
        "joint_reaction": ("ideal_joint", "axis", "time"), "crank_angle": ("time",),
        "impact_time": ("impact",), "impact_velocity": ("impact",), "impact_joint": ("impact",),
        "kinetic_energy": ("time",), "drift_position": ("time",),
        "ideal_acceleration": ("body", "component", "time"), "ideal_driver_load": ("driver", "time"),
        "ideal_contact_force": ("joint", "time"),
    }
    for name, d in dims.items():
        assert ds[name].dims == d, name
    # mixed units are split (one unit per variable): x, y of the centre of mass [m], angle [rad]
    assert list(ds["component"].values) == ["x", "y"]
    assert ds["position"].attrs["units"] == "m" and ds["angle"].attrs["units"] == "rad"
    assert ds["acceleration"].attrs["units"] == "m/s^2"
    assert ds["angular_acceleration"].attrs["units"] == "rad/s^2"
    assert list(ds["impact"].values) == list(range(ds.sizes["impact"]))   # a coordinate for impact
    assert ds.attrs["Conventions"] == "CF-1.10"
    assert ds["contact_force"].attrs["units"] == "N" and ds["penetration"].attrs["units"] == "m"
    assert ds["driver_load"].attrs["units"] == "N m"   # the only driver is an angle driver
    # the data land on the right axes (Simulation is time-first)
    np.testing.assert_array_equal(ds["eccentricity"].sel(joint="B", axis="y").values, sim.eccentricity[:, 0, 1])
    np.testing.assert_array_equal(ds["angle"].sel(body="rod").values, sim.position[:, 1, 2])
    np.testing.assert_array_equal(ds["position"].sel(body="rod", component="y").values, sim.position[:, 1, 1])
    assert list(ds["impact_joint"].values) == ["B", "B", "B"]
    # crank angle from the first angle driver: 0 + omega t
    np.testing.assert_allclose(ds["crank_angle"].values, OMEGA * sim.time, rtol=1e-15)
    assert float(ds["clearance"].sel(joint="B")) == pytest.approx(5e-4, rel=1e-9)


def test_ideal_reaction_is_the_ideal_twin_joint_with_the_clearance_joint_name(ds, setup):
    _, _, _, ideal = setup
    k = ideal.joint_names.index("B")
    np.testing.assert_allclose(ds["ideal_contact_force"].sel(joint="B").values,
                               np.hypot(ideal.joint_reaction[:, k, 0], ideal.joint_reaction[:, k, 1]))


def test_attrs_carry_provenance_and_are_netcdf_safe(ds):
    a = ds.attrs
    assert a["study_text"] == STUDY_TEXT and a["study_file"] == "toy.toml"
    assert a["workbench_version"] == __version__ and a["study_kind"] == "dynamics"
    plugins = json.loads(a["plugins"])
    assert set(plugins) == {"contact:toy_contact", "friction:toy_friction"}
    models = json.loads(a["joint_models"])
    assert models["B"]["contact"]["model"] == "toy_contact"
    assert models["B"]["contact"]["parameters"]["restitution"] == 0.9
    assert models["B"]["friction"]["parameters"]["c_f"] == 0.01
    assert a["solver_steps"] == 123 and json.loads(a["solver_settings"])["t_end"] == pytest.approx(0.024)
    assert a["slider_body"] == "slider" and list(a["slider_axis"]) == [1.0, 0.0]
    assert "T" in a["created"]
    for k, v in a.items():
        assert isinstance(v, (str, int, float, np.integer, np.floating)) or (
            isinstance(v, list) and all(isinstance(x, float) for x in v)), k


def test_file_reopens_with_xarray_open_dataset(ds, tmp_path):
    path = write_dataset(ds, tmp_path / "sub" / "run.nc")
    with xr.open_dataset(path) as back:        # the plain call a user makes
        assert back.attrs["study_text"] == STUDY_TEXT
        np.testing.assert_array_equal(back["contact_force"].values, ds["contact_force"].values)
        assert back["time"].dtype == np.float64  # "s" must not be decoded as a timedelta
        assert back["eccentricity"].attrs["units"] == "m"
        assert list(back["impact_joint"].values) == list(ds["impact_joint"].values)
    assert not list(tmp_path.glob("sub/.*tmp"))


def test_ideal_on_a_different_grid_is_interpolated(setup):
    reg, study, sim, _ = setup
    ideal = fake_simulation(study.mechanism.ideal(), nt=97, seed=2)
    # a linear signal survives linear interpolation exactly
    ideal.driver_load[:, 0] = 3.0 + 1000.0 * ideal.time
    out = simulation_to_dataset(sim, ideal=ideal, study=study, registry=reg)
    np.testing.assert_allclose(out["ideal_driver_load"].sel(driver="motor").values, 3.0 + 1000.0 * sim.time,
                               rtol=1e-12)


def test_output_options_drop_extras_and_no_impacts_still_writes(setup, tmp_path):
    reg, _, _, _ = setup
    text = STUDY_TEXT.replace("step = 1.0e-4", "step = 1.0e-4\nenergies = false\njoint_reactions = false\n"
                                                "constraint_drift = false\nslip_velocity = false")
    study = load_study_text(text, file="toy.toml", registry=reg)
    sim = fake_simulation(study.mechanism, n_impacts=0)
    out = simulation_to_dataset(sim, study=study, registry=reg)
    for name in ("kinetic_energy", "joint_reaction", "drift_position", "slip_velocity", "ideal_position"):
        assert name not in out
    back = open_results(write_dataset(out, tmp_path / "none.nc"))
    assert back.sizes["impact"] == 0 and "contact_force" in back


def test_failed_write_keeps_the_old_result_and_leaves_no_temp(ds, tmp_path):
    path = write_dataset(ds, tmp_path / "run.nc")
    before = path.read_bytes()
    bad = ds.copy()
    bad.attrs["oops"] = {"a": 1}      # netCDF rejects dict attributes: to_netcdf raises
    with pytest.raises((TypeError, ValueError)):
        write_dataset(bad, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["run.nc"]


def test_unwritable_target_is_a_workbench_error(ds, tmp_path):
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    with pytest.raises(WorkbenchError, match="cannot"):
        write_dataset(ds, blocker / "run.nc")


def test_driver_values_matches_driver_function(setup):
    from workbench.mbs.mechanism import DriverFunction
    f = DriverFunction(polynomial=(0.1, 2.0, -3.0), harmonics=((0.5, 40.0, 0.3),))
    t = np.linspace(0.0, 0.1, 7)
    np.testing.assert_allclose(driver_values(f, t), [f(x) for x in t], rtol=1e-14)
