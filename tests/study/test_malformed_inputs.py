"""Malformed study files: ``workbench validate`` and ``workbench run`` both refuse them with a clear
message (file, key, value, valid range) and exit status 2 -- never a traceback, never a late failure.

Each fixture in ``tests/data/malformed/`` is a case observed by a hostile-user review of the
workbench; its first comment lines say what is wrong.  ``run`` must refuse exactly what
``validate`` refuses, before any work, and write nothing.
"""
from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli.main import main
from workbench.errors import StudyError
from workbench.hookspecs import hookimpl
from workbench.study.load import load_study, load_study_text
from workbench.study.input import MAX_NESTING, decode_text, parse_toml

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "malformed"
FLORES = ROOT / "studies" / "flores_slider_crank.toml"

#: fixture -> fragments the message must contain (key path, value, valid range ...)
REFUSED = {
    "non_utf8.toml": ["not UTF-8", "0xE9", "line 6, column 14"],
    "binary.toml": ["binary file", "NUL byte", "byte offset 8"],
    "deep_nesting.toml": ["nested 5000 levels", "line 6", "at most 100"],
    "hertz_exponent_2.toml": ["[mechanism.clearance_joints[0].contact.exponent]", "exponent = 2",
                              "exponent 1.5", "'stiffness'"],
    "driver_polynomial_nan.toml": ["[mechanism.drivers[0].function.polynomial]", "finite", "nan"],
    "driver_harmonic_inf.toml": ["[mechanism.drivers[0].function.harmonics]", "finite", "inf"],
    "axis_zero.toml": ["[mechanism.joints[2].axis]", "[0.0, 0.0]", "at least 1e-06"],
    "axis_denormal.toml": ["[mechanism.joints[2].axis]", "1e-300", "at least 1e-06"],
    "baumgarte_1e12.toml": ["[solver.baumgarte_alpha]", "[solver.baumgarte_beta]", "1e+12",
                            "<= 10000"],
    "zero_length_rod.toml": ["body 'rod' is a zero-length link", "'A'", "'B'"],
    "rod_shorter_than_crank.toml": ["[mechanism]", "driver angle 36.9 deg", "crank_speed",
                                    "crank longer than its rod"],
    "output_step_longer_than_run.toml": ["[output.step]", "1 output sample", "0.024 s",
                                         "min_output_samples", "at most 0.0024 s"],
    "lankarani_nikravesh_e0.toml": ["[mechanism.clearance_joints[0].contact.restitution]",
                                    "restitution = 0", "between 0.8 and 1",
                                    "Lankarani & Nikravesh (1990)", "allow_out_of_range = true"],
    "wear_cycle_period_1ps.toml": ["[wear.cycle_period]", "cycle_period = 1e-12 s",
                                   "driver 'crank_speed' (0.012 s", "cycle_matches_drivers"],
    "wear_stiffness_1e20.toml": ["[mechanism.clearance_joints[0].contact.stiffness]", "1e+20",
                                 "max_stiffness_ratio"],
    "t_end_1e4.toml": ["[output.step]", "896 GB", "max_memory_gb"],
    # the estimates count the samples of max_average_cycles (an update may grow to them), not average_cycles
    "wear_samples_per_cycle_1e8.toml": ["[wear]", "1.9e+04 GB", "max_memory_gb"],
    "wear_nodes_1e7.toml": ["[wear]", "7.6e+03 GB", "max_memory_gb"],
    "stiffness_1e20.toml": ["[mechanism.clearance_joints[0].contact.stiffness]", "1e+20",
                            "max_stiffness_ratio", "factor 1000"],
}


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": "400"})


def _clean_refusal(r, path: Path, fragments: list[str]) -> None:
    assert r.exit_code == 2, r.output
    assert isinstance(r.exception, SystemExit), r.exception  # a clean exit, not an escaped error
    assert "Traceback" not in r.output
    text = " ".join(r.output.split())  # rich may wrap long lines
    assert str(path) in text or path.name in text
    for frag in fragments:
        assert frag in text, (frag, r.output)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_validate_and_run_refuse_with_a_clear_message(name, tmp_path):
    path = DATA / name
    _clean_refusal(invoke("validate", path), path, REFUSED[name])
    out = tmp_path / ("out.zarr" if name.startswith("wear") else "out.nc")
    _clean_refusal(invoke("run", path, "-o", out, "--no-plot"), path, REFUSED[name])
    assert not list(tmp_path.iterdir())  # refused before any work: nothing written


def test_every_fixture_is_covered():
    covered = set(REFUSED) | {"bom_utf8.toml", "speed_1e7_rpm.toml", "soft_contact_penetration.toml"}
    assert {p.name for p in DATA.iterdir()} == covered


def test_the_real_command_line_prints_no_traceback():
    """The installed entry function, in a fresh interpreter: stderr holds one message line."""
    path = DATA / "non_utf8.toml"
    p = subprocess.run([sys.executable, "-m", "workbench.cli.main", "validate", str(path)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert "Traceback" not in p.stderr and "not UTF-8" in p.stderr


# ------------------------------------------------------------------------------ input bytes
def test_a_byte_order_mark_is_accepted():
    r = invoke("validate", DATA / "bom_utf8.toml")
    assert r.exit_code == 0, r.output
    s = load_study(DATA / "bom_utf8.toml")
    assert not s.text.startswith("\ufeff")
    # a text that kept the mark (read by another tool) is accepted too
    assert parse_toml("\ufeff" + 'a = 1\n', "x.toml") == {"a": 1}


def test_decode_text_locates_the_bad_byte():
    with pytest.raises(StudyError, match=r"byte 0xFF at line 2, column 3 \(byte offset 6\)"):
        decode_text(b"a=1\nb=\xff\n", "x.toml")
    with pytest.raises(StudyError, match="binary file.*line 1, column 2"):
        decode_text(b"a\x00b", "x.toml")
    assert decode_text("é = 1".encode(), "x.toml") == "é = 1"


def test_brackets_in_strings_and_comments_do_not_count_as_nesting():
    text = ('s = "' + "[{" * 300 + '"\n' + "# " + "[" * 300 + "\n"
            + "m = '''\n" + "{" * 300 + "\n'''\n" + "a = " + "[" * 50 + "1" + "]" * 50 + "\n")
    doc = parse_toml(text, "x.toml")
    assert doc["s"] == "[{" * 300 and len(doc["m"]) == 301


def test_nesting_at_the_limit_is_read_one_beyond_is_refused():

    ok = "a = " + "[" * MAX_NESTING + "1" + "]" * MAX_NESTING + "\n"
    assert parse_toml(ok, "x.toml")["a"]
    deep = "a = " + "[" * (MAX_NESTING + 1) + "1" + "]" * (MAX_NESTING + 1) + "\n"
    with pytest.raises(StudyError, match="nested 101 levels"):
        parse_toml(deep, "x.toml")


# ------------------------------------------------------------------------------ model parameters
def test_a_model_parameter_out_of_bounds_names_key_value_and_range():
    text = FLORES.read_text().replace('restitution = 0.9 }', 'restitution = 0.9, exponent = 4.0 }')
    with pytest.raises(StudyError) as info:
        load_study_text(text, file="f.toml")
    msg = str(info.value)
    assert "[mechanism.clearance_joints[0].contact.exponent]" in msg
    assert "4.0" in msg and "between 1 and 3" in msg


@pytest.mark.parametrize("e, ok", [(0.8, True), (0.95, True), (0.79, False), (0.3, False)])
def test_near_elastic_laws_are_refused_below_their_documented_restitution(e, ok):
    for law in ("lankarani_nikravesh", "hunt_crossley", "herbert_mcwhannell"):
        text = FLORES.read_text().replace('model = "lankarani_nikravesh", restitution = 0.9',
                                          f'model = "{law}", restitution = {e}')
        if ok:
            assert load_study_text(text, file="f.toml").warnings == ()
        else:
            with pytest.raises(StudyError, match="allow_out_of_range"):
                load_study_text(text, file="f.toml")
            s = load_study_text(text + "\n[checks]\nallow_out_of_range = true\n", file="f.toml")
            assert len(s.warnings) == 1 and f"restitution = {e:g}" in s.warnings[0]


def test_low_restitution_laws_have_no_documented_limit():
    text = FLORES.read_text().replace('model = "lankarani_nikravesh", restitution = 0.9',
                                      'model = "flores", restitution = 0.3')
    assert load_study_text(text, file="f.toml").warnings == ()


#: stiffness of the Flores joint from its materials (E = 207 GPa, nu = 0.3 both) and radii
#: (10.5 / 10.0 mm): K = 4/(3 (h_i + h_j)) sqrt(R_i R_j / (R_i - R_j)), h = (1 - nu^2)/E
#: (Wang, Chen, Ma & Sun (2016) eq. 11) = 6.95e10 N/m^1.5
K_FLORES = 4.0 / (3.0 * 2.0 * (1.0 - 0.3 ** 2) / 207e9) * math.sqrt(0.0105 * 0.0100 / 0.0005)


@pytest.mark.parametrize("factor, ok", [(1.0, True), (900.0, True), (1 / 900.0, True),
                                        (1100.0, False), (1 / 1100.0, False)])
def test_stiffness_is_compared_with_the_materials(factor, ok):
    """Same exponent (1.5) as the materials' law, so the force ratio is the stiffness ratio; the
    default limit is a factor 1e3 either way."""
    K = factor * K_FLORES
    text = FLORES.read_text().replace('restitution = 0.9 }', f'restitution = 0.9, stiffness = {K!r} }}')
    if ok:
        load_study_text(text, file="f.toml")
    else:
        with pytest.raises(StudyError, match="max_stiffness_ratio") as info:
            load_study_text(text, file="f.toml")
        ratio = float(__import__("re").search(r"N, ([0-9.e+-]+) times", str(info.value)).group(1))
        assert ratio == pytest.approx(factor, rel=1e-2)
        load_study_text(text + "\n[checks]\nmax_stiffness_ratio = 1e5\n", file="f.toml")


def test_output_sample_guard_is_overridable_but_never_below_two():
    text = FLORES.read_text().replace("step = 1.0e-5 ", "step = 0.006 ")  # 0.024 s / 0.006 = 4
    with pytest.raises(StudyError, match=r"at least 10 are needed"):
        load_study_text(text, file="f.toml")
    load_study_text(text + "\n[checks]\nmin_output_samples = 4\n", file="f.toml")
    with pytest.raises(StudyError, match=r"checks.min_output_samples.*>= 2"):
        load_study_text(text + "\n[checks]\nmin_output_samples = 1\n", file="f.toml")


def test_checks_table_is_schema_checked():
    with pytest.raises(StudyError) as info:
        load_study_text(FLORES.read_text() + '\n[checks]\non_implausible = "ignore"\nmax_penetraton = 1\n',
                        file="f.toml")
    msg = str(info.value)
    assert "[checks.on_implausible]" in msg and "'stop'" in msg and "'warn'" in msg
    assert "Did you mean 'max_penetration_ratio'?" in msg


# ------------------------------------------------------------------------------ after the run
def _short(text: str, extra: str = "") -> str:
    return (text.replace("revolutions = 0.25 ", "revolutions = 0.1 ")
            .replace("compare_ideal = true", "compare_ideal = false") + extra)


def test_penetration_guard_stops_the_run_and_keeps_the_results_marked(tmp_path):
    from workbench.results.dataset import open_results
    study = tmp_path / "soft.toml"
    study.write_text(_short((DATA / "soft_contact_penetration.toml").read_text()))
    out = tmp_path / "soft.nc"
    r = invoke("run", study, "-o", out, "--no-plot")
    assert r.exit_code == 2 and isinstance(r.exception, SystemExit), r.output
    text = " ".join(r.output.split())
    assert "clearance joint 'B': penetration reached" in text and "max_penetration_ratio = 1" in text
    assert not out.exists()
    kept = tmp_path / "soft.partial.nc"
    with open_results(kept) as ds:
        assert ds.attrs["run_status"].startswith("rejected: clearance joint 'B'")
        pen = float(ds["penetration"].max())
    assert pen > 5e-4  # the guard's limit: the 0.5 mm clearance


def test_penetration_guard_can_warn_instead(tmp_path):
    from workbench.results.dataset import open_results
    study = tmp_path / "soft.toml"
    study.write_text(_short((DATA / "soft_contact_penetration.toml").read_text(),
                            'on_implausible = "warn"\n'))
    out = tmp_path / "soft.nc"
    r = invoke("run", study, "-o", out, "--no-plot")
    assert r.exit_code == 0, r.output
    with open_results(out) as ds:
        assert "penetration reached" in ds.attrs["warnings"]


def test_out_of_range_law_allowed_writes_the_warning_into_the_dataset(tmp_path):
    from workbench.results.dataset import open_results
    study = tmp_path / "ln.toml"
    study.write_text(_short((DATA / "lankarani_nikravesh_e0.toml").read_text()
                            .replace("revolutions = 2 ", "revolutions = 0.1 "),
                            "\n[checks]\nallow_out_of_range = true\n"))
    out = tmp_path / "ln.nc"
    r = invoke("run", study, "-o", out, "--no-plot")
    assert r.exit_code == 0, r.output
    with open_results(out) as ds:
        w = ds.attrs["warnings"]
    assert "restitution = 0 is outside the range between 0.8 and 1" in w
    assert "allow_out_of_range = true" in w


@pytest.mark.slow
def test_1e7_rpm_is_stopped_by_the_penetration_guard(tmp_path):
    """The journal goes deeper than its own radius (10 mm) into the bushing: refused, exit 2
    (about 20 s of integration)."""
    r = invoke("run", DATA / "speed_1e7_rpm.toml", "-o", tmp_path / "fast.nc", "--no-plot")
    assert r.exit_code == 2, r.output
    text = " ".join(r.output.split())
    m = __import__("re").search(r"penetration reached ([0-9.e+-]+) m", text)
    assert m and float(m.group(1)) > 0.010
    assert not (tmp_path / "fast.nc").exists() and (tmp_path / "fast.partial.nc").exists()
    assert math.isfinite(float(m.group(1)))


def test_penetration_findings_at_the_limit():
    """The guard compares the largest sampled penetration with ratio x clearance (0.5 mm here);
    a NaN sample counts as beyond any limit."""
    from types import SimpleNamespace

    import numpy as np

    from workbench.study.checks import Checks, penetration_findings
    mech = load_study_text(FLORES.read_text(), file="f.toml").mechanism
    t = np.linspace(0.0, 1e-3, 5)

    def sim(peak):
        return SimpleNamespace(time=t, penetration=np.array([[-1e-4], [2e-5], [peak], [0.0], [-2e-4]]))

    assert penetration_findings(sim(4.99e-4), mech, Checks()) == []
    found = penetration_findings(sim(5.01e-4), mech, Checks())
    assert len(found) == 1 and "at t = 0.0005 s" in found[0] and "1 times its clearance" in found[0]
    assert penetration_findings(sim(2.6e-4), mech, Checks(max_penetration_ratio=0.5))
    assert penetration_findings(sim(float("nan")), mech, Checks())


@pytest.mark.parametrize("period, ok", [(0.012, True), (0.036, True), (0.0120001, False),
                                        (0.006, False)])
def test_wear_cycle_must_be_whole_driver_periods(period, ok):
    """5000 rpm: one turn in 12 ms; the cycle may hold several turns, never a fraction."""
    text = (ROOT / "studies" / "slider_crank_wear.toml").read_text().replace(
        "[wear]\n", f"[wear]\ncycle_period = {period!r}\n", 1)
    if ok:
        assert load_study_text(text, file="w.toml").wear.cycle_period == period
    else:
        with pytest.raises(StudyError, match=r"\[wear.cycle_period\].*not a whole number"):
            load_study_text(text, file="w.toml")
        load_study_text(text + "\n[checks]\ncycle_matches_drivers = false\n", file="w.toml")


# ------------------------------------------------------------------------------ hostile models
class _HostilePlugin:
    """A contact law whose pack() raises, and one whose kernel does not compile with the solver's
    signature: both must be refused by validate, named with the key path, not at run time."""

    @staticmethod
    def _models():
        from dataclasses import dataclass

        import numpy as np

        from workbench.models import ContactLaw

        def tuple_kernel(delta, delta_dot, delta_dot_minus, p):
            return (delta, delta)  # two values: not the solver's float return

        class PackRaises(ContactLaw):
            name = "pack_raises"
            reference = "test fixture"

            @dataclass(frozen=True)
            class Params:
                pass

            kernel = staticmethod(lambda d, dd, dm, p: 0.0)

            def pack(self, geometry):
                raise RuntimeError("lookup table missing")

        class BadKernel(ContactLaw):
            name = "bad_kernel"
            reference = "test fixture"

            @dataclass(frozen=True)
            class Params:
                pass

            kernel = staticmethod(tuple_kernel)

            def pack(self, geometry):
                return np.zeros(1)
        return PackRaises, BadKernel

    @hookimpl
    def register_contact_laws(self, register):
        for m in self._models():
            register(m)


@pytest.mark.parametrize("law, fragment", [
    ("pack_raises", "RuntimeError: lookup table missing"),
    ("bad_kernel", "does not compile with the solver's signature")])
def test_a_hostile_model_is_refused_by_validate(law, fragment):
    from workbench.plugins import build_registry, get_plugin_manager
    reg = build_registry(get_plugin_manager(load_entry_points=False, extra_plugins=(_HostilePlugin(),)))
    text = FLORES.read_text().replace('contact = { model = "lankarani_nikravesh", restitution = 0.9 }',
                                      f'contact = {{ model = "{law}" }}').replace(
        'friction = { model = "ambrosio", c_f = 0.01, v0 = 1.0e-4, v1 = 1.0e-2 }\n', "")
    with pytest.raises(StudyError) as info:
        load_study_text(text, file="h.toml", registry=reg)
    msg = str(info.value)
    assert "h.toml" in msg and "[mechanism.clearance_joints[0].contact]" in msg and fragment in msg


def test_memory_estimate_is_overridable():
    text = (DATA / "t_end_1e4.toml").read_text()
    with pytest.raises(StudyError, match="max_memory_gb"):
        load_study_text(text, file="m.toml")
    s = load_study_text(text.replace("compare_ideal = true", "compare_ideal = false")
                        + "\n[checks]\nmax_memory_gb = 1000\n", file="m.toml")
    assert s.solver.t_end == 1e4
