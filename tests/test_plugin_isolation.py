"""Isolation: a broken plugin never breaks the host silently.

* A plugin that fails to import — or whose registration hook raises — warns and is skipped; the
  other models stay usable.  The plugins here are *installed* the way pip leaves them (a module and
  a ``.dist-info`` with ``entry_points.txt`` on ``sys.path``), so the host finds them through
  ``importlib.metadata`` exactly as a user's; nothing is monkeypatched.
* Two distributions registering one model name: that name is refused where a study uses it, with
  a message naming both (plugin, distribution, version), also from the command line (exit status
  2, no traceback); every other model and command works.
* A model that returns NaN or a wrong shape during a run stops it with an error naming the
  model, the joint and when (time of the dynamics, wear update and cycles of the wear loop), and
  what the run had written stays readable.  (A contact law returning NaN is covered by
  tests/results/test_partial_results.py.)

The broken models are in tests/isolation_models.py.
"""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from click.testing import CliRunner

import isolation_models
from workbench.cli.main import main
from workbench.errors import PluginError, SolverError, WorkbenchError
from workbench.plugins import build_registry, get_plugin_manager
from workbench.study.load import load_study_text, run_study

ROOT = Path(__file__).resolve().parents[1]
FLORES = ROOT / "studies" / "flores_slider_crank.toml"
RIG = ROOT / "studies" / "journal_wear_constant_load.toml"


# ------------------------------------------------------------------------------------------------
# installed plugins (module + .dist-info on sys.path)
# ------------------------------------------------------------------------------------------------
CONTACT_LAW = """
    from dataclasses import dataclass
    import numpy as np
    from numba import njit
    from workbench.hookspecs import hookimpl
    from workbench.models import ContactLaw

    @njit
    def _force(delta, delta_dot, delta_dot_minus, p):
        return p[0] * delta if delta > 0.0 else 0.0

    class Law(ContactLaw):
        \"\"\"Linear spring (test fixture).\"\"\"
        name = "{name}"
        reference = "test fixture (2026)"

        @dataclass(frozen=True)
        class Params:
            pass

        kernel = _force

        def pack(self, geometry):
            return np.array([1e8])
"""


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": "250"})


def test_plugin_that_fails_to_import_warns_and_is_skipped(site):
    site("wb-broken-import", "1.0", "broken_import", "wb_test_broken_import",
         "import wb_test_missing_dependency  # not installed\n")
    with pytest.warns(RuntimeWarning) as record:
        reg = build_registry()
    msgs = [str(w.message) for w in record if "broken_import" in str(w.message)]
    assert len(msgs) == 1
    assert "'wb-broken-import'" in msgs[0] and "ModuleNotFoundError" in msgs[0]
    assert "wb_test_missing_dependency" in msgs[0] and "skipped" in msgs[0]
    assert "hertz" in reg.names("contact")  # the others are untouched
    with pytest.warns(RuntimeWarning, match="broken_import"):
        r = invoke("plugins", "--family", "contact")
    assert r.exit_code == 0 and "hertz" in r.output


def test_plugin_whose_hook_raises_warns_and_registers_nothing(site):
    site("wb-lazy", "2.0", "lazy_import", "wb_test_lazy_import", CONTACT_LAW.format(name="lazy_law") + """
    class Other(Law):
        \"\"\"Registered before the failure (test fixture).\"\"\"
        name = "registered_first"

    from workbench.hookspecs import hookimpl

    @hookimpl
    def register_contact_laws(register):
        register(Other)
        import wb_test_missing_heavy_dependency  # a lazy import inside the hook
        register(Law)
    """)
    with pytest.warns(RuntimeWarning) as record:
        reg = build_registry()
    msgs = [str(w.message) for w in record if "lazy_import" in str(w.message)]
    assert len(msgs) == 1
    assert "'wb-lazy'" in msgs[0] and "register_contact_laws" in msgs[0]
    assert "wb_test_missing_heavy_dependency" in msgs[0] and "skipped" in msgs[0]
    # all or nothing: the model registered before the failure is not half-installed
    assert "registered_first" not in reg.names("contact") and "lazy_law" not in reg.names("contact")
    assert "hertz" in reg.names("contact")


def test_two_distributions_registering_one_name_is_refused_only_where_it_is_used(site, tmp_path):
    """Was: every command refused (a third-party copy of a built-in name stopped the workbench).
    Now the name is refused where a study uses it, naming both distributions (exit 2); every
    other command and model works, and ``plugins`` lists the clash."""
    hook = """
    @hookimpl
    def register_contact_laws(register):
        register(Law)
    """
    # an exact duplicate of a built-in name, and two third parties clashing with each other
    site("wb-clash-one", "1.0", "clash_one", "wb_test_clash_one", CONTACT_LAW.format(name="hertz") + hook)
    site("wb-clash-two", "2.5", "clash_two", "wb_test_clash_two", CONTACT_LAW.format(name="hertz") + hook)
    reg = build_registry()
    assert "hertz" not in reg.names("contact") and "lankarani_nikravesh" in reg.names("contact")
    with pytest.raises(PluginError) as err:
        reg.entry("contact", "hertz")
    msg = str(err.value)
    for part in ("'hertz'", "'clash_one'", "'clash_two'", "wb-clash-one 1.0", "wb-clash-two 2.5",
                 "joint-wear-workbench"):
        assert part in msg, msg
    r = invoke("validate", FLORES)                       # uses lankarani_nikravesh: unaffected
    assert r.exit_code == 0, r.output
    r = invoke("plugins")
    assert r.exit_code == 0 and "hertz" in r.output and "wb-clash-one 1.0" in r.output, r.output
    study = tmp_path / "hertz.toml"
    study.write_text(FLORES.read_text().replace('model = "lankarani_nikravesh", restitution = 0.9',
                                                'model = "hertz"'))
    assert 'model = "hertz"' in study.read_text()
    r = invoke("validate", study)
    text = " ".join(r.output.split())
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert "wb-clash-one 1.0" in text and "wb-clash-two 2.5" in text and "joint-wear-workbench" in text
    assert str(study) in text and "contact" in text


# ------------------------------------------------------------------------------------------------
# a model failing during a dynamics run
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def registry():
    return build_registry(get_plugin_manager(extra_plugins=(isolation_models,)))


def _flores(contact=None, friction=None, t_end="2.0e-3"):
    text = FLORES.read_text()
    if contact:
        text = text.replace('model = "lankarani_nikravesh", restitution = 0.9', f'model = "{contact}"')
    if friction:
        text = text.replace('model = "ambrosio", c_f = 0.01, v0 = 1.0e-4, v1 = 1.0e-2', f'model = "{friction}"')
    return text.replace("revolutions = 2 ", f"t_end = {t_end}")


def test_nan_friction_stops_the_run_naming_joint_model_and_time(registry, tmp_path):
    study = load_study_text(_flores(friction="nan_friction"), file=tmp_path / "s.toml", registry=registry)
    out = tmp_path / "nan_friction.nc"
    with pytest.raises(SolverError, match=r"joint 'B'.*friction model 'nan_friction'.*t = [0-9.e-]+ s") as err:
        run_study(study, registry=registry, out=out)
    assert "partial.nc" in str(err.value) and not out.exists()
    with xr.open_dataset(tmp_path / "nan_friction.partial.nc") as ds:
        assert ds.attrs["run_status"].startswith("failed:")
        assert ds.sizes["time"] > 10  # the free flight before the first impact (about 0.23 ms)
        assert np.all(np.isfinite(ds["contact_force"].values))


def test_contact_kernel_of_the_wrong_shape_is_an_error_naming_model_and_joint(registry, tmp_path):
    # refused when the study is loaded (validate compiles every kernel as run does), before a run
    with pytest.raises(WorkbenchError, match=r"(?s)(?=.*'tuple_contact')(?=.*'B')"):
        study = load_study_text(_flores(contact="tuple_contact"), file=tmp_path / "s.toml", registry=registry)
        run_study(study, registry=registry, out=tmp_path / "tuple.nc")
    assert not (tmp_path / "tuple.nc").exists()


# ------------------------------------------------------------------------------------------------
# a model failing during a wear run
# ------------------------------------------------------------------------------------------------
def _rig(pressure=None, law=None):
    text = RIG.read_text()
    text = text.replace("cycles = 2000.0", "cycles = 1.0e6")  # the break comes at update 1 anyway
    if pressure:
        text = text.replace('pressure = { model = "winkler", stiffness = 3.0e12 }', f'pressure = {{ model = "{pressure}", stiffness = 3.0e12 }}')
    if law:
        text = text.replace('law = { model = "archard", wear_coefficient = 1.0e-15 }', f'law = {{ model = "{law}" }}')
    return text


def _fails_and_keeps_update_0(registry, tmp_path, model, **which):
    """Run the rig with a model that breaks from update 1 on; check the error and the store."""
    from workbench.wear.store import open_store

    study = load_study_text(_rig(**which), file=tmp_path / "rig.toml", registry=registry)
    out = tmp_path / "rig.zarr"
    with pytest.raises(WorkbenchError) as err:
        run_study(study, registry=registry, out=out)
    msg = str(err.value)
    assert f"'{model}'" in msg and "'J'" in msg and "update 1" in msg and "cycles" in msg, msg
    ds = open_store(out)  # what the run wrote before the failure
    assert int(ds.attrs["updates_completed"]) == 1 and ds.sizes["cycle"] == 1
    assert ds["wear_depth"].attrs["units"] == "m"
    assert np.all(np.isfinite(ds["wear_depth"].values)) and np.all(np.isfinite(ds["depth_increment"].values))


def test_pressure_model_returning_nan_stops_the_wear_run(registry, tmp_path):
    _fails_and_keeps_update_0(registry, tmp_path, "nan_when_worn", pressure="nan_when_worn")


def test_pressure_model_returning_a_wrong_shape_stops_the_wear_run(registry, tmp_path):
    _fails_and_keeps_update_0(registry, tmp_path, "short_when_worn", pressure="short_when_worn")


def test_wear_law_returning_nan_stops_the_wear_run(registry, tmp_path):
    _fails_and_keeps_update_0(registry, tmp_path, "nan_when_slid", law="nan_when_slid")


def test_wear_law_returning_a_wrong_shape_stops_the_wear_run(registry, tmp_path):
    _fails_and_keeps_update_0(registry, tmp_path, "summed_when_slid", law="summed_when_slid")


def test_a_slow_plugin_import_is_reported_with_its_time(site, monkeypatch):
    """Was: a plugin taking 20 s to import slowed every command, ``validate`` included, without a
    word.  Now a note on stderr names it, its distribution and the time (threshold lowered here
    so that the test sleeps 0.3 s, not 20)."""
    import workbench.plugins as host
    monkeypatch.setattr(host, "SLOW_IMPORT_SECONDS", 0.2)
    site("wb-slow", "4.2", "slow_import", "wb_test_slow_import",
         "import time\ntime.sleep(0.3)   # a heavy import at module level\n")
    r = invoke("validate", FLORES)
    assert r.exit_code == 0, r.output
    notes = [line for line in r.output.splitlines() if "slow_import" in line]
    assert len(notes) == 1 and "'wb-slow'" in notes[0] and "to import" in notes[0], r.output
    took = float(notes[0].split(" took ")[1].split(" s")[0])
    assert 0.3 <= took < 30.0
