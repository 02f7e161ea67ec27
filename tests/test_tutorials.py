"""The tutorials of ``docs/tutorials/`` run as written (their pages include these very scripts).

Each script runs in this process (``runpy``, as ``python SCRIPT OUT`` would run it) with a
temporary output folder, and asserts its own results (the stored provenance, the new law's
volume equal to the built-in Archard's, the compare figures); the test checks what it printed and wrote.  The wear-law tutorial needs the
template package installed: its source folder goes on ``sys.path`` with a ``.dist-info`` holding
its entry points, which is what ``pip install -e`` gives the entry-point machinery
(``tests/test_thirdparty_plugin.py`` installs it with pip itself).  The three together take
under a minute once the solver is compiled.
"""
from __future__ import annotations

import importlib
import runpy
import sys
from pathlib import Path

import pytest

import workbench.api

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = ROOT / "docs" / "tutorials"
TEMPLATE = ROOT / "docs" / "plugin_template"
PACKAGE = "workbench_example_plugin"


def _run(name: str, out: Path, monkeypatch) -> None:
    monkeypatch.setattr(sys, "argv", [str(TUTORIALS / name), str(out)])
    runpy.run_path(str(TUTORIALS / name), run_name="__main__")


def _forget_package() -> None:
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]
    importlib.invalidate_caches()


@pytest.fixture
def template_installed(tmp_path):
    """The template package importable with its entry points (its ``pyproject.toml``'s), as an
    editable install makes it; removed after, and the API's registry rebuilt without it."""
    import tomllib
    project = tomllib.loads((TEMPLATE / "pyproject.toml").read_text())["project"]
    site = tmp_path / "site-packages"
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                   f"Version: {project['version']}\n")
    points = project["entry-points"]["workbench"]
    (info / "entry_points.txt").write_text("[workbench]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()))
    paths = [str(site), str(TEMPLATE / "src")]
    sys.path[:0] = paths
    _forget_package()
    try:
        yield points
    finally:
        for p in paths:
            sys.path.remove(p)
        _forget_package()
        workbench.api.get_registry(refresh=True)


def test_a_dynamics_study_from_python(tmp_path, monkeypatch, capsys):
    _run("dynamics_from_python.py", tmp_path, monkeypatch)
    printed = capsys.readouterr().out
    assert "100 % of the simulated time" in printed          # the progress records arrived
    assert "bushing_radius = 0.0102" in printed and "changed in Python" in printed
    assert (tmp_path / "flores_narrow.nc").is_file() and (tmp_path / "contact_force_B.png").stat().st_size > 0


def test_writing_and_installing_a_wear_law(tmp_path, monkeypatch, capsys, template_installed):
    assert "example_hardness_archard" in template_installed
    _run("wear_law.py", tmp_path, monkeypatch)
    printed = capsys.readouterr().out
    assert "example_hardness_archard: from workbench-example-plugin 0.1.0" in printed
    assert "conformance: passed" in printed and "(built-in archard:" in printed
    assert (tmp_path / "journal_hardness_archard.zarr").is_dir()


def test_winkler_against_fem_with_compare(tmp_path, monkeypatch, capsys):
    _run("winkler_vs_fem.py", tmp_path, monkeypatch)
    printed = capsys.readouterr().out
    assert "Winkler foundation, calibrated to Persson: peak pressure" in printed
    assert "Plane-strain finite elements: peak pressure" in printed
    assert sorted(p.name for p in (tmp_path / "compare").iterdir()) == [
        "compare_peak_pressure_bronze_bushing.svg", "compare_pressure_bronze_bushing.svg"]
