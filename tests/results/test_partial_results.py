"""A run that fails part-way keeps what it produced (brief: never lose data a run has produced).

A study names a (deliberately broken) contact law that returns NaN once the journal touches the
bushing: the run stops with an error naming the joint, the model and the time, the requested
output file is not written, and the samples computed before the failure are in a readable
``<name>.partial.nc`` with the failure in its attrs.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import xarray as xr

from workbench.errors import SolverError
from workbench.plugins import build_registry, get_plugin_manager
from workbench.study.load import load_study_text, run_study

FLORES = Path(__file__).resolve().parents[2] / "studies" / "flores_slider_crank.toml"


def test_failed_run_keeps_its_samples(tmp_path):
    import broken_models as plugin

    registry = build_registry(get_plugin_manager(extra_plugins=(plugin,)))
    text = FLORES.read_text().replace('model = "lankarani_nikravesh", restitution = 0.9',
                                      'model = "nan_on_contact"')
    study = load_study_text(text, file=tmp_path / "broken.toml", registry=registry)
    out = tmp_path / "broken.nc"
    with pytest.raises(SolverError, match=r"'B'.*'nan_on_contact'.*t = .*partial\.nc"):
        run_study(study, registry=registry, out=out)
    assert not out.exists()
    with xr.open_dataset(tmp_path / "broken.partial.nc") as ds:
        assert ds.attrs["run_status"].startswith("failed:")
        assert 0 < ds.sizes["time"] < 2401  # stopped at the first contact (about 0.23 ms)
        assert float(ds["time"].max()) < 2.3e-4
        assert ds["contact_force"].attrs["units"] == "N"
