"""A contact law returning a force while the bodies are apart is a model fault (exit status 3).

The solver never calls the kernel at ``delta <= 0``, so such a law (here 10 N at any negative
penetration, installed as a third party's plugin) ran without a word.  Now ``validate`` and
``run`` stop when the study is loaded, naming the model, the joint and the call, before any work;
the conformance suite finds it in a plugin author's tests.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli.main import main
from workbench.errors import ModelFault

ROOT = Path(__file__).resolve().parents[2]
FLORES = ROOT / "studies" / "flores_slider_crank.toml"

PUSHY = '''
from dataclasses import dataclass
import numpy as np
from numba import njit
from workbench.hookspecs import hookimpl
from workbench.models import ContactLaw

@njit
def _force(delta, delta_dot, delta_dot_minus, p):
    if delta <= 0.0:
        return 10.0          # the bug: a force while the bodies are apart
    return p[0] * delta ** 1.5

class Pushy(ContactLaw):
    """Hertz-type spring that pushes with 10 N while apart (test fixture, Hertz 1881)."""
    name = "pushy_contact"
    reference = "test fixture after Hertz (1881)"

    @dataclass(frozen=True)
    class Params:
        pass

    kernel = _force

    def pack(self, geometry):
        return np.array([1e10])

@hookimpl
def register_contact_laws(register):
    register(Pushy)
'''


@pytest.fixture
def pushy(site, tmp_path):
    site("wb-pushy", "0.3", "pushy", "wb_test_pushy", PUSHY)
    study = tmp_path / "pushy.toml"
    study.write_text(FLORES.read_text().replace('model = "lankarani_nikravesh", restitution = 0.9',
                                                'model = "pushy_contact"')
                     .replace("revolutions = 2 ", "t_end = 1.0e-3"))
    assert 'model = "pushy_contact"' in study.read_text()
    return study


def test_validate_and_run_stop_with_exit_3_naming_model_and_joint(pushy, tmp_path):
    for args in (("validate", pushy), ("run", pushy, "-o", tmp_path / "p.nc", "--no-plot")):
        r = CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": "250"})
        text = " ".join(r.output.split())
        assert r.exit_code == 3, r.output
        assert "Traceback" not in r.output
        assert "contact model 'pushy_contact'" in text and "clearance joint 'B'" in text, text
        assert "returns 10 N at a penetration of -" in text and "apart" in text, text
        assert "[mechanism.clearance_joints[0].contact]" in text
    assert not (tmp_path / "p.nc").exists()


def test_the_probe_and_the_conformance_suite_agree(pushy):
    import wb_test_pushy
    from workbench.conformance import ConformanceError, check_contact_law
    from workbench.plugins import build_registry
    from workbench.study.load import load_study
    with pytest.raises(ConformanceError, match="exactly 0 without penetration"):
        check_contact_law(wb_test_pushy.Pushy)
    with pytest.raises(ModelFault, match="pushy_contact"):
        load_study(pushy, registry=build_registry())
    load_study(FLORES, registry=build_registry())   # a conforming law passes the probe
