"""The command line: validate, plugins, plot, run — user mistakes give a message and exit 2, a
failed computation exits 3; results go to stdout, progress and warnings to stderr."""
from __future__ import annotations

import importlib
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from study_helpers import STUDY_TEXT, fake_simulation, toy_registry
from workbench.cli.main import main
from workbench.kinds.dynamics_dataset import simulation_to_dataset
from workbench.results.dataset import open_results, write_dataset
from workbench.study.load import load_study_text

ROOT = Path(__file__).resolve().parents[2]
FLORES = ROOT / "studies" / "flores_slider_crank.toml"
IDEAL = ROOT / "studies" / "ideal_slider_crank.toml"


def invoke(*args, columns: int = 250):
    return CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": str(columns)})


def test_validate_ok():
    r = invoke("validate", FLORES)
    assert r.exit_code == 0, r.output
    assert "ok" in r.output and "1 clearance joints" in r.output


def test_validate_bad_file_is_a_message_not_a_traceback(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(FLORES.read_text().replace("restitution = 0.9", "restitution = 9.0")
                   .replace("mass = 0.21", "mas = 0.21"))
    r = invoke("validate", bad)
    assert r.exit_code == 2
    assert "Traceback" not in r.output
    assert isinstance(r.exception, SystemExit)  # a clean exit, not an escaped exception
    assert str(bad) in r.output and "Did you mean 'mass'?" in r.output
    assert "mechanism.clearance_joints[0].contact.restitution" in r.output


def test_validate_missing_file():
    r = invoke("validate", "/nonexistent/x.toml")
    assert r.exit_code == 2 and "cannot read" in r.output


def test_plugins_lists_every_registered_model():
    from workbench.plugins import build_registry
    reg = build_registry()
    r = invoke("plugins")
    assert r.exit_code == 0, r.output
    entries = reg.entries()
    assert entries, "no models registered"
    for e in entries:
        assert e.name in r.output
    assert f"{len(entries)} models" in r.output
    # parameters are shown with their units
    e = entries[0]
    for p in e.cls.parameters():
        assert p.name in r.output


def test_plugins_family_filter():
    from workbench.plugins import build_registry
    reg = build_registry()
    if not reg.names("friction") or not reg.names("contact"):
        pytest.skip("needs registered contact and friction models")
    r = invoke("plugins", "--family", "friction")
    assert r.exit_code == 0
    assert f"{len(reg.names('friction'))} models in family 'friction'" in r.output
    only_contact = set(reg.names("contact")) - set(reg.names("friction"))
    assert not any(f" {n} " in r.output for n in only_contact)
    assert invoke("plugins", "--family", "frictio").exit_code == 2


def test_plot_writes_the_four_pngs(tmp_path):
    reg = toy_registry()
    study = load_study_text(STUDY_TEXT, file="toy.toml", registry=reg)
    ds = simulation_to_dataset(fake_simulation(study.mechanism), study=study, registry=reg,
                               ideal=fake_simulation(study.mechanism.ideal(), seed=1))
    path = write_dataset(ds, tmp_path / "toy.nc")
    r = invoke("plot", path, "-o", tmp_path / "pngs")
    assert r.exit_code == 0, r.output
    names = sorted(p.name for p in (tmp_path / "pngs").glob("*.png"))
    assert names == ["contact_force.png", "driver_moment.png", "journal_orbit.png", "slider_acceleration.png"]
    for p in (tmp_path / "pngs").glob("*.png"):
        assert p.read_bytes()[:4] == b"\x89PNG"


def test_plot_of_a_non_result_file_is_a_user_error(tmp_path):
    junk = tmp_path / "junk.nc"
    junk.write_text("not a netcdf file")
    r = invoke("plot", junk)
    assert r.exit_code == 2 and "is not a workbench result" in r.output and str(junk) in r.output


def _solver_available() -> str | None:
    try:
        importlib.import_module("workbench.mbs.solver")
    except Exception as exc:  # noqa: BLE001
        return f"workbench.mbs.solver is not importable yet ({type(exc).__name__}: {exc})"
    return None


def _short(path: Path, tmp_path: Path, t_end: float) -> Path:
    text = path.read_text().replace("revolutions = 2 ", f"t_end = {t_end!r} ")
    out = tmp_path / path.name
    out.write_text(text)
    return out


@pytest.mark.skipif(_solver_available() is not None, reason=str(_solver_available()))
def test_run_ideal_study_reproduces_the_dead_centre_accelerations(tmp_path):
    """Ideal in-line slider-crank (docs/validation.md): slider acceleration r w^2 (1 + r/l) at top dead
    centre (crank angle 0) and r w^2 (1 - r/l) at bottom dead centre (180 deg).  Half a revolution
    at 5000 rpm; the output grid hits 180 deg within half a step (1e-5 s = 3 deg), so the BDC
    value is taken where the crank angle is closest to pi and compared within 0.2 % (the
    acceleration's curvature over +-1.5 deg bounds the sampling error at about 0.1 %)."""
    study = _short(IDEAL, tmp_path, 0.0065)
    out = tmp_path / "ideal.nc"
    r = invoke("run", study, "-o", out, "--no-plot")
    assert r.exit_code == 0, r.output
    ds = open_results(out)
    r_, l_, w = 0.05, 0.12, 5000 * 2 * math.pi / 60
    a = ds["acceleration"].sel(body="slider", component="x").values
    th = ds["crank_angle"].values
    assert a[0] == pytest.approx(-r_ * w ** 2 * (1 + r_ / l_), rel=1e-6)
    i = int(np.argmin(abs(th - math.pi)))
    assert a[i] == pytest.approx(r_ * w ** 2 * (1 - r_ / l_), rel=2e-3)
    assert "ideal_acceleration" not in ds  # no clearance joint: nothing to compare


@pytest.mark.skipif(_solver_available() is not None, reason=str(_solver_available()))
def test_run_flores_study_short_with_plots(tmp_path):
    """The Flores study over its first 2 ms (60 deg of crank): the dataset has the clearance and
    ideal-twin variables and the plots are written.  The journal starts centred,
    so the first output sample has zero eccentricity and no contact force."""
    study = _short(FLORES, tmp_path, 0.002)
    out = tmp_path / "flores.nc"
    r = invoke("run", study, "-o", out, "--plot-dir", tmp_path / "plots")
    assert r.exit_code == 0, r.output
    ds = open_results(out)
    assert ds["contact_force"].dims == ("joint", "time") and list(ds["joint"].values) == ["B"]
    assert float(abs(ds["eccentricity"].isel(time=0)).max()) < 1e-9
    assert float(ds["contact_force"].sel(joint="B").isel(time=0)) == 0.0
    assert "ideal_driver_load" in ds and "ideal_contact_force" in ds
    assert ds.attrs["study_text"] == study.read_text()
    assert len(list((tmp_path / "plots").glob("*.png"))) == 4


@pytest.mark.skipif(_solver_available() is not None, reason=str(_solver_available()))
def test_run_into_an_unwritable_place_is_a_user_error(tmp_path):
    study = _short(IDEAL, tmp_path, 0.0005)
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    r = invoke("run", study, "-o", blocker / "out.nc", "--no-plot")
    assert r.exit_code == 2 and "cannot" in r.output


def test_validate_pressure_study():
    pressure = [p for p in sorted((ROOT / "studies").glob("*.toml")) if 'kind = "pressure"' in p.read_text()]
    if not pressure:
        pytest.skip("no pressure study in studies/")
    r = invoke("validate", pressure[0])
    assert r.exit_code == 0, r.output
    assert "pressure study" in r.output


# --- house: plugins listing, model docs, --json, exit codes, stderr -----------------------------
def test_plugins_reads_well_at_80_columns_grouped_by_family_the_distribution_once():
    from workbench.models import FAMILIES
    from workbench.plugins import build_registry
    entries = build_registry().entries()
    r = invoke("plugins", columns=80)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    heads = [line.split(" (")[0] for line in lines if line and not line.startswith(" ")
             and line.split(" (")[0] in FAMILIES]
    assert heads == [f for f in FAMILIES if any(e.family == f for e in entries)]
    dist = entries[0].distribution
    if all(e.distribution == dist for e in entries):
        assert r.stdout.count(dist) == 1
    # every model on its own line under its family's heading
    for e in entries:
        row = next(i for i, line in enumerate(lines) if line.startswith(f"  {e.name} "))
        head = max(i for i, line in enumerate(lines[:row]) if line and not line.startswith(" "))
        assert lines[head].startswith(e.family + " (")


def test_plugins_json_is_machine_readable_and_complete():
    import json
    from workbench.plugins import build_registry
    entries = build_registry().entries()
    r = invoke("plugins", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert [(d["family"], d["name"]) for d in data] == [(e.family, e.name) for e in entries]
    for d, e in zip(data, entries):
        assert d["reference"] == e.cls.reference and d["distribution"] == e.distribution
        assert [p["name"] for p in d["parameters"]] == [p.name for p in e.cls.parameters()]
        assert all(p["unit"] for p in d["parameters"])
    one = json.loads(invoke("plugins", "hertz", "--family", "contact", "--json").stdout)
    assert [d["name"] for d in one] == ["hertz"]


def test_plugins_name_shows_the_parameter_docs():
    from workbench.plugins import build_registry
    e = build_registry().entry("contact", "lankarani_nikravesh")
    r = invoke("plugins", "lankarani_nikravesh", columns=80)
    assert r.exit_code == 0, r.output
    text = " ".join(r.stdout.split())
    assert "contact model 'lankarani_nikravesh'" in text and e.distribution in text
    assert " ".join(e.cls.reference.split()) in text
    for p in e.cls.parameters():
        assert f"{p.name} [" in text and " ".join(p.doc.split()) in text
    assert "restitution [1 (dimensionless)]" in text and "default 0.9" in text
    assert "allowed 0 .. 1" in text and "valid 0.8 .. 1" in text  # bounds and the source's range
    assert max(len(line) for line in r.stdout.splitlines()) <= 80
    bad = invoke("plugins", "hertz", "--family", "friction")
    assert bad.exit_code == 2 and "unknown friction model 'hertz'" in bad.output
    assert "Did you mean 'hertzz'" not in invoke("plugins", "hertzz").output
    assert "Did you mean 'hertz'?" in invoke("plugins", "hertzz").output


def test_help_documents_the_exit_codes():
    r = invoke("--help")
    assert r.exit_code == 0
    text = " ".join(r.output.split())
    for code in ("0 done", "2 usage error", "3 the computation failed", "130 interrupted"):
        assert code in text, code


def test_exit_code_of_each_error_kind():
    from workbench.cli.main import EXIT_RUN_FAILED, EXIT_USER_ERROR, _exit_code
    from workbench.errors import MechanismError, SolverError, StudyError
    from workbench.mbs.run_control import SolverTimeLimit
    from workbench.study.checks import ImplausibleResultError
    from workbench.wear.increment import ModelOutputError
    assert (EXIT_USER_ERROR, EXIT_RUN_FAILED) == (2, 3)
    assert _exit_code(SolverError("step size underflow")) == EXIT_RUN_FAILED
    assert _exit_code(ModelOutputError("non-finite")) == EXIT_RUN_FAILED
    for exc in (StudyError("bad key"), MechanismError("no body"), ImplausibleResultError("guard"),
                SolverTimeLimit("wall-time limit")):
        assert _exit_code(exc) == EXIT_USER_ERROR, exc
    try:   # the run re-raises the limit as a SolverError naming the partial file it kept
        try:
            raise SolverTimeLimit("stopped at the wall-time limit")
        except SolverError as exc:
            raise SolverError(f"{exc}; kept in x.partial.nc") from None
    except SolverError as exc:
        assert _exit_code(exc) == EXIT_USER_ERROR


@pytest.mark.skipif(_solver_available() is not None, reason=str(_solver_available()))
def test_a_solver_failure_exits_3_with_the_message_on_stderr(tmp_path):
    study = tmp_path / "few_steps.toml"
    study.write_text(FLORES.read_text().replace("[solver]\n", "[solver]\nmax_steps = 20\n")
                     .replace("revolutions = 2 ", "t_end = 0.002 "))
    r = invoke("run", study, "-o", tmp_path / "f.nc", "--no-plot")
    assert r.exit_code == 3, r.output
    assert "max_steps was reached" in r.stderr and "max_steps" not in r.stdout
    assert "Traceback" not in r.output and (tmp_path / "f.partial.nc").exists()


@pytest.mark.skipif(_solver_available() is not None, reason=str(_solver_available()))
def test_results_on_stdout_warnings_on_stderr(tmp_path):
    study = _short(IDEAL, tmp_path, 0.0005)
    r = invoke("run", study, "-o", tmp_path / "i.nc", "--no-plot")
    assert r.exit_code == 0, r.output
    assert "wrote" in r.stdout and "running" not in r.stdout
    v = invoke("validate", FLORES)
    assert v.stdout.startswith("ok ") and v.stderr == ""


@pytest.mark.parametrize("law", ["winkler_foundation", "distributed_winkler"])
def test_validate_rejects_a_zero_winkler_layer_naming_file_key_and_bound(tmp_path, law):
    """E_w / L divides by the layer thickness: both Winkler laws refuse L = 0 at validation
    (the distributed law accepted it until its parameters were shared with the point law)."""
    study = ROOT / "studies" / "five_bar_wear_distributed.toml"
    text = study.read_text().replace('model = "distributed_winkler", calibrate = "persson", calibration_load = 130.0,',
                                     f'model = "{law}", layer_thickness = 0.0,')
    assert f'model = "{law}", layer_thickness = 0.0,' in text
    bad = tmp_path / "layer.toml"
    bad.write_text(text)
    r = invoke("validate", bad)
    assert r.exit_code == 2, r.output
    assert str(bad) in r.output and "layer_thickness" in r.output and "> 0" in r.output


def test_sighup_and_sigterm_stop_a_command_as_ctrl_c_does(monkeypatch):
    """Issue 25: SIGTERM (a batch system's kill) and SIGHUP (a closed terminal) were unhandled.  The
    command's handler (installed by the ``workbench`` entry point) turns each into the Ctrl-C path:
    exit status 130 with ``interrupted``, not a death by the signal.  The signal arrives here while
    ``validate`` loads the study; a wear run stopped by SIGTERM keeps its updates
    (tests/results/test_data_safety.py::test_sigterm_stops_a_wear_run_as_ctrl_c_does)."""
    import os
    import signal
    import time

    import workbench.study.load as load_module
    from workbench.cli.main import EXIT_INTERRUPTED, _stop_on_termination_signals
    signals = (signal.SIGHUP, signal.SIGTERM)
    saved = {s: signal.getsignal(s) for s in signals}
    try:
        _stop_on_termination_signals()
        for signum in signals:
            def signalled(*args, **kwargs):
                os.kill(os.getpid(), signum)
                time.sleep(5.0)          # the handler raises at once, inside the sleep
                raise AssertionError(f"{signal.Signals(signum).name} did not stop the command")
            monkeypatch.setattr(load_module, "load_study", signalled)
            t0 = time.monotonic()
            r = invoke("validate", FLORES)
            assert r.exit_code == EXIT_INTERRUPTED, (signum, r.output)
            assert "interrupted" in r.output and "Traceback" not in r.output
            assert time.monotonic() - t0 < 4.0    # within a second or so, not after the sleep
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)


def test_a_first_run_says_that_it_compiles_the_solver(monkeypatch):
    """Issue 25: a first run after install compiles for about 150 s, which looked like a hang.  A
    dynamics or wear run whose numba cache holds no compiled integrator says so before it starts,
    with the time from docs/performance.md; with the integrator cached, or for a pressure study
    (no integrator), nothing is said."""
    import io
    from types import SimpleNamespace

    from rich.console import Console

    import workbench.runtime.caches as caches
    from workbench.cli.main import FIRST_COMPILE_SECONDS, _compile_notice

    def said(kind, compiled):
        monkeypatch.setattr(caches, "numba_cache_dir", lambda: Path("/nonexistent/numba-cache"))
        monkeypatch.setattr(caches, "holds_compiled", lambda *a, **k: compiled)
        out = io.StringIO()
        _compile_notice(Console(file=out, width=250), SimpleNamespace(kind=kind))
        return " ".join(out.getvalue().split())

    for kind in ("dynamics", "wear"):
        note = said(kind, compiled=False)
        assert "compiling the solver once" in note and f"about {FIRST_COMPILE_SECONDS} s" in note, note
        assert said(kind, compiled=True) == ""
    assert said("pressure", compiled=False) == ""
    perf = (ROOT / "docs" / "performance.md").read_text()
    assert f"about {FIRST_COMPILE_SECONDS} s" in perf     # the notice and the doc give one figure


def test_a_model_type_no_run_has_finished_gets_the_notice_too(monkeypatch, tmp_path, registry):
    """Each feature set of the planar engine compiles its own integrator (issue 27): with an
    integrator in the cache but no finished run of this study's type (its marker missing: e.g. a
    lubricated study after plain ones), the notice is given; after ``mark_compiled`` of the key it
    returns, it is not.  The keys tell the feature sets apart."""
    import io

    from rich.console import Console

    import workbench.runtime.caches as caches
    from workbench.cli.main import _compile_notice
    from workbench.mbs.compiled import MODEL_TYPES_ENV
    from workbench.study.load import load_study
    monkeypatch.setenv(MODEL_TYPES_ENV, "per_feature")
    monkeypatch.setattr(caches, "numba_cache_dir", lambda: tmp_path)
    monkeypatch.setattr(caches, "holds_compiled", lambda *a, **k: True)

    def notice(name):
        out = io.StringIO()
        key = _compile_notice(Console(file=out, width=250), load_study(ROOT / "studies" / name, registry))
        return key, "compiling the solver once" in out.getvalue()

    plain, said = notice("flores_slider_crank.toml")
    assert plain == "compiled-000" and said
    caches.mark_compiled(plain)
    assert notice("flores_slider_crank.toml") == (plain, False)
    lub, said = notice("flores_slider_crank_lubricated.toml")
    assert lub == "compiled-010" and said
