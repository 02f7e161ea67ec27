"""The wear store is read with xarray's own zarr reader, cut at the completed updates."""
from __future__ import annotations

import numpy as np
import xarray as xr
import zarr

from workbench.wear import store as store_mod
from workbench.wear.store import COMPLETED, WearStore, open_store


def _row(k: int) -> xr.Dataset:
    theta = np.linspace(0.0, 2 * np.pi, 8, endpoint=False)
    return xr.Dataset(
        {"wear_depth": (("cycle", "theta"), np.full((1, 8), 1e-6 * (k + 1)),
                        {"units": "m", "long_name": "wear depth"}),
         "wear_volume": (("cycle",), [1e-12 * (k + 1)], {"units": "m^3", "long_name": "wear volume"}),
         "status": (("cycle",), np.array([f"update {k}"]), {"units": "1", "long_name": "note"})},
        coords={"cycle": ("cycle", [1000.0 * (k + 1)], {"units": "1", "long_name": "cycles"}),
                "theta": ("theta", theta, {"units": "rad", "long_name": "angle"})},
        attrs={"title": "toy", "run_status": "running"})


def test_open_store_reads_whole_updates_only_and_matches_xarray_open_zarr(tmp_path):
    out = tmp_path / "toy.zarr"
    s = WearStore(out)
    s.create(_row(0))
    for k in (1, 2):
        s.append(_row(k))
    expected = xr.concat([_row(k) for k in range(3)], dim="cycle", data_vars="minimal")
    ds = open_store(out)
    assert ds.attrs[COMPLETED] == 3 and ds.attrs["title"] == "toy"
    for name in ("wear_depth", "wear_volume", "status", "cycle", "theta"):
        np.testing.assert_array_equal(ds[name].values, expected[name].values)
        assert ds[name].attrs["units"] == expected[name].attrs["units"]
    with xr.open_zarr(out, consolidated=False) as plain:   # a finished store: xarray alone reads it
        xr.testing.assert_identical(plain.load(), ds)
    # a writer killed in the middle of the next append: one array has a row more
    g = zarr.open_group(str(out), mode="r+")
    g["wear_depth"].append(np.full((1, 8), 7.0), axis=0)
    kept = open_store(out)
    assert kept.sizes["cycle"] == 3 and not np.any(kept.wear_depth.values == 7.0)
    xr.testing.assert_identical(kept, ds)


def test_the_dead_helpers_are_gone():
    assert not hasattr(store_mod, "last_row") and not hasattr(store_mod, "as_array")
