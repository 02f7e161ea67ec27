"""The one engine interface (workbench.engines): the selector, its reasons and errors, the
engine recorded in the dataset, and an explicit engine equal to the one ``auto`` picks."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import xarray as xr

from workbench import engines
from workbench.errors import StudyError
from workbench.mbs.solution import Simulation, SolverSettings
from workbench.study.load import load_study, load_study_text

STUDIES = Path(__file__).resolve().parents[2] / "studies"
FLORES = STUDIES / "flores_slider_crank.toml"


def _flores(solver_extra: str = "", revolutions: str = "0.1") -> str:
    text = FLORES.read_text().replace("revolutions = 2 ", f"revolutions = {revolutions} ")
    return text.replace("[solver]\n", "[solver]\n" + solver_extra + "\n")


# ------------------------------------------------------------------ the interface
def test_every_engine_declares_its_settings_and_their_union_is_the_study_container():
    """``SolverSettings`` stays the study's container; each engine reads its own part of it."""
    container = {f.name for f in dataclasses.fields(SolverSettings)}
    union = set()
    for e in engines.ENGINES:
        own = {f.name for f in dataclasses.fields(e.settings)}
        assert own <= container, (e.name, own - container)
        assert {f.name for f in dataclasses.fields(engines.CommonSettings)} <= own
        union |= own
        assert e.summary and "\n" not in e.summary and e.name in engines.names()
    assert union == container
    s = SolverSettings(t_end=0.5, step=1e-5)
    assert engines.get("moreau_jean").own_settings(s).step == 1e-5
    assert not hasattr(engines.get("compiled").own_settings(s), "step")


def test_unknown_engine_names_the_valid_ones():
    with pytest.raises(engines.EngineRefused) as e:
        engines.get("compiledd")
    assert "compiled" in str(e.value) and "auto" in str(e.value)


# ------------------------------------------------------------------ the selector
@pytest.mark.parametrize("study, extra, engine, reason", [
    ("flores_slider_crank.toml", "", "compiled", "auto: the preferred engine 'compiled'"),
    ("flores_slider_crank.toml", 'path = "scipy"', "scipy_reference", "auto: path = 'scipy'"),
    ("flores_slider_crank.toml", 'engine = "scipy_reference"', "scipy_reference",
     "[solver] engine = 'scipy_reference'"),
    ("stick_slip_oscillator.toml", "", "event_driven", "auto: set-valued friction on joint"),
    ("flores_slider_crank_moreau_jean.toml", "", "moreau_jean", "auto: method = 'moreau_jean'"),
    ("flexible_slider_crank_c005.toml", "", "generalized_alpha", "auto: the mechanism has flexible beams"),
])
def test_the_selector_picks_each_engine_with_its_reason(registry, study, extra, engine, reason):
    text = (STUDIES / study).read_text()
    if extra:
        text = text.replace("[solver]\n", "[solver]\n" + extra + "\n")
    s = load_study_text(text, file=study, registry=registry)
    sel = engines.select(s.mechanism, s.solver)
    assert sel.engine.name == engine and sel.reason.startswith(reason), sel.reason


def test_the_event_driven_reason_names_the_joint(registry):
    s = load_study(STUDIES / "stick_slip_oscillator.toml", registry=registry)
    sel = engines.select(s.mechanism, s.solver)
    assert "'contact'" in sel.reason and "event-driven engine" in sel.reason


def test_an_explicit_engine_that_refuses_is_a_clear_error(registry):
    flores = load_study_text(_flores(), registry=registry)
    settings = dataclasses.replace(flores.solver, engine="event_driven")
    with pytest.raises(engines.EngineRefused) as e:
        engines.select(flores.mechanism, settings)
    msg = str(e.value)
    assert "engine = 'event_driven' cannot run this study" in msg
    assert "set-valued friction" in msg and "'compiled'" in msg and "'scipy_reference'" in msg
    # the same found by validate, at the key that asked for it
    with pytest.raises(StudyError) as e:
        load_study_text(_flores('engine = "generalized_alpha"'), registry=registry)
    assert "solver.engine" in str(e.value) and "no flexible beams" in str(e.value)
    # an older spelling that contradicts the engine asked for
    with pytest.raises(StudyError) as e:
        load_study_text(_flores('engine = "compiled"\npath = "scipy"'), registry=registry)
    assert "solver.engine" in str(e.value) and "path = 'scipy'" in str(e.value)


def test_a_key_of_another_engine_and_a_wear_run_on_an_engine_without_worn_surfaces(registry):
    with pytest.raises(StudyError) as e:
        load_study_text(_flores("step = 1.0e-5"), registry=registry)
    assert "solver.step" in str(e.value) and "moreau_jean" in str(e.value)
    assert engines.get("moreau_jean").worn_surfaces is False
    assert engines.get("event_driven").worn_surfaces is False


def test_moreau_jean_problems_come_from_the_engine(registry):
    with pytest.raises(StudyError) as e:
        load_study_text(_flores('engine = "moreau_jean"'), registry=registry)
    assert "solver.step" in str(e.value)
    s = load_study_text(_flores('engine = "moreau_jean"\nstep = 1.0e-5'), registry=registry)
    assert engines.select(s.mechanism, s.solver).reason == "[solver] engine = 'moreau_jean'"


# ------------------------------------------------------------------ runs
def test_the_dataset_records_the_engine_and_an_explicit_engine_equals_auto_bit_for_bit(registry):
    from workbench import kinds
    auto = load_study_text(_flores(revolutions="0.05"), registry=registry)
    explicit = load_study_text(_flores('engine = "compiled"', revolutions="0.05"), registry=registry)
    a = kinds.run(auto, registry=registry)
    b = kinds.run(explicit, registry=registry)
    assert a.attrs["engine"] == b.attrs["engine"] == "compiled"
    assert a.attrs["engine_reason"].startswith("auto: ")
    assert b.attrs["engine_reason"] == "[solver] engine = 'compiled'"
    assert a.sizes["impact"] > 0 or a.sizes["time"] > 100
    xr.testing.assert_equal(a, b)         # values, bit for bit (attrs aside)


def test_the_simulation_says_which_engine_ran(registry):
    s = load_study_text(_flores(revolutions="0.02"), registry=registry)
    sim = engines.simulate(s.mechanism, s.solver)
    assert isinstance(sim, Simulation) and sim.engine == "compiled" and sim.engine_reason


def test_event_driven_dataset_records_its_engine(registry):
    from workbench import kinds
    s = load_study(STUDIES / "stick_slip_oscillator.toml", registry=registry)
    s = dataclasses.replace(s, solver=dataclasses.replace(s.solver, t_end=0.1))
    ds = kinds.run(s, registry=registry)
    assert ds.attrs["engine"] == "event_driven" and "set-valued" in ds.attrs["engine_reason"]
    assert ds.attrs["solver"] == "event_driven"


def test_no_other_module_decides_which_solver_runs():
    """The signals the selector reads (a friction law's set_valued flag, beams, path, method =
    "moreau_jean") are not read elsewhere to pick a solver."""
    import re
    root = Path(__file__).resolve().parents[2] / "workbench"
    pattern = re.compile(r"uses_event_driven|has_beams\(|settings\.path ==|method == \"moreau_jean\"|"
                         r"from \.\.(mbs|flex)\.solver import simulate|from \.\.flex\.solver import simulate")
    own = {"mbs/solver.py"}   # its two paths, which the compiled and scipy_reference engines set
    offenders = [str(p.relative_to(root)) for p in root.rglob("*.py")
                 if "engines" not in p.parts and str(p.relative_to(root)) not in own
                 and pattern.search(p.read_text())]
    assert offenders == []


def _former_choice(mechanism, settings) -> str:
    """The solver the code before workbench.engines ran (kinds/dynamics, results.run_dynamics,
    wear.flex_dynamics.simulator, mbs.solver's path), frozen here as the oracle."""
    from workbench.nonsmooth.support import is_set_valued
    if getattr(mechanism, "dimension", 2) == 3:
        return "spatial"   # spatial studies came with the spatial engine (no former solver)
    if any(is_set_valued(getattr(j, "friction", None)) for j in mechanism.joints):
        return "event_driven"
    if settings.method == "moreau_jean":
        return "moreau_jean"
    if getattr(mechanism, "beams", ()):
        return "generalized_alpha"
    return "compiled" if settings.path == "fast" else "scipy_reference"


def test_every_shipped_study_runs_on_the_solver_it_ran_on_before(registry):
    """The engines are thin adapters over the same solvers with the same settings, so the same
    choice for every shipped study means the same numbers."""
    from workbench.study.input import is_sweep_file
    seen = set()
    for path in sorted(STUDIES.glob("*.toml")):
        if is_sweep_file(path) or 'kind = "pressure"' in path.read_text():
            continue
        s = load_study(path, registry=registry)
        sel = engines.select(s.mechanism, s.solver)
        assert sel.engine.name == _former_choice(s.mechanism, s.solver), path.name
        seen.add(sel.engine.name)
    assert seen == {"compiled", "event_driven", "moreau_jean", "generalized_alpha", "spatial"}


def test_the_engines_import_no_study_kind_cli_or_results_module():
    """Layer: engines and physics (docs: DESIGN.md) -- never a study kind, the CLI, the study layer
    or workbench.results, at module level or inside a function."""
    import re
    root = Path(__file__).resolve().parents[2] / "workbench" / "engines"
    bad = re.compile(r"from \.\.(kinds|cli|results|study|sweeps|converge|api)\b|import workbench\.(kinds|cli|results|study)")
    found = [f"{p.name}: {m.group(0)}" for p in root.glob("*.py") for m in bad.finditer(p.read_text())]
    assert found == []
