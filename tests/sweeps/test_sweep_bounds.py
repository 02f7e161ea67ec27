"""A sweep grid is bounded before any case is built (``[sweep] max_cases``, ``--max-cases``):
a grid of 10^6 cases is refused by ``validate`` at once -- counted from the dimensions, not
enumerated -- and by ``sweep`` before any case file or folder is written."""
from __future__ import annotations

import time
from pathlib import Path

from click.testing import CliRunner

from workbench.cli.main import main
from workbench.plugins import build_registry
from workbench.sweeps.spec import load_sweep

ROOT = Path(__file__).resolve().parents[2]
FLORES = ROOT / "studies" / "flores_slider_crank.toml"


def _grid(tmp_path: Path, n: int, m: int, head: str = "") -> Path:
    a = ", ".join(f"{1.0e-4 * (1 + i / n):.10e}" for i in range(n))
    b = ", ".join(f"{1000.0 + i:.1f}" for i in range(m))
    path = tmp_path / "grid.toml"
    path.write_text(f'[sweep]\nbase = "{FLORES}"\nsummary = ["n_impacts"]\n{head}\n[set]\n'
                    f'"output.compare_ideal" = false\n[grid]\n'
                    f'"mechanism.clearance_joints[0].clearance" = [{a}]\n'
                    f'"mechanism.drivers[0].speed_rpm" = [{b}]\n')
    return path


def _run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": "400"})


def test_a_million_cases_are_refused_at_once_with_the_count_and_the_limit(tmp_path):
    path = _grid(tmp_path, 1000, 1000)
    registry = build_registry()
    t0 = time.perf_counter()
    try:
        load_sweep(path, registry=registry)
    except Exception as exc:   # noqa: BLE001 - checked below
        err = str(exc)
    took = time.perf_counter() - t0
    assert "1,000,000 cases" in err and "clearance (1000) x speed_rpm (1000)" in err
    assert "10,000" in err and "[sweep] max_cases" in err and "--max-cases" in err
    assert took < 2.0, f"refusing the grid took {took:.2f} s: the cases must not be enumerated"
    r = _run("validate", path)
    assert r.exit_code == 2 and "1,000,000 cases" in r.output and "Traceback" not in r.output


def test_validate_refuses_a_huge_grid_before_loading_the_plugins(tmp_path, monkeypatch):
    import workbench.cli.main as cli_main
    import workbench.cli.sweep as cli_sweep

    def no_registry():
        raise AssertionError("the plugins were loaded for a grid refused by its size")

    monkeypatch.setattr(cli_main, "_registry", no_registry)
    monkeypatch.setattr(cli_sweep, "_registry", no_registry)
    path = _grid(tmp_path, 1000, 1000)
    for args in (["validate", path], ["sweep", path, "-o", tmp_path / "x.nc", "--serial"]):
        r = _run(*args)
        assert r.exit_code == 2 and "1,000,000 cases (1000 x 1000)" in r.output, r.output


def test_zipped_parameters_count_once(tmp_path):
    # 2 x 200 zipped values and 2 speeds: 400 cases, not 80 000 (the quick count leaves zips alone)
    a = ", ".join(f"{1.0e-4 * (1 + i / 200):.10e}" for i in range(200))
    path = tmp_path / "zip.toml"
    path.write_text(f'[sweep]\nbase = "{FLORES}"\nsummary = ["n_impacts"]\nzip = [["clearance", "bushing_radius"]]\n'
                    f'max_cases = 400\n[grid]\n"mechanism.clearance_joints[0].clearance" = [{a}]\n'
                    f'"mechanism.clearance_joints[0].bushing_radius" = [{a}]\n'
                    f'"mechanism.drivers[0].speed_rpm" = [1000.0, 2000.0]\n')
    from workbench.sweeps.spec import quick_size_check
    quick_size_check(path)
    assert len(load_sweep(path, registry=build_registry()).cases) == 400
    r = _run("sweep", path, "-o", tmp_path / "z.nc", "--max-cases", "399", "--serial")
    assert r.exit_code == 2 and "400 cases" in r.output and "(--max-cases)" in r.output


def test_sweep_refuses_before_writing_anything(tmp_path):
    path = _grid(tmp_path, 1000, 1000)
    before = sorted(p.name for p in tmp_path.iterdir())
    r = _run("sweep", path, "-o", tmp_path / "big.nc", "--serial")
    assert r.exit_code == 2 and "1,000,000 cases" in r.output, r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == before   # no case folder, no file


def test_the_limit_is_overridden_in_the_file_or_on_the_command_line(tmp_path):
    path = _grid(tmp_path, 3, 2, head="max_cases = 5")
    r = _run("validate", path)
    assert r.exit_code == 2 and "6 cases" in r.output and "above the limit of 5 ([sweep] max_cases)" in r.output
    registry = build_registry()
    assert len(load_sweep(path, registry=registry, max_cases=6).cases) == 6
    r = _run("sweep", path, "-o", tmp_path / "s.nc", "--max-cases", "4", "--serial")
    assert r.exit_code == 2 and "above the limit of 4 (--max-cases)" in r.output
    assert not (tmp_path / "s.cases").exists()
