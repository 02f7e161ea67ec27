"""Faults inside compiled plugin kernels become clear errors, and the run keeps its samples.

numba prints and ignores an exception raised in a ``cfunc`` and the caller would see force 0
(a journal going through the wall, reported as a complete run).  The solver's kernel wrappers
catch it, parameter rows are padded with NaN, and every contact / friction output is checked
where it enters the equations of motion: finite, contact force >= 0, friction within its law's
own coefficient times the normal force.  Each fault stops the run with an error naming the model,
the joint and the time, and carries the samples integrated before it.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import broken_models as bm
from mechanisms import OMEGA, slider_crank
from workbench.errors import SolverError
from workbench.mbs.compiled import friction_bound
from workbench.mbs.solution import SolverSettings
from workbench.mbs.solver import simulate

REV = 2 * math.pi / OMEGA
FIRST_CONTACT = 2.27e-4  # s: first contact of the Flores slider-crank (about 6.8 deg of crank)


def _fails(contact, friction=None, match=""):
    settings = SolverSettings(t_end=REV / 4, output_step=1e-5, rtol=1e-9, atol=1e-12)
    with pytest.raises(SolverError, match=match) as info:
        simulate(slider_crank(contact, friction), settings)
    return info.value


def _check_partial(exc):
    """The samples up to the fault are kept: a partial Simulation marked 'failed'."""
    sim = exc.partial
    assert sim is not None and sim.status == "failed"
    assert 10 < len(sim.time) < 100
    assert sim.time[-1] < FIRST_CONTACT + 2e-5
    assert np.all(np.isfinite(sim.position))
    # the time in the message is the time of the fault, at the first contact or just after it
    t = float(str(exc).split("t = ")[1].split(" s")[0])
    assert FIRST_CONTACT - 1e-5 < t < FIRST_CONTACT + 1e-4


def test_exception_raised_inside_a_contact_kernel():
    exc = _fails(bm.RaisingContact(), match=r"clearance joint 'rod_slider': the contact model "
                                             r"'raising_contact', at t = .* s, raised an exception")
    assert "not of the solver tolerances" in str(exc)
    _check_partial(exc)


def test_read_past_the_parameter_array_is_caught():
    """The kernel reads p[2] of a 2-value pack(): the NaN padding makes its force NaN."""
    exc = _fails(bm.OverreadContact(), match=r"'rod_slider'.*'overread_contact', at t = .*non-finite"
                                             r".*reads past the parameters")
    _check_partial(exc)


def test_tensile_contact_force_is_a_model_error():
    exc = _fails(bm.TensileContact(), match=r"'rod_slider'.*'tensile_contact', at t = .*tensile")
    assert "looser" not in str(exc)
    sim = exc.partial
    assert sim is not None and sim.status == "failed"
    # the fault comes on rebound, after the contact force has been compressive for a while
    assert np.max(sim.contact_force) > 0.0 and np.min(sim.contact_force) >= 0.0


def test_friction_beyond_its_own_coefficient_is_a_model_error(registry):
    contact = registry.create("contact", "hertz")
    exc = _fails(contact, bm.GreedyFriction(), match=r"'rod_slider'.*friction model 'greedy_friction', "
                                                     r"at t = .*larger than its own largest coefficient "
                                                     r"\(0\.1\)")
    _check_partial(exc)


def test_friction_bound_of_the_builtin_laws(registry):
    """Memoryless laws are bounded by their largest coefficient; LuGre (bristle damping and
    viscous terms) is not bounded by a coefficient."""
    assert friction_bound(registry.create("friction", "coulomb", {"mu": 0.3})) == 0.3
    assert friction_bound(registry.create("friction", "ambrosio", {"c_f": 0.01})) == 0.01
    assert friction_bound(registry.create("friction", "bai_zhao", {"mu_s": 0.2, "mu_d": 0.1})) == 0.2
    assert friction_bound(registry.create("friction", "lugre", {})) == math.inf
    assert friction_bound(None) == 0.0


def test_builtin_friction_runs_within_its_bound(registry):
    """The check does not trip on a correct law: the Flores study with Ambrosio friction."""
    c = registry.create("contact", "lankarani_nikravesh", {"restitution": 0.9})
    f = registry.create("friction", "ambrosio", {"c_f": 0.01, "v0": 1e-4, "v1": 1e-2})
    sim = simulate(slider_crank(c, f), SolverSettings(t_end=1.5e-3, output_step=1e-5))
    assert sim.status == "complete" and len(sim.impact_time) >= 3
    assert np.all(np.abs(sim.friction_force) <= 0.01 * sim.contact_force * (1 + 1e-9) + 1e-12)


def test_run_study_writes_the_partial_dataset_of_a_raising_kernel(tmp_path):
    from pathlib import Path

    import xarray as xr

    from workbench.plugins import build_registry, get_plugin_manager
    from workbench.study.load import load_study_text, run_study

    flores = Path(__file__).resolve().parents[2] / "studies" / "flores_slider_crank.toml"
    registry = build_registry(get_plugin_manager(extra_plugins=(bm,)))
    text = flores.read_text().replace('model = "lankarani_nikravesh", restitution = 0.9',
                                      'model = "raising_contact"')
    study = load_study_text(text, file=tmp_path / "raising.toml", registry=registry)
    with pytest.raises(SolverError, match=r"'raising_contact'.*raised an exception.*partial\.nc"):
        run_study(study, registry=registry, out=tmp_path / "raising.nc")
    assert not (tmp_path / "raising.nc").exists()
    with xr.open_dataset(tmp_path / "raising.partial.nc") as ds:
        assert ds.attrs["run_status"].startswith("failed:")
        assert 0 < ds.sizes["time"] and float(ds["time"].max()) < 2.3e-4
