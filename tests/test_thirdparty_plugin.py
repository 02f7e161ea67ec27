"""A third-party plugin works as a user would use it.

The template package ``docs/plugin_template`` (distribution ``workbench-example-plugin``
0.1.0, contact law ``example_linear_dashpot``, wear law ``example_hardness_archard``) is installed with pip — a real wheel build and
install, offline (``--no-index --no-build-isolation``: the build backend is the environment's
setuptools, from the test extras) — into a temporary target directory that is put on
``sys.path`` (so other tests running at the same time in the same environment never see it).
Nothing is monkeypatched: the workbench finds the model through the entry point in the
installed ``.dist-info``.  Then

* ``workbench plugins`` (a fresh interpreter) lists the model with its distribution and version;
* a study names the model and ``workbench run`` uses it: the result's provenance names the model
  and its distribution;
* the package's own test (conformance + two values of the law) passes.

Teardown takes the package off ``sys.path`` and deletes it; the registry is then back to normal.
Each run builds in fresh temporary directories, so the test can run any number of times.
"""
from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from click.testing import CliRunner

from workbench.cli.main import main
from workbench.conformance import check_model
from workbench.plugins import build_registry

HERE = Path(__file__).resolve().parent
FIXTURE = HERE.parent / "docs" / "plugin_template"
FLORES = HERE.parent / "studies" / "flores_slider_crank.toml"
DIST, VERSION, MODEL, PACKAGE = "workbench-example-plugin", "0.1.0", "example_linear_dashpot", "workbench_example_plugin"
WEAR_LAW = "example_hardness_archard"


def _pip_install(src: Path, target: Path) -> None:
    cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
           "--disable-pip-version-check", "--target", str(target), str(src)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        pytest.fail(f"pip could not install the template plugin ({' '.join(cmd)}); the build needs "
                    f"setuptools >= 70.1 in the environment (pip install -e '.[test]'):\n"
                    f"{r.stdout[-3000:]}\n{r.stderr[-3000:]}")


def _forget_package() -> None:
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]
    importlib.invalidate_caches()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The template package pip-installed into a fresh directory on ``sys.path``; removed after."""
    assert build_registry().names("contact").count(MODEL) == 0, \
        f"{DIST} is already installed in this environment; the test installs it itself"
    src = tmp_path_factory.mktemp("src") / "thirdparty_plugin"
    # build from a copy: setuptools builds in the source tree (build/, *.egg-info)
    shutil.copytree(FIXTURE, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    target = tmp_path_factory.mktemp("site-packages")
    _pip_install(src, target)
    assert (target / f"{PACKAGE}-{VERSION}.dist-info" / "entry_points.txt").is_file()
    sys.path.insert(0, str(target))
    _forget_package()
    try:
        yield target, src
    finally:
        sys.path.remove(str(target))
        _forget_package()
        shutil.rmtree(target, ignore_errors=True)
        assert MODEL not in build_registry().names("contact"), "the uninstalled plugin is still registered"


def _env(target: Path) -> dict:
    env = dict(os.environ, COLUMNS="250")
    env["PYTHONPATH"] = os.pathsep.join([str(target)] + [p for p in [env.get("PYTHONPATH")] if p])
    return env


def test_installed_model_is_registered_with_its_distribution(site):
    entry = build_registry().entry("contact", MODEL)
    assert (entry.distribution, entry.version, entry.plugin) == (DIST, VERSION, MODEL)
    assert entry.cls.__module__ == f"{PACKAGE}.linear_dashpot"
    assert Path(sys.modules[entry.cls.__module__].__file__).is_relative_to(site[0])
    check_model(entry.cls)  # the conformance suite's checks, on the third-party model


def test_installed_wear_law_is_registered_and_conforms(site):
    """The template's wear law comes from its own entry point and passes the conformance suite."""
    entry = build_registry().entry("wear", WEAR_LAW)
    assert (entry.distribution, entry.version, entry.plugin) == (DIST, VERSION, WEAR_LAW)
    assert entry.cls.__module__ == f"{PACKAGE}.hardness_archard"
    check_model(entry.cls)


def test_workbench_plugins_lists_it_with_distribution_and_version(site):
    target, _ = site
    r = subprocess.run([sys.executable, "-m", "workbench.cli.main", "plugins", "--family", "contact"],
                       capture_output=True, text=True, env=_env(target), timeout=300)
    assert r.returncode == 0, r.stderr
    row = next((line for line in r.stdout.splitlines() if MODEL in line), None)
    assert row is not None, r.stdout
    assert DIST in row and VERSION in row
    assert "stiffness = 2e+08 N/m" in r.stdout  # its parameters, with units


def test_study_runs_the_thirdparty_model(site, tmp_path):
    text = FLORES.read_text()
    old = 'contact = { model = "lankarani_nikravesh", restitution = 0.9 }'
    assert old in text
    text = text.replace(old, f'contact = {{ model = "{MODEL}", stiffness = 2.0e8, restitution = 0.8 }}')
    text = text.replace("revolutions = 2 ", "t_end = 2.0e-3")  # the first impacts only (about 0.23 ms)
    study = tmp_path / "thirdparty.toml"
    study.write_text(text)
    out = tmp_path / "thirdparty.nc"
    r = CliRunner().invoke(main, ["run", str(study), "-o", str(out), "--no-plot"], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    with xr.open_dataset(out) as ds:
        models = json.loads(ds.attrs["joint_models"])["B"]["contact"]
        assert models["model"] == MODEL
        assert models["parameters"] == {"stiffness": 2.0e8, "restitution": 0.8, "min_impact_speed": 1e-4}
        assert models["provided_by"] == f"{DIST} {VERSION} (plugin {MODEL})"
        assert json.loads(ds.attrs["plugins"])[f"contact:{MODEL}"].startswith(f"{DIST} {VERSION}")
        # the law acted: F / (K delta) = 1 + chi delta_dot / delta_dot_minus (the kernel) swings
        # around 1 between approach and restitution, |delta_dot| <= delta_dot_minus in a free
        # impact, so its median over the contact samples lies in (1 - chi, 1 + chi), chi = 0.3;
        # a Hertz law K_h delta^1.5 would give K_h sqrt(delta) / K, about 0.6 at 10 um.
        assert int((ds["impact_joint"] == "B").sum()) >= 1
        f, d = ds["contact_force"].sel(joint="B").values, ds["penetration"].sel(joint="B").values
        in_contact = d > 0
        assert in_contact.sum() >= 10 and np.all(f[~in_contact] == 0.0)
        chi = 1.5 * (1 - 0.8)
        assert 1 - chi < float(np.median(f[in_contact] / (2.0e8 * d[in_contact]))) < 1 + chi


def test_the_template_packages_own_test_passes(site):
    target, src = site
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(src / "tests")],
                       capture_output=True, text=True, env=_env(target), cwd=src, timeout=600)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "6 passed" in r.stdout   # the contact law's three tests and the wear law's three
