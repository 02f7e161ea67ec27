"""Sizes bounded before work starts (workbench/study/bounds.py): what would never end is refused
by ``validate`` (and so by ``run``) with the key, the value, the limit and how to go beyond it.

* ``[wear] cycles = 1e300`` is above ``[checks] max_cycles``; raised there, it is accepted;
* ``speed_rpm = 1e308`` overflows to an infinite speed: a clear error, not a division by zero;
* ``speed_rpm = -1`` and ``+1`` are valid crank speeds (reverse rotation, a 60 s cycle): accepted,
  their cost bounded at run time (``[checks] max_run_hours``, tests/runtime/test_hangs.py);
* a wear update's memory counts the averaging cycles it may grow to (``max_average_cycles``).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
CRANK = ROOT / "studies" / "slider_crank_wear.toml"


def _validate(tmp_path: Path, text: str):
    study = tmp_path / "s.toml"
    study.write_text(text)
    before = study.stat().st_mtime_ns
    r = CliRunner().invoke(main, ["validate", str(study)], env={"COLUMNS": "400"})
    assert study.stat().st_mtime_ns == before and study.read_text() == text   # input unchanged
    return r


def _crank(**replace) -> str:
    text = CRANK.read_text()
    for old, new in replace.items():
        assert old in text
        text = text.replace(old, new)
    return text


def test_absurd_cycles_are_refused_with_the_bound_and_its_key(tmp_path):
    r = _validate(tmp_path, _crank(**{"cycles = 1.0e6": "cycles = 1e300"}))
    assert r.exit_code == 2, r.output
    assert "[wear.cycles]" in r.output and "1e+300" in r.output
    assert "[checks] max_cycles" in r.output and "1e+10" in r.output
    assert "Traceback" not in r.output


def test_raising_max_cycles_lets_a_long_study_through(tmp_path):
    text = _crank(**{"cycles = 1.0e6": "cycles = 1e12"}) + "\n[checks]\nmax_cycles = 1e13\n"
    r = _validate(tmp_path, text)
    assert r.exit_code == 0, r.output


def test_an_overflowing_crank_speed_is_a_clear_error(tmp_path):
    r = _validate(tmp_path, _crank(**{"speed_rpm = 5000.0 ": "speed_rpm = 1e308 "}))
    assert r.exit_code == 2, r.output
    assert "[mechanism.drivers[0].speed_rpm]" in r.output and "1e+308" in r.output
    assert "ZeroDivisionError" not in r.output and "Traceback" not in r.output


def test_a_speed_no_step_could_resolve_is_refused(tmp_path):
    r = _validate(tmp_path, _crank(**{"speed_rpm = 5000.0 ": "speed_rpm = 1e200 "}))
    assert r.exit_code == 2, r.output
    assert "speed_rpm" in r.output and "shortest period" in r.output


@pytest.mark.parametrize("rpm", ["-1.0", "1.0"])
def test_a_slow_crank_either_way_is_a_valid_study(tmp_path, rpm):
    # 1 rev/min (or reversed): a 60 s machine cycle, valid physics; its cost is bounded at run time
    r = _validate(tmp_path, _crank(**{"speed_rpm = 5000.0 ": f"speed_rpm = {rpm} "}))
    assert r.exit_code == 0, r.output
    assert re.search(r"cycles of 60 s", r.output), r.output


def test_the_memory_estimate_counts_the_largest_number_of_averaging_cycles(tmp_path):
    # 2880 samples x 720 nodes x 8 bytes = 16.6 MB per cycle: 1 + 24 cycles fit in 0.5 GB,
    # 1 + 48 (max_average_cycles) do not
    text = _crank() + "\n[checks]\nmax_memory_gb = 0.5\n"
    r = _validate(tmp_path, text)
    assert r.exit_code == 2, r.output
    assert "max_memory_gb" in r.output and "0.813 GB" in r.output
    r = _validate(tmp_path, _crank(**{"max_average_cycles = 48": "max_average_cycles = 24"})
                  + "\n[checks]\nmax_memory_gb = 0.5\n")
    assert r.exit_code == 0, r.output
