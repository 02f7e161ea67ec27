"""``validate`` refuses a spatial study whose run would stop at its first right-hand side
(:mod:`workbench.study.spatial_start`): the bar of ``studies/qi_pendulum_universal.toml`` released
turning about both cross axes at mu = 0.5 self-locks at t = 0 (critical coefficient 0.4384,
``tests/spatial/test_self_locking.py``); ``validate`` says so with the run's message and exit
status, and ``run`` stops before any work with the same message.
"""
from __future__ import annotations

import dataclasses
import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli.main import main
from workbench.errors import MechanismError
from workbench.engines.spatial import simulate
from workbench.study.load import load_study, load_study_text

ROOT = Path(__file__).resolve().parents[2]
UNIVERSAL = ROOT / "studies" / "qi_pendulum_universal.toml"
SPATIAL = [p for p in sorted((ROOT / "studies").glob("*.toml"))
           if re.search(r"^dimension\s*=\s*3", p.read_text(), re.M)]


def _self_locking(tmp_path) -> Path:
    """The shipped universal study at mu = 0.5, released turning -1 rad/s about the ground's cross
    axis a = z and 1 rad/s about the bar's b = y (``tests/spatial/test_self_locking.py``'s case):
    centre-of-mass velocity omega x r_c = (0, -0.5, -0.5) m/s."""
    text = UNIVERSAL.read_text()
    for old, new in (('friction = { model = "coulomb", mu = 0.1 }', 'friction = { model = "coulomb", mu = 0.5 }'),
                     ("velocity = [0.0, 0.0, -0.5]", "velocity = [0.0, -0.5, -0.5]"),
                     ("angular_velocity = [0.0, 1.0, 0.0]", "angular_velocity = [0.0, 1.0, -1.0]")):
        assert text.count(old) == 1, old   # the shipped study changed: update this case
        text = text.replace(old, new)
    path = tmp_path / "universal_locked.toml"
    path.write_text(text)
    return path


def test_validate_refuses_the_self_locking_universal_joint_as_run_does(tmp_path):
    study = _self_locking(tmp_path)
    res = CliRunner().invoke(main, ["validate", str(study)])
    # a MechanismError, as the run's own fault: the study as written has no consistent start (exit 2)
    assert res.exit_code == 2, res.output
    msg = res.output
    assert str(study) in msg and "[mechanism.joints[0].friction]" in msg and "self-locking" in msg
    assert "Lower the friction coefficient" in msg and "(now 0.5)" in msg
    # the faces' advice names the universal joint, whose journals carry each other's friction moment
    assert "end faces wider apart" in msg and "universal joint(s) 'cross'" in msg
    stated = float(re.search(r"'cross': mu = ([0-9.eE+-]+)", msg).group(1))
    assert 0.43 < stated < 0.445   # the critical coefficient (0.4384 against the reference)

    out = tmp_path / "locked.nc"
    ran = CliRunner().invoke(main, ["run", str(study), "-o", str(out), "--no-plot"])
    assert ran.exit_code == res.exit_code and ran.output == msg
    assert not out.exists()

    # the fault the engine itself raises at t = 0 (its reference path, no compilation) is the
    # message validate quotes (the study loaded without the start checks, as a run would meet it)
    loaded = load_study_text(study.read_text(), file=study, run_checks=False)
    settings = dataclasses.replace(loaded.solver, path="scipy", t_end=1e-3, output_step=1e-3)
    with pytest.raises(MechanismError) as err:
        simulate(loaded.mechanism, settings)
    assert str(err.value) in msg and "'cross': mu = " in str(err.value)


def test_a_self_locking_cylindrical_joint_gets_no_advice_about_its_end_faces(tmp_path):
    # the Qi pendulum with LuGre sigma1 = 100 s/m: the bristle damping alone makes the loop's gain
    # about 100 per pass; the end faces' ratio 2c / R (a universal joint's journals carrying each
    # other's friction moment) has nothing to do with it, so the fault does not suggest it
    text = (ROOT / "studies" / "qi_pendulum_lugre.toml").read_text()
    old = "sigma1 = 0.0,"
    assert text.count(old) == 1     # the shipped study changed: update this case
    study = tmp_path / "lugre_locked.toml"
    study.write_text(text.replace(old, "sigma1 = 100.0,"))
    res = CliRunner().invoke(main, ["validate", str(study)])
    assert res.exit_code == 2, res.output
    assert "self-locking" in res.output and "Lower the friction coefficient" in res.output
    assert "end faces" not in res.output and "universal joint(s)" not in res.output


def test_shipped_spatial_studies_validate_and_the_start_check_is_cheap():
    from workbench.study.spatial_start import check_start
    assert len(SPATIAL) >= 4
    for path in SPATIAL:
        res = CliRunner().invoke(main, ["validate", str(path)])
        assert res.exit_code == 0, (path, res.output)
    study = load_study(ROOT / "studies" / "qi_pendulum.toml")
    w0 = time.perf_counter()
    check_start(study.mechanism, study.solver, "qi_pendulum.toml")
    # measured 6 ms; 0.25 s leaves room for a busy machine and still fails a compiled path
    # (minutes) or an integration sneaking in
    assert time.perf_counter() - w0 < 0.25
